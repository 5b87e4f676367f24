#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/input.hpp"
#include "common/reference.hpp"
#include "common/testing.hpp"

using namespace reduction;

TEST_CASE("integer sums wrap around modulo 2^32 like the GPU's adds", "[reference]") {
  std::vector<std::int32_t> x = {std::numeric_limits<std::int32_t>::max(), 1};
  auto ref = reference_sum(x.data(), x.size());
  CHECK(ref.exact);
  CHECK(ref.wrapped);
  CHECK(ref.value == std::numeric_limits<std::int32_t>::min());

  std::vector<std::int32_t> y = {5, -7, 100};
  auto r2 = reference_sum(y.data(), y.size());
  CHECK(r2.value == 98);
  CHECK_FALSE(r2.wrapped);
}

TEST_CASE("the float reference is far more accurate than a float sum, and says how accurate", "[reference]") {
  // 1 + 2^-24 * k: a float loop loses every small term, the reference keeps them.
  std::vector<float> x(1 << 20, 0x1.0p-24f);
  x[0] = 1.0f;
  auto ref = reference_sum(x.data(), x.size());
  const long double exact = 1.0L + (x.size() - 1) * 0x1.0p-24L;
  CHECK(std::fabs(ref.precise - exact) <= ref.error);
  CHECK(ref.error < 1e-9L);
  float naive = 0;
  for (float v : x) naive += v;
  CHECK(naive == 1.0f);  // the lesson of chapter 02, in one line
  CHECK_FALSE(matches(naive, ref, tolerance(ref, 1)));
  // Bound for the sequential loop (depth n-1) covers its large error.
  CHECK(matches(naive, ref, tolerance(ref, x.size() - 1)));
}

TEST_CASE("gamma bound", "[reference]") {
  const long double u = std::numeric_limits<float>::epsilon() / 2.0L;
  CHECK(gamma_bound<float>(0) == 0);
  CHECK(gamma_bound<float>(10) == 10 * u / (1 - 10 * u));
  CHECK(std::isinf(gamma_bound<float>(std::size_t(1) << 25)));
  CHECK(ceil_log2(1) == 0);
  CHECK(ceil_log2(2) == 1);
  CHECK(ceil_log2(3) == 2);
  CHECK(ceil_log2(1024) == 10);
  CHECK(ceil_log2(1025) == 11);
}

TEST_CASE("NaN never matches", "[reference]") {
  std::vector<float> x = {1.0f, 2.0f};
  auto ref = reference_sum(x.data(), x.size());
  CHECK(matches(3.0f, ref, tolerance(ref, 1)));
  CHECK_FALSE(matches(std::numeric_limits<float>::quiet_NaN(), ref, 1e30L));
  CHECK_FALSE(matches(3.5f, ref, tolerance(ref, 1)));
}

TEST_CASE("min, max and product references", "[reference]") {
  std::vector<double> x = {3.0, -2.0, 7.5, 0.5};
  CHECK(reference_reduce<Min>(x.data(), x.size()).value == -2.0);
  CHECK(reference_reduce<Max>(x.data(), x.size()).value == 7.5);
  auto p = reference_reduce<Product>(x.data(), x.size());
  CHECK(std::fabs(p.precise - (-22.5L)) <= p.error + 1e-15L);
  std::vector<std::int32_t> empty;
  CHECK(reference_reduce<Min>(empty.data(), 0).value == std::numeric_limits<std::int32_t>::max());
}

TEST_CASE("the parallel reference agrees with a sequential exact sum", "[reference]") {
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  auto x = generate_input<std::int32_t>(3'000'001, seed);
  std::int64_t s = 0;
  for (auto v : x) s += v;
  CHECK(reference_sum(x.data(), x.size()).value == static_cast<std::int32_t>(static_cast<std::uint32_t>(s)));
}

namespace {
template <typename T> std::string refusal(const std::vector<T>& x) {
  try {
    reference_sum(x.data(), x.size());
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("a sum whose partial sums may overflow the type is refused", "[reference]") {
  // Four float32 values of 3e38: the reference was inf, and so was the kernel, reported as wrong.
  const std::string why = refusal(std::vector<float>(4, 3e38f));
  CHECK(why.find("the sum does not fit in float") != std::string::npos);
  CHECK(refusal(std::vector<double>(4, 1e308)).find("does not fit in double") != std::string::npos);
  // Cancelling terms do not help: adding the positive ones first overflows.
  CHECK(refusal(std::vector<float>{3e38f, 3e38f, -3e38f, -3e38f}) != "");
  // Large but safe: every order stays finite.
  CHECK(refusal(std::vector<float>{1e38f, 1e38f, 1e38f}) == "");
  CHECK(refusal(std::vector<float>{std::numeric_limits<float>::max()}) == "");
  CHECK(refusal(std::vector<double>(4, 1e307)) == "");
}

TEST_CASE("a product that overflows the type is refused", "[reference]") {
  std::vector<float> x = {1e30f, 1e30f};
  CHECK_THROWS_AS(reference_reduce<Product>(x.data(), x.size()), InputError);
  std::vector<float> y = {1e30f, 1e30f, 1e-30f};
  CHECK(std::fabs(reference_reduce<Product>(y.data(), y.size()).value - 1e30f) <= 1e24f);
  std::vector<float> big = {3e38f, 3e38f};
  CHECK(reference_reduce<Max>(big.data(), big.size()).value == 3e38f);  // min and max never overflow
}
