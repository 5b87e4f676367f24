// Chapter 07's kernels on the GPU, every factor of the registry: every size that cuts a segment
// short or exactly fills it, at every block size the program takes, in int, float and double; and
// once, an input past 2^32 elements, where 32-bit indices wrap.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels.cuh"
#include "common/gpu.cuh"
#include "common/program.hpp"
#include "common/reference.hpp"
#include "common/testing/huge.cuh"
#include "common/testing/testing.hpp"

using namespace reduction;

namespace {

// Runs every factor's kernel on `input` with blocks of each size in `blocks` and checks every
// result against `ref`, within the bound of that factor's order of additions. The result is
// poisoned before each launch, so a kernel that writes nothing fails.
template <typename T>
void check_factors(const DeviceBuffer<T>& input, const Reference<T>& ref, const std::vector<int>& blocks) {
  DeviceBuffer<T> result(1);
  DeviceScratch scratch;
  for (int block : blocks)
    for (const auto& kernel : ch07::variants<T>()) {
      INFO(kernel.name << " with blocks of " << block << " threads, n = " << input.size());
      result.poison();
      kernel.launch(input.data(), input.size(), result.data(), block, scratch, 0);
      CUDA_CHECK(cudaDeviceSynchronize());
      CHECK_MATCHES(result.download_one(), ref, tolerance(ref, kernel.depth(input.size(), block)));
    }
}

}  // namespace

// Every --block the program takes.
const std::vector<int> kAllBlocks = {32, 64, 128, 256, 512, 1024};

TEMPLATE_TEST_CASE("coarsening: every factor at sizes that cut the last segment short, at every block size",
                   "[chapter07]", std::int32_t, float, double) {
  // One element, a few, around one segment of chapter 06 (2 x 512), just past 2^20, just below 2^24.
  for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(3), std::size_t(1023), std::size_t(1024),
                        std::size_t(1025), (std::size_t(1) << 20) + 1, (std::size_t(1) << 24) - 1}) {
    const auto seed = testing::fresh_seed();
    INFO("seed " << seed);
    const std::vector<TestType> host = generate_input<TestType>(n, seed);
    check_factors(DeviceBuffer<TestType>(host), reference_sum(host.data(), n), kAllBlocks);
  }
}

TEST_CASE("coarsening: every factor on 2^32 + 3 ints, past where int and unsigned indices wrap", "[chapter07][huge]") {
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  const DeviceBuffer<std::int32_t> input = testing::huge_random_ints(seed);
  if (!input.size()) return;
  // The smallest block makes the most blocks (the largest blockIdx.x), the largest the longest segment.
  check_factors(input, testing::wrapped_reference(testing::streamed_int_sum(seed)), {32, 1024});
}

TEST_CASE("coarsening: the registry follows the factors", "[chapter07]") {
  const auto variants = ch07::variants<float>();
  const auto factors = ch07::coarse_factors();
  REQUIRE(variants.size() == factors.size());
  for (std::size_t k = 0; k < factors.size(); ++k) {
    CHECK(std::string(variants[k].name) == "coarse" + std::to_string(factors[k]));
    // A segment of 2 x F x block elements per block.
    CHECK(ch07::block_count(2 * std::size_t(factors[k]) * 256, 256, factors[k]) == 1);
    CHECK(ch07::block_count(2 * std::size_t(factors[k]) * 256 + 1, 256, factors[k]) == 2);
  }
  // Factor 1 is chapter 06: the same blocks and the same depth.
  CHECK(ch07::depth<1>(1025, 256) == 1 + 8 + 2);
  CHECK(ch07::depth<4>(1, 256) == 7 + 8);
}
