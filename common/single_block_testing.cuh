// What the GPU tests of the single-block chapters (03 to 05) share. Each chapter's test file names
// its kernel and trace; the checks are the same for all three.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "gpu.cuh"
#include "input.hpp"
#include "reference.hpp"
#include "single_block.hpp"
#include "testing.hpp"
#include "variants.cuh"

namespace reduction::single_block::testing {

template <typename T> bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// Every size from 1 to 2048 that matters, on fresh random input, the result poisoned before each
// launch: the result against the CPU reference, and bit for bit against the CPU trace of the
// kernel's own arithmetic. The array left behind must be the trace's last step for a kernel that
// works in place (03, 04), and the untouched input for one that does not (05).
template <typename T, typename TraceFn>
void check_every_size(const Variant<SingleBlockLaunch<T>>& kernel, TraceFn trace, bool in_place) {
  const auto seed = reduction::testing::fresh_seed();
  INFO("seed " << seed);
  DeviceBuffer<T> result(1);
  for (std::size_t n : sizes_to_test()) {
    INFO("n = " << n);
    const auto x = generate_input<T>(n, seed + n);
    const auto ref = reference_sum(x.data(), n);
    DeviceBuffer<T> data(x);
    result.poison();
    kernel.launch(data.data(), n, result.data(), 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    const T r = result.download_one();
    CHECK_MATCHES(r, ref, tolerance(ref, kernel.depth(n, 0)));
    const auto tr = trace(x);
    if (in_place) {
      std::vector<T> expected = x;
      if (!tr.steps.empty()) expected = tr.steps.back().values;
      CHECK(same_bits(data.download(), expected));
    } else {
      CHECK(same_bits(data.download(), x));  // the input is left unchanged
    }
    CHECK(std::memcmp(&r, &tr.result, sizeof(T)) == 0);
  }
}

// A sum that overflows 32 bits wraps around exactly as the reference's does.
inline void check_int_wraparound(SingleBlockLaunch<std::int32_t> launch) {
  const std::size_t n = kMaxElements;
  const std::vector<std::int32_t> x(n, std::numeric_limits<std::int32_t>::max());
  const auto ref = reference_sum(x.data(), n);
  REQUIRE(ref.wrapped);
  DeviceBuffer<std::int32_t> data(x), result(1);
  result.poison();
  launch(data.data(), n, result.data(), 0);
  CHECK(result.download_one() == ref.value);
}

// n = 0 and n > 2048 are refused before anything is launched.
inline void check_refused_sizes(SingleBlockLaunch<float> launch) {
  DeviceBuffer<float> data(kMaxElements + 1), result(1);
  CHECK_THROWS_AS(launch(data.data(), 0, result.data(), 0), InputError);
  CHECK_THROWS_AS(launch(data.data(), kMaxElements + 1, result.data(), 0), InputError);
  CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace reduction::single_block::testing
