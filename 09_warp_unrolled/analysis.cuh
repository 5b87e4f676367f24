// What chapter 09's program explains before its runs (main.cu prints it, with or without a GPU):
// where the tree steps of the kernels that run take place for the block size, and the plan
// `fastest` picks for n (one block, or a grid); for --sizes, the single-block path's thresholds
// and each row's plan. Plain functions of the chapter's kernel headers.
#pragma once

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "common/ceilings.cuh"  // mebibytes
#include "common/json.hpp"
#include "common/reference.hpp"
#include "common/types.hpp"
#include "warp_unrolled.cuh"

namespace ch09 {

inline bool contains(const std::vector<std::string>& kernels, const std::string& name) {
  return std::find(kernels.begin(), kernels.end(), name) != kernels.end();
}

// Where the tree's steps run, for the kernels that run (`kernels`) at blocks of `block` threads.
inline void describe_trees(std::ostream& text, int block, const std::vector<std::string>& kernels, bool sums) {
  const std::size_t levels = reduction::ceil_log2(std::size_t(block));
  const bool warp_finish = contains(kernels, "warp_volatile") || contains(kernels, "warp_syncwarp");
  const bool lesson = warp_finish || contains(kernels, "unrolled") || contains(kernels, "shuffle");
  if (lesson)
    text << "block      " << block << " threads: a tree of " << levels << " steps over the threads' "
         << (sums ? "sums" : "values") << "\n";
  if (block >= 32) {
    const std::size_t warp_steps = 6, block_steps = levels > warp_steps ? levels - warp_steps : 0;
    if (warp_finish) {
      std::vector<std::string> names;
      for (const char* name : {"warp_volatile", "warp_syncwarp"})
        if (contains(kernels, name)) names.push_back(name);
      text << "           " << reduction::join(names) << ": " << block_steps << " steps behind __syncthreads(), then "
           << warp_steps << " inside warp 0\n           (the tree is padded to 64 values) with no block-wide barrier\n";
    }
    if (contains(kernels, "unrolled") && warp_finish)
      text << "           unrolled: the same steps with " << block
           << " a compile-time constant, so the loops become straight code\n";
    else if (contains(kernels, "unrolled"))  // its warp steps are not padded to 64 values
      text << "           unrolled: " << block_steps << " steps behind __syncthreads(), then "
           << std::min(levels, warp_steps) << " inside warp 0 behind __syncwarp(),\n           with " << block
           << " a compile-time constant, so the loops become straight code\n";
    if (contains(kernels, "shuffle"))
      text << "           shuffle: 5 shuffle steps in every warp, one __syncthreads(), 5 in warp 0\n";
  } else if (contains(kernels, "unrolled")) {
    text << "           unrolled: all " << levels << " steps inside one warp, behind __syncwarp() only\n";
  }
  const bool fastest = contains(kernels, "fastest"), cub = contains(kernels, "cub");
  if (fastest || cub)
    text << (lesson ? "           " : "block      ")
         << (fastest && cub ? "fastest and cub choose their own blocks" : fastest ? "fastest chooses its own block"
                                                                                 : "cub chooses its own block")
         << "\n";
}

// fastest's plan for n, in words. The grid path's grid depends on the GPU (its multiprocessors and
// how many blocks fit on each), so here it is only the rule; with a GPU, fastest_plan() gives it.
// The tile path's grid follows from n alone.
template <typename Op, typename T> std::string describe_plan(std::size_t n) {
  using C = FastestChoice;
  if (const int threads = single_block_threads<T>(n))
    return "one block of " + std::to_string(threads) + " threads, each loading up to " +
           std::to_string(C::kLoadsInFlight) + " vectors of 16 bytes at once; one launch, no counter";
  if (const int rounds = tile_rounds<Op, T>(n); rounds != 0) {
    const std::size_t tile = std::size_t(rounds) * C::kBlock * C::kLoadsInFlight * Lanes<T, true>::count;
    return "the tile path: " + std::to_string((n + tile - 1) / tile) + " blocks of " + std::to_string(C::kBlock) +
           " threads, one per tile of " + std::to_string(tile * sizeof(T) >> 10) + " KiB (" + std::to_string(rounds) +
           (rounds == 1 ? " round" : " rounds") + " of loads),\n           " +
           (tiles_to_words<Op, T>()
                ? (std::is_integral_v<T>
                       ? "each adding its result to one word with atomicAdd (exact in any order); a second\n"
                         "           launch of one warp copies it to the result"
                       : "each adding its result, an exact integer, to a few words: one atomicAdd from three\n"
                         "           lanes (exact in any order); a second launch of one warp rounds them once")
                : "each storing its result; a second launch of one block adds them in order") +
           "\n           (on Hopper and later, set up while the first runs)";
  }
  return "the grid path: blocks of " + std::to_string(C::kMidBlock) + " threads, one round of loads each, while " +
         std::to_string(C::kMidBlocksPerMultiprocessor) + " a multiprocessor\n           suffice, else " +
         std::to_string(C::kBlock) + " threads, one wave;\n           the last block to finish adds the blocks' results";
}

// "528 blocks of 1024", or "1 block of 64": a plan's launch.
inline std::string launch_of(const FastestPlan& plan) {
  return (plan.single_block ? "1 block of " : std::to_string(plan.grid) + " blocks of ") + std::to_string(plan.block);
}

// A plan in the report's JSON (fastest_plan, and the --sizes rows).
inline reduction::Json plan_json(const FastestPlan& plan) {
  return {{"path", plan.single_block ? "single_block" : plan.tiles ? "tiles" : "grid"},
          {"block", plan.block},
          {"grid", plan.grid}};
}

// --sizes: the sizes up to which each block of the single-block path takes the whole input.
template <typename T> void describe_single_block_path(std::ostream& text) {
  using C = FastestChoice;
  text << "plan       fastest's single-block path for " << reduction::type_name(reduction::data_type_of<T>())
       << ": the block's threads for n up to";
  for (int threads = C::kSingleBlockMin; threads <= C::kSingleBlockMax; threads *= 2)
    text << (threads == C::kSingleBlockMin ? "\n           " : ", ")
         << std::size_t(threads) * C::kLoadsInFlight * Lanes<T, true>::count << ": " << threads;
  text << "; beyond, the grid path\n";
}

}  // namespace ch09
