#include <vector>

#include "common/gpu.cuh"
#include "common/testing/testing.hpp"

using namespace reduction;

namespace {
__global__ void add_one(int* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1;
}
}  // namespace

TEST_CASE("the GPU harness: buffers, poison, errors, timer, ceiling", "[gpu]") {
  DeviceInfo dev = current_device();
  INFO(dev.describe());
  CHECK(dev.sm_count > 0);
  CHECK(dev.l2_bytes > 0);

  std::vector<int> host = {1, 2, 3};
  DeviceBuffer<int> buf(host);
  add_one<<<1, 32>>>(buf.data(), 3);
  CUDA_CHECK_LAUNCH();
  CHECK(buf.download() == std::vector<int>{2, 3, 4});
  buf.poison();
  CHECK(buf.download_one(1) == -1);
  DeviceBuffer<float> f(1);
  f.poison();
  CHECK(std::isnan(f.download_one()));

  // A launch with too many threads per block must be caught, not ignored.
  add_one<<<1, 4096>>>(buf.data(), 3);
  CHECK_THROWS_AS(CUDA_CHECK_LAUNCH(), CudaFailure);

  TimingStats t = time_gpu(1, 5, [&](cudaStream_t s) { add_one<<<1, 32, 0, s>>>(buf.data(), 3); });
  CHECK(t.reps == 5);
  CHECK(t.median_ms > 0);
  CHECK(t.min_ms <= t.median_ms);
  CHECK(measure_copy_ceiling_gbps(std::size_t(1) << 26, 1, 5) > 10.0);
}
