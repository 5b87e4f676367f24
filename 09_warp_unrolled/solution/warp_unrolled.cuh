// Chapter 09: the warp. The last steps of the tree run inside one warp of 32 threads, which needs
// no block-wide barrier; the block size becomes a template argument so the whole tree unrolls;
// shuffles move the warp's additions from shared memory into registers; and `fastest` adds what
// the memory system rewards, to end as fast as the library (cub, measured beside it).
//
// Every variant reduces input[0, n) into result[0] through the launcher shape of chapters 06 to 09
// (common/variants.cuh), and variants<Op, T>() lists them once for the program, tests and benchmark.
#pragma once

#include <cuda_runtime.h>

#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/cuda_check.cuh"
#include "common/gpu.cuh"
#include "common/ops.hpp"
#include "common/reference.hpp"
#include "common/variants.cuh"

namespace ch09 {

using reduction::ceil_log2;
using reduction::DeviceScratch;

// ---------------------------------------------------------------------------------------------
// Shared by every pass: the grid, and each thread's own sum.

// How many blocks of `kernel` the GPU runs at once: its multiprocessors times the blocks of this
// size that fit on one (registers, shared memory and the thread limit decide). A grid of that
// size keeps every multiprocessor full, and a grid-stride loop lets it cover any n. The answer
// depends only on the kernel, the block size and the device, so it is asked once and kept: the
// launch path then makes no driver query, which matters when a reduction takes microseconds.
// The table is shared by every host thread, so a lock guards it.
template <typename Kernel>
int resident_blocks(Kernel kernel, int block, std::size_t shared_bytes) {
  static std::mutex mutex;
  static std::map<std::tuple<int, const void*, int, std::size_t>, int> known;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const auto key = std::make_tuple(device, reinterpret_cast<const void*>(kernel), block, shared_bytes);
  const std::lock_guard<std::mutex> lock(mutex);
  if (auto it = known.find(key); it != known.end()) return it->second;
  int per_multiprocessor = 0, multiprocessors = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel, block, shared_bytes));
  CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  return known[key] = std::max(1, per_multiprocessor) * multiprocessors;
}

// The grid of a pass over `work` items of `per_block` items a block: the resident blocks, or fewer
// when there is not enough work to give each of them something.
inline int grid_for(std::size_t work, std::size_t per_block, int resident) {
  const std::size_t wanted = (work + per_block - 1) / per_block;
  return static_cast<int>(std::clamp<std::size_t>(wanted, 1, static_cast<std::size_t>(resident)));
}

// Chapter 08's first step: each thread folds every (blocks x threads)-th element into one value,
// reading consecutive elements across the grid at each step (coalesced). Indices in 64 bits: the
// grid-stride index passes 2^31 for inputs that large.
template <typename Op, typename T>
__device__ T thread_partial(const T* input, std::size_t n) {
  const Op op{};
  T sum = Op::template identity<T>();
  const std::size_t stride = std::size_t(blockDim.x) * gridDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) sum = op(sum, input[i]);
  return sum;
}

// The most rounded additions an element meets in one grid-stride pass over n elements by
// `threads` threads (see common/reference.hpp): up to ceil(n / threads) in its thread's loop,
// then `tree` levels inside the block.
inline std::size_t pass_depth(std::size_t n, std::size_t threads, std::size_t tree) {
  return (n + threads - 1) / threads + tree;
}

// Two passes, as in chapter 08: `grid` blocks leave one result each in scratch, then one block
// reduces those. With a single block the first pass already gives the answer.
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

inline std::size_t two_pass_depth(std::size_t n, int block, int grid, std::size_t tree) {
  const std::size_t first = pass_depth(n, std::size_t(grid) * block, tree);
  return grid == 1 ? first : first + pass_depth(grid, block, tree);
}

// ---------------------------------------------------------------------------------------------
// 1. warp_volatile: the classic warp-synchronous finish. A CAUTIONARY EXAMPLE: on Volta and every
//    GPU since, it is a data race, and compute-sanitizer's racecheck says so.
//
// Chapter 08's tree ends with log2(blockDim.x) steps, each behind __syncthreads(). Once 32 or fewer
// threads are active they all sit in warp 0, and before Volta a warp's 32 threads executed every
// instruction together, in lock-step: all 32 loads of a step happened before any of its stores,
// and one step's stores before the next step's loads. So the last six steps skipped the barrier.
// `volatile` makes the compiler load and store shared memory at every step instead of keeping
// values in registers, where the other lanes could not see them. All 32 lanes run every step
// (lanes past the useful ones add values nobody reads), so the warp never diverges.
//
// Volta gave each thread its own program counter (independent thread scheduling): the lanes of a
// warp may now run apart, and nothing orders lane 0's read of slot 16 after lane 16's write of
// it. The result is usually right because the warp happens to stay together, which is exactly
// what makes the race dangerous. Nothing in the language promised lock-step.
//
// The warp reads slots up to 63, so shared memory holds at least 64 values, and a 32-thread block
// fills slots 32 to 63 with the identity. (The CUDA Handbook's listing sizes its array to the
// block and so reads past the end of it for a 32-thread block.)
template <typename T>
__global__ void warp_volatile_kernel(const T* input, std::size_t n, T* block_results) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];  // max(blockDim.x, 64) values
  T* partial = reinterpret_cast<T*>(shared_bytes);
  const reduction::Sum add{};
  const unsigned t = threadIdx.x;
  partial[t] = thread_partial<reduction::Sum>(input, n);
  if (t + blockDim.x < 64) partial[t + blockDim.x] = reduction::Sum::identity<T>();
  __syncthreads();
  for (unsigned active = blockDim.x / 2; active > 32; active /= 2) {
    if (t < active) partial[t] = add(partial[t], partial[t + active]);
    __syncthreads();
  }
  if (t < 32) {
    volatile T* warp = partial;
    warp[t] = add(warp[t], warp[t + 32]);
    warp[t] = add(warp[t], warp[t + 16]);
    warp[t] = add(warp[t], warp[t + 8]);
    warp[t] = add(warp[t], warp[t + 4]);
    warp[t] = add(warp[t], warp[t + 2]);
    warp[t] = add(warp[t], warp[t + 1]);
    if (t == 0) block_results[blockIdx.x] = warp[0];
  }
}

// 2. warp_syncwarp: the same finish, made correct. __syncwarp() is a barrier for the lanes of one
//    warp, and orders their shared-memory accesses as __syncthreads() does for a block. Each step
//    reads its neighbour into a register, waits until every lane has read, writes, and waits
//    until every lane's write is visible. `volatile` is no longer needed: the barriers order the
//    accesses, and the running sum stays in a register.
template <typename T>
__global__ void warp_syncwarp_kernel(const T* input, std::size_t n, T* block_results) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];  // max(blockDim.x, 64) values
  T* partial = reinterpret_cast<T*>(shared_bytes);
  const reduction::Sum add{};
  const unsigned t = threadIdx.x;
  partial[t] = thread_partial<reduction::Sum>(input, n);
  if (t + blockDim.x < 64) partial[t + blockDim.x] = reduction::Sum::identity<T>();
  __syncthreads();
  for (unsigned active = blockDim.x / 2; active > 32; active /= 2) {
    if (t < active) partial[t] = add(partial[t], partial[t + active]);
    __syncthreads();
  }
  if (t < 32) {
    T sum = partial[t];
#pragma unroll
    for (unsigned offset = 32; offset > 0; offset /= 2) {
      sum = add(sum, partial[t + offset]);
      __syncwarp();  // every lane has read slot t + offset before any lane overwrites it
      partial[t] = sum;
      __syncwarp();  // every lane's new value is visible before the next step reads it
    }
    if (t == 0) block_results[blockIdx.x] = sum;
  }
}

// Both warp finishes work on whole warps: 32 to 1024 threads, and at least 64 shared slots.
inline std::size_t warp_finish_slots(int block) { return static_cast<std::size_t>(std::max(block, 64)); }

template <typename T>
void launch_warp_volatile(const T* input, std::size_t n, T* result, int block, DeviceScratch& scratch,
                          cudaStream_t stream) {
  const std::size_t shared = warp_finish_slots(block) * sizeof(T);
  const int grid = grid_for(n, block, resident_blocks(warp_volatile_kernel<T>, block, shared));
  launch_two_passes(warp_volatile_kernel<T>, input, n, result, block, grid, shared, scratch, stream);
}

template <typename T>
void launch_warp_syncwarp(const T* input, std::size_t n, T* result, int block, DeviceScratch& scratch,
                          cudaStream_t stream) {
  const std::size_t shared = warp_finish_slots(block) * sizeof(T);
  const int grid = grid_for(n, block, resident_blocks(warp_syncwarp_kernel<T>, block, shared));
  launch_two_passes(warp_syncwarp_kernel<T>, input, n, result, block, grid, shared, scratch, stream);
}

// Both pad the tree to 64 values: log2(max(block, 64)) levels.
template <typename T>
std::size_t warp_finish_depth(std::size_t n, int block) {
  const std::size_t shared = warp_finish_slots(block) * sizeof(T);
  const int grid = grid_for(n, block, resident_blocks(warp_syncwarp_kernel<T>, block, shared));
  return two_pass_depth(n, block, grid, ceil_log2(warp_finish_slots(block)));
}

// ---------------------------------------------------------------------------------------------
// 3. unrolled: the block size as a template argument.
//
// With kBlock known to the compiler, every loop bound in the tree is a constant: the loops unroll
// into a straight line of steps, the steps a smaller block never takes disappear (a 128-thread
// block has no step for 512 active threads), the grid stride is a multiply by a constant, and the
// shared array has a fixed size. What is left is the work itself: no loop counters, no tests of
// blockDim.x. Any power of two from 1 to 1024 works: below 64 threads the guard t < offset keeps
// every read inside the kBlock slots, and the warp barrier names only the lanes that exist.
__host__ __device__ constexpr unsigned lanes_of(int threads) {
  return threads >= 32 ? 0xffffffffu : (1u << threads) - 1u;
}

template <int kBlock, typename T>
__global__ void __launch_bounds__(kBlock) unrolled_kernel(const T* input, std::size_t n, T* block_results) {
  __shared__ T partial[kBlock];
  const reduction::Sum add{};
  const unsigned t = threadIdx.x;
  T sum = reduction::Sum::identity<T>();
  const std::size_t stride = std::size_t(kBlock) * gridDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * kBlock + t; i < n; i += stride) sum = add(sum, input[i]);
  partial[t] = sum;
  __syncthreads();
#pragma unroll
  for (int active = kBlock / 2; active > 32; active /= 2) {
    if (t < active) partial[t] = add(partial[t], partial[t + active]);
    __syncthreads();
  }
  if (t < 32) {
    sum = partial[t];
#pragma unroll
    for (int offset = kBlock >= 64 ? 32 : kBlock / 2; offset > 0; offset /= 2) {
      if (t < offset) sum = add(sum, partial[t + offset]);
      __syncwarp(lanes_of(kBlock));
      if (t < offset) partial[t] = sum;
      __syncwarp(lanes_of(kBlock));
    }
    if (t == 0) block_results[blockIdx.x] = sum;
  }
}

template <int kBlock, typename T>
int unrolled_grid(std::size_t n) {
  return grid_for(n, kBlock, resident_blocks(unrolled_kernel<kBlock, T>, kBlock, 0));
}

template <int kBlock, typename T>
void launch_unrolled_block(const T* input, std::size_t n, T* result, int /*block: kBlock*/, DeviceScratch& scratch,
                           cudaStream_t stream) {
  launch_two_passes(unrolled_kernel<kBlock, T>, input, n, result, kBlock, unrolled_grid<kBlock, T>(n), 0, scratch,
                    stream);
}

template <int kBlock, typename T>
std::size_t unrolled_block_depth(std::size_t n, int /*block: kBlock*/) {
  return two_pass_depth(n, kBlock, unrolled_grid<kBlock, T>(n), ceil_log2(kBlock));
}

// The run-time block size picks one of eleven instantiations, 2^0 to 2^10. One table, built by
// the compiler from the exponents, replaces a switch with a case per size.
constexpr int kUnrolledSizes = 11;
inline int unrolled_index(int block) {
  int k = 0;
  while (k < kUnrolledSizes && (1 << k) < block) ++k;
  if (k == kUnrolledSizes || (1 << k) != block)
    throw std::invalid_argument("unrolled: the block size must be a power of two from 1 to 1024");
  return k;
}

template <typename T, int... k>
constexpr std::array<reduction::MultiBlockLaunch<T>, sizeof...(k)> unrolled_launchers(
    std::integer_sequence<int, k...>) {
  return {&launch_unrolled_block<(1 << k), T>...};
}
template <typename T, int... k>
constexpr std::array<std::size_t (*)(std::size_t, int), sizeof...(k)> unrolled_depths(
    std::integer_sequence<int, k...>) {
  return {&unrolled_block_depth<(1 << k), T>...};
}

template <typename T>
void launch_unrolled(const T* input, std::size_t n, T* result, int block, DeviceScratch& scratch, cudaStream_t stream) {
  static constexpr auto table = unrolled_launchers<T>(std::make_integer_sequence<int, kUnrolledSizes>{});
  table[unrolled_index(block)](input, n, result, block, scratch, stream);
}

template <typename T>
std::size_t unrolled_depth(std::size_t n, int block) {
  static constexpr auto table = unrolled_depths<T>(std::make_integer_sequence<int, kUnrolledSizes>{});
  return table[unrolled_index(block)](n, block);
}

// ---------------------------------------------------------------------------------------------
// 4. shuffle: the warp's additions in registers.
//
// __shfl_down_sync(mask, v, d) hands each lane the value v of the lane d places above it, register
// to register, and waits for the named lanes (the _sync): no shared memory, no barrier. Five
// halvings leave the warp's total in lane 0. A block then needs shared memory only to gather one
// value per warp (32 slots at most), one __syncthreads(), and a last round of shuffles in warp 0.
template <typename Op, typename T>
__device__ T warp_reduce(T value) {
  const Op op{};
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) value = op(value, __shfl_down_sync(0xffffffffu, value, offset));
  return value;  // the warp's total in lane 0
}

// The block's total, in thread 0. Needs whole warps: blockDim.x a multiple of 32.
template <typename Op, typename T>
__device__ T block_reduce(T value) {
  __shared__ T warp_totals[32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  value = warp_reduce<Op>(value);
  if (lane == 0) warp_totals[warp] = value;
  __syncthreads();
  if (warp == 0) value = warp_reduce<Op>(lane < blockDim.x / 32 ? warp_totals[lane] : Op::template identity<T>());
  return value;
}

template <typename Op, typename T>
__global__ void shuffle_kernel(const T* input, std::size_t n, T* block_results) {
  const T total = block_reduce<Op>(thread_partial<Op>(input, n));
  if (threadIdx.x == 0) block_results[blockIdx.x] = total;
}

// Five shuffle levels in each warp, five across the warps' totals (padded to 32 with the identity).
constexpr std::size_t kShuffleTree = 10;

template <typename Op, typename T>
int shuffle_grid(std::size_t n, int block) {
  return grid_for(n, block, resident_blocks(shuffle_kernel<Op, T>, block, 0));
}

template <typename Op, typename T>
void launch_shuffle(const T* input, std::size_t n, T* result, int block, DeviceScratch& scratch, cudaStream_t stream) {
  launch_two_passes(shuffle_kernel<Op, T>, input, n, result, block, shuffle_grid<Op, T>(n, block), 0, scratch, stream);
}

template <typename Op, typename T>
std::size_t shuffle_depth(std::size_t n, int block) {
  return two_pass_depth(n, block, shuffle_grid<Op, T>(n, block), kShuffleTree);
}

// ---------------------------------------------------------------------------------------------
// 5. fastest: the shuffle kernel, plus what the memory system rewards, and a path for every size.
//
// Large n, the grid path (fastest_kernel). Each knob is a template argument so that the program's
// --sweep can time every combination; FastestChoice below holds the ones the measurements picked.
//  - kWide: each load moves 16 bytes (4 ints or floats, 2 doubles) in one instruction instead of
//    one element. A quarter of the load instructions and address calculations for the same bytes.
//  - kLoadsInFlight: each thread issues that many independent loads before it adds the first.
//    DRAM answers after hundreds of cycles; loads already on their way overlap that wait. The
//    thread's last vectors, fewer than kLoadsInFlight, follow one at a time.
//  - kOnePass: instead of a second launch over the block results, the last block to finish adds
//    them. The second launch cost about a microsecond, a tenth of the time at 2^20. Each block counts
//    itself done with an atomic on a counter; the one that sees the count reach the grid size knows
//    every other block's result is written. atomicInc wraps the counter back to 0 at that moment,
//    so it is ready for the next launch without a reset. The counter goes with the scratch the
//    caller passes (block_counter_for): reductions with different scratch may run at the same time.
//  - kChunked: each block streams one contiguous chunk of the input instead of striding over the
//    whole grid (the layout CUB uses).
//  - waves (run time): the grid is this many times the resident blocks.
//
// Small n, the single-block path (single_block_kernel, further down): one block, one round of
// loads, no counter.
//
// Vectors need 16-byte alignment: the elements before the first 16-byte boundary (the head) and
// after the last whole vector (the tail) are added one by one, by the grid's first threads.
template <typename T, bool kWide>
struct Lanes {
  static constexpr int count = kWide ? 16 / int(sizeof(T)) : 1;
  struct alignas(kWide ? 16 : alignof(T)) Vector {
    T lane[count];
  };
};

// What fastest chooses, and why (README.md, "A path for every size", has the reasoning and the
// measurements). The program prints the choice for its n.
struct FastestChoice {
  // Every path: 16-byte loads, four in flight per thread before the first is added (--sweep at
  // 2^28: four beat one and two; eight came within 0.6 %).
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
  // multiprocessors (--sweep, float 2^20 on the H200: 256 threads and one wave 8.26 us, 1024
  // threads and two waves 8.77 us). Not more blocks than that: each counts itself done on the one
  // counter, and atomics on one address are served one after another.
  static constexpr int kMidBlock = 256;
  static constexpr int kMidBlocksPerMultiprocessor = 2;
  // Large n: --sweep's winner at 2^28 and 2^30: the grid-stride layout, one pass, 1024-thread
  // blocks, two waves (0.8 to 1.1 % faster there than 256 threads and one wave). Between mid and
  // large, at least one block per multiprocessor, each thread's loads then less than one round.
  static constexpr bool kOnePass = true;
  static constexpr bool kChunked = false;
  static constexpr int kBlock = 1024;
  static constexpr int kWaves = 2;
};

template <typename Op, typename T, bool kWide, int kLoadsInFlight, bool kChunked>
__device__ T wide_partial(const T* input, std::size_t n) {
  using Vector = typename Lanes<T, kWide>::Vector;
  constexpr int kCount = Lanes<T, kWide>::count;
  const Op op{};
  T sum = Op::template identity<T>();
  const std::size_t misaligned = reinterpret_cast<std::uintptr_t>(input) % alignof(Vector) / sizeof(T);
  const std::size_t to_boundary = misaligned ? kCount - misaligned : 0;
  const std::size_t head = to_boundary < n ? to_boundary : n;
  const std::size_t vectors = (n - head) / kCount;
  const auto* vector = reinterpret_cast<const Vector*>(input + head);

  const std::size_t thread = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  std::size_t first, step, end;
  if constexpr (kChunked) {
    const std::size_t chunk = (vectors + gridDim.x - 1) / gridDim.x;
    first = std::size_t(blockIdx.x) * chunk + threadIdx.x;
    step = blockDim.x;
    const std::size_t chunk_end = std::size_t(blockIdx.x + 1) * chunk;
    end = chunk_end < vectors ? chunk_end : vectors;
  } else {
    first = thread;
    step = std::size_t(blockDim.x) * gridDim.x;
    end = vectors;
  }
  std::size_t i = first;
  for (; i + (kLoadsInFlight - 1) * step < end; i += kLoadsInFlight * step) {
    Vector v[kLoadsInFlight];
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) v[k] = vector[i + k * step];  // all loads issued first
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k)
#pragma unroll
      for (int j = 0; j < kCount; ++j) sum = op(sum, v[k].lane[j]);
  }
  // The last vectors, fewer than kLoadsInFlight, one at a time. (Loading them all at once, as the
  // loop above does, measured 1.5 % slower at 2^28 on the H200: README, "A path for every size".)
  for (; i < end; i += step) {
    const Vector v = vector[i];
#pragma unroll
    for (int j = 0; j < kCount; ++j) sum = op(sum, v.lane[j]);
  }
  const std::size_t tail = head + vectors * kCount;
  if (thread < head) sum = op(sum, input[thread]);
  if (thread < n - tail) sum = op(sum, input[tail + thread]);
  return sum;
}

// The last block's first step: every block's result, read through L2 (__ldcg: where the other
// blocks' stores landed, never a stale L1 line), four loads in flight per thread.
template <typename Op, typename T>
__device__ T fold_block_results(const T* block_results, unsigned count) {
  constexpr int kInFlight = 4;
  const Op op{};
  T sum = Op::template identity<T>();
  for (unsigned b = threadIdx.x; b < count; b += kInFlight * blockDim.x) {
    T r[kInFlight];
#pragma unroll
    for (int k = 0; k < kInFlight; ++k)
      r[k] = b + k * blockDim.x < count ? __ldcg(block_results + b + k * blockDim.x) : Op::template identity<T>();
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) sum = op(sum, r[k]);
  }
  return sum;
}

template <typename Op, typename T, bool kWide, int kLoadsInFlight, bool kOnePass, bool kChunked>
__global__ void fastest_kernel(const T* input, std::size_t n, T* block_results, T* result, unsigned int* blocks_done) {
  const T total = block_reduce<Op>(wide_partial<Op, T, kWide, kLoadsInFlight, kChunked>(input, n));
  if constexpr (!kOnePass) {
    if (threadIdx.x == 0) block_results[blockIdx.x] = total;
  } else {
    __shared__ bool last;
    if (threadIdx.x == 0) {
      block_results[blockIdx.x] = total;
      __threadfence();  // the result is visible to every block before this block counts as done
      last = atomicInc(blocks_done, gridDim.x - 1) == gridDim.x - 1;
      __threadfence();  // and the last block reads the others' results only after counting
    }
    __syncthreads();
    if (!last) return;
    const T sum = block_reduce<Op>(fold_block_results<Op>(block_results, gridDim.x));
    if (threadIdx.x == 0) *result = sum;
  }
}

// The one-pass grid's block counter. It must read zero when a launch starts, and the launch's last
// block leaves it at zero, so it needs no memset per call. Where it lives decides what may run at
// once. This chapter first had one __device__ counter for the whole program: two reductions on
// concurrent streams then counted each other's blocks, and one finished early or never. Now each
// scratch allocation has its own counter, which the launcher keeps beside it (keyed by the
// scratch's device address), zeroed once, on the caller's stream, when that address is first
// seen. The block results already live in the scratch, so the rule for callers is the one CUB
// states for its temporary storage: calls that may run at the same time must not share one
// DeviceScratch. Calls with different scratch run together safely, on any streams and host
// threads. (Inside the scratch itself the counter would not survive: the other launchers that
// are handed the same scratch in turn, cub among them, write over its first bytes.)
inline unsigned int* block_counter_for(const void* scratch_memory, cudaStream_t stream) {
  static std::mutex mutex;
  static std::unordered_map<const void*, unsigned int*> counters;
  const std::lock_guard<std::mutex> lock(mutex);
  if (auto it = counters.find(scratch_memory); it != counters.end()) return it->second;
  unsigned int* counter = nullptr;
  CUDA_CHECK(cudaMalloc(&counter, sizeof(unsigned int)));
  CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof(unsigned int), stream));  // before this call's kernel
  counters.emplace(scratch_memory, counter);
  return counter;
}

template <typename Op, typename T, bool kWide, int kLoadsInFlight, bool kOnePass, bool kChunked>
int fastest_grid(std::size_t n, int block, int waves) {
  const auto kernel = fastest_kernel<Op, T, kWide, kLoadsInFlight, kOnePass, kChunked>;
  const std::size_t per_block = std::size_t(block) * kLoadsInFlight * Lanes<T, kWide>::count;
  return grid_for(n, per_block, waves * resident_blocks(kernel, block, 0));
}

template <typename Op, typename T, bool kWide, int kLoadsInFlight, bool kOnePass, bool kChunked>
void launch_fastest_grid(const T* input, std::size_t n, T* result, int block, int grid, DeviceScratch& scratch,
                         cudaStream_t stream) {
  const auto kernel = fastest_kernel<Op, T, kWide, kLoadsInFlight, kOnePass, kChunked>;
  if constexpr (kOnePass) {
    T* block_results = scratch.get_as<T>(grid);
    kernel<<<grid, block, 0, stream>>>(input, n, block_results, result, block_counter_for(block_results, stream));
    CUDA_CHECK_LAUNCH();
  } else if (grid == 1) {
    kernel<<<1, block, 0, stream>>>(input, n, result, nullptr, nullptr);
    CUDA_CHECK_LAUNCH();
  } else {
    T* block_results = scratch.get_as<T>(grid);
    kernel<<<grid, block, 0, stream>>>(input, n, block_results, nullptr, nullptr);
    CUDA_CHECK_LAUNCH();
    kernel<<<1, block, 0, stream>>>(block_results, grid, result, nullptr, nullptr);
    CUDA_CHECK_LAUNCH();
  }
}

// Any configuration of the knobs, the grid from `waves` (the program's --sweep and the tests).
template <typename Op, typename T, bool kWide, int kLoadsInFlight, bool kOnePass, bool kChunked>
void launch_fastest_with(const T* input, std::size_t n, T* result, int block, int waves, DeviceScratch& scratch,
                         cudaStream_t stream) {
  const int grid = fastest_grid<Op, T, kWide, kLoadsInFlight, kOnePass, kChunked>(n, block, waves);
  launch_fastest_grid<Op, T, kWide, kLoadsInFlight, kOnePass, kChunked>(input, n, result, block, grid, scratch, stream);
}

// Its thread loop adds up to ceil(n / threads) elements, plus up to two vectors' worth for the
// rounding of the vector count and one element each of the head and tail; then the shuffle tree;
// then the same over the block results (in the last block, or in the second launch).
template <typename T, bool kWide>
std::size_t grid_path_depth(std::size_t n, int block, int grid) {
  constexpr std::size_t slack = 2 * Lanes<T, kWide>::count + 2;
  return pass_depth(n, std::size_t(grid) * block, kShuffleTree) + slack + pass_depth(grid, block, kShuffleTree) + slack;
}

template <typename Op, typename T, bool kWide, int kLoadsInFlight, bool kOnePass, bool kChunked>
std::size_t fastest_depth_with(std::size_t n, int block, int waves) {
  const int grid = fastest_grid<Op, T, kWide, kLoadsInFlight, kOnePass, kChunked>(n, block, waves);
  return grid_path_depth<T, kWide>(n, block, grid);
}

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

// ---------------------------------------------------------------------------------------------
// The single-block path: small n.
//
// Below some thousands of elements moving the bytes takes no time: a reduction costs its launch
// and the chain of steps inside it that wait for one another. The grid path's chain is long for
// that: the loads, the block's tree, the block's result stored and fenced, the atomic, the last
// block's loads of every result, a second tree. cub::DeviceReduce has a path of its own for small
// inputs: up to one tile (on sm_90, 256 threads x 16 items of 4 bytes, 4096 ints or floats, 8 items
// or 2048 doubles: Policy600 in CCCL's tuning_reduce.cuh) it launches one block that writes the
// result itself. A full tile it reads with four 16-byte loads per thread; a tile that is not full,
// one element at a time, in a loop in which the first element and the first (items - 1) % 4 are
// loads of their own, outside the four-way unrolled part (its PTX in this toolkit).
//
// This path does the least a reduction of n elements must: one launch of one block, whose every
// thread issues all of its loads at once, 16-byte vectors (at most kLoadsInFlight of them) and the
// odd elements before the first aligned address and after the last whole vector, so that the input
// is one trip to memory; then the additions in registers; then the block's total by the shortest
// route the hardware has (block_total); then thread 0 stores it. No counter, no scratch, no second
// trip. The block is the fewest threads, a power of two from 32, that cover n in one round
// (single_block_threads): a smaller block has fewer warps to combine, and one warp (up to 512 ints
// or floats, 256 doubles) needs neither shared memory nor a barrier.

// The total of one warp's values in lane 0: of the first kLanes lanes' values. sm_80 and newer add,
// or take the max or min of, 32 ints in one instruction (redux.sync, as CUB does); otherwise
// log2(kLanes) shuffle steps.
template <typename Op, int kLanes, typename T>
__device__ __forceinline__ T warp_total(T value) {
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
}

// The block's total in thread 0, for a block of kThreads (a multiple of 32): each warp's total,
// then, with more than one warp, the warp totals through shared memory and one barrier, and
// log2(warps) steps in warp 0 (block_reduce takes 5 there, whatever the block).
template <typename Op, int kThreads, typename T>
__device__ __forceinline__ T block_total(T value) {
  constexpr int kWarps = kThreads / 32;
  value = warp_total<Op, 32>(value);
  if constexpr (kWarps > 1) {
    __shared__ T warp_totals[kWarps];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warp_totals[warp] = value;
    __syncthreads();
    if (warp == 0) value = warp_total<Op, kWarps>(lane < kWarps ? warp_totals[lane] : Op::template identity<T>());
  }
  return value;
}

// One 16-byte vector through the read-only data path (ld.global.nc), as CUB loads.
template <typename T>
__device__ __forceinline__ typename Lanes<T, true>::Vector load_vector(const typename Lanes<T, true>::Vector* address) {
  const uint4 bits = __ldg(reinterpret_cast<const uint4*>(address));
  typename Lanes<T, true>::Vector v;
  static_assert(sizeof(v) == sizeof(bits), "a vector is 16 bytes");
  memcpy(&v, &bits, sizeof v);
  return v;
}

// n must be at most kThreads x kLoadsInFlight vectors (single_block_threads sees to it).
template <typename Op, typename T, int kThreads>
__global__ void __launch_bounds__(kThreads) single_block_kernel(const T* __restrict__ input, std::size_t n, T* result) {
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
}

// The single-block path's block for n elements of T: the fewest threads, a power of two from 32,
// that hold n in kLoadsInFlight vectors each; 0 when n needs more than kSingleBlockMax threads
// (then the grid path runs). However n is aligned, it spans at most ceil(n / count) whole vectors.
template <typename T>
constexpr int single_block_threads(std::size_t n) {
  using C = FastestChoice;
  constexpr std::size_t kCount = Lanes<T, true>::count;
  const std::size_t vectors = (n + kCount - 1) / kCount;
  for (int threads = C::kSingleBlockMin; threads <= C::kSingleBlockMax; threads *= 2)
    if (vectors <= std::size_t(threads) * C::kLoadsInFlight) return threads;
  return 0;
}

// Six instantiations per operator and type, 32 to 1024 threads, in a table built by the compiler
// (as for `unrolled`).
constexpr int kSingleBlockSizes = 6;
constexpr int single_block_index(int threads) {
  int k = 0;
  while ((FastestChoice::kSingleBlockMin << k) < threads) ++k;
  return k;
}

template <typename T>
using SingleBlockKernel = void (*)(const T*, std::size_t, T*);

template <typename Op, typename T, int... k>
constexpr std::array<SingleBlockKernel<T>, sizeof...(k)> single_block_kernels(std::integer_sequence<int, k...>) {
  return {&single_block_kernel<Op, T, (FastestChoice::kSingleBlockMin << k)>...};
}

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

// An element meets kLoadsInFlight - 1 additions in its lane's chain, log2(count) between the lanes,
// the head and tail elements, then at most 5 + 5 levels of the block's tree.
template <typename T>
constexpr std::size_t single_block_depth() {
  return FastestChoice::kLoadsInFlight - 1 + (Lanes<T, true>::count == 4 ? 2 : 1) + 2 + kShuffleTree;
}

// ---------------------------------------------------------------------------------------------
// fastest itself: the path, block and grid for n, then the launch.
struct FastestPlan {
  bool single_block = false;
  int block = 0;
  int grid = 0;
};

// The grid path's block and grid for n: kMidBlock threads, each one round of loads, while that
// takes at most kMidBlocksPerMultiprocessor blocks per multiprocessor; beyond, kBlock threads, one
// round a thread, at least one block per multiprocessor and at most kWaves waves.
template <typename Op, typename T>
FastestPlan fastest_grid_plan(std::size_t n) {
  using C = FastestChoice;
  const auto kernel = fastest_kernel<Op, T, C::kWide, C::kLoadsInFlight, C::kOnePass, C::kChunked>;
  const std::size_t count = Lanes<T, C::kWide>::count;
  const std::size_t sms = std::size_t(multiprocessors());
  const std::size_t mid_round = std::size_t(C::kMidBlock) * C::kLoadsInFlight * count;
  if (n <= C::kMidBlocksPerMultiprocessor * sms * mid_round)
    return {false, C::kMidBlock, grid_for(n, mid_round, C::kMidBlocksPerMultiprocessor * int(sms))};
  const std::size_t round = std::size_t(C::kBlock) * C::kLoadsInFlight * count;
  const std::size_t wanted = std::max((n + round - 1) / round, sms);
  const std::size_t most = std::size_t(C::kWaves) * resident_blocks(kernel, C::kBlock, 0);
  return {false, C::kBlock, int(std::min(wanted, most))};
}

template <typename Op, typename T>
FastestPlan fastest_plan(std::size_t n) {
  if (const int threads = single_block_threads<T>(n)) return {true, threads, 1};
  return fastest_grid_plan<Op, T>(n);
}

// Like cub, fastest brings its own block size; --block applies to the lesson's variants. Safe to
// call from several streams and host threads at once, each call with its own DeviceScratch.
template <typename Op, typename T>
void launch_fastest(const T* input, std::size_t n, T* result, int /*block: its own*/, DeviceScratch& scratch,
                    cudaStream_t stream) {
  using C = FastestChoice;
  if (single_block_threads<T>(n) != 0) {
    launch_single_block<Op, T>(input, n, result, stream);
    return;
  }
  const FastestPlan plan = fastest_grid_plan<Op, T>(n);
  launch_fastest_grid<Op, T, C::kWide, C::kLoadsInFlight, C::kOnePass, C::kChunked>(input, n, result, plan.block,
                                                                                    plan.grid, scratch, stream);
}

template <typename Op, typename T>
std::size_t fastest_depth(std::size_t n, int /*block: its own*/) {
  using C = FastestChoice;
  if (single_block_threads<T>(n) != 0) return single_block_depth<T>();
  const FastestPlan plan = fastest_grid_plan<Op, T>(n);
  return grid_path_depth<T, C::kWide>(n, plan.block, plan.grid);
}

// ---------------------------------------------------------------------------------------------
// 6. cub: cub::DeviceReduce, the library ceiling, in the same process. CUB picks its own block
//    size and grid; `block` does not apply. The size of its temporary storage depends only on n
//    and the device, so it is asked once per n and kept, as a careful caller would.
template <typename Op, typename T>
cudaError_t cub_reduce(void* temp, std::size_t& temp_bytes, const T* input, std::size_t n, T* result,
                       cudaStream_t stream) {
  if constexpr (std::is_same_v<Op, reduction::Sum>)
    return cub::DeviceReduce::Sum(temp, temp_bytes, input, result, n, stream);
  else if constexpr (std::is_same_v<Op, reduction::Max>)
    return cub::DeviceReduce::Max(temp, temp_bytes, input, result, n, stream);
  else
    return cub::DeviceReduce::Min(temp, temp_bytes, input, result, n, stream);
}

template <typename Op, typename T>
void launch_cub(const T* input, std::size_t n, T* result, int /*block*/, DeviceScratch& scratch, cudaStream_t stream) {
  static std::mutex mutex;  // the table is shared by every host thread
  static std::map<std::pair<int, std::size_t>, std::size_t> temp_bytes_for;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  std::size_t bytes = 0;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    auto it = temp_bytes_for.find({device, n});
    if (it == temp_bytes_for.end()) {
      CUDA_CHECK(cub_reduce<Op>(nullptr, bytes, input, n, result, stream));
      it = temp_bytes_for.emplace(std::make_pair(device, n), std::max<std::size_t>(bytes, 1)).first;
    }
    bytes = it->second;
  }
  CUDA_CHECK(cub_reduce<Op>(scratch.get(bytes), bytes, input, n, result, stream));
  CUDA_CHECK_LAUNCH();
}

// CUB does not document its order of additions. This bound follows its reduction in this
// toolkit's version (CCCL 3.0): tiles of 4096 elements, 16 added by each of 256 threads; each
// block takes an even share of the tiles, and there are at least as many blocks as multiprocessors
// while tiles last (CUB launches up to five waves) and never more than tiles; a block tree of 5
// shuffle levels and 8 warp totals; then one block does the same over the block results.
inline std::size_t cub_depth(std::size_t n, int /*block*/) {
  int device = 0, multiprocessors = 1;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  constexpr std::size_t kTile = 4096, kPerThread = 16, kTree = 5 + 8;
  const std::size_t tiles = std::max<std::size_t>(1, (n + kTile - 1) / kTile);
  const std::size_t fewest_blocks = std::min<std::size_t>(tiles, multiprocessors);
  const std::size_t most_blocks = tiles;
  const std::size_t first = (tiles + fewest_blocks - 1) / fewest_blocks * kPerThread + kTree;
  const std::size_t second = (most_blocks + kTile - 1) / kTile * kPerThread + kTree;
  return first + second;
}

// ---------------------------------------------------------------------------------------------
// The registry. warp_volatile, warp_syncwarp and unrolled add (sum only); shuffle, fastest and
// cub take any operator of common/ops.hpp whose identity they start from (sum, max, min).
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

// The names of every variant, in order (those of the sum registry: it has them all).
inline std::vector<const char*> variant_names() {
  std::vector<const char*> names;
  for (const auto& v : variants<reduction::Sum, int>()) names.push_back(v.name);
  return names;
}

// The smallest --block each variant accepts: `unrolled` goes down to one thread; warp_volatile,
// warp_syncwarp and shuffle reduce whole warps (shuffles name all 32 lanes, the warp finishes read
// 32 lanes' slots), so 32; fastest and cub choose their own block size and ignore --block.
inline int min_block(const std::string& variant) {
  return variant == "warp_volatile" || variant == "warp_syncwarp" || variant == "shuffle" ? 32 : 1;
}

}  // namespace ch09
