#include "gpu.cuh"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace reduction {

// Device memory a program leaves free beside its input: the runtime's own, results and scratch.
constexpr std::size_t kDeviceSlackBytes = std::size_t(64) << 20;

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  std::ostringstream msg;
  msg << "CUDA error " << cudaGetErrorName(code) << " (" << cudaGetErrorString(code) << ") at " << file << ":"
      << line << " in " << call;
  std::cerr << msg.str() << std::endl;
  throw CudaFailure(msg.str());
}

GpuStatus probe_gpu() {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error state of the runtime call
    // With no driver at all the runtime reports an "insufficient" driver; the driver version,
    // 0 when none is installed, tells that case from a driver that is really too old.
    int driver = 0;
    cudaDriverGetVersion(&driver);
    if (driver == 0) return {false, "no NVIDIA driver or GPU was found on this machine"};
    if (err == cudaErrorNoDevice)
      return {false, "the NVIDIA driver sees no GPU (is CUDA_VISIBLE_DEVICES hiding them?)"};
    return {false, std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err)};
  }
  if (count == 0) return {false, "the NVIDIA driver sees no GPU"};
  return {true, ""};
}

std::optional<std::string> device_room(std::size_t bytes) {
  if (!probe_gpu().usable) return std::nullopt;
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (bytes <= free_bytes && free_bytes - bytes >= kDeviceSlackBytes) return std::nullopt;
  char buf[200];
  std::snprintf(buf, sizeof buf, "the input needs %.2f GiB of device memory and the GPU has %.2f GiB free; choose a smaller --n",
                bytes / double(std::size_t(1) << 30), free_bytes / double(std::size_t(1) << 30));
  return std::string(buf);
}

DeviceInfo current_device() {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  DeviceInfo info;
  info.name = prop.name;
  info.sm_count = prop.multiProcessorCount;
  info.compute_major = prop.major;
  info.compute_minor = prop.minor;
  info.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  info.global_bytes = prop.totalGlobalMem;
  info.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
  CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
  return info;
}

std::string DeviceInfo::describe() const {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s (sm_%d%d, %d SMs, %.0f MB L2, %.1f GiB)", name.c_str(), compute_major,
                compute_minor, sm_count, l2_bytes / 1e6, global_bytes / double(1ull << 30));
  return buf;
}

TimingStats time_gpu(int warmup, int reps, const std::function<void(cudaStream_t)>& launch,
                     const std::function<void()>& prepare, const std::function<void()>& after) {
  cudaStream_t stream = 0;
  for (int i = 0; i < warmup; ++i) {
    if (prepare) prepare();
    launch(stream);
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  Event start, stop;
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    if (prepare) prepare();
    CUDA_CHECK(cudaEventRecord(start.get(), stream));
    launch(stream);
    CUDA_CHECK(cudaEventRecord(stop.get(), stream));
    CUDA_CHECK(cudaEventSynchronize(stop.get()));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    times.push_back(ms);
    if (after) after();
  }
  return summarize(times);
}

double measure_copy_ceiling_gbps(std::size_t bytes, int warmup, int reps) {
  DeviceBuffer<unsigned char> src(bytes), dst(bytes);
  CUDA_CHECK(cudaMemset(src.data(), 1, bytes));
  TimingStats t = time_gpu(warmup, reps, [&](cudaStream_t s) {
    CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, s));
  });
  return gigabytes_per_second(2.0 * bytes, t.median_ms);
}

std::optional<DeviceInfo> open_gpu(Report& report, std::string& why) {
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

std::string mebibytes(std::size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, bytes < (1 << 20) ? "%.1f KiB" : "%.1f MiB",
                bytes < (1 << 20) ? bytes / 1024.0 : bytes / double(1 << 20));
  return buf;
}

std::size_t copy_ceiling_bytes(std::size_t input_bytes, std::size_t l2_bytes, std::size_t free_bytes) {
  constexpr std::size_t kLargest = std::size_t(2) << 30;
  const std::size_t room = free_bytes > kDeviceSlackBytes ? (free_bytes - kDeviceSlackBytes) / 2 : 0;
  return std::min({std::max(input_bytes, 8 * l2_bytes), kLargest, room});
}

std::string index_width_note(std::size_t largest_index) {
  const std::string at = "the largest index computed is " + std::to_string(largest_index);
  if (largest_index <= 0x7fffffffull) return at + ": a 32-bit int would still do at this n";
  if (largest_index <= 0xffffffffull) return at + ": past 2^31 - 1, an int index would overflow (unsigned still fits)";
  return at + ": past 2^32 - 1, int and unsigned indices would both wrap; 64 bits are needed";
}

void describe_ceilings(Report& report, const Ceilings& c) {
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

void describe_input_copies(Report& report, std::size_t copies, std::size_t input_bytes, std::size_t l2_bytes,
                           bool hot_l2) {
  if (copies > 1)
    report.summary() << "L2         the input (" << mebibytes(input_bytes) << ") fits in the " << mebibytes(l2_bytes)
                     << " L2: each run reads the next of " << copies << " copies of it,\n           "
                     << (copies * input_bytes < l2_bytes
                             ? "which together still fit in L2: small inputs are read from L2 by every kernel\n"
                             : "so every kernel starts from DRAM (--hot-l2: from L2)\n");
  else if (hot_l2 && input_bytes < 3 * l2_bytes)
    report.summary() << "L2         --hot-l2: every run reads the same copy, which stays in L2 after the first\n";
  report.fields().set("input_copies", copies);
}

}  // namespace reduction
