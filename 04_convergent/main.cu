// Chapter 04 program: the convergent kernel. Prints the kernel's execution-resource and memory
// model for n (and with --trace the reduction step by step), all computed on the CPU, then checks
// and times the kernel on the GPU.
//   04_convergent [--n N] [--type int|float|double] [--input FILE] [--trace] [--json]
// n runs from 1 to 2048. The block size follows from n (n/2 threads, rounded up to a power of
// two), so there is no --block option.
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "common/block_model.hpp"
#include "common/block_trace.hpp"
#include "common/measure.cuh"
#include "common/program.hpp"
#include "common/single_block.hpp"
#include "convergent.cuh"
#include "model.hpp"

using namespace reduction;
namespace sb = reduction::single_block;

int main(int argc, char** argv) {
  ChapterInfo info;
  info.name = "04_convergent";
  info.title = "the convergent kernel: the stride halving, active threads packed in the fewest warps";
  info.default_n = 1024;
  info.min_n = 0;  // n = 0 and n > 2048 are refused by sb::check_input, which says why and what to use instead
  info.default_reps = 100;

  Options options;
  bool trace = false;
  CommandLine cli(info, options);
  cli.add_flag("--trace", trace, "print the reduction step by step (n up to 64)");
  cli.add_check([&]() -> std::optional<std::string> {
    if (!options.input.empty()) return std::nullopt;  // a file's size is checked once it is read
    return sb::check_input(options.n, trace);
  });
  if (auto status = cli.parse(argc, argv)) return *status;

  return run_guarded(info.name, [&] {
    return with_input(info, options, [&](const auto& data, const std::string& source) {
      using T = typename std::decay_t<decltype(data)>::value_type;
      const std::size_t n = data.size();
      if (auto why = sb::check_input(n, trace)) throw InputError(source + ": " + *why);
      const char* type = type_name(data_type_of<T>());
      Report report(info, options);
      report.set_input(data_type_of<T>(), n, source);
      const auto ref = reference_sum(data.data(), n);
      const auto tol = tolerance(ref, sb::tree_depth(n));
      report.set_reference(ref, tol);

      // The analysis: the kernel's own arithmetic, evaluated for every thread on the CPU.
      const unsigned threads = sb::threads_for(n);
      const sb::BlockCounts counts = ch04::model(n, sizeof(T));
      const sb::ClosedForm text_form = ch04::text_closed_form(n);
      auto& text = report.text();
      text << "launch     " << sb::describe_block(threads) << ": n/2 threads rounded up to a power of two. The\n"
           << "           algorithm fixes the block size, so this chapter has no --block option.\n\n";
      sb::print_execution_model(text, counts, ch04::activity_predicate(), text_form, type);
      text << "\n";
      sb::print_memory(text, counts, type);
      report.fields().set("launch", sb::launch_json(threads));
      report.fields().set("efficiency", sb::efficiency_json(counts));
      report.fields().set("text_closed_form", sb::closed_form_json(text_form));
      report.fields().set("memory", sb::memory_json(counts));
      report.fields().set("steps", sb::steps_json(counts));
      std::optional<sb::Trace<T>> steps;
      if (trace) {
        steps = ch04::trace(data);
        text << "\n";
        sb::print_trace(text, *steps);
        report.fields().set("trace", sb::trace_json(*steps));
      }

      DeviceInfo device;
      if (auto status = open_gpu(report, device)) return *status;
#ifdef REDUCTION_EXERCISE_UNFINISHED
      std::cerr << info.name << ": the kernel in exercise/convergent.cuh is not implemented yet\n";
#endif
      // The kernel overwrites its input: every launch gets a fresh copy, made outside the timing.
      DeviceBuffer<T> input(data), work(n), result(1);
      const auto kernel = ch04::variant<T>();
      RunResult run = run_reduction<T>(
          kernel.name, [&](cudaStream_t stream) { kernel.launch(work.data(), n, result.data(), stream); }, result, ref,
          tol, options, double(n) * sizeof(T),
          [&] { CUDA_CHECK(cudaMemcpy(work.data(), input.data(), n * sizeof(T), cudaMemcpyDeviceToDevice)); });
      if (steps) sb::check_trace_against_gpu(*steps, run, report.summary());
      report.add_run(std::move(run));
      sb::print_timing_note(report.summary(), options.reps, ch04::strides(threads).size());
      return report.finish();
    });
  });
}
