#include "gpu.cuh"

#include <cstdio>
#include <iostream>
#include <sstream>

namespace reduction {

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  std::ostringstream msg;
  msg << "CUDA error " << cudaGetErrorName(code) << " (" << cudaGetErrorString(code) << ") at " << file << ":"
      << line << " in " << call;
  std::cerr << msg.str() << std::endl;
  throw CudaError(code, msg.str());
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
  info.shared_per_block = prop.sharedMemPerBlock;
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

}  // namespace reduction
