// CPU tests of chapter 09's kernels themselves, for a student without a GPU: each kernel's own source
// runs on the CPU emulator (emulator/emulator.hpp) in the launches its launcher makes, the lanes of
// a warp in adversarial orders, the blocks in both orders: sums, `exact`'s correctly rounded sum bit
// for bit, and max and min of NaN, -0 and infinities, with no finding. warp_volatile, the cautionary
// example, must be found racing. (fastest's warp_total takes its shuffle path here.)
#include <random>
#include <utility>

#include "exact_cases.hpp"  // before the shim: the standard library alone
#include "emulator/emulator_checks.hpp"  // last before the kernels: it ends with the CUDA shim

REDUCTION_EMULATOR_DYNAMIC_SHARED(ch09)  // what the warp finishes' `extern __shared__ ... shared_bytes[]` names
#define REDUCTION_EMULATOR               // the headers' launchers need the CUDA runtime: left out
#include "fastest.cuh"
#include "fastest_small.cuh"
#include "same_bits.cuh"
#include "shuffle.cuh"
#include "unrolled.cuh"
#include "warp_finish.cuh"

namespace emu = reduction::emulator;
using emu::Checked;
using reduction::Sum;

namespace {

// The grid of a GPU that holds 3 blocks at once (the emulator has no occupancy to ask).
constexpr int kResident = 3;
const std::vector<std::size_t> kSizes = {1, 2, 3, 31, 33, 97, 1000, 1025, 5003};

template <typename V>
using Passes = std::vector<emu::Pass<V>>;
template <typename V>
using Kernel = void (*)(const Checked<V>*, std::size_t, Checked<V>*);

// The launches of ch08::launch_two_passes: with one block, that block writes the result; otherwise
// `grid` blocks write their results to the scratch, and one block reduces those.
template <typename V>
Passes<V> two_passes(Kernel<V> kernel, int block, int grid, std::size_t shared_bytes) {
  const unsigned threads = unsigned(block);
  if (grid == 1)
    return {{1, threads, shared_bytes, [kernel](const emu::PassMemory<V>& m) { kernel(m.input, m.n, m.result); }}};
  return {{unsigned(grid), threads, shared_bytes,
           [kernel](const emu::PassMemory<V>& m) { kernel(m.input, m.n, m.partials); }},
          {1, threads, shared_bytes,
           [kernel, grid](const emu::PassMemory<V>& m) { kernel(m.partials, std::size_t(grid), m.result); }}};
}

// Sums at each of kSizes through the launches `build(n, options)` makes (none: skipped), within the
// depth it sets, the same bits in every schedule. False at the first size that fails.
template <typename V, typename Build>
bool check_sizes(const std::string& name, Build build, std::size_t misalignment, std::uint64_t seed) {
  for (std::size_t n : kSizes) {
    emu::PassesOptions options;
    options.same_bits = true;
    options.misalignment = misalignment;
    const Passes<V> passes = build(n, options);
    if (!passes.empty() &&
        !emu::testing::check_passes_solution<V>(name, passes, n, options, ch09::shared_bytes, seed + n))
      return false;
  }
  return true;
}

// A kernel of the two-pass shape whose block tree has `tree` levels.
template <typename V>
bool check_two_passes(const std::string& name, Kernel<V> kernel, int block, std::size_t shared_bytes, std::size_t tree,
                      std::uint64_t seed) {
  const auto build = [&](std::size_t n, emu::PassesOptions& options) {
    const int grid = ch08::grid_for(n, block, kResident);
    options.partials = std::size_t(grid);
    options.depth = ch08::two_pass_additions(n, block, grid, tree);
    return two_passes<V>(kernel, block, grid, shared_bytes);
  };
  return check_sizes<V>(name + " (block " + std::to_string(block) + ")", build, 0, seed);
}

// unrolled at each of kBlocks, until one fails.
template <typename V, int... kBlocks>
bool check_unrolled(std::uint64_t seed) {
  return (check_two_passes<V>("chapter 09's unrolled", &ch09::unrolled_kernel<kBlocks, Checked<V>>, kBlocks, 0,
                              reduction::ceil_log2(kBlocks), seed) && ...);
}

// fastest's grid path with the knobs of one configuration, as launch_fastest_grid launches it on a
// GPU of kResident blocks: its launches for n, their partials and depth set in `options`.
template <typename Op, typename V, bool kWide, int kLoads, bool kOnePass, bool kChunked>
Passes<V> fastest_grid_passes(std::size_t n, int block, emu::PassesOptions& options) {
  using T = Checked<V>;
  const auto kernel = &ch09::fastest_kernel<Op, T, kWide, kLoads, kOnePass, kChunked>;
  const int grid = ch08::grid_for(n, std::size_t(block) * kLoads * ch09::Lanes<T, kWide>::count, kResident);
  options.partials = std::size_t(grid);
  options.depth = ch09::grid_path_depth<T, kWide>(n, block, grid);
  if (kOnePass)
    return {{unsigned(grid), unsigned(block), 0,
             [kernel](const emu::PassMemory<V>& m) { kernel(m.input, m.n, m.partials, m.result, m.blocks_done); }}};
  const Kernel<V> two_pass = [](const T* input, std::size_t count, T* out) {
    ch09::fastest_kernel<Op, T, kWide, kLoads, kOnePass, kChunked>(input, count, out, nullptr, nullptr);
  };
  return two_passes<V>(two_pass, block, grid, 0);
}

template <typename V, bool kWide, int kLoads, bool kOnePass, bool kChunked>
bool check_fastest_grid(int block, std::size_t misalignment, std::uint64_t seed) {
  const std::string name = std::string("chapter 09's fastest_kernel (") + (kWide ? "16-byte loads" : "element loads") +
                           ", " + std::to_string(kLoads) + " in flight, " + (kOnePass ? "one pass" : "two passes") +
                           (kChunked ? ", chunked" : ", grid-stride") + ", block " + std::to_string(block) + ")";
  const auto build = [block](std::size_t n, emu::PassesOptions& options) {
    return fastest_grid_passes<Sum, V, kWide, kLoads, kOnePass, kChunked>(n, block, options);
  };
  return check_sizes<V>(name, build, misalignment, seed);
}

// fastest's single-block path, its block from single_block_threads and its kernel from the
// header's own table, as launch_single_block picks them; no launch where n takes the grid path.
template <typename Op, typename V>
Passes<V> single_block_passes(std::size_t n, emu::PassesOptions& options) {
  using T = Checked<V>;
  static constexpr auto table =
      ch09::single_block_kernels<Op, T>(std::make_integer_sequence<int, ch09::kSingleBlockSizes>{});
  const int threads = ch09::single_block_threads<T>(n);
  if (threads == 0) return {};
  const auto kernel = table[ch09::single_block_index(threads)];
  options.depth = ch09::single_block_depth<T>();
  return {{1, unsigned(threads), 0, [kernel](const emu::PassMemory<V>& m) { kernel(m.input, m.n, m.result); }}};
}

}  // namespace

// Integers must be exact; floating-point sums within the depth the chapter's depth functions count,
// and the same bits in every order of the threads and blocks.
// One test case a kernel, so that each kernel a student has not written yet fails on its own.
TEMPLATE_TEST_CASE("chapter 09's warp_syncwarp on the CPU emulator: every size, blocks of 32, 64 and 1024",
                   "[chapter09][emulator]", std::int32_t, float, double) {
  using T = Checked<TestType>;
  const auto seed = reduction::testing::fresh_seed();
  for (int block : {32, 64, 1024}) {
    const std::size_t slots = ch09::warp_finish_slots(block);  // the tree padded to 64 values
    if (!check_two_passes<TestType>("chapter 09's warp_syncwarp", &ch09::warp_syncwarp_kernel<T>, block,
                                    slots * sizeof(T), reduction::ceil_log2(slots), seed))
      return;
  }
}

TEMPLATE_TEST_CASE("chapter 09's shuffle on the CPU emulator: every size, blocks of 32, 64 and 1024",
                   "[chapter09][emulator]", std::int32_t, float, double) {
  using T = Checked<TestType>;
  const auto seed = reduction::testing::fresh_seed();
  for (int block : {32, 64, 1024})
    if (!check_two_passes<TestType>("chapter 09's shuffle", &ch09::shuffle_kernel<Sum, T>, block, 0, ch09::kShuffleTree,
                                    seed))
      return;
}

TEMPLATE_TEST_CASE("chapter 09's unrolled on the CPU emulator: blocks of 1, 8, 32, 64 and 1024 threads",
                   "[chapter09][emulator]", std::int32_t, float, double) {
  check_unrolled<TestType, 1, 8, 32, 64, 1024>(reduction::testing::fresh_seed());
}

// fastest's tile path as launch_fastest_tiles launches it for max and min: tile_kernel, then
// fold_kernel. (Sums too, here: on the GPU a sum's tiles hand their totals to the words with
// add_to_words, a GPU-only function; `exact` below checks the words and words_kernel.)
template <typename Op, typename V, int kRounds>
Passes<V> tile_passes(std::size_t n, int block, emu::PassesOptions& options) {
  using T = Checked<V>;
  using C = ch09::FastestChoice;
  const auto kernel = &ch09::tile_kernel<Op, T, C::kLoadsInFlight, kRounds, false>;
  const auto fold = &ch09::fold_kernel<Op, T>;
  const std::size_t tile = std::size_t(kRounds) * block * C::kLoadsInFlight * ch09::Lanes<T, C::kWide>::count;
  const std::size_t grid = std::max<std::size_t>(1, (n + tile - 1) / tile);
  const int fold_block = ch09::fold_threads<T>(unsigned(grid), block);
  options.partials = grid;
  options.depth = ch09::grid_path_depth<T, C::kWide>(n, block, int(grid), fold_block);
  return {{unsigned(grid), unsigned(block), 0,
           [kernel](const emu::PassMemory<V>& m) { kernel(m.input, m.n, m.partials, nullptr); }},
          {1, unsigned(fold_block), 0,
           [fold, grid](const emu::PassMemory<V>& m) { fold(m.partials, unsigned(grid), m.result); }}};
}

template <typename V, int kRounds>
bool check_fastest_tiles(int block, std::size_t misalignment, std::uint64_t seed) {
  const auto build = [block](std::size_t n, emu::PassesOptions& options) {
    return tile_passes<Sum, V, kRounds>(n, block, options);
  };
  return check_sizes<V>("chapter 09's tile path (tile_kernel, then fold_kernel; block " + std::to_string(block) +
                            ", tiles of " + std::to_string(kRounds) + " rounds)",
                        build, misalignment, seed);
}

TEMPLATE_TEST_CASE("chapter 09's fastest on the CPU emulator: the single-block path", "[chapter09][emulator]",
                   std::int32_t, float, double) {
  const auto seed = reduction::testing::fresh_seed();
  for (std::size_t misalignment : {0, 1})
    if (!check_sizes<TestType>("chapter 09's single_block_kernel", &single_block_passes<Sum, TestType>, misalignment,
                               seed))
      return;
}

TEMPLATE_TEST_CASE("chapter 09's fastest on the CPU emulator: the grid path, its knobs and others",
                   "[chapter09][emulator]", std::int32_t, float, double) {
  using C = ch09::FastestChoice;
  const auto seed = reduction::testing::fresh_seed();
  for (std::size_t misalignment : {0, 1}) {  // the input on a 64-byte boundary, and one element past it
    // What fastest chooses, at its mid-size block and its large one, and in the smallest block.
    for (int block : {32, C::kMidBlock, C::kBlock})
      if (!check_fastest_grid<TestType, C::kWide, C::kLoadsInFlight, C::kOnePass, C::kChunked>(block, misalignment,
                                                                                               seed))
        return;
    // The tile path, with tiles of one round and of two, in blocks of 32 and 256 threads.
    for (int block : {32, 256})
      if (!check_fastest_tiles<TestType, 1>(block, misalignment, seed) ||
          !check_fastest_tiles<TestType, 2>(block, misalignment, seed))
        return;
    // The other knobs: two launches, chunks, one element a load.
    if (!check_fastest_grid<TestType, true, 4, false, false>(32, misalignment, seed) ||
        !check_fastest_grid<TestType, true, 2, true, true>(32, misalignment, seed) ||
        !check_fastest_grid<TestType, false, 4, true, false>(32, misalignment, seed))
      return;
  }
}

// `exact` as launch_exact launches it: exact_kernel, then words_kernel. Its answer is exact_total's
// on the CPU, bit for bit, in every order of the threads and blocks, and the sum words end at zero.
template <typename V, int kThreads>
Passes<V> exact_passes(int grid, emu::PassesOptions& options) {
  using T = Checked<V>;
  options.sum_words = ch09::kSumWords;
  options.check_value = false;  // exact_total's bits below, where NaN and infinities have no bound
  return {{unsigned(grid), unsigned(kThreads), 0,
           [](const emu::PassMemory<V>& m) { ch09::exact_kernel<T, kThreads>(m.input, m.n, m.sum_words); }},
          {1, 32, 0, [](const emu::PassMemory<V>& m) { ch09::words_kernel<T>(m.sum_words, m.result); }}};
}

template <typename V, int kThreads>
void check_exact(const std::string& what, const std::vector<V>& input, int grid, std::size_t misalignment) {
  emu::PassesOptions options;
  options.misalignment = misalignment;
  const auto run = emu::emulate_passes(input, exact_passes<V, kThreads>(grid, options), options, ch09::shared_bytes);
  const std::string name = "chapter 09's exact (exact_kernel in " + std::to_string(grid) + " blocks of " +
                           std::to_string(kThreads) + " threads, then words_kernel; input " +
                           std::to_string(misalignment) + " elements past a 64-byte boundary) on " + what;
  if (!emu::testing::check_verdict(name, run)) return;
  const V want = ch09::exact_total(input.data(), input.size());
  for (std::size_t s = 0; s < run.results.size(); ++s) {
    INFO(name << ", threads in the order " << emu::detail::schedule_text(run.schedules[s], run.blocks_reversed[s])
              << ": the exact sum rounded once is " << want);
    CHECK((run.results[s].size() == 1 && reduction::testing::same_value(run.results[s][0], want)));
  }
}

// The GPU test's inputs made to break a sum that is not exact (exact_cases.hpp), each scattered among
// zeros (every third one -0); then, as the GPU test has it, one block, each thread past 2^14 elements
// of one window (where a float's double register must go to the shared words first), of both signs.
TEMPLATE_TEST_CASE("chapter 09's exact on the CPU emulator: the exact sum rounded once, bit for bit",
                   "[chapter09][emulator]", float, double) {
  using V = TestType;
  const auto seed = reduction::testing::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (const auto& [what, values] : ch09::exact_breaking_cases<V>(rng)) {
    std::vector<V> data(std::max<std::size_t>(1000, 2 * values.size()) + 7, V(0));
    for (std::size_t i = 0; i < data.size(); i += 3) data[i] = -V(0);
    for (const V v : values) data[rng() % data.size()] = v;  // a collision only changes the case
    for (const std::size_t misalignment : {0, 1}) {
      // launch_exact's grid for n on a GPU of kResident blocks, and grids in smaller blocks.
      check_exact<V, 256>(what, data, ch08::grid_for(data.size(), 256 * 16, kResident), misalignment);
      check_exact<V, 32>(what, data, kResident, misalignment);
      check_exact<V, 64>(what, data, 2, misalignment);
    }
  }
  std::vector<V> data(32 * ((1 << 14) + 300));
  for (auto& x : data) x = V(0.5 + double(rng() >> 11) * 0x1.0p-52) * (rng() % 2 ? 1 : -1);
  check_exact<V, 32>("2^14 + 300 elements a thread, in [0.5, 1), of both signs", data, 1, 0);
}

// Max and min by shuffle and each path of fastest on testing::special_inputs: the rule's answer, bits
// included, in every order of the threads and blocks. An operator that let a NaN's place decide
// (a < b ? b : a) fails at one place or another.
template <typename Op, typename V>
void check_special(const std::string& kernel, const Passes<V>& passes, emu::PassesOptions options,
                   const reduction::testing::SpecialInput<V>& input) {
  options.same_bits = true;
  const auto run = emu::emulate_passes<Op>(input.x, passes, options, ch09::shared_bytes);
  const std::string what = kernel + " on the CPU emulator, " + Op::name + " of " + input.what;
  emu::testing::check_verdict(what, run);
  const V answer = std::is_same_v<Op, reduction::Max> ? input.max : input.min;
  for (const auto& result : run.results) {
    INFO(what);
    CHECK((result.size() == 1 && reduction::testing::same_value(result[0], answer)));
  }
}

TEMPLATE_TEST_CASE("chapter 09's max and min on the CPU emulator: NaN wherever it is, -0 and +0, infinities",
                   "[chapter09][emulator]", float, double) {
  using V = TestType;
  using C = ch09::FastestChoice;
  const auto seed = reduction::testing::fresh_seed();
  INFO("seed " << seed);
  const auto each_op = [](auto op, const reduction::testing::SpecialInput<V>& input) {
    using Op = decltype(op);
    const std::size_t n = input.x.size();
    emu::PassesOptions options;
    const int grid = ch08::grid_for(n, 32, kResident);
    options.partials = std::size_t(grid);
    check_special<Op>("shuffle", two_passes<V>(&ch09::shuffle_kernel<Op, Checked<V>>, 32, grid, 0), options, input);
    auto passes = single_block_passes<Op, V>(n, options);
    if (!passes.empty()) check_special<Op>("fastest's single block", passes, options, input);
    passes = fastest_grid_passes<Op, V, C::kWide, C::kLoadsInFlight, C::kOnePass, C::kChunked>(n, 32, options);
    check_special<Op>("fastest's grid path", passes, options, input);
    check_special<Op>("fastest's tile path", tile_passes<Op, V, 1>(n, 32, options), options, input);
  };
  for (const std::size_t n : {3, 700})
    for (const auto& input : reduction::testing::special_inputs<V>(n, seed)) {
      each_op(reduction::Max{}, input);
      each_op(reduction::Min{}, input);
    }
}

// warp_volatile, the cautionary example: nothing orders one lane's store of slot t + d before another
// lane's load of it, so it races whatever values a run happens to give. The emulator must find it.
TEST_CASE("chapter 09's warp_volatile on the CPU emulator: a race in its warp finish", "[chapter09][emulator]") {
  using V = std::int32_t;
  using T = Checked<V>;
  const auto seed = reduction::testing::fresh_seed();
  for (int block : {32, 256})
    for (std::size_t n : {std::size_t(64), std::size_t(5003)}) {
      const int grid = ch08::grid_for(n, block, kResident);
      emu::PassesOptions options;
      options.partials = std::size_t(grid);
      const auto input = reduction::generate_input<V>(n, seed + n);
      const auto run = emu::emulate_passes(
          input, two_passes<V>(&ch09::warp_volatile_kernel<T>, block, grid, ch09::warp_finish_slots(block) * sizeof(T)),
          options, ch09::shared_bytes);
      const std::string found = run.describe();
      if (run.has(emu::FindingKind::kRace) && found.find("shared memory") != std::string::npos) continue;
      FAIL_CHECK("warp_volatile (block " << block << ", n = " << n << ", seed " << seed + n << "): this test expects "
                 "a race in the warp finish, the lanes of a warp reading and writing shared slots with no barrier "
                 "between them, and found "
                 << (run.findings.empty() ? "none: every result was right. A race-free finish is correct, but it is "
                                            "warp_syncwarp's exercise; warp_volatile asks for the classic finish, "
                                            "with no __syncwarp(), that counts on lock-step."
                                          : "other findings:\n" + found));
      return;
    }
}

// What nvcc accepts, the emulator must accept: a warp's sum written with CUDA's warpSize and its
// min() and max() of an int and an unsigned, which a host compiler does not declare (the shim does).
namespace cuda_builtins {
using Element = Checked<std::int32_t>;

__global__ void warp_size_min_max(const Element* input, std::size_t n, Element* block_results) {
  Element sum(0);
  for (std::size_t i = threadIdx.x; i < n; i += blockDim.x) sum = sum + input[i];
  for (int offset = min(warpSize, blockDim.x) / 2; offset > 0; offset /= 2)
    sum = sum + __shfl_xor_sync(0xffffffffu, sum, offset);
  if (threadIdx.x == unsigned(max(0, int(threadIdx.x) - warpSize))) block_results[blockIdx.x] = sum;
}
}  // namespace cuda_builtins

TEST_CASE("the CPU emulator takes CUDA's warpSize, min() and max()", "[chapter09][emulator]") {
  using V = std::int32_t;
  emu::PassesOptions options;
  const auto input = reduction::generate_input<V>(1000, reduction::testing::fresh_seed());
  const auto run =
      emu::emulate_passes(input, two_passes<V>(&cuda_builtins::warp_size_min_max, 32, 1, 0), options, ch09::shared_bytes);
  INFO(run.describe());
  CHECK(run.findings.empty());
}
