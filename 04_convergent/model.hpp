// Chapter 04's model, on the CPU: what convergent_kernel's threads do, step by step, predicted with
// arithmetic of its own. The program's analysis without a GPU is computed from it; the GPU tests
// check it against a recording of the kernel itself (solution/convergent.cuh), line for line.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "../03_simple_kernel/thread_slots.hpp"  // ClosedForm
#include "03_simple_kernel/single_block/block_events.hpp"

namespace ch04 {

namespace sb = reduction::single_block;

// Thread t owns element t; the stride halves from the block size to 1; in the step of `stride`,
// thread t adds data[t + stride] to data[t] if t < stride and that partner exists; at the end
// thread 0 stores data[0].
template <typename T>
std::vector<sb::Access> predict(const std::vector<T>& input) {
  const unsigned threads = sb::threads_for(input.size());
  sb::PredictedBlock<T> block(input, threads);
  for (unsigned stride = threads; stride >= 1; stride /= 2)
    for (unsigned t = 0; t < stride; ++t)
      if (std::size_t(t) + stride < input.size()) block.add(t, sb::Array::kData, t, sb::Array::kData, t + stride);
  block.result(0, sb::Array::kData, 0);
  return block.accesses();
}

inline std::string layout(unsigned /*threads*/) { return "thread t owns data[t]"; }

constexpr const char* kActivityPredicate =
    "thread t adds in the step of `stride` if t < stride and its partner t + stride < n";

// The text's figure for the thread slots this kernel consumes (PMPP 10.4), for n a power of two
// that fills at least one warp: the n/64 warps of the first step, half as many in each step after,
// down to one warp, which then stays active for the last five steps (strides 16 to 1).
inline ch03::ClosedForm text_closed_form(std::size_t n) {
  ch03::ClosedForm form{"(N/64 + N/128 + N/256 + ... + 1 + 5) * 32", {}, "n a power of two, at least 64", ""};
  if (n >= 64 && (n & (n - 1)) == 0) {
    std::size_t warp_steps = 5;
    for (std::size_t warps = n / 64; warps >= 1; warps /= 2) warp_steps += warps;
    form.thread_slots = 32 * warp_steps;
  }
  return form;
}

}  // namespace ch04
