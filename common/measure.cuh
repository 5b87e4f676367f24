// The measurement every GPU chapter makes: find the GPU, then check and time a reduction.
#pragma once

#include <cmath>
#include <functional>
#include <optional>
#include <string>

#include "gpu.cuh"
#include "options.hpp"
#include "reference.hpp"
#include "report.hpp"

namespace reduction {

// Checks and times one reduction whose launch(stream) leaves its result in result.data()[0].
//  - The result slot is poisoned before the first run, which is checked against the reference.
//  - Then warm-up and timed runs (prepare() before each, outside the timing); every timed run's
//    result is checked too, and the spread between runs is recorded: with atomics, the order of
//    float additions, and so the rounding, changes from run to run.
// `bytes` is what the kernel must read at the least (n * sizeof(T)); GB/s is bytes over the median.
template <typename T>
RunResult run_reduction(const std::string& kernel, const std::function<void(cudaStream_t)>& launch,
                        DeviceBuffer<T>& result, const Reference<T>& ref, long double tol, const Options& options,
                        double bytes, const std::function<void()>& prepare = {}, std::size_t depth = 0) {
  RunResult run;
  run.kernel = kernel;
  result.poison();
  if (prepare) prepare();
  launch(0);
  CUDA_CHECK(cudaDeviceSynchronize());
  const T first = result.download_one();
  bool all_correct = matches(first, ref, tol);
  T lowest = first, highest = first;
  TimingStats t = time_gpu(options.warmup, options.reps, launch,
                           [&] {
                             result.poison();
                             if (prepare) prepare();
                           },
                           [&] {
                             T r = result.download_one();
                             all_correct = all_correct && matches(r, ref, tol);
                             if (r < lowest) lowest = r;
                             if (highest < r) highest = r;
                           });
  run.result = json_value(first);
  run.correct = all_correct;
  run.unchecked = unchecked_reason(ref, tol, depth);
  run.time_ms = t.median_ms;
  run.gbps = gigabytes_per_second(bytes, t.median_ms);
  if (!ref.exact) run.extra.set("run_spread", static_cast<double>(highest) - static_cast<double>(lowest));
  return run;
}

}  // namespace reduction
