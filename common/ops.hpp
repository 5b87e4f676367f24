// Reduction operators with their identities, usable on the CPU and in kernels.
//
// A reduction needs an associative operator and its identity (the value e with x op e == x):
// the identity is where an accumulator starts and what pads a partial block.
// Integer sum and product wrap around modulo 2^32, as the GPU's 32-bit integer units do; the
// arithmetic goes through uint32_t because signed overflow is undefined behaviour in C++.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

#if defined(__CUDACC__)
#define REDUCTION_HD __host__ __device__ __forceinline__
#else
#define REDUCTION_HD inline
#endif

namespace reduction {

namespace detail {
template <typename T> REDUCTION_HD T wrapping_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <typename T> REDUCTION_HD T wrapping_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return a * b;
  }
}
}  // namespace detail

struct Sum {
  static constexpr const char* name = "sum";
  template <typename T> static REDUCTION_HD T identity() { return T(0); }
  template <typename T> REDUCTION_HD T operator()(T a, T b) const { return detail::wrapping_add(a, b); }
};

struct Product {
  static constexpr const char* name = "product";
  template <typename T> static REDUCTION_HD T identity() { return T(1); }
  template <typename T> REDUCTION_HD T operator()(T a, T b) const { return detail::wrapping_mul(a, b); }
};

namespace detail {
// The largest and lowest values of T: +inf and -inf for floating point, the extreme values for
// integers (which have no infinity). Written without std::numeric_limits, whose functions are
// host-only and would need nvcc's --expt-relaxed-constexpr in kernels.
template <typename T> REDUCTION_HD T highest() {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(HUGE_VAL);  // +infinity
  } else {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(~U(0)) >> (std::is_signed_v<T> ? 1 : 0));
  }
}
template <typename T> REDUCTION_HD T lowest() {
  if constexpr (std::is_floating_point_v<T>) return -static_cast<T>(HUGE_VAL);  // -infinity
  else if constexpr (std::is_signed_v<T>) return static_cast<T>(-highest<T>() - 1);
  else return T(0);
}
}  // namespace detail

// min and max start from the value no element can beat.
struct Min {
  static constexpr const char* name = "min";
  template <typename T> static REDUCTION_HD T identity() { return detail::highest<T>(); }
  template <typename T> REDUCTION_HD T operator()(T a, T b) const { return b < a ? b : a; }
};

struct Max {
  static constexpr const char* name = "max";
  template <typename T> static REDUCTION_HD T identity() { return detail::lowest<T>(); }
  template <typename T> REDUCTION_HD T operator()(T a, T b) const { return a < b ? b : a; }
};

enum class OpKind { Sum, Product, Min, Max };

inline const char* op_name(OpKind op) {
  switch (op) {
    case OpKind::Sum: return Sum::name;
    case OpKind::Product: return Product::name;
    case OpKind::Min: return Min::name;
    case OpKind::Max: return Max::name;
  }
  return "?";
}

inline std::optional<OpKind> parse_op(const std::string& s) {
  for (OpKind op : {OpKind::Sum, OpKind::Product, OpKind::Min, OpKind::Max})
    if (s == op_name(op)) return op;
  return std::nullopt;
}

// Calls f(Op{}) with Op the operator type that `op` names.
template <typename F> decltype(auto) dispatch_op(OpKind op, F&& f) {
  switch (op) {
    case OpKind::Sum: return f(Sum{});
    case OpKind::Product: return f(Product{});
    case OpKind::Min: return f(Min{});
    default: return f(Max{});
  }
}

}  // namespace reduction
