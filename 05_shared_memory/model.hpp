// Chapter 05's model, on the CPU: what shared_memory_kernel's threads do, step by step, predicted
// with arithmetic of its own. The program's analysis without a GPU is computed from it; the GPU
// tests check it against a recording of the kernel itself (solution/shared_memory.cuh), line for
// line, its loads and stores of shared memory included.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "03_simple_kernel/single_block/block_events.hpp"
#include "03_simple_kernel/single_block/block_model.hpp"

namespace ch05 {

namespace sb = reduction::single_block;

// The first step, stride = the block size, on the way in: thread t stores to partial[t] the sum of
// data[t] and data[t + stride], or data[t] alone where that partner does not exist. Then the
// stride halves down to 1 in shared memory: thread t < stride adds partial[t + stride] to
// partial[t]. At the end thread 0 stores partial[0].
template <typename T>
std::vector<sb::Access> predict(const std::vector<T>& input) {
  const unsigned threads = sb::threads_for(input.size());
  sb::PredictedBlock<T> block(input, threads);
  for (unsigned t = 0; t < threads; ++t) {
    if (std::size_t(t) + threads < input.size())
      block.add(t, sb::Array::kPartial, t, sb::Array::kData, t + threads);
    else
      block.copy(t, sb::Array::kPartial, t, sb::Array::kData);
  }
  for (unsigned stride = threads / 2; stride >= 1; stride /= 2)
    for (unsigned t = 0; t < stride; ++t) block.add(t, sb::Array::kPartial, t, sb::Array::kPartial, t + stride);
  block.result(0, sb::Array::kPartial, 0);
  return block.accesses();
}

inline std::string layout(unsigned threads) {
  return "thread t adds data[t] and data[t + " + std::to_string(threads) + "] into partial[t], in shared memory";
}

// The program's analysis: shared memory in use, and global memory read once.
inline void print_analysis(std::ostream& text, const sb::BlockCounts& counts, const char* type) {
  const std::size_t n = counts.n;
  text << "shared     " << counts.threads * counts.element_bytes << " bytes of partial sums in use, of the "
       << sb::kMaxThreads * counts.element_bytes << " the kernel declares\n\n";
  sb::print_memory(text, counts, type);
  text << "  Every load is in the first step; the other " << sb::tree_steps(counts) - 1
       << " steps work in shared memory, and the one store\n"
       << "  is the result. Chapter 04's kernel, for the same n, loads two elements and stores one for each\n"
       << "  of the n - 1 additions, then loads the total: 2n - 1 = " << 2 * n - 1 << " reads and n = " << n
       << " writes.\n";
}

}  // namespace ch05
