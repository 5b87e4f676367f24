// Chapter 09 on the GPU: every variant against the CPU reference, on fresh random inputs, with the
// result poisoned before each launch; integers exact, floats within the bound of each variant's
// own order of additions.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/gpu.cuh"
#include "common/input.hpp"
#include "common/reference.hpp"
#include "common/testing.hpp"
#include "warp_unrolled.cuh"

using namespace reduction;

namespace {

template <typename T>
using Registry = std::vector<Variant<MultiBlockLaunch<T>>>;

// One launch on a poisoned result slot; returns what the kernel wrote.
template <typename T, typename Launch>
T run_once(Launch&& launch) {
  DeviceBuffer<T> result(1);
  result.poison();
  launch(result.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  return result.download_one();
}

template <typename T>
T run_variant(const Variant<MultiBlockLaunch<T>>& v, const T* input, std::size_t n, int block, DeviceScratch& scratch) {
  return run_once<T>([&](T* result) { v.launch(input, n, result, block, scratch, 0); });
}

// Inputs for max and min too: integers in [-100, 100], floats shifted to [-0.5, 0.5).
template <typename T>
std::vector<T> fresh_input(std::size_t n, std::uint64_t seed) {
  auto data = generate_input<T>(n, seed);
  if constexpr (!std::is_integral_v<T>)
    for (auto& x : data) x -= T(0.5);
  return data;
}

template <typename T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Every variant of `Op` on `data` at `block`: right, and (floats) the same bits on a second run.
template <typename Op, typename T>
void check_registry(const std::vector<T>& data, int block) {
  const std::size_t n = data.size();
  const auto ref = reference_reduce<Op>(data.data(), n);
  DeviceBuffer<T> input(data);
  DeviceScratch scratch;
  for (const auto& v : ch09::variants<Op, T>()) {
    if (block < ch09::min_block(v.name)) continue;
    INFO("variant " << v.name << ", op " << Op::name << ", n " << n << ", block " << block);
    const T first = run_variant(v, input.data(), n, block, scratch);
    CHECK_MATCHES(first, ref, tolerance(ref, v.depth(n, block)));
    const T second = run_variant(v, input.data(), n, block, scratch);
    CHECK(same_bits(first, second));
  }
}

}  // namespace

TEMPLATE_TEST_CASE("every variant sums inputs of any size", "[chapter09]", std::int32_t, float, double) {
  using T = TestType;
  const std::size_t n =
      GENERATE(as<std::size_t>{}, 1, 2, 3, 31, 32, 33, 1023, 1024, 1025, 4099, (1 << 20) + 1, (1 << 24) - 1);
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  check_registry<Sum>(fresh_input<T>(n, seed), 256);
}

TEMPLATE_TEST_CASE("every variant at every block size it accepts", "[chapter09]", std::int32_t, float) {
  using T = TestType;
  const std::size_t n = GENERATE(as<std::size_t>{}, 5, 100003);
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  const auto data = fresh_input<T>(n, seed);
  for (int block = 1; block <= 1024; block *= 2) check_registry<Sum>(data, block);
}

TEMPLATE_TEST_CASE("shuffle, fastest and cub take max and min", "[chapter09]", std::int32_t, float, double) {
  using T = TestType;
  const std::size_t n = GENERATE(as<std::size_t>{}, 1, 2, 33, 1025, (1 << 20) + 3);
  const int block = GENERATE(32, 256, 1024);
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  const auto data = fresh_input<T>(n, seed);
  check_registry<Max>(data, block);
  check_registry<Min>(data, block);
  CHECK(ch09::variants<Max, T>().size() == 3);  // the three that add only are not offered
}

TEMPLATE_TEST_CASE("inputs that do not start on a 16-byte boundary", "[chapter09]", std::int32_t, float, double) {
  using T = TestType;
  const std::size_t n = GENERATE(as<std::size_t>{}, 1, 2, 3, 5, 1000, 100001);
  const std::size_t offset = GENERATE(as<std::size_t>{}, 1, 2, 3);
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed << ", n " << n << ", input starts " << offset << " elements past an aligned address");
  const auto whole = fresh_input<T>(n + offset, seed);
  const std::vector<T> data(whole.begin() + offset, whole.end());
  const auto ref = reference_sum(data.data(), n);
  DeviceBuffer<T> input(whole);
  DeviceScratch scratch;
  for (const auto& v : ch09::variants<Sum, T>()) {
    INFO("variant " << v.name);
    CHECK_MATCHES(run_variant(v, input.data() + offset, n, 256, scratch), ref, tolerance(ref, v.depth(n, 256)));
  }
}

// The knobs of fastest that the program's --sweep times: each combination must be right too.
template <typename T, bool kWide, int kLoads, bool kOnePass, bool kChunked>
void check_fastest_knobs() {
  const auto seed = testing::fresh_seed();
  for (std::size_t n : {std::size_t(1), std::size_t(3), std::size_t(4099), std::size_t(1 << 20) + 1}) {
    const auto data = fresh_input<T>(n, seed + n);
    const auto ref = reference_sum(data.data(), n);
    DeviceBuffer<T> input(data);
    DeviceScratch scratch;
    for (int block : {32, 256, 1024})
      for (int waves : {1, 4}) {
        INFO("seed " << seed + n << ", n " << n << ", block " << block << ", waves " << waves << ", wide " << kWide
                     << ", loads " << kLoads << ", one pass " << kOnePass << ", chunked " << kChunked);
        const T r = run_once<T>([&](T* result) {
          ch09::launch_fastest_with<Sum, T, kWide, kLoads, kOnePass, kChunked>(input.data(), n, result, block, waves,
                                                                               scratch, 0);
        });
        CHECK_MATCHES(
            r, ref,
            tolerance(ref, ch09::fastest_depth_with<Sum, T, kWide, kLoads, kOnePass, kChunked>(n, block, waves)));
      }
  }
}

TEMPLATE_TEST_CASE("every knob of fastest", "[chapter09]", std::int32_t, float) {
  using T = TestType;
  check_fastest_knobs<T, false, 1, false, false>();
  check_fastest_knobs<T, true, 1, false, false>();
  check_fastest_knobs<T, true, 2, true, false>();
  check_fastest_knobs<T, true, 4, true, false>();
  check_fastest_knobs<T, true, 8, false, true>();
  check_fastest_knobs<T, true, 4, true, true>();
  check_fastest_knobs<T, false, 1, true, true>();
}

TEST_CASE("one-pass fastest stays right as its grid changes from launch to launch", "[chapter09]") {
  // The block counter must be back at zero after every launch, whatever the grid was.
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  const auto small = fresh_input<std::int32_t>(100, seed), large = fresh_input<std::int32_t>(1 << 22, seed + 1);
  const auto small_ref = reference_sum(small.data(), small.size()),
             large_ref = reference_sum(large.data(), large.size());
  DeviceBuffer<std::int32_t> small_in(small), large_in(large);
  DeviceScratch scratch;
  const auto fastest = ch09::variants<Sum, std::int32_t>()[4];
  REQUIRE(std::string(fastest.name) == "fastest");
  for (int round = 0; round < 10; ++round) {
    const int block = round % 2 ? 1024 : 128;
    CHECK(run_variant(fastest, small_in.data(), small.size(), block, scratch) == small_ref.value);
    CHECK(run_variant(fastest, large_in.data(), large.size(), block, scratch) == large_ref.value);
  }
}

TEMPLATE_TEST_CASE("float results are the same bits run after run", "[chapter09]", float, double) {
  using T = TestType;
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = (1 << 22) + 17;
  const auto data = fresh_input<T>(n, seed);
  DeviceBuffer<T> input(data);
  DeviceScratch scratch;
  for (const auto& v : ch09::variants<Sum, T>()) {
    INFO("variant " << v.name);
    const T first = run_variant(v, input.data(), n, 256, scratch);
    bool all_same = true;
    for (int run = 0; run < 20; ++run)
      all_same = all_same && same_bits(first, run_variant(v, input.data(), n, 256, scratch));
    CHECK(all_same);
  }
}

TEST_CASE("the unrolled dispatch takes exactly the powers of two from 1 to 1024", "[chapter09]") {
  DeviceScratch scratch;
  DeviceBuffer<std::int32_t> input(std::vector<std::int32_t>{1, 2, 3});
  DeviceBuffer<std::int32_t> result(1);
  for (int block : {0, 3, 48, 2048})
    CHECK_THROWS_AS(ch09::launch_unrolled(input.data(), 3, result.data(), block, scratch, 0), std::invalid_argument);
}

TEST_CASE("more than 2^31 elements", "[chapter09][large]") {
  const std::size_t n = (std::size_t(1) << 31) + 3;
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t needed = n * sizeof(std::int32_t) + (std::size_t(256) << 20);
  if (free_bytes < needed) {
    WARN("skipped: " << n << " ints need " << needed / (1 << 20) << " MiB of device memory, " << free_bytes / (1 << 20)
                     << " MiB are free");
    CHECK(free_bytes < needed);
    return;
  }
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  auto data = fresh_input<std::int32_t>(n, seed);
  data[n - 2] = 1000;  // the one maximum, past 2^31: only a kernel that reaches it finds it
  const auto ref = reference_sum(data.data(), n);
  const auto max_ref = reference_reduce<Max>(data.data(), n);
  DeviceBuffer<std::int32_t> input(data);
  DeviceScratch scratch;
  for (const auto& v : ch09::variants<Sum, std::int32_t>()) {
    INFO("variant " << v.name);
    CHECK(run_variant(v, input.data(), n, 256, scratch) == ref.value);
  }
  for (const auto& v : ch09::variants<Max, std::int32_t>()) {
    INFO("variant " << v.name << " (max)");
    CHECK(run_variant(v, input.data(), n, 1024, scratch) == max_ref.value);
  }
}
