#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "common/program.hpp"
#include "common/reference.hpp"
#include "common/testing/testing.hpp"
#include "sequential.hpp"

using namespace reduction;
using ch01::sequential_reduce;

TEMPLATE_TEST_CASE("an empty input reduces to the identity", "[chapter01]", std::int32_t, float, double) {
  using T = TestType;
  const T* none = nullptr;
  CHECK(sequential_reduce<Sum>(none, 0) == T(0));
  CHECK(sequential_reduce<Product>(none, 0) == T(1));
  if constexpr (std::is_integral_v<T>) {
    CHECK(sequential_reduce<Min>(none, 0) == std::numeric_limits<T>::max());
    CHECK(sequential_reduce<Max>(none, 0) == std::numeric_limits<T>::lowest());
  } else {
    CHECK(sequential_reduce<Min>(none, 0) == std::numeric_limits<T>::infinity());
    CHECK(sequential_reduce<Max>(none, 0) == -std::numeric_limits<T>::infinity());
  }
}

TEMPLATE_TEST_CASE("each identity leaves every value unchanged", "[chapter01]", std::int32_t, float, double) {
  using T = TestType;
  for (T v : {T(-7), T(0), T(3), std::numeric_limits<T>::max(), std::numeric_limits<T>::lowest()}) {
    CHECK(Sum{}(v, Sum::identity<T>()) == v);
    CHECK(Product{}(v, Product::identity<T>()) == v);
    CHECK(Min{}(v, Min::identity<T>()) == v);
    CHECK(Max{}(v, Max::identity<T>()) == v);
  }
}

// max and min of floats (common/ops.hpp): the same in either order of the operands, NaN with a NaN;
// and in the loop, wherever a NaN, a zero or an infinity sits (testing::special_inputs).
TEMPLATE_TEST_CASE("max and min: NaN wherever it is, -0 below +0, infinities as values", "[chapter01]", float, double) {
  using T = TestType;
  using testing::same_value;
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  for (const T a : {nan, -inf, T(-1), -T(0), T(0), T(1), inf})
    for (const T b : {nan, -inf, T(-1), -T(0), T(0), T(1), inf}) {
      INFO(a << " and " << b);
      CHECK(same_value(Max{}(a, b), Max{}(b, a)));
      CHECK(same_value(Min{}(a, b), Min{}(b, a)));
      CHECK(std::isnan(Max{}(a, b)) == (std::isnan(a) || std::isnan(b)));
    }
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  for (const std::size_t n : {3, 4, 1000})
    for (const auto& c : testing::special_inputs<T>(n, seed)) {
      INFO(c.what);
      CHECK(same_value(sequential_reduce<Max>(c.x.data(), n), c.max));
      CHECK(same_value(sequential_reduce<Min>(c.x.data(), n), c.min));
    }
}

TEST_CASE("the five-value example sums to 34.6", "[chapter01]") {
  const std::vector<float> x = {7.0f, 2.1f, 5.3f, 9.0f, 11.2f};
  const float sum = sequential_reduce<Sum>(x.data(), x.size());
  // Each input is already rounded to float; compare with the exact sum of those floats within
  // the loop's bound, and with 34.6 itself within one more rounding of each input.
  auto ref = reference_sum(x.data(), x.size());
  CHECK_MATCHES(sum, ref, tolerance(ref, x.size() - 1));
  const long double u = std::numeric_limits<float>::epsilon() / 2.0L;
  CHECK(std::fabs(sum - 34.6L) <= tolerance(ref, x.size() - 1) + u * ref.magnitude);
  CHECK(sequential_reduce<Max>(x.data(), x.size()) == 11.2f);
  CHECK(sequential_reduce<Min>(x.data(), x.size()) == 2.1f);
}

TEST_CASE("integer sums and products wrap like 32-bit hardware", "[chapter01]") {
  const std::vector<std::int32_t> x = {std::numeric_limits<std::int32_t>::max(), 2};
  CHECK(sequential_reduce<Sum>(x.data(), 2) == std::numeric_limits<std::int32_t>::min() + 1);
  const std::vector<std::int32_t> y = {65536, 65536, 3};
  CHECK(sequential_reduce<Product>(y.data(), 3) == 0);
}

TEMPLATE_TEST_CASE("random inputs agree with an independent computation", "[chapter01]", std::int32_t, float, double) {
  using T = TestType;
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = GENERATE(1, 2, 1000, 1 << 18);
  const auto x = generate_input<T>(n, seed);

  // Independent sum: std::accumulate in the widest type (exact for these integers).
  const long double wide = std::accumulate(x.begin(), x.end(), 0.0L, [](long double a, T b) { return a + b; });
  const T sum = sequential_reduce<Sum>(x.data(), n);
  if constexpr (std::is_integral_v<T>) {
    CHECK(sum == static_cast<T>(wide));  // |sum| < 2^31 here: no wrap-around
  } else {
    long double abs_sum = 0;
    for (T v : x) abs_sum += std::fabs(v);
    // The loop's bound, plus the error of the long double sums themselves.
    const long double wide_error = gamma_bound<long double>(n) * abs_sum;
    CHECK(std::fabs(sum - wide) <= gamma_bound<T>(n - 1) * (abs_sum + wide_error) + wide_error);
  }
  CHECK(sequential_reduce<Min>(x.data(), n) == *std::min_element(x.begin(), x.end()));
  CHECK(sequential_reduce<Max>(x.data(), n) == *std::max_element(x.begin(), x.end()));

  const auto p = generate_input<T>(n, seed, Distribution::NearOne);
  const long double wide_product = std::accumulate(p.begin(), p.end(), 1.0L, [](long double a, T b) { return a * b; });
  const T product = sequential_reduce<Product>(p.data(), n);
  if constexpr (std::is_integral_v<T>) CHECK(product == static_cast<T>(wide_product));  // +-1 factors
  else  // each rounded multiplication adds a relative error of at most u, in T and in long double
    CHECK(std::fabs(product - wide_product) <=
          (gamma_bound<T>(n) * (1 + gamma_bound<long double>(n)) + gamma_bound<long double>(n)) * std::fabs(wide_product));
}

// --op product draws factors near 1, whose float product still vanishes below the smallest normal
// float past about 5M of them; the bound covers that gradual underflow (common/reference.hpp).
TEST_CASE("the product of millions of factors near 1 is never failed falsely, and a wrong one is", "[chapter01]") {
  using T = float;
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  for (const std::size_t n : {std::size_t(5) << 20, std::size_t(6) << 20, std::size_t(1) << 23}) {
    INFO("n = " << n);
    const auto x = generate_input<T>(n, seed, Distribution::NearOne);
    const T result = sequential_reduce<Product>(x.data(), n);
    const auto ref = reference_reduce<Product>(x.data(), n);
    const auto tol = tolerance(ref, n - 1);  // as main.cpp checks it
    const std::string unchecked = unchecked_reason(ref, tol, n - 1);
    INFO(testing::describe(result, ref, tol) << "; unchecked: " << unchecked);
    CHECK((matches(result, ref, tol) || !unchecked.empty()));
    if (!unchecked.empty()) continue;  // rare: a long run of factors above 1 near the end (see reference.hpp)
    // Results a wrong loop could give: a product of normal size, one a million times too small or
    // too large (the exact product drifts with the seed: 1e-30 itself was the right answer for one),
    // the sign flipped, four times too large.
    const T far = std::fabs(ref.precise) >= 1e-30L ? T(1e-36) : T(1e-24);
    for (const T wrong : {T(1), T(0.5), far}) CHECK_FALSE(matches(wrong, ref, tol));
    if (std::fabs(result) >= std::numeric_limits<T>::min()) {
      CHECK_FALSE(matches(-result, ref, tol));
      CHECK_FALSE(matches(result * 4, ref, tol));
    }
  }
}
