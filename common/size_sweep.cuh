// The driver's second mode (common/driver.cuh), --sizes: the chosen kernels timed at many sizes
// in one process, alternating run by run, one row per size and operator (benchmark/sweep.py reads
// the rows). The input is made once, at the largest size; each smaller size reduces a prefix of it.
#pragma once

#include <cstdio>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "chapter.cuh"
#include "measure.cuh"
#include "multi_block.cuh"
#include "ops.hpp"
#include "reference.hpp"
#include "report.hpp"
#include "sizes.hpp"

namespace reduction::detail {

// --sizes: the chosen kernels at each size, alternating, for each operator.
template <typename Chapter, typename T>
int run_sizes(const std::vector<T>& data, const Options& options, Report& report, const std::vector<std::size_t>& sizes,
              const std::vector<OpKind>& ops) {
  std::vector<std::string> kernels = options.kernels;
  auto& text = report.text();
  text << "sizes      " << sizes.size() << " sizes from " << sizes.front() << " to " << sizes.back() << "; at each, "
       << join(kernels, " and ") << " reduce the first n elements\n"
       << "           (the input --n n would make: element i depends only on the seed and i), for "
       << join([&] {
            std::vector<std::string> v;
            for (const OpKind op : ops) v.push_back(op_name(op));
            return v;
          }())
       << ".\n           Each result is checked before it is timed; then they alternate, " << options.reps
       << " timed runs each,\n           and each reports its median.\n";
  std::string no_gpu;
  const std::optional<DeviceInfo> device = open_gpu(report, no_gpu);
  const std::vector<SizeNote> notes = Chapter::template analyze_sizes<T>(text, sizes, ops, device ? &*device : nullptr);
  Json size_list = Json::array();
  for (const std::size_t n : sizes) size_list.push(n);
  report.fields().set("sizes", std::move(size_list));

  if (!device) return report.finish_without_gpu(no_gpu);
  DeviceInput<T> input(data, options, *device, Chapter::read_ceiling);
  DeviceScratch scratch_a, scratch_b;  // one each: a kernel's scratch is its own between runs
  T* result = input.result();
  const std::string ratio_of = kernels.size() == 2 ? kernels[1] + "'s median time over " + kernels[0] + "'s" : "";

  Json rows = Json::array();
  std::ostringstream table;
  std::vector<std::string> below;
  char line[200];
  table << "op  " << std::string(12 - 2, ' ') << "n";
  for (const auto& k : kernels) table << " " << std::string(k.size() < 12 ? 12 - k.size() : 0, ' ') << k;
  table << (ratio_of.empty() ? "" : "   ratio") << "\n";
  for (const OpKind op_kind : ops)
    dispatch_op(op_kind, [&](auto op) {
      using Op = decltype(op);
      if constexpr (!std::is_same_v<Op, Product>) {
        const auto chosen = chosen_variants(Chapter::template variants<Op, T>(), kernels);
        const auto refs = prefix_references<Op>(data, sizes);
        for (std::size_t i = 0; i < sizes.size(); ++i) {
          const std::size_t n = sizes[i];
          RotatingInput<T> rotating = input.rotating(n);
          std::vector<Contender<T>> contenders;
          for (std::size_t c = 0; c < chosen.size(); ++c) {
            const auto& v = chosen[c];
            DeviceScratch& scratch = c == 0 ? scratch_a : scratch_b;
            contenders.push_back({v.name,
                                  [&, v](const T* in, cudaStream_t s) {
                                    v.launch(in, n, result, options.block, scratch, s);
                                  },
                                  v.depth(n, options.block)});
          }
          auto runs = input.run_alternating(contenders, n, rotating, refs[i]);
          Json row = Json::object();
          row.set("op", Op::name);
          row.set("n", n);
          bool correct = true;
          for (const auto& r : runs) row.set(r.kernel + "_us", r.time_ms * 1e3), correct = correct && r.correct;
          const double ratio = runs.size() == 2 ? runs[1].time_ms / runs[0].time_ms : 0;
          if (runs.size() == 2) row.set("ratio", ratio);
          for (const auto& r : runs) row.set(r.kernel + "_correct", r.correct);
          const SizeNote* note = rows.size() < notes.size() ? &notes[rows.size()] : nullptr;
          if (note)
            for (const auto& [key, value] : note->fields.items()) row.set(key, value);
          rows.push(std::move(row));
          std::snprintf(line, sizeof line, "%-4s %11zu", Op::name, n);
          table << line;
          for (const auto& r : runs) {
            std::snprintf(line, sizeof line, " %12s", format_time(r.time_ms).c_str());
            table << line;
          }
          if (runs.size() == 2) {
            std::snprintf(line, sizeof line, " %7.3f", ratio);
            table << line;
            if (ratio < 1) below.push_back(std::string(Op::name) + " " + std::to_string(n));
          }
          table << "  " << (note ? note->text : "") << (correct ? "" : "  WRONG RESULT") << "\n";
          for (auto& r : runs) {
            Json extra = Json::object();
            extra.set("op", Op::name);
            extra.set("n", n);
            if (runs.size() == 2) extra.set("vs_" + runs[1].kernel, runs[1].time_ms / r.time_ms);
            for (const auto& kv : r.extra.items()) extra.set(kv.first, kv.second);
            r.extra = std::move(extra);
            report.add_run(std::move(r));
          }
        }
      }
      return 0;
    });

  report.fields().set("op", ops.size() == 1 ? Json(op_name(ops[0])) : Json("all"));
  const Ceilings& c = input.ceilings();
  report.fields().set("copy_ceiling_gbps", c.copy_gbps);
  if (c.read.gbps > 0) {
    report.fields().set("read_ceiling_gbps", c.read.gbps);
    report.fields().set("read_ceiling_bytes", c.read.bytes);
  }
  report.fields().set("sweep", std::move(rows));
  auto& summary = report.summary();
  summary << join(kernels, " against ") << ", size by size"
          << (ratio_of.empty() ? "" : " (ratio: " + ratio_of + ")") << ":\n"
          << table.str();
  if (!ratio_of.empty()) {
    summary << "below 1.00: " << below.size() << " of " << sizes.size() * ops.size() << " rows";
    for (const auto& b : below) summary << (&b == &below.front() ? ": " : ", ") << b;
    summary << "\n";
  }
  std::snprintf(line, sizeof line, "ceilings   copy %.1f GB/s (bytes read + written)", c.copy_gbps);
  summary << line;
  if (c.read.gbps > 0) {
    std::snprintf(line, sizeof line, ", read %.1f GB/s (%s, %.0f MiB)", c.read.gbps, c.read.shape.c_str(),
                  c.read.bytes / double(1 << 20));
    summary << line;
  }
  summary << "\n";
  return report.finish();
}

}  // namespace reduction::detail
