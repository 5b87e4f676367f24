// What the CPU tests of the single-block chapters' models (03 to 05, test_model.cpp) share: a
// column of the step table, a trace compared step by step, and the checks that every model must
// pass whatever its kernel does. Each chapter's file keeps the figures that are its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "block_model.hpp"
#include "block_trace.hpp"
#include "input.hpp"
#include "reference.hpp"
#include "single_block.hpp"
#include "testing.hpp"

namespace reduction::single_block::testing {

// One field of the step table, over the steps of the tree (those that add).
template <typename Field>
std::vector<Field> tree_steps_column(const BlockCounts& c, Field StepCounts::*field) {
  std::vector<Field> column;
  for (const auto& s : c.steps)
    if (s.adds) column.push_back(s.*field);
  return column;
}

// A trace, step by step: each step's active threads and the array after it.
template <typename T>
using ExpectedSteps = std::vector<std::pair<std::vector<unsigned>, std::vector<T>>>;

template <typename T>
void check_trace_steps(const Trace<T>& trace, const ExpectedSteps<T>& expected) {
  REQUIRE(trace.steps.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("step " << i + 1);
    CHECK(trace.steps[i].active == expected[i].first);
    CHECK(trace.steps[i].values == expected[i].second);
  }
}

// A model's trace of a small int input: its block of `threads`, the steps above, and the sum.
template <typename Model>
void check_trace(const std::vector<int>& input, unsigned threads, const ExpectedSteps<int>& expected) {
  const auto trace = Model::trace(input);
  CHECK(trace.threads == threads);
  check_trace_steps<int>(trace, expected);
  int sum = 0;
  for (int x : input) sum += x;
  CHECK(trace.result == sum);
}

// A trace of one element: a single step that adds nothing, and that element as the result.
template <typename T>
void check_one_element_trace(const Trace<T>& trace, T element) {
  REQUIRE(trace.steps.size() == 1);
  CHECK(trace.steps[0].active.empty());
  CHECK(trace.result == element);
}

// How the threads are spent for one n, as a chapter's README derives it: the active warps of each
// step of the tree, the additions, the warp-steps and the thread slots (32 per warp-step).
struct ExpectedThreadUse {
  std::vector<std::size_t> active_warps;
  std::size_t ops, warp_steps, thread_slots;
};

inline void check_thread_use(const BlockCounts& c, const ExpectedThreadUse& expected) {
  CHECK(tree_steps_column(c, &StepCounts::active_warps) == expected.active_warps);
  CHECK(c.ops == expected.ops);
  CHECK(c.warp_steps == expected.warp_steps);
  CHECK(c.thread_slots == expected.thread_slots);
  CHECK(c.efficiency == double(expected.ops) / double(expected.thread_slots));
}

// A launch's global-memory counts, as a chapter's README derives them: the sectors of each step's
// widest and narrowest request, the requests and sectors of the launch, the elements read and written.
struct ExpectedMemory {
  std::vector<std::size_t> max_request_sectors, min_request_sectors;
  std::size_t requests, sectors, reads, writes;
};

inline void check_memory(const BlockCounts& c, const ExpectedMemory& expected) {
  CHECK(tree_steps_column(c, &StepCounts::max_request_sectors) == expected.max_request_sectors);
  CHECK(tree_steps_column(c, &StepCounts::min_request_sectors) == expected.min_request_sectors);
  CHECK(c.requests == expected.requests);
  CHECK(c.sectors == expected.sectors);
  CHECK(c.reads == expected.reads);
  CHECK(c.writes == expected.writes);
}

// The share of its sectors' bytes that each step of the tree uses.
inline std::vector<double> used_per_step(const BlockCounts& c) {
  std::vector<double> used;
  for (const auto& s : c.steps)
    if (s.adds) used.push_back(used_fraction(s.reads, s.writes, s.sectors, c.element_bytes));
  return used;
}

// The memory counts of an in-place tree (03, 04) at n elements of element_bytes, where each step's
// requests all touch the same number of sectors (`step_sectors`): the launch's requests and sectors,
// the share of each step's sector bytes used, and its reads and writes, which follow from the tree
// (two loads and a store an addition, then thread 0 loads data[0] and stores the result).
template <typename Model>
BlockCounts check_in_place_memory(std::size_t n, std::size_t element_bytes, const std::vector<std::size_t>& step_sectors,
                                  std::size_t requests, std::size_t sectors, const std::vector<double>& used) {
  const BlockCounts c = Model::counts(n, element_bytes);
  check_memory(c, {step_sectors, step_sectors, requests, sectors, 2 * (n - 1) + 1, (n - 1) + 1});
  CHECK(used_per_step(c) == used);
  return c;
}

// A chapter's model at n int elements: the block's threads, how they are spent, and the thread
// slots that the textbook's closed form gives for the same n (nothing where it gives none).
template <typename Model>
void check_model_at(std::size_t n, unsigned threads, const ExpectedThreadUse& expected,
                    std::optional<std::size_t> text_thread_slots) {
  const BlockCounts c = Model::counts(n, sizeof(std::int32_t));
  CHECK(c.threads == threads);
  if ((n & (n - 1)) == 0) {  // over a power of two, the active threads are those that add: half as many each step
    std::vector<std::size_t> halving;
    for (std::size_t active = threads; active >= 1; active /= 2) halving.push_back(active);
    CHECK(tree_steps_column(c, &StepCounts::active_threads) == halving);
  }
  check_thread_use(c, expected);
  CHECK(Model::text_closed_form(n).thread_slots == text_thread_slots);
}

// For every n: n - 1 additions, every operand inside its array (the input's n elements, or the
// block's partial sums in shared memory), and no step in which one thread reads or writes what
// another writes.
template <typename Model>
void check_every_n_adds_inside_without_races() {
  for (std::size_t n = 1; n <= kMaxElements; ++n) {
    INFO("n = " << n);
    const auto events = Model::predict(std::vector<std::int32_t>(n));
    std::size_t adds = 0;
    for (const auto& e : events)
      if (e.kind == BlockEvent::kAdd) {
        ++adds;
        REQUIRE(e.partner < (e.source_shared ? threads_for(n) : n));
      }
    REQUIRE(adds == n - 1);
    REQUIRE_FALSE(step_has_race(events));
    REQUIRE(Model::counts(n, 4).ops == n - 1);
  }
}

// The trace's result is the exact sum of every input small enough to draw (int).
template <typename Model>
void check_small_traces_sum_exactly() {
  const auto seed = reduction::testing::fresh_seed();
  INFO("seed " << seed);
  for (std::size_t n = 1; n <= kMaxTraceElements; ++n) {
    INFO("n = " << n);
    const auto x = generate_input<std::int32_t>(n, seed);
    CHECK(Model::trace(x).result == reference_sum(x.data(), n).value);
  }
}

}  // namespace reduction::single_block::testing
