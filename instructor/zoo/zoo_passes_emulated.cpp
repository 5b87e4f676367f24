// CPU test of the bug zoo of chapters 08 and 09 (instructor/README.md; Zoo.cmake compiles it once per
// chapter): each bug whose `caught:` line names the emulator runs in the launches its `passes:` line
// names, as the chapter's launcher makes them, and is caught with those findings; the solution,
// launched the same way, has none. Run with -s to see the findings.
//
// n = 5003 in blocks of 256 threads on a GPU taken to hold 3 blocks (the emulator has no occupancy
// to ask): 3 blocks hand their results on, 8 warps a block make a barrier between warps matter, and
// n is no multiple of the grid's 768 threads, so that the guards matter.
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "emulator/emulator_checks.hpp"  // last before the kernels: it ends with the CUDA shim

// Each namespace's `extern __shared__` memory, defined before its headers; the headers' launchers
// need the CUDA runtime, so they are left out. REDUCTION_ZOO_PASSES asks zoo_list.hpp for each
// bug's ZooPasses_<bug>: its kernel, whether it is one pass, and its shared bytes.
#define REDUCTION_ZOO_PREPARE(ns) REDUCTION_EMULATOR_DYNAMIC_SHARED(ns)
#define REDUCTION_EMULATOR
#define REDUCTION_ZOO_PASSES
#include "zoo_list.hpp"  // the solution, the bugs, and how each is launched

namespace emu = reduction::emulator;
using emu::Checked;
using V = std::int32_t;                             // exact: any bug that changes the sum shows
using SharedMemory = unsigned char (*)[48 * 1024];  // what REDUCTION_EMULATOR_DYNAMIC_SHARED defines

namespace {

constexpr std::size_t kN = 5003;
constexpr int kBlock = 256;
constexpr int kResident = 3;

using Launches = std::vector<emu::Pass<V>>;

// The launches of `Passes` (a ZooPasses_<bug><Checked<V>> of zoo_list.hpp) on a grid of `grid`
// blocks. two_passes: as ch08::launch_two_passes, one block writing the result when the grid has
// one, else the grid's results in the scratch and one block over them. one_pass: as 09's
// launch_fastest_grid, every block's result in the scratch and the last block to count itself
// done adding them.
template <typename Passes>
Launches launches(int grid) {
  const auto kernel = Passes::kernel;
  const unsigned blocks = unsigned(grid), threads = unsigned(kBlock);
  const std::size_t shared = Passes::shared_bytes(kBlock);
  if constexpr (Passes::kOnePass) {
    return {{blocks, threads, shared,
             [kernel](const emu::PassMemory<V>& m) { kernel(m.input, m.n, m.partials, m.result, m.blocks_done); }}};
  } else {
    if (grid == 1)
      return {{1, threads, shared, [kernel](const emu::PassMemory<V>& m) { kernel(m.input, m.n, m.result); }}};
    return {{blocks, threads, shared, [kernel](const emu::PassMemory<V>& m) { kernel(m.input, m.n, m.partials); }},
            {1, threads, shared,
             [kernel, grid](const emu::PassMemory<V>& m) { kernel(m.partials, std::size_t(grid), m.result); }}};
  }
}

struct Bug {
  const char* name;
  std::string detectors;
  Launches (*bug)(int grid);
  Launches (*solution)(int grid);
  SharedMemory bug_shared, solution_shared;  // each namespace's `extern __shared__` memory
};

}  // namespace

#define REDUCTION_ZOO_PASSES_BUG(name, ns, solution_ns, detectors) \
  Bug{#name,                                                       \
      detectors,                                                   \
      &launches<ns::ZooPasses_##name<Checked<V>>>,                 \
      &launches<solution_ns::ZooPasses_##name<Checked<V>>>,        \
      &ns::shared_bytes,                                           \
      &solution_ns::shared_bytes},
const std::vector<Bug> kBugs = {REDUCTION_ZOO_PASSES_BUGS};
#undef REDUCTION_ZOO_PASSES_BUG

TEST_CASE(REDUCTION_ZOO_CHAPTER
          "'s zoo on the CPU emulator, in its launchers' launches: every bug it should catch is "
          "caught",
          REDUCTION_ZOO_TAG "[zoo][emulator]") {
  const auto seed = reduction::testing::fresh_seed();
  const auto input = reduction::generate_input<V>(kN, seed);
  const int grid = ch08::grid_for(kN, kBlock, kResident);
  REQUIRE(grid == kResident);  // blocks that hand their results on: what these bugs get wrong
  emu::PassesOptions options;
  options.partials = std::size_t(grid);
  int caught = 0;
  for (const Bug& bug : kBugs) {
    // The solution first: findings there would make the bug's meaningless. Ints are exact, so no
    // depth of rounded additions is needed.
    emu::testing::check_passes_solution<V>(
        std::string(REDUCTION_ZOO_CHAPTER "'s solution (launched as for bug ") + bug.name + ")", bug.solution(grid), kN,
        options, *bug.solution_shared, seed);
    const Launches launched = bug.bug(grid);
    const auto run = emu::emulate_passes(input, launched, options, *bug.bug_shared);
    INFO(REDUCTION_ZOO_CHAPTER << "'s bug " << bug.name << " (caught: " << bug.detectors
                               << "), on the CPU emulator: n = " << kN << ", " << emu::testing::launches_text(launched)
                               << ", seed " << seed << "\n"
                               << run.describe());
    CHECK_FALSE(run.findings.empty());
    for (const std::string& kind : emu::testing::expected_kinds(bug.detectors)) {
      bool found = false;
      for (const auto& f : run.findings) found = found || kind == emu::kind_name(f.kind);
      INFO("the finding the zoo list names: " << kind);
      CHECK(found);
    }
    std::cout << REDUCTION_ZOO_CHAPTER << " zoo, " << bug.name << " at n = " << kN << ", "
              << emu::testing::launches_text(launched) << ":\n";
    for (const auto& f : run.findings)
      std::cout << "  " << emu::kind_name(f.kind) << " (schedule " << f.schedule << "): " << f.message << "\n";
    ++caught;
  }
  CHECK(caught > 0);  // a zoo that gives the emulator nothing to catch tests nothing
}
