// What the chapters' Catch2 tests share. Works with Catch2 v3 and v2 (2.13), whichever the build
// found (REDUCTION_CATCH2_MAJOR).
#pragma once

#if REDUCTION_CATCH2_MAJOR == 3
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#else
#include <catch2/catch.hpp>
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "common/reference.hpp"

namespace reduction::testing {

// A new seed for every run, so the tests see fresh inputs each time; tests INFO() it, so a
// failure can be replayed with the program's --seed.
inline std::uint64_t fresh_seed() {
  static std::random_device device;
  return (std::uint64_t(device()) << 32) | device();
}

// Describes a comparison for a failure message.
template <typename T> std::string describe(T result, const Reference<T>& ref, long double tol) {
  return "result " + std::to_string(result) + ", reference " + std::to_string(static_cast<double>(ref.precise)) +
         (ref.exact ? " (exact)" : ", tolerance " + std::to_string(static_cast<double>(tol)));
}

// Whether a and b are the same value: both NaN, or equal with the same sign (-0 is not +0).
template <typename T> bool same_value(T a, T b) { return a != a ? b != b : a == b && std::signbit(a) == std::signbit(b); }

// Inputs of n >= 3 floats for max and min's rule (common/ops.hpp), each with the max and min it must
// give: NaN first, in the middle, last, everywhere; -0 and +0 side by side, either first, among
// negative numbers (for max) or positive ones (for min), or alone; +inf and -inf. The other
// elements are random, of magnitude 1 to 2.
template <typename T> struct SpecialInput {
  std::string what;
  std::vector<T> x;
  T max, min;
};
template <typename T> std::vector<SpecialInput<T>> special_inputs(std::size_t n, std::uint64_t seed) {
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity(), zero = 0;
  std::mt19937_64 random(seed);
  std::vector<T> up(n), down(n);
  for (std::size_t i = 0; i < n; ++i) down[i] = -(up[i] = std::uniform_real_distribution<T>(1, 2)(random));
  const auto put = [n](std::vector<T> x, std::size_t at, T a, T next) { return x[at] = a, x[(at + 1) % n] = next, x; };
  const auto least = [](const std::vector<T>& x) { return *std::min_element(x.begin(), x.end()); };
  const auto most = [](const std::vector<T>& x) { return *std::max_element(x.begin(), x.end()); };
  std::vector<T> zeros(n, zero);
  for (std::size_t i = 0; i < n; i += 2) zeros[i] = -zero;
  std::vector<SpecialInput<T>> cases = {{"-0 and +0 in turn", zeros, zero, -zero},
                                        {"-0 everywhere", std::vector<T>(n, -zero), -zero, -zero},
                                        {"NaN everywhere", std::vector<T>(n, nan), nan, nan},
                                        {"-inf everywhere", std::vector<T>(n, -inf), -inf, -inf},
                                        {"+inf everywhere", std::vector<T>(n, inf), inf, inf}};
  for (const std::size_t at : {std::size_t(0), n / 2, n - 1}) {
    const std::string where = " at " + std::to_string(at) + " of " + std::to_string(n);
    cases.push_back({"NaN" + where, put(up, at, nan, up[(at + 1) % n]), nan, nan});
    cases.push_back({"+inf then -inf" + where, put(up, at, inf, -inf), inf, -inf});
    for (const T first : {-zero, zero}) {
      const std::string order = std::signbit(first) ? "-0 then +0" : "+0 then -0";
      const auto below = put(down, at, first, -first), above = put(up, at, first, -first);
      cases.push_back({order + " among negatives" + where, below, zero, least(below)});
      cases.push_back({order + " among positives" + where, above, most(above), -zero});
    }
  }
  return cases;
}

}  // namespace reduction::testing

// Checks a result against its reference within `tol` (exactly where it is exact: NaN for NaN).
#define CHECK_MATCHES(result, ref, tol)                                         \
  do {                                                                          \
    INFO(::reduction::testing::describe((result), (ref), (tol)));               \
    CHECK(::reduction::matches((result), (ref), (tol)));                        \
  } while (0)
