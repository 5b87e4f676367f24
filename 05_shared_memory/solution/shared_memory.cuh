// Chapter 05: shared memory. Chapter 04's tree, with the partial sums kept on chip.
//
// In chapter 04 every step loaded two partial sums from global memory and stored one back, and the
// next step loaded it again: about 2n loads and n stores for n elements, each a round trip through
// the memory system on a chain of dependent steps. Here each thread loads its two elements once,
// adds them on the way in (that is the first step of chapter 04's tree) and keeps the sum in shared
// memory, the SM's own on-chip memory, where the other steps run. Global memory is read once,
// element by element, and written once, with the result; the input is left as it was.
#pragma once

#include <cstddef>

#include "common/ops.hpp"

namespace ch05 {

constexpr unsigned kMaxThreads = 1024;  // the most threads a block may have: one partial sum each

// T is int, float or double for the timed launch; reduction::Traced<T> for the trace and the tests
// (emulator/traced.cuh), as in chapter 03: its loads and stores of partial[] are logged too.
template <typename T>
__global__ void shared_memory_kernel(const T* data, std::size_t n, T* result) {
  // Block b reduces row b: the rows lie one after another, n elements each (one row unless --rows).
  data += blockIdx.x * n;
  result += blockIdx.x;
  // EXERCISE: reduce data[0, n) into *result, keeping the partial sums in shared memory.
  // HINT: - Keep the partial sums in shared memory instead of overwriting the input: how large must that
  // HINT:   array be for the largest block this chapter launches? (kMaxThreads)
  // HINT: - The first step can read from global memory directly: how many elements can each thread
  // HINT:   combine as it loads, and what if its second element is past n?
  // HINT: - The other steps work in shared memory like chapter 04's tree. Where must the barrier stand so
  // HINT:   that no step reads a slot before it is written, including the slots of the first step?
  // HINT: Then run the tests (ctest -L chapter05) and compare with `05_shared_memory --n 16 --trace`.
  __shared__ T partial[kMaxThreads];  // one partial sum per thread, on chip
  const unsigned t = threadIdx.x;
  const unsigned owner = t;    // thread t owns partial[t]: no other thread writes it
  const reduction::Sum add{};  // for int it wraps around like the hardware, without C++'s undefined overflow
  // The first step, stride blockDim.x, on the way in: the only loads from global memory. Every
  // thread has a first element (a block never has more threads than n has elements), so partial[]
  // fills up, and in the later steps, over its blockDim.x partial sums, every partner exists.
  if (owner + blockDim.x < n)
    partial[owner] = add(data[owner], data[owner + blockDim.x]);
  else  // the guard: a partner past the end of the array is skipped
    partial[owner] = data[owner];
  for (unsigned stride = blockDim.x / 2; stride >= 1; stride /= 2) {
    __syncthreads();  // this step reads partial sums that other threads wrote in the previous one
    if (t < stride) partial[owner] = add(partial[owner], partial[owner + stride]);
  }
  if (t == 0) *result = partial[0];  // thread 0 wrote partial[0] itself, in the last step or the load
  // END EXERCISE
}

}  // namespace ch05
