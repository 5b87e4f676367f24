// Chapter 05's model, on the CPU: what shared_memory_kernel's threads do, step by step, predicted
// with arithmetic of its own. The trace without a GPU, and the global-memory counts, are computed
// from this prediction; the GPU tests check it against a recording of the kernel
// (solution/shared_memory.cuh), event for event.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/block_events.hpp"
#include "common/block_model.hpp"
#include "common/block_trace.hpp"
#include "common/single_block.hpp"

namespace ch05 {

inline std::string layout(unsigned threads) {
  return "thread t adds data[t] and data[t + " + std::to_string(threads) + "] into partial[t], in shared memory";
}

// The first step, stride = the block size, on the way in: thread t stores to partial[t] the sum of
// data[t] and data[t + stride], or data[t] alone where that partner does not exist. Then the
// stride halves down to 1 in shared memory: thread t < stride adds partial[t + stride] to
// partial[t]. At the end thread 0 stores partial[0].
template <typename T>
std::vector<reduction::single_block::BlockEvent> predict(const std::vector<T>& input) {
  namespace sb = reduction::single_block;
  using Block = sb::PredictedBlock<T>;
  const std::size_t n = input.size();
  const unsigned threads = sb::threads_for(n);
  Block block(input, threads);
  block.step(threads);
  for (unsigned t = 0; t < threads; ++t) {
    if (std::size_t(t) + threads < n)
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

inline reduction::single_block::BlockCounts model(std::size_t n, std::size_t element_bytes) {
  namespace sb = reduction::single_block;
  return sb::count(predict(std::vector<std::int32_t>(n)), n, sb::threads_for(n), element_bytes);
}

template <typename T>
reduction::single_block::Trace<T> trace(const std::vector<T>& input) {
  namespace sb = reduction::single_block;
  const unsigned threads = sb::threads_for(input.size());
  return sb::trace_from(predict(input), input, threads, layout(threads), false);
}

}  // namespace ch05
