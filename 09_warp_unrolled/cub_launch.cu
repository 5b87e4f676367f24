// cub::DeviceReduce compiled once for every operator and type the program offers (harness.cuh
// declares it): CUB is the slowest code to compile, and a change to the kernels does not recompile it.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "cub_reduce.cuh"

namespace ch09 {

// CUB does not document its order of additions. This bound follows its reduction in this
// toolkit's version (CCCL 3.0): tiles of 4096 elements, 16 added by each of 256 threads; each
// block takes an even share of the tiles, and there are at least as many blocks as multiprocessors
// while tiles last (CUB launches up to five waves) and never more than tiles; a block tree of 5
// shuffle levels and 8 warp totals; then one block does the same over the block results.
std::size_t cub_depth(std::size_t n, int /*block*/) {
  constexpr std::size_t kTile = 4096, kPerThread = 16, kTree = 5 + 8;
  const std::size_t tiles = std::max<std::size_t>(1, (n + kTile - 1) / kTile);
  const std::size_t fewest_blocks = std::min<std::size_t>(tiles, ch08::multiprocessors());
  const std::size_t first = (tiles + fewest_blocks - 1) / fewest_blocks * kPerThread + kTree;
  const std::size_t second = (tiles + kTile - 1) / kTile * kPerThread + kTree;
  return first + second;
}

// The operators and types of the program's --op and --type.
#define CH09_LAUNCH_CUB(Op, T) \
  template void launch_cub<reduction::Op, T>(const T*, std::size_t, T*, int, reduction::DeviceScratch&, cudaStream_t);
CH09_LAUNCH_CUB(Sum, std::int32_t) CH09_LAUNCH_CUB(Sum, float) CH09_LAUNCH_CUB(Sum, double)
CH09_LAUNCH_CUB(Max, std::int32_t) CH09_LAUNCH_CUB(Max, float) CH09_LAUNCH_CUB(Max, double)
CH09_LAUNCH_CUB(Min, std::int32_t) CH09_LAUNCH_CUB(Min, float) CH09_LAUNCH_CUB(Min, double)

}  // namespace ch09
