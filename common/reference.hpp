// The CPU reference every result is checked against, and the error bound that decides whether a
// floating-point result is right.
//
// Integers: exact, wrapping modulo 2^32 as the GPU's adds do (Reference::wrapped says it happened).
// Floating point: summed pairwise in a wider type, with a bound on the reference's own error.
//
// The bound of a computed sum (Higham, "Accuracy and Stability of Numerical Algorithms", 4.2): if
// every element passes through at most `depth` rounded additions on its way to the result,
//     |computed - exact| <= gamma(depth) * sum |x_i|,   gamma(k) = k*u / (1 - k*u),
// with u the unit roundoff (half the machine epsilon). A loop has depth n - 1, a balanced tree
// ceil(log2 n); each chapter states the depth of its order. min and max are compared exactly;
// products have a bound of their own (reference_product).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "ops.hpp"

namespace reduction {

// How many of the CPU's cores to use on n elements: billions are made and checked in seconds.
inline unsigned cpu_workers(std::size_t n) {
  constexpr std::size_t kMinPerWorker = std::size_t(1) << 20;  // below this, threads cost more than they save
  unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::clamp<std::size_t>(n / kMinPerWorker, 1, hw));
}

// Calls fn(begin, end, worker) on its own thread for each of `workers` contiguous chunks of [0, n).
// Where a thread cannot be started, the remaining chunks run on the calling thread: only the time
// changes. After every join, an exception from fn is rethrown here (the lowest chunk's, as on one
// thread), never std::terminate.
template <typename Fn> void parallel_chunks(std::size_t n, unsigned workers, Fn fn) {
  if (workers <= 1) {
    fn(std::size_t(0), n, 0u);
    return;
  }
  const std::size_t per = (n + workers - 1) / workers;
  std::vector<std::exception_ptr> failures(workers);
  auto chunk = [&](unsigned w) {
    try {
      const std::size_t begin = std::min(n, w * per), end = std::min(n, begin + per);
      fn(begin, end, w);
    } catch (...) {
      failures[w] = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  unsigned started = 0;  // chunks 0 .. started - 1 run on threads
  try {
    threads.reserve(workers);
    for (; started < workers; ++started) threads.emplace_back(chunk, started);
  } catch (const std::exception&) {  // std::system_error (EAGAIN), or std::bad_alloc for its state
  }
  for (unsigned w = started; w < workers; ++w) chunk(w);
  for (auto& t : threads) t.join();
  for (const auto& failure : failures)
    if (failure) std::rethrow_exception(failure);
}

template <typename T> struct Reference {
  T value{};                  // the reference in the data's own type (integers: exact, wrapped)
  long double precise = 0;    // the reference in higher precision (equals value for integers)
  long double magnitude = 0;  // scale of rounding errors: sum |x_i| for sums, |result| for products
  long double error = 0;      // bound on |precise - exact|
  bool exact = false;         // compare with == (integers, min, max)
  bool wrapped = false;       // integer result overflowed 32 bits and wrapped around
  OpKind operation = OpKind::Sum;  // what it computes
  // Products only (reference_product). `underflow`: what gradual underflow may add to the error,
  // part of tolerance(). `overflowing_partial`: the magnitude of a partial product that may overflow
  // T (the result cannot be checked), else 0. All plain values: chapter 10 sends references as bytes.
  long double underflow = 0;
  long double overflowing_partial = 0;
};

// gamma(k) = k*u / (1 - k*u) for unit roundoff u of type F; infinity once k*u >= 1.
template <typename F> long double gamma_bound(std::size_t k) {
  const long double u = std::numeric_limits<F>::epsilon() / 2;
  const long double ku = static_cast<long double>(k) * u;
  return ku < 1 ? ku / (1 - ku) : std::numeric_limits<long double>::infinity();
}

namespace detail {

template <typename T> using WideFloat = std::conditional_t<std::is_same_v<T, float>, double, long double>;

constexpr std::size_t kLeaf = 1024;  // sequential leaves of the pairwise reference sum

template <typename W, typename T> W pairwise_sum(const T* x, std::size_t n) {
  if (n <= kLeaf) {
    W s = 0;
    for (std::size_t i = 0; i < n; ++i) s += static_cast<W>(x[i]);
    return s;
  }
  std::size_t half = n / 2;
  return pairwise_sum<W>(x, half) + pairwise_sum<W>(x + half, n - half);
}

// Depth of pairwise_sum over n elements split among `workers`, with the levels that join them.
inline std::size_t pairwise_depth(std::size_t n, unsigned workers) {
  std::size_t per = (n + workers - 1) / workers;
  std::size_t halvings = per > kLeaf ? ceil_log2((per + kLeaf - 1) / kLeaf) : 0;
  return kLeaf + halvings + ceil_log2(workers);
}

// Refuses (InputError) a `what` ("sum") whose partial results, up to `size`, may leave T's range.
template <typename T> void check_fits(const char* what, long double size, const char* measure) {
  if (size <= std::numeric_limits<T>::max()) return;
  std::ostringstream message;
  message << "the " << what << " does not fit in " << type_name(data_type_of<T>()) << ": " << measure << " is "
          << size << ", above the largest " << type_name(data_type_of<T>()) << ", "
          << std::numeric_limits<T>::max();
  throw InputError(message.str());
}

}  // namespace detail

template <typename T> Reference<T> reference_sum(const T* x, std::size_t n) {
  Reference<T> ref;
  const unsigned workers = cpu_workers(n);
  if constexpr (std::is_integral_v<T>) {
    // Unsigned arithmetic wraps by definition; the low 32 bits are the GPU's result, and the whole,
    // read as signed, the true sum for any n below 2^32.
    std::vector<std::uint64_t> partial(workers, 0);
    parallel_chunks(n, workers, [&](std::size_t b, std::size_t e, unsigned w) {
      std::uint64_t s = 0;
      for (std::size_t i = b; i < e; ++i) s += static_cast<std::uint64_t>(static_cast<std::int64_t>(x[i]));
      partial[w] = s;
    });
    std::uint64_t sum = 0;
    for (auto p : partial) sum += p;
    const auto total = static_cast<std::int64_t>(sum);
    ref.value = static_cast<T>(static_cast<std::uint32_t>(sum));
    ref.precise = static_cast<long double>(ref.value);
    ref.exact = true;
    ref.wrapped = total != static_cast<std::int64_t>(ref.value);
  } else {
    using W = detail::WideFloat<T>;
    std::vector<W> partial(workers, 0), partial_abs(workers, 0);
    parallel_chunks(n, workers, [&](std::size_t b, std::size_t e, unsigned w) {
      partial[w] = detail::pairwise_sum<W>(x + b, e - b);
      W a = 0;
      for (std::size_t i = b; i < e; ++i) a += std::fabs(static_cast<W>(x[i]));
      partial_abs[w] = a;
    });
    W total = 0, abs_total = 0;
    for (unsigned w = 0; w < workers; ++w) total += partial[w], abs_total += partial_abs[w];
    // Every partial sum, in any order, is at most sum |x|: below T's largest value no order can
    // overflow. Past it some orders may and others not, and an infinite result would say which
    // order a kernel chose, not whether it is right: such an input is refused.
    detail::check_fits<T>("sum", abs_total, "the sum of the elements' magnitudes");
    ref.precise = total;
    ref.value = static_cast<T>(total);
    // sum |x| itself is computed sequentially per worker: allow for its own rounding error.
    ref.magnitude = abs_total * (1 + gamma_bound<W>(n));
    ref.error = gamma_bound<W>(detail::pairwise_depth(n, workers)) * ref.magnitude;
  }
  return ref;
}

// Product reference for float and double data: the product of x[0..n) left to right, the order
// of chapter 01's loop, in long double, with the bound a product computed in T in that order obeys.
//
// The bound. With gradual underflow a multiplication rounds as (Higham, 2.8)
//     fl(a*b) = a*b*(1 + d) + e,   |d| <= u,  |e| <= s/2,  d*e = 0,
// with u T's unit roundoff and s its smallest subnormal. The loop's partial products
// q_1 = x_1, q_k = fl(q_{k-1} x_k) then unroll to
//     q_n = P * prod_k (1 + d_k)  +  sum_k e_k * prod_{i>k} x_i (1 + d_i),    P = x_1 ... x_n,
// so that
//     |q_n - P| <= gamma(n-1) |P|  +  (s/2) (1 + gamma(n-1)) A,   A = sum_{k=2..n} |x_{k+1} ... x_n|.
// The first term holds in any order (each multiplication scales the whole product); the second is
// what underflow may lose, carried through the factors that follow. A is accumulated with the
// product: A_2 = 1, A_k = A_{k-1} |x_k| + 1.
//
// Overflow is not bounded: a partial product past T's largest value makes the loop's result
// infinite (or NaN after a zero), whatever the final product. Such a result is not compared
// (overflowing_partial); a final product that does not fit T is refused, as for sums.
template <typename T> Reference<T> reference_product(const T* x, std::size_t n) {
  static_assert(std::is_floating_point_v<T>);
  using L = long double;
  L p = 1, peak = 0, amplification = 0;  // peak: the largest |partial product|; amplification: A
  for (std::size_t i = 0; i < n; ++i) {
    p *= static_cast<L>(x[i]);
    peak = std::max(peak, std::fabs(p));
    if (i > 0) amplification = amplification * std::fabs(static_cast<L>(x[i])) + 1;
  }
  if (!std::isfinite(p))  // even long double overflowed: T's partial products did long before
    throw InputError(std::string("the product cannot be checked: its partial products, left to right, leave even ") +
                     "long double's range (a " + type_name(data_type_of<T>()) + " loop overflows long before)");
  detail::check_fits<T>("product", std::fabs(p), "its magnitude");

  Reference<T> ref;
  ref.operation = OpKind::Product;
  ref.precise = p;
  ref.value = static_cast<T>(p);
  // The reference's own error: the bound above for long double, with the rounding of A's own.
  const L g = gamma_bound<L>(n), amplified = amplification * (1 + gamma_bound<L>(2 * n));
  ref.error = g * std::fabs(p) + std::numeric_limits<L>::denorm_min() * (1 + g) * amplified;
  ref.magnitude = std::fabs(p) + ref.error;
  const L g_t = gamma_bound<T>(n ? n - 1 : 0);
  ref.underflow = static_cast<L>(std::numeric_limits<T>::denorm_min()) / 2 * (1 + g_t) * amplified;
  // The loop's partial products lie within the same bound of the exact ones: near T's largest
  // value, one of them may overflow. (With gamma infinite the bound says nothing anyway.)
  const L largest = std::numeric_limits<T>::max();
  if (std::isfinite(g_t) && peak * (1 + g) * (1 + g_t) + ref.underflow > largest) ref.overflowing_partial = peak;
  return ref;
}

template <typename Op, typename T> Reference<T> reference_reduce(const T* x, std::size_t n, Op op = {}) {
  if constexpr (std::is_same_v<Op, Sum>) {
    return reference_sum(x, n);
  } else if constexpr (std::is_same_v<Op, Product> && !std::is_integral_v<T>) {
    return reference_product(x, n);
  } else {
    // Integer products wrap exactly like the GPU's; min and max pick an element and never round.
    T acc = Op::template identity<T>();
    for (std::size_t i = 0; i < n; ++i) acc = op(acc, x[i]);
    Reference<T> ref;
    ref.operation = std::is_same_v<Op, Product> ? OpKind::Product : std::is_same_v<Op, Min> ? OpKind::Min : OpKind::Max;
    ref.value = acc;
    ref.precise = static_cast<long double>(acc);
    ref.exact = true;
    return ref;
  }
}

// The largest difference from the reference of a result computed in T whose elements pass through
// at most `depth` rounded operations (n - 1 for a product, in any order); 0 where it is exact.
template <typename T> long double tolerance(const Reference<T>& ref, std::size_t depth) {
  if (ref.exact) return 0;
  return gamma_bound<T>(depth) * ref.magnitude + ref.error + ref.underflow;
}

// True if `result` agrees with the reference: where the reference is exact (integers, min and
// max), the same value and sign (-0 is not +0), or NaN for NaN; within `tol` otherwise, NaN never.
template <typename T> bool matches(T result, const Reference<T>& ref, long double tol) {
  if (ref.exact && std::isnan(ref.precise)) return std::isnan(static_cast<long double>(result));
  if (ref.exact) return result == ref.value && std::signbit(result) == std::signbit(ref.value);
  if (std::isnan(result) || std::isnan(ref.precise)) return false;
  return std::fabs(static_cast<long double>(result) - ref.precise) <= tol;
}

// Whether a tolerance can tell a right result from a wrong one. gamma(k) grows without limit as k u
// nears 1: a float loop over 2^24 elements has a bound larger than the sum itself, which 0 would
// "pass". A bound at least as large as the magnitude it scales says nothing. A product that
// vanishes below T's smallest normal number is measured against that number instead: its bound
// then says "this vanished too", and a result of normal size still fails.
template <typename T> bool bound_says_something(const Reference<T>& ref, long double tol) {
  if (ref.exact) return true;
  if (ref.overflowing_partial > 0 || !std::isfinite(tol)) return false;
  if (ref.underflow > 0) return tol < std::max(ref.magnitude, static_cast<long double>(std::numeric_limits<T>::min()));
  return ref.magnitude == 0 || tol < ref.magnitude;
}

// The reason a result cannot be checked against `tol`, or "" when it can.
template <typename T> std::string unchecked_reason(const Reference<T>& ref, long double tol, std::size_t depth) {
  const char* type = type_name(data_type_of<T>());
  if (ref.overflowing_partial > 0) {
    std::ostringstream why;
    why << "a partial product of the loop (x_1 ... x_k, left to right) reaches about "
        << static_cast<double>(ref.overflowing_partial) << ", near or past the largest " << type << " ("
        << static_cast<double>(std::numeric_limits<T>::max()) << "): computed in " << type
        << " it may become infinite, whatever the final product, so the result cannot be compared";
    return why.str();
  }
  if (bound_says_something(ref, tol)) return "";
  if (ref.underflow > 0 && !(ref.underflow < tol - ref.underflow)) {  // underflow's loss is most of the bound
    std::ostringstream why;
    why << "its partial products underflow: below the smallest normal " << type
        << " each multiplication may lose half a subnormal's spacing, and carried through the factors that follow, "
           "the loss may reach "
        << static_cast<double>(ref.underflow) << ", no smaller than the result's scale: it cannot tell right from wrong";
    return why.str();
  }
  return "its error bound, gamma(" + std::to_string(depth) +
         ") times the scale of the result (sum|x|, or |result| for a product), is no smaller than that scale: "
         "it cannot tell right from wrong";
}

}  // namespace reduction
