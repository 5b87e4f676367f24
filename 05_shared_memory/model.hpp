// Chapter 05's model, on the CPU: what shared_memory_kernel's threads do, step by step, predicted
// with arithmetic of its own. The trace without a GPU, and the global-memory counts, are computed
// from this prediction (common/block_trace.hpp: PredictedKernel); the GPU tests check it against a
// recording of the kernel (solution/shared_memory.cuh), event for event.
#pragma once

#include "common/block_trace.hpp"

namespace ch05 {

namespace sb = reduction::single_block;

struct Model : sb::PredictedKernel<Model> {
  static std::string layout(unsigned threads) {
    return "thread t adds data[t] and data[t + " + std::to_string(threads) + "] into partial[t], in shared memory";
  }

  // The first step, stride = the block size, on the way in: thread t stores to partial[t] the sum of
  // data[t] and data[t + stride], or data[t] alone where that partner does not exist. Then the
  // stride halves down to 1 in shared memory: thread t < stride adds partial[t + stride] to
  // partial[t]. At the end thread 0 stores partial[0].
  template <typename T>
  static std::vector<sb::BlockEvent> predict(const std::vector<T>& input) {
    using Block = sb::PredictedBlock<T>;
    const unsigned threads = sb::threads_for(input.size());
    Block block(input, threads);
    block.step(threads);
    for (unsigned t = 0; t < threads; ++t) {
      if (std::size_t(t) + threads < input.size())
        block.add(t, Block::kPartial, t, Block::kData, t + threads);
      else
        block.copy(t, Block::kPartial, t, Block::kData);
    }
    for (unsigned stride = threads / 2; stride >= 1; stride /= 2) {
      block.step(stride);
      for (unsigned t = 0; t < stride; ++t) block.add(t, Block::kPartial, t, Block::kPartial, t + stride);
    }
    block.result(0, Block::kPartial, 0);
    return block.events();
  }

  // The program's analysis: shared memory in use, and global memory read once.
  static void analyze(std::ostream& text, reduction::Json& /*fields*/, const sb::BlockCounts& counts, const char* type) {
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
};

}  // namespace ch05
