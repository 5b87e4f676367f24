// CPU tests of chapter 07's kernel itself, for a student without a GPU: the kernel's own source on
// the CPU emulator as a grid, the blocks in both orders, for several coarsening factors, must give
// the sum with no finding (emulator/README.md lists what it runs and finds).
#include "emulator/emulator_checks.hpp"  // last before the kernel: it ends with the CUDA shim

REDUCTION_EMULATOR_DYNAMIC_SHARED(ch07)  // what the kernel's `extern __shared__ ... shared_bytes[]` names
#define REDUCTION_EMULATOR               // the header's launcher and registry need the CUDA runtime: left out
#include "coarsening.cuh"

namespace emu = reduction::emulator::testing;
using reduction::emulator::Checked;

// Every size and block for one factor; false at the first that fails (enough to show).
template <int kCoarse, typename V>
bool check_factor(std::uint64_t seed) {
  const std::string chapter = "chapter 07 (factor " + std::to_string(kCoarse) + ")";
  const auto check = [&chapter](std::size_t n, unsigned block, std::uint64_t case_seed) {
    return emu::check_grid_solution<V>(chapter.c_str(), &ch07::coarsened_kernel<kCoarse, Checked<V>>, n,
                                       ch07::block_count(n, int(block), kCoarse), block,
                                       ch07::depth<kCoarse>(n, int(block)), ch07::shared_bytes, case_seed);
  };
  for (unsigned block : emu::kGridBlocks)
    for (std::size_t n : emu::kGridSizes)
      if (!check(n, block, seed + n)) return false;
  return check(emu::kLargestBlockSize, emu::kLargestBlock, seed);
}

// Integers must be exact; floating-point sums within the chapter's depth() of rounded additions.
// Not bit for bit across schedules: the atomics add the blocks' partials in the order the blocks
// run, and each order rounds differently.
TEMPLATE_TEST_CASE("chapter 07's kernel on the CPU emulator: factors 1, 2 and 4, every size, every schedule",
                   "[chapter07][emulator]", std::int32_t, float, double) {
  const auto seed = reduction::testing::fresh_seed();
  if (check_factor<1, TestType>(seed) && check_factor<2, TestType>(seed)) check_factor<4, TestType>(seed);
}
