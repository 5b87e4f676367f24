// The GPU face of the toolkit: finding a GPU, device memory, the event timer; the measurement every
// GPU chapter makes (run_reduction); the ceilings a kernel is compared with; and a chapter's
// registry entry. What launchers need (CUDA_CHECK, DeviceScratch) is in ops.hpp. Bodies: gpu.cu.
#pragma once

#include <cuda_runtime.h>  // first: ops.hpp's CUDA part needs it under the host compiler

#include <algorithm>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ops.hpp"
#include "program.hpp"
#include "reference.hpp"

namespace reduction {

struct GpuStatus {
  bool usable = false;
  std::string reason;  // why not, in one line
};

// Whether the runtime finds a device; without this, no driver or no device surfaces at the first launch.
GpuStatus probe_gpu();

// Why the GPU cannot hold an input of `bytes` with room to spare, naming both sizes; nothing if it
// can, or if there is no usable GPU.
std::optional<std::string> device_room(std::size_t bytes);

struct DeviceInfo {
  std::string name;
  int sm_count = 0;
  int compute_major = 0, compute_minor = 0;
  std::size_t l2_bytes = 0;
  std::size_t global_bytes = 0;
  int max_threads_per_sm = 0;
  int driver_version = 0, runtime_version = 0;
  std::string describe() const;  // "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 50 MB L2, 79.1 GiB)"
};

DeviceInfo current_device();

// Owns device memory for `count` elements of T.
template <typename T> class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count) CUDA_CHECK(cudaMalloc(&ptr_, count * sizeof(T)));
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) {
    CUDA_CHECK(cudaMemcpy(ptr_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* data() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    if (count_) CUDA_CHECK(cudaMemcpy(host.data(), ptr_, count_ * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
  T download_one(std::size_t index = 0) const {
    T v;
    CUDA_CHECK(cudaMemcpy(&v, ptr_ + index, sizeof(T), cudaMemcpyDeviceToHost));
    return v;
  }
  // Fills every byte with 0xFF (-1, or NaN), or with 0x7F where that is the `answer`: a kernel that
  // forgets to write its output fails instead of passing on a leftover right answer.
  void poison() {
    if (count_) CUDA_CHECK(cudaMemset(ptr_, 0xFF, count_ * sizeof(T)));
  }
  void poison_unlike(T answer) {
    if (count_) CUDA_CHECK(cudaMemset(ptr_, answer != answer || answer == T(-1) ? 0x7F : 0xFF, count_ * sizeof(T)));
  }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

// Owns a CUDA event, so that a launch that throws between creating and destroying it leaks nothing.
class Event {
 public:
  Event() { CUDA_CHECK(cudaEventCreate(&event_)); }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// Times launch(stream) with CUDA events: `warmup` untimed runs, then `reps` timed ones. `prepare`
// (before each launch) and `after` (after each timed one) run outside the timed region.
TimingStats time_gpu(int warmup, int reps, const std::function<void(cudaStream_t)>& launch,
                     const std::function<void()>& prepare = {}, const std::function<void()>& after = {});

// The ceiling of memory-bound kernels: a device-to-device copy of `bytes`, timed like a kernel,
// in GB/s of bytes read plus bytes written.
double measure_copy_ceiling_gbps(std::size_t bytes, int warmup = 3, int reps = 20);

// Finds the GPU and names it in the report; without one, returns nothing and says why in `why`.
std::optional<DeviceInfo> open_gpu(Report& report, std::string& why);

// Checks and times one reduction whose launch(stream) leaves its result in result.data()[0]: a
// first run on a poisoned result, then warm-up and timed runs (prepare() before each), every result
// checked and their spread recorded (atomics change the order of float additions from run to run).
template <typename T>
RunResult run_reduction(const std::string& kernel, const std::function<void(cudaStream_t)>& launch,
                        DeviceBuffer<T>& result, const Reference<T>& ref, long double tol, const Options& options,
                        double bytes, const std::function<void()>& prepare = {}, std::size_t depth = 0) {
  auto reset = [&] {
    result.poison_unlike(ref.value);
    if (prepare) prepare();
  };
  reset();
  launch(0);
  CUDA_CHECK(cudaDeviceSynchronize());
  const T first = result.download_one();
  bool all_correct = matches(first, ref, tol);
  T lowest = first, highest = first;
  TimingStats t = time_gpu(options.warmup, options.reps, launch, reset, [&] {
    T r = result.download_one();
    all_correct = all_correct && matches(r, ref, tol);
    if (r < lowest) lowest = r;
    if (highest < r) highest = r;
  });
  RunResult run;
  run.kernel = kernel;
  run.result = json_value(first);
  run.correct = all_correct;
  run.unchecked = unchecked_reason(ref, tol, depth);
  run.time_ms = t.median_ms;
  run.gbps = gigabytes_per_second(bytes, t.median_ms);
  if (!ref.exact) run.extra.set("run_spread", static_cast<double>(highest) - static_cast<double>(lowest));
  return run;
}

// ---- The ceilings ----

// "390.6 KiB", "1024.0 MiB": a size in the analysis and the notes.
std::string mebibytes(std::size_t bytes);

// Bytes of the copy that sets the ceiling: as many as the input, but at least 8 times the L2, to
// stream from DRAM; at most 2 GiB, past which the size no longer matters, and half the free memory.
std::size_t copy_ceiling_bytes(std::size_t input_bytes, std::size_t l2_bytes, std::size_t free_bytes);

// What width of index the largest index a kernel computes needs, in one line for the analysis.
std::string index_width_note(std::size_t largest_index);

// An input that fits in L2 would be read from L2 by every run after the first. Unless --hot-l2 asks
// for that, a small input is copied until the copies span three times the L2, and each run reads
// the next copy.
template <typename T>
class RotatingInput {
 public:
  static constexpr std::size_t kMaxCopies = 64;
  RotatingInput(const T* first, std::size_t n, std::size_t l2_bytes, bool hot_l2) : first_(first) {
    const std::size_t bytes = std::max<std::size_t>(n * sizeof(T), 1);
    copies_ = hot_l2 ? 1 : std::clamp<std::size_t>((3 * l2_bytes + bytes - 1) / bytes, 1, kMaxCopies);
    stride_ = (bytes + 255) / 256 * 256 / sizeof(T);  // 256-byte aligned, as cudaMalloc's are
    if (copies_ > 1) extra_ = DeviceBuffer<T>(stride_ * (copies_ - 1));
    for (std::size_t c = 0; c + 1 < copies_; ++c)
      CUDA_CHECK(cudaMemcpy(extra_.data() + c * stride_, first_, n * sizeof(T), cudaMemcpyDeviceToDevice));
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

// A plain streaming read (chapter 09 measures it: 09_warp_unrolled/harness.cuh).
struct ReadCeiling {
  double gbps = 0;         // the best of the shapes tried
  std::size_t bytes = 0;   // bytes each run read
  std::string shape;      // the shape that gave it: "512 threads x 1 wave, 4 loads in flight"
  bool of_input = false;  // it read the caller's own data (true) or a buffer of its own
};

// The ceilings a run is compared with, measured in the same process.
struct Ceilings {
  double copy_gbps = 0;
  std::size_t copy_bytes = 0;
  ReadCeiling read;  // gbps 0 when not measured
};

// The ceilings in the report: fields, and the lines under the table.
void describe_ceilings(Report& report, const Ceilings& c);

// Where the timed runs read their input from: the rotating copies, or --hot-l2.
void describe_input_copies(Report& report, std::size_t copies, std::size_t input_bytes, std::size_t l2_bytes,
                           bool hot_l2);

// ---- A chapter's kernels ----

// One kernel of a chapter, as its program, tests and the benchmark see it.
template <typename Launch> struct Variant {
  const char* name;  // the --kernel name
  const char* idea;  // one line: what it does differently
  Launch launch;
  // The most rounded additions an element meets on its way to the result (the tolerance's depth).
  std::size_t (*depth)(std::size_t n, int block);
  bool deterministic;  // same float result on every run (false where atomics set the order)
  int min_block = 32;  // the smallest --block it takes (a kernel that reduces whole warps needs 32)
  // A wrong kernel of the bug zoo (instructor/zoo/): the kernel it is one edit of. Runs only when named.
  const char* zoo_of = nullptr;
};

// The variants of `all` named in `names`, in the registry's order.
template <typename Variant>
std::vector<Variant> chosen_variants(const std::vector<Variant>& all, const std::vector<std::string>& names) {
  std::vector<Variant> chosen;
  for (const auto& v : all)
    if (std::find(names.begin(), names.end(), v.name) != names.end()) chosen.push_back(v);
  return chosen;
}

}  // namespace reduction
