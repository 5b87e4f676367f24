// Chapter 04's model, on the CPU: what convergent_kernel's threads do, step by step, predicted with
// arithmetic of its own. The trace without a GPU, and the execution-resource and memory counts, are
// computed from this prediction; the GPU tests check it against a recording of the kernel
// (solution/convergent.cuh), event for event.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/block_events.hpp"
#include "common/block_model.hpp"
#include "common/block_trace.hpp"
#include "common/single_block.hpp"

namespace ch04 {

inline const char* layout() { return "thread t owns data[t]"; }

// Thread t owns element t; the stride halves from the block size to 1; in the step of `stride`,
// thread t adds data[t + stride] to data[t] if t < stride and that partner exists; at the end
// thread 0 stores data[0].
template <typename T>
std::vector<reduction::single_block::BlockEvent> predict(const std::vector<T>& input) {
  namespace sb = reduction::single_block;
  using Block = sb::PredictedBlock<T>;
  const std::size_t n = input.size();
  const unsigned threads = sb::threads_for(n);
  Block block(input, threads);
  for (unsigned stride = threads; stride >= 1; stride /= 2) {
    block.step(stride);
    for (unsigned t = 0; t < stride; ++t)
      if (std::size_t(t) + stride < n) block.add(t, Block::kData, t, Block::kData, t + stride);
  }
  block.result(0, Block::kData, 0);
  return block.events();
}

inline reduction::single_block::BlockCounts model(std::size_t n, std::size_t element_bytes) {
  namespace sb = reduction::single_block;
  return sb::count(predict(std::vector<std::int32_t>(n)), n, sb::threads_for(n), element_bytes);
}

template <typename T>
reduction::single_block::Trace<T> trace(const std::vector<T>& input) {
  namespace sb = reduction::single_block;
  return sb::trace_from(predict(input), input, sb::threads_for(input.size()), layout(), false);
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
