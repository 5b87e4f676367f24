// Chapter 09, step 3: the block size as a template argument.
//
// warp_syncwarp still reads blockDim.x in every loop bound and tests it at every step. Here the
// block size is known to the compiler, so the whole tree unrolls into a straight line of steps.
#pragma once

#ifndef REDUCTION_EMULATOR  // the CUDA runtime: launchers only (the CPU emulator compiles the kernels alone)
#include <cuda_runtime.h>
#endif

#include <array>
#include <cstddef>
#include <stdexcept>
#include <utility>

#include "08_two_pass/solution/two_pass.cuh"  // chapter 08: the loads, the grid and the two passes
#include "common/ops.hpp"

namespace ch09 {

using reduction::DeviceScratch;

// Any power of two from 1 to 1024 works: below 64 threads the guard t < offset keeps every read
// inside the kBlock slots, and the warp barrier names only the lanes that exist.
__host__ __device__ constexpr unsigned lanes_of(int threads) {
  return threads >= 32 ? 0xffffffffu : (1u << threads) - 1u;
}

template <int kBlock, typename T>
__global__ void __launch_bounds__(kBlock) unrolled_kernel(const T* input, std::size_t n, T* block_results) {
  // EXERCISE: warp_syncwarp with kBlock in place of blockDim.x. Hints:
  // HINT: - __shared__ T partial[kBlock]; each thread's sum is ch08::thread_partial<reduction::Sum>(input, n);
  // HINT: - the block steps: #pragma unroll over `active` from kBlock / 2 while active > 32;
  // HINT: - the warp steps in threads t < 32: offsets from (kBlock >= 64 ? 32 : kBlock / 2) down to 1,
  // HINT:   reading and writing only where t < offset (a block under 64 threads has only kBlock slots),
  // HINT:   with __syncwarp(lanes_of(kBlock)) between the reads and the writes and after the writes;
  // HINT: - thread 0 writes the sum to block_results[blockIdx.x]. Every kBlock from 1 to 1024 must work.
  __shared__ T partial[kBlock];
  const reduction::Sum add{};
  const unsigned t = threadIdx.x;
  T sum = ch08::thread_partial<reduction::Sum>(input, n);
  partial[t] = sum;
  __syncthreads();
#pragma unroll
  for (int active = kBlock / 2; active > 32; active /= 2) {
    if (t < active) partial[t] = add(partial[t], partial[t + active]);
    __syncthreads();
  }
  if (t < 32) {
    sum = partial[t];
#pragma unroll
    for (int offset = kBlock >= 64 ? 32 : kBlock / 2; offset > 0; offset /= 2) {
      if (t < offset) sum = add(sum, partial[t + offset]);
      __syncwarp(lanes_of(kBlock));
      if (t < offset) partial[t] = sum;
      __syncwarp(lanes_of(kBlock));
    }
    if (t == 0) block_results[blockIdx.x] = sum;
  }
  // END EXERCISE
}

template <int kBlock, typename T>
int unrolled_grid(std::size_t n) {
  return ch08::grid_for(n, kBlock, ch08::resident_blocks(unrolled_kernel<kBlock, T>, kBlock, 0));
}

// The run-time block size picks one of eleven instantiations, 2^0 to 2^10, from a table the
// compiler builds from the exponents.
constexpr int kUnrolledSizes = 11;
inline int unrolled_index(int block) {
  for (int k = 0; k < kUnrolledSizes; ++k)
    if ((1 << k) == block) return k;
  throw std::invalid_argument("unrolled: the block size must be a power of two from 1 to 1024");
}

template <typename T, int... k>
constexpr std::array<int (*)(std::size_t), sizeof...(k)> unrolled_grids(std::integer_sequence<int, k...>) {
  return {&unrolled_grid<(1 << k), T>...};
}

template <typename T>
std::size_t unrolled_depth(std::size_t n, int block) {
  static constexpr auto grids = unrolled_grids<T>(std::make_integer_sequence<int, kUnrolledSizes>{});
  return ch08::two_pass_additions(n, block, grids[unrolled_index(block)](n), reduction::ceil_log2(std::size_t(block)));
}

#ifndef REDUCTION_EMULATOR  // the launchers need the CUDA runtime
template <int kBlock, typename T>
void launch_unrolled_block(const T* input, std::size_t n, T* result, int /*block: kBlock*/, DeviceScratch& scratch,
                           cudaStream_t stream) {
  ch08::launch_two_passes(unrolled_kernel<kBlock, T>, input, n, result, kBlock, unrolled_grid<kBlock, T>(n), 0,
                          scratch, stream);
}

template <typename T, int... k>
constexpr std::array<reduction::MultiBlockLaunch<T>, sizeof...(k)> unrolled_launchers(
    std::integer_sequence<int, k...>) {
  return {&launch_unrolled_block<(1 << k), T>...};
}

template <typename T>
void launch_unrolled(const T* input, std::size_t n, T* result, int block, DeviceScratch& scratch, cudaStream_t stream) {
  static constexpr auto table = unrolled_launchers<T>(std::make_integer_sequence<int, kUnrolledSizes>{});
  table[unrolled_index(block)](input, n, result, block, scratch, stream);
}
#endif  // REDUCTION_EMULATOR

}  // namespace ch09
