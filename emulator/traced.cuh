// Recording what a single-block kernel (chapters 03 to 05) does on the GPU, from its own source:
// for --trace and the tests, its kernel template is instantiated with Traced<V>, an element that
// carries its value and its dependency level and logs each load and store it takes part in, as the
// emulator's Checked<V> reports them (emulator.hpp). Barriers leave no trace: block_events.hpp finds
// the steps from the accesses.
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

using single_block::LoggedAccess;

struct Log {
  LoggedAccess* accesses;
  unsigned* count;   // accesses logged so far, possibly more than `capacity`: the host checks
  unsigned* orders;  // each thread's count of its own accesses
  unsigned capacity;
};

// Where the recorded launch logs, set by record() before it launches (one per translation unit).
static __device__ Log log_now;

// On the host (record()'s own copies of the elements) it logs nothing.
template <typename V>
__host__ __device__ void log_access(bool write, const volatile void* where, V value, std::uint32_t level) {
#ifdef __CUDA_ARCH__
  const void* at = const_cast<const void*>(where);
  const bool shared = __isShared(at);
  if (!shared && !__isGlobal(at)) return;  // a local copy: no memory access
  const std::uint64_t address =
      shared ? std::uint64_t(__cvta_generic_to_shared(at)) : reinterpret_cast<std::uint64_t>(at);
  LoggedAccess a{threadIdx.x, log_now.orders[threadIdx.x]++, write, shared, address, 0, level, 0};
  std::memcpy(&a.value_bits, &value, sizeof(V));
  const unsigned slot = atomicAdd(log_now.count, 1u);
  if (slot < log_now.capacity) log_now.accesses[slot] = a;
#endif
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
    traced::log_access(false, &other, value, level);
  }
  __host__ __device__ Traced& operator=(const Traced& other) {
    traced::log_access(false, &other, other.value, other.level);
    value = other.value;
    level = other.level;
    traced::log_access(true, this, value, level);
    return *this;
  }
  // By value, as Sum's operands are: `data[i] + data[j]` loads both, and so does `data[i] += data[j]`.
  friend __host__ __device__ Traced operator+(Traced a, Traced b) {
    return Traced(Sum{}(a.value, b.value), (a.level > b.level ? a.level : b.level) + 1);
  }
  __host__ __device__ Traced& operator+=(const Traced& other) { return *this = *this + other; }

  // What nvcc accepts for a plain T, Traced<T> takes too: `volatile` shared memory, a literal where
  // an element goes, and an element read into a plain variable (logged as a load).
  __host__ __device__ Traced(const volatile Traced& other) : value(other.value), level(other.level) {
    traced::log_access(false, &other, value, level);
  }
  __host__ __device__ Traced& operator=(const volatile Traced& other) { return *this = Traced(other); }
  __host__ __device__ void operator=(const Traced& other) volatile {
    traced::log_access(false, &other, other.value, other.level);
    value = other.value;
    level = other.level;
    traced::log_access(true, this, other.value, other.level);
  }
  template <typename U, typename = std::enable_if_t<std::is_arithmetic_v<U>>>
  __host__ __device__ Traced(U v) : value(static_cast<V>(v)), level(0) {}
  __host__ __device__ operator V() const {
    traced::log_access(false, this, value, level);
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
// `threads`, and returns its accesses (accesses_from(), block_events.hpp).
template <typename V, typename Kernel>
std::vector<single_block::Access> record(Kernel kernel, const std::vector<V>& input, unsigned threads) {
  const std::size_t n = input.size();
  DeviceBuffer<Traced<V>> data(std::vector<Traced<V>>(input.begin(), input.end())), result(1);
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
  std::vector<traced::LoggedAccess> logged = accesses.download();
  logged.resize(count);
  std::sort(logged.begin(), logged.end(), [](const auto& a, const auto& b) {
    return a.thread != b.thread ? a.thread < b.thread : a.order < b.order;
  });
  return single_block::accesses_from(logged, reinterpret_cast<std::uint64_t>(data.data()), n,
                                     reinterpret_cast<std::uint64_t>(result.data()), sizeof(Traced<V>));
}

}  // namespace reduction
