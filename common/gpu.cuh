// The GPU side of the toolkit: finding a usable GPU (and naming it in the report), its facts,
// device memory, the event timer, and the copy that later chapters measure a ceiling with.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cuda_check.cuh"
#include "report.hpp"
#include "timer.hpp"

namespace reduction {

struct GpuStatus {
  bool usable = false;
  std::string reason;  // why not, in one line
};

// Asks the runtime how many devices there are. The error code matters as much as the count:
// with no driver or no device the call fails (cudaErrorNoDevice, cudaErrorInsufficientDriver,
// ...) rather than returning zero, and that error would otherwise surface at the first launch.
GpuStatus probe_gpu();

// Device memory a program leaves free beside its input: the runtime's own, results and scratch.
constexpr std::size_t kDeviceSlackBytes = std::size_t(64) << 20;

// Why the GPU, if there is one, cannot hold an input of `bytes` (with room left for the runtime
// and the results), naming both sizes; nothing if it can, or if there is no usable GPU.
std::optional<std::string> device_room(std::size_t bytes);

struct DeviceInfo {
  std::string name;
  int sm_count = 0;
  int compute_major = 0, compute_minor = 0;
  std::size_t l2_bytes = 0;
  std::size_t global_bytes = 0;
  std::size_t shared_per_block = 0;
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
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
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
  void upload(const std::vector<T>& host) {
    CUDA_CHECK(cudaMemcpy(ptr_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
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
  // Fills every byte with 0xFF: -1 for int, NaN for float and double. A kernel that forgets to
  // write its output then fails the check instead of passing on a leftover right answer.
  void poison() {
    if (count_) CUDA_CHECK(cudaMemset(ptr_, 0xFF, count_ * sizeof(T)));
  }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

// Scratch memory for launchers that need some (block partials, library temporary storage).
// It grows on demand and is reused, so allocation stays out of the timed region after warm-up.
class DeviceScratch {
 public:
  DeviceScratch() = default;
  ~DeviceScratch() {
    if (ptr_) cudaFree(ptr_);
  }
  DeviceScratch(const DeviceScratch&) = delete;
  DeviceScratch& operator=(const DeviceScratch&) = delete;
  void* get(std::size_t bytes) {
    if (bytes > bytes_) {
      if (ptr_) CUDA_CHECK(cudaFree(ptr_));
      ptr_ = nullptr;
      CUDA_CHECK(cudaMalloc(&ptr_, bytes));
      bytes_ = bytes;
    }
    return ptr_;
  }
  template <typename T> T* get_as(std::size_t count) { return static_cast<T*>(get(count * sizeof(T))); }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
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

// Times launch(stream) with CUDA events: `warmup` untimed runs, then `reps` timed ones; the median
// is what chapters report. `prepare`, if given, runs before each launch outside the timed region
// (to restore an input that a kernel reduces in place, say), and `after`, if given, runs after
// each timed launch has finished, also outside the timed region (to check its result, say).
TimingStats time_gpu(int warmup, int reps, const std::function<void(cudaStream_t)>& launch,
                     const std::function<void()>& prepare = {}, const std::function<void()>& after = {});

// The ceiling for memory-bound kernels: a device-to-device copy of `bytes`, timed like a kernel,
// counting the bytes read plus the bytes written. Reported in GB/s.
double measure_copy_ceiling_gbps(std::size_t bytes, int warmup = 3, int reps = 20);

// Finds the GPU and names it in the report. Without one, returns nothing and says why in `why`
// (the analysis goes on; the report then ends with finish_without_gpu(why)).
inline std::optional<DeviceInfo> open_gpu(Report& report, std::string& why) {
  GpuStatus status = probe_gpu();
  if (!status.usable) {
    why = status.reason;
    return std::nullopt;
  }
  const DeviceInfo device = current_device();
  report.set_device(device.describe());
  // "13000" -> "13.0": the versions a measurement was taken with belong beside it.
  auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  report.fields().set("driver_cuda_version", version(device.driver_version));
  report.fields().set("cuda_runtime", version(device.runtime_version));
  return device;
}

}  // namespace reduction
