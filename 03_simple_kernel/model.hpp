// Chapter 03's analysis, on the CPU: the execution-resource and memory model of simple_kernel, and
// its step-by-step trace, both evaluated with the kernel's own index arithmetic (simple_kernel.cuh).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/block_model.hpp"
#include "common/block_trace.hpp"
#include "common/single_block.hpp"
#include "simple_kernel.cuh"

namespace ch03 {

// The strides of the kernel's loop, for a block of `threads`.
inline std::vector<unsigned> strides(unsigned threads) {
  std::vector<unsigned> all;
  for (unsigned stride = first_stride(threads); stride_in_range(stride, threads); stride = next_stride(stride))
    all.push_back(stride);
  return all;
}

inline reduction::single_block::BlockCounts model(std::size_t n, std::size_t element_bytes) {
  namespace sb = reduction::single_block;
  const unsigned threads = sb::threads_for(n);
  auto active = [n](unsigned t, unsigned stride) { return is_active(t, stride, n); };
  return sb::evaluate(n, threads, element_bytes, sb::in_place_steps(strides(threads), active, owner_of, partner_of));
}

template <typename T>
reduction::single_block::Trace<T> trace(const std::vector<T>& input) {
  namespace sb = reduction::single_block;
  const std::size_t n = input.size();
  const unsigned threads = sb::threads_for(n);
  auto active = [n](unsigned t, unsigned stride) { return is_active(t, stride, n); };
  return sb::trace_in_place(input, threads, strides(threads), active, owner_of, partner_of, "thread t owns data[2t]");
}

inline const char* activity_predicate() {
  return "thread t adds in the step of `stride` if t % stride == 0 and its partner 2t + stride < n";
}

// The text's figure for the thread slots this kernel consumes (PMPP 10.4), for n a power of two
// that fills at least one warp: five steps with every one of the n/64 warps active, then half as
// many in each step after.
inline reduction::single_block::ClosedForm text_closed_form(std::size_t n) {
  reduction::single_block::ClosedForm form{"(5N/64 + N/128 + N/256 + ... + 1) * 32",
                                           {},
                                           "n a power of two, at least 64",
                                           "it counts five steps with every warp\n  active, but there are six: at "
                                           "stride 32, thread 32w of every warp w is still active"};
  if (n >= 64 && (n & (n - 1)) == 0) {
    std::size_t warp_steps = 5 * (n / 64);
    for (std::size_t warps = n / 128; warps >= 1; warps /= 2) warp_steps += warps;
    form.thread_slots = 32 * warp_steps;
  }
  return form;
}

}  // namespace ch03
