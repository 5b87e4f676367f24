// CPU tests of exact_sum.cuh, the arithmetic of fastest's order-free finish for sums: floats and
// doubles added as integers into words (exact_add) and rounded once (exact_total, a plain addition
// in place of the GPU's atomics). The oracles are sums the host computes exactly some other way:
// IEEE addition of two values, integers in wider types, floats in a double, each rounded once.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "common/testing/testing.hpp"
#include "exact_sum.cuh"

namespace {

template <typename T>
T exact_sum(const std::vector<T>& values) {
  return ch09::exact_total(values.data(), values.size());
}

// Any finite value, of any exponent, subnormals included (the bits drawn at random).
template <typename T>
T any_finite(std::mt19937_64& random) {
  using Bits = typename ch09::ExactFormat<T>::Bits;
  for (;;) {
    const Bits bits = Bits(random());
    T x;
    std::memcpy(&x, &bits, sizeof x);
    if (std::isfinite(x)) return x;
  }
}

}  // namespace

TEMPLATE_TEST_CASE("exact_sum: two values round as IEEE addition does", "[chapter09][exact]", float, double) {
  using T = TestType;
  std::mt19937_64 random(20261126);
  const T tiny = std::numeric_limits<T>::denorm_min(), big = std::numeric_limits<T>::max();
  std::vector<std::pair<T, T>> pairs = {{T(1), T(0)},           {T(1), -T(1)},     {tiny, tiny},
                                        {big, big},             {-big, -big},      {big, -tiny},
                                        {T(1), std::numeric_limits<T>::epsilon() / 2},  // a tie: to even
                                        {T(-0.0), T(-0.0)}};
  for (int i = 0; i < 200000; ++i) {
    const T a = any_finite<T>(random);
    // Half the time a partner of any size; half the time one up to 64 binades below a, where the
    // rounding happens (a random 53-bit fraction, signed, scaled).
    const T fraction = T(std::ldexp(double(random() >> 11), -53)) * (random() % 2 ? T(1) : T(-1));
    const T b = i % 2 || a == T(0) ? any_finite<T>(random) : std::ldexp(fraction, std::ilogb(a) - int(random() % 64));
    pairs.push_back({a, b});
  }
  int wrong = 0;
  for (const auto& [a, b] : pairs) {
    const T ieee = a + b, exact = exact_sum<T>({a, b});
    if (!(ieee == exact) && ++wrong <= 5) {  // +0 and -0 compare equal: an exact zero comes out +0
      INFO(a << " + " << b << ": IEEE " << ieee << ", exact_sum " << exact);
      CHECK(ieee == exact);
    }
  }
  CHECK(wrong == 0);
}

TEST_CASE("exact_sum: floats of nearby sizes, against their exact sum in a double", "[chapter09][exact]") {
  // Up to 256 floats of exponents -8 to 8: their sum needs at most 48 bits, so the double holds it
  // exactly, and its conversion to float is the one rounding.
  std::mt19937_64 random(7);
  std::uniform_int_distribution<int> count(1, 256), exponent(-8, 8);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  for (int trial = 0; trial < 20000; ++trial) {
    std::vector<float> values(std::size_t(count(random)));
    double exact = 0;
    for (float& x : values) {
      x = std::ldexp(unit(random), exponent(random));
      exact += x;
    }
    const float expected = float(exact), got = exact_sum(values);
    INFO("trial " << trial << ", " << values.size() << " floats");
    REQUIRE(reduction::testing::same_value(expected + 0.0f, got + 0.0f));
  }
}

TEST_CASE("exact_sum: doubles that are integers times a power of two, against a 64-bit sum", "[chapter09][exact]") {
  // Integers below 2^53 (exact as doubles), up to 100 of them, times 2^e for e from -900 to 900:
  // their sum in 64 bits is exact, its conversion to double the one rounding, and the scaling exact.
  std::mt19937_64 random(11);
  std::uniform_int_distribution<int> count(1, 100), exponent(-900, 900);
  for (int trial = 0; trial < 20000; ++trial) {
    const int e = exponent(random);
    std::vector<double> values(std::size_t(count(random)));
    long long total = 0;
    for (double& x : values) {
      const long long k = (long long)((random() >> 11) >> (random() % 53)) * (random() % 2 ? 1 : -1);
      total += k;
      x = std::ldexp(double(k), e);
    }
    const double expected = std::ldexp(double(total), e), got = exact_sum(values);
    INFO("trial " << trial << ", 2^" << e);
    REQUIRE(reduction::testing::same_value(expected + 0.0, got + 0.0));
  }
}

TEMPLATE_TEST_CASE("exact_sum: no rounding between the additions", "[chapter09][exact]", float, double) {
  using T = TestType;
  const T big = std::numeric_limits<T>::max(), tiny = std::numeric_limits<T>::denorm_min();
  const T half_ulp = std::numeric_limits<T>::epsilon() / 2;
  // In any fixed order some of these round on the way; exactly added, none does.
  CHECK(exact_sum<T>({big, big, -big}) == big);      // over the largest value and back
  CHECK(exact_sum<T>({T(1), half_ulp, half_ulp}) == T(1) + 2 * half_ulp);  // two halves of an ulp
  CHECK(exact_sum<T>({T(1e30), T(1), -T(1e30)}) == T(1));  // cancellation
  CHECK(exact_sum<T>({big, -big, tiny}) == tiny);
  CHECK(exact_sum<T>(std::vector<T>(1000, tiny)) == 1000 * tiny);  // subnormals add exactly
  CHECK(exact_sum<T>({}) == T(0));
  CHECK(exact_sum<T>({T(-0.0), T(0.0)}) == T(0));
  // 2^20 of the largest value and 2^20 of its negative: the words' headroom for carries.
  std::vector<T> many(std::size_t(1) << 21, big);
  std::fill(many.begin() + (1 << 20), many.end(), -big);
  CHECK(exact_sum<T>(many) == T(0));
  many.push_back(T(3));
  CHECK(exact_sum<T>(many) == T(3));
}

TEMPLATE_TEST_CASE("exact_sum: NaN and infinities as IEEE addition has them", "[chapter09][exact]", float, double) {
  using T = TestType;
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  CHECK(std::isnan(exact_sum<T>({T(1), nan, T(2)})));
  CHECK(std::isnan(exact_sum<T>({inf, -inf})));
  CHECK(std::isnan(exact_sum<T>({inf, nan})));
  CHECK(exact_sum<T>({T(1), inf, T(-5)}) == inf);
  CHECK(exact_sum<T>({-inf, T(7), -inf}) == -inf);
}

TEMPLATE_TEST_CASE("exact_sum: the same bits in every order", "[chapter09][exact]", float, double) {
  using T = TestType;
  std::mt19937_64 random(3);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<T> values(1000);
    const int spread = trial % 4 == 0 ? 600 : 20;  // mostly values of nearby sizes, some of any
    std::uniform_int_distribution<int> exponent(-spread, spread);
    std::uniform_real_distribution<T> unit(T(-1), T(1));
    for (T& x : values) x = std::ldexp(unit(random), std::max(exponent(random), std::numeric_limits<T>::min_exponent));
    const T first = exact_sum(values);
    for (int shuffle = 0; shuffle < 5; ++shuffle) {
      std::shuffle(values.begin(), values.end(), random);
      REQUIRE(reduction::testing::same_value(first, exact_sum(values)));
    }
  }
}
