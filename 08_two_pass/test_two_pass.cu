// Chapter 08 on the GPU: the three finishes against the CPU reference (the result poisoned before
// every launch; integers exact, floats within the bound of each finish's own order), the grid the
// device chooses, the bits of the deterministic finishes, and an input past 2^32 elements. The
// index bound the program prints is checked on the host against the loop's own index sequence.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/gpu.cuh"
#include "common/program.hpp"
#include "common/reference.hpp"
#include "common/testing/huge.cuh"
#include "common/testing/testing.hpp"
#include "kernels.cuh"

using namespace reduction;

namespace {

const std::vector<int> kEveryBlock = {32, 64, 128, 256, 512, 1024};  // what --block takes

// Every finish at every block of `blocks` on `input` (n elements on the device), each result
// checked against `ref` within the bound of that finish's order.
template <typename T>
void check_finishes(const T* input, std::size_t n, const Reference<T>& ref, const std::vector<int>& blocks) {
  DeviceBuffer<T> result(1);
  DeviceScratch scratch;
  for (const int block : blocks)
    for (const auto& finish : ch08::variants<T>()) {
      INFO(finish.name << " with blocks of " << block << " threads, n = " << n);
      result.poison();
      finish.launch(input, n, result.data(), block, scratch, 0);
      CUDA_CHECK(cudaDeviceSynchronize());
      CHECK_MATCHES(result.download_one(), ref, tolerance(ref, finish.depth(n, block)));
    }
}

// The same two passes on the CPU, one addition at a time in the order the kernel's code fixes: each
// thread's grid-stride loop (one element at a time: the loads in flight must not change the
// order), then the block's tree, for the first pass and again for the second.
template <typename T>
std::vector<T> one_pass_on_cpu(const std::vector<T>& input, int grid, int block) {
  const std::size_t n = input.size(), grid_threads = std::size_t(grid) * block;
  std::vector<T> out(grid), partial(block);
  for (int b = 0; b < grid; ++b) {
    for (int t = 0; t < block; ++t) {
      T sum = T(0);
      for (std::size_t i = std::size_t(b) * block + t; i < n; i += grid_threads) sum = sum + input[i];
      partial[t] = sum;
    }
    for (int stride = block / 2; stride >= 1; stride /= 2)
      for (int t = 0; t < stride; ++t) partial[t] = partial[t] + partial[t + stride];
    out[b] = partial[0];
  }
  return out;
}

// Every index thread_partial's loop computes, for every thread of a grid of `grid_threads`: its
// start, the test i + 3GB of each round of four loads, and each step of the loop after it.
std::size_t largest_index_simulated(std::size_t n, std::size_t grid_threads) {
  std::size_t largest = 0;
  for (std::size_t g = 0; g < grid_threads; ++g) {
    std::size_t i = g;
    largest = std::max(largest, i);
    for (;; i += 4 * grid_threads) {
      largest = std::max(largest, i + 3 * grid_threads);
      if (i + 3 * grid_threads >= n) break;
    }
    for (; i < n; i += grid_threads) largest = std::max(largest, i + grid_threads);
  }
  return largest;
}

}  // namespace

TEMPLATE_TEST_CASE("every finish, every block size, at the edges of a block and past 2^20", "[chapter08]",
                   std::int32_t, float, double) {
  for (const std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(3), std::size_t(1023), std::size_t(1024),
                              std::size_t(1025), (std::size_t(1) << 20) + 1, (std::size_t(1) << 24) - 1}) {
    const auto seed = testing::fresh_seed();
    INFO("seed " << seed);
    const auto host = generate_input<TestType>(n, seed);
    const DeviceBuffer<TestType> input(host);
    check_finishes(input.data(), n, reference_sum(host.data(), n), kEveryBlock);
  }
}

TEST_CASE("every finish on 2^32 + 3 ints, past where a 32-bit index wraps", "[chapter08][huge]") {
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  const DeviceBuffer<std::int32_t> input = testing::huge_random_ints(seed);
  if (!input.size()) return;
  check_finishes(input.data(), input.size(), testing::wrapped_reference(testing::streamed_int_sum(seed)), {32, 256, 1024});
}

// Whether each run is right is the first test's question (at this n too); here, only their bits.
TEMPLATE_TEST_CASE("cpu and kernel finishes: the same float bits in 100 runs", "[chapter08]", float, double) {
  using T = TestType;
  const auto seed = testing::fresh_seed();
  const std::size_t n = (std::size_t(1) << 24) - 1;
  INFO("seed " << seed << ", n = " << n);
  const DeviceBuffer<T> input(generate_input<T>(n, seed));
  DeviceBuffer<T> result(1);
  DeviceScratch scratch;
  for (const auto& finish : ch08::variants<T>()) {
    if (!finish.deterministic) continue;  // finish_atomic adds in the order the blocks finish
    for (const int block : {32, 256, 1024}) {
      INFO(finish.name << " with blocks of " << block << " threads");
      T first{};
      int differing = 0;
      for (int run = 0; run < 100; ++run) {
        result.poison();
        finish.launch(input.data(), n, result.data(), block, scratch, 0);
        const T r = result.download_one();
        if (run == 0) first = r;
        differing += std::memcmp(&r, &first, sizeof(T)) != 0;
      }
      CHECK(differing == 0);
    }
  }
}

TEST_CASE("the grid fills the GPU once, and never outnumbers the work", "[chapter08]") {
  for (const int block : kEveryBlock) {
    INFO("blocks of " << block << " threads");
    const int resident = ch08::resident_blocks(ch08::two_pass_kernel<ch08::Handoff::Store, float>, block,
                                               block * sizeof(float));
    CHECK(resident >= current_device().sm_count);  // at least one block on every multiprocessor
    CHECK(ch08::grid_size<ch08::Handoff::Store, float>(1, block) == 1);
    CHECK(ch08::grid_size<ch08::Handoff::Store, float>(std::size_t(block) + 1, block) == std::min(2, resident));
    CHECK(ch08::grid_size<ch08::Handoff::Store, float>(std::size_t(1) << 30, block) == resident);
    // Depth of one pass: one element per thread adds nothing in the loop, two add once.
    CHECK(ch08::grid_stride_rounded_additions(std::size_t(block), block, ceil_log2(block)) == ceil_log2(block));
    CHECK(ch08::grid_stride_rounded_additions(2 * std::size_t(block), block, ceil_log2(block)) == 1 + ceil_log2(block));
  }
}

TEMPLATE_TEST_CASE("four loads in flight keep the plain loop's order, bit for bit", "[chapter08]", float, double) {
  using T = TestType;
  const auto seed = testing::fresh_seed();
  for (const std::size_t n : {std::size_t(777), std::size_t(1) << 20, (std::size_t(1) << 20) + 12345}) {
    INFO("seed " << seed << ", n = " << n);
    const auto host = generate_input<T>(n, seed);
    const DeviceBuffer<T> input(host);
    DeviceBuffer<T> result(1);
    DeviceScratch scratch;
    for (const int block : {32, 256}) {
      INFO("blocks of " << block << " threads");
      const int grid = ch08::grid_size<ch08::Handoff::Store, T>(n, block);
      const T expected = one_pass_on_cpu(one_pass_on_cpu(host, grid, block), 1, block)[0];
      ch08::launch_finish_kernel<T>(input.data(), n, result.data(), block, scratch, 0);
      const T got = result.download_one();
      CHECK(std::memcmp(&got, &expected, sizeof(T)) == 0);
    }
  }
}

TEST_CASE("the largest index the loop computes, as the program prints it", "[chapter08]") {
  // Against the loop's own indices, for small grids and every n up to 3000.
  for (const std::size_t grid_threads : {1, 2, 3, 32, 96, 256})
    for (std::size_t n = 1; n <= 3000; ++n) {
      INFO("n = " << n << ", " << grid_threads << " threads");
      REQUIRE(ch08::largest_index_computed(n, grid_threads) == largest_index_simulated(n, grid_threads));
    }
  // An H100's default grid, 1056 blocks of 256 threads: an unsigned index would first wrap at
  // n = 2^32 - 4 x 270336 + 1 = 4,293,885,953 (the README's exercise 2), an int at 2^31 - 4 x 270336 + 1.
  const std::size_t h100 = 1056 * 256;
  CHECK(ch08::largest_index_computed(4293885952u, h100) == 0xffffffffu);
  CHECK(ch08::largest_index_computed(4293885953u, h100) == std::size_t(1) << 32);
  CHECK(ch08::largest_index_computed(2146402304u, h100) == 0x7fffffffu);
  CHECK(ch08::largest_index_computed(2146402305u, h100) == std::size_t(1) << 31);
}
