// CPU test of a grid chapter's bug zoo (06 and 07; instructor/README.md; Zoo.cmake compiles it once
// per chapter): the emulator, run as a grid, catches each bug with the findings its `caught:` line
// names, and finds nothing in the solution launched the same way. At n = 1000 in blocks of 64
// threads: the guards matter, and a barrier between two warps. Run with -s to see the findings.
#include <string>
#include <vector>

#include "emulator/emulator_checks.hpp"  // last before the kernels: it ends with the CUDA shim

// Each namespace's `extern __shared__` memory, defined before its header; the headers' launchers
// and registries need the CUDA runtime, so they are left out.
#define REDUCTION_ZOO_PREPARE(ns) REDUCTION_EMULATOR_DYNAMIC_SHARED(ns)
#define REDUCTION_EMULATOR
#include "zoo_list.hpp"  // the solution, the bugs, and the chapter's name, kernel and block count

namespace emu = reduction::emulator::testing;
using reduction::emulator::Checked;
using Kernel = decltype(&REDUCTION_ZOO_SOLUTION(Checked<std::int32_t>));
using SharedMemory = unsigned char (*)[48 * 1024];  // what REDUCTION_EMULATOR_DYNAMIC_SHARED defines

constexpr std::size_t kN = 1000;
constexpr unsigned kThreads = 64;

struct Bug {
  const char* name;
  std::string detectors;
  Kernel kernel;
  std::size_t blocks;
  SharedMemory shared;
};

#define REDUCTION_ZOO_BUG(name, ns, detectors, why)                       \
  Bug{#name, detectors, &REDUCTION_ZOO_KERNEL(ns, Checked<std::int32_t>), \
      std::size_t(REDUCTION_ZOO_BLOCKS(ns, kN, int(kThreads))), &ns::shared_bytes},
const std::vector<Bug> kBugs = {REDUCTION_ZOO_BUGS};
#undef REDUCTION_ZOO_BUG

TEST_CASE(REDUCTION_ZOO_CHAPTER "'s zoo on the CPU emulator, as a grid: every bug it should catch is caught",
          REDUCTION_ZOO_TAG "[zoo][emulator]") {
  const auto seed = reduction::testing::fresh_seed();
  const auto input = reduction::generate_input<std::int32_t>(kN, seed);
  int caught = 0;
  for (const Bug& bug : kBugs) {
    if (!emu::names_emulator(bug.detectors)) continue;
    // The solution on the same launch first: findings there would make the bug's meaningless.
    // Its blocks are the bug's (no bug of the zoo edits the block count).
    emu::check_grid_solution<std::int32_t>(REDUCTION_ZOO_CHAPTER, &REDUCTION_ZOO_SOLUTION(Checked<std::int32_t>), kN,
                                           bug.blocks, kThreads, 0, *bug.shared, seed);
    const auto run = reduction::emulator::emulate_grid(bug.kernel, input, unsigned(bug.blocks), kThreads,
                                                       kThreads * sizeof(Checked<std::int32_t>), 0, *bug.shared);
    INFO(REDUCTION_ZOO_CHAPTER << "'s bug " << bug.name << " (caught: " << bug.detectors
                               << "), on the CPU emulator: n = " << kN << ", " << bug.blocks << " blocks of "
                               << kThreads << " threads, seed " << seed << "\n"
                               << run.describe());
    CHECK_FALSE(run.findings.empty());
    for (const std::string& kind : emu::expected_kinds(bug.detectors)) {
      bool found = false;
      for (const auto& f : run.findings) found = found || kind == reduction::emulator::kind_name(f.kind);
      INFO("the finding the zoo list names: " << kind);
      CHECK(found);
    }
    std::cout << REDUCTION_ZOO_CHAPTER << " zoo, " << bug.name << " at n = " << kN << ", " << bug.blocks
              << " blocks of " << kThreads << ":\n";
    for (const auto& f : run.findings)
      std::cout << "  " << reduction::emulator::kind_name(f.kind) << " (schedule " << f.schedule << "): " << f.message
                << "\n";
    ++caught;
  }
  CHECK(caught > 0);  // a zoo that gives the emulator nothing to catch tests nothing
}
