// The program of the single-block chapters (03 to 05): options, input, the analysis that needs no
// GPU (launch, the chapter's own model), then the kernel checked and timed on the GPU, and with
// --trace the reduction step by step as the kernel recorded it (the model's prediction, labelled
// as one, where there is no GPU to record on). What differs between the chapters comes from a
// struct of static members:
//
//   struct Chapter {
//     static constexpr const char* kernel_header;  // "simple_kernel.cuh", for the exercise notice
//     static constexpr bool in_place;               // the kernel overwrites its input (03, 04)
//     template <typename T> static reduction::Variant<reduction::SingleBlockLaunch<T>> variant();
//     // The kernel instantiated with the recorder, for the trace: &simple_kernel<T, BlockRecorder>.
//     template <typename T> static auto recorded_kernel();
//     static BlockCounts model(std::size_t n, std::size_t element_bytes);
//     template <typename T> static Trace<T> trace(const std::vector<T>& input);  // the model's prediction
//     // The chapter's part of the analysis, after the launch line.
//     static void analyze(std::ostream& text, Json& fields, const BlockCounts& counts, std::size_t n,
//                         unsigned threads, std::size_t element_bytes, const char* type);
//   };
#pragma once

#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "block_model.hpp"
#include "block_recorder.cuh"
#include "block_trace.hpp"
#include "measure.cuh"
#include "program.hpp"
#include "single_block.hpp"

namespace reduction::single_block {

// `unfinished`: the chapter was built against its exercise header and the kernel is still a TODO.
template <typename Chapter>
int run_program(int argc, char** argv, const ChapterInfo& chapter_info, bool unfinished) {
  ChapterInfo info = chapter_info;
  info.min_n = 0;  // n = 0 and n > 2048 are refused by check_input, which says why and what to use instead
  info.default_reps = 100;
  info.default_n = kMaxElements;  // the most one block can take
  info.max_n = kMaxElements;      // a larger file is refused as soon as it is seen to be larger
  info.max_n_reason = "one block reduces at most " + std::to_string(kMaxElements) + " elements, two for each of its at most " +
                      std::to_string(kMaxThreads) + " threads; 06_hierarchical lifts the limit with many blocks";
  const auto kernel_entry = Chapter::template variant<int>();
  info.variants.push_back({kernel_entry.name, kernel_entry.idea, kernel_entry.deterministic});

  Options options;
  bool trace = false;
  CommandLine cli(info, options);
  cli.add_flag("--trace", trace, "print the reduction step by step (n up to 64)");
  cli.add_check([&]() -> std::optional<std::string> {
    if (!options.input.empty()) return std::nullopt;  // a file's size is checked once it is read
    return check_input(options.n, trace);
  });
  if (auto status = cli.parse(argc, argv)) return *status;

  return run_guarded(info.name, [&] {
    return with_input(info, options, [&](const auto& data, const std::string& source) {
      using T = typename std::decay_t<decltype(data)>::value_type;
      const std::size_t n = data.size();
      if (auto why = check_input(n, trace)) throw InputError(source + ": " + *why);
      Report report(info, options);
      report.set_input(data_type_of<T>(), n, source);
      const auto ref = reference_sum(data.data(), n);
      const auto tol = tolerance(ref, tree_depth(n));
      report.set_reference(ref, tol);

      // The analysis: the model's prediction of what every thread does, on the CPU (the GPU tests
      // check it against the kernel's recording).
      const unsigned threads = threads_for(n);
      const BlockCounts counts = Chapter::model(n, sizeof(T));
      auto& text = report.text();
      text << "launch     " << describe_block(threads) << ": n/2 threads rounded up to a power of two. The\n"
           << "           algorithm fixes the block size, so this chapter has no --block option.\n";
      Chapter::analyze(text, report.fields(), counts, n, threads, sizeof(T), type_name(data_type_of<T>()));
      report.fields().set("launch", launch_json(threads));
      report.fields().set("memory", memory_json(counts));
      report.fields().set("steps", steps_json(counts));
      auto show_trace = [&](const Trace<T>& steps) {
        text << "\n";
        print_trace(text, steps);
        report.fields().set("trace", trace_json(steps));
      };
      std::optional<Trace<T>> predicted;
      if (trace) predicted = Chapter::trace(data);
      if (predicted && !probe_gpu().usable) show_trace(*predicted);  // without a GPU, the prediction is all there is

      DeviceInfo device;
      if (auto status = open_gpu(report, device)) return *status;
      if (unfinished)
        std::cerr << info.name << ": the kernel in " << Chapter::kernel_header << " is not implemented yet\n";
      DeviceBuffer<T> input(data), result(1);
      DeviceBuffer<T> work(Chapter::in_place ? n : 0);
      const auto kernel = Chapter::template variant<T>();
      T* kernel_data = Chapter::in_place ? work.data() : input.data();
      // An in-place kernel overwrites its input: every launch gets a fresh copy, made outside the timing.
      std::function<void()> restore;
      if (Chapter::in_place)
        restore = [&] { CUDA_CHECK(cudaMemcpy(work.data(), input.data(), n * sizeof(T), cudaMemcpyDeviceToDevice)); };
      RunResult run = run_reduction<T>(
          kernel.name, [&](cudaStream_t stream) { kernel.launch(kernel_data, n, result.data(), stream); }, result, ref,
          tol, options, double(n) * sizeof(T), restore, tree_depth(n));
      if (!Chapter::in_place) {  // after every launch of the run, the input must be exactly as uploaded
        const std::vector<T> after = input.download();
        const bool unchanged = std::memcmp(after.data(), data.data(), n * sizeof(T)) == 0;
        run.extra.set("input_unchanged", unchanged);
        if (!unchanged) {
          report.summary() << "FAILED: the kernel changed its input\n";
          run.correct = false;
        }
      }
      if (predicted) {  // what the kernel itself did, recorded by the same kernel template
        const Recording<T> recording = record(Chapter::template recorded_kernel<T>(), data);
        show_trace(trace_from(recording.events, data, threads, predicted->layout, true));
      }
      report.add_run(std::move(run));
      print_timing_note(report.summary(), options.reps, tree_steps(counts));
      return report.finish();
    });
  });
}

}  // namespace reduction::single_block
