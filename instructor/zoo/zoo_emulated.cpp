// CPU test of a single-block chapter's bug zoo (instructor/README.md; Zoo.cmake compiles it once per
// chapter): the emulator catches each bug with the findings its `caught:` line names, and finds
// nothing in the solution; a `pattern` kernel it passes, and the chapter's pattern check
// (block_testing.hpp) tells it apart from the solution. At n = 1000: the guards matter, 16 warps.
// Run with -s to see the findings.
#include <string>
#include <vector>

#include "analysis.hpp"  // the chapter's pattern
#include "emulator/block_testing.hpp"
#include "emulator/emulator_checks.hpp"  // last before the kernels: it ends with the CUDA shim
#include "zoo_list.hpp"  // the solution, the bugs, and the chapter's name and kernel

namespace emu = reduction::emulator::testing;
using reduction::emulator::Checked;
using Kernel = decltype(&REDUCTION_ZOO_SOLUTION(Checked<std::int32_t>));

struct Bug {
  const char* name;
  std::string detectors;
  Kernel kernel;
};

#define REDUCTION_ZOO_BUG(name, ns, detectors, why) Bug{#name, detectors, &REDUCTION_ZOO_KERNEL(ns, Checked<std::int32_t>)},
const std::vector<Bug> kBugs = {REDUCTION_ZOO_BUGS};
#undef REDUCTION_ZOO_BUG

TEST_CASE(REDUCTION_ZOO_CHAPTER "'s zoo on the CPU emulator: every bug it should catch is caught",
          REDUCTION_ZOO_TAG "[zoo][emulator]") {
  const auto seed = reduction::testing::fresh_seed();
  constexpr std::size_t n = 1000;
  emu::check_solution<std::int32_t>(REDUCTION_ZOO_CHAPTER, &REDUCTION_ZOO_SOLUTION(Checked<std::int32_t>), n, 1, seed);
  int caught = 0;
  const auto difference = [&](Kernel kernel) {
    const auto run = reduction::emulator::record_accesses(kernel, reduction::generate_input<std::int32_t>(n, seed),
                                                          reduction::single_block::threads_for(n));
    INFO(reduction::emulator::findings_text(run.findings));
    CHECK(run.findings.empty());
    namespace sb = reduction::single_block;
    return sb::testing::pattern_difference(sb::steps_of(run.accesses), n, REDUCTION_ZOO_NAMESPACE::kPattern);
  };
  CHECK(difference(&REDUCTION_ZOO_SOLUTION(Checked<std::int32_t>)).empty());
  for (const Bug& bug : kBugs) {
    if (bug.detectors == "pattern") {
      const std::string differs = difference(bug.kernel);
      CHECK_FALSE(differs.empty());
      std::cout << REDUCTION_ZOO_CHAPTER << " zoo, " << bug.name << " at n = " << n << ": " << differs << "\n";
      ++caught;
    }
    if (!emu::names_emulator(bug.detectors)) continue;
    emu::check_bug_caught<std::int32_t>(REDUCTION_ZOO_CHAPTER, bug.name, bug.detectors, bug.kernel, n, seed);
    ++caught;
  }
  CHECK(caught > 0);  // a zoo that gives the emulator nothing to catch tests nothing
}
