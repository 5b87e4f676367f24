#include <cstdint>
#include <cstring>
#include <vector>

#include "common/grid.cuh"
#include "common/multi_block_testing.cuh"
#include "common/testing.hpp"
#include "two_pass.cuh"

using namespace reduction;

TEMPLATE_TEST_CASE("two-pass: every finish at every edge size and block size", "[chapter08]", std::int32_t, float,
                   double) {
  for (std::size_t n : testing::edge_sizes()) testing::check_variants_at(ch08::variants<TestType>(), n);
}

TEST_CASE("two-pass: more than 2^32 elements", "[chapter08][huge]") {
  testing::check_huge_int_input(ch08::variants<std::int32_t>(), {32, 256, 1024});
}

TEMPLATE_TEST_CASE("two-pass: without atomics, float results are bitwise identical over 100 runs", "[chapter08]", float,
                   double) {
  using T = TestType;
  const auto seed = testing::fresh_seed();
  const std::size_t n = (std::size_t(1) << 24) - 1;
  INFO("seed " << seed << ", n = " << n);
  const auto host = generate_input<T>(n, seed);
  const auto ref = reference_sum(host.data(), n);
  const DeviceBuffer<T> input(host);
  DeviceBuffer<T> result(1);
  DeviceScratch scratch;
  for (const auto& variant : ch08::variants<T>()) {
    if (!variant.deterministic) continue;
    for (int block : {32, 256, 1024}) {
      INFO(variant.name << " with blocks of " << block << " threads");
      T first{};
      int differing = 0;
      for (int run = 0; run < 100; ++run) {
        result.poison();
        variant.launch(input.data(), n, result.data(), block, scratch, 0);
        const T r = result.download_one();
        if (run == 0) {
          first = r;
          CHECK_MATCHES(first, ref, tolerance(ref, variant.depth(n, block)));
        } else if (std::memcmp(&r, &first, sizeof(T)) != 0) {
          ++differing;
        }
      }
      CHECK(differing == 0);
    }
  }
}

TEST_CASE("two-pass: the grid fills the GPU once, and never outnumbers the work", "[chapter08]") {
  for (int block : testing::multi_block_sizes()) {
    INFO("blocks of " << block << " threads");
    const int resident = ch08::resident_blocks<ch08::Handoff::Store, float>(block);
    CHECK(resident >= current_device().sm_count);  // at least one block on every multiprocessor
    CHECK(ch08::grid_size<ch08::Handoff::Store, float>(1, block) == 1);
    CHECK(ch08::grid_size<ch08::Handoff::Store, float>(std::size_t(block) + 1, block) == std::min(2, resident));
    CHECK(ch08::grid_size<ch08::Handoff::Store, float>(std::size_t(1) << 30, block) == resident);
    // Depth of one pass: one element per thread adds nothing in the loop, two add once.
    CHECK(grid_stride_rounded_additions(std::size_t(block), block, ceil_log2(block)) == ceil_log2(block));
    CHECK(grid_stride_rounded_additions(2 * std::size_t(block), block, ceil_log2(block)) == 1 + ceil_log2(block));
  }
}

// The same two passes on the CPU, one addition at a time in the order the kernel's code fixes: each
// thread's grid-stride loop, then the block's tree, for the first pass and again for the second.
template <typename T>
std::vector<T> one_pass_on_cpu(const std::vector<T>& input, int grid, int block) {
  const std::size_t n = input.size(), grid_threads = std::size_t(grid) * block;
  std::vector<T> out(grid);
  std::vector<T> partial(block);
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

TEMPLATE_TEST_CASE("two-pass: the loads in flight keep the plain loop's order, bit for bit", "[chapter08]", float,
                   double) {
  using T = TestType;
  const auto seed = testing::fresh_seed();
  for (const std::size_t n : {std::size_t(1) << 20, (std::size_t(1) << 20) + 12345, std::size_t(777)}) {
    INFO("seed " << seed << ", n = " << n);
    const auto host = generate_input<T>(n, seed);
    const DeviceBuffer<T> input(host);
    DeviceBuffer<T> result(1);
    DeviceScratch scratch;
    for (int block : {32, 256}) {
      INFO("blocks of " << block << " threads");
      const int grid = ch08::grid_size<ch08::Handoff::Store, T>(n, block);
      const T expected = one_pass_on_cpu(one_pass_on_cpu(host, grid, block), 1, block)[0];
      ch08::launch_finish_kernel<T>(input.data(), n, result.data(), block, scratch, 0);
      const T got = result.download_one();
      CHECK(std::memcmp(&got, &expected, sizeof(T)) == 0);
    }
  }
}
