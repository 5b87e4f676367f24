// Chapter 03: the simple kernel. One block reduces up to 2048 elements, in place.
//
// Chapter 02's tree, run by the threads of one block. Owner computes: thread t owns element 2t and
// is the only thread that writes it. In each step an active thread adds the element `stride`
// places further on (its neighbour's partial sum) to the one it owns. The stride doubles, 1, 2, 4,
// ..., and the active threads thin out: in each step only the threads whose index is a multiple of
// the stride. A barrier ends every step, because the next step reads what other threads wrote.
//
// What is slow (chapter 04 fixes it): the active threads are spread over the whole block. Long
// after most threads have stopped, every warp still has one busy thread and so occupies all 32 of
// its lanes; and neighbouring threads touch addresses 2 * stride elements apart, so each load or
// store of a warp touches more 32-byte memory sectors than its data fills: at most half of the
// bytes fetched are used.
#pragma once

#include <cstddef>

#include "common/ops.hpp"
#include "common/single_block.hpp"
// EXERCISE: write the body of the kernel below (the TODO), then delete this line. While it is
// here, the program says on stderr that the kernel is not implemented yet.
#define REDUCTION_EXERCISE_UNFINISHED 1

#if defined(__CUDACC__)
#include "common/cuda_check.cuh"
#include "common/variants.cuh"
#endif

namespace ch03 {

// The index arithmetic. The kernel below uses it, and so do the CPU trace, the model and the tests
// (REDUCTION_HD: __host__ __device__ under nvcc, a plain inline function elsewhere), so that they
// evaluate exactly what the kernel evaluates.

// The strides, in order: 1, 2, 4, ..., the block size. The last step adds the two halves.
REDUCTION_HD unsigned first_stride(unsigned /*threads*/) { return 1; }
REDUCTION_HD unsigned next_stride(unsigned stride) { return 2 * stride; }
REDUCTION_HD bool stride_in_range(unsigned stride, unsigned threads) { return stride <= threads; }

// Thread t owns element 2t ...
REDUCTION_HD std::size_t owner_of(unsigned thread) { return 2 * std::size_t(thread); }
// ... and adds to it the element `stride` places further on.
REDUCTION_HD std::size_t partner_of(unsigned thread, unsigned stride) { return owner_of(thread) + stride; }

// A thread adds in the step of `stride` if its index is a multiple of the stride and its partner
// exists. When n is not a power of two the last partners lie past the end of the array, and the
// guard skips those additions: it does what padding with the identity would, without the padding.
REDUCTION_HD bool is_active(unsigned thread, unsigned stride, std::size_t n) {
  return thread % stride == 0 && partner_of(thread, stride) < n;
}

#if defined(__CUDACC__)  // the kernel and its launcher need nvcc; the index arithmetic above does not

template <typename T>
__global__ void simple_kernel(T* data, std::size_t n, T* result) {
  // TODO: reduce data[0, n) into *result, in place, with the index arithmetic above.
  //  - Walk the strides as the CPU trace does: from first_stride(blockDim.x), while
  //    stride_in_range(stride, blockDim.x), on to next_stride(stride).
  //  - In each step, a thread t = threadIdx.x for which is_active(t, stride, n) holds adds
  //    data[partner_of(t, stride)] to data[owner_of(t)]. Add with reduction::Sum{}(a, b): for int
  //    it wraps around instead of overflowing, which C++ leaves undefined.
  //  - End each step with __syncthreads(), outside the if: every thread of the block must reach
  //    the barrier, active or not. What goes wrong without it?
  //  - At the end, thread 0 stores data[0] to *result.
  //  Then run the tests (ctest -L chapter03) and compare with `03_simple_kernel --n 16 --trace`.
}

// Reduces data[0, n) into *result, for 1 <= n <= 2048. The partial sums overwrite data.
template <typename T>
void launch(T* data, std::size_t n, T* result, cudaStream_t stream) {
  reduction::single_block::require_valid_size(n);
  simple_kernel<<<1, reduction::single_block::threads_for(n), 0, stream>>>(data, n, result);
  CUDA_CHECK_LAUNCH();
}

template <typename T>
reduction::Variant<reduction::SingleBlockLaunch<T>> variant() {
  return {"simple", "owner computes, the stride doubling from 1", &launch<T>, &reduction::single_block::tree_depth,
          true};
}

#endif  // __CUDACC__

}  // namespace ch03
