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

#include "common/block_recorder.cuh"
#include "common/cuda_check.cuh"
#include "common/ops.hpp"
#include "common/single_block.hpp"
#include "common/variants.cuh"

namespace ch04 {

// `rec` records what each thread does, for the trace and the tests (common/block_recorder.cuh). In
// the timed kernel it is a NoRecorder, and its calls compile to nothing.
template <typename T, typename Recorder = reduction::NoRecorder>
__global__ void convergent_kernel(T* data, std::size_t n, T* result, Recorder rec = {}) {
  const unsigned t = threadIdx.x;
  const unsigned owner = t;    // thread t owns element t: no other thread writes it
  const reduction::Sum add{};  // for int it wraps around like the hardware, without C++'s undefined overflow
  for (unsigned stride = blockDim.x; stride >= 1; stride /= 2) {
    rec.step(stride);
    // Active: the first `stride` threads. When n is not a power of two some partners of the first
    // step lie past the end of the array, and the guard skips those additions: it does what
    // padding with the identity would, without the padding.
    if (t < stride && owner + stride < n) {
      data[owner] = add(data[owner], data[owner + stride]);
      rec.add(data, owner, data, owner + stride);
    }
    __syncthreads();  // the next step reads partial sums that other threads wrote in this one
  }
  if (t == 0) {
    *result = data[0];
    rec.result(data, 0);
  }
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

}  // namespace ch04
