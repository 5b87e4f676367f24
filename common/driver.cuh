// The one program of the GPU chapters (03 to 09). Data flows one way through it:
//
//   options -> input -> reference -> analysis -> GPU -> measurement -> verification -> report
//
// A chapter's main.cu hands run_chapter() the struct that says what is its own (common/chapter.cuh:
// its registry, its facts, its analysis), with its name and title as data:
//
//   int main(int argc, char** argv) { return reduction::run_chapter<MyChapter>(argc, argv, "name", "title"); }
//
// Each stage has its file, in order: the options (chapter_options.cuh, options.cpp), the input
// (program.hpp, input.cpp), the reference (reference.hpp), the chapter's analysis (the chapter's
// one hook: the GPU is looked up just before it, so that it can say what the GPU it will run on
// adds; nothing runs there yet), the GPU, the measurement and its verification (multi_block.cuh,
// or the shape of work's own), the conclusion (conclusion.cuh) and the report (report.cpp).
//
// Two shapes of work. A multi-block chapter (06 to 09) reduces one array with blocks of --block
// threads, timed against ceilings measured in the same run (common/multi_block.cuh). A chapter
// with rows (03 to 05, has_rows, common/single_block_chapter.cuh) reduces --rows R arrays of n
// elements, one after another, each with a block of its own whose size follows from n: the driver
// reads the rows, checks that they divide the input, and computes a reference for each row; the
// chapter's measure() hook times the launch and checks every row.
//
// --sizes (chapters with has_sizes, common/size_sweep.cuh) runs the chosen kernels at many sizes
// instead, alternating them run by run, one row per size.
#pragma once

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "chapter.cuh"
#include "chapter_options.cuh"
#include "conclusion.cuh"
#include "measure.cuh"
#include "multi_block.cuh"
#include "ops.hpp"
#include "parallel.hpp"
#include "program.hpp"
#include "reference.hpp"
#include "report.hpp"
#include "size_sweep.cuh"
#include "sizes.hpp"

namespace reduction {

namespace detail {

// Puts the reference into the report. It is part of the analysis, so it is there with or without
// a GPU. A multi-block kernel's float tolerance depends on its own order and is a column of its
// run; the one kernel of a chapter with rows has its order from n alone (`depth`), and its
// tolerance goes beside the reference. With several rows the report shows row 0's.
template <typename Chapter, typename T>
void describe_reference(Report& report, const std::vector<Reference<T>>& refs, std::size_t depth) {
  const Reference<T>& ref = refs.front();
  if (Chapter::has_rows && refs.size() > 1)
    report.set_reference(json_value(ref.value), "row 0's; every row is checked against its own CPU sum, " +
                                                    std::string(ref.exact ? "exactly" : "within its error bound"));
  else if (Chapter::has_rows)
    report.set_reference(ref, tolerance(ref, depth));
  else if (ref.exact)
    report.set_reference(ref, 0);
  else
    report.set_reference(json_value(ref.value),
                         "higher-precision CPU sum; each kernel passes within the error bound "
                         "of its own summation order (column tolerance)");
}

// The GPU half of a multi-block chapter: the input on the device with the ceilings measured
// beside it, then each chosen variant checked and timed (common/multi_block.cuh).
template <typename Chapter, typename Op, typename T>
std::vector<RunResult> measure_array(Analysis<T>& a, const DeviceInfo& device,
                                     const std::vector<MultiBlockVariant<T>>& chosen, bool sweep) {
  const std::size_t n = a.n;
  const int block = a.block;
  Report& report = a.report;
  DeviceInput<T> input(a.data, a.options, device, Chapter::read_ceiling);
  RotatingInput<T> rotating = input.rotating(n);
  DeviceScratch scratch;
  T* result = input.result();
  std::vector<RunResult> runs;
  for (const auto& v : chosen) {
    const Contender<T> contender{
        v.name, [&](const T* in, cudaStream_t s) { v.launch(in, n, result, block, scratch, s); }, v.depth(n, block)};
    RunResult run = input.run(contender, n, rotating, a.ref);
    // A variant that promises the same float on every run and gave two has broken its promise.
    if (v.deterministic && !a.ref.exact && column_of(run, "run_spread") != 0) {
      run.correct = false;
      report.summary() << v.name << " gave different results on different runs: it should not\n";
    }
    if (const auto columns = a.columns.find(v.name); columns != a.columns.end())
      for (const auto& [key, value] : columns->second.items()) run.extra.set(key, value);
    runs.push_back(std::move(run));
    if (runs.size() < chosen.size() && sweep && sweep_stops(Chapter::sweep, runs)) {
      Json not_run = Json::array();  // said in the report, so that a script knows they were not lost
      for (std::size_t k = runs.size(); k < chosen.size(); ++k) not_run.push(chosen[k].name);
      a.fields().set("not_run", std::move(not_run));
      break;
    }
  }

  describe_ceilings(report, input.ceilings());
  const std::size_t bytes = n * sizeof(T);
  if (rotating.copies() > 1)
    report.summary() << "L2         the input (" << mebibytes(bytes) << ") fits in the " << mebibytes(device.l2_bytes)
                     << " L2: each run reads the next of " << rotating.copies() << " copies of it,\n           "
                     << (rotating.copies() * bytes < device.l2_bytes
                             ? "which together still fit in L2: small inputs are read from L2 by every kernel\n"
                             : "so every kernel starts from DRAM (--hot-l2: from L2)\n");
  else if (a.options.hot_l2 && bytes < 3 * device.l2_bytes)
    report.summary() << "L2         --hot-l2: every run reads the same copy, which stays in L2 after the first\n";
  report.fields().set("input_copies", rotating.copies());
  return runs;
}

// One run of the chosen kernels on the input (its rows), for one operator: the stages from the
// reference on.
template <typename Chapter, typename Op, typename T>
int run_kernels(const std::vector<T>& data, const Options& options, Report& report) {
  const std::size_t rows = options.rows, n = data.size() / rows;
  const int block = options.block;
  const auto available = Chapter::template variants<Op, T>();
  const auto chosen = chosen_variants(available, options.kernels);
  const bool sweep = chosen.size() == available.size();  // every variant, in the registry's order
  std::vector<std::string> names, skipped, offered;
  for (const auto& v : chosen) names.push_back(v.name);
  for (const auto& v : available) offered.push_back(v.name);
  for (const auto& k : options.kernels)
    if (std::find(names.begin(), names.end(), k) == names.end()) skipped.push_back(k);

  // The reference, one a row, first: the report shows it without a GPU.
  std::vector<Reference<T>> refs(rows);
  parallel_chunks(rows, unsigned(std::min<std::size_t>(rows, cpu_workers(data.size()))),
                  [&](std::size_t first, std::size_t last, unsigned) {
                    for (std::size_t row = first; row < last; ++row)
                      refs[row] = reference_reduce<Op>(data.data() + row * n, n);
                  });
  describe_reference<Chapter>(report, refs, Chapter::has_rows ? available.front().depth(n, block) : 0);

  // The analysis: what the chapter explains, with the GPU's facts where there is one.
  std::string no_gpu;
  const std::optional<DeviceInfo> device = open_gpu(report, no_gpu);
  Analysis<T> a{n, rows, block, options, data, refs, refs.front(), report, names, device ? &*device : nullptr, {}};
  if (Chapter::has_ops) {
    a.text() << "operator   " << Op::name << ", identity "
             << format_value(json_value(Op::template identity<T>()), data_type_of<T>()) << "\n";
    a.fields().set("op", Op::name);
  }
  Chapter::template analyze<Op, T>(a);
  if (!skipped.empty())
    a.text() << "skipped    " << join(skipped, " ") << ": they take only sum; --op " << Op::name << " runs "
             << join(offered) << "\n";
  if (!Chapter::has_rows) a.fields().set("block", block);  // with rows, the block follows from n

  // The GPU, then the measurement and the verification of each run.
  if (!device) return report.finish_without_gpu(no_gpu);
  std::vector<RunResult> runs;
  if constexpr (Chapter::has_rows)
    runs = Chapter::template measure<T>(a);
  else
    runs = measure_array<Chapter, Op>(a, *device, chosen, sweep);

  // The report.
  const std::string baseline = Chapter::baseline;
  for (const auto& b : runs)
    if (!baseline.empty() && b.kernel == baseline)
      for (auto& r : runs) r.extra.set("vs_" + baseline, b.time_ms / r.time_ms);
  for (const auto& r : runs) report.add_run(r);
  conclude<Chapter>(report, runs, sweep);
  return report.finish();
}

}  // namespace detail

// The program: the stages in order, from the command line to the report.
template <typename Chapter>
int run_chapter(int argc, char** argv, const std::string& name, const std::string& title) {
  // The options.
  ChapterInfo info = Chapter::info(name, title);
  Options options;
  std::vector<OpKind> ops;
  std::vector<std::size_t> sizes;
  if (auto status = parse_command_line<Chapter>(argc, argv, info, options, ops, sizes)) return *status;

  // The input: --n elements, or a file; with rows, the rows one after another.
  Options input_options = options;
  if (options.rows > 1) {
    input_options.n = options.rows * options.n;  // below the host's memory: checked with the option
    info.max_n = options.rows * info.max_n;
    info.max_n_reason = std::to_string(options.rows) + " rows of at most " + std::to_string(info.max_n / options.rows) +
                        " elements";
  }
  return run_guarded(info.name, [&] {
    return with_input(info, input_options, [&](const auto& data, const std::string& source) {
      using T = typename std::decay_t<decltype(data)>::value_type;
      const std::size_t rows = options.rows;
      if (data.size() % rows != 0)
        throw InputError(source + ": " + std::to_string(data.size()) + " elements do not make " + std::to_string(rows) +
                         " rows of equal length");
      const std::size_t n = data.size() / rows;
      if (auto why = Chapter::check_row_length(n)) throw InputError(source + ": " + *why);
      Report report(info, options);
      report.set_input(data_type_of<T>(), n, source);
      if (Chapter::has_rows) report.fields().set("rows", rows);
      const int status = [&] {
        if constexpr (Chapter::has_sizes)
          if (!sizes.empty()) return detail::run_sizes<Chapter, T>(data, options, report, sizes, ops);
        if constexpr (!Chapter::has_ops)
          return detail::run_kernels<Chapter, Sum, T>(data, options, report);
        else
          return dispatch_op(ops.front(), [&](auto op) {
            using Op = decltype(op);
            if constexpr (std::is_same_v<Op, Product>) return int(kBadUsage);  // not offered by --op
            else return detail::run_kernels<Chapter, Op, T>(data, options, report);
          });
      }();
      // Said after the report, so never beside the one line of a bad input (a sum too large for
      // its type is found only with the reference).
      if (Chapter::unfinished)
        std::cerr << info.name << ": built with the exercise kernels, which are not all written yet\n";
      return status;
    });
  });
}

}  // namespace reduction
