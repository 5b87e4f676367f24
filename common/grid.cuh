// The grid of the multi-block chapters from 08 on: a grid sized to what the GPU runs at once, a
// grid-stride loop that spreads any n over it, two passes to combine the blocks' results, and the
// number of additions an element meets on the way. Chapter 08 introduces each of these in its own
// kernel and launchers; chapter 09's kernels and launchers take them from here.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <mutex>
#include <tuple>

#include "cuda_check.cuh"
#include "gpu.cuh"

namespace reduction {

// How many multiprocessors the current device has, asked once per device.
inline int multiprocessors() {
  static std::mutex mutex;
  static std::map<int, int> known;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(mutex);
  if (auto it = known.find(device); it != known.end()) return it->second;
  int count = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  return known[device] = count;
}

// How many blocks of `kernel` the GPU runs at once: its multiprocessors times the blocks of this
// size that fit on one (the occupancy calculator weighs registers, shared memory and the thread
// limit). A grid of that size keeps every multiprocessor full, and a grid-stride loop lets it
// cover any n. The answer depends only on the device, the kernel, the block size and the shared
// memory, so it is asked once and kept: the launch path then makes no driver query, which matters
// when a reduction takes microseconds. The table is shared by every host thread, so a lock guards
// it. At least one block per multiprocessor is reported, so that a grid is never empty: a kernel
// that fits nowhere then fails at its launch, with the launch's own error.
template <typename Kernel>
int resident_blocks(Kernel kernel, int block, std::size_t shared_bytes) {
  static std::mutex mutex;
  static std::map<std::tuple<int, const void*, int, std::size_t>, int> known;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const auto key = std::make_tuple(device, reinterpret_cast<const void*>(kernel), block, shared_bytes);
  const std::lock_guard<std::mutex> lock(mutex);
  if (auto it = known.find(key); it != known.end()) return it->second;
  int per_multiprocessor = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel, block, shared_bytes));
  return known[key] = std::max(1, per_multiprocessor) * multiprocessors();
}

// The grid of a pass over `work` items, `per_block` items to a block: every resident block (more
// would only wait for a free multiprocessor, then loop over the same input), or fewer when there
// is not enough work to give each of them something; never none (resident is at least 1).
inline int grid_for(std::size_t work, std::size_t per_block, int resident) {
  const std::size_t wanted = (work + per_block - 1) / per_block;
  return static_cast<int>(std::clamp<std::size_t>(wanted, 1, static_cast<std::size_t>(resident)));
}

// Chapter 08's first step: each thread folds every (blocks x threads)-th element into one value,
// reading consecutive elements across the grid at each step (coalesced), four loads in flight at a
// time and added in the plain loop's order (08_two_pass/solution/two_pass.cuh says why). Indices in
// 64 bits: the grid-stride index passes 2^31 for inputs that large.
template <typename Op, typename T>
__device__ T thread_partial(const T* input, std::size_t n) {
  constexpr int kLoadsInFlight = 4;
  const Op op{};
  T sum = Op::template identity<T>();
  const std::size_t stride = std::size_t(blockDim.x) * gridDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (kLoadsInFlight - 1) * stride < n; i += kLoadsInFlight * stride) {
    T loaded[kLoadsInFlight];
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) loaded[k] = input[i + k * stride];
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) sum = op(sum, loaded[k]);
  }
  for (; i < n; i += stride) sum = op(sum, input[i]);
  return sum;
}

// Every addition an element can meet in one grid-stride pass over n elements by `threads` threads,
// followed by a tree of `tree_levels` levels in its block: up to ceil(n / threads) in its thread's
// loop, the first one (into the identity) included, then one a level.
inline std::size_t grid_stride_additions(std::size_t n, std::size_t threads, std::size_t tree_levels) {
  return (n + threads - 1) / threads + tree_levels;
}

// The rounded ones among them, what common/reference.hpp turns into a float tolerance: the loop's
// first addition, into the identity, is exact. n must be at least 1.
inline std::size_t grid_stride_rounded_additions(std::size_t n, std::size_t threads, std::size_t tree_levels) {
  return grid_stride_additions(n, threads, tree_levels) - 1;
}

// Two passes, as in chapter 08: `grid` blocks leave one result each in scratch, then one block
// reduces those with the same kernel. With a single block the first pass already gives the answer.
template <typename T, typename Kernel>
void launch_two_passes(Kernel kernel, const T* input, std::size_t n, T* result, int block, int grid,
                       std::size_t shared_bytes, DeviceScratch& scratch, cudaStream_t stream) {
  if (grid == 1) {
    kernel<<<1, block, shared_bytes, stream>>>(input, n, result);
    CUDA_CHECK_LAUNCH();
    return;
  }
  T* block_results = scratch.get_as<T>(grid);
  kernel<<<grid, block, shared_bytes, stream>>>(input, n, block_results);
  CUDA_CHECK_LAUNCH();
  kernel<<<1, block, shared_bytes, stream>>>(block_results, grid, result);
  CUDA_CHECK_LAUNCH();
}

// The additions an element meets through launch_two_passes (counted as grid_stride_additions
// does, the first of each loop included): the first pass, then, with more than one block, the
// second over the grid's results.
inline std::size_t two_pass_additions(std::size_t n, int block, int grid, std::size_t tree_levels) {
  const std::size_t first = grid_stride_additions(n, std::size_t(grid) * block, tree_levels);
  return grid == 1 ? first : first + grid_stride_additions(grid, block, tree_levels);
}

}  // namespace reduction
