// Chapter 06: the hierarchical reduction. Many blocks, each reducing its own segment of the
// input, and one atomic addition per block to join their partial sums.
#pragma once

// This is the exercise version: the kernel below is yours to write (the program and the tests
// stay the same). Delete the next line when it is done, so that the program stops saying so.
#define REDUCTION_EXERCISE_UNFINISHED 1

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "common/cuda_check.cuh"
#include "common/ops.hpp"
#include "common/reference.hpp"
#include "common/variants.cuh"

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
  // TODO: reduce this block's segment of the input and add its sum to *result.
  //  - Shared memory for blockDim.x values of T is sized at launch: declare it as
  //      extern __shared__ __align__(16) unsigned char shared_bytes[];
  //    and view it as T* (reinterpret_cast).
  //  - The segment of block b starts at 2 x blockDim.x x b: compute it in 64 bits (std::size_t), or an
  //    input of more than 2^31 elements overflows it.
  //  - Thread t loads elements segment + t and segment + t + blockDim.x, skipping any at or past n, and
  //    adds them (reduction::Sum{} adds, wrapping around for int) into its slot of shared memory.
  //  - Then chapter 05's tree: the stride halves from blockDim.x / 2 to 1, with __syncthreads()
  //    before each step, threads t < stride adding the slot t + stride to their own.
  //  - Finally thread 0 adds the block's partial to the result with atomicAdd(result, ...): the
  //    launcher has already set *result to zero.
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

template <typename T>
std::vector<reduction::Variant<reduction::MultiBlockLaunch<T>>> variants() {
  return {{"hierarchical", "each block reduces its segment of 2 x block elements; atomicAdd joins the blocks",
           launch<T>, depth, false}};
}

}  // namespace ch06
