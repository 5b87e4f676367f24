// Chapter 09's harness beside main.cu: the registry of its kernels (solution/), variants<Op, T>(),
// listed once for the program, its tests and the benchmark; the read that sets its second ceiling;
// and what the program explains before its runs, with or without a GPU: where the tree steps of
// the kernels that run take place, and the plan `fastest` picks for n.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "common/gpu.cuh"
#include "common/ops.hpp"
#include "common/program.hpp"
#include "fastest_small.cuh"
#include "same_bits.cuh"
#include "shuffle.cuh"
#include "unrolled.cuh"
#include "warp_finish.cuh"

namespace ch09 {

// cub::DeviceReduce (solution/cub_reduce.cuh), compiled once in cub_launch.cu.
template <typename Op, typename T>
void launch_cub(const T* input, std::size_t n, T* result, int block, reduction::DeviceScratch& scratch,
                cudaStream_t stream);
std::size_t cub_depth(std::size_t n, int block);  // the bound of CUB's order of additions

// The registry. warp_volatile, warp_syncwarp, unrolled and exact only add. The last field is the
// smallest block each takes (32 where left out: whole warps); those that choose their own block, 1.
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
                  "shuffles, 16-byte loads 4 in flight: one block for small n, else one launch whose last block "
                  "finishes; from 16 MiB, a block per tile and a second launch over the tiles",
                  launch_fastest<Op, T>, fastest_depth<Op, T>, true, 1});
  list.push_back({"reproducible", "fastest's paths chosen from n alone: the same bits on any GPU (gpu_to_gpu)",
                  launch_reproducible<Op, T>, reproducible_depth<Op, T>, true, 1});
  if constexpr (std::is_same_v<Op, reduction::Sum>)
    list.push_back({"exact", "every input added exactly, the total rounded once: the correctly rounded sum",
                    launch_exact<Op, T>, exact_depth, true, 1});
  list.push_back({"cub", "cub::DeviceReduce, the library ceiling", launch_cub<Op, T>, cub_depth, true, 1});
  return list;
}

// The second ceiling: a plain streaming read of the bytes the kernels read (README, "The read
// ceiling"). Each thread XORs what it reads into a register and stores it only if it equals one
// particular value: a store the compiler cannot prove dead keeps every load alive.
namespace detail {

// `chunk` 0: the grid strides over all the vectors; else block b reads vectors [b chunk, (b + 1)
// chunk), as fastest's tiles do.
template <int kLoadsInFlight>
__global__ void read_ceiling_kernel(const uint4* __restrict__ data, std::size_t vectors, std::size_t chunk,
                                    unsigned int* sink) {
  std::size_t step = std::size_t(blockDim.x) * gridDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (chunk > 0) {
    step = blockDim.x;
    i = std::size_t(blockIdx.x) * chunk + threadIdx.x;
    const std::size_t chunk_end = std::size_t(blockIdx.x + 1) * chunk;
    if (chunk_end < vectors) vectors = chunk_end;
  }
  unsigned int bits = 0;
  for (; i + (kLoadsInFlight - 1) * step < vectors; i += kLoadsInFlight * step) {
    uint4 v[kLoadsInFlight];
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) v[k] = data[i + k * step];  // every load issued first
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) bits ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
  }
  for (; i < vectors; i += step) {
    const uint4 v = data[i];
    bits ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (bits == 0x9E3779B9u) *sink = bits;
}

}  // namespace detail

// The read ceiling over the `bytes` at `data` (device memory, 16-byte aligned) when they span at
// least eight times the L2, so that every run streams from DRAM; else over a buffer of its own, eight
// times the L2 (at most 2 GiB and half of the free memory). The best of a few launch shapes is kept.
inline reduction::ReadCeiling measure_read_ceiling(const void* data, std::size_t bytes, std::size_t l2_bytes,
                                                   int warmup, int reps) {
  using namespace reduction;
  ReadCeiling ceiling;
  DeviceBuffer<uint4> own;
  const uint4* words = static_cast<const uint4*>(data);
  std::size_t vectors = bytes / sizeof(uint4);
  ceiling.of_input = bytes >= 8 * l2_bytes;
  if (!ceiling.of_input) {
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const std::size_t wanted = std::min<std::size_t>(8 * l2_bytes, std::size_t(2) << 30);
    vectors = std::min(wanted, free_bytes / 2) / sizeof(uint4);
    if (vectors == 0) return ceiling;
    own = DeviceBuffer<uint4>(vectors);
    CUDA_CHECK(cudaMemset(own.data(), 1, vectors * sizeof(uint4)));
    words = own.data();
  }
  if (vectors == 0) return ceiling;
  ceiling.bytes = vectors * sizeof(uint4);
  DeviceBuffer<unsigned int> sink(1);
  const auto kernel = detail::read_ceiling_kernel<4>;
  struct Shape {
    int block, waves;  // waves 0: one block per 128 KiB
  };
  for (const Shape shape : {Shape{256, 1}, {512, 1}, {1024, 1}, {1024, 2}, {1024, 0}}) {
    const std::size_t chunk = shape.waves == 0 ? 8192 : 0;  // vectors of 16 bytes
    const int grid =
        chunk > 0 ? int((vectors + chunk - 1) / chunk) : ch08::resident_blocks(kernel, shape.block, 0) * shape.waves;
    const TimingStats t = time_gpu(warmup, reps, [&](cudaStream_t stream) {
      kernel<<<grid, shape.block, 0, stream>>>(words, vectors, chunk, sink.data());
      CUDA_CHECK_LAUNCH();
    });
    const double gbps = gigabytes_per_second(double(vectors) * sizeof(uint4), t.median_ms);
    if (gbps > ceiling.gbps) {
      ceiling.gbps = gbps;
      ceiling.shape = std::to_string(shape.block) + " threads x " +
                      (shape.waves == 0 ? std::string("one block per 128 KiB")
                                        : std::to_string(shape.waves) + (shape.waves == 1 ? " wave" : " waves")) +
                      ", 4 loads of 16 bytes in flight";
    }
  }
  return ceiling;
}

// ---- The analysis ----

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
  std::vector<std::string> own;  // the kernels that choose their own block
  for (const char* name : {"fastest", "reproducible", "exact", "cub"})
    if (contains(kernels, name)) own.push_back(name);
  if (!own.empty())
    text << (lesson ? "           " : "block      ") << reduction::join(own, own.size() == 2 ? " and " : ", ")
         << (own.size() == 1 ? " chooses its own block" : " choose their own blocks") << "\n";
}

// fastest's plan for n, in words. The grid path's grid depends on the GPU, so here it is only the
// rule; with a GPU, fastest_plan() gives it.
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
  const std::string cluster =
      cluster_shape<T>(n).blocks != 0
          ? "on Hopper and later one launch of a cluster of " + std::to_string(cluster_shape<T>(n).blocks) +
                " blocks of " + std::to_string(cluster_shape<T>(n).threads) +
                " threads, whose totals meet in block 0's shared memory\n"
                "           behind one cluster barrier; before Hopper "
          : std::string();
  return cluster + "the grid path: blocks of " + std::to_string(C::kMidBlock) + " threads, one round of loads each, while " +
         std::to_string(C::kMidBlocksPerMultiprocessor) + " a multiprocessor\n           suffice, else " +
         std::to_string(C::kBlock) + " threads, one wave;\n           the last block to finish adds the blocks' results";
}

}  // namespace ch09
