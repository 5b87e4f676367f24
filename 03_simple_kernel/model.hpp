// Chapter 03's model, on the CPU: what simple_kernel's threads do, step by step, predicted with
// arithmetic of its own. The program's analysis without a GPU (the counts and the trace) is
// computed from this prediction; the GPU tests check it against a recording of the kernel itself
// (solution/simple_kernel.cuh, run on elements that log their loads and stores), line for line.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "03_simple_kernel/single_block/block_events.hpp"
#include "thread_slots.hpp"

namespace ch03 {

namespace sb = reduction::single_block;

// Thread t owns element 2t; the stride doubles from 1 to the block size; in the step of `stride`,
// thread t adds data[2t + stride] to data[2t] if t is a multiple of the stride and that partner
// exists; at the end thread 0 stores data[0].
template <typename T>
std::vector<sb::Access> predict(const std::vector<T>& input) {
  const unsigned threads = sb::threads_for(input.size());
  sb::PredictedBlock<T> block(input, threads);
  for (unsigned stride = 1; stride <= threads; stride *= 2)
    for (unsigned t = 0; t < threads; ++t)
      if (t % stride == 0 && 2 * std::size_t(t) + stride < input.size())
        block.add(t, sb::Array::kData, 2 * t, sb::Array::kData, 2 * t + stride);
  block.result(0, sb::Array::kData, 0);
  return block.accesses();
}

inline std::string layout(unsigned /*threads*/) { return "thread t owns data[2t]"; }

constexpr const char* kActivityPredicate =
    "thread t adds in the step of `stride` if t % stride == 0 and its partner 2t + stride < n";

// The text's figure for the thread slots this kernel consumes (PMPP 10.4), for n a power of two
// that fills at least one warp: five steps with every one of the n/64 warps active, then half as
// many in each step after.
inline ClosedForm text_closed_form(std::size_t n) {
  ClosedForm form{"(5N/64 + N/128 + N/256 + ... + 1) * 32",
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
