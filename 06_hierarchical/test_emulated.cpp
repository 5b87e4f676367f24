// CPU tests of chapter 06's kernel itself, for a student without a GPU: the kernel's own source runs
// on the CPU emulator (03_simple_kernel/single_block/emulator.hpp) as a grid, one fiber per thread,
// the blocks one after another in both orders, and must give the sum with no race (within a block,
// or between blocks on a global element without an atomic), no access out of bounds, no read of
// unwritten shared memory and no barrier that some thread misses.
#include "03_simple_kernel/single_block/emulator_checks.hpp"  // last before the kernel: it ends with the CUDA shim

REDUCTION_EMULATOR_DYNAMIC_SHARED(ch06)  // what the kernel's `extern __shared__ ... shared_bytes[]` names
#define REDUCTION_EMULATOR  // the header's launcher and registry need the CUDA runtime: left out
#include "hierarchical.cuh"

namespace emu = reduction::emulator::testing;
using reduction::emulator::Checked;

// Integers must be exact; floating-point sums within the chapter's depth() of rounded additions.
// Not bit for bit across schedules: the atomics add the blocks' partials in the order the blocks
// run, and each order rounds differently.
TEMPLATE_TEST_CASE("chapter 06's kernel on the CPU emulator: every size, both block sizes, every schedule",
                   "[chapter06][emulator]", std::int32_t, float, double) {
  const auto seed = reduction::testing::fresh_seed();
  for (unsigned block : emu::kGridBlocks)
    for (std::size_t n : emu::kGridSizes)  // the first size that fails is enough to show
      if (!emu::check_grid_solution<TestType>("chapter 06", &ch06::hierarchical_kernel<Checked<TestType>>, n,
                                              ch06::block_count(n, int(block)), block, ch06::depth(n, int(block)),
                                              ch06::shared_bytes, seed + n))
        return;
}
