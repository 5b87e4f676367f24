// Chapter 08: the two-pass reduction. A grid sized to fill the GPU once, a grid-stride loop that
// spreads any n over it, and block partials combined without atomics. Chapter 09's kernels take
// their loads, grids and launches from here.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include "common/ops.hpp"
// The CUDA runtime and the device queries, which only the launchers need: the CPU emulator
// (emulator/emulator.hpp) compiles the kernels alone, with g++, and chapter 09's kernels with them.
#ifndef REDUCTION_EMULATOR
#include <cuda_runtime.h>
#else
namespace reduction {
class DeviceScratch;  // named by the launchers' parameters, here and in chapter 09
}
#endif

namespace ch08 {

using reduction::DeviceScratch;

// How a block hands on its partial: stored at out[blockIdx.x] for a later pass, or added to out[0].
enum class Handoff { Store, AtomicAdd };

// Chapter 07 launched a number of blocks that grew with n and needed a coarsening factor tuned to
// it, and its atomicAdds summed floats in a different order on every run. Here the grid has a
// fixed size, chosen from the device (grid_size below), and a grid-stride loop spreads any n over
// it. Thread 0 stores the block's partial in out[blockIdx.x], and the same kernel, launched again
// with a single block over those partials, finishes the job: the order of every addition is fixed
// by the code, so float results are the same, bit for bit, on every run.
//
// Loads in flight. A full grid of threads that each wait for one 4-byte load at a time does not
// keep bandwidth x latency bytes in flight (Little's law; README.md). So each iteration issues
// kLoadsInFlight independent loads before it adds any of them, in the plain loop's order.
constexpr int kLoadsInFlight = 4;

// One thread's share of a grid-stride pass over n elements by `grid_threads` threads (G x B):
// elements i, i + G x B, i + 2 G x B, ... from its own index i, folded with Op.
template <typename Op, typename T>
__device__ T thread_partial(const T* input, std::size_t n, std::size_t grid_threads) {
  // EXERCISE: fold this thread's grid-stride share of the input: elements i, i + grid_threads, ...
  // HINT: - A grid-stride loop: where does this thread start, how far does it step, and where does it stop?
  // HINT:   What type must the index have for n near 2^32?
  // HINT: - The loads of one thread do not depend on one another: how can you keep several of them in
  // HINT:   flight before the first addition waits for its data? What about the last few, near n?
  // PLACEHOLDER: return Op::template identity<T>();
  const Op op{};  // for Sum: +, wrapping around for int exactly as the CPU reference does
  T sum = Op::template identity<T>();
  // In 64 bits: with a 32-bit index, i + 3 x grid_threads overflows once n passes
  // 2^31 - 4 x grid_threads (int) or wraps around to a small index once n passes
  // 2^32 - 4 x grid_threads (unsigned): largest_index_computed() (kernels.cuh) says why.
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (kLoadsInFlight - 1) * grid_threads < n; i += kLoadsInFlight * grid_threads) {
    T loaded[kLoadsInFlight];
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) loaded[k] = input[i + k * grid_threads];  // all issued first
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) sum = op(sum, loaded[k]);  // then added, in the plain order
  }
  for (; i < n; i += grid_threads) sum = op(sum, input[i]);  // the last few, one at a time
  return sum;
  // END EXERCISE
}

// The same over the whole launch's grid: what chapter 09's kernels call.
template <typename Op, typename T>
__device__ T thread_partial(const T* input, std::size_t n) {
  return thread_partial<Op>(input, n, std::size_t(blockDim.x) * gridDim.x);
}

template <Handoff kHandoff, typename T>
__global__ void two_pass_kernel(const T* input, std::size_t n, T* out) {
  // EXERCISE: reduce the block's thread_partial<reduction::Sum> values, then hand on its partial.
  // HINT: - Shared memory sized at launch, one slot per thread, as in chapter 06.
  // HINT: - Each thread's slot starts with its grid-stride partial (the function above); then the tree.
  // HINT: - The block's total goes out in the way kHandoff names: a store to the block's own slot, or an
  // HINT:   atomic addition to one result (if constexpr chooses at compile time).
  extern __shared__ __align__(16) unsigned char shared_bytes[];  // blockDim.x values, sized at launch
  T* partial = reinterpret_cast<T*>(shared_bytes);
  const reduction::Sum add{};
  const unsigned t = threadIdx.x;
  const std::size_t grid_threads = std::size_t(gridDim.x) * blockDim.x;  // G x B
  partial[t] = thread_partial<reduction::Sum>(input, n, grid_threads);

  for (unsigned stride = blockDim.x / 2; stride >= 1; stride /= 2) {
    __syncthreads();  // the previous step's writes are visible before anyone reads them
    if (t < stride) partial[t] = add(partial[t], partial[t + stride]);
  }
  if (t == 0) {
    if constexpr (kHandoff == Handoff::AtomicAdd)
      atomicAdd(out, partial[0]);
    else
      out[blockIdx.x] = partial[0];
  }
  // END EXERCISE
}

#ifndef REDUCTION_EMULATOR
// An attribute of the current device, asked once per device (launchers make no driver query).
inline int device_attribute(cudaDeviceAttr attribute) {
  static std::mutex mutex;
  static std::map<std::pair<int, int>, int> known;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_pair(device, int(attribute));
  if (auto it = known.find(key); it != known.end()) return it->second;
  int value = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&value, attribute, device));
  return known[key] = value;
}

// How many multiprocessors the current device has.
inline int multiprocessors() { return device_attribute(cudaDevAttrMultiProcessorCount); }

// How many blocks of `kernel` the GPU runs at once: its multiprocessors times the blocks of this
// size that fit on one (the occupancy calculator). Asked once per device, kernel, block and shared
// memory, and kept in a table every host thread shares (so under a lock): the launch path then
// makes no driver query, which matters when a reduction takes microseconds. At least one block per
// multiprocessor is reported, so that a grid is never empty: a kernel that fits nowhere then fails
// at its launch, with the launch's own error.
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
#else
// Declared only: the grids and depths below (and chapter 09's) name them, the emulator calls none.
int multiprocessors();
template <typename Kernel>
int resident_blocks(Kernel kernel, int block, std::size_t shared_bytes);
#endif

// The grid of a pass over `work` items, `per_block` items to a block: every resident block, or fewer
// when there is not enough work to give each of them something; never none.
inline int grid_for(std::size_t work, std::size_t per_block, int resident) {
  const std::size_t wanted = (work + per_block - 1) / per_block;
  return static_cast<int>(std::clamp<std::size_t>(wanted, 1, static_cast<std::size_t>(resident)));
}

// The first pass's grid: every block the GPU can run at once, but no more blocks than n has
// elements for (one a thread). Both flavours of the kernel use the same resources.
template <Handoff kHandoff, typename T>
int grid_size(std::size_t n, int block) {
  return grid_for(n, block, resident_blocks(two_pass_kernel<kHandoff, T>, block, block * sizeof(T)));
}

#ifndef REDUCTION_EMULATOR
// finish_cpu: the partials travel to the host, which adds them in a loop and sends the sum back.
template <typename T>
void launch_finish_cpu(const T* input, std::size_t n, T* result, int block, DeviceScratch& scratch,
                       cudaStream_t stream) {
  const int grid = grid_size<Handoff::Store, T>(n, block);
  T* partials = scratch.get_as<T>(grid);
  two_pass_kernel<Handoff::Store><<<grid, block, block * sizeof(T), stream>>>(input, n, partials);
  CUDA_CHECK_LAUNCH();
  std::vector<T> host(grid);
  CUDA_CHECK(cudaMemcpyAsync(host.data(), partials, grid * sizeof(T), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));  // the host waits for the GPU: this round trip is the cost
  T total = reduction::Sum::identity<T>();
  for (const T& partial : host) total = reduction::Sum{}(total, partial);
  CUDA_CHECK(cudaMemcpyAsync(result, &total, sizeof(T), cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));  // `total` must outlive the copy
}

// finish_atomic: each block adds its partial to the result, which starts at the identity (zero:
// all bits clear for int, float and double alike); the order of those additions is the order in
// which the blocks happen to finish.
template <typename T>
void launch_finish_atomic(const T* input, std::size_t n, T* result, int block, DeviceScratch& /*scratch*/,
                          cudaStream_t stream) {
  const int grid = grid_size<Handoff::AtomicAdd, T>(n, block);
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(T), stream));
  two_pass_kernel<Handoff::AtomicAdd><<<grid, block, block * sizeof(T), stream>>>(input, n, result);
  CUDA_CHECK_LAUNCH();
}

// finish_kernel: the second pass is the same kernel, with one block, over the partials.
template <typename T>
void launch_finish_kernel(const T* input, std::size_t n, T* result, int block, DeviceScratch& scratch,
                          cudaStream_t stream) {
  const int grid = grid_size<Handoff::Store, T>(n, block);
  T* partials = scratch.get_as<T>(grid);
  two_pass_kernel<Handoff::Store><<<grid, block, block * sizeof(T), stream>>>(input, n, partials);
  CUDA_CHECK_LAUNCH();
  two_pass_kernel<Handoff::Store><<<1, block, block * sizeof(T), stream>>>(partials, grid, result);
  CUDA_CHECK_LAUNCH();
}

// finish_kernel's two passes for any kernel(input, n, out) that leaves the block's result in
// out[blockIdx.x]; with a single block the first pass already gives the answer. Chapter 09's
// kernels launch through it.
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
#endif  // REDUCTION_EMULATOR

// The additions an element meets in one grid-stride pass over n elements by `threads` threads,
// followed by a tree of `tree_levels` levels in its block: up to ceil(n / threads) in its thread's
// loop, the first one (into the identity) included, then one a level.
inline std::size_t grid_stride_additions(std::size_t n, std::size_t threads, std::size_t tree_levels) {
  return (n + threads - 1) / threads + tree_levels;
}

// The additions an element meets through launch_two_passes (counted as grid_stride_additions
// does, the first of each loop included): the first pass, then, with more than one block, the
// second over the grid's results.
inline std::size_t two_pass_additions(std::size_t n, int block, int grid, std::size_t tree_levels) {
  const std::size_t first = grid_stride_additions(n, std::size_t(grid) * block, tree_levels);
  return grid == 1 ? first : first + grid_stride_additions(grid, block, tree_levels);
}

}  // namespace ch08
