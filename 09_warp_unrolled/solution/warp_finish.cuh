// Chapter 09, steps 1 and 2: the warp finishes. Chapter 08's tree waits at __syncthreads() after
// every step, even once the only threads still adding all sit in warp 0. These two kernels finish
// the last six steps inside that warp with no block-wide barrier.
#pragma once

#ifndef REDUCTION_EMULATOR  // the CUDA runtime: launchers only (the CPU emulator compiles the kernels alone)
#include <cuda_runtime.h>
#endif

#include <algorithm>
#include <cstddef>

#include "08_two_pass/solution/two_pass.cuh"  // chapter 08: the loads, the grid and the two passes
#include "common/ops.hpp"

namespace ch09 {

using reduction::DeviceScratch;
using ch08::thread_partial;

// 1. warp_volatile: the classic warp-synchronous finish. A CAUTIONARY EXAMPLE: it counts on the
//    lock-step of the warps before Volta (README, "Why it broke"); on Volta and every GPU since, it
//    is a data race, usually with the right result, and compute-sanitizer's racecheck says so.
//
// The warp reads slots up to 63, so shared memory holds at least 64 values. (The CUDA Handbook's
// listing sizes its array to the block and so reads past its end for a 32-thread block.)
template <typename T>
__global__ void warp_volatile_kernel(const T* input, std::size_t n, T* block_results) {
  // EXERCISE: chapter 08's kernel with the classic warp-synchronous finish. Hints:
  // HINT: - partial[t] = thread_partial<reduction::Sum>(input, n); in a 32-thread block also fill slots
  // HINT:   32 to 63 with the identity (the warp reads up to slot 63); then __syncthreads().
  // HINT: - halve the active threads with __syncthreads() after each step while more than 32 are active;
  // HINT: - then the last 64 slots in threads t < 32 only, with no barrier, through a `volatile T*` to
  // HINT:   the same memory (what would the compiler do with the loads without volatile?): which
  // HINT:   distances d between the slots each thread adds, and in which order?
  // HINT: - thread 0 writes warp[0] to block_results[blockIdx.x].
  // HINT: Then run compute-sanitizer --tool racecheck on it, and read the header comment above again.
  extern __shared__ __align__(16) unsigned char shared_bytes[];  // max(blockDim.x, 64) values
  T* partial = reinterpret_cast<T*>(shared_bytes);
  const reduction::Sum add{};
  const unsigned t = threadIdx.x;
  partial[t] = thread_partial<reduction::Sum>(input, n);
  if (t + blockDim.x < 64) partial[t + blockDim.x] = reduction::Sum::identity<T>();
  __syncthreads();
  for (unsigned active = blockDim.x / 2; active > 32; active /= 2) {
    if (t < active) partial[t] = add(partial[t], partial[t + active]);
    __syncthreads();
  }
  if (t < 32) {
    volatile T* warp = partial;
    warp[t] = add(warp[t], warp[t + 32]);
    warp[t] = add(warp[t], warp[t + 16]);
    warp[t] = add(warp[t], warp[t + 8]);
    warp[t] = add(warp[t], warp[t + 4]);
    warp[t] = add(warp[t], warp[t + 2]);
    warp[t] = add(warp[t], warp[t + 1]);
    if (t == 0) block_results[blockIdx.x] = warp[0];
  }
  // END EXERCISE
}

// 2. warp_syncwarp: the same finish, made correct. __syncwarp() is a barrier for the lanes of one
//    warp, and orders their shared-memory accesses as __syncthreads() does for a block.
template <typename T>
__global__ void warp_syncwarp_kernel(const T* input, std::size_t n, T* block_results) {
  // EXERCISE: the same kernel as warp_volatile, with a correct warp finish. Hints: in threads t < 32,
  // HINT: the same distances as warp_volatile, but each step's reads must be ordered before the
  // HINT: writes that could overwrite them, and those writes before the next step's reads: where do
  // HINT: __syncwarp() calls go, and what can stay in a register? Thread 0 writes the block's sum.
  extern __shared__ __align__(16) unsigned char shared_bytes[];  // max(blockDim.x, 64) values
  T* partial = reinterpret_cast<T*>(shared_bytes);
  const reduction::Sum add{};
  const unsigned t = threadIdx.x;
  partial[t] = thread_partial<reduction::Sum>(input, n);
  if (t + blockDim.x < 64) partial[t + blockDim.x] = reduction::Sum::identity<T>();
  __syncthreads();
  for (unsigned active = blockDim.x / 2; active > 32; active /= 2) {
    if (t < active) partial[t] = add(partial[t], partial[t + active]);
    __syncthreads();
  }
  if (t < 32) {
    T sum = partial[t];
#pragma unroll
    for (unsigned offset = 32; offset > 0; offset /= 2) {
      sum = add(sum, partial[t + offset]);
      __syncwarp();  // every lane has read slot t + offset before any lane overwrites it
      partial[t] = sum;
      __syncwarp();  // every lane's new value is visible before the next step reads it
    }
    if (t == 0) block_results[blockIdx.x] = sum;
  }
  // END EXERCISE
}

// Both warp finishes work on whole warps: 32 to 1024 threads, and at least 64 shared slots.
inline std::size_t warp_finish_slots(int block) { return static_cast<std::size_t>(std::max(block, 64)); }

#ifndef REDUCTION_EMULATOR  // the launchers need the CUDA runtime
template <typename T>
void launch_warp_volatile(const T* input, std::size_t n, T* result, int block, DeviceScratch& scratch,
                          cudaStream_t stream) {
  const std::size_t shared = warp_finish_slots(block) * sizeof(T);
  const int grid = ch08::grid_for(n, block, ch08::resident_blocks(warp_volatile_kernel<T>, block, shared));
  ch08::launch_two_passes(warp_volatile_kernel<T>, input, n, result, block, grid, shared, scratch, stream);
}

template <typename T>
void launch_warp_syncwarp(const T* input, std::size_t n, T* result, int block, DeviceScratch& scratch,
                          cudaStream_t stream) {
  const std::size_t shared = warp_finish_slots(block) * sizeof(T);
  const int grid = ch08::grid_for(n, block, ch08::resident_blocks(warp_syncwarp_kernel<T>, block, shared));
  ch08::launch_two_passes(warp_syncwarp_kernel<T>, input, n, result, block, grid, shared, scratch, stream);
}
#endif  // REDUCTION_EMULATOR

// Both pad the tree to 64 values: log2(max(block, 64)) levels.
template <typename T>
std::size_t warp_finish_depth(std::size_t n, int block) {
  const std::size_t shared = warp_finish_slots(block) * sizeof(T);
  const int grid = ch08::grid_for(n, block, ch08::resident_blocks(warp_syncwarp_kernel<T>, block, shared));
  return ch08::two_pass_additions(n, block, grid, reduction::ceil_log2(warp_finish_slots(block)));
}

}  // namespace ch09
