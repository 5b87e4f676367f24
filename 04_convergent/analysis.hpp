// Chapter 04's analysis, in words and figures: what the program prints beside the counts, which it
// takes from the kernel itself (emulated.cpp runs it on the CPU).
#pragma once

#include <cstddef>

#include "emulator/analysis.hpp"

namespace ch04 {

namespace sb = reduction::single_block;

// Who owns what, the first line of the trace.
constexpr const char* kLayout = "thread t owns data[t]";

// What the tests hold the kernel to: thread t adds into element t, the strides halve from the block size.
constexpr sb::Pattern kPattern{"chapter 04", 1, false};

// The text's figure for the thread slots this kernel consumes (PMPP 10.4), for n a power of two
// that fills at least one warp: the n/64 warps of the first step, half as many in each step after,
// down to one warp, which then stays active for the last five steps (strides 16 to 1).
inline sb::ClosedForm text_closed_form(std::size_t n) {
  sb::ClosedForm form{"(N/64 + N/128 + N/256 + ... + 1 + 5) * 32", {}, "n a power of two, at least 64", ""};
  if (n >= 64 && (n & (n - 1)) == 0) {
    std::size_t warp_steps = 5;
    for (std::size_t warps = n / 64; warps >= 1; warps /= 2) warp_steps += warps;
    form.thread_slots = 32 * warp_steps;
  }
  return form;
}

// What the program prints beside the counts: the table of thread slots, headed by when a thread
// adds, and the text's closed form.
inline sb::KernelNotes notes() {
  return {kLayout, "thread t adds in the step of `stride` if t < stride and its partner t + stride < n",
          text_closed_form, {}, {}};
}

}  // namespace ch04
