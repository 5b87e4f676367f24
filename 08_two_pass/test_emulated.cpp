// CPU tests of chapter 08's kernel itself, for a student without a GPU: the kernel's own source on
// the CPU emulator, in the launches each finish makes, the blocks in both orders, must give the sum
// with no finding (emulator/README.md lists what it runs and finds).
#include "emulator/emulator_checks.hpp"  // last before the kernel: it ends with the CUDA shim

REDUCTION_EMULATOR_DYNAMIC_SHARED(ch08)  // what the kernel's `extern __shared__ ... shared_bytes[]` names
#define REDUCTION_EMULATOR               // the header's launchers and registry need the CUDA runtime: left out
#include "two_pass.cuh"

namespace emu = reduction::emulator;
using ch08::Handoff;
using emu::Checked;

namespace {

// The grid of a GPU that holds 3 blocks at once: grid_for gives 1 to 3 blocks, as grid_size does
// on a device (the emulator has no occupancy to ask).
constexpr int kResident = 3;
// One element, either side of a warp, of one block and of the grid's threads, and sizes whose
// grid-stride loops end in the four-load rounds and in the one-at-a-time tail.
const std::vector<std::size_t> kSizes = {1, 2, 3, 31, 33, 97, 1000, 1025, 5003};
// The smallest block the chapter takes, and the largest.
const std::vector<int> kBlocks = {32, 1024};

template <typename V>
using Passes = std::vector<emu::Pass<V>>;

// The launch of `grid` blocks over the input, as launch_finish_cpu and launch_finish_kernel make it.
template <typename V>
emu::Pass<V> store_partials(int grid, int block) {
  return {unsigned(grid), unsigned(block), block * sizeof(Checked<V>),
          [](const emu::PassMemory<V>& m) { ch08::two_pass_kernel<Handoff::Store>(m.input, m.n, m.partials); }};
}

// The second launch of finish_kernel: one block over `count` partials.
template <typename V>
emu::Pass<V> add_partials(std::size_t count, int block) {
  return {1, unsigned(block), block * sizeof(Checked<V>),
          [count](const emu::PassMemory<V>& m) { ch08::two_pass_kernel<Handoff::Store>(m.partials, count, m.result); }};
}

template <typename V>
emu::Pass<V> add_atomically(int grid, int block) {
  return {unsigned(grid), unsigned(block), block * sizeof(Checked<V>),
          [](const emu::PassMemory<V>& m) { ch08::two_pass_kernel<Handoff::AtomicAdd>(m.input, m.n, m.result); }};
}

template <typename V>
bool check_finishes(std::size_t n, int block, std::uint64_t seed) {
  const int grid = ch08::grid_for(n, block, kResident);
  // The depths of depth_finish_chain and depth_finish_kernel (kernels.cuh), for this grid: the
  // rounded additions, all but the first of each loop, into the identity.
  const std::size_t first = ch08::grid_stride_additions(n, std::size_t(grid) * block, reduction::ceil_log2(block)) - 1;
  emu::PassesOptions options;
  options.partials = std::size_t(grid);

  // finish_kernel: a fixed order of additions, so the same bits in every schedule.
  options.answer = emu::Answer::kResult;
  options.depth = first + ch08::grid_stride_additions(grid, block, reduction::ceil_log2(block)) - 1;
  options.same_bits = true;
  if (!emu::testing::check_passes_solution<V>("chapter 08's finish_kernel",
                                              {store_partials<V>(grid, block), add_partials<V>(grid, block)}, n,
                                              options, ch08::shared_bytes, seed))
    return false;

  // finish_cpu: the partials, each written, added by the host in order.
  options.answer = emu::Answer::kPartialsOnHost;
  options.depth = first + std::size_t(grid) - 1;
  if (!emu::testing::check_passes_solution<V>("chapter 08's finish_cpu", {store_partials<V>(grid, block)}, n, options,
                                              ch08::shared_bytes, seed))
    return false;

  // finish_atomic: the blocks add in the order they run, so floats may differ by rounding.
  options.answer = emu::Answer::kResultFromIdentity;
  options.same_bits = false;
  return emu::testing::check_passes_solution<V>("chapter 08's finish_atomic", {add_atomically<V>(grid, block)}, n,
                                                options, ch08::shared_bytes, seed);
}

}  // namespace

// Integers must be exact; floating-point sums within the chapter's depth of rounded additions.
TEMPLATE_TEST_CASE("chapter 08's kernel on the CPU emulator: the three finishes, every size, both block sizes",
                   "[chapter08][emulator]", std::int32_t, float, double) {
  const auto seed = reduction::testing::fresh_seed();
  for (int block : kBlocks)
    for (std::size_t n : kSizes)  // the first size that fails is enough to show
      if (!check_finishes<TestType>(n, block, seed + n)) return;
}

// Wrong launches and a wrong kernel that the emulator must catch: without these, a check that
// found nothing ever would pass the solution above all the same.
namespace two_pass_bugs {
using Element = Checked<std::int32_t>;

// Every block stores its partial in out[0] instead of out[blockIdx.x] (one thread a block adds the
// block's grid-stride share: the lesson here is where the partial goes, not the tree).
__global__ void every_block_stores_first(const Element* input, std::size_t n, Element* out) {
  if (threadIdx.x != 0) return;
  Element sum(0);
  for (std::size_t i = blockIdx.x; i < n; i += gridDim.x) sum = sum + input[i];
  out[0] = sum;
}
}  // namespace two_pass_bugs

TEST_CASE("the CPU emulator catches wrong two-pass launches", "[chapter08][emulator]") {
  using emu::FindingKind;
  using V = std::int32_t;
  const std::size_t n = 1000;
  const int block = 32, grid = ch08::grid_for(n, block, kResident);
  REQUIRE(grid == 3);
  const auto input = reduction::generate_input<V>(n, reduction::testing::fresh_seed());
  emu::PassesOptions options;
  options.partials = std::size_t(grid);
  options.depth = 0;
  const auto emulate = [&](const Passes<V>& passes) {
    return emu::emulate_passes(input, passes, options, ch08::shared_bytes);
  };
  {
    // The second launch told of one partial too many: it reads past the partials the first wrote.
    const auto run = emulate({store_partials<V>(grid, block), add_partials<V>(grid + 1, block)});
    INFO(run.describe());
    CHECK(run.has(FindingKind::kOutOfBounds));
    CHECK(run.describe().find("partials[3]") != std::string::npos);
  }
  {
    // The first launch given one block fewer than the second adds: a partial nobody stored.
    const auto run = emulate({store_partials<V>(grid - 1, block), add_partials<V>(grid, block)});
    INFO(run.describe());
    CHECK(run.has(FindingKind::kUninitializedRead));
  }
  {
    const emu::Pass<V> first{unsigned(grid), unsigned(block), 0, [](const emu::PassMemory<V>& m) {
                               two_pass_bugs::every_block_stores_first(m.input, m.n, m.partials);
                             }};
    const auto run = emulate({first, add_partials<V>(grid, block)});
    INFO(run.describe());
    CHECK(run.has(FindingKind::kRace));               // the blocks' stores to out[0]
    CHECK(run.has(FindingKind::kUninitializedRead));  // partials[1] and [2], never stored
  }
}
