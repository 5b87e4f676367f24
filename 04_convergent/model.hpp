// Chapter 04's analysis, on the CPU: the execution-resource and memory model of convergent_kernel,
// and its step-by-step trace, both evaluated with the kernel's own index arithmetic (convergent.cuh).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/block_model.hpp"
#include "common/block_trace.hpp"
#include "common/single_block.hpp"
#include "convergent.cuh"

namespace ch04 {

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
  return sb::trace_in_place(input, threads, strides(threads), active, owner_of, partner_of, "thread t owns data[t]");
}

inline const char* activity_predicate() {
  return "thread t adds in the step of `stride` if t < stride and its partner t + stride < n";
}

// The text's figure for the thread slots this kernel consumes (PMPP 10.4), for n a power of two
// that fills at least one warp: the n/64 warps of the first step, half as many in each step after,
// down to one warp, which then stays active for the last five steps (strides 16 to 1).
inline reduction::single_block::ClosedForm text_closed_form(std::size_t n) {
  reduction::single_block::ClosedForm form{
      "(N/64 + N/128 + N/256 + ... + 1 + 5) * 32", {}, "n a power of two, at least 64", ""};
  if (n >= 64 && (n & (n - 1)) == 0) {
    std::size_t warp_steps = 5;
    for (std::size_t warps = n / 64; warps >= 1; warps /= 2) warp_steps += warps;
    form.thread_slots = 32 * warp_steps;
  }
  return form;
}

}  // namespace ch04
