// Chapter 05's analysis, on the CPU: the global-memory traffic of shared_memory_kernel, and its
// step-by-step trace, both evaluated with the kernel's own index arithmetic (shared_memory.cuh).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "common/block_model.hpp"
#include "common/block_trace.hpp"
#include "common/single_block.hpp"
#include "shared_memory.cuh"

namespace ch05 {

// The strides of the steps in shared memory, for a block of `threads`: all but the first, which
// the kernel does while loading.
inline std::vector<unsigned> shared_strides(unsigned threads) {
  std::vector<unsigned> all;
  for (unsigned stride = next_stride(first_stride(threads)); stride_in_range(stride, threads);
       stride = next_stride(stride))
    all.push_back(stride);
  return all;
}

inline reduction::single_block::BlockCounts model(std::size_t n, std::size_t element_bytes) {
  namespace sb = reduction::single_block;
  using Element = std::optional<std::size_t>;
  const unsigned threads = sb::threads_for(n);
  const unsigned first = first_stride(threads);
  auto adds_on_load = [=](unsigned t) { return is_active(t, first, n); };
  std::vector<sb::ModelStep> steps;
  // The load: every thread loads its first element; those with a partner load it too, and add.
  steps.push_back({"load, stride " + std::to_string(first),
                   first,
                   adds_on_load,
                   {{false, [](unsigned t) -> Element { return owner_of(t); }}, {false, [=](unsigned t) -> Element {
                                                                                   if (!adds_on_load(t))
                                                                                     return std::nullopt;
                                                                                   return partner_of(t, first);
                                                                                 }}}});
  // The other steps touch only shared memory.
  for (unsigned stride : shared_strides(threads))
    steps.push_back(
        {"stride " + std::to_string(stride), stride, [=](unsigned t) { return is_active(t, stride, threads); }, {}});
  // Thread 0 stores the result.
  steps.push_back({"result", 0, {}, {{true, [](unsigned t) -> Element {
                                        if (t != 0) return std::nullopt;
                                        return 0;
                                      }}}});
  return sb::evaluate(n, threads, element_bytes, steps);
}

template <typename T>
reduction::single_block::Trace<T> trace(const std::vector<T>& data) {
  namespace sb = reduction::single_block;
  const std::size_t n = data.size();
  const unsigned threads = sb::threads_for(n);
  const unsigned first = first_stride(threads);
  const reduction::Sum add{};
  auto name = [](const char* array, std::size_t i) { return std::string(array) + "[" + std::to_string(i) + "]"; };

  sb::Trace<T> trace;
  trace.layout = "thread t adds data[t] and data[t + " + std::to_string(first) + "] into partial[t], in shared memory";
  trace.threads = threads;
  trace.input = data;
  std::vector<T> partial(threads);
  sb::TraceStep<T> load;
  load.name = "load, stride " + std::to_string(first);
  load.array = "partial";
  load.written.assign(threads, true);
  for (unsigned t = 0; t < threads; ++t) {
    const std::size_t o = owner_of(t), p = partner_of(t, first);
    if (is_active(t, first, n)) {
      partial[o] = add(data[o], data[p]);
      load.active.push_back(t);
      load.actions.push_back({t, name("partial", o) + " = " + name("data", o) + " + " + name("data", p)});
    } else {
      partial[o] = data[o];
      load.actions.push_back({t, name("partial", o) + " = " + name("data", o)});
    }
  }
  load.values = partial;
  trace.steps.push_back(std::move(load));
  for (unsigned stride : shared_strides(threads)) {
    sb::TraceStep<T> step;
    step.name = "stride " + std::to_string(stride);
    step.array = "partial";
    step.written.assign(threads, false);
    for (unsigned t = 0; t < threads; ++t) {
      if (!is_active(t, stride, threads)) continue;
      const std::size_t o = owner_of(t), p = partner_of(t, stride);
      partial[o] = add(partial[o], partial[p]);
      step.active.push_back(t);
      step.actions.push_back({t, name("partial", o) + " += " + name("partial", p)});
      step.written[o] = true;
    }
    step.values = partial;
    trace.steps.push_back(std::move(step));
  }
  trace.result_from = "partial[0]";
  trace.result = partial[0];
  return trace;
}

}  // namespace ch05
