// Chapter 03: the simple kernel. One block reduces up to 2048 elements, in place.
//
// Chapter 02's tree, run by the threads of one block. Owner computes: thread t owns element 2t and
// is the only thread that writes it. In each step an active thread adds the element `stride`
// places further on (its neighbour's partial sum) to the one it owns. The stride doubles, 1, 2, 4,
// ..., and the active threads thin out: in each step only the threads whose index is a multiple of
// the stride. A barrier ends every step, because the next step reads what other threads wrote.
#pragma once

#include <cstddef>

#include "common/ops.hpp"

namespace ch03 {

// T is int, float or double for the timed launch. The trace and the tests launch the same template
// with reduction::Traced<T>, an element that logs its loads and stores (emulator/traced.cuh).
template <typename T>
__global__ void simple_kernel(T* data, std::size_t n, T* result) {
  // Block b reduces row b: the rows lie one after another, n elements each (one row unless --rows).
  data += blockIdx.x * n;
  result += blockIdx.x;
  // EXERCISE: reduce data[0, n) into *result, in place, thread t = threadIdx.x owning element 2t.
  // HINT: - Draw the tree for n = 8 on paper first: in each step, which elements are added, into which, and
  // HINT:   which threads have work? Write that rule down before you write the loop.
  // HINT: - Your loop must work for every n up to 2048, not only powers of two: what must a thread check
  // HINT:   before it reads its partner?
  // HINT: - Add with reduction::Sum{}(a, b) (for int it wraps around where C++ would leave overflow undefined).
  // HINT: - A step reads what other threads wrote in the step before. What makes them wait, and which
  // HINT:   threads must reach it? (A thread that skips it leaves the others waiting.)
  // HINT: - Where is the total when the tree is done, and who writes it to *result?
  // HINT: Then run the tests (ctest -L chapter03) and compare with `03_simple_kernel --n 16 --trace`.
  const unsigned t = threadIdx.x;
  const unsigned owner = 2 * t;  // thread t owns element 2t: no other thread writes it
  const reduction::Sum add{};    // for int it wraps around like the hardware, without C++'s undefined overflow
  for (unsigned stride = 1; stride <= blockDim.x; stride *= 2) {
    // Active: t is a multiple of the stride. The guard skips partners past the end, as padding with 0 would.
    if (t % stride == 0 && owner + stride < n) data[owner] = add(data[owner], data[owner + stride]);
    __syncthreads();  // the next step reads partial sums that other threads wrote in this one
  }
  if (t == 0) *result = data[0];
  // END EXERCISE
}

}  // namespace ch03
