// GPU tests of chapter 03: the simple kernel against the CPU reference for every size that
// matters, and against its own trace: the array the kernel leaves behind must be the one the CPU
// evaluation of its index arithmetic predicts, bit for bit.
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "common/gpu.cuh"
#include "common/input.hpp"
#include "common/reference.hpp"
#include "common/single_block.hpp"
#include "common/testing.hpp"
#include "model.hpp"
#include "simple_kernel.cuh"

using namespace reduction;
namespace sb = reduction::single_block;

namespace {
template <typename T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}
}  // namespace

TEMPLATE_TEST_CASE("simple kernel: every size from 1 to 2048 that matters", "[chapter03][gpu]", std::int32_t, float,
                   double) {
  using T = TestType;
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  const auto kernel = ch03::variant<T>();
  DeviceBuffer<T> result(1);
  for (std::size_t n : sb::sizes_to_test()) {
    INFO("n = " << n);
    const auto x = generate_input<T>(n, seed + n);
    const auto ref = reference_sum(x.data(), n);
    DeviceBuffer<T> data(x);
    result.poison();
    kernel.launch(data.data(), n, result.data(), 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    const T r = result.download_one();
    CHECK_MATCHES(r, ref, tolerance(ref, kernel.depth(n, 0)));
    // The partial sums the kernel left in place are those of the CPU evaluation of its arithmetic.
    std::vector<T> expected = x;
    const auto tr = ch03::trace(x);
    if (!tr.steps.empty()) expected = tr.steps.back().values;
    CHECK(same_bits(data.download(), expected));
    CHECK(std::memcmp(&r, &tr.result, sizeof(T)) == 0);
  }
}

TEST_CASE("simple kernel: int sums wrap around like the reference", "[chapter03][gpu]") {
  const std::size_t n = sb::kMaxElements;
  const std::vector<std::int32_t> x(n, std::numeric_limits<std::int32_t>::max());
  const auto ref = reference_sum(x.data(), n);
  REQUIRE(ref.wrapped);
  DeviceBuffer<std::int32_t> data(x), result(1);
  result.poison();
  ch03::launch(data.data(), n, result.data(), 0);
  CHECK(result.download_one() == ref.value);
}

TEST_CASE("simple kernel: sizes out of reach are refused before launching", "[chapter03][gpu]") {
  DeviceBuffer<float> data(sb::kMaxElements + 1), result(1);
  CHECK_THROWS_AS(ch03::launch(data.data(), 0, result.data(), 0), InputError);
  CHECK_THROWS_AS(ch03::launch(data.data(), sb::kMaxElements + 1, result.data(), 0), InputError);
  CUDA_CHECK(cudaDeviceSynchronize());
}
