// CPU tests of chapter 06's kernel itself, for a student without a GPU: the kernel's own source on
// the CPU emulator as a grid, the blocks in both orders, must give the sum with no finding
// (emulator/README.md lists what it runs and finds).
#include "emulator/emulator_checks.hpp"  // last before the kernel: it ends with the CUDA shim

REDUCTION_EMULATOR_DYNAMIC_SHARED(ch06)  // what the kernel's `extern __shared__ ... shared_bytes[]` names
#define REDUCTION_EMULATOR               // the header's launcher and registry need the CUDA runtime: left out
#include "hierarchical.cuh"

namespace emu = reduction::emulator::testing;
using reduction::emulator::Checked;

// Integers must be exact; floating-point sums within the chapter's depth() of rounded additions.
// Not bit for bit across schedules: the atomics add the blocks' partials in the order the blocks
// run, and each order rounds differently.
TEMPLATE_TEST_CASE("chapter 06's kernel on the CPU emulator: every size, both block sizes, every schedule",
                   "[chapter06][emulator]", std::int32_t, float, double) {
  const auto seed = reduction::testing::fresh_seed();
  const auto check = [](std::size_t n, unsigned block, std::uint64_t case_seed) {
    return emu::check_grid_solution<TestType>("chapter 06", &ch06::hierarchical_kernel<Checked<TestType>>, n,
                                              ch06::block_count(n, int(block)), block, ch06::depth(n, int(block)),
                                              ch06::shared_bytes, case_seed);
  };
  for (unsigned block : emu::kGridBlocks)
    for (std::size_t n : emu::kGridSizes)  // the first size that fails is enough to show
      if (!check(n, block, seed + n)) return;
  check(emu::kLargestBlockSize, emu::kLargestBlock, seed);
}

// Wrong uses of per-block shared memory, written here, that the emulator must catch (a race between
// blocks is the zoo's plain_result_add).
REDUCTION_EMULATOR_DYNAMIC_SHARED(grid_bugs)  // their `extern __shared__` array
namespace grid_bugs {
using Element = Checked<std::int32_t>;

// Block 0 alone fills the dynamic shared memory; every block then reads it. Each block's shared
// memory starts unwritten, whatever the block before it left there.
__global__ void shared_from_block_zero(const Element* input, std::size_t n, Element* result) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  Element* partial = reinterpret_cast<Element*>(shared_bytes);
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (blockIdx.x == 0) partial[threadIdx.x] = input[i < n ? i : 0];
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(result, partial[0]);
}

// One element past the shared memory the launch gave (blockDim.x elements).
__global__ void shared_past_launch(const Element* input, std::size_t n, Element* result) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  Element* partial = reinterpret_cast<Element*>(shared_bytes);
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  partial[threadIdx.x + 1] = input[i < n ? i : 0];
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(result, partial[1]);
}
}  // namespace grid_bugs

TEST_CASE("the CPU emulator on a grid: per-block shared memory", "[chapter06][emulator]") {
  using reduction::emulator::FindingKind;
  const std::size_t n = 1000;
  const unsigned threads = 32, blocks = unsigned((n + threads - 1) / threads);
  const auto input = reduction::generate_input<std::int32_t>(n, reduction::testing::fresh_seed());
  const std::size_t bytes = threads * sizeof(grid_bugs::Element);
  const auto grid = [&](auto kernel) {
    return reduction::emulator::emulate_grid(kernel, input, blocks, threads, bytes, 0, grid_bugs::shared_bytes);
  };
  {
    const auto run = grid(&grid_bugs::shared_from_block_zero);
    INFO(run.describe());
    CHECK(run.has(FindingKind::kUninitializedRead));
  }
  {
    const auto run = grid(&grid_bugs::shared_past_launch);
    INFO(run.describe());
    CHECK(run.has(FindingKind::kOutOfBounds));
  }
}
