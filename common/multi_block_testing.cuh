// What the GPU tests of the multi-block chapters (06 to 09) share: the sizes and block sizes to
// cover, a check of every variant of a registry on one input, and an input above 2^32 elements
// made on the GPU itself.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "gpu.cuh"
#include "input.hpp"
#include "multi_block.cuh"
#include "parallel.hpp"
#include "reference.hpp"
#include "testing.hpp"

namespace reduction::testing {

// The --block values of the multi-block chapters: powers of two from one warp to the block limit.
inline std::vector<int> multi_block_sizes() { return {32, 64, 128, 256, 512, 1024}; }

// One element; a few; around one block's worth (1024 = 2 x 512); just past 2^20; just below 2^24.
inline std::vector<std::size_t> edge_sizes() {
  return {1, 2, 3, 1023, 1024, 1025, (std::size_t(1) << 20) + 1, (std::size_t(1) << 24) - 1};
}

// Runs every variant at every block size on one input and checks each result against `ref`
// within the variant's own bound. The result is poisoned before every launch.
template <typename T>
void check_variants(const std::vector<MultiBlockVariant<T>>& variants, const DeviceBuffer<T>& input,
                    const Reference<T>& ref, const std::vector<int>& blocks) {
  DeviceBuffer<T> result(1);
  DeviceScratch scratch;
  for (int block : blocks)
    for (const auto& variant : variants) {
      INFO(variant.name << " with blocks of " << block << " threads, n = " << input.size());
      result.poison();
      variant.launch(input.data(), input.size(), result.data(), block, scratch, 0);
      CUDA_CHECK(cudaDeviceSynchronize());
      CHECK_MATCHES(result.download_one(), ref, tolerance(ref, variant.depth(input.size(), block)));
    }
}

// The same on a fresh random input of n elements, for every allowed block size.
template <typename T>
void check_variants_at(const std::vector<MultiBlockVariant<T>>& variants, std::size_t n) {
  const auto seed = fresh_seed();
  INFO("seed " << seed << ", n = " << n);
  const auto host = generate_input<T>(n, seed);
  const auto ref = reference_sum(host.data(), n);
  const DeviceBuffer<T> input(host);
  check_variants(variants, input, ref, multi_block_sizes());
}

// Past 2^32 elements, where an unsigned 32-bit index wraps around, not only past 2^31, where an
// int overflows: 16 GiB of int.
constexpr std::size_t kHugeN = (std::size_t(1) << 32) + 3;

namespace detail {
// generate_input<std::int32_t>'s numbers, made on the GPU by the same function, so that a 16 GiB
// input needs neither host memory nor an upload.
template <typename Int>  // a template, so that every test program including this header gets its own
__global__ void fill_random_ints(Int* out, std::size_t n, std::uint64_t seed) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = random_element<Int>(seed, i, Distribution::Default);
}

// reference_sum() of those numbers, generated again on the host one at a time instead of stored.
inline Reference<std::int32_t> streamed_int_reference(std::size_t n, std::uint64_t seed) {
  const unsigned workers = cpu_workers(n);
  std::vector<std::uint64_t> partial(workers, 0);
  parallel_chunks(n, workers, [&](std::size_t b, std::size_t e, unsigned w) {
    std::uint64_t s = 0;
    for (std::size_t i = b; i < e; ++i)
      s += static_cast<std::uint64_t>(
          static_cast<std::int64_t>(random_element<std::int32_t>(seed, i, Distribution::Default)));
    partial[w] = s;
  });
  std::uint64_t sum = 0;
  for (auto p : partial) sum += p;
  Reference<std::int32_t> ref;
  ref.value = static_cast<std::int32_t>(static_cast<std::uint32_t>(sum));
  ref.precise = ref.value;
  ref.exact = true;
  ref.wrapped = static_cast<std::int64_t>(sum) != ref.value;
  return ref;
}
}  // namespace detail

// Why the GPU cannot take an input of `bytes` now, or nothing if it can.
inline std::optional<std::string> no_room_for(std::size_t bytes) {
  constexpr std::size_t kSlack = std::size_t(512) << 20;  // results, scratch, the runtime
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (bytes + kSlack <= free_bytes) return std::nullopt;
  std::ostringstream why;
  why << "the input needs " << (bytes + kSlack) / double(1 << 30) << " GiB of device memory, "
      << free_bytes / double(1 << 30) << " GiB are free";
  return why.str();
}

// Checks every variant at the given block sizes on kHugeN random ints. Without room on the GPU the
// check is skipped with a warning (a passing CHECK: Catch2 v2 has no SKIP).
inline void check_huge_int_input(const std::vector<MultiBlockVariant<std::int32_t>>& variants,
                                 const std::vector<int>& blocks) {
  const std::size_t n = kHugeN;
  if (auto why = no_room_for(n * sizeof(std::int32_t))) {
    WARN("skipped the input of 2^32 + 3 ints: " << *why);
    CHECK(true);
    return;
  }
  const auto seed = fresh_seed();
  INFO("seed " << seed << ", n = 2^32 + 3");
  DeviceBuffer<std::int32_t> input(n);
  detail::fill_random_ints<<<1024, 256>>>(input.data(), n, seed);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  for (std::size_t i : {std::size_t(0), std::size_t(1), n / 3, (std::size_t(1) << 32) - 1, std::size_t(1) << 32, n - 1})
    REQUIRE(input.download_one(i) == random_element<std::int32_t>(seed, i, Distribution::Default));
  check_variants(variants, input, detail::streamed_int_reference(n, seed), blocks);
}

}  // namespace reduction::testing
