// Chapter 05: shared memory. Chapter 04's tree, with the partial sums kept on chip.
//
// In chapter 04 every step loaded two partial sums from global memory and stored one back, and the
// next step loaded it again: about 2n loads and n stores for n elements, each a round trip through
// the memory system on a chain of dependent steps. Here each thread loads its two elements once,
// adds them on the way in (that is the first step of chapter 04's tree) and keeps the sum in shared
// memory, the SM's own on-chip memory, where the other steps run. Global memory is read once,
// element by element, and written once, with the result; the input is left as it was.
//
// The index arithmetic is chapter 04's, unchanged: the same additions in the same order, so the
// result is the same to the last bit. Only where the partial sums live has changed.
//
// What is still wrong (chapter 06 fixes it): one block, so at most 2048 elements, on one SM.
#pragma once

#include <cstddef>

#include "common/ops.hpp"
#include "common/single_block.hpp"
#if defined(__CUDACC__)
#include "common/cuda_check.cuh"
#include "common/variants.cuh"
#endif

namespace ch05 {

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
__global__ void shared_memory_kernel(const T* data, std::size_t n, T* result) {
  __shared__ T partial[reduction::single_block::kMaxThreads];  // one partial sum per thread, on chip
  const unsigned t = threadIdx.x;
  const reduction::Sum add{};  // for int it wraps around like the hardware, without C++'s undefined overflow
  // The first step, on the way in: the only loads from global memory. Every thread has a first
  // element (a block never has more threads than n has elements), so partial[] fills up, and in
  // the later steps, over its blockDim.x partial sums, every partner exists.
  const unsigned first = first_stride(blockDim.x);
  partial[owner_of(t)] =
      is_active(t, first, n) ? add(data[owner_of(t)], data[partner_of(t, first)]) : data[owner_of(t)];
  for (unsigned stride = next_stride(first); stride_in_range(stride, blockDim.x); stride = next_stride(stride)) {
    __syncthreads();  // this step reads partial sums that other threads wrote in the previous one
    if (is_active(t, stride, blockDim.x))
      partial[owner_of(t)] = add(partial[owner_of(t)], partial[partner_of(t, stride)]);
  }
  if (t == 0) *result = partial[0];  // thread 0 wrote partial[0] itself, in the last step or the load
}

// Reduces data[0, n) into *result, for 1 <= n <= 2048. data is left unchanged.
template <typename T>
void launch(T* data, std::size_t n, T* result, cudaStream_t stream) {
  reduction::single_block::require_valid_size(n);
  shared_memory_kernel<<<1, reduction::single_block::threads_for(n), 0, stream>>>(data, n, result);
  CUDA_CHECK_LAUNCH();
}

template <typename T>
reduction::Variant<reduction::SingleBlockLaunch<T>> variant() {
  return {"shared_memory", "global memory read once; the tree in shared memory", &launch<T>,
          &reduction::single_block::tree_depth, true};
}

#endif  // __CUDACC__

}  // namespace ch05
