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
#pragma once

#include <cstddef>

#include "common/ops.hpp"

namespace ch04 {

template <typename T>
__global__ void convergent_kernel(T* data, std::size_t n, T* result) {
  // Block b reduces row b: the rows lie one after another, n elements each (one row unless --rows).
  data += blockIdx.x * n;
  result += blockIdx.x;
  // EXERCISE: reduce data[0, n) into *result, in place, thread t = threadIdx.x owning element t.
  // HINT: - Start from your chapter 03 kernel. Which threads were active in its first steps, and why did
  // HINT:   that keep whole warps busy for a few additions?
  // HINT: - Change the pattern so that the active threads are always the first ones of the block: what
  // HINT:   must the owner of an element and the stride become? Check the guard for odd n again.
  // HINT: - The barrier and the final store follow the same rules as in chapter 03.
  // HINT: Then run the tests (ctest -L chapter04) and compare with `04_convergent --n 16 --trace`.
  const unsigned t = threadIdx.x;
  const unsigned owner = t;    // thread t owns element t: no other thread writes it
  const reduction::Sum add{};  // for int it wraps around like the hardware, without C++'s undefined overflow
  for (unsigned stride = blockDim.x; stride >= 1; stride /= 2) {
    // Active: the first `stride` threads. The guard skips partners past the end, as padding with 0 would.
    if (t < stride && owner + stride < n) data[owner] = add(data[owner], data[owner + stride]);
    __syncthreads();  // the next step reads partial sums that other threads wrote in this one
  }
  if (t == 0) *result = data[0];
  // END EXERCISE
}

}  // namespace ch04
