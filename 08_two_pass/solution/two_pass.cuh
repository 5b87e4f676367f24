// Chapter 08: the two-pass reduction. A grid sized to fill the GPU once, a grid-stride loop that
// spreads any n over it, and block partials combined without atomics.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "common/cuda_check.cuh"
#include "common/grid.cuh"
#include "common/ops.hpp"
#include "common/reference.hpp"
#include "common/variants.cuh"

namespace ch08 {

// How a block hands on its partial: stored at out[blockIdx.x] for a later pass, or added to out[0].
enum class Handoff { Store, AtomicAdd };

// Chapter 07 launched a number of blocks that grew with n and needed a coarsening factor tuned to
// it, and its atomicAdds summed floats in a different order on every run. Here the grid has a
// fixed size, chosen from the device (grid_size below), and a grid-stride loop spreads any n over
// it: with G blocks of B threads, the grid's G x B threads read elements 0 .. GB - 1 together,
// then the next GB, and so on, each pass one coalesced sweep. The block's tree follows, and
// thread 0 stores the block's partial in out[blockIdx.x]. The same kernel, launched again with a
// single block over those partials, finishes the job: the order of every addition is fixed by the
// code, so float results are the same, bit for bit, on every run.
//
// Loads in flight. A grid of G blocks is far fewer threads than chapter 07 launched, and a thread
// whose loop issues one load and then waits for it has one load in flight. Little's law: what is in
// flight equals throughput times the time each load takes, so to stream at the memory's full
// bandwidth the bytes in flight must cover bandwidth x latency. One 4-byte load for each thread of
// a full grid does not (README.md measures it). So each iteration issues kLoadsInFlight independent
// loads before it adds any of them: the additions keep the plain loop's order, so the result is
// the same, bit for bit, as one load at a time.
constexpr int kLoadsInFlight = 4;

template <Handoff kHandoff, typename T>
__global__ void two_pass_kernel(const T* input, std::size_t n, T* out) {
  // EXERCISE: sum a grid-stride share of the input per thread, reduce the block, hand on its partial.
  // HINT: - Shared memory for blockDim.x values of T is sized at launch: declare it as
  // HINT:       extern __shared__ __align__(16) unsigned char shared_bytes[];
  // HINT:   and view it as T* (reinterpret_cast).
  // HINT: - Each thread starts at the identity and adds input[i] for i = blockIdx.x x blockDim.x +
  // HINT:   threadIdx.x, then i += gridDim.x x blockDim.x, while i < n. Keep i in 64 bits: with an
  // HINT:   unsigned i, n above 2^32 would make i wrap around and the loop never end.
  // HINT: - Load kLoadsInFlight of those elements (i, i + G x B, ...) into registers before adding
  // HINT:   any, while the last of them is below n; then the rest one at a time.
  // HINT: - Then the tree of chapter 06 over the block's slots.
  // HINT: - Thread 0 hands on the block's partial: out[blockIdx.x] = ... when kHandoff is Handoff::Store,
  // HINT:   atomicAdd(out, ...) when it is Handoff::AtomicAdd (use if constexpr).
  extern __shared__ __align__(16) unsigned char shared_bytes[];  // blockDim.x values, sized at launch
  T* partial = reinterpret_cast<T*>(shared_bytes);
  const reduction::Sum add{};  // +, wrapping around for int exactly as the CPU reference does
  const unsigned t = threadIdx.x;
  // In 64 bits: with a 32-bit index, i += grid_threads overflows once n passes 2^31 (int) or
  // wraps around to a small index and loops forever once n passes 2^32 (unsigned).
  const std::size_t grid_threads = std::size_t(gridDim.x) * blockDim.x;

  T sum = reduction::Sum::identity<T>();
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + t;
  for (; i + (kLoadsInFlight - 1) * grid_threads < n; i += kLoadsInFlight * grid_threads) {
    T loaded[kLoadsInFlight];
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) loaded[k] = input[i + k * grid_threads];  // all issued first
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) sum = add(sum, loaded[k]);  // then added, in the plain order
  }
  for (; i < n; i += grid_threads) sum = add(sum, input[i]);  // the last few, one at a time
  partial[t] = sum;

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

// How many blocks of `block` threads the GPU runs at once: the occupancy calculator's blocks per
// multiprocessor (limited by threads, registers and shared memory per block) times the number of
// multiprocessors. The answer depends only on the kernel, the block size and the device, so
// common/grid.cuh asks once per kernel and block size and keeps it.
template <Handoff kHandoff, typename T>
int resident_blocks(int block) {
  return reduction::resident_blocks(two_pass_kernel<kHandoff, T>, block, block * sizeof(T));
}

// The first pass's grid: every block the GPU can run at once (more would only wait for a free
// multiprocessor, then loop over the same input), but no more blocks than n has elements for.
template <Handoff kHandoff, typename T>
int grid_size(std::size_t n, int block) {
  return reduction::grid_for(n, block, resident_blocks<kHandoff, T>(block));
}

// finish_cpu: the partials travel to the host, which adds them in a loop and sends the sum back.
template <typename T>
void launch_finish_cpu(const T* input, std::size_t n, T* result, int block, reduction::DeviceScratch& scratch,
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
void launch_finish_atomic(const T* input, std::size_t n, T* result, int block, reduction::DeviceScratch& /*scratch*/,
                          cudaStream_t stream) {
  const int grid = grid_size<Handoff::AtomicAdd, T>(n, block);
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(T), stream));
  two_pass_kernel<Handoff::AtomicAdd><<<grid, block, block * sizeof(T), stream>>>(input, n, result);
  CUDA_CHECK_LAUNCH();
}

// finish_kernel: the second pass is the same kernel, with one block, over the partials.
template <typename T>
void launch_finish_kernel(const T* input, std::size_t n, T* result, int block, reduction::DeviceScratch& scratch,
                          cudaStream_t stream) {
  const int grid = grid_size<Handoff::Store, T>(n, block);
  T* partials = scratch.get_as<T>(grid);
  two_pass_kernel<Handoff::Store><<<grid, block, block * sizeof(T), stream>>>(input, n, partials);
  CUDA_CHECK_LAUNCH();
  two_pass_kernel<Handoff::Store><<<1, block, block * sizeof(T), stream>>>(partials, grid, result);
  CUDA_CHECK_LAUNCH();
}

// Depths of the three finishes: the first pass (up to ceil(n / threads) - 1 rounded additions in
// a thread's loop, then log2(block) in the tree: common/grid.cuh), then the host's loop or the
// atomics (up to grid - 1 rounded additions; the first, into the identity, is exact), or a second
// pass over the grid's partials with one block.
template <typename T>
std::size_t depth_finish_cpu(std::size_t n, int block) {
  const int grid = grid_size<Handoff::Store, T>(n, block);
  return reduction::grid_stride_rounded_additions(n, std::size_t(grid) * block, reduction::ceil_log2(block)) + grid - 1;
}
template <typename T>
std::size_t depth_finish_atomic(std::size_t n, int block) {
  const int grid = grid_size<Handoff::AtomicAdd, T>(n, block);
  return reduction::grid_stride_rounded_additions(n, std::size_t(grid) * block, reduction::ceil_log2(block)) + grid - 1;
}
template <typename T>
std::size_t depth_finish_kernel(std::size_t n, int block) {
  const int grid = grid_size<Handoff::Store, T>(n, block);
  const std::size_t tree = reduction::ceil_log2(block);
  return reduction::grid_stride_rounded_additions(n, std::size_t(grid) * block, tree) +
         reduction::grid_stride_rounded_additions(grid, block, tree);
}

template <typename T>
std::vector<reduction::Variant<reduction::MultiBlockLaunch<T>>> variants() {
  return {
      {"finish_cpu", "the host adds the block partials", launch_finish_cpu<T>, depth_finish_cpu<T>, true},
      {"finish_atomic", "each block atomicAdds its partial", launch_finish_atomic<T>, depth_finish_atomic<T>, false},
      {"finish_kernel", "the same kernel, one block, adds the partials", launch_finish_kernel<T>,
       depth_finish_kernel<T>, true},
  };
}

// Whether the chapter is built from exercise kernels that are still TODOs: its program says so.
#ifdef REDUCTION_EXERCISE_UNFINISHED  // defined by the exercise versions, until the student deletes it
constexpr bool unfinished = true;
#else
constexpr bool unfinished = false;
#endif

}  // namespace ch08
