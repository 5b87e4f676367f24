// Measurements behind three claims of the lessons, each with the chapters' own kernels where it can:
//
//  1. atomics (chapter 06): what one atomicAdd per block costs when every block adds to the same
//     address. Chapter 06's kernel, with its last line as a parameter: the block's partial goes
//     either to atomicAdd on out[0] (the chapter) or to a store in out[blockIdx.x] (no atomic, no
//     shared address). The two differ in that one line, so the difference in time is the atomics'.
//  2. loads in flight (chapter 08, exercise 4): the grid-stride loop with `#pragma unroll 4`, against
//     the same loop rewritten to issue four independent loads under one bounds check.
//  3. trees (chapter 09): the first pass of chapter 08's kernel and of each of chapter 09's lesson
//     kernels, launched with two elements a thread (chapter 06's shape), where the tree is most of
//     the work: what each warp technique buys there.
//  4. fastest's knobs (chapter 09): every configuration of `fastest`'s grid path (load width,
//     loads in flight, one or two passes, strided or chunked layout, block size, waves), the
//     measurements behind the choice in ch09::FastestChoice.
//  5. to 8. fastest's large-n shape against chapter 07 (issue 24, 09's README "Many blocks or one
//     wave"): `design` (one block per tile, one or two passes, fences or an acquire-release
//     atomic), `large` (one wave, two waves, one block per chunk, 07 and cub, in rounds),
//     `dynamic` (chunks taken from a counter), `traits` (07's kernel one trait at a time), and
//     `profile` (four kernels launched once each, for ncu); 9. `schedule` (07's tile as one block
//     per tile and as one wave, for ncu); 10. `steal` (warps that take chunks from a counter);
//     11. `slots` (many blocks, a slot each, a second launch, with Hopper's dependent launch);
//     12. `versus07` (fastest against every factor of 07, in rounds); 13. `tail` (the fold's
//     cost, tile sizes, a fold 16 bytes a load, atomic tiles); 14. `folds` (the same in
//     fastest_kernel's tiles: one or two rounds, folds of 1, 4 or 8 loads in flight); 15.
//     `tagged` (a fold that reads tagged slots instead of waiting for the whole first grid); 16.
//     `foldparts` (the fold's time, part by part: launch, wait, loads, tree; and on a cluster);
//     17. `keep` (how a tile starts, and where the slots go); 18. `guided` (smaller tiles at the
//     end of the grid; for ints one atomicAdd a tile); 19. `spread` (the fold over several
//     blocks, loads that fetch 256 bytes into L2, and fastest entered twice: the noise); 20.
//     `bigstart` (tiles of two or four rounds at the start of the grid: fewer slots); 21. `exact`
//     (sums that end each tile with atomicAdds of exact integers, exact_sum.cuh: what fastest now
//     does) and `exactwhere` (the same with its words at other addresses); 22. `exactkind [N]` (the
//     words' pieces added as doubles, one atomicAdd a tile, a fold in groups while the tiles run, and
//     the fold with 8 or 16 loads in flight); 23. `redcost [N]` (which atomics at the end of a tile
//     cost: 64-bit or 32-bit, one or three).
//
// Build: cmake --build build --target experiments; run: build/benchmark/experiments [atomics|loads|
// inflight|tiles|trees|knobs|design|large|dynamic|traits|profile|schedule|steal|slots|versus07|
// tail|folds|tagged|foldparts|keep [N]|guided [N]|spread [N]|bigstart [N]|exact [N]|exactwhere|exactkind [N]|redcost [N]] (atomics,
// loads, inflight, trees and knobs without an argument; needs a GPU). It prints medians of 20 timed
// runs after 3 warm-ups, with CUDA events, and checks every result.
#include <cooperative_groups.h>
#include <cuda/atomic>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <string>
#include <tuple>
#include <vector>

#include "07_coarsening/solution/coarsening.cuh"
#include "08_two_pass/solution/two_pass.cuh"
#include "09_warp_unrolled/solution/exact_sum.cuh"
#include "09_warp_unrolled/solution/cub_reduce.cuh"
#include "09_warp_unrolled/solution/fastest_small.cuh"
#include "09_warp_unrolled/solution/unrolled.cuh"
#include "09_warp_unrolled/solution/warp_finish.cuh"
#include "common/gpu.cuh"
#include "common/program.hpp"
#include "common/reference.hpp"

using namespace reduction;

namespace {

constexpr int kWarmup = 3, kReps = 20;

// The end of every pass kernel here: the threads' sums meet in shared memory (blockDim.x of them)
// and chapter 06's tree halves them; thread 0, which made the last addition, gets the block's sum.
template <typename T> __device__ T block_sum(T sum) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  T* partial = reinterpret_cast<T*>(shared_bytes);
  const unsigned t = threadIdx.x;
  partial[t] = sum;
  for (unsigned stride = blockDim.x / 2; stride >= 1; stride /= 2) {
    __syncthreads();
    if (t < stride) partial[t] += partial[t + stride];
  }
  return t == 0 ? partial[0] : T(0);  // only thread 0 made the last addition
}

// Chapter 06's kernel (06_hierarchical/solution/hierarchical.cuh), the hand-off a parameter.
template <bool kAtomic, typename T>
__global__ void hierarchical_handoff(const T* input, std::size_t n, T* out) {
  const unsigned t = threadIdx.x;
  const std::size_t i = 2 * std::size_t(blockDim.x) * blockIdx.x + t;
  T sum = T(0);
  if (i < n) sum = input[i];
  if (i + blockDim.x < n) sum += input[i + blockDim.x];
  const T block = block_sum(sum);
  if (t == 0) {
    if constexpr (kAtomic)
      atomicAdd(out, block);
    else
      out[blockIdx.x] = block;
  }
}

// Chapter 08's loop with the compiler asked to unroll it four times. Each unrolled copy keeps its
// own `i < n` test and exit branch, so a load cannot be issued before the branch of the copy
// before it is decided.
template <typename T>
__global__ void unroll_pragma_pass(const T* input, std::size_t n, T* out) {
  const unsigned t = threadIdx.x;
  const std::size_t grid_threads = std::size_t(gridDim.x) * blockDim.x;
  T sum = T(0);
#pragma unroll 4
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + t; i < n; i += grid_threads) sum += input[i];
  const T block = block_sum(sum);
  if (t == 0) out[blockIdx.x] = block;
}

// Four loads under one test: all four addresses are known before any value returns, so the
// four loads leave together. The tail that is not a whole group of four goes one at a time.
template <typename T>
__global__ void four_loads_pass(const T* input, std::size_t n, T* out) {
  const unsigned t = threadIdx.x;
  const std::size_t grid_threads = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + t;
  T sum = T(0);
  for (; i + 3 * grid_threads < n; i += 4 * grid_threads) {
    const T a = input[i], b = input[i + grid_threads], c = input[i + 2 * grid_threads], d = input[i + 3 * grid_threads];
    sum += (a + b) + (c + d);
  }
  for (; i < n; i += grid_threads) sum += input[i];
  const T block = block_sum(sum);
  if (t == 0) out[blockIdx.x] = block;
}

template <typename T, typename Launch>
double median_us(Launch&& launch) {
  return 1e3 * time_gpu(kWarmup, kReps, [&](cudaStream_t s) { launch(s); }).median_ms;
}

template <typename T>
T sum_of_partials(const DeviceBuffer<T>& partials, std::size_t count) {
  std::vector<T> host = partials.download();
  T s = T(0);
  for (std::size_t b = 0; b < count; ++b) s = Sum{}(s, host[b]);
  return s;
}

template <typename T>
void atomics(std::size_t n, int block) {
  const std::vector<T> data = generate_input<T>(n, 42);
  const auto ref = reference_sum(data.data(), n);
  DeviceBuffer<T> input(data);
  const std::size_t blocks = (n + 2 * std::size_t(block) - 1) / (2 * std::size_t(block));
  DeviceBuffer<T> out(blocks);
  const unsigned grid = static_cast<unsigned>(blocks);
  const std::size_t shared = block * sizeof(T);
  auto atomic = [&](cudaStream_t s) {
    CUDA_CHECK(cudaMemsetAsync(out.data(), 0, sizeof(T), s));
    hierarchical_handoff<true><<<grid, block, shared, s>>>(input.data(), n, out.data());
    CUDA_CHECK_LAUNCH();
  };
  auto store = [&](cudaStream_t s) {
    CUDA_CHECK(cudaMemsetAsync(out.data(), 0, sizeof(T), s));  // the same memset, so only the hand-off differs
    hierarchical_handoff<false><<<grid, block, shared, s>>>(input.data(), n, out.data());
    CUDA_CHECK_LAUNCH();
  };
  const double t_atomic = median_us<T>(atomic);
  const bool atomic_ok = matches(out.download_one(), ref, tolerance(ref, ceil_log2(2 * std::size_t(block)) + blocks));
  const double t_store = median_us<T>(store);
  const bool store_ok = matches(sum_of_partials(out, blocks), ref, tolerance(ref, ceil_log2(2 * std::size_t(block)) + blocks));
  std::printf("atomics  %-6s n=2^%-2zu B=%-4d blocks=%-7zu atomicAdd %8.1f us  store %8.1f us  difference %7.1f us"
              " = %.2f ns per block  %s\n",
              type_name(data_type_of<T>()), ceil_log2(n), block, blocks, t_atomic, t_store, t_atomic - t_store,
              1e3 * (t_atomic - t_store) / double(blocks), atomic_ok && store_ok ? "verified" : "WRONG");
}

template <typename T>
void loads_in_flight(std::size_t n, int block) {
  const std::vector<T> data = generate_input<T>(n, 42);
  const auto ref = reference_sum(data.data(), n);
  DeviceBuffer<T> input(data);
  const int grid = ch08::grid_size<ch08::Handoff::Store, T>(n, block);
  DeviceBuffer<T> out(grid);
  const std::size_t shared = block * sizeof(T);
  const std::size_t depth = n / (std::size_t(grid) * block) + 2 + ceil_log2(block) + grid;
  auto report = [&](const char* name, double us) {
    const bool ok = matches(sum_of_partials(out, grid), ref, tolerance(ref, depth));
    std::printf("loads    %-6s n=2^%-2zu B=%-4d G=%-5d %-28s %8.1f us  %7.1f GB/s  %s\n", type_name(data_type_of<T>()),
                ceil_log2(n), block, grid, name, us, n * sizeof(T) / (us * 1e3), ok ? "verified" : "WRONG");
  };
  report("chapter 08 loop", median_us<T>([&](cudaStream_t s) {
           ch08::two_pass_kernel<ch08::Handoff::Store><<<grid, block, shared, s>>>(input.data(), n, out.data());
           CUDA_CHECK_LAUNCH();
         }));
  report("#pragma unroll 4", median_us<T>([&](cudaStream_t s) {
           unroll_pragma_pass<<<grid, block, shared, s>>>(input.data(), n, out.data());
           CUDA_CHECK_LAUNCH();
         }));
  report("four loads under one test", median_us<T>([&](cudaStream_t s) {
           four_loads_pass<<<grid, block, shared, s>>>(input.data(), n, out.data());
           CUDA_CHECK_LAUNCH();
         }));
}

// Chapter 08's pass with K loads in flight: K independent loads under one bounds test, then
// added into the sum in the order of the plain loop (so the result is bit for bit the plain one).
template <int K, typename T>
__global__ void k_loads_pass(const T* input, std::size_t n, T* out) {
  const unsigned t = threadIdx.x;
  const std::size_t grid_threads = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + t;
  T sum = T(0);
  for (; i + (K - 1) * grid_threads < n; i += K * grid_threads) {
    T v[K];
#pragma unroll
    for (int k = 0; k < K; ++k) v[k] = input[i + k * grid_threads];
#pragma unroll
    for (int k = 0; k < K; ++k) sum += v[k];
  }
  for (; i < n; i += grid_threads) sum += input[i];
  const T block = block_sum(sum);
  if (t == 0) out[blockIdx.x] = block;
}

// The same, with each block's K loads side by side: block b reads tiles b, b + G, b + 2G, ... of
// K x blockDim.x consecutive elements, thread t elements t, t + B, ..., t + (K - 1) B of each tile.
template <int K, typename T>
__global__ void k_tiles_pass(const T* input, std::size_t n, T* out) {
  const unsigned t = threadIdx.x;
  const std::size_t tile = std::size_t(K) * blockDim.x;
  T sum = T(0);
  for (std::size_t base = blockIdx.x * tile; base < n; base += tile * gridDim.x) {
    if (base + tile <= n) {
      T v[K];
#pragma unroll
      for (int k = 0; k < K; ++k) v[k] = input[base + k * blockDim.x + t];
#pragma unroll
      for (int k = 0; k < K; ++k) sum += v[k];
    } else {
      for (int k = 0; k < K; ++k)
        if (base + k * blockDim.x + t < n) sum += input[base + k * blockDim.x + t];
    }
  }
  const T block = block_sum(sum);
  if (t == 0) out[blockIdx.x] = block;
}

// Times one of the pass kernels above (`label`, K loads a thread at a time) at each block size and
// number of waves of blocks (waves x the blocks the GPU holds at once), checking every result.
template <int K, typename T, typename Kernel>
void pass_rows(const char* label, Kernel kernel, std::initializer_list<int> blocks, std::initializer_list<int> waves_list,
               const DeviceBuffer<T>& input, std::size_t n, const Reference<T>& ref) {
  for (int block : blocks)
    for (int waves : waves_list) {
      const int grid = waves * ch08::resident_blocks(kernel, block, block * sizeof(T));
      DeviceBuffer<T> out(grid);
      const double us = median_us<T>([&](cudaStream_t s) {
        kernel<<<grid, block, block * sizeof(T), s>>>(input.data(), n, out.data());
        CUDA_CHECK_LAUNCH();
      });
      const std::size_t depth = n / (std::size_t(grid) * block) + 2 + ceil_log2(block) + grid;
      const bool ok = matches(sum_of_partials(out, grid), ref, tolerance(ref, depth));
      std::printf("%-8s %-6s n=2^%-2zu K=%-2d B=%-4d waves=%-2d G=%-5d %8.1f us  %7.1f GB/s  %s\n", label,
                  type_name(data_type_of<T>()), ceil_log2(n), K, block, waves, grid, us, n * sizeof(T) / (us * 1e3),
                  ok ? "verified" : "WRONG");
    }
}

template <int K, typename T>
void k_loads_rows(const DeviceBuffer<T>& input, std::size_t n, const Reference<T>& ref) {
  pass_rows<K>("inflight", k_loads_pass<K, T>, {256, 512, 1024}, {1, 2, 4, 8}, input, n, ref);
}

template <int K, typename T>
void k_tiles_rows(const DeviceBuffer<T>& input, std::size_t n, const Reference<T>& ref) {
  pass_rows<K>("tiles", k_tiles_pass<K, T>, {256, 512}, {1, 2, 4, 8, 16}, input, n, ref);
}

// Loads in flight in chapter 08's pass (K = 1, 2, 4, 8, 16), at several blocks and grids, beside
// chapter 07's factors, all in one process on the same input.
template <typename T>
void in_flight(std::size_t n, bool tiles_only) {
  const std::vector<T> data = generate_input<T>(n, 42);
  const auto ref = reference_sum(data.data(), n);
  DeviceBuffer<T> input(data), result(1);
  DeviceScratch scratch;
  auto coarse = [&](auto factor) {
    constexpr int F = decltype(factor)::value;
    const double us = median_us<T>([&](cudaStream_t s) { ch07::launch<F, T>(input.data(), n, result.data(), 256, scratch, s); });
    std::printf("inflight %-6s n=2^%-2zu 07 coarse%-4d B=256          %8.1f us  %7.1f GB/s\n", type_name(data_type_of<T>()),
                ceil_log2(n), F, us, n * sizeof(T) / (us * 1e3));
  };
  coarse(std::integral_constant<int, 4>{});
  coarse(std::integral_constant<int, 8>{});
  coarse(std::integral_constant<int, 16>{});
  if (!tiles_only) {
    k_loads_rows<1, T>(input, n, ref);
    k_loads_rows<2, T>(input, n, ref);
    k_loads_rows<4, T>(input, n, ref);
    k_loads_rows<8, T>(input, n, ref);
    k_loads_rows<16, T>(input, n, ref);
  }
  k_tiles_rows<4, T>(input, n, ref);
  k_tiles_rows<8, T>(input, n, ref);
  k_tiles_rows<16, T>(input, n, ref);
  coarse(std::integral_constant<int, 8>{});  // again at the end: the clock has not drifted
}

// The trees of chapters 08 and 09 where the tree is most of the work: each kernel's first pass
// launched with G = n / (2B) blocks, so that its grid-stride loop gives every thread exactly two
// elements (chapter 06's shape) and every block then runs its tree over 2B elements. Only the
// tree differs between the kernels; the block results are added on the host to check them.
template <typename T>
void trees(std::size_t n, int block_log2, bool json) {
  const int block = 1 << block_log2;
  const std::vector<T> data = generate_input<T>(n, 42);
  const auto ref = reference_sum(data.data(), n);
  DeviceBuffer<T> input(data);
  const int grid = static_cast<int>(n / (2 * std::size_t(block)));
  DeviceBuffer<T> out(grid);
  const std::size_t depth = 1 + ceil_log2(block) + grid;
  auto one = [&](const char* name, auto launch) {
    const double us = median_us<T>([&](cudaStream_t s) {
      launch(s);
      CUDA_CHECK_LAUNCH();
    });
    const bool ok = matches(sum_of_partials(out, grid), ref, tolerance(ref, depth));
    if (json)  // one object a line, for benchmark/benchmark.py's main line
      std::printf("{\"type\": \"%s\", \"n\": %zu, \"block\": %d, \"kernel\": \"%s\", \"time_ms\": %.6f, \"correct\": %s}\n",
                  type_name(data_type_of<T>()), n, block, name, us / 1e3, ok ? "true" : "false");
    else
      std::printf("trees    %-6s n=2^%-2zu B=%-4d G=%-7d %-15s %8.1f us  %7.1f GB/s  %s\n", type_name(data_type_of<T>()),
                  ceil_log2(n), block, grid, name, us, n * sizeof(T) / (us * 1e3), ok ? "verified" : "WRONG");
  };
  const std::size_t slots = std::size_t(std::max(block, 64)) * sizeof(T);
  one("two_pass_kernel", [&](cudaStream_t s) {
    ch08::two_pass_kernel<ch08::Handoff::Store><<<grid, block, block * sizeof(T), s>>>(input.data(), n, out.data());
  });
  one("warp_volatile", [&](cudaStream_t s) {
    ch09::warp_volatile_kernel<<<grid, block, slots, s>>>(input.data(), n, out.data());
  });
  one("warp_syncwarp", [&](cudaStream_t s) {
    ch09::warp_syncwarp_kernel<<<grid, block, slots, s>>>(input.data(), n, out.data());
  });
  one("unrolled", [&](cudaStream_t s) {
    if (block == 256) ch09::unrolled_kernel<256><<<grid, 256, 0, s>>>(input.data(), n, out.data());
    else ch09::unrolled_kernel<1024><<<grid, 1024, 0, s>>>(input.data(), n, out.data());
  });
  one("shuffle", [&](cudaStream_t s) {
    ch09::shuffle_kernel<Sum><<<grid, block, 0, s>>>(input.data(), n, out.data());
  });
}

struct KnobsResult {
  std::string name;
  double us;
  bool verified;
};

// One configuration of fastest's grid path: the compile-time knobs; block and waves vary at run time.
template <bool kWide, int kLoads, bool kOnePass, bool kChunked>
struct Knobs {
  static std::string name(int block, int waves) {
    return std::string(kWide ? "16B" : "1el") + " x" + std::to_string(kLoads) + (kOnePass ? " 1pass" : " 2pass") +
           (kChunked ? " chunk" : " stride") + " b" + std::to_string(block) + " w" + std::to_string(waves);
  }
  template <typename T>
  static KnobsResult time(const T* input, std::size_t n, T* result, int block, int waves, DeviceScratch& scratch,
                   const Reference<T>& ref) {
    auto launch = [&](cudaStream_t s) {
      ch09::launch_fastest_with<Sum, T, kWide, kLoads, kOnePass, kChunked>(input, n, result, block, waves, scratch, s);
    };
    const double us = median_us<T>(launch);
    const std::size_t depth = ch09::fastest_depth_with<Sum, T, kWide, kLoads, kOnePass, kChunked>(n, block, waves);
    T value{};
    CUDA_CHECK(cudaMemcpy(&value, result, sizeof(T), cudaMemcpyDeviceToHost));
    return {name(block, waves), us, matches(value, ref, tolerance(ref, depth))};
  }
};
template <bool kOnePass, bool kChunked>
using KnobsRow = std::tuple<Knobs<false, 1, kOnePass, kChunked>, Knobs<true, 1, kOnePass, kChunked>,
                            Knobs<true, 2, kOnePass, kChunked>, Knobs<true, 4, kOnePass, kChunked>,
                            Knobs<true, 8, kOnePass, kChunked>>;
using AllKnobs = decltype(std::tuple_cat(KnobsRow<false, false>{}, KnobsRow<true, false>{}, KnobsRow<false, true>{},
                                         KnobsRow<true, true>{}));

template <typename T>
void knobs(std::size_t n) {
  const std::vector<T> data = generate_input<T>(n, 42);
  const auto ref = reference_sum(data.data(), n);
  DeviceBuffer<T> input(data), result(1);
  DeviceScratch scratch;
  std::vector<KnobsResult> results;
  auto library = [&](const char* name, auto launch) {
    const double us = median_us<T>([&](cudaStream_t s) { launch(input.data(), n, result.data(), 0, scratch, s); });
    std::printf("knobs    %-6s n=2^%-2zu %-28s %8.1f us  %7.1f GB/s\n", type_name(data_type_of<T>()), ceil_log2(n), name,
                us, n * sizeof(T) / (us * 1e3));
  };
  library("fastest (FastestChoice)", ch09::launch_fastest<Sum, T>);
  library("cub", ch09::launch_cub<Sum, T>);
  std::apply(
      [&](auto... k) {
        for (int block : {128, 256, 512, 1024})
          for (int waves : {1, 2, 4, 8, 16})
            (results.push_back(decltype(k)::time(input.data(), n, result.data(), block, waves, scratch, ref)), ...);
      },
      AllKnobs{});
  std::sort(results.begin(), results.end(), [](const auto& a, const auto& b) { return a.us < b.us; });
  for (std::size_t i = 0; i < std::min<std::size_t>(10, results.size()); ++i)
    std::printf("knobs    %-6s n=2^%-2zu %-28s %8.1f us  %7.1f GB/s  %s\n", type_name(data_type_of<T>()), ceil_log2(n),
                results[i].name.c_str(), results[i].us, n * sizeof(T) / (results[i].us * 1e3),
                results[i].verified ? "verified" : "WRONG");
  std::size_t wrong = 0;
  for (const auto& r : results) wrong += !r.verified;
  std::printf("knobs    %-6s n=2^%-2zu %zu configurations, %zu wrong\n", type_name(data_type_of<T>()), ceil_log2(n),
              results.size(), wrong);
  library("fastest (FastestChoice)", ch09::launch_fastest<Sum, T>);
  library("cub", ch09::launch_cub<Sum, T>);
}


// 5. fastest's large-n design (issue 24): candidates measured against cub, chapter 07's best factors
//    and the current choice, at the sizes where 07 came out ahead. `tiled` is chapter 07's grid
//    shape with fastest's loads: one block per run of `tiles` tiles of K x blockDim.x 16-byte vectors,
//    each tile read as K coalesced loads in flight, the block results stored and added by the last
//    block (the same order on every run, unlike 07's atomics).
// Adds to `sum` the K vectors base, base + blockDim.x, ... below `end`: all K loads issued before
// the first addition when they all are, else one at a time (the tile kernels below share it).
template <typename Op, typename T, int K, typename Vector>
__device__ __forceinline__ T add_round(const Vector* vector, std::size_t base, std::size_t end, T sum) {
  constexpr int kCount = int(sizeof(Vector) / sizeof(T));  // 16 bytes, or one element
  const Op op{};
  if (base + (K - 1) * blockDim.x < end) {
    Vector v[K];
#pragma unroll
    for (int k = 0; k < K; ++k) v[k] = vector[base + k * blockDim.x];
#pragma unroll
    for (int k = 0; k < K; ++k)
#pragma unroll
      for (int j = 0; j < kCount; ++j) sum = op(sum, v[k].lane[j]);
  } else {
    for (int k = 0; k < K; ++k)
      if (base + k * blockDim.x < end)
        for (int j = 0; j < kCount; ++j) sum = op(sum, vector[base + k * blockDim.x].lane[j]);
  }
  return sum;
}

// kHandoff: 0 one pass (fence, atomicInc, the last block adds), 1 two passes (store only; a second
// launch adds), 2 one pass with an acquire-release atomic instead of the two fences.
template <typename Op, typename T, int K, int kHandoff = 0, bool kWide = true>
__global__ void tiled_kernel(const T* input, std::size_t n, unsigned tiles_per_block, T* block_results, T* result,
                             unsigned* blocks_done) {
  using Vector = typename ch09::Lanes<T, kWide>::Vector;
  constexpr int kCount = ch09::Lanes<T, kWide>::count;
  const Op op{};
  T sum = Op::template identity<T>();
  const std::size_t vectors = n / kCount;  // cudaMalloc'd input: aligned
  const auto* vector = reinterpret_cast<const Vector*>(input);
  const std::size_t tile = std::size_t(K) * blockDim.x;
  const std::size_t first = std::size_t(blockIdx.x) * tiles_per_block * tile;
  for (unsigned r = 0; r < tiles_per_block; ++r)
    sum = add_round<Op, T, K>(vector, first + r * tile + threadIdx.x, vectors, sum);
  const std::size_t thread = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (thread < n - vectors * kCount) sum = op(sum, input[vectors * kCount + thread]);
  const T total = ch09::block_reduce<Op>(sum);
  if constexpr (kHandoff == 1) {
    if (threadIdx.x == 0) block_results[blockIdx.x] = total;
    return;
  }
  __shared__ bool last;
  if (threadIdx.x == 0) {
    block_results[blockIdx.x] = total;
    if constexpr (kHandoff == 0) {
      __threadfence();
      last = atomicInc(blocks_done, gridDim.x - 1) == gridDim.x - 1;
      __threadfence();
    } else {
      cuda::atomic_ref<unsigned, cuda::thread_scope_device> done(*blocks_done);
      last = done.fetch_add(1, cuda::memory_order_acq_rel) == gridDim.x - 1;
      if (last) done.store(0, cuda::memory_order_relaxed);
    }
  }
  __syncthreads();
  if (!last) return;
  const T all = ch09::block_reduce<Op>(ch09::fold_block_results<Op>(block_results, gridDim.x));
  if (threadIdx.x == 0) *result = all;
}

template <typename T>
void design(std::size_t n) {
  const std::vector<T> data = generate_input<T>(n, 42);
  const auto ref = reference_sum(data.data(), n);
  DeviceBuffer<T> input(data), result(1);
  DeviceScratch scratch;
  unsigned* counter = nullptr;
  CUDA_CHECK(cudaMalloc(&counter, sizeof(unsigned)));
  CUDA_CHECK(cudaMemset(counter, 0, sizeof(unsigned)));
  const char* type = type_name(data_type_of<T>());
  auto report = [&](const std::string& name, double us, std::size_t depth) {
    T value{};
    CUDA_CHECK(cudaMemcpy(&value, result.data(), sizeof(T), cudaMemcpyDeviceToHost));
    const bool ok = matches(value, ref, tolerance(ref, depth));
    std::printf("design   %-6s n=2^%-2zu %-30s %9.2f us  %7.1f GB/s  %s\n", type, ceil_log2(n), name.c_str(), us,
                n * sizeof(T) / (us * 1e3), ok ? "verified" : "WRONG");
  };
  auto library = [&](const char* name, auto launch, std::size_t depth) {
    report(name, median_us<T>([&](cudaStream_t s) { launch(input.data(), n, result.data(), 256, scratch, s); }), depth);
  };
  auto baselines = [&] {
    library("fastest", ch09::launch_fastest<Sum, T>, ch09::fastest_depth<Sum, T>(n, 0));
    library("cub", ch09::launch_cub<Sum, T>, ch09::cub_depth(n, 0));
    library("07 coarse8", ch07::launch<8, T>, ch07::depth<8>(n, 256));
    library("07 coarse16", ch07::launch<16, T>, ch07::depth<16>(n, 256));
    library("07 coarse32", ch07::launch<32, T>, ch07::depth<32>(n, 256));
  };
  baselines();
  auto tiled = [&](auto k, auto handoff, auto wide, int block, unsigned tiles_per_block) {
    constexpr int K = decltype(k)::value, kHandoff = decltype(handoff)::value;
    constexpr bool kWide = decltype(wide)::value;
    const std::size_t vectors = n / ch09::Lanes<T, kWide>::count;
    const std::size_t tile = std::size_t(K) * block;
    const std::size_t blocks = (vectors + tile * tiles_per_block - 1) / (tile * tiles_per_block);
    if (blocks > (1u << 20) || blocks < 1) return;
    T* partials = scratch.get_as<T>(blocks);
    const double us = median_us<T>([&](cudaStream_t s) {
      tiled_kernel<Sum, T, K, kHandoff, kWide><<<unsigned(blocks), block, 0, s>>>(input.data(), n, tiles_per_block,
                                                                                   partials, result.data(), counter);
      CUDA_CHECK_LAUNCH();
      if constexpr (kHandoff == 1) {
        ch09::fastest_kernel<Sum, T, false, 4, false, false><<<1, 1024, 0, s>>>(partials, blocks, result.data(),
                                                                                nullptr, nullptr);
        CUDA_CHECK_LAUNCH();
      }
    });
    const std::size_t depth = K * tiles_per_block * 4 + 20 + blocks / block + 20;
    const char* how[] = {" 1pass", " 2pass", " acqrel"};
    report(std::string(kWide ? "tiled" : "tiled1el") + how[kHandoff] + " K" + std::to_string(K) + " b" +
               std::to_string(block) + " t" + std::to_string(tiles_per_block) + " G" + std::to_string(blocks),
           us, depth);
  };
  using std::integral_constant;
  auto handoffs = [&](auto k, int block, unsigned tpb) {
    tiled(k, integral_constant<int, 0>{}, std::true_type{}, block, tpb);
    tiled(k, integral_constant<int, 1>{}, std::true_type{}, block, tpb);
    tiled(k, integral_constant<int, 2>{}, std::true_type{}, block, tpb);
  };
  for (int block : {256, 512, 1024})
    for (unsigned tpb : {1u, 2u, 4u, 8u}) {
      handoffs(integral_constant<int, 2>{}, block, tpb);
      handoffs(integral_constant<int, 4>{}, block, tpb);
      if (block < 1024) handoffs(integral_constant<int, 8>{}, block, tpb);
    }
  for (unsigned tpb : {1u, 2u})
    for (int block : {256, 512}) {
      tiled(integral_constant<int, 16>{}, integral_constant<int, 1>{}, std::false_type{}, block, tpb);
      tiled(integral_constant<int, 16>{}, integral_constant<int, 2>{}, std::false_type{}, block, tpb);
    }
  auto knob = [&](auto knobs, int block, int waves) {
    using Kn = decltype(knobs);
    const KnobsResult r = Kn::time(input.data(), n, result.data(), block, waves, scratch, ref);
    std::printf("design   %-6s n=2^%-2zu %-30s %9.2f us  %7.1f GB/s  %s\n", type, ceil_log2(n), r.name.c_str(), r.us,
                n * sizeof(T) / (r.us * 1e3), r.verified ? "verified" : "WRONG");
  };
  for (int waves : {1, 2, 4}) {
    knob(Knobs<true, 4, true, true>{}, 256, waves);
    knob(Knobs<true, 4, true, false>{}, 1024, waves);
  }
  baselines();
  CUDA_CHECK(cudaFree(counter));
}

// 6. fastest's large-n path against what it replaced and against chapter 07 (issue 24): the
//    chunked grid of fastest_kernel at two shapes of the same 64 KiB chunk, the former grid of two
//    waves, 07's best factors and cub, all timed in rounds (each round times every kernel once,
//    as a median of 20 runs), so that the spread over the rounds is the run-to-run noise of
//    each. `profile` launches four of them once each, for ncu.
template <typename T, int K>
void chunked_launch(const T* input, std::size_t n, T* result, int rounds, DeviceScratch& scratch, cudaStream_t s) {
  const std::size_t chunk = std::size_t(1024) * K * rounds * ch09::Lanes<T, true>::count;
  const int grid = int(std::max<std::size_t>((n + chunk - 1) / chunk, ch08::multiprocessors()));
  ch09::launch_fastest_grid<Sum, T, true, K, true, true>(input, n, result, 1024, grid, scratch, s);
}

template <typename T>
void large(std::size_t n, int rounds_of_all) {
  const std::vector<T> data = generate_input<T>(n, 42);
  const auto ref = reference_sum(data.data(), n);
  DeviceBuffer<T> input(data), result(1);
  DeviceScratch scratch;
  using Launch = std::function<void(cudaStream_t)>;
  const T* in = input.data();
  T* out = result.data();
  const std::vector<std::pair<std::string, Launch>> kernels = {
      {"fastest", [&](cudaStream_t s) { ch09::launch_fastest<Sum, T>(in, n, out, 0, scratch, s); }},
      {"former fastest (b1024 w2)", [&](cudaStream_t s) { ch09::launch_fastest_with<Sum, T, true, 4, true, false>(in, n, out, 1024, 2, scratch, s); }},
      {"chunk x4 1 round", [&](cudaStream_t s) { chunked_launch<T, 4>(in, n, out, 1, scratch, s); }},
      {"chunk x2 4 rounds", [&](cudaStream_t s) { chunked_launch<T, 2>(in, n, out, 4, scratch, s); }},
      {"stride x4 w1", [&](cudaStream_t s) { ch09::launch_fastest_with<Sum, T, true, 4, true, false>(in, n, out, 1024, 1, scratch, s); }},
      {"chunk x4 w1", [&](cudaStream_t s) { ch09::launch_fastest_with<Sum, T, true, 4, true, true>(in, n, out, 1024, 1, scratch, s); }},
      {"chunk x4 w2", [&](cudaStream_t s) { ch09::launch_fastest_with<Sum, T, true, 4, true, true>(in, n, out, 1024, 2, scratch, s); }},
      {"chunk x4 w4", [&](cudaStream_t s) { ch09::launch_fastest_with<Sum, T, true, 4, true, true>(in, n, out, 1024, 4, scratch, s); }},
      {"chunk x4 w8", [&](cudaStream_t s) { ch09::launch_fastest_with<Sum, T, true, 4, true, true>(in, n, out, 1024, 8, scratch, s); }},
      {"chunk x4 w16", [&](cudaStream_t s) { ch09::launch_fastest_with<Sum, T, true, 4, true, true>(in, n, out, 1024, 16, scratch, s); }},
      {"chunk x2 w4", [&](cudaStream_t s) { ch09::launch_fastest_with<Sum, T, true, 2, true, true>(in, n, out, 1024, 4, scratch, s); }},
      {"07 coarse8", [&](cudaStream_t s) { ch07::launch<8, T>(in, n, out, 256, scratch, s); }},
      {"07 coarse16", [&](cudaStream_t s) { ch07::launch<16, T>(in, n, out, 256, scratch, s); }},
      {"cub", [&](cudaStream_t s) { ch09::launch_cub<Sum, T>(in, n, out, 0, scratch, s); }},
  };
  std::vector<std::vector<double>> us(kernels.size());
  for (int round = 0; round < rounds_of_all; ++round)
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      us[k].push_back(median_us<T>(kernels[k].second));
      T value{};
      CUDA_CHECK(cudaMemcpy(&value, out, sizeof(T), cudaMemcpyDeviceToHost));
      if (!matches(value, ref, tolerance(ref, n)))
        std::printf("large    %-6s n=2^%-2zu %-28s WRONG\n", type_name(data_type_of<T>()), ceil_log2(n), kernels[k].first.c_str());
    }
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    std::vector<double> v = us[k];
    std::sort(v.begin(), v.end());
    std::printf("large    %-6s n=2^%-2zu %-28s min %9.2f  median %9.2f  max %9.2f us  spread %4.1f %%  %7.1f GB/s\n",
                type_name(data_type_of<T>()), ceil_log2(n), kernels[k].first.c_str(), v.front(), v[v.size() / 2],
                v.back(), 100 * (v.back() - v.front()) / v.front(), n * sizeof(T) / (v[v.size() / 2] * 1e3));
  }
  // Round by round: 07's best of the two factors over fastest, and cub over fastest.
  std::printf("large    %-6s n=2^%-2zu fastest/07best time by round:", type_name(data_type_of<T>()), ceil_log2(n));
  const std::size_t c8 = kernels.size() - 3, c16 = kernels.size() - 2, cub = kernels.size() - 1;
  for (int r = 0; r < rounds_of_all; ++r) std::printf(" %.3f", us[0][r] / std::min(us[c8][r], us[c16][r]));
  std::printf("\nlarge    %-6s n=2^%-2zu cub/fastest time by round:", type_name(data_type_of<T>()), ceil_log2(n));
  for (int r = 0; r < rounds_of_all; ++r) std::printf(" %.3f", us[cub][r] / us[0][r]);
  std::printf("\n");
}

void profile() {
  const std::size_t n = std::size_t(1) << 28;
  DeviceBuffer<int> input(n), result(1);
  CUDA_CHECK(cudaMemset(input.data(), 1, n * sizeof(int)));
  DeviceScratch scratch;
  for (int pass = 0; pass < 2; ++pass) {  // the first pass warms up; ncu --launch-skip 4 takes the second
    ch09::launch_fastest<Sum, int>(input.data(), n, result.data(), 0, scratch, 0);
    ch09::launch_fastest_with<Sum, int, true, 4, true, false>(input.data(), n, result.data(), 1024, 2, scratch, 0);
    ch07::launch<8, int>(input.data(), n, result.data(), 256, scratch, 0);
    ch09::launch_cub<Sum, int>(input.data(), n, result.data(), 0, scratch, 0);
  }
  CUDA_CHECK(cudaDeviceSynchronize());
}

// 7. A candidate for closing the rest of the gap to chapter 07 (issue 24): one wave of blocks that
//    take chunks of the input from a shared counter as they go (the next one asked for while the
//    current one loads), each chunk's sum stored in its own slot, and the last block to finish adds
//    the slots in order: the balance of 07's many blocks, one fence a block, and the same bits on
//    every run (the order of the additions does not depend on which block took which chunk).
template <typename Op, typename T, int K, int R>
__global__ void dynamic_kernel(const T* input, std::size_t n, std::size_t chunks, T* chunk_results, T* result,
                               unsigned* next_chunk, unsigned* blocks_done) {
  using Vector = typename ch09::Lanes<T, true>::Vector;
  constexpr int kCount = ch09::Lanes<T, true>::count;
  const Op op{};
  const std::size_t vectors = n / kCount;  // cudaMalloc'd input, n a multiple of kCount here
  const auto* vector = reinterpret_cast<const Vector*>(input);
  const std::size_t chunk = std::size_t(blockDim.x) * K * R;
  __shared__ unsigned taken[2];
  __shared__ bool last;
  if (threadIdx.x == 0) taken[0] = atomicAdd(next_chunk, 1u);
  __syncthreads();
  int slot = 0;
  for (unsigned c = taken[0]; c < chunks; c = taken[slot]) {
    if (threadIdx.x == 0) taken[slot ^ 1] = atomicAdd(next_chunk, 1u);  // the next, while this one loads
    T sum = Op::template identity<T>();
    const std::size_t end = (c + 1) * chunk < vectors ? (c + 1) * chunk : vectors;
    std::size_t i = c * chunk + threadIdx.x;
    for (int r = 0; r < R; ++r, i += K * blockDim.x) sum = add_round<Op, T, K>(vector, i, end, sum);
    const T total = ch09::block_reduce<Op>(sum);
    if (threadIdx.x == 0) chunk_results[c] = total;
    slot ^= 1;
    __syncthreads();  // taken[slot] written, and warp_totals read, before the next chunk's
  }
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicInc(blocks_done, gridDim.x - 1) == gridDim.x - 1;
    __threadfence();
    if (last) *next_chunk = 0;  // every block has taken its last chunk
  }
  __syncthreads();
  if (!last) return;
  const T all = ch09::block_reduce<Op>(ch09::fold_block_results<Op>(chunk_results, unsigned(chunks)));
  if (threadIdx.x == 0) *result = all;
}

template <typename T, int K, int R>
void dynamic_launch(const T* input, std::size_t n, T* result, int block, int per_sm, DeviceScratch& scratch,
                    unsigned* counters, cudaStream_t s) {
  const std::size_t chunk = std::size_t(block) * K * R * ch09::Lanes<T, true>::count;
  const std::size_t chunks = (n + chunk - 1) / chunk;
  const int grid = int(std::min<std::size_t>(chunks, std::size_t(per_sm) * ch08::multiprocessors()));
  T* slots = scratch.get_as<T>(chunks);
  dynamic_kernel<Sum, T, K, R><<<grid, block, 0, s>>>(input, n, chunks, slots, result, counters, counters + 1);
  CUDA_CHECK_LAUNCH();
}

template <typename T>
void dynamic(std::size_t n, int rounds_of_all) {
  const std::vector<T> data = generate_input<T>(n, 42);
  const auto ref = reference_sum(data.data(), n);
  DeviceBuffer<T> input(data), result(1);
  DeviceScratch scratch;
  DeviceBuffer<unsigned> counters(2);
  CUDA_CHECK(cudaMemset(counters.data(), 0, 2 * sizeof(unsigned)));
  using Launch = std::function<void(cudaStream_t)>;
  const T* in = input.data();
  T* out = result.data();
  unsigned* cnt = counters.data();
  std::vector<std::pair<std::string, Launch>> kernels = {
      {"fastest", [&](cudaStream_t s) { ch09::launch_fastest<Sum, T>(in, n, out, 0, scratch, s); }}};
  auto add = [&](auto k, auto r, int block, int per_sm) {
    constexpr int K = decltype(k)::value, R = decltype(r)::value;
    kernels.push_back({"dynamic x" + std::to_string(K) + " r" + std::to_string(R) + " b" + std::to_string(block) +
                           " " + std::to_string(per_sm) + "/SM",
                       [=, &scratch](cudaStream_t s) { dynamic_launch<T, K, R>(in, n, out, block, per_sm, scratch, cnt, s); }});
  };
  using std::integral_constant;
  add(integral_constant<int, 2>{}, integral_constant<int, 1>{}, 1024, 2);
  add(integral_constant<int, 2>{}, integral_constant<int, 2>{}, 1024, 2);
  add(integral_constant<int, 2>{}, integral_constant<int, 4>{}, 1024, 2);
  add(integral_constant<int, 4>{}, integral_constant<int, 1>{}, 1024, 2);
  add(integral_constant<int, 4>{}, integral_constant<int, 1>{}, 512, 4);
  add(integral_constant<int, 4>{}, integral_constant<int, 2>{}, 512, 4);
  add(integral_constant<int, 4>{}, integral_constant<int, 2>{}, 256, 8);
  add(integral_constant<int, 4>{}, integral_constant<int, 4>{}, 256, 8);
  kernels.push_back({"07 coarse8", [&](cudaStream_t s) { ch07::launch<8, T>(in, n, out, 256, scratch, s); }});
  kernels.push_back({"cub", [&](cudaStream_t s) { ch09::launch_cub<Sum, T>(in, n, out, 0, scratch, s); }});
  std::vector<std::vector<double>> us(kernels.size());
  std::vector<bool> same(kernels.size(), true);
  for (int round = 0; round < rounds_of_all; ++round)
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      us[k].push_back(median_us<T>(kernels[k].second));
      T value{};
      CUDA_CHECK(cudaMemcpy(&value, out, sizeof(T), cudaMemcpyDeviceToHost));
      if (!matches(value, ref, tolerance(ref, n)))
        std::printf("dynamic  %-6s n=2^%-2zu %-28s WRONG\n", type_name(data_type_of<T>()), ceil_log2(n), kernels[k].first.c_str());
    }
  const std::size_t c07 = kernels.size() - 2;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    std::vector<double> ratio;
    for (int r = 0; r < rounds_of_all; ++r) ratio.push_back(us[k][r] / us[c07][r]);
    std::sort(ratio.begin(), ratio.end());
    std::vector<double> v = us[k];
    std::sort(v.begin(), v.end());
    std::printf("dynamic  %-6s n=2^%-2zu %-26s median %9.2f us  over 07 by round: min %.3f median %.3f max %.3f\n",
                type_name(data_type_of<T>()), ceil_log2(n), kernels[k].first.c_str(), v[v.size() / 2], ratio.front(),
                ratio[ratio.size() / 2], ratio.back());
  }
}

// 8. What chapter 07's coarse8 does better than fastest at 2^24 to 2^30 (issue 24): its kernel
//    changed one trait at a time. Each block reads a tile of 16 x blockDim.x elements (thread t:
//    t, t + B, ..., t + 15 B) and adds its sum to the result with atomicAdd, as 07 does.
//    kWide: 4 loads of 16 bytes instead of 16 of 4; kStride: one wave of blocks, each taking
//    tiles b, b + G, ... (G the grid) instead of one block per tile.
template <bool kWide, bool kStride>
__global__ void traits_kernel(const int* input, std::size_t n, int* result) {
  const std::size_t tile = 16 * std::size_t(blockDim.x);
  const std::size_t tiles = n / tile;  // n a multiple of the tile here
  int sum = 0;
  for (std::size_t b = blockIdx.x; b < tiles; b += kStride ? gridDim.x : tiles) {
    if constexpr (kWide) {
      const auto* v = reinterpret_cast<const int4*>(input + b * tile) + threadIdx.x;
      int4 x[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) x[k] = v[k * blockDim.x];
#pragma unroll
      for (int k = 0; k < 4; ++k) sum += x[k].x + x[k].y + x[k].z + x[k].w;
    } else {
      const int* p = input + b * tile + threadIdx.x;
      int x[16];
#pragma unroll
      for (int k = 0; k < 16; ++k) x[k] = p[k * blockDim.x];
#pragma unroll
      for (int k = 0; k < 16; ++k) sum += x[k];
    }
  }
  sum = ch09::block_reduce<Sum>(sum);
  if (threadIdx.x == 0) atomicAdd(result, sum);
}

void traits(std::size_t n) {
  const std::vector<int> data = generate_input<int>(n, 42);
  const auto ref = reference_sum(data.data(), n);
  DeviceBuffer<int> input(data), result(1);
  DeviceScratch scratch;
  using Launch = std::function<void(cudaStream_t)>;
  const int* in = input.data();
  int* out = result.data();
  auto traits_launch = [&](auto kernel, int block, bool stride) {
    return [=](cudaStream_t s) {
      CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(int), s));
      const std::size_t tiles = n / (16 * std::size_t(block));
      const int grid = stride ? ch08::resident_blocks(kernel, block, 0) : int(tiles);
      kernel<<<grid, block, 0, s>>>(in, n, out);
      CUDA_CHECK_LAUNCH();
    };
  };
  const std::vector<std::pair<std::string, Launch>> kernels = {
      {"07 coarse8 (the chapter's)", [&](cudaStream_t s) { ch07::launch<8, int>(in, n, out, 256, scratch, s); }},
      {"tile 4B b256, many blocks", traits_launch(traits_kernel<false, false>, 256, false)},
      {"tile 16B b256, many blocks", traits_launch(traits_kernel<true, false>, 256, false)},
      {"tile 4B b1024, many blocks", traits_launch(traits_kernel<false, false>, 1024, false)},
      {"tile 16B b1024, many blocks", traits_launch(traits_kernel<true, false>, 1024, false)},
      {"tile 4B b256, one wave", traits_launch(traits_kernel<false, true>, 256, true)},
      {"tile 16B b256, one wave", traits_launch(traits_kernel<true, true>, 256, true)},
      {"tile 16B b1024, one wave", traits_launch(traits_kernel<true, true>, 1024, true)},
      {"fastest", [&](cudaStream_t s) { ch09::launch_fastest<Sum, int>(in, n, out, 0, scratch, s); }},
      {"fastest kernel b256 w1", [&](cudaStream_t s) { ch09::launch_fastest_with<Sum, int, true, 4, true, false>(in, n, out, 256, 1, scratch, s); }},
  };
  constexpr int kRounds = 5;
  std::vector<std::vector<double>> us(kernels.size());
  for (int round = 0; round < kRounds; ++round)
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      us[k].push_back(median_us<int>(kernels[k].second));
      int value = 0;
      CUDA_CHECK(cudaMemcpy(&value, out, sizeof(int), cudaMemcpyDeviceToHost));
      if (!matches(value, ref, tolerance(ref, 1)))
        std::printf("traits   n=2^%-2zu %-28s WRONG\n", ceil_log2(n), kernels[k].first.c_str());
    }
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    std::vector<double> ratio;
    for (int r = 0; r < kRounds; ++r) ratio.push_back(us[k][r] / us[0][r]);
    std::sort(ratio.begin(), ratio.end());
    std::printf("traits   int n=2^%-2zu %-28s over 07 coarse8 by round: min %.3f median %.3f max %.3f\n", ceil_log2(n),
                kernels[k].first.c_str(), ratio.front(), ratio[kRounds / 2], ratio.back());
  }
}

// 9. The one trait of `traits` that mattered, for ncu and timed (issue 24): the same tile kernel
//    (16 x 1024 ints a block, 16-byte loads, one atomicAdd a block) as one block per tile, as one
//    wave of blocks taking tiles b, b + G, ... (G the grid), and as one wave whose blocks take the
//    tiles of each round in a rotated order (block b's r-th tile is r G + (b + 37 r) mod G), so
//    that no multiprocessor keeps one place in every round's stretch of memory; fastest and 07's
//    coarse8 beside them, at 2^28 ints. Each is launched twice first, for ncu (--launch-skip 5
//    --launch-count 5 takes the second), then timed in rounds.
__global__ void rotated_wave_kernel(const int* input, std::size_t n, int* result) {
  const std::size_t tile = 16 * std::size_t(blockDim.x);
  const std::size_t tiles = n / tile;  // n a multiple of the tile here
  int sum = 0;
  for (std::size_t round = 0; round * gridDim.x < tiles; ++round) {
    const std::size_t b = round * gridDim.x + (blockIdx.x + 37 * round) % gridDim.x;
    if (b >= tiles) continue;
    const auto* v = reinterpret_cast<const int4*>(input + b * tile) + threadIdx.x;
    int4 x[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) x[k] = v[k * blockDim.x];
#pragma unroll
    for (int k = 0; k < 4; ++k) sum += x[k].x + x[k].y + x[k].z + x[k].w;
  }
  sum = ch09::block_reduce<Sum>(sum);
  if (threadIdx.x == 0) atomicAdd(result, sum);
}

void schedule() {
  const std::size_t n = std::size_t(1) << 28;
  DeviceBuffer<int> input(n), result(1);
  CUDA_CHECK(cudaMemset(input.data(), 1, n * sizeof(int)));  // every int 0x01010101
  DeviceScratch scratch;
  const int block = 1024;
  const int tiles = int(n / (16 * std::size_t(block)));
  int* out = result.data();
  const int* in = input.data();
  auto tile_launch = [&](auto kernel, bool one_wave) {
    return [=](cudaStream_t s) {
      CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(int), s));
      kernel<<<one_wave ? ch08::resident_blocks(kernel, block, 0) : tiles, block, 0, s>>>(in, n, out);
      CUDA_CHECK_LAUNCH();
    };
  };
  using Launch = std::function<void(cudaStream_t)>;
  const std::vector<std::pair<std::string, Launch>> kernels = {
      {"tile, one block per tile", tile_launch(traits_kernel<true, false>, false)},
      {"tile, one wave", tile_launch(traits_kernel<true, true>, true)},
      {"tile, one wave, rotated", tile_launch(rotated_wave_kernel, true)},
      {"fastest", [&](cudaStream_t s) { ch09::launch_fastest<Sum, int>(in, n, out, 0, scratch, s); }},
      {"07 coarse8", [&](cudaStream_t s) { ch07::launch<8, int>(in, n, out, 256, scratch, s); }},
  };
  for (int pass = 0; pass < 2; ++pass)
    for (const auto& k : kernels) k.second(nullptr);  // the memsets are not kernels: 5 launches a pass
  CUDA_CHECK(cudaDeviceSynchronize());
  const int expected = int(std::uint32_t(0x01010101u) * std::uint32_t(n));  // wraps modulo 2^32
  constexpr int kRounds = 5;
  std::vector<std::vector<double>> us(kernels.size());
  for (int round = 0; round < kRounds; ++round)
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      us[k].push_back(median_us<int>(kernels[k].second));
      int value = 0;
      CUDA_CHECK(cudaMemcpy(&value, out, sizeof(int), cudaMemcpyDeviceToHost));
      if (value != expected) std::printf("schedule %-28s WRONG\n", kernels[k].first.c_str());
    }
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    std::vector<double> ratio;
    for (int r = 0; r < kRounds; ++r) ratio.push_back(us[k][r] / us[0][r]);
    std::sort(ratio.begin(), ratio.end());
    std::vector<double> v = us[k];
    std::sort(v.begin(), v.end());
    std::printf("schedule int n=2^28 %-28s median %8.2f us, over one block per tile by round: min %.3f median %.3f max %.3f\n",
                kernels[k].first.c_str(), v[kRounds / 2], ratio.front(), ratio[kRounds / 2], ratio.back());
  }
}

// The rounds of `steal`, `slots` and `versus07`: each round times every kernel once (a median of
// kReps runs) and checks its result against the reference, and its bits against its first round's.
using NamedLaunch = std::pair<std::string, std::function<void(cudaStream_t)>>;
struct Rounds {
  std::vector<std::vector<double>> us;  // us[kernel][round]
  std::vector<bool> same_bits;          // the same result, bit for bit, in every round
};

template <typename T>
Rounds time_rounds(const char* mode, const std::vector<NamedLaunch>& kernels, int rounds, const T* out,
                   const Reference<T>& ref, std::size_t n) {
  Rounds r{std::vector<std::vector<double>>(kernels.size()), std::vector<bool>(kernels.size(), true)};
  std::vector<T> first(kernels.size());
  for (int round = 0; round < rounds; ++round)
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      r.us[k].push_back(median_us<T>(kernels[k].second));
      T value{};
      CUDA_CHECK(cudaMemcpy(&value, out, sizeof(T), cudaMemcpyDeviceToHost));
      if (!matches(value, ref, tolerance(ref, n)))
        std::printf("%-8s %-6s n=2^%-2zu %-26s WRONG\n", mode, type_name(data_type_of<T>()), ceil_log2(n),
                    kernels[k].first.c_str());
      if (round == 0) first[k] = value;
      else if (std::memcmp(&value, &first[k], sizeof(T)) != 0) r.same_bits[k] = false;
    }
  return r;
}

// One line a kernel: its median time, and its time over the first kernel's (fastest) by round.
template <typename T>
void print_over_first(const char* mode, const std::vector<NamedLaunch>& kernels, const Rounds& r, std::size_t n) {
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    std::vector<double> ratio;
    for (std::size_t i = 0; i < r.us[k].size(); ++i) ratio.push_back(r.us[k][i] / r.us[0][i]);
    std::sort(ratio.begin(), ratio.end());
    std::vector<double> v = r.us[k];
    std::sort(v.begin(), v.end());
    std::printf("%-8s %-6s n=2^%-2zu %-26s median %9.2f us  over fastest by round: min %.3f median %.3f max %.3f%s\n",
                mode, type_name(data_type_of<T>()), ceil_log2(n), kernels[k].first.c_str(), v[v.size() / 2],
                ratio.front(), ratio[ratio.size() / 2], ratio.back(),
                r.same_bits[k] ? "" : "  (bits differ between rounds)");
  }
}

// 10. Balanced without 07's atomics (issue 24; `schedule` showed one wave's multiprocessors
//     finishing their equal shares at different times): one wave of blocks whose warps take chunks
//     of the input from a counter, each warp on its own, with no barrier between chunks (the next
//     chunk asked for while the current one loads). Each chunk's sum goes to its own slot and the
//     last block adds the slots in order, so the bits do not depend on which warp took which chunk.
//     A chunk is a whole number of rounds of K 16-byte loads by the 32 lanes, sized so that the
//     wave's warps have about `per_warp` chunks each.
template <typename Op, typename T, int K>
__global__ void steal_kernel(const T* input, std::size_t n, std::size_t chunk, unsigned chunks, T* slots, T* result,
                             unsigned* next_chunk, unsigned* blocks_done) {
  using Vector = typename ch09::Lanes<T, true>::Vector;
  constexpr int kCount = ch09::Lanes<T, true>::count;
  const Op op{};
  const std::size_t vectors = n / kCount;  // cudaMalloc'd input, n a multiple of kCount here
  const auto* vector = reinterpret_cast<const Vector*>(input);
  const unsigned lane = threadIdx.x % 32;
  unsigned c = 0;
  if (lane == 0) c = atomicAdd(next_chunk, 1u);
  c = __shfl_sync(0xffffffffu, c, 0);
  while (c < chunks) {
    unsigned next = 0;
    if (lane == 0) next = atomicAdd(next_chunk, 1u);  // used after this chunk: its latency hidden
    T sum = Op::template identity<T>();
    const std::size_t begin = std::size_t(c) * chunk;
    const std::size_t end = begin + chunk < vectors ? begin + chunk : vectors;
    for (std::size_t i = begin + lane; i < end; i += K * 32) {
      if (i + (K - 1) * 32 < end) {
        Vector v[K];
#pragma unroll
        for (int k = 0; k < K; ++k) v[k] = vector[i + k * 32];
#pragma unroll
        for (int k = 0; k < K; ++k)
#pragma unroll
          for (int j = 0; j < kCount; ++j) sum = op(sum, v[k].lane[j]);
      } else {
        for (int k = 0; k < K; ++k)
          if (i + k * 32 < end)
            for (int j = 0; j < kCount; ++j) sum = op(sum, vector[i + k * 32].lane[j]);
      }
    }
    sum = ch09::warp_reduce<Op>(sum);
    if (lane == 0) slots[c] = sum;
    c = __shfl_sync(0xffffffffu, next, 0);
  }
  __threadfence();  // this warp's slots are visible before its block counts as done
  __syncthreads();
  __shared__ bool last;
  if (threadIdx.x == 0) {
    last = atomicInc(blocks_done, gridDim.x - 1) == gridDim.x - 1;
    __threadfence();
    if (last) *next_chunk = 0;  // every warp has asked for its last chunk
  }
  __syncthreads();
  if (!last) return;
  const T all = ch09::block_reduce<Op>(ch09::fold_block_results<Op>(slots, chunks));
  if (threadIdx.x == 0) *result = all;
}

template <typename T, int K>
void steal_launch(const T* input, std::size_t n, T* result, int block, int per_warp, DeviceScratch& scratch,
                  unsigned* counters, cudaStream_t s) {
  const auto kernel = steal_kernel<Sum, T, K>;
  const int grid = ch08::resident_blocks(kernel, block, 0);
  const std::size_t vectors = n / ch09::Lanes<T, true>::count;
  const std::size_t warps = std::size_t(grid) * block / 32, round = 32 * K;
  const std::size_t wanted = (vectors + warps * per_warp - 1) / (warps * per_warp);
  const std::size_t chunk = std::max<std::size_t>(round, (wanted + round - 1) / round * round);
  const unsigned chunks = unsigned((vectors + chunk - 1) / chunk);
  T* slots = scratch.get_as<T>(chunks);
  kernel<<<grid, block, 0, s>>>(input, n, chunk, chunks, slots, result, counters, counters + 1);
  CUDA_CHECK_LAUNCH();
}

template <typename T>
void steal(std::size_t n, int rounds_of_all) {
  const std::vector<T> data = generate_input<T>(n, 42);
  const auto ref = reference_sum(data.data(), n);
  DeviceBuffer<T> input(data), result(1);
  DeviceScratch scratch;
  DeviceBuffer<unsigned> counters(2);
  CUDA_CHECK(cudaMemset(counters.data(), 0, 2 * sizeof(unsigned)));
  const T* in = input.data();
  T* out = result.data();
  unsigned* cnt = counters.data();
  std::vector<NamedLaunch> kernels = {
      {"fastest", [&](cudaStream_t s) { ch09::launch_fastest<Sum, T>(in, n, out, 0, scratch, s); }}};
  auto add = [&](auto k, int block, int per_warp) {
    constexpr int K = decltype(k)::value;
    kernels.push_back({"steal x" + std::to_string(K) + " b" + std::to_string(block) + " " + std::to_string(per_warp) +
                           "/warp",
                       [=, &scratch](cudaStream_t s) { steal_launch<T, K>(in, n, out, block, per_warp, scratch, cnt, s); }});
  };
  using std::integral_constant;
  add(integral_constant<int, 4>{}, 1024, 2);
  add(integral_constant<int, 4>{}, 1024, 4);
  add(integral_constant<int, 4>{}, 1024, 8);
  add(integral_constant<int, 4>{}, 256, 4);
  add(integral_constant<int, 2>{}, 1024, 4);
  kernels.push_back({"07 coarse8", [&](cudaStream_t s) { ch07::launch<8, T>(in, n, out, 256, scratch, s); }});
  kernels.push_back({"07 coarse16", [&](cudaStream_t s) { ch07::launch<16, T>(in, n, out, 256, scratch, s); }});
  kernels.push_back({"cub", [&](cudaStream_t s) { ch09::launch_cub<Sum, T>(in, n, out, 0, scratch, s); }});
  const Rounds r = time_rounds("steal", kernels, rounds_of_all, out, ref, n);
  print_over_first<T>("steal", kernels, r, n);
}

// 11. Many blocks and the same bits, without a fence a block (issue 24): one block per tile of K
//     16-byte loads by each of its threads, each block storing its total in its own slot (no fence,
//     no atomic), then a second launch of one block that adds the slots in order. With Hopper's
//     programmatic dependent launch (`pdl`) the second launch is set up while the first runs: every
//     block of the first lets it start (cudaTriggerProgrammaticLaunchCompletion), and the second
//     waits in cudaGridDependencySynchronize until the first has finished and its stores are visible.
template <typename Op, typename T, int K>
__global__ void slot_tile_kernel(const T* input, std::size_t n, T* slots) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();  // no effect without the launch attribute
#endif
  using Vector = typename ch09::Lanes<T, true>::Vector;
  constexpr int kCount = ch09::Lanes<T, true>::count;
  const std::size_t vectors = n / kCount;  // cudaMalloc'd input, n a multiple of kCount here
  const auto* vector = reinterpret_cast<const Vector*>(input);
  const std::size_t base = std::size_t(blockIdx.x) * K * blockDim.x + threadIdx.x;
  const T sum = add_round<Op, T, K>(vector, base, vectors, Op::template identity<T>());
  const T total = ch09::block_reduce<Op>(sum);
  if (threadIdx.x == 0) slots[blockIdx.x] = total;
}

template <typename Op, typename T>
__global__ void fold_slots_kernel(const T* slots, unsigned count, T* result) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();  // the first launch has finished, its slots visible
#endif
  const T all = ch09::block_reduce<Op>(ch09::fold_block_results<Op>(slots, count));
  if (threadIdx.x == 0) *result = all;
}

// One block of `block` threads running `kernel` after what `s` runs before it: with `pdl`, as a
// programmatic dependent launch (set up while the launch before runs; the kernel waits in
// cudaGridDependencySynchronize), else as a plain launch.
template <typename... Params, typename... Args>
void fold_launch(void (*kernel)(Params...), int block, bool pdl, cudaStream_t s, Args... args) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(1);
  config.blockDim = dim3(unsigned(block));
  config.stream = s;
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute[0].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = attribute;
  config.numAttrs = pdl ? 1 : 0;
  CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, args...));
}

template <typename T, int K>
void slot_launch(const T* input, std::size_t n, T* result, int block, bool pdl, DeviceScratch& scratch, cudaStream_t s) {
  const std::size_t tile = std::size_t(K) * block * ch09::Lanes<T, true>::count;
  const unsigned blocks = unsigned((n + tile - 1) / tile);
  T* slots = scratch.get_as<T>(blocks);
  slot_tile_kernel<Sum, T, K><<<blocks, block, 0, s>>>(input, n, slots);
  CUDA_CHECK_LAUNCH();
  fold_launch(fold_slots_kernel<Sum, T>, 1024, pdl, s, static_cast<const T*>(slots), blocks, result);
}

template <typename T>
void slots(std::size_t n, int rounds_of_all) {
  const std::vector<T> data = generate_input<T>(n, 42);
  const auto ref = reference_sum(data.data(), n);
  DeviceBuffer<T> input(data), result(1);
  DeviceScratch scratch;
  DeviceBuffer<unsigned> counter(1);
  CUDA_CHECK(cudaMemset(counter.data(), 0, sizeof(unsigned)));
  const T* in = input.data();
  T* out = result.data();
  unsigned* cnt = counter.data();
  std::vector<NamedLaunch> kernels = {
      {"fastest", [&](cudaStream_t s) { ch09::launch_fastest<Sum, T>(in, n, out, 0, scratch, s); }},
      {"slots 64K, two launches", [&](cudaStream_t s) { slot_launch<T, 4>(in, n, out, 1024, false, scratch, s); }},
      {"slots 64K, pdl", [&](cudaStream_t s) { slot_launch<T, 4>(in, n, out, 1024, true, scratch, s); }},
      {"slots 32K, pdl", [&](cudaStream_t s) { slot_launch<T, 2>(in, n, out, 1024, true, scratch, s); }},
      {"slots 16K b256, pdl", [&](cudaStream_t s) { slot_launch<T, 4>(in, n, out, 256, true, scratch, s); }},
      {"slots 128K, pdl", [&](cudaStream_t s) { slot_launch<T, 8>(in, n, out, 1024, true, scratch, s); }},
      {"one pass 64K, fence", [&](cudaStream_t s) {
         const std::size_t tile = std::size_t(4) * 1024 * ch09::Lanes<T, true>::count;
         const unsigned blocks = unsigned((n + tile - 1) / tile);
         tiled_kernel<Sum, T, 4, 0><<<blocks, 1024, 0, s>>>(in, n, 1, scratch.get_as<T>(blocks), out, cnt);
         CUDA_CHECK_LAUNCH();
       }},
      {"07 coarse8", [&](cudaStream_t s) { ch07::launch<8, T>(in, n, out, 256, scratch, s); }},
      {"07 coarse16", [&](cudaStream_t s) { ch07::launch<16, T>(in, n, out, 256, scratch, s); }},
      {"cub", [&](cudaStream_t s) { ch09::launch_cub<Sum, T>(in, n, out, 0, scratch, s); }},
  };
  const Rounds r = time_rounds("slots", kernels, rounds_of_all, out, ref, n);
  print_over_first<T>("slots", kernels, r, n);
}

// 12. fastest against every factor of chapter 07 (issue 24's comparison), in rounds: each round
//     times every kernel once (a median of 20 runs), and a row gives fastest's time over the best
//     07 factor's in the same round, and fastest's own spread over the rounds (the noise).
template <typename T>
void versus07(std::size_t n, int rounds_of_all) {
  const std::vector<T> data = generate_input<T>(n, 42);
  const auto ref = reference_sum(data.data(), n);
  DeviceBuffer<T> input(data), result(1);
  DeviceScratch scratch;
  const T* in = input.data();
  T* out = result.data();
  const std::vector<NamedLaunch> kernels = {
      {"fastest", [&](cudaStream_t s) { ch09::launch_fastest<Sum, T>(in, n, out, 0, scratch, s); }},
      {"07 coarse2", [&](cudaStream_t s) { ch07::launch<2, T>(in, n, out, 256, scratch, s); }},
      {"07 coarse4", [&](cudaStream_t s) { ch07::launch<4, T>(in, n, out, 256, scratch, s); }},
      {"07 coarse8", [&](cudaStream_t s) { ch07::launch<8, T>(in, n, out, 256, scratch, s); }},
      {"07 coarse16", [&](cudaStream_t s) { ch07::launch<16, T>(in, n, out, 256, scratch, s); }},
      {"07 coarse32", [&](cudaStream_t s) { ch07::launch<32, T>(in, n, out, 256, scratch, s); }},
  };
  const Rounds r = time_rounds("versus07", kernels, rounds_of_all, out, ref, n);
  std::vector<double> ratio;  // fastest over the best 07 factor of the same round
  for (int i = 0; i < rounds_of_all; ++i) {
    double best = r.us[1][i];
    for (std::size_t k = 2; k < kernels.size(); ++k) best = std::min(best, r.us[k][i]);
    ratio.push_back(r.us[0][i] / best);
  }
  std::vector<double> f = r.us[0];
  std::sort(ratio.begin(), ratio.end());
  std::sort(f.begin(), f.end());
  std::printf("versus07 %-6s n=2^%-2zu fastest %9.2f us (rounds %.2f to %.2f: spread %.1f %%); fastest / best 07 by round: min %.3f median %.3f max %.3f;",
              type_name(data_type_of<T>()), ceil_log2(n), f[f.size() / 2], f.front(), f.back(),
              100 * (f.back() - f.front()) / f.front(), ratio.front(), ratio[ratio.size() / 2], ratio.back());
  for (std::size_t k = 1; k < kernels.size(); ++k) {
    std::vector<double> v = r.us[k];
    std::sort(v.begin(), v.end());
    std::printf(" %s %.2f", kernels[k].first.c_str() + 3, v[v.size() / 2]);
  }
  std::printf("\n");
}

// Adds 07's factors 4, 8 and 16 and cub to `kernels`, times them all in rounds, and prints one line
// a kernel: its median time, its spread over the rounds, and its time over the best of the three
// 07 factors in the same round (`tail` and `folds`).
template <typename T>
void time_against_07(const char* mode, std::vector<NamedLaunch> kernels, int rounds_of_all, const T* in, T* out,
                     const Reference<T>& ref, std::size_t n, DeviceScratch& scratch) {
  const std::size_t first07 = kernels.size();
  kernels.push_back({"07 coarse4", [=, &scratch](cudaStream_t s) { ch07::launch<4, T>(in, n, out, 256, scratch, s); }});
  kernels.push_back({"07 coarse8", [=, &scratch](cudaStream_t s) { ch07::launch<8, T>(in, n, out, 256, scratch, s); }});
  kernels.push_back({"07 coarse16", [=, &scratch](cudaStream_t s) { ch07::launch<16, T>(in, n, out, 256, scratch, s); }});
  kernels.push_back({"cub", [=, &scratch](cudaStream_t s) { ch09::launch_cub<Sum, T>(in, n, out, 0, scratch, s); }});
  const Rounds r = time_rounds(mode, kernels, rounds_of_all, out, ref, n);
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    std::vector<double> ratio;  // over the best 07 factor of the same round
    for (int i = 0; i < rounds_of_all; ++i) {
      double best = r.us[first07][i];
      for (std::size_t j = first07 + 1; j < first07 + 3; ++j) best = std::min(best, r.us[j][i]);
      ratio.push_back(r.us[k][i] / best);
    }
    std::sort(ratio.begin(), ratio.end());
    std::vector<double> v = r.us[k];
    std::sort(v.begin(), v.end());
    std::printf("%s %-6s n=2^%-2zu %-24s median %9.2f us (spread %.1f %%) over best 07 by round: min %.3f median %.3f max %.3f%s\n",
                mode, type_name(data_type_of<T>()), ceil_log2(n), kernels[k].first.c_str(), v[v.size() / 2],
                100 * (v.back() - v.front()) / v.front(), ratio.front(), ratio[ratio.size() / 2], ratio.back(),
                r.same_bits[k] ? "" : "  (bits differ)");
  }
}

// 13. What is left between the tile path and chapter 07 (issue 24): the fold's cost (one block
//     over the slots, timed alone on slots a tile launch filled), tiles of other sizes and blocks,
//     a fold that reads the slots 16 bytes at a time, and for ints one atomicAdd a tile (exact in
//     any order) instead of slot and fold; each against 07's best factors, in rounds.
template <typename Op, typename T>
__global__ void wide_fold_kernel(const T* slots, unsigned count, T* result) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
  using Vector = typename ch09::Lanes<T, true>::Vector;
  constexpr int kCount = ch09::Lanes<T, true>::count, kInFlight = 4;
  const Op op{};
  const unsigned vectors = count / kCount;
  const auto* v = reinterpret_cast<const int4*>(slots);  // scratch from cudaMalloc: 16-byte aligned
  T sum = Op::template identity<T>();
  for (unsigned b = threadIdx.x; b < vectors; b += kInFlight * blockDim.x) {
    Vector r[kInFlight];
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) {
      const unsigned at = b + k * blockDim.x;
      const int4 raw = __ldcg(v + (at < vectors ? at : b));
      std::memcpy(&r[k], &raw, sizeof(raw));
    }
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) {
      const bool in_range = b + k * blockDim.x < vectors;
#pragma unroll
      for (int j = 0; j < kCount; ++j) sum = op(sum, in_range ? r[k].lane[j] : Op::template identity<T>());
    }
  }
  if (threadIdx.x < count - vectors * kCount) sum = op(sum, __ldcg(slots + vectors * kCount + threadIdx.x));
  const T all = ch09::block_reduce<Op>(sum);
  if (threadIdx.x == 0) *result = all;
}

template <typename T, int K>
__global__ void atomic_tile_kernel(const T* input, std::size_t n, T* result) {
  using Vector = typename ch09::Lanes<T, true>::Vector;
  const std::size_t vectors = n / ch09::Lanes<T, true>::count;  // n a multiple of the lanes here
  const std::size_t base = std::size_t(blockIdx.x) * K * blockDim.x + threadIdx.x;
  const T sum = add_round<Sum, T, K>(reinterpret_cast<const Vector*>(input), base, vectors, T(0));
  const T total = ch09::block_reduce<Sum>(sum);
  if (threadIdx.x == 0) atomicAdd(result, total);
}

template <typename T, int K, bool kWideFold>
void tail_launch(const T* input, std::size_t n, T* result, int block, bool fold, DeviceScratch& scratch, cudaStream_t s) {
  const std::size_t tile = std::size_t(K) * block * ch09::Lanes<T, true>::count;
  const unsigned blocks = unsigned((n + tile - 1) / tile);
  T* slots = scratch.get_as<T>(blocks);
  slot_tile_kernel<Sum, T, K><<<blocks, block, 0, s>>>(input, n, slots);
  CUDA_CHECK_LAUNCH();
  if (!fold) return;
  if constexpr (kWideFold)
    fold_launch(wide_fold_kernel<Sum, T>, 1024, true, s, static_cast<const T*>(slots), blocks, result);
  else
    fold_launch(fold_slots_kernel<Sum, T>, 1024, true, s, static_cast<const T*>(slots), blocks, result);
}

template <typename T, bool kWide>
void fold_alone(const T* slots, unsigned count, T* result, cudaStream_t s) {
  if constexpr (kWide) wide_fold_kernel<Sum, T><<<1, 1024, 0, s>>>(slots, count, result);
  else fold_slots_kernel<Sum, T><<<1, 1024, 0, s>>>(slots, count, result);
  CUDA_CHECK_LAUNCH();
}

template <typename T>
void tail(std::size_t n, int rounds_of_all) {
  const std::vector<T> data = generate_input<T>(n, 42);
  const auto ref = reference_sum(data.data(), n);
  DeviceBuffer<T> input(data), result(1);
  DeviceScratch scratch;
  const T* in = input.data();
  T* out = result.data();
  const unsigned count = ch09::Lanes<T, true>::count;
  const unsigned slots64 = unsigned((n + 4096 * count - 1) / (4096 * count));
  std::vector<NamedLaunch> kernels = {
      {"fastest", [&](cudaStream_t s) { ch09::launch_fastest<Sum, T>(in, n, out, 0, scratch, s); }},
      {"tiles 64K b1024", [&](cudaStream_t s) { tail_launch<T, 4, false>(in, n, out, 1024, true, scratch, s); }},
      // the same tiles with no fold: out keeps the previous kernel's result
      {"tiles 64K, no fold", [&](cudaStream_t s) { tail_launch<T, 4, false>(in, n, out, 1024, false, scratch, s); }},
      {"fold alone, 64K slots", [&](cudaStream_t s) { fold_alone<T, false>(scratch.get_as<T>(slots64), slots64, out, s); }},
      {"wide fold alone, 64K", [&](cudaStream_t s) { fold_alone<T, true>(scratch.get_as<T>(slots64), slots64, out, s); }},
      {"tiles 64K, wide fold", [&](cudaStream_t s) { tail_launch<T, 4, true>(in, n, out, 1024, true, scratch, s); }},
      {"tiles 32K b512", [&](cudaStream_t s) { tail_launch<T, 4, false>(in, n, out, 512, true, scratch, s); }},
      {"tiles 32K b512, wide", [&](cudaStream_t s) { tail_launch<T, 4, true>(in, n, out, 512, true, scratch, s); }},
      {"tiles 16K b256, wide", [&](cudaStream_t s) { tail_launch<T, 4, true>(in, n, out, 256, true, scratch, s); }},
      {"tiles 32K b256 x8, wide", [&](cudaStream_t s) { tail_launch<T, 8, true>(in, n, out, 256, true, scratch, s); }},
      {"tiles 64K b512 x8, wide", [&](cudaStream_t s) { tail_launch<T, 8, true>(in, n, out, 512, true, scratch, s); }},
  };
  if constexpr (std::is_same_v<T, int>) {
    kernels.push_back({"atomic tiles 64K", [&](cudaStream_t s) {
                         CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(T), s));
                         atomic_tile_kernel<T, 4><<<unsigned(n / (4096 * count)), 1024, 0, s>>>(in, n, out);
                         CUDA_CHECK_LAUNCH();
                       }});
    kernels.push_back({"atomic tiles 16K b256", [&](cudaStream_t s) {
                         CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(T), s));
                         atomic_tile_kernel<T, 4><<<unsigned(n / (1024 * count)), 256, 0, s>>>(in, n, out);
                         CUDA_CHECK_LAUNCH();
                       }});
  }
  time_against_07("tail", kernels, rounds_of_all, in, out, ref, n, scratch);
}

// 14. The tile path's fold, in the production kernels (issue 24, after `tail`): fastest_kernel's
//     tiles of one or two rounds, then one block that adds the slots with one value a load
//     (kFoldInFlight 0: fold_block_results, as fastest had it) or 16 bytes a load with
//     kFoldInFlight loads in flight (wide_partial, as fold_kernel has it now); against 07 and cub.
template <typename Op, typename T, int kFoldInFlight>
__global__ void fold_variant_kernel(const T* slots, unsigned count, T* result) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
  T sum;
  if constexpr (kFoldInFlight == 0) sum = ch09::fold_block_results<Op>(slots, count);
  else sum = ch09::wide_partial<Op, T, true, kFoldInFlight, false>(slots, count);
  const T all = ch09::block_reduce<Op>(sum);
  if (threadIdx.x == 0) *result = all;
}

template <typename T, int kRounds, int kFoldInFlight>
void folds_launch(const T* input, std::size_t n, T* result, bool fold, DeviceScratch& scratch, cudaStream_t s,
                  int fold_block = 1024) {
  const std::size_t tile = std::size_t(kRounds) * 1024 * 4 * ch09::Lanes<T, true>::count;
  const unsigned blocks = unsigned((n + tile - 1) / tile);
  T* slots = scratch.get_as<T>(blocks);
  ch09::fastest_kernel<Sum, T, true, 4, false, true><<<blocks, 1024, 0, s>>>(input, n, slots, nullptr, nullptr);
  CUDA_CHECK_LAUNCH();
  if (!fold) return;
  fold_launch(fold_variant_kernel<Sum, T, kFoldInFlight>, fold_block, true, s, static_cast<const T*>(slots), blocks,
              result);
}

// Ints only (exact in any order): one atomicAdd a tile into the result, which a first launch of
// one thread sets to zero; the tiles are a programmatic dependent launch of it, each block waiting
// (cudaGridDependencySynchronize) only before its atomic, by when the first launch is long done.
template <typename T>
__global__ void zero_kernel(T* result) { *result = T(0); }

template <typename T>
__global__ void atomic_tiles_kernel(const T* input, std::size_t n, T* result) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
  const T total = ch09::block_reduce<Sum>(ch09::wide_partial<Sum, T, true, 4, true>(input, n));
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
  if (threadIdx.x == 0) atomicAdd(result, total);
}

template <typename T>
void atomic_tiles_launch(const T* input, std::size_t n, T* result, bool pdl, cudaStream_t s) {
  const std::size_t tile = std::size_t(1024) * 4 * ch09::Lanes<T, true>::count;
  const unsigned blocks = unsigned((n + tile - 1) / tile);
  if (pdl) {
    zero_kernel<T><<<1, 1, 0, s>>>(result);
    CUDA_CHECK_LAUNCH();
  } else {
    CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(T), s));
  }
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(1024);
  config.stream = s;
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute[0].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = attribute;
  config.numAttrs = pdl ? 1 : 0;
  CUDA_CHECK(cudaLaunchKernelEx(&config, atomic_tiles_kernel<T>, input, n, result));
}

// 15. A fold that does not wait for the whole first grid (issue 24, after `folds`): each tile's
//     result goes out with a tag, the launch's number, in the same 8-byte stores (one a 4-byte
//     half of the value: one for int and float, two for double), and the fold, a dependent
//     launch that starts once every tile block has started, reads each slot until its tags are
//     this launch's. An aligned 8-byte store is seen whole or not at all, so a slot whose tag is
//     right holds the right value. The slots are a buffer of their own, zeroed once, and the tag
//     counts launches from 1.
using TagWord = unsigned long long;
template <typename T>
constexpr int kTagWords = int(sizeof(T) / 4);

__device__ __forceinline__ TagWord load_tag_word(const TagWord* word) {
  return cuda::atomic_ref<TagWord, cuda::thread_scope_device>(*const_cast<TagWord*>(word))
      .load(cuda::memory_order_relaxed);
}

template <typename T>
__global__ void tagged_tile_kernel(const T* input, std::size_t n, TagWord* words, unsigned tag) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
  const T total = ch09::block_reduce<Sum>(ch09::wide_partial<Sum, T, true, 4, true>(input, n));
  if (threadIdx.x == 0) {
    unsigned bits[kTagWords<T>];
    std::memcpy(bits, &total, sizeof(T));
#pragma unroll
    for (int j = 0; j < kTagWords<T>; ++j)
      cuda::atomic_ref<TagWord, cuda::thread_scope_device>(words[std::size_t(blockIdx.x) * kTagWords<T> + j])
          .store(TagWord(tag) << 32 | bits[j], cuda::memory_order_relaxed);
  }
}

template <typename T, int kInFlight>
__global__ void tagged_fold_kernel(const TagWord* words, unsigned count, unsigned tag, T* result) {
  constexpr int K = kTagWords<T>;
  T sum = T(0);
  for (unsigned b = threadIdx.x; b < count; b += kInFlight * blockDim.x) {
    TagWord w[kInFlight][K];
#pragma unroll
    for (int k = 0; k < kInFlight; ++k)
#pragma unroll
      for (int j = 0; j < K; ++j) {
        const unsigned at = b + k * blockDim.x;
        w[k][j] = at < count ? load_tag_word(words + std::size_t(at) * K + j) : TagWord(tag) << 32;
      }
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) {
      const unsigned at = b + k * blockDim.x;
#pragma unroll
      for (int j = 0; j < K; ++j)
        while (unsigned(w[k][j] >> 32) != tag) w[k][j] = load_tag_word(words + std::size_t(at) * K + j);
      unsigned bits[K];
#pragma unroll
      for (int j = 0; j < K; ++j) bits[j] = unsigned(w[k][j]);
      T v;
      std::memcpy(&v, bits, sizeof(T));
      sum = Sum{}(sum, v);
    }
  }
  const T all = ch09::block_reduce<Sum>(sum);
  if (threadIdx.x == 0) *result = all;
}

template <typename T, int kInFlight>
void tagged_launch(const T* input, std::size_t n, T* result, TagWord* words, unsigned& tag, cudaStream_t s) {
  const std::size_t tile = std::size_t(1024) * 4 * ch09::Lanes<T, true>::count;
  const unsigned blocks = unsigned((n + tile - 1) / tile);
  if (++tag == 0) ++tag;  // 0 is the zeroed buffer's tag
  tagged_tile_kernel<T><<<blocks, 1024, 0, s>>>(input, n, words, tag);
  CUDA_CHECK_LAUNCH();
  fold_launch(tagged_fold_kernel<T, kInFlight>, 1024, true, s, static_cast<const TagWord*>(words), blocks, tag, result);
}

template <typename T>
void tagged(std::size_t n, int rounds_of_all) {
  const std::vector<T> data = generate_input<T>(n, 42);
  const auto ref = reference_sum(data.data(), n);
  DeviceBuffer<T> input(data), result(1);
  DeviceScratch scratch;
  const T* in = input.data();
  T* out = result.data();
  const std::size_t tiles = (n + 4096 * ch09::Lanes<T, true>::count - 1) / (4096 * ch09::Lanes<T, true>::count);
  DeviceBuffer<TagWord> words(tiles * kTagWords<T>);
  CUDA_CHECK(cudaMemset(words.data(), 0, tiles * kTagWords<T> * sizeof(TagWord)));
  TagWord* w = words.data();
  unsigned tag = 0;
  std::vector<NamedLaunch> kernels = {
      {"fastest", [&](cudaStream_t s) { ch09::launch_fastest<Sum, T>(in, n, out, 0, scratch, s); }},
      {"64K, no fold", [&](cudaStream_t s) { folds_launch<T, 1, 4>(in, n, out, false, scratch, s); }},
      {"64K tagged, fold x4", [&](cudaStream_t s) { tagged_launch<T, 4>(in, n, out, w, tag, s); }},
      {"64K tagged, fold x8", [&](cudaStream_t s) { tagged_launch<T, 8>(in, n, out, w, tag, s); }},
  };
  time_against_07("tagged", kernels, rounds_of_all, in, out, ref, n, scratch);
}

// 16. Where the fold's time goes (issue 24): after the tiles, a second launch of one block of 1024
//     threads that does only part of the fold: nothing (an empty kernel, plain or dependent
//     launch), only the wait (cudaGridDependencySynchronize), the wait and the loads of the slots
//     (each thread stores its sum to a scratch word, so the loads stay), or everything (the
//     result). Only the last writes the result: the others leave the previous kernel's there.
template <typename T, int kPart>
__global__ void fold_part_kernel(const T* slots, unsigned count, T* result, T* sink) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (kPart >= 1) cudaGridDependencySynchronize();
#endif
  if constexpr (kPart >= 2) {
    const T sum = ch09::wide_partial<Sum, T, true, 4, false>(slots, count);
    if constexpr (kPart == 2) {
      sink[threadIdx.x] = sum;
    } else {
      const T all = ch09::block_reduce<Sum>(sum);
      if (threadIdx.x == 0) *result = all;
    }
  }
}

template <typename T, int kPart>
void fold_part_launch(const T* input, std::size_t n, T* result, T* sink, bool pdl, DeviceScratch& scratch,
                      cudaStream_t s) {
  const std::size_t tile = std::size_t(1024) * 4 * ch09::Lanes<T, true>::count;
  const unsigned blocks = unsigned((n + tile - 1) / tile);
  T* slots = scratch.get_as<T>(blocks);
  ch09::fastest_kernel<Sum, T, true, 4, false, true><<<blocks, 1024, 0, s>>>(input, n, slots, nullptr, nullptr);
  CUDA_CHECK_LAUNCH();
  fold_launch(fold_part_kernel<T, kPart>, 1024, pdl, s, static_cast<const T*>(slots), blocks, result, sink);
}

// The fold over a cluster of kBlocks blocks (Hopper): the blocks read the slots together
// (wide_partial's grid-stride layout over the cluster's grid), each adds its share with its tree,
// and block 0 adds the kBlocks totals in order through the others' shared memory. The same bits
// on every run; launched with a cluster dimension and as a dependent launch.
template <typename T, int kBlocks>
__global__ void cluster_fold_kernel(const T* slots, unsigned count, T* result) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  cudaGridDependencySynchronize();
  __shared__ T share;
  const T total = ch09::block_reduce<Sum>(ch09::wide_partial<Sum, T, true, 4, false>(slots, count));
  if (threadIdx.x == 0) share = total;
  cg::cluster_group cluster = cg::this_cluster();
  cluster.sync();
  if (cluster.block_rank() == 0 && threadIdx.x == 0) {
    T all = T(0);
    for (int r = 0; r < kBlocks; ++r) all = Sum{}(all, *cluster.map_shared_rank(&share, r));
    *result = all;
  }
  cluster.sync();  // the others' shared memory stays until block 0 has read it
#endif
}

template <typename T, int kBlocks>
void cluster_fold_launch(const T* input, std::size_t n, T* result, DeviceScratch& scratch, cudaStream_t s) {
  const std::size_t tile = std::size_t(1024) * 4 * ch09::Lanes<T, true>::count;
  const unsigned blocks = unsigned((n + tile - 1) / tile);
  T* slots = scratch.get_as<T>(blocks);
  ch09::fastest_kernel<Sum, T, true, 4, false, true><<<blocks, 1024, 0, s>>>(input, n, slots, nullptr, nullptr);
  CUDA_CHECK_LAUNCH();
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(kBlocks);
  config.blockDim = dim3(1024);
  config.stream = s;
  cudaLaunchAttribute attribute[2];
  attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute[0].val.programmaticStreamSerializationAllowed = 1;
  attribute[1].id = cudaLaunchAttributeClusterDimension;
  attribute[1].val.clusterDim.x = kBlocks;
  attribute[1].val.clusterDim.y = 1;
  attribute[1].val.clusterDim.z = 1;
  config.attrs = attribute;
  config.numAttrs = 2;
  CUDA_CHECK(cudaLaunchKernelEx(&config, cluster_fold_kernel<T, kBlocks>, static_cast<const T*>(slots), blocks, result));
}

template <typename T>
void foldparts(std::size_t n, int rounds_of_all) {
  const std::vector<T> data = generate_input<T>(n, 42);
  const auto ref = reference_sum(data.data(), n);
  DeviceBuffer<T> input(data), result(1), sink(1024);
  DeviceScratch scratch;
  const T* in = input.data();
  T* out = result.data();
  T* sk = sink.data();
  std::vector<NamedLaunch> kernels = {
      {"fastest", [&](cudaStream_t s) { ch09::launch_fastest<Sum, T>(in, n, out, 0, scratch, s); }},
      {"64K, no fold", [&](cudaStream_t s) { folds_launch<T, 1, 4>(in, n, out, false, scratch, s); }},
      {"empty, plain launch", [&](cudaStream_t s) { fold_part_launch<T, 0>(in, n, out, sk, false, scratch, s); }},
      {"empty, dependent", [&](cudaStream_t s) { fold_part_launch<T, 0>(in, n, out, sk, true, scratch, s); }},
      {"wait only", [&](cudaStream_t s) { fold_part_launch<T, 1>(in, n, out, sk, true, scratch, s); }},
      {"wait and loads", [&](cudaStream_t s) { fold_part_launch<T, 2>(in, n, out, sk, true, scratch, s); }},
      {"whole fold", [&](cudaStream_t s) { fold_part_launch<T, 3>(in, n, out, sk, true, scratch, s); }},
      {"cluster of 2", [&](cudaStream_t s) { cluster_fold_launch<T, 2>(in, n, out, scratch, s); }},
      {"cluster of 4", [&](cudaStream_t s) { cluster_fold_launch<T, 4>(in, n, out, scratch, s); }},
      {"cluster of 8", [&](cudaStream_t s) { cluster_fold_launch<T, 8>(in, n, out, scratch, s); }},
  };
  time_against_07("foldparts", kernels, rounds_of_all, in, out, ref, n, scratch);
}

template <typename T>
void folds(std::size_t n, int rounds_of_all) {
  const std::vector<T> data = generate_input<T>(n, 42);
  const auto ref = reference_sum(data.data(), n);
  DeviceBuffer<T> input(data), result(1);
  DeviceScratch scratch;
  const T* in = input.data();
  T* out = result.data();
  std::vector<NamedLaunch> kernels = {
      {"fastest", [&](cudaStream_t s) { ch09::launch_fastest<Sum, T>(in, n, out, 0, scratch, s); }},
      {"64K, fold one a load", [&](cudaStream_t s) { folds_launch<T, 1, 0>(in, n, out, true, scratch, s); }},
      {"64K, wide fold x4", [&](cudaStream_t s) { folds_launch<T, 1, 4>(in, n, out, true, scratch, s); }},
      {"64K, wide fold x8", [&](cudaStream_t s) { folds_launch<T, 1, 8>(in, n, out, true, scratch, s); }},
      {"64K, no fold", [&](cudaStream_t s) { folds_launch<T, 1, 4>(in, n, out, false, scratch, s); }},
      {"128K, fold one a load", [&](cudaStream_t s) { folds_launch<T, 2, 0>(in, n, out, true, scratch, s); }},
      {"128K, wide fold x4", [&](cudaStream_t s) { folds_launch<T, 2, 4>(in, n, out, true, scratch, s); }},
      {"64K, wide x4, fold b256", [&](cudaStream_t s) { folds_launch<T, 1, 4>(in, n, out, true, scratch, s, 256); }},
  };
  if constexpr (std::is_same_v<T, int>) {
    kernels.push_back({"64K atomic, memset", [&](cudaStream_t s) { atomic_tiles_launch<T>(in, n, out, false, s); }});
    kernels.push_back({"64K atomic, pdl zero", [&](cudaStream_t s) { atomic_tiles_launch<T>(in, n, out, true, s); }});
  }
  time_against_07("folds", kernels, rounds_of_all, in, out, ref, n, scratch);
}

// 17. Where the fold finds the slots (issue 24, after `foldparts`): the slots' loads took longer the
//     more bytes they were (0.4 us for 4 KiB, 2.7 us for 256 KiB), as if they came from DRAM. A slot
//     stored early in the run is pushed out of L2 by the input streaming past it (1 GiB through
//     50 MB). Whole tiles of 64 KiB (n a multiple of the tile) whose loads of the input are marked
//     evict-first (__ldcs) and/or whose slot stores are marked evict-last (an L2 cache-hint
//     policy), then the fold of `folds` with 1024 threads or with just enough threads for one round
//     of its loads (fold block 0: sized).
template <bool kKeep, typename T>
__device__ void store_slot(T* slot, T value) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (kKeep && sizeof(T) == 4) {
    unsigned bits;
    std::memcpy(&bits, &value, 4);
    asm volatile("{\n\t.reg .b64 p;\n\tcreatepolicy.fractional.L2::evict_last.b64 p, 1.0;\n\t"
                 "st.global.L2::cache_hint.b32 [%0], %1, p;\n\t}" ::"l"(slot), "r"(bits) : "memory");
    return;
  } else if constexpr (kKeep && sizeof(T) == 8) {
    unsigned long long bits;
    std::memcpy(&bits, &value, 8);
    asm volatile("{\n\t.reg .b64 p;\n\tcreatepolicy.fractional.L2::evict_last.b64 p, 1.0;\n\t"
                 "st.global.L2::cache_hint.b64 [%0], %1, p;\n\t}" ::"l"(slot), "l"(bits) : "memory");
    return;
  }
#endif
  *slot = value;
}

template <typename T, bool kStream, bool kKeep>
__global__ void keep_tile_kernel(const T* input, T* slots) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
  constexpr int kCount = ch09::Lanes<T, true>::count, kInFlight = 4;
  const int4* v =
      reinterpret_cast<const int4*>(input) + std::size_t(blockIdx.x) * blockDim.x * kInFlight + threadIdx.x;
  int4 r[kInFlight];
#pragma unroll
  for (int k = 0; k < kInFlight; ++k) r[k] = kStream ? __ldcs(v + k * blockDim.x) : v[k * blockDim.x];
  T sum = T(0);
#pragma unroll
  for (int k = 0; k < kInFlight; ++k) {
    T lane[kCount];
    std::memcpy(lane, &r[k], 16);
#pragma unroll
    for (int j = 0; j < kCount; ++j) sum += lane[j];
  }
  const T total = ch09::block_reduce<Sum>(sum);
  if (threadIdx.x == 0) store_slot<kKeep>(slots + blockIdx.x, total);
}

// Threads for one round of the fold's loads over `count` slots (4 loads of 16 bytes a thread),
// a whole number of warps, at most 1024.
template <typename T>
int one_round_fold_block(unsigned count) {
  const unsigned per_thread = 4 * ch09::Lanes<T, true>::count;
  const unsigned threads = (count + per_thread - 1) / per_thread;
  return int(std::min(1024u, std::max(32u, (threads + 31) / 32 * 32)));
}

template <typename T, bool kStream, bool kKeep>
void keep_launch(const T* input, std::size_t n, T* result, bool fold, int fold_block, DeviceScratch& scratch,
                 cudaStream_t s) {
  const std::size_t tile = std::size_t(1024) * 4 * ch09::Lanes<T, true>::count;
  const unsigned blocks = unsigned(n / tile);
  T* slots = scratch.get_as<T>(blocks);
  keep_tile_kernel<T, kStream, kKeep><<<blocks, 1024, 0, s>>>(input, slots);
  CUDA_CHECK_LAUNCH();
  if (!fold) return;
  fold_launch(fold_variant_kernel<Sum, T, 4>, fold_block ? fold_block : one_round_fold_block<T>(blocks), true, s,
              static_cast<const T*>(slots), blocks, result);
}

// The production loop (wide_partial) on tiles given by the caller (no division), its loads read
// once or plainly: which of tile_kernel's changes made the difference.
template <typename T, bool kReadOnce>
__global__ void given_tile_kernel(const T* input, std::size_t n, T* slots) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
  const T total = ch09::block_reduce<Sum>(
      ch09::wide_partial<Sum, T, true, 4, true, kReadOnce>(input, n, std::size_t(4) * blockDim.x));
  if (threadIdx.x == 0) slots[blockIdx.x] = total;
}

// Whole tiles the lean way (one round of four loads, no loop, no bounds), the first and the last
// block the production way (wide_partial on a given tile: the head, the tail, the short last tile).
template <typename T>
__global__ void split_tile_kernel(const T* input, std::size_t n, T* slots) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
  using Vector = typename ch09::Lanes<T, true>::Vector;
  constexpr int kCount = ch09::Lanes<T, true>::count, kInFlight = 4;
  const std::size_t tile = std::size_t(kInFlight) * blockDim.x;
  T sum;
  if (blockIdx.x != 0 && blockIdx.x + 1 != gridDim.x) {
    const std::size_t misaligned = reinterpret_cast<std::uintptr_t>(input) % 16 / sizeof(T);
    const std::size_t head = misaligned ? kCount - misaligned : 0;
    const Vector* v = reinterpret_cast<const Vector*>(input + head) + blockIdx.x * tile + threadIdx.x;
    Vector r[kInFlight];
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) r[k] = ch09::load_once<T>(v + k * blockDim.x);
    sum = T(0);
#pragma unroll
    for (int k = 0; k < kInFlight; ++k)
#pragma unroll
      for (int j = 0; j < kCount; ++j) sum += r[k].lane[j];
  } else {
    sum = ch09::wide_partial<Sum, T, true, kInFlight, true, true>(input, n, tile);
  }
  const T total = ch09::block_reduce<Sum>(sum);
  if (threadIdx.x == 0) slots[blockIdx.x] = total;
}

template <typename T>
void split_launch(const T* input, std::size_t n, T* result, DeviceScratch& scratch, cudaStream_t s) {
  const std::size_t tile = std::size_t(1024) * 4 * ch09::Lanes<T, true>::count;
  const unsigned blocks = unsigned((n + tile - 1) / tile);
  T* slots = scratch.get_as<T>(blocks);
  split_tile_kernel<T><<<blocks, 1024, 0, s>>>(input, n, slots);
  CUDA_CHECK_LAUNCH();
  fold_launch(fold_variant_kernel<Sum, T, 4>, one_round_fold_block<T>(blocks), true, s, static_cast<const T*>(slots),
              blocks, result);
}

template <typename T, bool kReadOnce>
void given_launch(const T* input, std::size_t n, T* result, bool fold, int fold_block, DeviceScratch& scratch,
                  cudaStream_t s) {
  const std::size_t tile = std::size_t(1024) * 4 * ch09::Lanes<T, true>::count;
  const unsigned blocks = unsigned((n + tile - 1) / tile);
  T* slots = scratch.get_as<T>(blocks);
  given_tile_kernel<T, kReadOnce><<<blocks, 1024, 0, s>>>(input, n, slots);
  CUDA_CHECK_LAUNCH();
  if (!fold) return;
  fold_launch(fold_variant_kernel<Sum, T, 4>, fold_block ? fold_block : one_round_fold_block<T>(blocks), true, s,
              static_cast<const T*>(slots), blocks, result);
}

template <typename T>
void keep(std::size_t n, int rounds_of_all) {
  if (n % (std::size_t(1024) * 4 * ch09::Lanes<T, true>::count) != 0) return;  // whole tiles only
  const std::vector<T> data = generate_input<T>(n, 42);
  const auto ref = reference_sum(data.data(), n);
  DeviceBuffer<T> input(data), result(1);
  DeviceScratch scratch;
  const T* in = input.data();
  T* out = result.data();
  const unsigned blocks = unsigned(n / (std::size_t(1024) * 4 * ch09::Lanes<T, true>::count));
  std::printf("keep %s n=2^%zu: %u slots, sized fold block %d\n", type_name(data_type_of<T>()), ceil_log2(n), blocks,
              one_round_fold_block<T>(blocks));
  std::vector<NamedLaunch> kernels = {
      {"fastest", [&](cudaStream_t s) { ch09::launch_fastest<Sum, T>(in, n, out, 0, scratch, s); }},
      {"old: chunked, fold 1024", [&](cudaStream_t s) { folds_launch<T, 1, 4>(in, n, out, true, scratch, s); }},
      {"given, plain, fold sized", [&](cudaStream_t s) { given_launch<T, false>(in, n, out, true, 0, scratch, s); }},
      {"split, once, fold sized", [&](cudaStream_t s) { split_launch<T>(in, n, out, scratch, s); }},
      {"lean, once, fold sized", [&](cudaStream_t s) { keep_launch<T, true, false>(in, n, out, true, 0, scratch, s); }},
      {"lean, keep slots, fold sized", [&](cudaStream_t s) { keep_launch<T, false, true>(in, n, out, true, 0, scratch, s); }},
      {"lean, once, no fold", [&](cudaStream_t s) { keep_launch<T, true, false>(in, n, out, false, 0, scratch, s); }},
      {"given, once, no fold", [&](cudaStream_t s) { given_launch<T, true>(in, n, out, false, 0, scratch, s); }},
  };
  time_against_07("keep", kernels, rounds_of_all, in, out, ref, n, scratch);
}

// 18. Smaller tiles at the end: the tile grid ends with multiprocessors
//     finishing at different times, each with a block of 64 KiB still to read. Here the grid's
//     last `small` blocks read tiles of kSmallLoads loads a thread (16 or 32 KiB) instead of 4, so
//     that the end is cut finer; and for ints (exact in any order) one atomicAdd a tile into a
//     result cleared by cudaMemsetAsync (07's finish) instead of slots and the fold.
template <typename T, int kSmallLoads, bool kAtomic>
__global__ void guided_tile_kernel(const T* input, unsigned big_blocks, T* out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
  using Vector = typename ch09::Lanes<T, true>::Vector;
  constexpr int kCount = ch09::Lanes<T, true>::count, kInFlight = 4;
  const Vector* v = reinterpret_cast<const Vector*>(input) + threadIdx.x;
  T sum = T(0);
  if (blockIdx.x < big_blocks) {
    v += std::size_t(blockIdx.x) * kInFlight * blockDim.x;
    Vector r[kInFlight];
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) r[k] = ch09::load_once<T>(v + k * blockDim.x);
#pragma unroll
    for (int k = 0; k < kInFlight; ++k)
#pragma unroll
      for (int j = 0; j < kCount; ++j) sum += r[k].lane[j];
  } else {
    v += std::size_t(big_blocks) * kInFlight * blockDim.x + std::size_t(blockIdx.x - big_blocks) * kSmallLoads * blockDim.x;
    Vector r[kSmallLoads];
#pragma unroll
    for (int k = 0; k < kSmallLoads; ++k) r[k] = ch09::load_once<T>(v + k * blockDim.x);
#pragma unroll
    for (int k = 0; k < kSmallLoads; ++k)
#pragma unroll
      for (int j = 0; j < kCount; ++j) sum += r[k].lane[j];
  }
  const T total = ch09::block_reduce<Sum>(sum);
  if (threadIdx.x == 0) {
    if constexpr (kAtomic) atomicAdd(out, total);
    else out[blockIdx.x] = total;
  }
}

// `small_waves` waves of small tiles (2 blocks of 1024 threads a multiprocessor) at the end; n a
// multiple of 64 KiB. fold: 0 none (the result not written), 1 the sized fold.
template <typename T, int kSmallLoads, bool kAtomic>
void guided_launch(const T* input, std::size_t n, T* result, int small_waves, bool fold, DeviceScratch& scratch,
                   cudaStream_t s) {
  const std::size_t tiles = n / (std::size_t(1024) * 4 * ch09::Lanes<T, true>::count);
  std::size_t small = std::size_t(small_waves) * 2 * ch08::multiprocessors();
  small -= small % (4 / kSmallLoads);             // small tiles fill whole 64 KiB tiles
  small = std::min(small, tiles * (4 / kSmallLoads));
  const unsigned big = unsigned(tiles - small * kSmallLoads / 4), blocks = unsigned(big + small);
  if (kAtomic) {
    CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(T), s));
    guided_tile_kernel<T, kSmallLoads, true><<<blocks, 1024, 0, s>>>(input, big, result);
    CUDA_CHECK_LAUNCH();
    return;
  }
  T* slots = scratch.get_as<T>(blocks);
  guided_tile_kernel<T, kSmallLoads, false><<<blocks, 1024, 0, s>>>(input, big, slots);
  CUDA_CHECK_LAUNCH();
  if (!fold) return;
  fold_launch(fold_variant_kernel<Sum, T, 4>, one_round_fold_block<T>(blocks), true, s, static_cast<const T*>(slots),
              blocks, result);
}

template <typename T>
void guided(std::size_t n, int rounds_of_all) {
  if (n % (std::size_t(1024) * 4 * ch09::Lanes<T, true>::count) != 0) return;  // whole tiles only
  const std::vector<T> data = generate_input<T>(n, 42);
  const auto ref = reference_sum(data.data(), n);
  DeviceBuffer<T> input(data), result(1);
  DeviceScratch scratch;
  const T* in = input.data();
  T* out = result.data();
  std::vector<NamedLaunch> kernels = {
      {"fastest", [&](cudaStream_t s) { ch09::launch_fastest<Sum, T>(in, n, out, 0, scratch, s); }},
      {"64K only (g0)", [&](cudaStream_t s) { guided_launch<T, 4, false>(in, n, out, 0, true, scratch, s); }},
      {"g1 x16K", [&](cudaStream_t s) { guided_launch<T, 1, false>(in, n, out, 1, true, scratch, s); }},
      {"g2 x16K", [&](cudaStream_t s) { guided_launch<T, 1, false>(in, n, out, 2, true, scratch, s); }},
      {"g4 x16K", [&](cudaStream_t s) { guided_launch<T, 1, false>(in, n, out, 4, true, scratch, s); }},
      {"g2 x32K", [&](cudaStream_t s) { guided_launch<T, 2, false>(in, n, out, 2, true, scratch, s); }},
      {"g0, no fold", [&](cudaStream_t s) { guided_launch<T, 4, false>(in, n, out, 0, false, scratch, s); }},
      {"g2 x16K, no fold", [&](cudaStream_t s) { guided_launch<T, 1, false>(in, n, out, 2, false, scratch, s); }},
  };
  if constexpr (std::is_same_v<T, int>) {
    kernels.push_back({"atomic g0", [&](cudaStream_t s) { guided_launch<T, 4, true>(in, n, out, 0, true, scratch, s); }});
    kernels.push_back({"atomic g2 x16K", [&](cudaStream_t s) { guided_launch<T, 1, true>(in, n, out, 2, true, scratch, s); }});
  }
  time_against_07("guided", kernels, rounds_of_all, in, out, ref, n, scratch);
}

// 19. The fold spread over several blocks: the dependent launch has
//     kBlocks blocks that add the slots grid-stride (wide_partial), each stores its share, and
//     the last to count itself done (fence, atomicInc) adds the shares. If one multiprocessor's
//     path to L2 is what limits the fold's loads, this shortens them. Also: the lean tiles with
//     the loads asking L2 to fetch 256 bytes at a time (ld.global.cs.L2::256B), for the DRAM.
template <typename T>
__global__ void spread_fold_kernel(const T* slots, unsigned count, T* shares, unsigned* done, T* result) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
  const T total = ch09::block_reduce<Sum>(ch09::wide_partial<Sum, T, true, 4, false>(slots, count));
  __shared__ bool last;
  if (threadIdx.x == 0) {
    shares[blockIdx.x] = total;
    __threadfence();
    last = atomicInc(done, gridDim.x - 1) == gridDim.x - 1;
    __threadfence();
  }
  __syncthreads();
  if (!last) return;
  const T sum = ch09::block_reduce<Sum>(ch09::fold_block_results<Sum>(shares, gridDim.x));
  if (threadIdx.x == 0) *result = sum;
}

template <typename T, bool kPrefetch>
__global__ void lean_tile_kernel(const T* input, T* slots) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
  using Vector = typename ch09::Lanes<T, true>::Vector;
  constexpr int kCount = ch09::Lanes<T, true>::count, kInFlight = 4;
  const Vector* v = reinterpret_cast<const Vector*>(input) + std::size_t(blockIdx.x) * kInFlight * blockDim.x + threadIdx.x;
  Vector r[kInFlight];
#pragma unroll
  for (int k = 0; k < kInFlight; ++k) {
    if constexpr (kPrefetch) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
      uint4 b;
      asm volatile("ld.global.cs.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(b.x), "=r"(b.y), "=r"(b.z), "=r"(b.w) : "l"(v + k * blockDim.x));
      std::memcpy(&r[k], &b, 16);
#endif
    } else {
      r[k] = ch09::load_once<T>(v + k * blockDim.x);
    }
  }
  T sum = T(0);
#pragma unroll
  for (int k = 0; k < kInFlight; ++k)
#pragma unroll
    for (int j = 0; j < kCount; ++j) sum += r[k].lane[j];
  const T total = ch09::block_reduce<Sum>(sum);
  if (threadIdx.x == 0) slots[blockIdx.x] = total;
}

// fold_blocks: 0 none (the result not written), 1 the sized fold, more: spread_fold_kernel.
template <typename T, bool kPrefetch>
void spread_launch(const T* input, std::size_t n, T* result, int fold_blocks, DeviceScratch& scratch, cudaStream_t s) {
  const unsigned blocks = unsigned(n / (std::size_t(1024) * 4 * ch09::Lanes<T, true>::count));
  T* slots = scratch.get_as<T>(blocks + 1024);
  T* shares = slots + (blocks + 255) / 256 * 256;
  lean_tile_kernel<T, kPrefetch><<<blocks, 1024, 0, s>>>(input, slots);
  CUDA_CHECK_LAUNCH();
  if (fold_blocks == 0) return;
  if (fold_blocks == 1) {
    fold_launch(fold_variant_kernel<Sum, T, 4>, one_round_fold_block<T>(blocks), true, s, static_cast<const T*>(slots),
                blocks, result);
    return;
  }
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(unsigned(fold_blocks));
  config.blockDim = dim3(256);
  config.stream = s;
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute[0].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = attribute;
  config.numAttrs = 1;
  CUDA_CHECK(cudaLaunchKernelEx(&config, spread_fold_kernel<T>, static_cast<const T*>(slots), blocks, shares,
                                ch09::block_counter_for(shares, s), result));
}

template <typename T>
void spread(std::size_t n, int rounds_of_all) {
  const std::vector<T> data = generate_input<T>(n, 42);
  const auto ref = reference_sum(data.data(), n);
  DeviceBuffer<T> input(data), result(1);
  DeviceScratch scratch;
  const T* in = input.data();
  T* out = result.data();
  std::vector<NamedLaunch> kernels = {
      {"fastest", [&](cudaStream_t s) { ch09::launch_fastest<Sum, T>(in, n, out, 0, scratch, s); }},
      {"fastest again", [&](cudaStream_t s) { ch09::launch_fastest<Sum, T>(in, n, out, 0, scratch, s); }},
      {"lean, sized fold", [&](cudaStream_t s) { spread_launch<T, false>(in, n, out, 1, scratch, s); }},
      {"lean, fold 8 blocks", [&](cudaStream_t s) { spread_launch<T, false>(in, n, out, 8, scratch, s); }},
      {"lean, fold 32 blocks", [&](cudaStream_t s) { spread_launch<T, false>(in, n, out, 32, scratch, s); }},
      {"lean, fold 128 blocks", [&](cudaStream_t s) { spread_launch<T, false>(in, n, out, 128, scratch, s); }},
      {"lean, no fold", [&](cudaStream_t s) { spread_launch<T, false>(in, n, out, 0, scratch, s); }},
      {"L2 256B, sized fold", [&](cudaStream_t s) { spread_launch<T, true>(in, n, out, 1, scratch, s); }},
      {"L2 256B, no fold", [&](cudaStream_t s) { spread_launch<T, true>(in, n, out, 0, scratch, s); }},
  };
  time_against_07("spread", kernels, rounds_of_all, in, out, ref, n, scratch);
}

// 20. Fewer slots (after `spread`): the fold's loads take longer the more
//     slots there are, and a double's tile of 64 KiB is half the elements of an int's, so twice the
//     slots. Here the grid's first blocks read tiles of kBigRounds rounds of loads (128 or 256 KiB:
//     a half or a quarter of the slots) and its last `small_waves` waves of blocks tiles of one
//     round (64 KiB), so that its end is cut as finely as fastest's.
template <typename T, int kBigRounds>
__global__ void big_start_tile_kernel(const T* input, unsigned big_blocks, T* slots) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
  using Vector = typename ch09::Lanes<T, true>::Vector;
  constexpr int kCount = ch09::Lanes<T, true>::count, kInFlight = 4;
  const Vector* v = reinterpret_cast<const Vector*>(input) + threadIdx.x;
  T sum = T(0);
  if (blockIdx.x < big_blocks) {
    v += std::size_t(blockIdx.x) * kBigRounds * kInFlight * blockDim.x;
#pragma unroll
    for (int round = 0; round < kBigRounds; ++round) {
      Vector r[kInFlight];
#pragma unroll
      for (int k = 0; k < kInFlight; ++k) r[k] = ch09::load_once<T>(v + (round * kInFlight + k) * blockDim.x);
#pragma unroll
      for (int k = 0; k < kInFlight; ++k)
#pragma unroll
        for (int j = 0; j < kCount; ++j) sum += r[k].lane[j];
    }
  } else {
    v += (std::size_t(big_blocks) * kBigRounds + (blockIdx.x - big_blocks)) * kInFlight * blockDim.x;
    Vector r[kInFlight];
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) r[k] = ch09::load_once<T>(v + k * blockDim.x);
#pragma unroll
    for (int k = 0; k < kInFlight; ++k)
#pragma unroll
      for (int j = 0; j < kCount; ++j) sum += r[k].lane[j];
  }
  const T total = ch09::block_reduce<Sum>(sum);
  if (threadIdx.x == 0) slots[blockIdx.x] = total;
}

// n a multiple of kBigRounds x 64 KiB; the small tiles fill whole big ones.
template <typename T, int kBigRounds>
void big_start_launch(const T* input, std::size_t n, T* result, int small_waves, bool fold, DeviceScratch& scratch,
                      cudaStream_t s) {
  const std::size_t tiles = n / (std::size_t(1024) * 4 * ch09::Lanes<T, true>::count);  // of 64 KiB
  std::size_t small = std::size_t(small_waves) * 2 * ch08::multiprocessors();
  small = std::min((small + kBigRounds - 1) / kBigRounds * kBigRounds, tiles);
  const unsigned big = unsigned((tiles - small) / kBigRounds), blocks = unsigned(big + small);
  T* slots = scratch.get_as<T>(blocks);
  big_start_tile_kernel<T, kBigRounds><<<blocks, 1024, 0, s>>>(input, big, slots);
  CUDA_CHECK_LAUNCH();
  if (!fold) return;
  fold_launch(fold_variant_kernel<Sum, T, 4>, one_round_fold_block<T>(blocks), true, s, static_cast<const T*>(slots),
              blocks, result);
}

template <typename T>
void big_start(std::size_t n, int rounds_of_all) {
  const std::vector<T> data = generate_input<T>(n, 42);
  const auto ref = reference_sum(data.data(), n);
  DeviceBuffer<T> input(data), result(1);
  DeviceScratch scratch;
  const T* in = input.data();
  T* out = result.data();
  std::vector<NamedLaunch> kernels = {
      {"fastest", [&](cudaStream_t s) { ch09::launch_fastest<Sum, T>(in, n, out, 0, scratch, s); }},
      {"fastest again", [&](cudaStream_t s) { ch09::launch_fastest<Sum, T>(in, n, out, 0, scratch, s); }},
      {"64K only", [&](cudaStream_t s) { big_start_launch<T, 1>(in, n, out, 0, true, scratch, s); }},
      {"128K, end 0", [&](cudaStream_t s) { big_start_launch<T, 2>(in, n, out, 0, true, scratch, s); }},
      {"128K, end 2 waves", [&](cudaStream_t s) { big_start_launch<T, 2>(in, n, out, 2, true, scratch, s); }},
      {"256K, end 2 waves", [&](cudaStream_t s) { big_start_launch<T, 4>(in, n, out, 2, true, scratch, s); }},
      {"256K, end 4 waves", [&](cudaStream_t s) { big_start_launch<T, 4>(in, n, out, 4, true, scratch, s); }},
      {"64K only, no fold", [&](cudaStream_t s) { big_start_launch<T, 1>(in, n, out, 0, false, scratch, s); }},
      {"256K end 2, no fold", [&](cudaStream_t s) { big_start_launch<T, 4>(in, n, out, 2, false, scratch, s); }},
  };
  time_against_07("bigstart", kernels, rounds_of_all, in, out, ref, n, scratch);
}

// Block b's sum of the whole 64 KiB tile b (four 16-byte loads a thread, read once), in thread 0.
template <typename T>
__device__ T whole_tile_total(const T* input) {
  using Vector = typename ch09::Lanes<T, true>::Vector;
  constexpr int kCount = ch09::Lanes<T, true>::count, kInFlight = 4;
  const Vector* v = reinterpret_cast<const Vector*>(input) + std::size_t(blockIdx.x) * kInFlight * blockDim.x + threadIdx.x;
  Vector r[kInFlight];
#pragma unroll
  for (int k = 0; k < kInFlight; ++k) r[k] = ch09::load_once<T>(v + k * blockDim.x);
  T sum = T(0);
#pragma unroll
  for (int k = 0; k < kInFlight; ++k)
#pragma unroll
    for (int j = 0; j < kCount; ++j) sum += r[k].lane[j];
  return ch09::block_reduce<Sum>(sum);
}

// 21. An order-free finish that is exact: 07 wins the last microseconds
//     with atomicAdd, whose order does not matter for ints. Here the 64 KiB tiles end the same way
//     for every type: ints with one atomicAdd a tile into a result cleared by cudaMemsetAsync;
//     floats and doubles by adding the tile's result as an integer, in units of the smallest
//     subnormal, into 64-bit words (exact_sum.cuh: up to three atomicAdds a tile), cleared the same
//     way, and a dependent launch of one warp rounds the words to T once. Every addition after the
//     tiles is exact, so the bits do not depend on the order.
//     kKind (22. `exactkind`, 23. `redcost`): 0, the pieces added as 64-bit integers; 1, the same pieces added as
//     doubles (07's kind of atomic; each word stays exact while fewer than 2^21 pieces of below 2^32
//     reach it, and the finish turns it back into an integer); 2, the tile's result added with one
//     atomicAdd of T into the result (07's finish: not exact, the bits change with the order); 3 to
//     5, one 64-bit, three or one 32-bit atomics (a cost, not a sum); 6, kind 0's pieces from three
//     lanes of the first warp, one atomic instruction instead of three.
template <typename T, int kStride, int kKind = 0>
__global__ void exact_tile_kernel(const T* input, void* out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
  const T total = whole_tile_total(input);
  if constexpr (kKind == 6 && !std::is_same_v<T, int>) {
    // The words' pieces from lanes 0, 1 and 2 of the first warp, one atomic instruction for all.
    if (threadIdx.x < 32) {
      const T all = __shfl_sync(0xffffffffu, total, 0);
      int k = 0, word = 0;
      long long mine = 0;
      ch09::exact_add(all, [&](int w, long long piece) {
        if (k++ == int(threadIdx.x)) word = w, mine = piece;
      });
      if (mine != 0) atomicAdd(static_cast<unsigned long long*>(out) + word * kStride, (unsigned long long)mine);
    }
    return;
  }
  if (threadIdx.x == 0) {
    if constexpr (std::is_same_v<T, int>) {
      atomicAdd(static_cast<int*>(out), total);
    } else {
      auto* words = static_cast<unsigned long long*>(out);
      if constexpr (kKind == 0) {
        ch09::exact_add(total, [words](int word, long long piece) { atomicAdd(words + word * kStride, (unsigned long long)piece); });
      } else if constexpr (kKind == 1) {
        ch09::exact_add(total, [words](int word, long long piece) {
          if (word < ch09::ExactFormat<T>::kValueWords)
            atomicAdd(reinterpret_cast<double*>(words + word * kStride), double(piece));
          else
            atomicAdd(words + word * kStride, (unsigned long long)piece);  // NaN and infinity counters
        });
      } else if constexpr (kKind == 2) {
        atomicAdd(static_cast<T*>(out), total);
      } else if constexpr (kKind == 3) {  // one 64-bit integer atomic of the result's bits (a cost, not a sum)
        unsigned long long bits;
        std::memcpy(&bits, &total, sizeof(T));
        atomicAdd(words, bits);
      } else {  // kKind 4 and 5: three or one 32-bit atomics of the pieces' low halves (a cost, not a sum)
        auto* halves = static_cast<unsigned int*>(out);
        int count = 0;
        ch09::exact_add(total, [halves, &count](int word, long long piece) {
          if (kKind == 4 || count++ == 0) atomicAdd(halves + 2 * word, (unsigned int)piece);
        });
      }
    }
  }
}

// One warp: lane l loads words l, l + 32, l + 64; a ballot finds the lowest and highest nonzero
// value words; lane 0 rounds them (exact_round). kClean: the warp also zeroes the words, so that
// the next call needs no memset (the words then belong to this caller, zeroed once when allocated).
template <typename T, bool kClean, int kStride, bool kF64 = false>
__global__ void exact_finish_kernel(long long* words, T* result) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
  using F = ch09::ExactFormat<T>;
  constexpr int kPerLane = (F::kWords + 31) / 32;
  __shared__ long long w[kPerLane * 32];
  const unsigned lane = threadIdx.x;
  unsigned nonzero[kPerLane];
#pragma unroll
  for (int k = 0; k < kPerLane; ++k) {
    const int i = k * 32 + int(lane);
    long long word = i < F::kWords ? __ldcg(words + i * kStride) : 0;
    if (kF64 && i < F::kValueWords) word = (long long)__longlong_as_double(word);  // an integer below 2^53
    w[i] = word;
    nonzero[k] = __ballot_sync(0xffffffffu, i < F::kValueWords && word != 0);
  }
#pragma unroll
  for (int k = 0; k < kPerLane; ++k)
    if (kClean && k * 32 + int(lane) < F::kWords) words[(k * 32 + lane) * kStride] = 0;
  __syncwarp();
  if (lane != 0) return;
  T total;
  if (!ch09::exact_special<T>(w, total)) {
    int lowest = -1, highest = -1;
#pragma unroll
    for (int k = 0; k < kPerLane; ++k)
      if (nonzero[k] != 0) {
        if (lowest < 0) lowest = k * 32 + __ffs(nonzero[k]) - 1;
        highest = k * 32 + 31 - __clz(nonzero[k]);
      }
    total = lowest < 0 ? T(0) : ch09::exact_round<T>(w, lowest, highest);
  }
  *result = total;
}

// n a multiple of 64 KiB. finish: false, the result not written (the tiles alone). clean: words
// zeroed by the finish (the caller's own, zeroed once), no memset.
template <typename T, int kStride = 1, int kKind = 0>
void exact_launch(const T* input, std::size_t n, T* result, bool finish, bool clean, long long* words, cudaStream_t s) {
  const unsigned tiles = unsigned(n / (std::size_t(1024) * 4 * ch09::Lanes<T, true>::count));
  if constexpr (std::is_same_v<T, int> || kKind == 2) {
    CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(T), s));
    exact_tile_kernel<T, 1, kKind><<<tiles, 1024, 0, s>>>(input, result);
    CUDA_CHECK_LAUNCH();
  } else {
    constexpr int kWords = ch09::ExactFormat<T>::kWords;
    if (!clean) CUDA_CHECK(cudaMemsetAsync(words, 0, kWords * kStride * sizeof(long long), s));
    exact_tile_kernel<T, kStride, kKind><<<tiles, 1024, 0, s>>>(input, words);
    CUDA_CHECK_LAUNCH();
    if (!finish) {
      if (clean) CUDA_CHECK(cudaMemsetAsync(words, 0, kWords * kStride * sizeof(long long), s));  // keep them zero
      return;
    }
    if (clean) fold_launch(exact_finish_kernel<T, true, kStride, kKind == 1>, 32, true, s, words, result);
    else fold_launch(exact_finish_kernel<T, false, kStride, kKind == 1>, 32, true, s, words, result);
  }
}

template <typename T>
void exact(std::size_t n, int rounds_of_all) {
  if (n % (std::size_t(1024) * 4 * ch09::Lanes<T, true>::count) != 0) return;  // whole tiles only
  const std::vector<T> data = generate_input<T>(n, 42);
  const auto ref = reference_sum(data.data(), n);
  DeviceBuffer<T> input(data), result(1);
  DeviceScratch scratch;
  DeviceBuffer<long long> words(std::vector<long long>(96, 0)), cleared(96 * 32);  // zeroed once; by each memset
  DeviceBuffer<long long> spread16(std::vector<long long>(96 * 16, 0)), spread4(std::vector<long long>(96 * 4, 0));
  long long* w = words.data();
  long long* w16 = spread16.data();
  long long* w4 = spread4.data();
  long long* c = cleared.data();
  const T* in = input.data();
  T* out = result.data();
  std::vector<NamedLaunch> kernels = {
      {"fastest", [&](cudaStream_t s) { ch09::launch_fastest<Sum, T>(in, n, out, 0, scratch, s); }},
      {"fastest again", [&](cudaStream_t s) { ch09::launch_fastest<Sum, T>(in, n, out, 0, scratch, s); }},
      {"64K tiles, fold", [&](cudaStream_t s) { guided_launch<T, 4, false>(in, n, out, 0, true, scratch, s); }},
      {"64K tiles, no fold", [&](cudaStream_t s) { guided_launch<T, 4, false>(in, n, out, 0, false, scratch, s); }},
      {"exact", [&](cudaStream_t s) { exact_launch<T>(in, n, out, true, false, c, s); }},
  };
  if constexpr (!std::is_same_v<T, int>) {
    kernels.push_back({"exact, self-clean", [&](cudaStream_t s) { exact_launch<T>(in, n, out, true, true, w, s); }});
    kernels.push_back({"exact, no finish", [&](cudaStream_t s) { exact_launch<T>(in, n, out, false, false, c, s); }});
    kernels.push_back({"clean, words 32 B apart", [&](cudaStream_t s) { exact_launch<T, 4>(in, n, out, true, true, w4, s); }});
    kernels.push_back({"clean, words 128 B apart", [&](cudaStream_t s) { exact_launch<T, 16>(in, n, out, true, true, w16, s); }});
    kernels.push_back({"no finish, 128 B apart", [&](cudaStream_t s) { exact_launch<T, 16>(in, n, out, false, false, c, s); }});
  }
  time_against_07("exact", kernels, rounds_of_all, in, out, ref, n, scratch);
}

// A fold in groups, while the tiles still run: each tile stores its slot and counts itself done in
// its group of kGroup tiles (an acq_rel atomic, one round trip for warp 0); the group's last tile
// adds the group's slots in a fixed order (a warp, each lane a fixed stride, then a fixed tree), and
// the fold after the grid reads one value a group. The bits do not depend on which tile was last.
template <typename T, int kGroup>
__global__ void group_tile_kernel(const T* input, unsigned tiles, T* slots, T* group_slots, unsigned* counts) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
  const T total = whole_tile_total(input);
  if (threadIdx.x >= 32) return;
  const unsigned group = blockIdx.x / kGroup, first = group * kGroup, members = min(unsigned(kGroup), tiles - first);
  unsigned last = 0;
  if (threadIdx.x == 0) {
    slots[blockIdx.x] = total;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> count(counts[group]);
    last = count.fetch_add(1, cuda::memory_order_acq_rel) == members - 1;
    if (last) count.store(0, cuda::memory_order_relaxed);  // zero again for the next call
  }
  if (__shfl_sync(0xffffffffu, last, 0) == 0) return;
  __threadfence();
  T part = T(0);
  for (unsigned k = threadIdx.x; k < members; k += 32) part += __ldcg(slots + first + k);
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) part += __shfl_down_sync(0xffffffffu, part, offset);
  if (threadIdx.x == 0) group_slots[group] = part;
}

template <typename T, int kGroup>
void group_launch(const T* input, std::size_t n, T* result, unsigned* counts, DeviceScratch& scratch, cudaStream_t s) {
  const unsigned tiles = unsigned(n / (std::size_t(1024) * 4 * ch09::Lanes<T, true>::count));
  const unsigned groups = (tiles + kGroup - 1) / kGroup;
  T* slots = scratch.get_as<T>(tiles + groups + 4);
  T* group_slots = slots + ((tiles + 3) & ~3u);  // 16-byte aligned for the fold's loads
  group_tile_kernel<T, kGroup><<<tiles, 1024, 0, s>>>(input, tiles, slots, group_slots, counts);
  CUDA_CHECK_LAUNCH();
  fold_launch(fold_variant_kernel<Sum, T, 4>, one_round_fold_block<T>(groups), true, s,
              static_cast<const T*>(group_slots), groups, result);
}

// The same 64 KiB tiles and the fold with kInFlight loads of 16 bytes in flight a thread, and threads
// for one round of them: whether the fold's loads wait on their rounds of trips to L2.
template <typename T, int kInFlight>
void inflight_fold_launch(const T* input, std::size_t n, T* result, DeviceScratch& scratch, cudaStream_t s) {
  const unsigned tiles = unsigned(n / (std::size_t(1024) * 4 * ch09::Lanes<T, true>::count));
  guided_launch<T, 4, false>(input, n, result, 0, false, scratch, s);
  const unsigned per_thread = kInFlight * ch09::Lanes<T, true>::count, threads = (tiles + per_thread - 1) / per_thread;
  fold_launch(fold_variant_kernel<Sum, T, kInFlight>, int(std::min(1024u, std::max(32u, (threads + 31) / 32 * 32))), true,
              s, static_cast<const T*>(scratch.get_as<T>(tiles)), tiles, result);
}

// 22. Which atomics make the exact words slow on some H200s (two boards were seen where
//     the tiles with the 64-bit integer atomics were 2 % slower than the tiles alone, while 07's
//     double atomics and the int sums' 32-bit ones cost nothing): the same pieces added as doubles,
//     and one atomicAdd of T a tile (07's finish, not exact), each with and without the finish.
template <typename T>
void exact_kind(std::size_t n, int rounds_of_all) {
  if (n % (std::size_t(1024) * 4 * ch09::Lanes<T, true>::count) != 0) return;  // whole tiles only
  const std::vector<T> data = generate_input<T>(n, 42);
  const auto ref = reference_sum(data.data(), n);
  DeviceBuffer<T> input(data), result(1);
  DeviceScratch scratch;
  DeviceBuffer<long long> words(std::vector<long long>(96, 0)), words64(std::vector<long long>(96, 0)), cleared(96);
  long long* w = words.data();
  long long* w64 = words64.data();
  long long* c = cleared.data();
  DeviceBuffer<unsigned> counts(std::vector<unsigned>(std::size_t(1) << 16, 0u));  // zeroed once; each group's last tile zeroes its count
  const T* in = input.data();
  T* out = result.data();
  std::vector<NamedLaunch> kernels = {
      {"fastest", [&](cudaStream_t s) { ch09::launch_fastest<Sum, T>(in, n, out, 0, scratch, s); }},
      {"fastest again", [&](cudaStream_t s) { ch09::launch_fastest<Sum, T>(in, n, out, 0, scratch, s); }},
      {"64K tiles, no fold", [&](cudaStream_t s) { guided_launch<T, 4, false>(in, n, out, 0, false, scratch, s); }},
      {"int64 words", [&](cudaStream_t s) { exact_launch<T, 1, 0>(in, n, out, true, true, w, s); }},
      {"int64 words, no finish", [&](cudaStream_t s) { exact_launch<T, 1, 0>(in, n, out, false, false, c, s); }},
      {"f64 words", [&](cudaStream_t s) { exact_launch<T, 1, 1>(in, n, out, true, true, w64, s); }},
      {"f64 words, no finish", [&](cudaStream_t s) { exact_launch<T, 1, 1>(in, n, out, false, false, c, s); }},
      {"one atomicAdd a tile", [&](cudaStream_t s) { exact_launch<T, 1, 2>(in, n, out, true, false, c, s); }},
      {"group fold 32", [&](cudaStream_t s) { group_launch<T, 32>(in, n, out, counts.data(), scratch, s); }},
      {"group fold 64", [&](cudaStream_t s) { group_launch<T, 64>(in, n, out, counts.data(), scratch, s); }},
      {"group fold 128", [&](cudaStream_t s) { group_launch<T, 128>(in, n, out, counts.data(), scratch, s); }},
      {"fold, 8 loads in flight", [&](cudaStream_t s) { inflight_fold_launch<T, 8>(in, n, out, scratch, s); }},
      {"fold, 16 loads in flight", [&](cudaStream_t s) { inflight_fold_launch<T, 16>(in, n, out, scratch, s); }},
  };
  time_against_07("exactkind", kernels, rounds_of_all, in, out, ref, n, scratch);
}

// 23. What the atomics at the end of a tile cost, and which: the tiles alone, with the words' two or
//     three 64-bit atomics, one double atomic (07's finish), one 64-bit integer atomic, and the
//     words' pieces as three or one 32-bit atomics (the last three a cost, not a sum: their results
//     are wrong), none with a finish, against 07's factors.
template <typename T>
void red_cost(std::size_t n, int rounds_of_all) {
  const std::vector<T> data = generate_input<T>(n, 42);
  const auto ref = reference_sum(data.data(), n);
  DeviceBuffer<T> input(data), result(1);
  DeviceScratch scratch;
  DeviceBuffer<long long> cleared(96), words(std::vector<long long>(96, 0)), words0(std::vector<long long>(96, 0));
  long long* c = cleared.data();
  long long* w = words.data();  // zeroed once; the finish zeroes them after each call
  long long* w0 = words0.data();
  const T* in = input.data();
  T* out = result.data();
  std::vector<NamedLaunch> kernels = {
      {"fastest", [&](cudaStream_t s) { ch09::launch_fastest<Sum, T>(in, n, out, 0, scratch, s); }},
      {"64K tiles, fold", [&](cudaStream_t s) { guided_launch<T, 4, false>(in, n, out, 0, true, scratch, s); }},
      {"64K tiles, no fold", [&](cudaStream_t s) { guided_launch<T, 4, false>(in, n, out, 0, false, scratch, s); }},
      {"int64 words, no finish", [&](cudaStream_t s) { exact_launch<T, 1, 0>(in, n, out, false, false, c, s); }},
      {"one atomicAdd of T", [&](cudaStream_t s) { exact_launch<T, 1, 2>(in, n, out, true, false, c, s); }},
      {"one 64-bit int atomic", [&](cudaStream_t s) { exact_launch<T, 1, 3>(in, n, out, false, false, c, s); }},
      {"three 32-bit atomics", [&](cudaStream_t s) { exact_launch<T, 1, 4>(in, n, out, false, false, c, s); }},
      {"one 32-bit atomic", [&](cudaStream_t s) { exact_launch<T, 1, 5>(in, n, out, false, false, c, s); }},
      {"words from 3 lanes, no finish", [&](cudaStream_t s) { exact_launch<T, 1, 6>(in, n, out, false, false, c, s); }},
      {"words from 3 lanes", [&](cudaStream_t s) { exact_launch<T, 1, 6>(in, n, out, true, true, w, s); }},
      {"int64 words", [&](cudaStream_t s) { exact_launch<T, 1, 0>(in, n, out, true, true, w0, s); }},
  };
  if (rounds_of_all == 0) {  // `redcost once N`: each kernel twice, untimed, for ncu
    cudaStream_t s = nullptr;
    for (auto& k : kernels)
      for (int i = 0; i < 2; ++i) k.second(s);
    CUDA_CHECK(cudaDeviceSynchronize());
    return;
  }
  time_against_07("redcost", kernels, rounds_of_all, in, out, ref, n, scratch);
}

// The same, with the words at other addresses (one buffer of 64 MiB, the words at offsets in it):
// whether where the atomics land changes their cost.
template <typename T>
void exact_where(std::size_t n, int rounds_of_all) {
  const std::vector<T> data = generate_input<T>(n, 42);
  const auto ref = reference_sum(data.data(), n);
  DeviceBuffer<T> input(data), result(1);
  DeviceScratch scratch;
  DeviceBuffer<long long> words(std::vector<long long>(std::size_t(8) << 20, 0));  // 64 MiB, zeroed once
  const T* in = input.data();
  T* out = result.data();
  std::vector<NamedLaunch> kernels = {
      {"fastest", [&](cudaStream_t s) { ch09::launch_fastest<Sum, T>(in, n, out, 0, scratch, s); }},
      {"64K tiles, no fold", [&](cudaStream_t s) { guided_launch<T, 4, false>(in, n, out, 0, false, scratch, s); }},
  };
  for (std::size_t offset : {std::size_t(0), std::size_t(1) << 10, std::size_t(1) << 13, std::size_t(1) << 17,
                              std::size_t(1) << 20, std::size_t(5) << 20, (std::size_t(7) << 20) + 4096}) {
    long long* w = words.data() + offset;  // offset words: 8 KiB to 56 MiB
    kernels.push_back({"clean at " + std::to_string(offset * 8 >> 10) + " KiB",
                       [=](cudaStream_t s) { exact_launch<T>(in, n, out, true, true, w, s); }});
    if constexpr (std::is_same_v<T, int>) {
      kernels.back().second = [=](cudaStream_t s) {
        CUDA_CHECK(cudaMemsetAsync(w, 0, sizeof(int), s));
        exact_tile_kernel<T, 1><<<unsigned(n / 16384), 1024, 0, s>>>(in, w);
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaMemcpyAsync(out, w, sizeof(int), cudaMemcpyDeviceToDevice, s));
      };
    }
  }
  time_against_07("exactwhere", kernels, rounds_of_all, in, out, ref, n, scratch);
}
}  // namespace

int main(int argc, char** argv) {
  const std::string only = argc > 1 ? argv[1] : "";
  const bool json = argc == 3 && only == "trees" && std::string(argv[2]) == "--json";
  const int keep_log_n = argc == 3 && (only == "keep" || only == "guided" || only == "spread" || only == "bigstart" || only == "exact" || only == "exactkind" || only == "redcost") ? std::atoi(argv[2]) : 0;  // keep N: only n = 2^N
  const bool once = argc == 4 && only == "redcost" && std::string(argv[2]) == "once";
  if ((argc > 2 && !json && keep_log_n == 0 && !once) || (!only.empty() && only != "atomics" && only != "loads" && only != "knobs" && only != "inflight" && only != "tiles" &&
                    only != "trees" && only != "design" && only != "large" && only != "profile" && only != "dynamic" && only != "traits" && only != "schedule" && only != "steal" && only != "slots" && only != "versus07" && only != "tail" && only != "folds" && only != "tagged" && only != "foldparts" && only != "keep" && only != "guided" && only != "spread" && only != "bigstart" && only != "exact" && only != "exactwhere" && only != "exactkind" && only != "redcost")) {
    std::fprintf(stderr, "usage: experiments [atomics|loads|inflight|tiles|trees [--json]|knobs|design|large|profile|dynamic|traits|schedule|steal|slots|versus07|tail|folds|tagged|foldparts|keep [N]|guided [N]|spread [N]|bigstart [N]|exact [N]|exactwhere|exactkind [N]|redcost [N|once N]]\n");
    return 2;
  }
  if (!probe_gpu().usable) {
    std::fprintf(stderr, "experiments: no usable GPU\n");
    return 77;
  }
  std::printf("%s\n", current_device().describe().c_str());
  if (only.empty() || only == "atomics")
    for (std::size_t log_n : {27, 28})
      for (int block : {256, 1024}) {
        atomics<int>(std::size_t(1) << log_n, block);
        atomics<float>(std::size_t(1) << log_n, block);
      }
  if (only.empty() || only == "loads")
    for (int block : {256, 1024}) {
      loads_in_flight<int>(std::size_t(1) << 28, block);
      loads_in_flight<float>(std::size_t(1) << 28, block);
    }
  if (only.empty() || only == "inflight") {
    in_flight<int>(std::size_t(1) << 28, false);
    in_flight<float>(std::size_t(1) << 28, false);
  }
  if (only == "tiles") {
    in_flight<int>(std::size_t(1) << 28, true);
    in_flight<float>(std::size_t(1) << 28, true);
  }
  if (only.empty() || only == "trees")
    for (int block_log2 : {8, 10}) {
      trees<int>(std::size_t(1) << 28, block_log2, json);
      trees<float>(std::size_t(1) << 28, block_log2, json);
    }
  if (only.empty() || only == "knobs")
    for (std::size_t log_n : {20, 27, 28, 30}) {
      knobs<int>(std::size_t(1) << log_n);
      knobs<float>(std::size_t(1) << log_n);
    }
  if (only == "profile") profile();
  if (only == "schedule") schedule();
  if (only == "versus07")
    for (std::size_t log_n : {24, 25, 26, 27, 28, 29, 30}) {
      versus07<int>(std::size_t(1) << log_n, 7);
      versus07<float>(std::size_t(1) << log_n, 7);
      if (log_n <= 29) versus07<double>(std::size_t(1) << log_n, 7);
    }
  if (only == "exactwhere")
    for (std::size_t log_n : {26, 28}) {
      exact_where<int>(std::size_t(1) << log_n, 7);
      exact_where<float>(std::size_t(1) << log_n, 7);
      exact_where<double>(std::size_t(1) << log_n, 7);
    }
  if (once) red_cost<double>(std::size_t(1) << std::atoi(argv[3]), 0);
  if (only == "redcost" && argc < 4)
    for (std::size_t log_n : {26, 28}) {
      if (keep_log_n != 0 && int(log_n) != keep_log_n) continue;
      red_cost<double>(std::size_t(1) << log_n, 7);
    }
  if (only == "exactkind")
    for (std::size_t log_n : {24, 26, 27, 28, 29}) {
      if (keep_log_n != 0 && int(log_n) != keep_log_n) continue;
      exact_kind<float>(std::size_t(1) << log_n, 7);
      exact_kind<double>(std::size_t(1) << log_n, 7);
    }
  if (only == "exact")
    for (std::size_t log_n = 24; log_n <= 30; ++log_n) {
      if (keep_log_n != 0 && int(log_n) != keep_log_n) continue;
      exact<int>(std::size_t(1) << log_n, 7);
      exact<float>(std::size_t(1) << log_n, 7);
      if (log_n <= 29) exact<double>(std::size_t(1) << log_n, 7);
    }
  if (only == "bigstart")
    for (std::size_t log_n = 26; log_n <= 30; ++log_n) {
      if (keep_log_n != 0 && int(log_n) != keep_log_n) continue;
      if (log_n >= 28) big_start<int>(std::size_t(1) << log_n, 7);
      if (log_n <= 29) big_start<double>(std::size_t(1) << log_n, 7);
    }
  if (only == "spread")
    for (std::size_t log_n = 24; log_n <= 30; log_n += log_n >= 28 ? 1 : 2) {
      if (keep_log_n != 0 && int(log_n) != keep_log_n) continue;
      spread<int>(std::size_t(1) << log_n, 7);
      spread<float>(std::size_t(1) << log_n, 7);
      if (log_n <= 29) spread<double>(std::size_t(1) << log_n, 7);
    }
  if (only == "guided")
    for (std::size_t log_n = 24; log_n <= 30; ++log_n) {
      if (keep_log_n != 0 && int(log_n) != keep_log_n) continue;
      guided<int>(std::size_t(1) << log_n, 7);
      guided<float>(std::size_t(1) << log_n, 7);
      if (log_n <= 29) guided<double>(std::size_t(1) << log_n, 7);
    }
  if (only == "keep")
    for (std::size_t log_n : {24, 25, 26, 27, 28, 29, 30}) {
      if (keep_log_n != 0 && int(log_n) != keep_log_n) continue;
      keep<int>(std::size_t(1) << log_n, 7);
      keep<float>(std::size_t(1) << log_n, 7);
      if (log_n <= 29) keep<double>(std::size_t(1) << log_n, 7);
    }
  if (only == "foldparts")
    for (std::size_t log_n : {24, 26, 28, 30}) {
      foldparts<int>(std::size_t(1) << log_n, 7);
      if (log_n <= 28) foldparts<double>(std::size_t(1) << log_n, 7);
    }
  if (only == "tagged")
    for (std::size_t log_n : {24, 25, 26, 27, 28, 29, 30}) {
      tagged<int>(std::size_t(1) << log_n, 7);
      tagged<float>(std::size_t(1) << log_n, 7);
      if (log_n <= 29) tagged<double>(std::size_t(1) << log_n, 7);
    }
  if (only == "folds")
    for (std::size_t log_n : {24, 25, 26, 27, 28, 29, 30}) {
      folds<int>(std::size_t(1) << log_n, 7);
      folds<float>(std::size_t(1) << log_n, 7);
      if (log_n <= 29) folds<double>(std::size_t(1) << log_n, 7);
    }
  if (only == "tail")
    for (std::size_t log_n : {24, 26, 28, 30}) {
      tail<int>(std::size_t(1) << log_n, 7);
      tail<float>(std::size_t(1) << log_n, 7);
      if (log_n <= 28) tail<double>(std::size_t(1) << log_n, 7);
    }
  if (only == "slots")
    for (std::size_t log_n : {22, 24, 26, 28, 30}) {
      slots<float>(std::size_t(1) << log_n, 5);
      if (log_n == 24 || log_n == 28) slots<int>(std::size_t(1) << log_n, 5);
      if (log_n == 24 || log_n == 28) slots<double>(std::size_t(1) << log_n, 5);
    }
  if (only == "steal")
    for (std::size_t log_n : {23, 24, 26, 28, 30}) {
      steal<int>(std::size_t(1) << log_n, 5);
      if (log_n == 24 || log_n == 28 || log_n == 30) steal<float>(std::size_t(1) << log_n, 5);
      if (log_n == 24 || log_n == 28) steal<double>(std::size_t(1) << log_n, 5);
    }
  if (only == "traits")
    for (std::size_t log_n : {24, 26, 28, 30}) traits(std::size_t(1) << log_n);
  if (only == "dynamic")
    for (std::size_t log_n : {22, 23, 24, 25, 26, 27, 28, 30}) {
      dynamic<int>(std::size_t(1) << log_n, 5);
      if (log_n == 24 || log_n == 28) dynamic<float>(std::size_t(1) << log_n, 5);
      if (log_n == 28) dynamic<double>(std::size_t(1) << log_n, 5);
    }
  if (only == "large")
    for (std::size_t log_n : {23, 24, 25, 26, 27, 28, 29, 30}) {
      large<int>(std::size_t(1) << log_n, 5);
      if (log_n % 2 == 0) large<float>(std::size_t(1) << log_n, 5);
      if (log_n == 24 || log_n == 28) large<double>(std::size_t(1) << log_n, 5);
    }
  if (only == "design")
    for (std::size_t log_n : {22, 24, 26, 28, 30}) {
      design<int>(std::size_t(1) << log_n);
      if (log_n >= 24) design<float>(std::size_t(1) << log_n);
      if (log_n == 24 || log_n == 28) design<double>(std::size_t(1) << log_n);
    }
  return 0;
}
