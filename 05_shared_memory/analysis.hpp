// Chapter 05's analysis, in words and figures: what the program prints from the counts, which it
// takes from the kernel itself (emulated.cpp runs it on the CPU).
#pragma once

#include <cstddef>
#include <ostream>
#include <string>

#include "emulator/analysis.hpp"

namespace ch05 {

namespace sb = reduction::single_block;

// Who owns what, the first line of the trace.
inline std::string layout(unsigned threads) {
  return "thread t adds data[t] and data[t + " + std::to_string(threads) + "] into partial[t], in shared memory";
}

// What the tests hold the kernel to: thread t adds into partial[t], the strides halve from the block size.
constexpr sb::Pattern kPattern{"chapter 05", 1, false};

// What the program prints beside the counts of n elements of `element_bytes` each (threads_for(n)
// threads): shared memory in use, and global memory read once.
inline sb::KernelNotes notes(std::size_t n, std::size_t element_bytes) {
  const unsigned threads = sb::threads_for(n);
  sb::KernelNotes notes;
  notes.layout = layout(threads);
  notes.before_memory = [=](std::ostream& text) {
    text << "shared     " << threads * element_bytes << " bytes of partial sums in use, of the "
         << sb::kMaxThreads * element_bytes << " the kernel declares\n\n";
  };
  notes.after_memory = [=](std::ostream& text, std::size_t tree_steps) {
    text << "  Every load is in the first step; the other " << tree_steps - 1
         << " steps work in shared memory, and the one store\n"
         << "  is the result. Chapter 04's kernel, for the same n, loads two elements and stores one for each\n"
         << "  of the n - 1 additions, then loads the total: 2n - 1 = " << 2 * n - 1 << " reads and n = " << n
         << " writes.\n";
  };
  return notes;
}

}  // namespace ch05
