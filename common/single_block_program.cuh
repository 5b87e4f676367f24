// The program of the single-block chapters (03 to 05): options, input, the analysis that needs no
// GPU (launch, the chapter's own model), then the kernel checked and timed on the GPU, and with
// --trace the reduction step by step as the kernel recorded it (the model's prediction, labelled
// as one, where there is no GPU to record on). A chapter's main() names two things:
//
//   Kernel  (its kernel header): the registry entry: `header` and `unfinished` (the file, and
//           whether it is an exercise version whose kernel is still a TODO), variant<T>() (name,
//           idea, launcher, depth) and recorded<T>() (the kernel instantiated with BlockRecorder,
//           for the trace). Whether the kernel overwrites its input (03, 04) or
//           not (05) is read from that kernel's signature: a `const T*` input is left as it was.
//   Model   (its model.hpp, a PredictedKernel): counts(n, bytes), trace(input) and
//           analyze(text, fields, counts, type), the chapter's part of the analysis.
//
// --rows R reduces R independent rows of n elements, one block each (common/single_block.hpp):
// the work is then large enough to be timed against memory. The analysis and the trace describe
// one row; every row's result is checked against its own CPU reference.
#pragma once

#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "block_model.hpp"
#include "block_recorder.cuh"
#include "block_trace.hpp"
#include "escape.hpp"
#include "measure.cuh"
#include "parallel.hpp"
#include "program.hpp"
#include "single_block.hpp"

namespace reduction::single_block {

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

template <typename Kernel, typename Model>
int run_program(int argc, char** argv, const char* name, const char* title) {
  ChapterInfo info;
  info.name = name;
  info.title = title;
  info.min_n = 0;  // n = 0 and n > 2048 are refused by check_input, which says why and what to use instead
  info.default_reps = 100;
  info.default_n = kMaxElements;  // the most one block can take
  info.max_n = kMaxElements;      // a larger file is refused as soon as it is seen to be larger
  info.max_n_reason = "one block reduces at most " + std::to_string(kMaxElements) + " elements, two for each of its at most " +
                      std::to_string(kMaxThreads) + " threads; 06_hierarchical lifts the limit with many blocks";
  const auto kernel_entry = Kernel::template variant<int>();
  info.variants.push_back({kernel_entry.name, kernel_entry.idea, kernel_entry.deterministic});

  Options options;
  bool trace = false;
  std::string rows_text = "1";
  std::size_t rows = 1;
  CommandLine cli(info, options);
  cli.add_flag("--trace", trace, "print the reduction step by step (n up to 64, one row)");
  cli.add_option("--rows", rows_text,
                 "reduce this many independent rows of n elements, one block each (also 2^16, 64K); "
                 "with --input, the file holds them one after another");
  cli.add_check([&]() -> std::optional<std::string> {
    const auto parsed = parse_count(rows_text);
    if (!parsed) return "--rows must be a whole number of rows such as 1000, 2^16 or 64K, got '" + escaped(rows_text) + "'";
    rows = *parsed;
    if (auto why = rows_error(rows)) return why;
    if (trace && rows > 1) return "--trace draws one row, and --rows is " + std::to_string(rows);
    if (!options.input.empty()) return std::nullopt;  // a file's size is checked once it is read
    if (auto why = check_input(options.n, trace)) return why;
    return rows_too_large(rows, options.n, options.type == DataType::Double ? 8 : 4);
  });
  if (auto status = cli.parse(argc, argv)) return *status;

  // The input is the rows one after another: rows x n generated elements, or a file of them.
  Options all_rows = options;
  all_rows.n = rows * options.n;
  info.max_n = rows * kMaxElements;
  if (rows > 1) info.max_n_reason = std::to_string(rows) + " rows of at most " + std::to_string(kMaxElements) + " elements";

  return run_guarded(info.name, [&] {
    return with_input(info, all_rows, [&](const auto& data, const std::string& source) {
      using T = typename std::decay_t<decltype(data)>::value_type;
      if (data.size() % rows != 0)
        throw InputError(source + ": " + std::to_string(data.size()) + " elements do not make " + std::to_string(rows) +
                         " rows of equal length");
      const std::size_t n = data.size() / rows;
      if (auto why = check_input(n, trace)) throw InputError(source + ": " + *why);
      Report report(info, options);
      report.set_input(data_type_of<T>(), n, source);
      report.fields().set("rows", rows);
      std::vector<Reference<T>> refs(rows);  // one per row
      parallel_chunks(rows, cpu_workers(data.size()), [&](std::size_t first, std::size_t last, unsigned) {
        for (std::size_t row = first; row < last; ++row) refs[row] = reference_sum(data.data() + row * n, n);
      });
      const auto tol = tolerance(refs[0], tree_depth(n));
      if (rows == 1)
        report.set_reference(refs[0], tol);
      else
        report.set_reference(json_value(refs[0].value),
                             "row 0's; every row is checked against its own CPU sum, " +
                                 std::string(refs[0].exact ? "exactly" : "within its error bound"));

      // The analysis: the model's prediction of what every thread does, on the CPU (the GPU tests
      // check it against the kernel's recording). It describes one block, which is one row.
      const unsigned threads = threads_for(n);
      const BlockCounts counts = Model::counts(n, sizeof(T));
      auto& text = report.text();
      text << "launch     " << describe_block(threads) << ": n/2 threads rounded up to a power of two. The\n"
           << "           algorithm fixes the block size, so this chapter has no --block option.\n";
      if (rows > 1)
        text << "rows       " << rows << " rows of n, one block each: block b reduces elements [b n, b n + n) into\n"
             << "           result[b]. What follows describes one block; every block does the same on its row.\n";
      Model::analyze(text, report.fields(), counts, type_name(data_type_of<T>()));
      report.fields().set("launch", launch_json(threads, rows));
      report.fields().set("memory", memory_json(counts));
      report.fields().set("steps", steps_json(counts));
      auto show_trace = [&](const Trace<T>& steps) {
        text << "\n";
        print_trace(text, steps);
        report.fields().set("trace", trace_json(steps));
      };
      std::optional<Trace<T>> predicted;
      if (trace) predicted = Model::trace(data);
      if (predicted && !probe_gpu().usable) show_trace(*predicted);  // without a GPU, the prediction is all there is

      DeviceInfo device;
      if (auto status = open_gpu(report, device)) return *status;
      if (Kernel::unfinished) std::cerr << info.name << ": the kernel in " << Kernel::header << " is not implemented yet\n";
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
          refs[0], tol, options, double(data.size()) * sizeof(T), restore, tree_depth(n));
      if (rows > 1) {
        const RowsChecked checked = check_rows(result.download(), refs, tree_depth(n));
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
      if (predicted) {  // what the kernel itself did, recorded by the same kernel template
        const Recording<T> recording = record(Kernel::template recorded<T>(), data);
        show_trace(trace_from(recording.events, data, threads, predicted->layout, true));
      }
      report.add_run(std::move(run));
      print_timing_note(report.summary(), options.reps, tree_steps(counts), rows);
      return report.finish();
    });
  });
}

}  // namespace reduction::single_block
