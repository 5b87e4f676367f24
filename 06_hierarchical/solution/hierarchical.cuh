// Chapter 06: the hierarchical reduction. Many blocks, each reducing its own segment of the
// input, and one atomic addition per block to join their partial sums.
#pragma once

#include <cstddef>

#include "common/ops.hpp"
// The CUDA runtime, which only the launcher below needs: the CPU emulator (emulator/emulator.hpp)
// compiles the kernel alone, with g++.
#ifndef REDUCTION_EMULATOR
#include <cuda_runtime.h>
#endif

namespace ch06 {

// Chapter 05 reduced at most 2 x 1024 elements, because its tree needs a barrier between steps
// and __syncthreads() only waits for the threads of one block. No barrier spans the grid, so the
// input is cut into segments of 2 x blockDim.x elements, one per block: block b runs chapter 05's
// tree on its own segment, independently of every other block. Then thread 0 of each block adds
// the block's partial to the one result with atomicAdd, which the hardware performs as one
// indivisible read-add-write: two blocks finishing at the same moment cannot both read the old
// value and lose one of the additions.
template <typename T>
__global__ void hierarchical_kernel(const T* input, std::size_t n, T* result) {
  // EXERCISE: reduce this block's segment of the input and add its sum to *result.
  // HINT: - Shared memory for blockDim.x values of T is sized at launch: declare it as
  // HINT:       extern __shared__ __align__(16) unsigned char shared_bytes[];
  // HINT:   and view it as T* (reinterpret_cast).
  // HINT: - The segment of block b starts at 2 x blockDim.x x b: compute it in 64 bits (std::size_t), or an
  // HINT:   input of more than 2^31 elements overflows it.
  // HINT: - Thread t loads elements segment + t and segment + t + blockDim.x, skipping any at or past n, and
  // HINT:   adds them (reduction::Sum{} adds, wrapping around for int) into its slot of shared memory.
  // HINT: - Then chapter 05's tree: the stride halves from blockDim.x / 2 to 1, with __syncthreads()
  // HINT:   before each step, threads t < stride adding the slot t + stride to their own.
  // HINT: - Finally thread 0 adds the block's partial to the result with atomicAdd(result, ...): the
  // HINT:   launcher has already set *result to zero.
  extern __shared__ __align__(16) unsigned char shared_bytes[];  // blockDim.x values, sized at launch
  T* partial = reinterpret_cast<T*>(shared_bytes);
  const reduction::Sum add{};  // +, wrapping around for int exactly as the CPU reference does
  const unsigned t = threadIdx.x;
  // In 64 bits: 2 x blockDim.x x blockIdx.x passes 2^31 (an int overflows) once the input has more
  // than 2^31 elements, and 2^32 (an unsigned wraps around) past 2^32.
  const std::size_t segment = 2 * std::size_t(blockDim.x) * blockIdx.x;
  const std::size_t i = segment + t;

  // The last segment may be cut short: an element past the end is left out, as the identity would be.
  T sum = reduction::Sum::identity<T>();
  if (i < n) sum = input[i];
  if (i + blockDim.x < n) sum = add(sum, input[i + blockDim.x]);
  partial[t] = sum;

  for (unsigned stride = blockDim.x / 2; stride >= 1; stride /= 2) {
    __syncthreads();  // the previous step's writes are visible before anyone reads them
    if (t < stride) partial[t] = add(partial[t], partial[t + stride]);
  }
  if (t == 0) atomicAdd(result, partial[0]);
  // END EXERCISE
}

// Blocks needed for n elements, 2 x block per block. Fewer than the grid's limit of 2^31 - 1 for
// any input a GPU can hold (that limit is 2^37 elements even at 32 threads per block).
inline std::size_t block_count(std::size_t n, int block) {
  return (n + 2 * std::size_t(block) - 1) / (2 * std::size_t(block));
}

// The most rounded additions an element meets (see common/reference.hpp): one with its pair,
// log2(block) in the tree, then up to block_count - 1 into the result, one block after another in
// whatever order the blocks finish (the first, into the identity, is exact).
inline std::size_t depth(std::size_t n, int block) {
  return reduction::ceil_log2(2 * std::size_t(block)) + block_count(n, block) - 1;
}

#ifndef REDUCTION_EMULATOR
// Reduces the n elements of input into result[0]. The atomic additions need the result to start at the
// identity: zero, all bits clear for int, float and double alike. Clearing it here, on the same
// stream, makes the clearing part of every launch and of its measured time.
template <typename T>
void launch(const T* input, std::size_t n, T* result, int block, reduction::DeviceScratch& /*scratch*/,
            cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(T), stream));
  const auto blocks = static_cast<unsigned>(block_count(n, block));
  hierarchical_kernel<<<blocks, block, block * sizeof(T), stream>>>(input, n, result);
  CUDA_CHECK_LAUNCH();
}

#endif  // REDUCTION_EMULATOR

}  // namespace ch06
