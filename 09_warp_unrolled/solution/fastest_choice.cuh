// Chapter 09, step 5: what fastest chooses at each size, from the measurements. Its grid path
// (fastest.cuh) takes every knob as a template argument so that `experiments knobs`
// (benchmark/experiments.cu) can time them all; this file names the winners, and the grid path's
// block and grid for n. fastest_small.cuh picks between that and the single-block path.
#pragma once

#ifndef REDUCTION_EMULATOR  // the CUDA runtime: launchers only (the CPU emulator compiles the kernels alone)
#include <cuda_runtime.h>
#endif

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "08_two_pass/solution/two_pass.cuh"  // chapter 08: the loads, the grid and the two passes
#include "fastest.cuh"

namespace ch09 {

// What fastest chooses, and why (README.md, "A path for every size", has the reasoning and the
// measurements). The program prints the choice for its n.
struct FastestChoice {
  // Every path: 16-byte loads, four in flight per thread before the first is added (the knob
  // sweep at 2^28: four beat one and two; eight came within 0.6 %).
  static constexpr bool kWide = true;
  static constexpr int kLoadsInFlight = 4;
  // Small n: one block of 32 to 1024 threads (single_block_threads), each thread at most
  // kLoadsInFlight vectors, so the whole input is one round of loads: up to 1024 x 4 x 16 bytes =
  // 64 KiB (16384 ints or floats, 8192 doubles). Past that one multiprocessor would need a second
  // round, while the grid spreads the bytes over several at the price of the counter.
  static constexpr int kSingleBlockMin = 32, kSingleBlockMax = 1024;
  // Small n past one block, up to 2^16 elements, on Hopper and later: one launch of a cluster of up
  // to 8 blocks (the portable cluster size), their totals met in distributed shared memory
  // (fastest_small.cuh). nvbench, cold, on an H100: the grid path took 6.1 to 6.4 us from 2^15 to
  // 2^16 ints, 3.2 us above an empty kernel's launch (benchmark/README.md).
  static constexpr std::size_t kClusterMaxN = std::size_t(1) << 16;
  static constexpr int kClusterMaxBlocks = 8;
  // Mid n: the grid path with blocks of 256 threads, one round of loads each, while that takes at
  // most two blocks per multiprocessor. Four times as many blocks as with 1024 threads put a
  // mid-size input on every multiprocessor: at 2^20 floats 256 blocks instead of 64 for 132
  // multiprocessors (the knob sweep, float 2^20 on the H200: 256 threads and one wave 8.26 us, 1024
  // threads and two waves 8.77 us). Not more blocks than that: each counts itself done on the one
  // counter, and atomics on one address are served one after another.
  static constexpr int kMidBlock = 256;
  static constexpr int kMidBlocksPerMultiprocessor = 2;
  // Large n, below kTilesFromBytes: 1024-thread blocks striding over the whole input, one wave of
  // them, one pass. From kTilesFromBytes: the tile path (fastest.cuh), kBlock threads a tile of one
  // round of loads (64 KiB). One wave leaves multiprocessors idle at its end (ncu, 2^28 ints: the
  // least busy active 73 % of the cycles of the busiest); the tiles keep them busy (99 %), as 07's
  // grid does: 0 to 6.5 % faster than one wave from 2^24 to 2^30 on an H100 and an H200, level
  // below 16 MiB. Max and min of doubles take tiles of two rounds: in one round they ran up to 10 %
  // behind cub on an H200 (README.md: "Many blocks or one wave", "A path for every size").
  // The tile path's sums finish through exact words (exact_sum.cuh), not the fold: the same bits
  // on every run, at no cost (README.md, "An exact finish for sums").
  static constexpr bool kExactFloatSums = true;
  static constexpr bool kOnePass = true;
  static constexpr bool kChunked = false;
  static constexpr int kBlock = 1024;
  static constexpr std::size_t kTilesFromBytes = std::size_t(16) << 20;
};

// Where fastest runs n: one block (the single-block path), the grid path, or the tile path, with
// this block and grid.
struct FastestPlan {
  bool single_block = false;
  int block = 0;
  int grid = 0;
  bool tiles = false;
  int rounds = 0;         // the tile path: rounds of loads in a tile
  bool to_words = false;  // the tile path: a sum finished through the words (tiles_to_words)
  int fold_block = 0;     // the tile path's fold (not to_words): its threads (fold_threads)
  bool cluster = false;   // the cluster path (fastest_small.cuh): `grid` blocks in one cluster
};

// Whether the tile path finishes Op on T through the words (fastest.cuh's kToWords): int sums, and
// float and double sums with kExactFloatSums (on; off, they take the fold, as max and min do).
template <typename Op, typename T>
constexpr bool tiles_to_words() {
  return std::is_same_v<Op, reduction::Sum> && (std::is_integral_v<T> || FastestChoice::kExactFloatSums);
}

// Whether fastest takes tiles of one round from kTilesFromBytes: for every sum, and for max and min
// of 4-byte elements (FastestChoice, on max and min of doubles).
template <typename Op, typename T>
constexpr bool one_round_tiles() {
  return std::is_same_v<Op, reduction::Sum> || sizeof(T) < 8;
}

// The rounds of loads in each of the tile path's tiles at n, or 0 where fastest takes no tiles: from
// kTilesFromBytes, one round (one_round_tiles), else two.
template <typename Op, typename T>
constexpr int tile_rounds(std::size_t n) {
  if (n * sizeof(T) < FastestChoice::kTilesFromBytes) return 0;
  return one_round_tiles<Op, T>() ? 1 : 2;
}

// The grid path's block and grid for n: kMidBlock threads, each one round of loads, while that
// takes at most kMidBlocksPerMultiprocessor blocks per multiprocessor; beyond, kBlock threads, one
// round a thread, at least one block per multiprocessor and at most one wave; from
// kTilesFromBytes, the tile path: kBlock threads, one block per tile of tile_rounds() rounds of loads.
// `multiprocessors`: the GPU's (0), or as many as another GPU has (a test of what that changes).
template <typename Op, typename T>
FastestPlan fastest_grid_plan(std::size_t n, int multiprocessors = 0) {
  using C = FastestChoice;
  const auto kernel = fastest_kernel<Op, T, C::kWide, C::kLoadsInFlight, C::kOnePass, C::kChunked>;
  const std::size_t count = Lanes<T, C::kWide>::count;
  const std::size_t sms = std::size_t(multiprocessors ? multiprocessors : ch08::multiprocessors());
  const std::size_t mid_round = std::size_t(C::kMidBlock) * C::kLoadsInFlight * count;
  if (n <= C::kMidBlocksPerMultiprocessor * sms * mid_round)
    return {false, C::kMidBlock, ch08::grid_for(n, mid_round, C::kMidBlocksPerMultiprocessor * int(sms))};
  const std::size_t round = std::size_t(C::kBlock) * C::kLoadsInFlight * count;
  if (const int rounds = tile_rounds<Op, T>(n); rounds != 0) {
    const int grid = int((n + rounds * round - 1) / (rounds * round));
    if (tiles_to_words<Op, T>()) return {false, C::kBlock, grid, true, rounds, true, 0};
    return {false, C::kBlock, grid, true, rounds, false, fold_threads<T>(unsigned(grid), C::kBlock)};
  }
  const std::size_t most = ch08::resident_blocks(kernel, C::kBlock, 0) / ch08::multiprocessors() * sms;
  return {false, C::kBlock, int(std::min(std::max((n + round - 1) / round, sms), most))};
}

}  // namespace ch09
