// Chapter 06's kernel on the GPU: every size that cuts a segment short or exactly fills it, at
// every block size the program takes, in int, float and double; and once, an input past 2^32
// elements, where 32-bit indices wrap.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/gpu.cuh"
#include "common/program.hpp"
#include "common/reference.hpp"
#include "common/testing/huge.cuh"
#include "common/testing/testing.hpp"
#include "hierarchical.cuh"

using namespace reduction;

namespace {

// Runs the kernel on `input` with blocks of each size in `blocks` and checks every result against
// `ref`, within the bound of the kernel's order of additions. The result is poisoned before each
// launch, so a kernel that writes nothing fails.
template <typename T>
void check_blocks(const DeviceBuffer<T>& input, const Reference<T>& ref, const std::vector<int>& blocks) {
  DeviceBuffer<T> result(1);
  DeviceScratch scratch;
  for (int block : blocks) {
    INFO("blocks of " << block << " threads, n = " << input.size());
    result.poison();
    ch06::launch(input.data(), input.size(), result.data(), block, scratch, 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    CHECK_MATCHES(result.download_one(), ref, tolerance(ref, ch06::depth(input.size(), block)));
  }
}

}  // namespace

// Every --block the program takes.
const std::vector<int> kAllBlocks = {32, 64, 128, 256, 512, 1024};

TEMPLATE_TEST_CASE("hierarchical: sizes that cut the last segment short, at every block size", "[chapter06]",
                   std::int32_t, float, double) {
  // One element, a few, around one segment of 2 x 512 elements, just past 2^20, just below 2^24.
  for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(3), std::size_t(1023), std::size_t(1024),
                        std::size_t(1025), (std::size_t(1) << 20) + 1, (std::size_t(1) << 24) - 1}) {
    const auto seed = testing::fresh_seed();
    INFO("seed " << seed);
    const std::vector<TestType> host = generate_input<TestType>(n, seed);
    check_blocks(DeviceBuffer<TestType>(host), reference_sum(host.data(), n), kAllBlocks);
  }
}

TEST_CASE("hierarchical: 2^32 + 3 ints, past where int and unsigned indices wrap", "[chapter06][huge]") {
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  const DeviceBuffer<std::int32_t> input = testing::huge_random_ints(seed);
  if (!input.size()) return;
  // The smallest block makes the most blocks (the largest blockIdx.x), the largest the longest segment.
  check_blocks(input, testing::wrapped_reference(testing::streamed_int_sum(seed)), {32, 1024});
}

TEST_CASE("hierarchical: one block per 2 x block elements, and the depth of its additions", "[chapter06]") {
  CHECK(ch06::block_count(1, 32) == 1);
  CHECK(ch06::block_count(64, 32) == 1);
  CHECK(ch06::block_count(65, 32) == 2);
  CHECK(ch06::block_count((std::size_t(1) << 32) + 3, 1024) == (std::size_t(1) << 21) + 1);
  // Depth: the pair, the tree, the atomics after the first.
  CHECK(ch06::depth(1, 256) == 9);
  CHECK(ch06::depth(1025, 256) == 9 + 2);
}
