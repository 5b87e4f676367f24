// Chapter 03's analysis, in words and figures: what the program prints beside the counts, which it
// takes from the kernel itself (emulated.cpp runs it on the CPU). Nothing here restates the
// kernel's steps: a second copy of the algorithm would be one more thing to keep in step, and in
// the students' handout it would be the answer.
#pragma once

#include <cstddef>

#include "emulator/analysis.hpp"

namespace ch03 {

namespace sb = reduction::single_block;

// Who owns what, the first line of the trace.
constexpr const char* kLayout = "thread t owns data[2t]";

// What the tests hold the kernel to: thread t adds into element 2t, the strides double from 1.
constexpr sb::Pattern kPattern{"chapter 03", 2, true};

// The text's figure for the thread slots this kernel consumes (PMPP 10.4), for n a power of two
// that fills at least one warp: five steps with every one of the n/64 warps active, then half as
// many in each step after.
inline sb::ClosedForm text_closed_form(std::size_t n) {
  sb::ClosedForm form{"(5N/64 + N/128 + N/256 + ... + 1) * 32",
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

// What the program prints beside the counts: the table of thread slots, headed by when a thread
// adds, and the text's closed form.
inline sb::KernelNotes notes() {
  return {kLayout, "thread t adds in the step of `stride` if t % stride == 0 and its partner 2t + stride < n",
          text_closed_form, {}, {}};
}

}  // namespace ch03
