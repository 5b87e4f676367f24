// Chapter 09's --sizes mode: the chosen kernels (fastest and cub unless --kernel names others)
// timed at many sizes in one process, alternating run by run, one row per size and operator
// (benchmark/sweep.py reads the rows). The input is made once, at the largest size; each smaller
// size reduces a prefix of it. main.cu calls run_sizes() after the input, in place of its own runs.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <set>
#include <type_traits>
#include <vector>

#include "analysis.cuh"
#include "common/gpu.cuh"
#include "common/measure.cuh"      // open_gpu
#include "common/ceilings.cuh"  // RotatingInput, the copy and read ceilings, describe_ceilings
#include "common/ops.hpp"
#include "common/options.hpp"  // parse_count
#include "common/reference.hpp"
#include "common/report.hpp"
#include "read_ceiling.cuh"
#include "warp_unrolled.cuh"

namespace ch09 {

// The sizes of a run: every size reduces a prefix of one input (the input --n would make of the
// largest size: element i depends only on the seed and i), so the sizes share one upload and one
// pass of the CPU reference.

// "standard": n = 2^k for k = 0 to 30, 2^k - 1 and 2^k + 1 between them, and 10^k up to 10^9.
inline std::vector<std::size_t> standard_sizes() {
  std::set<std::size_t> sizes;
  for (int k = 0; k <= 30; ++k) {
    const std::size_t p = std::size_t(1) << k;
    sizes.insert(p);
    if (p > 1) sizes.insert(p - 1);
    if (k < 30) sizes.insert(p + 1);
  }
  for (std::size_t p = 10; p <= 1000000000; p *= 10) sizes.insert(p);
  return {sizes.begin(), sizes.end()};
}

// "standard", or counts separated by commas ("1,1000,2^20"): ascending, without repeats.
inline std::optional<std::vector<std::size_t>> parse_sizes(const std::string& text) {
  if (text == "standard") return standard_sizes();
  std::set<std::size_t> sizes;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    const auto n = reduction::parse_count(item);
    if (!n || *n == 0) return std::nullopt;
    sizes.insert(*n);
  }
  if (sizes.empty()) return std::nullopt;
  return std::vector<std::size_t>(sizes.begin(), sizes.end());
}

// The reference of every prefix data[0, n), for each n of `sizes` (ascending). Exact operators
// (integer sums, max, min) combine the references of the segments between consecutive sizes, so
// the input is read once whatever the number of sizes; a float sum takes each prefix's own
// reference, whose error bound is made for one call.
template <typename Op, typename T>
std::vector<reduction::Reference<T>> prefix_references(const std::vector<T>& data,
                                                       const std::vector<std::size_t>& sizes) {
  using namespace reduction;
  std::vector<Reference<T>> refs;
  if constexpr (std::is_same_v<Op, Sum> && !std::is_integral_v<T>) {
    for (const std::size_t n : sizes) refs.push_back(reference_sum(data.data(), n));
  } else {
    Reference<T> running = reference_reduce<Op>(data.data(), 0);  // the identity, exactly
    std::size_t done = 0;
    for (const std::size_t n : sizes) {
      const Reference<T> segment = reference_reduce<Op>(data.data() + done, n - done);
      running.value = Op{}(running.value, segment.value);  // integer sums wrap as the GPU's do
      running.precise = static_cast<long double>(running.value);
      done = n;
      refs.push_back(running);
    }
  }
  return refs;
}

// One kernel of a row: its launch on a given copy of the input, and its order's depth.
template <typename T> struct Contender {
  std::string name;
  std::function<void(const T* input, cudaStream_t)> launch;
  std::size_t depth;  // for the float tolerance
};

// Checks and times the contenders on the same n, alternating them run by run, so that a change of
// clock or a neighbour's load touches all of them alike. Each is first checked alone (poisoned
// result, one launch, compared with the reference) before it is timed; then `warmup` untimed
// rounds, then `reps` timed rounds, every timed result checked too. Every other round runs them in
// the reverse order (ABBA), so that none is always first after the host's pause or always next
// after the same neighbour: whatever a position costs, each pays it equally often.
template <typename T>
std::vector<reduction::RunResult> run_alternating(const std::vector<Contender<T>>& contenders, std::size_t n,
                                                  reduction::RotatingInput<T>& input, reduction::DeviceBuffer<T>& result,
                                                  const reduction::Reference<T>& ref, const reduction::Options& options,
                                                  const reduction::Ceilings& ceilings, double& read_ceiling_seen) {
  using namespace reduction;
  const std::size_t count = contenders.size();
  std::vector<RunResult> runs(count);
  std::vector<long double> tol(count);
  std::vector<std::vector<double>> times(count);
  std::vector<T> lowest(count), highest(count);
  for (std::size_t c = 0; c < count; ++c) {
    tol[c] = tolerance(ref, contenders[c].depth);
    result.poison();
    contenders[c].launch(input.next(), 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    const T first = result.download_one();
    runs[c].kernel = contenders[c].name;
    runs[c].result = json_value(first);
    runs[c].correct = matches(first, ref, tol[c]);
    runs[c].unchecked = unchecked_reason(ref, tol[c], contenders[c].depth);
    lowest[c] = highest[c] = first;
  }
  for (int w = 0; w < options.warmup; ++w)
    for (const auto& contender : contenders) contender.launch(input.next(), 0);
  CUDA_CHECK(cudaDeviceSynchronize());
  for (int r = 0; r < options.reps; ++r)
    for (std::size_t turn = 0; turn < count; ++turn) {
      const std::size_t c = r % 2 ? count - 1 - turn : turn;
      const TimingStats one = time_gpu(
          0, 1, [&](cudaStream_t stream) { contenders[c].launch(input.next(), stream); }, [&] { result.poison(); },
          [&] {
            const T value = result.download_one();
            runs[c].correct = runs[c].correct && matches(value, ref, tol[c]);
            lowest[c] = std::min(lowest[c], value);
            highest[c] = std::max(highest[c], value);
          });
      times[c].push_back(one.median_ms);
    }
  for (std::size_t c = 0; c < count; ++c) {
    runs[c].time_ms = summarize(times[c]).median_ms;
    runs[c].gbps = gigabytes_per_second(double(n) * sizeof(T), runs[c].time_ms);
  }
  for (std::size_t c = 0; c < count; ++c) {
    Json columns = Json::object();
    columns.set("pct_of_copy", ceilings.copy_gbps > 0 ? Json(100 * runs[c].gbps / ceilings.copy_gbps) : Json());
    // A share of the read ceiling only where the plain read read these very bytes (the largest
    // input), against the faster of it and the kernels here: no kernel above 100 % of it.
    if (ceilings.read.gbps > 0 && ceilings.read.of_input && ceilings.read.bytes == n * sizeof(T)) {
      double ceiling = ceilings.read.gbps;
      for (const auto& other : runs) ceiling = std::max(ceiling, other.correct ? other.gbps : 0.0);
      columns.set("pct_of_read", 100 * runs[c].gbps / ceiling);
      read_ceiling_seen = std::max(read_ceiling_seen, ceiling);
    }
    if (!ref.exact) {
      columns.set("tolerance", static_cast<double>(tol[c]));
      columns.set("run_spread", static_cast<double>(highest[c]) - static_cast<double>(lowest[c]));
    }
    runs[c].extra = std::move(columns);
  }
  return runs;
}

// --sizes: the kernels at each size, alternating, for each operator; one row each.
template <typename T>
int run_sizes(const std::vector<T>& data, const reduction::Options& options, reduction::Report& report,
              const std::vector<std::size_t>& sizes, const std::vector<reduction::OpKind>& ops) {
  using namespace reduction;
  const std::vector<std::string>& kernels = options.kernels;

  // The analysis: what the rows are, the single-block path's thresholds, and with a GPU each row's plan.
  std::vector<std::string> op_names;
  for (const OpKind op : ops) op_names.push_back(op_name(op));
  report.text() << "sizes      " << sizes.size() << " sizes from " << sizes.front() << " to " << sizes.back()
                << "; at each, " << join(kernels, " and ") << " reduce the first n elements\n"
                << "           (the input --n n would make: element i depends only on the seed and i), for "
                << join(op_names) << ".\n           Each result is checked before it is timed; then they alternate, "
                << options.reps << " timed runs each,\n           and each reports its median.\n";
  std::string no_gpu;
  const std::optional<DeviceInfo> device = open_gpu(report, no_gpu);
  describe_single_block_path<T>(report.text());
  std::vector<FastestPlan> plans;  // operator by operator, size by size: the order of the rows
  if (device)
    for (const OpKind op : ops)
      dispatch_op(op, [&](auto o) {
        if constexpr (!std::is_same_v<decltype(o), Product>)  // not offered by --op
          for (const std::size_t n : sizes) plans.push_back(fastest_plan<decltype(o), T>(n));
        return 0;
      });
  Json size_list = Json::array();
  for (const std::size_t n : sizes) size_list.push(n);
  report.fields().set("sizes", std::move(size_list));
  if (!device) return report.finish_without_gpu(no_gpu);

  // The ceilings, before the upload (as main.cu measures them), and the input of the largest size.
  const std::size_t bytes = data.size() * sizeof(T);
  if (auto why = device_room(bytes)) throw InputError(*why);
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  Ceilings ceilings;
  ceilings.copy_bytes = copy_ceiling_bytes(bytes, device->l2_bytes, free_bytes);
  if (ceilings.copy_bytes > 0)
    ceilings.copy_gbps = measure_copy_ceiling_gbps(ceilings.copy_bytes, options.warmup, options.reps);
  const DeviceBuffer<T> input(data);
  ceilings.read = measure_read_ceiling(input.data(), bytes, device->l2_bytes, options.warmup, options.reps);
  DeviceBuffer<T> result(1);
  DeviceScratch scratch_a, scratch_b;  // one each for the first two: a kernel's scratch is its own between runs
  double read_ceiling_seen = 0;  // the fastest read of the largest input by a kernel here (run_alternating)

  // The rows.
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
        const auto chosen = chosen_variants(variants<Op, T>(), kernels);
        const auto refs = prefix_references<Op>(data, sizes);
        for (std::size_t i = 0; i < sizes.size(); ++i) {
          const std::size_t n = sizes[i];
          RotatingInput<T> rotating(input.data(), n, device->l2_bytes, options.hot_l2);
          std::vector<Contender<T>> contenders;
          for (std::size_t c = 0; c < chosen.size(); ++c) {
            const auto& v = chosen[c];
            DeviceScratch& scratch = c == 0 ? scratch_a : scratch_b;
            contenders.push_back(
                {v.name, [&, v](const T* in, cudaStream_t s) { v.launch(in, n, result.data(), options.block, scratch, s); },
                 v.depth(n, options.block)});
          }
          auto runs = run_alternating(contenders, n, rotating, result, refs[i], options, ceilings, read_ceiling_seen);
          Json row = Json::object();
          row.set("op", Op::name);
          row.set("n", n);
          bool correct = true;
          for (const auto& r : runs) row.set(r.kernel + "_us", r.time_ms * 1e3), correct = correct && r.correct;
          const double ratio = runs.size() == 2 ? runs[1].time_ms / runs[0].time_ms : 0;
          if (runs.size() == 2) row.set("ratio", ratio);
          for (const auto& r : runs) row.set(r.kernel + "_correct", r.correct);
          const FastestPlan* plan = rows.size() < plans.size() ? &plans[rows.size()] : nullptr;
          if (plan)
            for (const auto& [key, value] : Json(plan_json(*plan)).items()) row.set(key, value);
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
          table << "  " << (plan ? launch_of(*plan) : "") << (correct ? "" : "  WRONG RESULT") << "\n";
          for (auto& r : runs) {
            Json extra = Json::object();
            extra.set("op", Op::name);
            extra.set("n", n);
            if (runs.size() == 2) extra.set("vs_" + runs[1].kernel, runs[1].time_ms / r.time_ms);
            for (const auto& [key, value] : r.extra.items()) extra.set(key, value);
            r.extra = std::move(extra);
            report.add_run(std::move(r));
          }
        }
      }
      return 0;
    });

  // The report: the rows under the table, and the ceilings.
  report.fields().set("op", ops.size() == 1 ? Json(op_name(ops[0])) : Json("all"));
  report.fields().set("copy_ceiling_gbps", ceilings.copy_gbps);
  if (ceilings.read.gbps > 0) {
    // The fastest read of the largest input: the plain read, or a kernel that read it faster.
    report.fields().set("plain_read_gbps", ceilings.read.gbps);
    report.fields().set("read_ceiling_gbps", std::max(ceilings.read.gbps, read_ceiling_seen));
    report.fields().set("read_ceiling_bytes", ceilings.read.bytes);
  }
  report.fields().set("sweep", std::move(rows));
  auto& summary = report.summary();
  summary << join(kernels, " against ") << ", size by size" << (ratio_of.empty() ? "" : " (ratio: " + ratio_of + ")")
          << ":\n"
          << table.str();
  if (!ratio_of.empty()) {
    summary << "below 1.00: " << below.size() << " of " << sizes.size() * ops.size() << " rows";
    for (const auto& b : below) summary << (&b == &below.front() ? ": " : ", ") << b;
    summary << "\n";
  }
  std::snprintf(line, sizeof line, "ceilings   copy %.1f GB/s (bytes read + written)", ceilings.copy_gbps);
  summary << line;
  if (ceilings.read.gbps > 0) {
    std::snprintf(line, sizeof line, ", read %.1f GB/s (%s, %.0f MiB)", ceilings.read.gbps, ceilings.read.shape.c_str(),
                  ceilings.read.bytes / double(1 << 20));
    summary << line;
  }
  summary << "\n";
  return report.finish();
}

}  // namespace ch09
