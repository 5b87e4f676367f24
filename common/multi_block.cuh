// The GPU half of the multi-block chapters' programs (06 to 09): the input on the device, the
// memory-bandwidth ceiling measured in the same run, and each variant of a chapter's registry
// checked, timed and compared with that ceiling.
//
// A chapter program computes its reference and writes its analysis into the report, then
//  - hands its registry to run_multi_block_chapter(), which does the rest; or
//  - drives a MultiBlockBench itself, to choose what runs next from what it measured (chapter
//    07's sweep) or to add its own columns, and ends with bench.describe(report), report.finish().
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "errors.hpp"
#include "gpu.cuh"
#include "measure.cuh"
#include "options.hpp"
#include "reference.hpp"
#include "report.hpp"
#include "variants.cuh"

namespace reduction {

template <typename T>
using MultiBlockVariant = Variant<MultiBlockLaunch<T>>;

namespace detail {
inline std::size_t free_device_bytes() {
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes;
}
}  // namespace detail

// Bytes of the device-to-device copy that sets the ceiling: as many as the input, but at least
// eight times the L2 cache, so that the copy streams from DRAM rather than from cache. Past that
// the copy's bandwidth no longer depends on its size, so it stops at 2 GiB, and at half of the free
// memory (the copy needs a source and a destination).
inline std::size_t copy_ceiling_bytes(std::size_t input_bytes, std::size_t l2_bytes, std::size_t free_bytes) {
  constexpr std::size_t kLargest = std::size_t(2) << 30;
  const std::size_t room = free_bytes > kDeviceSlackBytes ? (free_bytes - kDeviceSlackBytes) / 2 : 0;
  return std::min({std::max(input_bytes, 8 * l2_bytes), kLargest, room});
}

// What width of index the largest index a kernel computes needs, in one line for the analysis.
inline std::string index_width_note(std::size_t largest_index) {
  const std::string at = "the largest index computed is " + std::to_string(largest_index);
  if (largest_index <= 0x7fffffffull) return at + ": a 32-bit int would still do at this n";
  if (largest_index <= 0xffffffffull) return at + ": past 2^31 - 1, an int index would overflow (unsigned still fits)";
  return at + ": past 2^32 - 1, int and unsigned indices would both wrap; 64 bits are needed";
}

// Puts the reference into the report. It is part of the analysis, so it is there with or without
// a GPU; each kernel's float tolerance depends on its own order and is a column of its run.
template <typename T> void describe_reference(Report& report, const Reference<T>& ref) {
  if (ref.exact)
    report.set_reference(ref, 0);
  else
    report.set_reference(json_value(ref.value),
                         "higher-precision CPU sum; each kernel passes within the error bound "
                         "of its own summation order (column tolerance)");
}

template <typename T>
class MultiBlockBench {
 public:
  // Measures the ceiling while the memory is still free, then uploads the input. An input the GPU
  // cannot hold is bad input (exit status 2, with the sizes), not a failed allocation.
  MultiBlockBench(const std::vector<T>& data, const Reference<T>& ref, const Options& options, const DeviceInfo& device)
      : n_(data.size()), ref_(ref), options_(options), result_(1) {
    const std::size_t input_bytes = n_ * sizeof(T);
    if (auto why = device_room(input_bytes)) throw InputError(*why);  // a file's data, say, too large
    const std::size_t free_bytes = detail::free_device_bytes();
    ceiling_bytes_ = copy_ceiling_bytes(input_bytes, device.l2_bytes, free_bytes);
    if (ceiling_bytes_ > 0) ceiling_gbps_ = measure_copy_ceiling_gbps(ceiling_bytes_, options.warmup, options.reps);
    input_ = DeviceBuffer<T>(data);
  }

  std::size_t n() const { return n_; }
  const DeviceBuffer<T>& input() const { return input_; }
  double ceiling_gbps() const { return ceiling_gbps_; }
  std::size_t ceiling_bytes() const { return ceiling_bytes_; }
  long double tolerance_of(const MultiBlockVariant<T>& variant) const {
    return tolerance(ref_, variant.depth(n_, options_.block));
  }

  // Checks and times one variant (common/measure.cuh). Its run gets the column pct_of_copy, and
  // for floats the tolerance it was checked against beside the spread seen between runs.
  RunResult run(const MultiBlockVariant<T>& variant) {
    const long double tol = tolerance_of(variant);
    RunResult run = run_reduction<T>(
        variant.name,
        [&](cudaStream_t stream) {
          variant.launch(input_.data(), n_, result_.data(), options_.block, scratch_, stream);
        },
        result_, ref_, tol, options_, double(n_) * sizeof(T), {}, variant.depth(n_, options_.block));
    Json extra = Json::object();
    extra.set("pct_of_copy", ceiling_gbps_ > 0 ? Json(100 * run.gbps / ceiling_gbps_) : Json());
    if (!ref_.exact) extra.set("tolerance", static_cast<double>(tol));
    for (const auto& kv : run.extra.items()) extra.set(kv.first, kv.second);
    run.extra = std::move(extra);
    return run;
  }

  // Puts the block size and the ceiling into the report.
  void describe(Report& report) const {
    report.fields().set("block", options_.block);
    report.fields().set("copy_ceiling_bytes", ceiling_bytes_);
    report.fields().set("copy_ceiling_gbps", ceiling_gbps_);
    char line[200];
    std::snprintf(line, sizeof line,
                  "ceiling    a device-to-device copy of %.0f MiB ran at %.1f GB/s (bytes read + written over\n",
                  ceiling_bytes_ / double(1 << 20), ceiling_gbps_);
    report.summary()
        << line << "           the median time); pct_of_copy is each kernel's GB/s (bytes of input read) over that.\n";
  }

 private:
  std::size_t n_;
  Reference<T> ref_;
  const Options& options_;
  DeviceBuffer<T> input_;
  DeviceBuffer<T> result_;
  DeviceScratch scratch_;
  std::size_t ceiling_bytes_ = 0;
  double ceiling_gbps_ = 0;
};

// Everything a multi-block chapter's program does after its analysis: find the GPU (status 77
// without one), measure the ceiling, run every variant in order, print the report. Returns the
// exit status.
template <typename T>
int run_multi_block_chapter(const std::vector<MultiBlockVariant<T>>& variants, const std::vector<T>& data,
                            const Reference<T>& ref, const Options& options, Report& report) {
  describe_reference(report, ref);
  DeviceInfo device;
  if (auto status = open_gpu(report, device)) return *status;
  MultiBlockBench<T> bench(data, ref, options, device);
  for (const auto& variant : variants) report.add_run(bench.run(variant));
  bench.describe(report);
  return report.finish();
}

}  // namespace reduction
