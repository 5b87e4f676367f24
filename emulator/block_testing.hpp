// What the tests of the single-block chapters (03 to 05) share: the counts and trace of a kernel's
// emulated run, checked against the figures of a README, and against a recording on the GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analysis.hpp"
#include "block_events.hpp"
#include "block_model.hpp"
#include "block_trace.hpp"
#include "common/testing/testing.hpp"

namespace reduction::single_block::testing {

// How the steps of a kernel on n elements differ from `pattern`, in words; empty if they do not.
inline std::string pattern_difference(const Steps& steps, std::size_t n, const Pattern& pattern) {
  std::vector<unsigned> strides, expected;
  for (const Step& step : steps.tree)
    if (step.stride) strides.push_back(step.stride);
  for (unsigned s = pattern.strides_double ? 1 : n > 1 ? threads_for(n) : 0; s >= 1 && s < n;
       s = pattern.strides_double ? 2 * s : s / 2)
    expected.push_back(s);
  if (strides != expected)
    return (!strides.empty() && !expected.empty() && strides[0] != expected[0]
                ? "the stride starts at " + std::to_string(strides[0]) + ", not at " +
                      (pattern.strides_double ? "1" : "the block size " + std::to_string(expected[0])) + ": "
                : "") +
           "the strides are " + join(strides) + ", not " + join(expected);
  for (const Step& step : steps.tree)
    for (const Operation& o : step.operations)
      if (o.index != pattern.owner_factor * o.thread)
        return "in the step of stride " + std::to_string(step.stride) + ", thread " + std::to_string(o.thread) +
               " adds into element " + std::to_string(o.index) + ", not into the one it owns, " +
               std::to_string(pattern.owner_factor * o.thread);
  return "";
}

// The chapter's kernel run on x on the CPU emulator: its accesses. A finding fails the test, and so
// does a right kernel that does not follow `pattern` (if given), once a test case, before the
// figures that then differ.
template <typename T>
std::vector<Access> emulated(const std::vector<T>& x, const Pattern* pattern = nullptr) {
  std::string findings;
  std::vector<Access> accesses = emulator::emulate_accesses(x, &findings);
  if (!findings.empty()) FAIL("n = " << x.size() << ": the kernel's emulated run found\n" << findings);
  static std::string told;  // the test case already told
  const std::string test = Catch::getResultCapture().getCurrentTestName();
  if (const std::string differs = pattern ? pattern_difference(steps_of(accesses), x.size(), *pattern) : "";
      !differs.empty() && told != test) {
    told = test;
    FAIL_CHECK(pattern->chapter << "'s kernel gave the right sum at n = " << x.size() << " with no finding on the "
               "CPU emulator, but not in the pattern the chapter asks for, which these figures are about: "
               << differs << ". Such a kernel is correct and fails the exercise (the chapter's README, \"Run it\").");
  }
  return accesses;
}

// The row the counts are taken on: 1, 2, ..., n, on which a kernel that leaves out or repeats
// elements gives a wrong sum (on zeros it would not).
inline std::vector<std::int32_t> counted_row(std::size_t n) {
  std::vector<std::int32_t> row(n);
  for (std::size_t i = 0; i < n; ++i) row[i] = std::int32_t(i + 1);
  return row;
}

// The counts of the kernel's run on n elements of element_bytes each.
using AccessesOf = std::vector<Access> (*)(const std::vector<std::int32_t>&);
inline BlockCounts counts_of(AccessesOf accesses_of, std::size_t n, std::size_t element_bytes) {
  return count(steps_of(accesses_of(counted_row(n))), threads_for(n), element_bytes);
}

// One field of the step table, over the steps of the tree.
template <typename Field>
std::vector<Field> column(const BlockCounts& c, Field StepCounts::*field) {
  std::vector<Field> values;
  for (const auto& s : c.steps)
    if (s.adds) values.push_back(s.*field);
  return values;
}

// How the threads are spent for one n, as a chapter's README derives it.
struct ExpectedThreadUse {
  unsigned threads;
  std::vector<std::size_t> active_warps;
  std::size_t ops, warp_steps, thread_slots;
};

inline void check_thread_use(const BlockCounts& c, const ExpectedThreadUse& expected) {
  CHECK(c.threads == expected.threads);
  CHECK(column(c, &StepCounts::active_warps) == expected.active_warps);
  CHECK(c.ops == expected.ops);
  CHECK(c.warp_steps == expected.warp_steps);
  CHECK(c.thread_slots == expected.thread_slots);
  CHECK(c.efficiency == double(expected.ops) / double(expected.thread_slots));
}

// A launch's global-memory counts, as a chapter's README derives them (max_request_sectors: of each
// step's widest request).
struct ExpectedMemory {
  std::vector<std::size_t> max_request_sectors;
  std::size_t requests, sectors, reads, writes;
};

inline void check_memory(const BlockCounts& c, const ExpectedMemory& expected) {
  CHECK(column(c, &StepCounts::max_request_sectors) == expected.max_request_sectors);
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

// A trace of a small int input, step by step: each step's active threads and the array after it,
// then the result, which must be the input's sum.
using ExpectedSteps = std::vector<std::pair<std::vector<unsigned>, std::vector<int>>>;

inline void check_trace(const Trace<int>& trace, unsigned threads, const ExpectedSteps& expected) {
  CHECK(trace.threads == threads);
  REQUIRE(trace.steps.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("step " << i + 1);
    CHECK(trace.steps[i].active == expected[i].first);
    CHECK(trace.steps[i].values == expected[i].second);
  }
  int sum = 0;
  for (int x : trace.input) sum += x;
  CHECK(trace.result == sum);
}

// Whether, in some step, a thread reads or writes an element that another thread writes in that
// step. None does in these kernels: that lets a step's threads run one after another.
inline bool step_has_race(const Steps& steps) {
  for (const Step& step : steps.tree) {
    std::map<std::pair<Array, std::uint32_t>, std::uint32_t> writer;  // element -> the thread that writes it
    for (const Operation& line : step.operations)
      if (!writer.insert({{line.target, line.index}, line.thread}).second) return true;  // two writers
    for (const Operation& line : step.operations)
      for (std::uint32_t i : {line.first, line.second}) {
        if (i == line.second && line.kind != Operation::kAdd) continue;
        const auto it = writer.find({line.source, i});
        if (it != writer.end() && it->second != line.thread) return true;
      }
  }
  return false;
}

// The sizes the tests sweep, from 1 to kMaxElements: every n up to five warps' worth of pairs
// (160), every power of two from there with its two neighbours, and every 13th n between, so that
// each residue of a warp and of a block's pairs comes up: a tenth of the 2048 sizes.
inline std::vector<std::size_t> swept_sizes() {
  std::vector<std::size_t> sizes;
  for (std::size_t n = 1; n <= kMaxElements; ++n) {
    const bool near_power_of_two = ((n - 1) & (n - 2)) == 0 || (n & (n - 1)) == 0 || ((n + 1) & n) == 0;
    if (n <= 160 || near_power_of_two || n % 13 == 0) sizes.push_back(n);
  }
  return sizes;
}

// For every swept n: n - 1 additions, every operand inside its array (the input's n elements, or
// the block's partial sums), and no step in which one thread touches what another writes.
inline void check_every_n_adds_inside_without_races(AccessesOf accesses_of) {
  for (std::size_t n : swept_sizes()) {
    INFO("n = " << n);
    const Steps steps = steps_of(accesses_of(counted_row(n)));
    std::size_t adds = 0;
    for (const Step& step : steps.tree)
      for (const Operation& line : step.operations) {
        adds += line.kind == Operation::kAdd;
        REQUIRE(line.second < (line.source == Array::kPartial ? threads_for(n) : n));
      }
    REQUIRE(adds == n - 1);
    REQUIRE_FALSE(step_has_race(steps));
  }
}

// Where the steps of two runs (the recording on the GPU and the emulated run) differ, line by line,
// in words; empty if they do not.
inline std::string steps_difference(const Steps& a, const Steps& b) {
  auto line = [](const Operation& o) {
    return "thread " + std::to_string(o.thread) + " stores element " + std::to_string(o.index) + " (level " +
           std::to_string(o.level) + ")";
  };
  auto lines = [&](const std::vector<Operation>& x, const std::vector<Operation>& y) -> std::string {
    if (x.size() != y.size()) return std::to_string(x.size()) + " lines and " + std::to_string(y.size());
    for (std::size_t i = 0; i < x.size(); ++i)
      if (!(x[i] == y[i])) return line(x[i]) + ", and " + line(y[i]);
    return "";
  };
  if (a.tree.size() != b.tree.size())
    return std::to_string(a.tree.size()) + " steps and " + std::to_string(b.tree.size());
  for (std::size_t i = 0; i < a.tree.size(); ++i) {
    const std::string step = "step " + std::to_string(i + 1) + ": ";
    if (a.tree[i].stride != b.tree[i].stride)
      return step + "strides " + std::to_string(a.tree[i].stride) + " and " + std::to_string(b.tree[i].stride);
    if (auto d = lines(a.tree[i].operations, b.tree[i].operations); !d.empty()) return step + d;
  }
  if (auto d = lines(a.results, b.results); !d.empty()) return "the result: " + d;
  return "";
}

}  // namespace reduction::single_block::testing
