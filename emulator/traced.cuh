// Recording what a single-block kernel (chapters 03 to 05) does on the GPU, from its own source.
//
// For --trace and the tests, the chapter's kernel template is instantiated with Traced<V>: an
// element that carries its value and its dependency level (the additions on the longest path from
// the input to it), and logs each load and store it takes part in, as the emulator's Checked<V>
// reports them (emulator.hpp says which operations load and store). A copy between a function's
// own variables touches no memory and is not logged. Barriers leave no trace (the kernel is not
// touched): block_events.hpp finds the steps from the accesses.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "block_events.hpp"
#include "common/ops.hpp"
#include "common/gpu.cuh"

namespace reduction {

namespace traced {

// One access as the GPU logs it; record() below turns it into a single_block::Access.
struct LoggedAccess {
  std::uint32_t thread, order;  // order: the thread's own count of its accesses before this one
  std::uint32_t write, shared;
  std::uint64_t address;  // global: the address; shared: the offset in the block's shared memory
  std::uint64_t value_bits;
  std::uint32_t level, unused;
};

struct Log {
  LoggedAccess* accesses;
  unsigned* count;   // accesses logged so far, possibly more than `capacity`: the host checks
  unsigned* orders;  // each thread's count of its own accesses
  unsigned capacity;
};

// Where the recorded launch logs, set by record() before it launches (one per translation unit).
static __device__ Log log_now;

template <typename V>
__device__ void log_access(bool write, const void* where, V value, std::uint32_t level) {
  const bool shared = __isShared(where);
  if (!shared && !__isGlobal(where)) return;  // a local copy: no memory access
  LoggedAccess a;
  a.thread = threadIdx.x;
  a.order = log_now.orders[threadIdx.x]++;
  a.write = write;
  a.shared = shared;
  a.address = shared ? std::uint64_t(__cvta_generic_to_shared(where)) : reinterpret_cast<std::uint64_t>(where);
  a.value_bits = 0;
  std::memcpy(&a.value_bits, &value, sizeof(V));
  a.level = level;
  a.unused = 0;
  const unsigned slot = atomicAdd(log_now.count, 1u);
  if (slot < log_now.capacity) log_now.accesses[slot] = a;
}

}  // namespace traced

// An element of type V that logs its loads and stores (see the top of this file).
template <typename V>
struct Traced {
  V value;
  std::uint32_t level;

  Traced() = default;  // no initializer: a __shared__ array of Traced needs a trivial constructor
  __host__ __device__ explicit Traced(V v, std::uint32_t depth = 0) : value(v), level(depth) {}
  __host__ __device__ Traced(const Traced& other) : value(other.value), level(other.level) {
#ifdef __CUDA_ARCH__
    traced::log_access(false, &other, value, level);
#endif
  }
  __host__ __device__ Traced& operator=(const Traced& other) {
#ifdef __CUDA_ARCH__
    traced::log_access(false, &other, other.value, other.level);
#endif
    value = other.value;
    level = other.level;
#ifdef __CUDA_ARCH__
    traced::log_access(true, this, value, level);
#endif
    return *this;
  }
  // By value, as Sum's operands are: `data[i] + data[j]` loads both, and so does `data[i] += data[j]`.
  friend __host__ __device__ Traced operator+(Traced a, Traced b) {
    return Traced(Sum{}(a.value, b.value), (a.level > b.level ? a.level : b.level) + 1);
  }
  __host__ __device__ Traced& operator+=(const Traced& other) { return *this = *this + other; }

  // What nvcc accepts for a plain T, Traced<T> takes too: `volatile` shared memory (a warp finish
  // written the old way), a literal or a plain variable where an element goes, and an element read
  // into a plain variable (logged as a load).
  __host__ __device__ Traced(const volatile Traced& other) : value(other.value), level(other.level) {
#ifdef __CUDA_ARCH__
    traced::log_access(false, const_cast<const Traced*>(&other), value, level);
#endif
  }
  __host__ __device__ Traced& operator=(const volatile Traced& other) { return *this = Traced(other); }
  __host__ __device__ void operator=(const Traced& other) volatile {
#ifdef __CUDA_ARCH__
    traced::log_access(false, &other, other.value, other.level);
#endif
    value = other.value;
    level = other.level;
#ifdef __CUDA_ARCH__
    traced::log_access(true, const_cast<const Traced*>(this), other.value, other.level);
#endif
  }
  template <typename U, typename = std::enable_if_t<std::is_arithmetic_v<U>>>
  __host__ __device__ Traced(U v) : value(static_cast<V>(v)), level(0) {}
  __host__ __device__ operator V() const {
#ifdef __CUDA_ARCH__
    traced::log_access(false, this, value, level);
#endif
    return value;
  }
  template <typename U, typename = std::enable_if_t<std::is_arithmetic_v<U>>>
  friend __host__ __device__ Traced operator+(Traced a, U b) {
    return a + Traced(b);
  }
  template <typename U, typename = std::enable_if_t<std::is_arithmetic_v<U>>>
  friend __host__ __device__ Traced operator+(U a, Traced b) {
    return Traced(a) + b;
  }
};

// Runs `kernel`, a chapter's kernel instantiated with Traced<V>, on one row `input` in a block of
// `threads`, and returns its accesses: each thread's in its order, the elements named by their
// index in the input (data), in the shared array (partial, counted from the lowest shared address
// touched: element 0, which thread 0 owns) or in the result.
template <typename V, typename Kernel>
std::vector<single_block::Access> record(Kernel kernel, const std::vector<V>& input, unsigned threads) {
  const std::size_t n = input.size();
  std::vector<Traced<V>> elements;
  for (V v : input) elements.push_back(Traced<V>(v));
  DeviceBuffer<Traced<V>> data(elements), result(1);
  const unsigned capacity = 16 * unsigned(n) + 64;  // these kernels log at most 3 per addition and 2 per copy
  DeviceBuffer<traced::LoggedAccess> accesses(capacity);
  DeviceBuffer<unsigned> counters(std::vector<unsigned>(1 + threads, 0));
  const traced::Log log{accesses.data(), counters.data(), counters.data() + 1, capacity};
  CUDA_CHECK(cudaMemcpyToSymbol(traced::log_now, &log, sizeof log));
  kernel<<<1, threads>>>(data.data(), n, result.data());
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());

  const unsigned count = counters.download_one();
  if (count > capacity)
    throw std::runtime_error("the recorded kernel made " + std::to_string(count) + " accesses, more than the " +
                             std::to_string(capacity) + " there is room for");
  std::vector<traced::LoggedAccess> logged(count);
  if (count)
    CUDA_CHECK(
        cudaMemcpy(logged.data(), accesses.data(), count * sizeof(traced::LoggedAccess), cudaMemcpyDeviceToHost));
  std::sort(logged.begin(), logged.end(), [](const auto& a, const auto& b) {
    return a.thread != b.thread ? a.thread < b.thread : a.order < b.order;
  });
  return single_block::accesses_from(logged, reinterpret_cast<std::uint64_t>(data.data()), n,
                                     reinterpret_cast<std::uint64_t>(result.data()), sizeof(Traced<V>));
}

}  // namespace reduction
