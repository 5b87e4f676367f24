// Chapter 09: the warp. The last steps of the tree run inside one warp of 32 threads, which needs
// no block-wide barrier; the block size becomes a template argument so the whole tree unrolls;
// shuffles move the warp's additions from shared memory into registers; and `fastest` adds what
// the memory system rewards, to end as fast as the library (cub, measured beside it).
//
// Every variant reduces input[0, n) into result[0] through the launcher shape of chapters 06 to 09
// (common/variants.cuh), and variants<Op, T>() lists them once for the program, tests and benchmark.
//
// Each idea has a header of its own, in the order of the lesson: warp_finish.cuh (warp_volatile,
// warp_syncwarp), unrolled.cuh, shuffle.cuh; for fastest, fastest.cuh (its grid path),
// fastest_choice.cuh (the knobs the measurements picked) and fastest_small.cuh (its single-block
// path, and the launcher that picks a path); cub_reduce.cuh. This header lists the variants.
#pragma once

#include <string>
#include <type_traits>
#include <vector>

#include "common/ops.hpp"
#include "common/variants.cuh"
#include "cub_reduce.cuh"
#include "fastest_small.cuh"
#include "shuffle.cuh"
#include "unrolled.cuh"
#include "warp_finish.cuh"

namespace ch09 {

// The registry. warp_volatile, warp_syncwarp and unrolled add (sum only); shuffle, fastest and
// cub take any operator of common/ops.hpp whose identity they start from (sum, max, min).
// The smallest block each takes (the last field, 32 where left out): `unrolled` goes down to one
// thread; warp_volatile, warp_syncwarp and shuffle reduce whole warps (shuffles name all 32 lanes,
// the warp finishes read 32 lanes' slots); fastest and cub choose their own block and ignore it.
template <typename Op, typename T>
std::vector<reduction::Variant<reduction::MultiBlockLaunch<T>>> variants() {
  std::vector<reduction::Variant<reduction::MultiBlockLaunch<T>>> list;
  if constexpr (std::is_same_v<Op, reduction::Sum>) {
    list.push_back(
        {"warp_volatile",
         "CAUTION, a data race since Volta: the last 6 steps in one warp, no barrier, volatile shared memory",
         launch_warp_volatile<T>, warp_finish_depth<T>, true});
    list.push_back({"warp_syncwarp", "the same warp finish made correct: __syncwarp() between reads and writes",
                    launch_warp_syncwarp<T>, warp_finish_depth<T>, true});
    list.push_back({"unrolled", "the block size a template argument: the whole tree unrolled, 1 to 1024 threads",
                    launch_unrolled<T>, unrolled_depth<T>, true, 1});
  }
  list.push_back({"shuffle", "the warp's steps in registers with __shfl_down_sync, one shared slot per warp",
                  launch_shuffle<Op, T>, shuffle_depth<Op, T>, true});
  list.push_back({"fastest",
                  "shuffles, 16-byte loads 4 in flight, 1 launch: one block for small n, else the last block finishes",
                  launch_fastest<Op, T>, fastest_depth<Op, T>, true, 1});
  list.push_back({"cub", "cub::DeviceReduce, the library ceiling", launch_cub<Op, T>, cub_depth, true, 1});
  return list;
}

// Whether the chapter is built from exercise kernels that are still TODOs: its program says so.
#ifdef REDUCTION_EXERCISE_UNFINISHED  // defined by the exercise versions, until the student deletes it
constexpr bool unfinished = true;
#else
constexpr bool unfinished = false;
#endif

}  // namespace ch09
