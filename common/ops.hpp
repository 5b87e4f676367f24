// What a kernel needs from the toolkit: the reduction operators, on the CPU and in kernels; the
// element types; the two failures a program reports; and, with the CUDA runtime, what a launcher
// needs: CUDA_CHECK and scratch memory.
//
// A reduction needs an associative operator and its identity (e with x op e == x): where an
// accumulator starts, and what pads a partial block. Integer sum and product wrap modulo 2^32 as
// the GPU's do, through unsigned arithmetic: signed overflow is undefined behaviour in C++.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
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

// The number an element holds: T itself. (The CPU emulator's element, Checked<V>, holds a V.)
template <typename T> struct Scalar { using type = T; };
// An element of the same kind as T that holds a U: U itself. (The emulator's: Checked<U>.)
template <typename T, typename U> struct Rebind { using type = U; };

namespace detail {
// The largest and lowest values of T (+-inf for floating point), without std::numeric_limits,
// whose functions are host-only.
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

// min and max of floating point: NaN if either operand is NaN (as NumPy's max), -0 below +0 (IEEE
// 754-2019 minimum and maximum), so that no order of the operands changes a result, bits included.
// The GPU's fmin and fmax order the zeros so but pass over a NaN; the host's may return either zero.
template <typename T> REDUCTION_HD T minimum(T a, T b) {
  if constexpr (!std::is_floating_point_v<T>) return b < a ? b : a;
  else if (a != a || b != b) return a + b;  // NaN
#ifdef __CUDA_ARCH__
  else return fmin(a, b);
#else
  else return b < a || (a == b && std::signbit(b)) ? b : a;
#endif
}
template <typename T> REDUCTION_HD T maximum(T a, T b) {
  if constexpr (!std::is_floating_point_v<T>) return a < b ? b : a;
  else if (a != a || b != b) return a + b;  // NaN
#ifdef __CUDA_ARCH__
  else return fmax(a, b);
#else
  else return a < b || (a == b && std::signbit(a)) ? b : a;
#endif
}

// min and max start from the value no element can beat.
struct Min {
  static constexpr const char* name = "min";
  template <typename T> static REDUCTION_HD T identity() { return T(detail::highest<typename Scalar<T>::type>()); }
  template <typename T> REDUCTION_HD T operator()(T a, T b) const { return minimum(a, b); }
};

struct Max {
  static constexpr const char* name = "max";
  template <typename T> static REDUCTION_HD T identity() { return T(detail::lowest<typename Scalar<T>::type>()); }
  template <typename T> REDUCTION_HD T operator()(T a, T b) const { return maximum(a, b); }
};

enum class OpKind { Sum, Product, Min, Max };

// Calls f(Op{}) with Op the operator type that `op` names.
template <typename F> decltype(auto) dispatch_op(OpKind op, F&& f) {
  switch (op) {
    case OpKind::Sum: return f(Sum{});
    case OpKind::Product: return f(Product{});
    case OpKind::Min: return f(Min{});
    default: return f(Max{});
  }
}

inline const char* op_name(OpKind op) {
  return dispatch_op(op, [](auto operation) { return decltype(operation)::name; });
}

inline std::optional<OpKind> parse_op(const std::string& s) {
  for (OpKind op : {OpKind::Sum, OpKind::Product, OpKind::Min, OpKind::Max})
    if (s == op_name(op)) return op;
  return std::nullopt;
}

// The element types the chapters reduce, and the switch from a run-time type name to a type.
enum class DataType { Int, Float, Double };

inline const char* type_name(DataType t) {
  static const char* const names[] = {"int", "float", "double"};
  return names[static_cast<int>(t)];
}

template <typename T> constexpr DataType data_type_of();
template <> constexpr DataType data_type_of<std::int32_t>() { return DataType::Int; }
template <> constexpr DataType data_type_of<float>() { return DataType::Float; }
template <> constexpr DataType data_type_of<double>() { return DataType::Double; }

template <typename T> struct TypeTag { using type = T; };

// Calls f(TypeTag<T>{}) with T the C++ type that `t` names.
template <typename F> decltype(auto) dispatch_type(DataType t, F&& f) {
  switch (t) {
    case DataType::Int: return f(TypeTag<std::int32_t>{});
    case DataType::Float: return f(TypeTag<float>{});
    default: return f(TypeTag<double>{});
  }
}

// ceil(log2(n)) for n >= 1: the number of levels of a balanced reduction tree over n leaves.
inline std::size_t ceil_log2(std::size_t n) {
  std::size_t levels = 0;
  while ((std::size_t(1) << levels) < n) ++levels;
  return levels;
}

// The failures a program reports (run_guarded, common/program.hpp): bad input, status 2; a failed
// CUDA call (CUDA_CHECK, below), status 3.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct CudaFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace reduction

// What a launcher needs, under nvcc or after <cuda_runtime.h>. Every runtime call is wrapped in
// CUDA_CHECK and every launch is followed by CUDA_CHECK_LAUNCH(): a failure prints the call, file
// and line to stderr and throws CudaFailure (not exit(): destructors free device memory, and tests
// report a failed assertion).
#if defined(__CUDACC__) || defined(__CUDA_RUNTIME_H__)
#include <cuda_runtime.h>

namespace reduction {

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);  // gpu.cu

inline void check_cuda(cudaError_t code, const char* call, const char* file, int line) {
  if (code != cudaSuccess) throw_cuda_error(code, call, file, line);
}
#define CUDA_CHECK(call) ::reduction::check_cuda((call), #call, __FILE__, __LINE__)
// A launch reports configuration errors (too many threads, too much shared memory) only through
// cudaGetLastError; errors inside the kernel surface at the next synchronizing call.
#define CUDA_CHECK_LAUNCH() ::reduction::check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

// Scratch memory for launchers (block partials, a library's temporary storage), grown on demand
// and reused, so that allocation stays out of the timed region after warm-up.
class DeviceScratch {
 public:
  DeviceScratch() = default;
  ~DeviceScratch() {
    if (ptr_) cudaFree(ptr_);
  }
  DeviceScratch(const DeviceScratch&) = delete;
  DeviceScratch& operator=(const DeviceScratch&) = delete;
  void* get(std::size_t bytes) {
    if (bytes > bytes_) {
      if (ptr_) CUDA_CHECK(cudaFree(ptr_));
      ptr_ = nullptr;
      CUDA_CHECK(cudaMalloc(&ptr_, bytes));
      bytes_ = bytes;
    }
    return ptr_;
  }
  template <typename T> T* get_as(std::size_t count) { return static_cast<T*>(get(count * sizeof(T))); }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// The launcher of the multi-block chapters (06 to 09): reduces `input`, left unchanged, into
// result[0] with blocks of `block` threads, taking any temporary memory from `scratch`.
template <typename T>
using MultiBlockLaunch = void (*)(const T* input, std::size_t n, T* result, int block, DeviceScratch& scratch,
                                  cudaStream_t stream);

}  // namespace reduction
#endif
