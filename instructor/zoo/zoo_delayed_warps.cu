// GPU test of a single-block chapter's bug zoo (Zoo.cmake compiles it once per chapter, against the
// chapter's generated zoo_list.hpp): with some warps' stores held back (common/testing/delayed.cuh),
// each bug whose `caught:` names delayed_warps is wrong in every one of 100 runs, and the solution,
// held back the same way, right in every run. n = 2048 (the most one block takes, 32 warps) and 1000.
#include <cstdint>
#include <string>
#include <vector>

#include "emulator/single_block.hpp"
#include "common/program.hpp"
#include "common/testing/delayed.cuh"
#include "common/testing/testing.hpp"
#include "zoo_list.hpp"  // the solution, the bugs, and the chapter's name and kernel

using reduction::Delayed;
using Kernel = decltype(&REDUCTION_ZOO_SOLUTION(Delayed<std::int32_t>));

struct Bug {
  const char* name;
  std::string detectors;
  Kernel kernel;
};

#define REDUCTION_ZOO_BUG(name, ns, detectors, why) Bug{#name, detectors, &REDUCTION_ZOO_KERNEL(ns, Delayed<std::int32_t>)},
const std::vector<Bug> kBugs = {REDUCTION_ZOO_BUGS};
#undef REDUCTION_ZOO_BUG

constexpr int kRuns = 100;

TEST_CASE(REDUCTION_ZOO_CHAPTER "'s zoo: a missing barrier fails in every run once some warps are late",
          REDUCTION_ZOO_TAG "[zoo]") {
  const auto seed = reduction::testing::fresh_seed();
  INFO("seed " << seed);
  for (std::size_t n : {std::size_t(2048), std::size_t(1000)}) {
    const unsigned threads = reduction::single_block::threads_for(n), warps = threads / 32;
    std::vector<std::vector<std::int32_t>> inputs;  // a new input for every run
    std::vector<std::int32_t> sums;
    for (int run = 0; run < kRuns; ++run) {
      // Every element from 1 to 101: whatever a stale read leaves out then changes the sum (with
      // signed elements the part left out could add up to zero, and a wrong kernel pass).
      inputs.push_back(reduction::generate_input<std::int32_t>(n, seed + 1000 * n + run));
      for (std::int32_t& x : inputs.back()) x = (x < 0 ? -x : x) + 1;
      sums.push_back(reduction::reference_sum(inputs.back().data(), n).value);
    }
    // The second half of the warps late: warp 0, whose thread 0 writes the result, runs ahead of the
    // warps whose stores the tree's first steps read (every odd warp late would miss a race between
    // warps w and w + 16). Shared memory starts each run filled with -1 (poison_shared_memory), or a
    // stale read could find the very value it should have read, left there by the run before.
    const std::uint32_t late = std::uint32_t((1ull << warps) - 1) & ~std::uint32_t((1ull << (warps / 2)) - 1);
    INFO("n = " << n << ", late warps (bit w: warp w) 0x" << std::hex << late);
    CHECK(reduction::wrong_runs(&REDUCTION_ZOO_SOLUTION(Delayed<std::int32_t>), inputs, sums, threads, late) == 0);
    int tested = 0;
    for (const auto& bug : kBugs) {
      if (bug.detectors.find("delayed_warps") == std::string::npos) continue;
      INFO("bug " << bug.name);
      CHECK(reduction::wrong_runs(bug.kernel, inputs, sums, threads, late) == kRuns);
      ++tested;
    }
    CHECK(tested > 0);  // a zoo that gives the delayed warps nothing to catch tests nothing
  }
}
