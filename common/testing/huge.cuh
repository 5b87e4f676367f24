// The GPU tests past 2^32 elements (chapters 06 to 09), where int and unsigned indices wrap: 2^32 + 3
// of generate_input<int>'s numbers, made on the GPU by the same function, so that 16 GiB needs
// neither host memory nor an upload; and their sum, each number made again on the host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/gpu.cuh"
#include "common/program.hpp"
#include "common/reference.hpp"
#include "common/testing/testing.hpp"

namespace reduction::testing {

constexpr std::size_t kHugeInts = (std::size_t(1) << 32) + 3;

// static: one copy in each test program that includes this.
static __global__ void fill_random_ints(std::int32_t* out, std::size_t n, std::uint64_t seed) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = random_element<std::int32_t>(seed, i, Distribution::Default);
}

// kHugeInts of those numbers on the device, checked on both sides of 2^32; or an empty buffer, with
// a warning, where the GPU lacks the 16 GiB and 512 MiB beside them.
inline DeviceBuffer<std::int32_t> huge_random_ints(std::uint64_t seed) {
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (kHugeInts * sizeof(std::int32_t) + (std::size_t(512) << 20) > free_bytes) {
    WARN("skipped: 2^32 + 3 ints need 16 GiB of device memory and 512 MiB beside them; "
         << free_bytes / double(1 << 30) << " GiB are free");
    SUCCEED();  // Catch2 v2 has no SKIP
    return {};
  }
  DeviceBuffer<std::int32_t> input(kHugeInts);
  fill_random_ints<<<1024, 256>>>(input.data(), kHugeInts, seed);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  for (std::size_t i : {std::size_t(0), (std::size_t(1) << 32) - 1, std::size_t(1) << 32, kHugeInts - 1})
    REQUIRE(input.download_one(i) == random_element<std::int32_t>(seed, i, Distribution::Default));
  return input;
}

// Their sum modulo 2^64, each number made again on the host instead of stored.
inline std::uint64_t streamed_int_sum(std::uint64_t seed) {
  std::vector<std::uint64_t> partial(cpu_workers(kHugeInts), 0);
  parallel_chunks(kHugeInts, unsigned(partial.size()), [&](std::size_t first, std::size_t last, unsigned w) {
    for (std::size_t i = first; i < last; ++i)
      partial[w] += std::uint64_t(std::int64_t(random_element<std::int32_t>(seed, i, Distribution::Default)));
  });
  std::uint64_t sum = 0;
  for (const auto p : partial) sum += p;
  return sum;
}

// reference_sum() of a sum modulo 2^64: its low 32 bits, as the GPU's wrapping adds leave them.
inline Reference<std::int32_t> wrapped_reference(std::uint64_t sum) {
  Reference<std::int32_t> ref;
  ref.value = std::int32_t(std::uint32_t(sum));
  ref.precise = ref.value;
  ref.exact = true;
  return ref;
}

}  // namespace reduction::testing
