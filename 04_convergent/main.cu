// Chapter 04 program: the convergent kernel (solution/convergent.cuh), one block per row of at
// most 2048 elements. It prints what the kernel's threads do, counted from the kernel's own source
// run on the CPU emulator (emulated.cpp, no GPU needed), then runs the kernel on the GPU and checks
// every row against its CPU reference.
//   04_convergent [--n N] [--rows R] [--type int|float|double] [--input FILE] [--trace] [--json]
// Chapter 03's program, with DeviceBuffer and time_gpu (common/gpu.cuh) for the CUDA calls 03 writes out.
#include <cuda_runtime.h>

#include <algorithm>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "analysis.hpp"
#include "common/gpu.cuh"
#include "common/program.hpp"
#include "emulator/analysis.hpp"  // the CPU emulator's face: the block, the rows, the analysis
#include "emulator/traced.cuh"    // the kernel's loads and stores recorded on the GPU, for --trace
#include "convergent.cuh"

using namespace reduction;
namespace sb = reduction::single_block;

template <typename T>
int reduce(const std::vector<T>& data, const std::string& source, const ChapterInfo& info, const Options& options,
           bool trace);

int main(int argc, char** argv) {
  // The options: the shared ones (common/program.hpp), --rows and --trace. The block size follows
  // from n, so there is no --block.
  const ChapterInfo info = sb::chapter_info(
      "04_convergent", "the convergent kernel: the stride halving, active threads packed in the fewest warps",
      {"convergent", "the stride halving from the block size; active threads packed together", true});
  Options options;
  bool trace = false;
  std::string rows_text = "1";
  CommandLine cli(info, options);
  cli.add_flag("--trace", trace, "print the reduction step by step (n up to 64, one row)");
  cli.add_option("--rows", rows_text, sb::kRowsHelp);
  cli.add_check([&] { return sb::check_rows_option(rows_text, trace, options); });
  if (auto status = cli.parse(argc, argv)) return *status;

  // The input: --rows rows of --n random elements, one after another, or the rows of --input.
  // run_guarded turns a failure into its exit status: 2 for bad input, 3 for a CUDA error.
  Options all_rows = options;
  all_rows.n = options.rows * options.n;
  return run_guarded(info.name, [&] {
    return with_input(sb::rows_info(info, options.rows), all_rows, [&](const auto& data, const std::string& source) {
      return reduce(data, source, info, options, trace);
    });
  });
}

template <typename T>
int reduce(const std::vector<T>& data, const std::string& source, const ChapterInfo& info, const Options& options,
           bool trace) {
  const std::size_t rows = options.rows, n = sb::row_length(data.size(), rows, source, trace);
  const unsigned threads = sb::threads_for(n);
  const std::vector<T> row0(data.begin(), data.begin() + n);
  Report report(info, options);
  report.set_input(data_type_of<T>(), n, source);
  report.fields().set("rows", rows);

  // The CPU reference of every row (a float row whose sum could overflow is refused here); the
  // report shows row 0's. Each element meets ceil(log2 n) additions, one per step of the tree.
  sb::check_rows_fit(data, n);
  const Reference<T> ref = reference_sum(row0.data(), n);
  const std::size_t depth = sb::tree_depth(n);
  const long double tol = tolerance(ref, depth);
  sb::describe_reference(report, ref, rows, n);
  std::string no_gpu;
  const std::optional<DeviceInfo> device = open_gpu(report, no_gpu);

  // The analysis: what every thread of row 0 does, from the kernel's own source run on the CPU
  // emulator, and the trace for --trace, recorded on the GPU where there is one (sb::analyse).
  std::function<std::vector<sb::Access>()> record_on_gpu;
  if (device) record_on_gpu = [&] { return record(&ch04::convergent_kernel<Traced<T>>, row0, threads); };
  const std::size_t steps = sb::analyse(report, row0, rows, ch04::notes(), trace, record_on_gpu);
  if (!device) return report.finish_without_gpu(no_gpu);
#ifdef REDUCTION_EXERCISE_UNFINISHED
  std::cerr << info.name << ": the kernel in convergent.cuh is not implemented yet\n";
#endif

  // Device memory (DeviceBuffer: cudaMalloc, with cudaMemcpy to upload, and cudaFree when it goes):
  // the input as uploaded, the copy the kernel reduces in place, a result per row.
  const std::size_t bytes = data.size() * sizeof(T);
  if (auto why = device_room(2 * bytes + rows * sizeof(T))) throw InputError(*why);
  const DeviceBuffer<T> input(data);
  DeviceBuffer<T> work(data.size()), results(rows);

  // One launch, checked: one block per row; cudaGetLastError for the launch, cudaDeviceSynchronize
  // for what happened inside the kernel.
  auto launch = [&](cudaStream_t stream) {
    ch04::convergent_kernel<<<static_cast<unsigned>(rows), threads, 0, stream>>>(work.data(), n, results.data());
    CUDA_CHECK(cudaGetLastError());
  };
  auto restore = [&] {
    CUDA_CHECK(cudaMemcpy(work.data(), input.data(), bytes, cudaMemcpyDeviceToDevice));  // the kernel overwrote it
    results.poison();  // -1 or NaN: a result the kernel never writes fails
  };
  restore();
  launch(0);
  CUDA_CHECK(cudaDeviceSynchronize());
  const T first = results.download_one();

  // The timing (time_gpu: chapter 03's loop of CUDA events): --warmup untimed launches, then the
  // median of --reps timed ones, the input restored before each and row 0's result checked after.
  bool correct = matches(first, ref, tol);
  T lowest = first, highest = first;
  const TimingStats time = time_gpu(options.warmup, options.reps, launch, restore, [&] {
    const T value = results.download_one();
    correct = correct && matches(value, ref, tol);
    lowest = std::min(lowest, value);
    highest = std::max(highest, value);
  });

  // The copy back: every row's result (row 0's was checked after every launch too). Then the check
  // of every row, and the report: the run, the rows' verdict, and what the time means.
  const sb::RowsChecked checked = sb::check_rows(data, n, results.download());
  const double gbps = gigabytes_per_second(double(bytes), time.median_ms);  // each row's input read once
  const bool verified = correct && !checked.wrong;
  RunResult run{"convergent", json_value(first), verified, time.median_ms, gbps, unchecked_reason(ref, tol, depth)};
  if (!ref.exact) run.extra.set("run_spread", static_cast<double>(highest) - static_cast<double>(lowest));
  if (rows > 1) {
    run.extra.set("rows_wrong", checked.wrong);
    if (checked.wrong)
      report.summary() << "FAILED: " << checked.wrong << " of " << rows << " rows differ from their reference; "
                       << checked.first_wrong << "\n";
    if (checked.unchecked)
      report.summary() << checked.unchecked << " rows could not be checked: their error bound says nothing\n";
  }
  sb::print_timing_note(report.summary(), options.reps, steps, rows);
  report.add_run(run);
  return report.finish();
}
