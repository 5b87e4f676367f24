// The GPU half of the multi-block chapters (06 to 09), used by common/driver.cuh: the input on the
// device (in rotating copies when it would fit in L2), the ceilings measured in the same run, and
// the check and timing of one variant, or of several alternating run by run.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "errors.hpp"
#include "gpu.cuh"
#include "measure.cuh"
#include "options.hpp"
#include "read_ceiling.cuh"
#include "reference.hpp"
#include "report.hpp"
#include "variants.cuh"

namespace reduction {

template <typename T>
using MultiBlockVariant = Variant<MultiBlockLaunch<T>>;

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

// An input that fits in L2 would be read from L2 by every run after the first, and the time would
// measure the cache, not DRAM. So unless --hot-l2 asks for exactly that, a small input is copied
// until the copies span at least three times the L2 (at most kMaxCopies copies: below about
// 3 x L2 / 64 they all stay in L2), and each run reads the next copy. Every copy holds the same data.
template <typename T>
class RotatingInput {
 public:
  static constexpr std::size_t kMaxCopies = 64;
  RotatingInput(const T* first, std::size_t n, std::size_t l2_bytes, bool hot_l2) : first_(first) {
    const std::size_t bytes = std::max<std::size_t>(n * sizeof(T), 1);
    copies_ = hot_l2 ? 1 : std::clamp<std::size_t>((3 * l2_bytes + bytes - 1) / bytes, 1, kMaxCopies);
    const std::size_t stride = (bytes + 255) / 256 * 256 / sizeof(T);  // 256-byte aligned, as cudaMalloc's are
    if (copies_ > 1) extra_ = DeviceBuffer<T>(stride * (copies_ - 1));
    for (std::size_t c = 0; c + 1 < copies_; ++c)
      CUDA_CHECK(cudaMemcpy(extra_.data() + c * stride, first_, n * sizeof(T), cudaMemcpyDeviceToDevice));
    stride_ = stride;
  }
  const T* next() {
    const std::size_t c = turn_++ % copies_;
    return c == 0 ? first_ : extra_.data() + (c - 1) * stride_;
  }
  std::size_t copies() const { return copies_; }

 private:
  const T* first_;
  std::size_t copies_ = 1, stride_ = 0, turn_ = 0;
  DeviceBuffer<T> extra_;
};

// The ceilings a run is compared with, measured in the same process: a device-to-device copy
// (bytes read + written over time), and for chapters that ask, a plain streaming read.
struct Ceilings {
  double copy_gbps = 0;
  std::size_t copy_bytes = 0;
  ReadCeiling read;  // gbps 0 when not measured
};

// One contender of an alternating measurement: a launch on a given copy of the input.
template <typename T> struct Contender {
  std::string name;
  std::function<void(const T* input, cudaStream_t)> launch;
  std::size_t depth;  // for the float tolerance
};

// The input of a run on the device, with the ceilings measured before it was uploaded (while the
// memory was still free). An input the GPU cannot hold is bad input (exit 2, with the sizes).
template <typename T>
class DeviceInput {
 public:
  DeviceInput(const std::vector<T>& data, const Options& options, const DeviceInfo& device, bool read_ceiling)
      : options_(options), l2_bytes_(device.l2_bytes) {
    const std::size_t input_bytes = data.size() * sizeof(T);
    if (auto why = device_room(input_bytes)) throw InputError(*why);  // a file's data, say, too large
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    ceilings_.copy_bytes = copy_ceiling_bytes(input_bytes, device.l2_bytes, free_bytes);
    if (ceilings_.copy_bytes > 0)
      ceilings_.copy_gbps = measure_copy_ceiling_gbps(ceilings_.copy_bytes, options.warmup, options.reps);
    input_ = DeviceBuffer<T>(data);
    if (read_ceiling)
      ceilings_.read = measure_read_ceiling(input_.data(), input_bytes, device.l2_bytes, options.warmup, options.reps);
  }

  const Ceilings& ceilings() const { return ceilings_; }
  // The first n elements, in rotating copies (see RotatingInput).
  RotatingInput<T> rotating(std::size_t n) const {
    return RotatingInput<T>(input_.data(), n, l2_bytes_, options_.hot_l2);
  }

  // Checks and times one launcher on `input`: the result is poisoned and checked after every
  // launch, the warm-up and timed runs follow (common/measure.cuh). Adds pct_of_copy, pct_of_read
  // and, for floats, the tolerance beside the spread seen between runs.
  RunResult run(const Contender<T>& c, std::size_t n, RotatingInput<T>& input, const Reference<T>& ref) {
    const long double tol = tolerance(ref, c.depth);
    RunResult run = run_reduction<T>(
        c.name, [&](cudaStream_t stream) { c.launch(input.next(), stream); }, result_, ref, tol, options_,
        double(n) * sizeof(T), {}, c.depth);
    add_columns(run, tol, ref.exact);
    return run;
  }

  // Checks and times several launchers on the same input, alternating them run by run, so that a
  // change of clock or a neighbour's load touches all of them alike. Each is first checked alone
  // (poisoned result, one launch, compared with the reference) before it is timed; then `warmup`
  // untimed rounds, then `reps` timed rounds, every timed result checked too. Every other round
  // runs them in the reverse order, so that none is always first after the host's pause or always
  // next after the same neighbour: whatever a position costs, each pays it equally often.
  std::vector<RunResult> run_alternating(const std::vector<Contender<T>>& contenders, std::size_t n,
                                         RotatingInput<T>& input, const Reference<T>& ref) {
    const std::size_t count = contenders.size();
    std::vector<RunResult> runs(count);
    std::vector<long double> tol(count);
    std::vector<std::vector<double>> times(count);
    std::vector<T> lowest(count), highest(count);
    for (std::size_t c = 0; c < count; ++c) {
      tol[c] = tolerance(ref, contenders[c].depth);
      result_.poison();
      contenders[c].launch(input.next(), 0);
      CUDA_CHECK(cudaDeviceSynchronize());
      const T first = result_.download_one();
      runs[c].kernel = contenders[c].name;
      runs[c].result = json_value(first);
      runs[c].correct = matches(first, ref, tol[c]);
      runs[c].unchecked = unchecked_reason(ref, tol[c], contenders[c].depth);
      lowest[c] = highest[c] = first;
    }
    for (int w = 0; w < options_.warmup; ++w)
      for (const auto& contender : contenders) contender.launch(input.next(), 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    for (int r = 0; r < options_.reps; ++r)
      for (std::size_t turn = 0; turn < count; ++turn) {
        const std::size_t c = r % 2 ? count - 1 - turn : turn;
        const TimingStats one = time_gpu(
            0, 1, [&](cudaStream_t stream) { contenders[c].launch(input.next(), stream); }, [&] { result_.poison(); },
            [&] {
              const T value = result_.download_one();
              runs[c].correct = runs[c].correct && matches(value, ref, tol[c]);
              lowest[c] = std::min(lowest[c], value);
              highest[c] = std::max(highest[c], value);
            });
        times[c].push_back(one.median_ms);
      }
    for (std::size_t c = 0; c < count; ++c) {
      runs[c].time_ms = summarize(times[c]).median_ms;
      runs[c].gbps = gigabytes_per_second(double(n) * sizeof(T), runs[c].time_ms);
      if (!ref.exact)
        runs[c].extra.set("run_spread", static_cast<double>(highest[c]) - static_cast<double>(lowest[c]));
      add_columns(runs[c], tol[c], ref.exact);
    }
    return runs;
  }

  T* result() { return result_.data(); }

 private:
  void add_columns(RunResult& run, long double tol, bool exact) const {
    Json extra = Json::object();
    extra.set("pct_of_copy", ceilings_.copy_gbps > 0 ? Json(100 * run.gbps / ceilings_.copy_gbps) : Json());
    if (ceilings_.read.gbps > 0) extra.set("pct_of_read", 100 * run.gbps / ceilings_.read.gbps);
    if (!exact) extra.set("tolerance", static_cast<double>(tol));
    for (const auto& kv : run.extra.items()) extra.set(kv.first, kv.second);
    run.extra = std::move(extra);
  }

  const Options& options_;
  std::size_t l2_bytes_;
  Ceilings ceilings_;
  DeviceBuffer<T> input_;
  DeviceBuffer<T> result_{1};
};

// The ceilings in the report: fields, and the lines under the table.
inline void describe_ceilings(Report& report, const Ceilings& c) {
  report.fields().set("copy_ceiling_bytes", c.copy_bytes);
  report.fields().set("copy_ceiling_gbps", c.copy_gbps);
  char line[320];
  std::snprintf(line, sizeof line,
                "ceiling    a device-to-device copy of %.0f MiB ran at %.1f GB/s (bytes read + written over\n"
                "           the median time); pct_of_copy is each kernel's GB/s (bytes of input read) over that.\n",
                c.copy_bytes / double(1 << 20), c.copy_gbps);
  report.summary() << line;
  if (c.read.gbps <= 0) return;
  report.fields().set("read_ceiling_gbps", c.read.gbps);
  report.fields().set("read_ceiling_bytes", c.read.bytes);
  report.fields().set("read_ceiling_shape", c.read.shape);
  std::snprintf(line, sizeof line,
                "read       a plain streaming read of %.0f MiB (%s) ran at %.1f GB/s (%s);\n"
                "           pct_of_read is each kernel's GB/s over that: the ceiling of a kernel that only reads\n",
                c.read.bytes / double(1 << 20), c.read.of_input ? "the input itself" : "a buffer of 8 x L2", c.read.gbps,
                c.read.shape.c_str());
  report.summary() << line;
}

}  // namespace reduction
