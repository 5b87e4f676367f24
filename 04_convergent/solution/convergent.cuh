// Chapter 04: the convergent kernel. The same tree as chapter 03, with the threads rearranged.
//
// In chapter 03 the active threads spread over the whole block: long after most of them had
// stopped, every warp still held one busy thread and so occupied all 32 of its lanes, and the
// threads of a warp touched addresses far apart. Here thread t owns element t and adds the element
// `stride` places further on, with the stride halving from the block size down to 1: the active
// threads are the first `stride` ones. They stay packed at the front of the block, so whole warps
// skip the addition, and neighbouring threads touch neighbouring addresses, which a warp loads and
// stores in as few 32-byte memory sectors as there can be (32 ints fill exactly four).
//
// The pairs differ from chapter 03's: element 0 meets element blockDim.x first, not element 1. That
// regrouping needs the operator to be commutative as well as associative, as sum is.
//
// What is still slow (chapter 05 fixes it): every step reads and writes global memory.
#pragma once

#include <cstddef>

#include "common/ops.hpp"
#include "common/single_block.hpp"
#if defined(__CUDACC__)
#include "common/cuda_check.cuh"
#include "common/variants.cuh"
#endif

namespace ch04 {

// The index arithmetic. The kernel below uses it, and so do the CPU trace, the model and the tests
// (REDUCTION_HD: __host__ __device__ under nvcc, a plain inline function elsewhere), so that they
// evaluate exactly what the kernel evaluates.

// The strides, in order: the block size, half of it, ..., 1. The first step adds the two halves.
REDUCTION_HD unsigned first_stride(unsigned threads) { return threads; }
REDUCTION_HD unsigned next_stride(unsigned stride) { return stride / 2; }
REDUCTION_HD bool stride_in_range(unsigned stride, unsigned /*threads*/) { return stride >= 1; }

// Thread t owns element t ...
REDUCTION_HD std::size_t owner_of(unsigned thread) { return thread; }
// ... and adds to it the element `stride` places further on.
REDUCTION_HD std::size_t partner_of(unsigned thread, unsigned stride) { return owner_of(thread) + stride; }

// A thread adds in the step of `stride` if it is one of the first `stride` threads and its partner
// exists. When n is not a power of two some partners of the first step lie past the end of the
// array, and the guard skips those additions: it does what padding with the identity would,
// without the padding.
REDUCTION_HD bool is_active(unsigned thread, unsigned stride, std::size_t n) {
  return thread < stride && partner_of(thread, stride) < n;
}

#if defined(__CUDACC__)  // the kernel and its launcher need nvcc; the index arithmetic above does not

template <typename T>
__global__ void convergent_kernel(T* data, std::size_t n, T* result) {
  const unsigned t = threadIdx.x;
  const reduction::Sum add{};  // for int it wraps around like the hardware, without C++'s undefined overflow
  for (unsigned stride = first_stride(blockDim.x); stride_in_range(stride, blockDim.x); stride = next_stride(stride)) {
    if (is_active(t, stride, n)) data[owner_of(t)] = add(data[owner_of(t)], data[partner_of(t, stride)]);
    __syncthreads();  // the next step reads partial sums that other threads wrote in this one
  }
  if (t == 0) *result = data[0];
}

// Reduces data[0, n) into *result, for 1 <= n <= 2048. The partial sums overwrite data.
template <typename T>
void launch(T* data, std::size_t n, T* result, cudaStream_t stream) {
  reduction::single_block::require_valid_size(n);
  convergent_kernel<<<1, reduction::single_block::threads_for(n), 0, stream>>>(data, n, result);
  CUDA_CHECK_LAUNCH();
}

template <typename T>
reduction::Variant<reduction::SingleBlockLaunch<T>> variant() {
  return {"convergent", "the stride halving from the block size; active threads packed together", &launch<T>,
          &reduction::single_block::tree_depth, true};
}

#endif  // __CUDACC__

}  // namespace ch04
