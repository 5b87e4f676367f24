// GPU test of a single-block chapter's bug zoo (its list, instructor/zoo/<chapter>.txt; instructor/zoo/GenerateZoo.cmake makes the wrong
// kernels and zoo_list.hpp, which names the chapter and its kernel; instructor/zoo/Zoo.cmake compiles this
// file once per chapter): with some warps' stores held back (common/testing/delayed.cuh), each bug
// that the zoo list gives to the delayed warps gives a wrong result in every one of 100 runs, and the
// solution, held back the same way, a right one in every run. The sizes: the most one block takes
// (2048 elements, 32 warps) and 1000 (16 warps).
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
    // The second half of the warps late: warp 0, whose thread 0 writes the result, runs ahead of
    // the warps whose stores the tree's first steps read. Two other choices failed on an H100:
    // every odd warp late missed a bug whose only race is between warps w and w + 16, both late or
    // both on time (chapter 05's barrier_after_add at n = 2048: 0 runs of 100 wrong), and every
    // warp but warp 0 late let a missing barrier give the right sum in 1 or 2 runs of 100 (with
    // waits of 10^5 and of 10^6 cycles). The choice below did too, once (05's barrier_after_add, 99
    // of 100 on an H100): a stale read can find in shared memory the very value it should have
    // read, left there by an earlier run on the same input. Every run now starts from shared memory
    // filled with -1 (reduction::poison_shared_memory); the other two choices were not tried again.
    const std::uint32_t all = std::uint32_t((1ull << warps) - 1);
    for (const std::uint32_t late : {all & ~std::uint32_t((1ull << (warps / 2)) - 1)}) {
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
}
