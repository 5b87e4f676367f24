// CPU test of a chapter's bug zoo (Zoo.cmake compiles it once per chapter, against the chapter's
// generated zoo_list.hpp): every bug whose `caught:` names the emulator is caught, with the findings
// named there, and the solution, launched the same way, has none; a `pattern` bug (03-05) the
// emulator passes, and the chapter's pattern check (block_testing.hpp) tells it apart from the
// solution. -s shows the findings. The launch:
//   one block (03-05)              n = 1000: not a power of two, so the guards matter, and 16 warps
//   REDUCTION_ZOO_GRID (06, 07)    n = 1000 in blocks of 64 threads: not a multiple of a block's
//                                  segment, and a barrier between two warps
//   REDUCTION_ZOO_PASSES (08, 09)  the launches of each bug's `passes:`: n = 5003 (no multiple of the
//                                  grid's threads) in blocks of 256 on a GPU taken to hold 3 blocks
//                                  at once, so that 3 blocks hand their results on
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#if !defined(REDUCTION_ZOO_GRID) && !defined(REDUCTION_ZOO_PASSES)
#include "analysis.hpp"  // the chapter's pattern
#include "emulator/block_testing.hpp"
#endif
#include "emulator/emulator_checks.hpp"  // last before the kernels: it ends with the CUDA shim

#if defined(REDUCTION_ZOO_GRID) || defined(REDUCTION_ZOO_PASSES)
// Each namespace's `extern __shared__` memory, defined before its headers; the launchers, which
// need the CUDA runtime, are left out. REDUCTION_ZOO_PASSES: each bug's ZooPasses_<bug>.
#define REDUCTION_ZOO_PREPARE(ns) REDUCTION_EMULATOR_DYNAMIC_SHARED(ns)
#define REDUCTION_EMULATOR
#endif
#include "zoo_list.hpp"  // the solution, the bugs, and the chapter's name and kernel

namespace emu = reduction::emulator;
using emu::Checked;
using V = std::int32_t;                             // exact: any bug that changes the sum shows
using SharedMemory = unsigned char (*)[48 * 1024];  // what REDUCTION_EMULATOR_DYNAMIC_SHARED defines

namespace {

#if defined(REDUCTION_ZOO_PASSES)
constexpr std::size_t kN = 5003;
constexpr int kBlock = 256;
constexpr int kResident = 3;

using Launches = std::vector<emu::Pass<V>>;

// The launches of `Passes` on `grid` blocks. two_passes, as ch08::launch_two_passes: one block
// writing the result when the grid has one, else the grid's results in the scratch and one block
// over them. one_pass, as 09's launch_fastest_grid: the last block to finish adds the results.
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

#else
constexpr std::size_t kN = 1000;
using Kernel = decltype(&REDUCTION_ZOO_SOLUTION(Checked<V>));
#endif
#if defined(REDUCTION_ZOO_GRID)
constexpr unsigned kThreads = 64;
#endif

struct Bug {
  const char* name;
  std::string detectors;
#if defined(REDUCTION_ZOO_PASSES)
  Launches (*bug)(int grid);
  Launches (*solution)(int grid);
  SharedMemory bug_shared, solution_shared;  // each namespace's `extern __shared__` memory
#else
  Kernel kernel;
#endif
#if defined(REDUCTION_ZOO_GRID)
  std::size_t blocks;
  SharedMemory shared;
#endif
};

#define REDUCTION_ZOO_PASSES_BUG(name, ns, solution_ns, detectors)                                       \
  Bug{#name, detectors, &launches<ns::ZooPasses_##name<Checked<V>>>,                                     \
      &launches<solution_ns::ZooPasses_##name<Checked<V>>>, &ns::shared_bytes, &solution_ns::shared_bytes},
#if defined(REDUCTION_ZOO_GRID)
#define REDUCTION_ZOO_BUG(name, ns, detectors, why)            \
  Bug{#name, detectors, &REDUCTION_ZOO_KERNEL(ns, Checked<V>), \
      std::size_t(REDUCTION_ZOO_BLOCKS(ns, kN, int(kThreads))), &ns::shared_bytes},
#else
#define REDUCTION_ZOO_BUG(name, ns, detectors, why) Bug{#name, detectors, &REDUCTION_ZOO_KERNEL(ns, Checked<V>)},
#endif
#if defined(REDUCTION_ZOO_PASSES)
const std::vector<Bug> kBugs = {REDUCTION_ZOO_PASSES_BUGS};
#else
const std::vector<Bug> kBugs = {REDUCTION_ZOO_BUGS};
#endif

}  // namespace

TEST_CASE(REDUCTION_ZOO_CHAPTER "'s zoo on the CPU emulator: every bug it should catch is caught",
          REDUCTION_ZOO_TAG "[zoo][emulator]") {
  const auto seed = reduction::testing::fresh_seed();
  [[maybe_unused]] const auto input = reduction::generate_input<V>(kN, seed);
#if defined(REDUCTION_ZOO_PASSES)
  const int grid = ch08::grid_for(kN, kBlock, kResident);
  REQUIRE(grid == kResident);  // blocks that hand their results on: what these bugs get wrong
  emu::PassesOptions options;
  options.partials = std::size_t(grid);
#elif !defined(REDUCTION_ZOO_GRID)
  emu::testing::check_solution<V>(REDUCTION_ZOO_CHAPTER, &REDUCTION_ZOO_SOLUTION(Checked<V>), kN, 1, seed);
  const auto difference = [&](Kernel kernel) {  // how the kernel's steps differ from the chapter's pattern
    const auto run = emu::record_accesses(kernel, input, reduction::single_block::threads_for(kN));
    INFO(emu::findings_text(run.findings));
    CHECK(run.findings.empty());
    namespace sb = reduction::single_block;
    return sb::testing::pattern_difference(sb::steps_of(run.accesses), kN, REDUCTION_ZOO_NAMESPACE::kPattern);
  };
  CHECK(difference(&REDUCTION_ZOO_SOLUTION(Checked<V>)).empty());
#endif
  int caught = 0;
  for (const Bug& bug : kBugs) {
#if defined(__SANITIZE_ADDRESS__)
    // An index past a declared array is undefined behaviour, at which the sanitizers' build stops
    // by design (as in emulator/test_emulator.cpp): the fixed_shared_* bugs run in the other builds.
    if (std::string(bug.name).rfind("fixed_shared", 0) == 0) continue;
#endif
#if defined(REDUCTION_ZOO_PASSES)
    // The solution first: findings there would make the bug's meaningless.
    emu::testing::check_passes_solution<V>(
        std::string(REDUCTION_ZOO_CHAPTER "'s solution (launched as for bug ") + bug.name + ")", bug.solution(grid), kN,
        options, *bug.solution_shared, seed);
    const Launches launched = bug.bug(grid);
    emu::testing::check_caught(
        REDUCTION_ZOO_CHAPTER, bug.name, bug.detectors,
        "n = " + std::to_string(kN) + ", " + emu::testing::launches_text(launched) + ", seed " + std::to_string(seed),
        emu::emulate_passes(input, launched, options, *bug.bug_shared));
#elif defined(REDUCTION_ZOO_GRID)
    if (!emu::testing::names_emulator(bug.detectors)) continue;
    // The solution on the same launch first (no bug of the zoo edits the block count), in its own
    // namespace's `extern __shared__` memory: another's is, to the emulator, no memory of this kernel.
    emu::testing::check_grid_solution<V>(REDUCTION_ZOO_CHAPTER, &REDUCTION_ZOO_SOLUTION(Checked<V>), kN, bug.blocks,
                                         kThreads, 0, REDUCTION_ZOO_NAMESPACE::shared_bytes, seed);
    emu::testing::check_caught(REDUCTION_ZOO_CHAPTER, bug.name, bug.detectors,
                               "n = " + std::to_string(kN) + ", " + std::to_string(bug.blocks) + " blocks of " +
                                   std::to_string(kThreads) + " threads, seed " + std::to_string(seed),
                               emu::emulate_grid(bug.kernel, input, unsigned(bug.blocks), kThreads,
                                                 kThreads * sizeof(Checked<V>), 0, *bug.shared));
#else
    if (bug.detectors == "pattern") {
      const std::string differs = difference(bug.kernel);
      CHECK_FALSE(differs.empty());
      std::cout << REDUCTION_ZOO_CHAPTER << " zoo, " << bug.name << " at n = " << kN << ": " << differs << "\n";
      ++caught;
      continue;
    }
    if (!emu::testing::names_emulator(bug.detectors)) continue;
    // Two rows: a read past the end of row 0 lands in row 1, which must be caught all the same.
    emu::testing::check_caught(REDUCTION_ZOO_CHAPTER, bug.name, bug.detectors,
                               "n = " + std::to_string(kN) + ", 2 rows, seed " + std::to_string(seed),
                               emu::emulate(bug.kernel, reduction::generate_input<V>(2 * kN, seed),
                                            reduction::single_block::threads_for(kN), 2));
#endif
    ++caught;
  }
  CHECK(caught > 0);  // a zoo that gives the emulator nothing to catch tests nothing
}
