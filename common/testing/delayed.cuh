// Holding back some warps' stores, so that a missing barrier fails every time on the GPU.
//
// A kernel that reads another thread's store without a __syncthreads() between them often gets the
// value anyway: the warps of a block tend to run in step. With Delayed<V> as the element of a
// single-block kernel (03 to 05), a store to global or shared memory by a warp the test chose waits
// first: a correct kernel waits for it at its barrier, one without the barrier reads the old value.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "common/ops.hpp"
#include "common/gpu.cuh"

namespace reduction {

namespace delayed {
// The warps (bit w: warp w of the block) whose stores wait, set by hold_back() before a launch.
static __device__ std::uint32_t late_warps;
// About 0.1 ms at 2 GHz: far longer than the other warps take for a whole 2048-element tree, short
// enough not to slow the tests that share the GPU. Counted on the SM's clock: __nanosleep(t)
// promises only a sleep between 0 and 2t.
constexpr long long kDelayCycles = 200000;
}  // namespace delayed

inline void hold_back(std::uint32_t warps) { CUDA_CHECK(cudaMemcpyToSymbol(delayed::late_warps, &warps, sizeof warps)); }

template <typename V>
struct Delayed {
  V value;

  Delayed() = default;  // trivial: a __shared__ array of Delayed needs it
  __host__ __device__ explicit Delayed(V v) : value(v) {}
  Delayed(const Delayed& other) = default;
  __host__ __device__ Delayed& operator=(const Delayed& other) {
#ifdef __CUDA_ARCH__
    const V v = other.value;  // loaded before the wait: only the store is late
    if ((__isGlobal(this) || __isShared(this)) && (delayed::late_warps >> (threadIdx.x / 32) & 1u)) {
      const long long start = clock64();
      while (clock64() - start < delayed::kDelayCycles) {
      }
    }
    value = v;
#else
    value = other.value;
#endif
    return *this;
  }
  friend __host__ __device__ Delayed operator+(Delayed a, Delayed b) { return Delayed(Sum{}(a.value, b.value)); }
};

// Fills `words` of shared memory with -1, through a volatile pointer: nothing reads them, and the
// compiler would drop them otherwise.
__global__ void fill_shared_kernel(unsigned words) {
  extern __shared__ std::uint32_t shared_words[];
  volatile std::uint32_t* words_to_fill = shared_words;
  for (unsigned i = threadIdx.x; i < words; i += blockDim.x) words_to_fill[i] = 0xFFFFFFFFu;
}

// Leaves -1 in all of every multiprocessor's shared memory. What an earlier launch left there may be
// the very value a late store would write, and a missing barrier would give the right result. With
// -1, every stale read is below the partial sum it stands for (the tests' elements are positive).
inline void poison_shared_memory() {
  int device = 0, bytes = 0, multiprocessors = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaFuncSetAttribute(fill_shared_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  fill_shared_kernel<<<multiprocessors, 1024, bytes>>>(unsigned(bytes / sizeof(std::uint32_t)));
  CUDA_CHECK(cudaGetLastError());
}

// Runs a single-block kernel of Delayed<V> on each of `inputs` (one a run, so that global memory
// holds no earlier run's values) in one block of `threads`, the stores of `late` warps held back
// and shared memory poisoned, and counts the results that are not `expected[run]`.
template <typename V, typename Kernel>
int wrong_runs(Kernel kernel, const std::vector<std::vector<V>>& inputs, const std::vector<V>& expected,
               unsigned threads, std::uint32_t late) {
  hold_back(late);
  int wrong = 0;
  for (std::size_t run = 0; run < inputs.size(); ++run) {
    DeviceBuffer<Delayed<V>> data(std::vector<Delayed<V>>(inputs[run].begin(), inputs[run].end())), result(1);
    result.poison();
    poison_shared_memory();
    kernel<<<1, threads>>>(data.data(), inputs[run].size(), result.data());
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    wrong += result.download_one().value != expected[run];
  }
  hold_back(0);
  return wrong;
}

}  // namespace reduction
