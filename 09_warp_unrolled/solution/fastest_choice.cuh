// Chapter 09, step 5: what fastest chooses at each size, from the measurements. Its grid path
// (fastest.cuh) takes every knob as a template argument so that `experiments knobs`
// (benchmark/experiments.cu) can time them all; this file names the winners, and the grid path's
// block and grid for n. fastest_small.cuh picks between that and the single-block path. The
// numbers below were measured with the program's former --sweep option, whose combinations
// `experiments knobs` now times; the program's --sizes and benchmark/sweep.py time the choice
// against cub at every size.
#pragma once

#ifndef REDUCTION_EMULATOR  // the CUDA runtime: launchers only (the CPU emulator compiles the kernels alone)
#include <cuda_runtime.h>
#endif

#include <algorithm>
#include <cstddef>

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
  // Mid n: the grid path with blocks of 256 threads, one round of loads each, while that takes at
  // most two blocks per multiprocessor. Four times as many blocks as with 1024 threads put a
  // mid-size input on every multiprocessor: at 2^20 floats 256 blocks instead of 64 for 132
  // multiprocessors (the knob sweep, float 2^20 on the H200: 256 threads and one wave 8.26 us, 1024
  // threads and two waves 8.77 us). Not more blocks than that: each counts itself done on the one
  // counter, and atomics on one address are served one after another.
  static constexpr int kMidBlock = 256;
  static constexpr int kMidBlocksPerMultiprocessor = 2;
  // Large n: 1024-thread blocks striding over the whole input, one pass; one wave of them below
  // kTwoWavesFromBytes, two from there (measured with `experiments large` on two H100s and an H200
  // on 2026-11-25; README.md, "Many blocks or one wave", has the tables and the counters). The
  // former choice, two waves at every large size, left multiprocessors idle at the end of the
  // second wave (ncu at 2^28 ints on an H100: the least busy was active 73 % of the cycles of the
  // busiest); one wave was 0.8 to 15 % faster from 2^23 to 2^28 ints on the H100, and 0 to 14 % on
  // the H200. From 2 GiB the two shapes are within 0.5 % of each other, and two waves stayed ahead
  // of cub where one wave did not (H200, 2^30 ints: one wave took 1.002 times cub's time). Many
  // blocks, each its own chunk, which beat both on the H100 from 1 GiB, took up to 8 % longer than
  // cub on the H200, so fastest does not take them.
  static constexpr bool kOnePass = true;
  static constexpr bool kChunked = false;
  static constexpr int kBlock = 1024;
  static constexpr std::size_t kTwoWavesFromBytes = std::size_t(2) << 30;
};

// Where fastest runs n: one block (the single-block path), or the grid path with this block and grid.
struct FastestPlan {
  bool single_block = false;
  int block = 0;
  int grid = 0;
};

// The grid path's block and grid for n: kMidBlock threads, each one round of loads, while that
// takes at most kMidBlocksPerMultiprocessor blocks per multiprocessor; beyond, kBlock threads, one
// round a thread, at least one block per multiprocessor and at most one wave (two from
// kTwoWavesFromBytes).
template <typename Op, typename T>
FastestPlan fastest_grid_plan(std::size_t n) {
  using C = FastestChoice;
  const auto kernel = fastest_kernel<Op, T, C::kWide, C::kLoadsInFlight, C::kOnePass, C::kChunked>;
  const std::size_t count = Lanes<T, C::kWide>::count;
  const std::size_t sms = std::size_t(ch08::multiprocessors());
  const std::size_t mid_round = std::size_t(C::kMidBlock) * C::kLoadsInFlight * count;
  if (n <= C::kMidBlocksPerMultiprocessor * sms * mid_round)
    return {false, C::kMidBlock, ch08::grid_for(n, mid_round, C::kMidBlocksPerMultiprocessor * int(sms))};
  const std::size_t round = std::size_t(C::kBlock) * C::kLoadsInFlight * count;
  const std::size_t wanted = std::max((n + round - 1) / round, sms);
  const std::size_t waves = n * sizeof(T) >= C::kTwoWavesFromBytes ? 2 : 1;
  const std::size_t most = waves * ch08::resident_blocks(kernel, C::kBlock, 0);
  return {false, C::kBlock, int(std::min(wanted, most))};
}

}  // namespace ch09
