#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <vector>

#include "common/program.hpp"
#include "common/reference.hpp"
#include "common/testing/testing.hpp"

using namespace reduction;
using reduction::testing::describe;

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
  for (auto [n, levels] : {std::pair<std::size_t, std::size_t>{1, 0}, {2, 1}, {3, 2}, {1024, 10}, {1025, 11}})
    CHECK(ceil_log2(n) == levels);
}

TEST_CASE("NaN matches only an exact NaN reference, and -0 only -0", "[reference]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x = {1.0f, 2.0f};
  auto ref = reference_sum(x.data(), x.size());
  CHECK_FALSE(matches(nan, ref, 1e30L));
  x = {1.0f, nan, -2.0f};  // max and min: a NaN reference, which NaN matches (any NaN) and nothing else
  for (const auto& r : {reference_reduce<Max>(x.data(), 3), reference_reduce<Min>(x.data(), 3)}) {
    CHECK(matches(-nan, r, 0));
    CHECK_FALSE(matches(1.0f, r, 0));
    CHECK_FALSE(matches(std::numeric_limits<float>::infinity(), r, 0));
  }
  x = {-0.0f, -1.0f};
  ref = reference_reduce<Max>(x.data(), 2);
  CHECK(matches(-0.0f, ref, 0));
  CHECK_FALSE(matches(0.0f, ref, 0));
  x = {0.0f, 1.0f};
  ref = reference_reduce<Min>(x.data(), 2);
  CHECK(matches(0.0f, ref, 0));
  CHECK_FALSE(matches(-0.0f, ref, 0));
}

TEST_CASE("min, max and product references, each naming its operator", "[reference]") {
  std::vector<double> x = {3.0, -2.0, 7.5, 0.5};
  CHECK(reference_reduce<Min>(x.data(), x.size()).value == -2.0);
  CHECK(reference_reduce<Max>(x.data(), x.size()).value == 7.5);
  auto p = reference_reduce<Product>(x.data(), x.size());
  CHECK(std::fabs(p.precise - (-22.5L)) <= p.error + 1e-15L);
  std::vector<std::int32_t> empty;
  CHECK(reference_reduce<Min>(empty.data(), 0).value == std::numeric_limits<std::int32_t>::max());
  CHECK(reference_sum(x.data(), x.size()).operation == OpKind::Sum);
  CHECK(p.operation == OpKind::Product);
  CHECK(reference_reduce<Min>(x.data(), x.size()).operation == OpKind::Min);
  CHECK(reference_reduce<Max>(x.data(), x.size()).operation == OpKind::Max);
  CHECK(reference_sum(x.data(), x.size()).underflow == 0);  // a sum's bound is unchanged
  // Chapter 10 gathers references from its ranks as bytes.
  STATIC_REQUIRE(std::is_trivially_copyable_v<Reference<float>>);
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
  CHECK(refusal(std::vector<float>(4, 3e38f)).find("the sum does not fit in float") != std::string::npos);
  CHECK(refusal(std::vector<double>(4, 1e308)).find("does not fit in double") != std::string::npos);
  // Cancelling terms do not help: adding the positive ones first overflows.
  CHECK(refusal(std::vector<float>{3e38f, 3e38f, -3e38f, -3e38f}) != "");
  // Large but safe: every order stays finite.
  CHECK(refusal(std::vector<float>{1e38f, 1e38f, 1e38f}) == "");
  CHECK(refusal(std::vector<float>{std::numeric_limits<float>::max()}) == "");
  CHECK(refusal(std::vector<double>(4, 1e307)) == "");
}

TEST_CASE("a product that overflows the type, or even long double's range, is refused", "[reference]") {
  std::vector<float> x = {1e30f, 1e30f};
  CHECK_THROWS_AS(reference_reduce<Product>(x.data(), x.size()), InputError);
  std::vector<double> past_long_double(20, 1e300);
  past_long_double.insert(past_long_double.end(), 20, 1e-300);
  CHECK_THROWS_AS(reference_reduce<Product>(past_long_double.data(), past_long_double.size()), InputError);
  std::vector<float> y = {1e30f, 1e30f, 1e-30f};
  CHECK(std::fabs(reference_reduce<Product>(y.data(), y.size()).value - 1e30f) <= 1e24f);
  std::vector<float> big = {3e38f, 3e38f};
  CHECK(reference_reduce<Max>(big.data(), big.size()).value == 3e38f);  // min and max never overflow
}

namespace {
// The product of `x` computed left to right in T, as chapter 01's loop does.
template <typename T> T loop_product(const std::vector<T>& x) {
  T p = 1;
  for (T v : x) p *= v;
  return p;
}
}  // namespace

TEMPLATE_TEST_CASE("a product that overflows on the way is unchecked, with the reason", "[reference]", float, double) {
  using T = TestType;
  const T big = std::numeric_limits<T>::max() / 2;
  // big * 10 overflows; the exact product, big, fits. The loop's result is infinite, and not wrong.
  for (const auto& x : {std::vector<T>{big, T(10), T(0.1)}, std::vector<T>{big, T(10), T(0), T(3)}}) {
    const auto ref = reference_reduce<Product>(x.data(), x.size());
    const auto tol = tolerance(ref, x.size() - 1);
    INFO(describe(loop_product(x), ref, tol));
    CHECK_FALSE(std::isfinite(loop_product(x)));  // inf, or NaN after the zero
    CHECK_FALSE(bound_says_something(ref, tol));
    CHECK(unchecked_reason(ref, tol, x.size() - 1).find("a partial product of the loop") != std::string::npos);
  }
  // The same factors in an order whose partial products fit are checked.
  const std::vector<T> fits = {T(0.1), T(10), big};
  const auto ref = reference_reduce<Product>(fits.data(), fits.size());
  const auto tol = tolerance(ref, fits.size() - 1);
  CHECK(unchecked_reason(ref, tol, fits.size() - 1) == "");
  CHECK(matches(loop_product(fits), ref, tol));
}

TEMPLATE_TEST_CASE("a product that underflows on the way is checked within what underflow loses", "[reference]", float,
                   double) {
  using T = TestType;
  // Halvings down to 64 times the smallest subnormal, then 100,000 factors of 0.9999: among the
  // subnormals 64 * 0.9999 rounds back to 64, so the loop stalls there while the exact product
  // falls to 0.003 of the smallest subnormal. The relative bound alone, gamma(n-1) |P|, failed it.
  const int halvings = std::numeric_limits<T>::digits - std::numeric_limits<T>::min_exponent - 6;
  std::vector<T> x(static_cast<std::size_t>(halvings), T(0.5));
  x.insert(x.end(), 100000, T(0.9999));
  const T loop = loop_product(x);
  const T subnormal = std::numeric_limits<T>::denorm_min();
  CHECK(loop == 64 * subnormal);
  const auto ref = reference_reduce<Product>(x.data(), x.size());
  const auto tol = tolerance(ref, x.size() - 1);
  INFO(describe(loop, ref, tol));
  CHECK(std::fabs(loop - ref.precise) > gamma_bound<T>(x.size() - 1) * ref.magnitude);  // past the relative bound
  CHECK(bound_says_something(ref, tol));  // below the smallest normal: still a check
  CHECK(matches(loop, ref, tol));
  // Any result of normal size is still wrong.
  for (T wrong : {T(1), T(1e-30), std::numeric_limits<T>::min()}) CHECK_FALSE(matches(wrong, ref, tol));

  // Tiny factors, then huge ones: the loop's partial products vanish to 0 while the exact product
  // is 1. Underflow's loss, carried through the huge factors, may be anything: unchecked, and why.
  const T tiny = std::sqrt(std::numeric_limits<T>::min()) / 1024, huge = 1 / tiny;
  const std::vector<T> lost = {tiny, tiny, tiny, huge, huge, huge};
  const auto lost_ref = reference_reduce<Product>(lost.data(), lost.size());
  const auto lost_tol = tolerance(lost_ref, lost.size() - 1);
  CHECK(loop_product(lost) == 0);
  CHECK(unchecked_reason(lost_ref, lost_tol, lost.size() - 1).find("partial products underflow") != std::string::npos);
}

TEST_CASE("parallel_chunks runs every chunk once, on the calling thread when no thread can be started", "[reference]") {
  // A child process (as nobody where the test runs as root, which ignores the limit) limits itself
  // to one process, as `prlimit --nproc` does, and runs the chunks.
  std::fflush(nullptr);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(77);
    const struct rlimit one = {1, 1};
    if (::setrlimit(RLIMIT_NPROC, &one) != 0) ::_exit(77);
    std::vector<std::tuple<unsigned, std::size_t, std::size_t, std::thread::id>> calls, expected;
    parallel_chunks(1000, 8, [&](std::size_t b, std::size_t e, unsigned w) {
      calls.emplace_back(w, b, e, std::this_thread::get_id());
    });
    for (unsigned w = 0; w < 8; ++w) expected.emplace_back(w, w * 125, w * 125 + 125, std::this_thread::get_id());
    int status = calls == expected ? 0 : 1;
    // The whole reference on an input of two workers' size, and an exception from a chunk.
    const auto x = generate_input<std::int32_t>(std::size_t(3) << 20, 5);
    std::int64_t s = 0;
    for (auto v : x) s += v;
    if (reference_sum(x.data(), x.size()).value != static_cast<std::int32_t>(s)) status = 2;
    try {
      parallel_chunks(100, 4, [](std::size_t, std::size_t, unsigned w) {
        if (w == 2) throw std::runtime_error("chunk 2");
      });
      status = 3;
    } catch (const std::runtime_error&) {
    }
    ::_exit(status);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  INFO("the child " << (WIFSIGNALED(status) ? "died of signal " : "exited with ")
                    << (WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status)));
  if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
    WARN("could not take the identity of nobody or limit the processes: not tested");
    return;
  }
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("parallel_chunks carries an exception from a worker thread back to its caller", "[reference]") {
  // Not std::terminate: an overflow check throws on a worker thread (03 --rows, 2^21 floats).
  for (unsigned thrower : {0u, 1u, 3u}) {
    INFO("chunk " << thrower << " throws");
    std::vector<int> runs(4, 0);
    try {
      parallel_chunks(1000, 4, [&](std::size_t, std::size_t, unsigned w) {
        ++runs[w];
        if (w == thrower || w == 3) throw InputError("chunk " + std::to_string(w));
      });
      FAIL("nothing was thrown");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()) == "chunk " + std::to_string(thrower));  // the lowest chunk's, on any thread
    }
    CHECK(runs == std::vector<int>(4, 1));  // every thread was joined, every chunk ran once
  }
}
