// Chapter 07: thread coarsening. Each thread adds many elements on its own before the block's
// tree runs, so fewer blocks share the work and less of it is tree.
#pragma once

#include <cstddef>

#include "common/ops.hpp"
// The CUDA runtime, which only the launcher below needs: the CPU emulator (emulator/emulator.hpp)
// compiles the kernel alone, with g++.
#ifndef REDUCTION_EMULATOR
#include <cuda_runtime.h>
#endif

namespace ch07 {

// Chapter 06 gave each thread two elements, so every 2 x blockDim.x elements paid for a whole
// tree: log2(blockDim.x) steps, each behind a barrier and most with idle threads, and one more
// atomicAdd on the single result address. Here each thread first adds 2 x kCoarse elements in a
// plain loop, with no barrier and no idle thread, and the same tree and atomicAdd then serve
// kCoarse times as many elements. On each pass of the loop the block reads blockDim.x
// consecutive elements, so the reads stay coalesced. kCoarse is a template argument: the loop's
// trip count is known at compile time, and the compiler can unroll it and issue several loads
// before the first one returns.
template <int kCoarse, typename T>
__global__ void coarsened_kernel(const T* input, std::size_t n, T* result) {
  // EXERCISE: chapter 06's kernel, with each thread adding 2 x kCoarse elements before the tree.
  // HINT: - Shared memory for blockDim.x values of T is sized at launch: declare it as
  // HINT:       extern __shared__ __align__(16) unsigned char shared_bytes[];
  // HINT:   and view it as T* (reinterpret_cast).
  // HINT: - Block b's segment holds 2 x kCoarse x blockDim.x elements: compute where it starts in 64 bits.
  // HINT: - Thread t adds the elements segment + t + k x blockDim.x for k = 0 .. 2 x kCoarse - 1 that lie
  // HINT:   before n (reduction::Sum{} adds, wrapping around for int). Why this order, and not 2 x kCoarse
  // HINT:   consecutive elements per thread? Think of what the threads of a warp read together.
  // HINT: - Then the same tree and the same atomicAdd as chapter 06 (the launcher zeroes *result).
  extern __shared__ __align__(16) unsigned char shared_bytes[];  // blockDim.x values, sized at launch
  T* partial = reinterpret_cast<T*>(shared_bytes);
  const reduction::Sum add{};  // +, wrapping around for int exactly as the CPU reference does
  const unsigned t = threadIdx.x;
  // In 64 bits: 2 x kCoarse x blockDim.x x blockIdx.x passes 2^31 (an int overflows) once the
  // input has more than 2^31 elements, and 2^32 (an unsigned wraps around) past 2^32.
  const std::size_t segment = 2 * std::size_t(kCoarse) * blockDim.x * blockIdx.x;
  const std::size_t i = segment + t;

  // The last segment may be cut short: an element past the end is left out, as the identity would be.
  T sum = reduction::Sum::identity<T>();
  for (int tile = 0; tile < 2 * kCoarse; ++tile) {
    const std::size_t j = i + std::size_t(tile) * blockDim.x;
    if (j < n) sum = add(sum, input[j]);
  }
  partial[t] = sum;

  for (unsigned stride = blockDim.x / 2; stride >= 1; stride /= 2) {
    __syncthreads();  // the previous step's writes are visible before anyone reads them
    if (t < stride) partial[t] = add(partial[t], partial[t + stride]);
  }
  if (t == 0) atomicAdd(result, partial[0]);
  // END EXERCISE
}

// Blocks needed for n elements, 2 x coarse x block per block.
inline std::size_t block_count(std::size_t n, int block, int coarse) {
  const std::size_t per_block = 2 * std::size_t(coarse) * block;
  return (n + per_block - 1) / per_block;
}

// The most rounded additions an element meets (see common/reference.hpp): up to 2 x kCoarse - 1
// in its thread's loop (the first, into the identity, is exact), log2(block) in the tree, then up
// to block_count - 1 into the result, in whatever order the blocks finish.
template <int kCoarse>
std::size_t depth(std::size_t n, int block) {
  return 2 * std::size_t(kCoarse) - 1 + reduction::ceil_log2(block) + block_count(n, block, kCoarse) - 1;
}

#ifndef REDUCTION_EMULATOR
// Reduces the n elements of input into result[0]. The atomic additions need the result to start at the
// identity: zero, all bits clear for int, float and double alike. Clearing it here, on the same
// stream, makes the clearing part of every launch and of its measured time.
template <int kCoarse, typename T>
void launch(const T* input, std::size_t n, T* result, int block, reduction::DeviceScratch& /*scratch*/,
            cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(T), stream));
  const auto blocks = static_cast<unsigned>(block_count(n, block, kCoarse));
  coarsened_kernel<kCoarse><<<blocks, block, block * sizeof(T), stream>>>(input, n, result);
  CUDA_CHECK_LAUNCH();
}
#endif  // REDUCTION_EMULATOR

}  // namespace ch07
