// Chapter 09, step 5: fastest, the shuffle kernel plus what the memory system rewards (README,
// "fastest"): its paths for large n; fastest_small.cuh has those for small n and FastestChoice.
// The grid path's knobs are template arguments, so that every combination can be measured and
// tested: kWide (16-byte loads: a quarter of the instructions), kLoadsInFlight, kOnePass (the last
// block to finish adds the block results: no second launch, which cost about a microsecond, a tenth
// of the time at 2^20), kChunked (a contiguous chunk a block instead of a grid-stride loop), and at
// run time the waves of resident blocks. The tile path: tile_kernel, then words_kernel or fold_kernel.
#pragma once

#ifndef REDUCTION_EMULATOR  // the CUDA runtime: launchers only (the CPU emulator compiles the kernels alone)
#include <cuda_runtime.h>
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <type_traits>
#include <unordered_map>

#include "08_two_pass/solution/two_pass.cuh"  // chapter 08: the loads, the grid and the two passes
#include "common/ops.hpp"
#include "exact_sum.cuh"
#include "shuffle.cuh"

namespace ch09 {

// The unit of one load: 16 bytes when kWide, else one element.
template <typename T, bool kWide>
struct Lanes {
  static constexpr int count = kWide ? 16 / int(sizeof(T)) : 1;
  struct alignas(kWide ? 16 : alignof(T)) Vector {
    T lane[count];
  };
};

// One 16-byte vector through the read-only data path (__ldg), as CUB loads. Loaded as read once
// (__ldcs), the tile path took 2 to 5 % longer after an L2 flush (nvbench, H100 and H200).
template <typename T>
__device__ __forceinline__ typename Lanes<T, true>::Vector load_vector(const typename Lanes<T, true>::Vector* address) {
  const uint4 bits = __ldg(reinterpret_cast<const uint4*>(address));
  typename Lanes<T, true>::Vector v;
  static_assert(sizeof(v) == sizeof(bits), "a vector is 16 bytes");
  memcpy(&v, &bits, sizeof v);
  return v;
}

template <typename Op, typename T, bool kWide, int kLoadsInFlight, bool kChunked>
__device__ T wide_partial(const T* input, std::size_t n, std::size_t tile = 0) {
  // EXERCISE: thread_partial, reading kWide ? 16 bytes : one element per load. Hints:
  // HINT: - Lanes<T, kWide>::Vector is the unit of a load; the elements before the first aligned
  // HINT:   address (the head) and after the last whole vector (the tail) are added one by one by
  // HINT:   the grid's first threads;
  // HINT: - kChunked: block b takes vectors [b * chunk, (b + 1) * chunk), chunk = `tile` where the
  // HINT:   caller gives one (the tile path), else ceil(vectors / gridDim.x), its threads striding by
  // HINT:   blockDim.x; otherwise the whole grid strides over all vectors;
  // HINT: - issue kLoadsInFlight loads into an array (#pragma unroll) before adding any of them;
  // HINT:   in a thread's last round, a load past the end reads vector i again and adds the identity.
  // PLACEHOLDER: return Op::template identity<T>();
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
    // The tile path gives its tile, which spares each thread a division of 64-bit numbers
    // (ncu, 2^24 ints on an H100: 21 instructions fewer a warp).
    const std::size_t chunk = tile != 0 ? tile : (vectors + gridDim.x - 1) / gridDim.x;
    first = std::size_t(blockIdx.x) * chunk + threadIdx.x;
    step = blockDim.x;
    const std::size_t chunk_end = std::size_t(blockIdx.x + 1) * chunk;
    end = chunk_end < vectors ? chunk_end : vectors;
  } else {
    first = thread;
    step = std::size_t(blockDim.x) * gridDim.x;
    end = vectors;
  }
  // Rounds of kLoadsInFlight loads, all issued before the first is added.
  std::size_t i = first;
  for (; i + (kLoadsInFlight - 1) * step < end; i += kLoadsInFlight * step) {
    Vector v[kLoadsInFlight];
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) v[k] = vector[i + k * step];
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k)
#pragma unroll
      for (int j = 0; j < kCount; ++j) sum = op(sum, v[k].lane[j]);
  }
  // The thread's last vectors, fewer than kLoadsInFlight: one round too, not one trip each. A load
  // past the end reads vector i again (a valid address) and adds the identity.
  if constexpr (kLoadsInFlight > 1)
    if (i < end) {
      Vector v[kLoadsInFlight - 1];
#pragma unroll
      for (int k = 0; k < kLoadsInFlight - 1; ++k) {
        const std::size_t at = i + k * step;
        v[k] = vector[at < end ? at : i];
      }
#pragma unroll
      for (int k = 0; k < kLoadsInFlight - 1; ++k) {
        const bool in_range = i + k * step < end;
#pragma unroll
        for (int j = 0; j < kCount; ++j) sum = op(sum, in_range ? v[k].lane[j] : Op::template identity<T>());
      }
    }
  const std::size_t tail = head + vectors * kCount;
  if (thread < head) sum = op(sum, input[thread]);
  if (thread < n - tail) sum = op(sum, input[tail + thread]);
  return sum;
  // END EXERCISE
}

// The last block's first step: every block's result, read through L2 (__ldcg: never a stale L1 line).
template <typename Op, typename T>
__device__ T fold_block_results(const T* block_results, unsigned count) {
  // EXERCISE: each thread adds block_results[threadIdx.x], [threadIdx.x + blockDim.x], ... below
  // HINT: `count`, read with __ldcg (through L2, where the other blocks' stores landed), in rounds of four
  // HINT: loads issued before any is added (the identity for the indices past `count`).
  // PLACEHOLDER: return Op::template identity<T>();
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
  // END EXERCISE
}

template <typename Op, typename T, bool kWide, int kLoadsInFlight, bool kOnePass, bool kChunked>
__global__ void fastest_kernel(const T* input, std::size_t n, T* block_results, T* result, unsigned int* blocks_done) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // A launch set up to wait for this one may start now; it waits until this grid has finished.
  cudaTriggerProgrammaticLaunchCompletion();
#endif
  // EXERCISE: block_reduce<Op>(wide_partial<...>(input, n)). Two passes: thread 0 writes the block's
  // HINT: total to block_results[blockIdx.x]. One pass (kOnePass): thread 0 also makes the total
  // HINT: visible (__threadfence()), counts the block done with atomicInc(blocks_done, gridDim.x - 1)
  // HINT: and shares through shared memory whether it was the last (the count it saw was
  // HINT: gridDim.x - 1); the last block reduces fold_block_results(block_results, gridDim.x) with
  // HINT: block_reduce and writes *result.
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
  // END EXERCISE
}

// The tile path's first launch: block b adds tile b, kRounds rounds of kLoadsInFlight 16-byte loads
// a thread, and hands the result on: with kToWords (a sum) into the words, else into its slot. A
// whole tile is read at fixed offsets, with no bounds to test: under half the instructions (ncu,
// 2^24 ints on an H100: 2.5 million against 5.3 million). Block 0 (with the head and the tail) and
// a last, short tile go through wide_partial.
template <typename Op, typename T, int kLoadsInFlight, int kRounds, bool kToWords>
__global__ void tile_kernel(const T* input, std::size_t n, T* tile_results, long long* sum_words) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();  // as in fastest_kernel
#endif
  // EXERCISE: the block's total of tile b. Hints:
  // HINT: - the tile is kRounds * kLoadsInFlight * blockDim.x vectors, the vectors counted from the
  // HINT:   first 16-byte boundary of the input, as in wide_partial;
  // HINT: - a whole tile (not block 0, and its end not past the last whole vector): each round,
  // HINT:   kLoadsInFlight loads with load_vector at vector + (round * kLoadsInFlight + k) * blockDim.x,
  // HINT:   issued before any is added;
  // HINT: - otherwise wide_partial, chunked, with the tile as its `tile`;
  // HINT: - then block_reduce; with kToWords the first warp hands the total on with
  // HINT:   add_to_words(total, sum_words, threadIdx.x), else thread 0 stores it in
  // HINT:   tile_results[blockIdx.x].
  using Vector = typename Lanes<T, true>::Vector;
  constexpr int kCount = Lanes<T, true>::count;
  const std::size_t tile = std::size_t(kRounds) * kLoadsInFlight * blockDim.x;
  const std::size_t misaligned = reinterpret_cast<std::uintptr_t>(input) % alignof(Vector) / sizeof(T);
  const std::size_t head = misaligned ? kCount - misaligned : 0;
  T partial;
  if (blockIdx.x != 0 && (blockIdx.x + 1) * tile <= (n - head) / kCount) {
    const Op op{};
    const Vector* vector = reinterpret_cast<const Vector*>(input + head) + blockIdx.x * tile + threadIdx.x;
    partial = Op::template identity<T>();
#pragma unroll
    for (int round = 0; round < kRounds; ++round) {
      Vector v[kLoadsInFlight];
#pragma unroll
      for (int k = 0; k < kLoadsInFlight; ++k) v[k] = load_vector<T>(vector + (round * kLoadsInFlight + k) * blockDim.x);
#pragma unroll
      for (int k = 0; k < kLoadsInFlight; ++k)
#pragma unroll
        for (int j = 0; j < kCount; ++j) partial = op(partial, v[k].lane[j]);
    }
  } else {
    partial = wide_partial<Op, T, true, kLoadsInFlight, true>(input, n, tile);
  }
  const T total = block_reduce<Op>(partial);
  if constexpr (kToWords) {
    if (threadIdx.x < 32) add_to_words(total, sum_words, threadIdx.x);
  } else if (threadIdx.x == 0) {
    tile_results[blockIdx.x] = total;
  }
  // END EXERCISE
}

// The fold's threads for `count` slots: one round of four 16-byte loads each, in whole warps, at
// most `most` (1024 tiles' results: 64 threads, not 32 warps waiting at a barrier for nothing).
template <typename T>
int fold_threads(unsigned count, int most) {
  const unsigned per_thread = 4 * Lanes<T, true>::count;
  const unsigned warps = ((count + per_thread - 1) / per_thread + 31) / 32;
  return int(std::min(unsigned(most), std::max(1u, warps) * 32));
}

// The tile path's second launch, one block: the tiles' results in a fixed order, 16 bytes a load.
// There are thousands (16384 at 2^28 ints); one value a load (fold_block_results) took four rounds
// of trips to L2 instead of one, about 1.5 us more at 2^28 ints on an H100.
template <typename Op, typename T>
__global__ void fold_kernel(const T* block_results, unsigned count, T* result) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // Launched while the tiles still run: wait until they have finished (before Hopper: at once).
  cudaGridDependencySynchronize();
#endif
  // EXERCISE: add the `count` results as wide_partial adds the input (this grid is one block),
  // HINT: then block_reduce; thread 0 writes *result.
  const T total = block_reduce<Op>(wide_partial<Op, T, true, 4, false>(block_results, count));
  if (threadIdx.x == 0) *result = total;
  // END EXERCISE
}

// The grid path's grid for any configuration of the knobs: `waves` waves of resident blocks (the tests').
template <typename Op, typename T, bool kWide, int kLoadsInFlight, bool kOnePass, bool kChunked>
int fastest_grid(std::size_t n, int block, int waves) {
  const auto kernel = fastest_kernel<Op, T, kWide, kLoadsInFlight, kOnePass, kChunked>;
  const std::size_t per_block = std::size_t(block) * kLoadsInFlight * Lanes<T, kWide>::count;
  return ch08::grid_for(n, per_block, waves * ch08::resident_blocks(kernel, block, 0));
}

#ifndef REDUCTION_EMULATOR  // the counter and the launchers need the CUDA runtime
// What the launchers keep beside each scratch allocation, zeroed once when its address is first
// seen; each launch leaves them at zero again (README, "Safe to call like CUB"). Inside the
// scratch they would not survive: other launchers, cub among them, write over it.
struct KeptBeside {
  unsigned int* blocks_done;  // the one-pass grid's counter
  long long* sum_words;       // the tile path's sum words, kSumWords of them
};

inline KeptBeside kept_beside(const void* scratch_memory, cudaStream_t stream) {
  static std::mutex mutex;
  static std::unordered_map<const void*, KeptBeside> kept;
  const std::lock_guard<std::mutex> lock(mutex);
  if (auto it = kept.find(scratch_memory); it != kept.end()) return it->second;
  constexpr std::size_t kBytes = sizeof(long long) * (1 + kSumWords);
  long long* memory = nullptr;
  CUDA_CHECK(cudaMalloc(&memory, kBytes));
  CUDA_CHECK(cudaMemsetAsync(memory, 0, kBytes, stream));  // before this call's kernel
  const KeptBeside beside{reinterpret_cast<unsigned int*>(memory), memory + 1};
  kept.emplace(scratch_memory, beside);
  return beside;
}

// Whether the current device takes programmatic dependent launches (Hopper and later).
inline bool dependent_launch_supported() { return ch08::device_attribute(cudaDevAttrComputeCapabilityMajor) >= 9; }

template <typename Op, typename T, bool kWide, int kLoadsInFlight, bool kOnePass, bool kChunked>
void launch_fastest_grid(const T* input, std::size_t n, T* result, int block, int grid, DeviceScratch& scratch,
                         cudaStream_t stream) {
  const auto kernel = fastest_kernel<Op, T, kWide, kLoadsInFlight, kOnePass, kChunked>;
  if constexpr (kOnePass) {
    T* block_results = scratch.get_as<T>(grid);
    kernel<<<grid, block, 0, stream>>>(input, n, block_results, result, kept_beside(block_results, stream).blocks_done);
    CUDA_CHECK_LAUNCH();
  } else {  // two passes, as chapter 08's; one block writes the result itself
    T* block_results = grid == 1 ? result : scratch.get_as<T>(grid);
    kernel<<<grid, block, 0, stream>>>(input, n, block_results, nullptr, nullptr);
    CUDA_CHECK_LAUNCH();
    if (grid > 1) {
      kernel<<<1, block, 0, stream>>>(block_results, grid, result, nullptr, nullptr);
      CUDA_CHECK_LAUNCH();
    }
  }
}

// The tile path: `grid` tiles of `rounds` rounds of loads, then one warp of words_kernel (kToWords)
// or one block of fold_kernel with `fold_block` threads. Where the device takes it, the second
// launch is a programmatic dependent launch: set up while the tiles run, which saves the gap.
template <typename Op, typename T, int kLoadsInFlight, bool kToWords>
void launch_fastest_tiles(const T* input, std::size_t n, T* result, int block, int grid, int rounds, int fold_block,
                          DeviceScratch& scratch, cudaStream_t stream) {
  static_assert(!kToWords || std::is_same_v<Op, reduction::Sum>, "the words add; max and min take the fold");
  // A sum needs no slots, but the scratch's address is its words' key.
  T* block_results = scratch.get_as<T>(kToWords ? 1 : grid);
  long long* sum_words = kToWords ? kept_beside(block_results, stream).sum_words : nullptr;
  if (rounds == 1)
    tile_kernel<Op, T, kLoadsInFlight, 1, kToWords><<<grid, block, 0, stream>>>(input, n, block_results, sum_words);
  else if (rounds == 2)
    tile_kernel<Op, T, kLoadsInFlight, 2, kToWords><<<grid, block, 0, stream>>>(input, n, block_results, sum_words);
  else
    throw std::invalid_argument("launch_fastest_tiles: tiles of 1 or 2 rounds");
  CUDA_CHECK_LAUNCH();
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(1);
  config.blockDim = dim3(unsigned(kToWords ? 32 : fold_block));
  config.stream = stream;
  cudaLaunchAttribute dependent[1] = {};
  dependent[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  dependent[0].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = dependent;
  config.numAttrs = dependent_launch_supported() ? 1 : 0;
  if constexpr (kToWords)
    CUDA_CHECK(cudaLaunchKernelEx(&config, words_kernel<T>, sum_words, result));
  else
    CUDA_CHECK(cudaLaunchKernelEx(&config, fold_kernel<Op, T>, static_cast<const T*>(block_results), unsigned(grid),
                                  result));
}
#endif  // REDUCTION_EMULATOR

// One pass: a thread's loop adds up to ceil(n / threads) elements, plus up to two vectors' worth
// and one element each of the head and tail; then the shuffle tree.
template <typename T, bool kWide>
std::size_t pass_depth(std::size_t n, int block, int grid) {
  return ch08::grid_stride_additions(n, std::size_t(grid) * block, kShuffleTree) + 2 * Lanes<T, kWide>::count + 2;
}

// The grid path: a pass over the input, then one block's over the block results (by `fold_block`
// threads in the tile path's fold).
template <typename T, bool kWide>
std::size_t grid_path_depth(std::size_t n, int block, int grid, int fold_block = 0) {
  return pass_depth<T, kWide>(n, block, grid) + pass_depth<T, kWide>(grid, fold_block ? fold_block : block, 1);
}

// The tile path of a sum: the tiles' pass, then their results added exactly and rounded once.
template <typename T>
std::size_t tile_words_depth(std::size_t n, int block, int grid) { return pass_depth<T, true>(n, block, grid) + 1; }

}  // namespace ch09
