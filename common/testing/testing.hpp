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

#include <cstdint>
#include <random>
#include <string>

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

}  // namespace reduction::testing

// Checks a result against its reference within `tol` (exactly for integers; NaN fails).
#define CHECK_MATCHES(result, ref, tol)                                         \
  do {                                                                          \
    INFO(::reduction::testing::describe((result), (ref), (tol)));               \
    CHECK(::reduction::matches((result), (ref), (tol)));                        \
  } while (0)
