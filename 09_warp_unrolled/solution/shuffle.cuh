// Chapter 09, step 4: the warp's additions in registers.
//
// The warp finishes of steps 1 to 3 still pass every value through shared memory, with a barrier
// between a step's reads and its writes. Shuffles hand values from lane to lane directly.
#pragma once

#ifndef REDUCTION_EMULATOR  // the CUDA runtime: launchers only (the CPU emulator compiles the kernels alone)
#include <cuda_runtime.h>
#endif

#include <cstddef>

#include "08_two_pass/solution/two_pass.cuh"  // chapter 08: the loads, the grid and the two passes
#include "common/ops.hpp"

namespace ch09 {

using reduction::DeviceScratch;
using ch08::thread_partial;

// __shfl_down_sync(mask, v, d) hands each lane the value v of the lane d places above it, register
// to register, and waits for the named lanes (the _sync). A block then needs shared memory only to
// gather one value per warp, one __syncthreads(), and a last round of shuffles in warp 0.
template <typename Op, typename T>
__device__ T warp_reduce(T value) {
  // EXERCISE: the warp's total in lane 0, with shuffles and no shared memory.
  // HINT: __shfl_down_sync hands each lane the value of a lane `offset` above it: which offsets, in
  // HINT: which order, leave the total of all 32 lanes in lane 0? Which mask names every lane?
  const Op op{};
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) value = op(value, __shfl_down_sync(0xffffffffu, value, offset));
  // END EXERCISE
  return value;  // the warp's total in lane 0
}

// The block's total, in thread 0. Needs whole warps: blockDim.x a multiple of 32.
template <typename Op, typename T>
__device__ T block_reduce(T value) {
  // EXERCISE: warp_reduce in every warp; lane 0 of each warp stores its total in a
  // HINT: `__shared__ T warp_totals[32]`; __syncthreads(); warp 0 reduces the blockDim.x / 32 totals
  // HINT: (the identity for the other lanes) with warp_reduce. Thread 0 then holds the block's total.
  __shared__ T warp_totals[32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  value = warp_reduce<Op>(value);
  if (lane == 0) warp_totals[warp] = value;
  __syncthreads();
  if (warp == 0) value = warp_reduce<Op>(lane < blockDim.x / 32 ? warp_totals[lane] : Op::template identity<T>());
  // END EXERCISE
  return value;
}

template <typename Op, typename T>
__global__ void shuffle_kernel(const T* input, std::size_t n, T* block_results) {
  // EXERCISE: each thread's thread_partial<Op>, reduced with block_reduce<Op>; thread 0 writes the
  // HINT: block's total to block_results[blockIdx.x].
  const T total = block_reduce<Op>(thread_partial<Op>(input, n));
  if (threadIdx.x == 0) block_results[blockIdx.x] = total;
  // END EXERCISE
}

// Five shuffle levels in each warp, five across the warps' totals (padded to 32 with the identity).
constexpr std::size_t kShuffleTree = 10;

template <typename Op, typename T>
int shuffle_grid(std::size_t n, int block) {
  return ch08::grid_for(n, block, ch08::resident_blocks(shuffle_kernel<Op, T>, block, 0));
}

#ifndef REDUCTION_EMULATOR  // the launcher needs the CUDA runtime
template <typename Op, typename T>
void launch_shuffle(const T* input, std::size_t n, T* result, int block, DeviceScratch& scratch, cudaStream_t stream) {
  ch08::launch_two_passes(shuffle_kernel<Op, T>, input, n, result, block, shuffle_grid<Op, T>(n, block), 0,
                               scratch, stream);
}
#endif  // REDUCTION_EMULATOR

template <typename Op, typename T>
std::size_t shuffle_depth(std::size_t n, int block) {
  return ch08::two_pass_additions(n, block, shuffle_grid<Op, T>(n, block), kShuffleTree);
}

}  // namespace ch09
