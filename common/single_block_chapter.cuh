// What a chapter of one block (03 to 05) adds to the driver (common/driver.cuh), which runs it as
// it runs every GPU chapter: the chapter's facts, its rows and its trace, and the GPU stage of a
// kernel that reduces each row with a block of its own. A chapter's main() names two things:
//
//   Kernel  (its kernel header): the registry entry: `header` and `unfinished` (the file, and
//           whether it is an exercise version whose kernel is still a TODO), variant<T>() (name,
//           idea, launcher, depth) and recorded<T>() (the kernel instantiated with BlockRecorder,
//           for the trace). Whether the kernel overwrites its input (03, 04) or
//           not (05) is read from that kernel's signature: a `const T*` input is left as it was.
//   Model   (its model.hpp, a PredictedKernel): counts(n, bytes), trace(input) and
//           analyze(text, fields, counts, type), the chapter's part of the analysis.
//
//   return reduction::run_chapter<reduction::SingleBlockChapter<Kernel, Model>>(argc, argv, name, title);
//
// --rows R reduces R independent rows of n elements, one block each (common/single_block.hpp):
// the work is then large enough to be timed against memory. The driver reads the rows and gives
// each its own CPU reference; the analysis and the trace describe one row, and every row's result
// is checked. --trace prints the reduction step by step as the kernel recorded it (the model's
// prediction, labelled as one, where there is no GPU to record on).
#pragma once

#include <cstring>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "block_model.hpp"
#include "block_recorder.cuh"
#include "block_trace.hpp"
#include "driver.cuh"
#include "escape.hpp"
#include "single_block.hpp"

namespace reduction {

namespace single_block {

// Why rows x n elements of element_bytes cannot be held in this machine's memory; nothing if they can.
inline std::optional<std::string> rows_too_large(std::size_t rows, std::size_t n, std::size_t element_bytes) {
  const auto memory = host_memory_bytes();
  if (!memory || rows * n <= *memory / element_bytes) return std::nullopt;  // rows * n < 2^42: no overflow
  return "--rows " + std::to_string(rows) + " of " + std::to_string(n) + " elements take " +
         std::to_string(rows * n * element_bytes) + " bytes, and this machine has " + std::to_string(*memory) +
         " bytes of memory";
}

// The rows' results against their references: how many differ, and the first that does, in words.
struct RowsChecked {
  std::size_t wrong = 0, unchecked = 0;
  std::string first_wrong;
};

template <typename T>
RowsChecked check_rows(const std::vector<T>& results, const std::vector<Reference<T>>& refs, std::size_t depth) {
  RowsChecked checked;
  for (std::size_t row = 0; row < refs.size(); ++row) {
    const long double tol = tolerance(refs[row], depth);
    if (!unchecked_reason(refs[row], tol, depth).empty()) {
      ++checked.unchecked;
    } else if (!matches(results[row], refs[row], tol) && checked.wrong++ == 0) {
      checked.first_wrong = "row " + std::to_string(row) + " gave " + format_value(json_value(results[row]), data_type_of<T>()) +
                            ", its reference is " + format_value(json_value(refs[row].value), data_type_of<T>());
    }
  }
  return checked;
}

}  // namespace single_block

template <typename Kernel, typename Model>
struct SingleBlockChapter : ChapterDefaults {
  // 2048 elements by default, the most one block can take, and 100 repetitions: a run is short.
  static ChapterInfo info(const std::string& name, const std::string& title) {
    using namespace single_block;
    ChapterInfo info;
    info.name = name;
    info.title = title;
    info.min_n = 0;  // n = 0 and n > 2048 are refused by check_input, which says why and what to use instead
    info.default_reps = 100;
    info.default_n = kMaxElements;  // the most one block can take
    info.max_n = kMaxElements;      // a larger file is refused as soon as it is seen to be larger
    info.max_n_reason = "one block reduces at most " + std::to_string(kMaxElements) +
                        " elements, two for each of its at most " + std::to_string(kMaxThreads) +
                        " threads; 06_hierarchical lifts the limit with many blocks";
    return info;
  }
  template <typename Op, typename T> static auto variants() {
    return std::vector<Variant<SingleBlockLaunch<T>>>{Kernel::template variant<T>()};
  }
  static constexpr bool has_rows = true;
  // unfinished stays false: measure() names the kernel's header once a GPU is there to run it.

  inline static bool trace = false;
  inline static std::string rows_text = "1";
  static void add_options(CommandLine& cli, Options& options) {
    using namespace single_block;
    cli.add_flag("--trace", trace, "print the reduction step by step (n up to 64, one row)");
    cli.add_option("--rows", rows_text,
                   "reduce this many independent rows of n elements, one block each (also 2^16, 64K); "
                   "with --input, the file holds them one after another");
    cli.add_check([&options]() -> std::optional<std::string> {
      const auto parsed = parse_count(rows_text);
      if (!parsed) return "--rows must be a whole number of rows such as 1000, 2^16 or 64K, got '" + escaped(rows_text) + "'";
      options.rows = *parsed;
      if (auto why = rows_error(options.rows)) return why;
      if (trace && options.rows > 1) return "--trace draws one row, and --rows is " + std::to_string(options.rows);
      if (!options.input.empty()) return std::nullopt;  // a file's size is checked once it is read
      if (auto why = check_input(options.n, trace)) return why;
      return rows_too_large(options.rows, options.n, options.type == DataType::Double ? 8 : 4);
    });
  }
  static std::optional<std::string> check_row_length(std::size_t n) { return single_block::check_input(n, trace); }

  // The analysis: the model's prediction of what every thread does, on the CPU (the GPU tests
  // check it against the kernel's recording). It describes one block, which is one row.
  template <typename Op, typename T> static void analyze(Analysis<T>& a) {
    using namespace single_block;
    const unsigned threads = threads_for(a.n);
    const BlockCounts counts = Model::counts(a.n, sizeof(T));
    auto& text = a.text();
    text << "launch     " << describe_block(threads) << ": n/2 threads rounded up to a power of two. The\n"
         << "           algorithm fixes the block size, so this chapter has no --block option.\n";
    if (a.rows > 1)
      text << "rows       " << a.rows << " rows of n, one block each: block b reduces elements [b n, b n + n) into\n"
           << "           result[b]. What follows describes one block; every block does the same on its row.\n";
    Model::analyze(text, a.fields(), counts, type_name(data_type_of<T>()));
    a.fields().set("launch", launch_json(threads, a.rows));
    a.fields().set("memory", memory_json(counts));
    a.fields().set("steps", steps_json(counts));
    if (trace && !a.device) show_trace(a, Model::trace(a.data));  // the prediction is all there is
  }

  // The GPU stage: the kernel checked and timed on every row, then every row checked, the input
  // checked where the kernel must leave it as it was, and the trace the kernel records.
  template <typename T> static std::vector<RunResult> measure(Analysis<T>& a) {
    using namespace single_block;
    Report& report = a.report;
    const std::vector<T>& data = a.data;
    const std::size_t n = a.n, rows = a.rows;
    if (Kernel::unfinished)
      std::cerr << report.info().name << ": the kernel in " << Kernel::header << " is not implemented yet\n";
    const bool in_place = writes_its_input(Kernel::template recorded<T>());
    const std::size_t device_bytes = (in_place ? 2 : 1) * data.size() * sizeof(T) + rows * sizeof(T);
    if (auto why = device_room(device_bytes)) throw InputError(std::to_string(rows) + " rows of " + std::to_string(n) + ": " + *why);
    DeviceBuffer<T> input(data), result(rows);
    DeviceBuffer<T> work(in_place ? data.size() : 0);
    const auto kernel = Kernel::template variant<T>();
    T* kernel_data = in_place ? work.data() : input.data();
    // An in-place kernel overwrites its input: every launch gets a fresh copy, made outside the timing.
    std::function<void()> restore;
    if (in_place)
      restore = [&] {
        CUDA_CHECK(cudaMemcpy(work.data(), input.data(), data.size() * sizeof(T), cudaMemcpyDeviceToDevice));
      };
    // Row 0 is checked after every launch; every row after the last one (the kernels are deterministic).
    RunResult run = run_reduction<T>(
        kernel.name, [&](cudaStream_t stream) { kernel.launch(kernel_data, rows, n, result.data(), stream); }, result,
        a.ref, tolerance(a.ref, tree_depth(n)), a.options, double(data.size()) * sizeof(T), restore, tree_depth(n));
    if (rows > 1) {
      const RowsChecked checked = check_rows(result.download(), a.refs, tree_depth(n));
      run.extra.set("rows_wrong", checked.wrong);
      if (checked.wrong) {
        report.summary() << "FAILED: " << checked.wrong << " of " << rows << " rows differ from their reference; "
                         << checked.first_wrong << "\n";
        run.correct = false;
      }
      if (checked.unchecked)
        report.summary() << checked.unchecked << " rows could not be checked: their error bound says nothing\n";
    }
    if (!in_place) {  // after every launch of the run, the input must be exactly as uploaded
      const std::vector<T> after = input.download();
      const bool unchanged = std::memcmp(after.data(), data.data(), data.size() * sizeof(T)) == 0;
      run.extra.set("input_unchanged", unchanged);
      if (!unchanged) {
        report.summary() << "FAILED: the kernel changed its input\n";
        run.correct = false;
      }
    }
    if (trace) {  // what the kernel itself did, recorded by the same kernel template
      const Recording<T> recording = record(Kernel::template recorded<T>(), data);
      show_trace(a, trace_from(recording.events, data, threads_for(n), Model::trace(data).layout, true));
    }
    print_timing_note(report.summary(), a.options.reps, tree_steps(Model::counts(n, sizeof(T))), rows);
    return {std::move(run)};
  }

 private:
  template <typename T> static void show_trace(Analysis<T>& a, const single_block::Trace<T>& steps) {
    a.text() << "\n";
    single_block::print_trace(a.text(), steps);
    a.fields().set("trace", single_block::trace_json(steps));
  }
};

}  // namespace reduction
