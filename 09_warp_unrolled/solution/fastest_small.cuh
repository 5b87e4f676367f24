// Chapter 09, step 5 continued: what fastest chooses at each size (FastestChoice), its paths for
// small n, and at the end fastest itself, which picks the path and launches it. Below some thousands
// of elements a reduction costs its launch and the chain of steps inside it that wait for one
// another: the single-block path does the least, one trip to memory and no counter or scratch.
#pragma once

#ifndef REDUCTION_EMULATOR  // the CUDA runtime and clusters: launchers only (the emulator compiles the kernels alone)
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#endif

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "fastest.cuh"  // the grid and tile paths, on shuffle.cuh and chapter 08's loads, grid and passes

namespace ch09 {

// ---- What fastest chooses at each size (the README's table of paths): the winners of the knobs.
struct FastestChoice {
  static constexpr bool kWide = true;
  static constexpr int kLoadsInFlight = 4;
  // Small n: one block of 32 to 1024 threads, one round of loads: up to 64 KiB. Past that one
  // multiprocessor would need a second round, while the grid spreads the bytes over several.
  static constexpr int kSingleBlockMin = 32, kSingleBlockMax = 1024;
  // Small n past one block, up to 2^16 elements, on Hopper and later: a cluster (cluster_shape).
  static constexpr std::size_t kClusterMaxN = std::size_t(1) << 16;
  static constexpr int kClusterMaxBlocks = 8;  // the portable cluster size
  // Mid n: blocks of 256 threads, one round of loads each, while that takes at most two blocks per
  // multiprocessor: at 2^20 floats 256 blocks instead of 64 for 132 multiprocessors. Not more: each
  // counts itself done on the one counter, and atomics on one address are served one at a time.
  static constexpr int kMidBlock = 256;
  static constexpr int kMidBlocksPerMultiprocessor = 2;
  // Large n: one wave of 1024-thread blocks, one pass; from kTilesFromBytes the tile path, which
  // keeps every multiprocessor busy to the end. Max and min of doubles take tiles of two rounds,
  // which kept them level with cub. The tiles' sums finish through exact words, not the fold.
  static constexpr bool kExactFloatSums = true;
  static constexpr bool kOnePass = true;
  static constexpr bool kChunked = false;
  static constexpr int kBlock = 1024;
  static constexpr std::size_t kTilesFromBytes = std::size_t(16) << 20;
};

// Where fastest runs n, with this block and grid.
struct FastestPlan {
  bool single_block = false;
  int block = 0;
  int grid = 0;
  bool tiles = false;
  int rounds = 0;         // the tile path: rounds of loads in a tile
  bool to_words = false;  // the tile path: a sum finished through the words (tiles_to_words)
  int fold_block = 0;     // the tile path's fold (not to_words): its threads (fold_threads)
  bool cluster = false;   // the cluster path: `grid` blocks in one cluster
};

// Whether the tile path finishes Op on T through the words (kToWords), else the fold.
template <typename Op, typename T>
constexpr bool tiles_to_words() {
  return std::is_same_v<Op, reduction::Sum> && (std::is_integral_v<T> || FastestChoice::kExactFloatSums);
}

// The rounds of loads in each tile at n, or 0 where fastest takes no tiles.
template <typename Op, typename T>
constexpr int tile_rounds(std::size_t n) {
  if (n * sizeof(T) < FastestChoice::kTilesFromBytes) return 0;
  return std::is_same_v<Op, reduction::Sum> || sizeof(T) < 8 ? 1 : 2;
}

// The block and grid for n past the small paths: mid n, large n (at least one block per
// multiprocessor, at most one wave), or the tiles. `multiprocessors`: the GPU's (0), or another's.
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

// The total of the first kLanes lanes' values, in lane 0: one instruction for ints from sm_80
// (redux.sync, as CUB does), else log2(kLanes) shuffle steps.
template <typename Op, int kLanes, typename T>
__device__ __forceinline__ T warp_total(T value) {
  // EXERCISE: the total of the first kLanes lanes' values, in lane 0. On sm_80 and newer
  // HINT: (#if __CUDA_ARCH__ >= 800) the warp-wide __reduce_*_sync intrinsics (CUDA Programming
  // HINT: Guide, "Warp Reduce Functions") do an int sum, max or min in one instruction: which types and
  // HINT: operators do they take? For the rest, shuffles as in shuffle.cuh: how many steps for kLanes
  // HINT: lanes, and which offsets?
  // PLACEHOLDER: return value;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (std::is_same_v<T, int> && std::is_same_v<Op, reduction::Sum>) {
    return __reduce_add_sync(0xffffffffu, value);
  } else if constexpr (std::is_same_v<T, int> && std::is_same_v<Op, reduction::Max>) {
    return __reduce_max_sync(0xffffffffu, value);
  } else if constexpr (std::is_same_v<T, int> && std::is_same_v<Op, reduction::Min>) {
    return __reduce_min_sync(0xffffffffu, value);
  } else
#endif
  {
    const Op op{};
#pragma unroll
    for (int offset = kLanes / 2; offset > 0; offset /= 2) value = op(value, __shfl_down_sync(0xffffffffu, value, offset));
    return value;
  }
  // END EXERCISE
}

// The block's total in thread 0, for a block of kThreads (a multiple of 32): as block_reduce, but
// log2(warps) steps in warp 0, and no shared memory or barrier for one warp.
template <typename Op, int kThreads, typename T>
__device__ __forceinline__ T block_total(T value) {
  // EXERCISE: warp_total<Op, 32> in every warp; with more than one warp, lane 0 of each stores its
  // HINT: total in a `__shared__ T warp_totals[kThreads / 32]`, __syncthreads(), and warp 0 takes
  // HINT: warp_total<Op, kThreads / 32> of them (the identity in the lanes past the last warp).
  constexpr int kWarps = kThreads / 32;
  value = warp_total<Op, 32>(value);
  if constexpr (kWarps > 1) {
    __shared__ T warp_totals[kWarps];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warp_totals[warp] = value;
    __syncthreads();
    if (warp == 0) value = warp_total<Op, kWarps>(lane < kWarps ? warp_totals[lane] : Op::template identity<T>());
  }
  // END EXERCISE
  return value;
}

// n must be at most kThreads x kLoadsInFlight vectors (single_block_threads sees to it).
template <typename Op, typename T, int kThreads>
__global__ void __launch_bounds__(kThreads) single_block_kernel(const T* __restrict__ input, std::size_t n, T* result) {
  // EXERCISE: the whole input in one round of loads, then the block's total. Hints:
  // HINT: - head, vectors and tail as in wide_partial; thread t loads vectors t, t + kThreads, ...
  // HINT:   (FastestChoice::kLoadsInFlight of them at most, the identity where i >= vectors) with
  // HINT:   load_vector<T>, and the odd elements input[t] (t < head) and input[tail + t]
  // HINT:   (t < n - tail) with __ldg, every load before the first addition;
  // HINT: - add them up in registers, then block_total<Op, kThreads>; thread 0 writes *result.
  using Vector = typename Lanes<T, true>::Vector;
  constexpr int kCount = Lanes<T, true>::count;
  constexpr int kLoads = FastestChoice::kLoadsInFlight;
  const Op op{};
  const T identity = Op::template identity<T>();
  const unsigned t = threadIdx.x;
  const std::size_t misaligned = reinterpret_cast<std::uintptr_t>(input) % sizeof(Vector) / sizeof(T);
  const std::size_t to_boundary = misaligned ? kCount - misaligned : 0;
  const std::size_t head = to_boundary < n ? to_boundary : n;
  const std::size_t vectors = (n - head) / kCount;
  const std::size_t tail = head + vectors * kCount;
  const auto* vector = reinterpret_cast<const Vector*>(input + head);

  // Every load first: the thread's vectors t, t + kThreads, ... and its odd elements.
  Vector v[kLoads];
#pragma unroll
  for (int k = 0; k < kLoads; ++k) {
    const std::size_t i = t + std::size_t(k) * kThreads;
    if (i < vectors) {
      v[k] = load_vector<T>(vector + i);
    } else {
#pragma unroll
      for (int j = 0; j < kCount; ++j) v[k].lane[j] = identity;
    }
  }
  const T before = t < head ? __ldg(input + t) : identity;
  const T after = t < n - tail ? __ldg(input + tail + t) : identity;

  // Then the additions: each lane of the vectors in its own chain, then the lanes pairwise.
  T lanes[kCount];
#pragma unroll
  for (int j = 0; j < kCount; ++j) {
    lanes[j] = v[0].lane[j];
#pragma unroll
    for (int k = 1; k < kLoads; ++k) lanes[j] = op(lanes[j], v[k].lane[j]);
  }
#pragma unroll
  for (int width = kCount / 2; width > 0; width /= 2)
#pragma unroll
    for (int j = 0; j < width; ++j) lanes[j] = op(lanes[j], lanes[j + width]);
  const T total = block_total<Op, kThreads>(op(op(lanes[0], before), after));
  if (t == 0) *result = total;
  // END EXERCISE
}

// The single-block path's block for n elements of T: the fewest threads, a power of two from 32,
// that hold n in kLoadsInFlight vectors each (fewer warps to combine); 0 past kSingleBlockMax.
// However n is aligned, it spans at most ceil(n / count) whole vectors.
template <typename T>
constexpr int single_block_threads(std::size_t n) {
  using C = FastestChoice;
  constexpr std::size_t kCount = Lanes<T, true>::count;
  const std::size_t vectors = (n + kCount - 1) / kCount;
  for (int threads = C::kSingleBlockMin; threads <= C::kSingleBlockMax; threads *= 2)
    if (vectors <= std::size_t(threads) * C::kLoadsInFlight) return threads;
  return 0;
}

// Six instantiations per operator and type, 32 to 1024 threads, in a table (as for `unrolled`).
constexpr int kSingleBlockSizes = 6;
constexpr int single_block_index(int threads) {
  int k = 0;
  while ((FastestChoice::kSingleBlockMin << k) < threads) ++k;
  return k;
}

template <typename Op, typename T, int... k>
constexpr std::array<void (*)(const T*, std::size_t, T*), sizeof...(k)> single_block_kernels(
    std::integer_sequence<int, k...>) {
  return {&single_block_kernel<Op, T, (FastestChoice::kSingleBlockMin << k)>...};
}

#ifndef REDUCTION_EMULATOR  // the launchers need the CUDA runtime
// No driver query and no lookup: on this path the launcher's own time is part of what the caller
// waits for, and at small n every microsecond counts.
template <typename Op, typename T>
void launch_single_block(const T* input, std::size_t n, T* result, cudaStream_t stream) {
  static constexpr auto table = single_block_kernels<Op, T>(std::make_integer_sequence<int, kSingleBlockSizes>{});
  const int threads = single_block_threads<T>(n);
  if (threads == 0) throw std::invalid_argument("single_block: n too large for one block");
  table[single_block_index(threads)]<<<1, threads, 0, stream>>>(input, n, result);
  CUDA_CHECK_LAUNCH();
}
#endif  // REDUCTION_EMULATOR

// Small n past one block, on Hopper and later: one launch of a cluster of 2 to 8 blocks, each one
// round of loads. Their totals meet in block 0's shared memory (distributed shared memory) behind
// one cluster barrier: no counter, no fence, and none of the grid path's two more trips to L2.
struct ClusterShape {
  int threads = 0;  // per block: 512, or 1024 where 8 blocks of 512 would not hold n
  int blocks = 0;   // a power of two, 2 to kClusterMaxBlocks; 0: not this path
};

template <typename T>
constexpr ClusterShape cluster_shape(std::size_t n) {
  using C = FastestChoice;
  if (n > C::kClusterMaxN || single_block_threads<T>(n) != 0) return {};
  const std::size_t vectors = (n + Lanes<T, true>::count - 1) / Lanes<T, true>::count;
  for (int threads = 512; threads <= 1024; threads *= 2)
    for (int blocks = 2; blocks <= C::kClusterMaxBlocks; blocks *= 2)
      if (vectors <= std::size_t(threads) * blocks * C::kLoadsInFlight) return {threads, blocks};
  return {};
}

#ifndef REDUCTION_EMULATOR  // clusters and distributed shared memory: the GPU only
template <typename Op, typename T, int kThreads>
__global__ void __launch_bounds__(kThreads) cluster_kernel(const T* __restrict__ input, std::size_t n, T* result) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // EXERCISE: single_block_kernel's loads and additions over the cluster's threads (thread
  // HINT: blockIdx.x * kThreads + threadIdx.x, stride gridDim.x * kThreads), block_total, then thread 0
  // HINT: of each block stores its total in block 0's `block_totals` through
  // HINT: cooperative_groups::this_cluster().map_shared_rank(...); cluster.sync(); warp 0 of block 0
  // HINT: adds them (warp_total) and writes *result.
  using Vector = typename Lanes<T, true>::Vector;
  constexpr int kCount = Lanes<T, true>::count;
  constexpr int kLoads = FastestChoice::kLoadsInFlight;
  const Op op{};
  const T identity = Op::template identity<T>();
  const std::size_t g = std::size_t(blockIdx.x) * kThreads + threadIdx.x, stride = std::size_t(gridDim.x) * kThreads;
  const std::size_t misaligned = reinterpret_cast<std::uintptr_t>(input) % sizeof(Vector) / sizeof(T);
  const std::size_t to_boundary = misaligned ? kCount - misaligned : 0;
  const std::size_t head = to_boundary < n ? to_boundary : n;
  const std::size_t vectors = (n - head) / kCount, tail = head + vectors * kCount;
  const auto* vector = reinterpret_cast<const Vector*>(input + head);
  Vector v[kLoads];  // every load first, as in single_block_kernel
#pragma unroll
  for (int k = 0; k < kLoads; ++k) {
    const std::size_t i = g + k * stride;
    if (i < vectors) v[k] = load_vector<T>(vector + i);
    else
#pragma unroll
      for (int j = 0; j < kCount; ++j) v[k].lane[j] = identity;
  }
  T sum = op(g < head ? __ldg(input + g) : identity, g < n - tail ? __ldg(input + tail + g) : identity);
#pragma unroll
  for (int k = 0; k < kLoads; ++k)
#pragma unroll
    for (int j = 0; j < kCount; ++j) sum = op(sum, v[k].lane[j]);
  const T total = block_total<Op, kThreads>(sum);
  // Each block's total into block 0's slots, then the barrier that makes them visible there.
  __shared__ T block_totals[FastestChoice::kClusterMaxBlocks];
  cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  if (threadIdx.x == 0) *cluster.map_shared_rank(&block_totals[0] + cluster.block_rank(), 0) = total;
  cluster.sync();
  if (cluster.block_rank() == 0 && threadIdx.x < 32) {
    const T all = warp_total<Op, 32>(threadIdx.x < gridDim.x ? block_totals[threadIdx.x] : identity);
    if (threadIdx.x == 0) *result = all;
  }
  // END EXERCISE
#endif
}

template <typename Op, typename T>
void launch_cluster(const T* input, std::size_t n, T* result, ClusterShape shape, cudaStream_t stream) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(unsigned(shape.blocks));
  config.blockDim = dim3(unsigned(shape.threads));
  config.stream = stream;
  cudaLaunchAttribute cluster[1] = {};
  cluster[0].id = cudaLaunchAttributeClusterDimension;
  cluster[0].val.clusterDim.x = unsigned(shape.blocks);
  cluster[0].val.clusterDim.y = cluster[0].val.clusterDim.z = 1;
  config.attrs = cluster;
  config.numAttrs = 1;
  if (shape.threads == 512) CUDA_CHECK(cudaLaunchKernelEx(&config, cluster_kernel<Op, T, 512>, input, n, result));
  else CUDA_CHECK(cudaLaunchKernelEx(&config, cluster_kernel<Op, T, 1024>, input, n, result));
}
#endif  // REDUCTION_EMULATOR

// kLoadsInFlight - 1 additions in a lane's chain, log2(count) between the lanes, the head and
// tail, then at most 5 + 5 levels of the block's tree.
template <typename T>
constexpr std::size_t single_block_depth() {
  return FastestChoice::kLoadsInFlight - 1 + (Lanes<T, true>::count == 4 ? 2 : 1) + 2 + kShuffleTree;
}

// fastest itself: the path, block and grid for n, then the launch. Clusters from Hopper, which also
// brought the dependent launch.
template <typename Op, typename T>
FastestPlan fastest_plan(std::size_t n) {
  if (const int threads = single_block_threads<T>(n)) return {true, threads, 1};
#ifndef REDUCTION_EMULATOR
  if (const ClusterShape c = cluster_shape<T>(n); c.blocks != 0 && dependent_launch_supported())
    return {false, c.threads, c.blocks, false, 0, false, 0, true};
#endif
  return fastest_grid_plan<Op, T>(n);
}

#ifndef REDUCTION_EMULATOR
// Like cub, fastest brings its own block size. Safe to call from several streams and host threads
// at once, each call with its own DeviceScratch.
template <typename Op, typename T>
void launch_fastest(const T* input, std::size_t n, T* result, int /*block: its own*/, DeviceScratch& scratch,
                    cudaStream_t stream) {
  using C = FastestChoice;
  const FastestPlan plan = fastest_plan<Op, T>(n);
  if (plan.single_block)
    launch_single_block<Op, T>(input, n, result, stream);
  else if (plan.cluster)
    launch_cluster<Op, T>(input, n, result, ClusterShape{plan.block, plan.grid}, stream);
  else if (plan.tiles)
    launch_fastest_tiles<Op, T, C::kLoadsInFlight, tiles_to_words<Op, T>()>(input, n, result, plan.block, plan.grid,
                                                                            plan.rounds, plan.fold_block, scratch,
                                                                            stream);
  else
    launch_fastest_grid<Op, T, C::kWide, C::kLoadsInFlight, C::kOnePass, C::kChunked>(input, n, result, plan.block,
                                                                                      plan.grid, scratch, stream);
}
#endif  // REDUCTION_EMULATOR

template <typename Op, typename T>
std::size_t fastest_depth(std::size_t n, int /*block: its own*/) {
  using C = FastestChoice;
  if (single_block_threads<T>(n) != 0) return single_block_depth<T>();
  const FastestPlan plan = fastest_grid_plan<Op, T>(n);
  const std::size_t grid_bound = plan.to_words ? tile_words_depth<T>(n, plan.block, plan.grid)
                                               : grid_path_depth<T, C::kWide>(n, plan.block, plan.grid, plan.fold_block);
  // The cluster path, where the device takes it: a thread's chain, the block's tree, 5 levels more.
  constexpr std::size_t cluster_bound = C::kLoadsInFlight * Lanes<T, true>::count + 1 + kShuffleTree + 5;
  return cluster_shape<T>(n).blocks != 0 ? std::max(grid_bound, cluster_bound) : grid_bound;
}

}  // namespace ch09
