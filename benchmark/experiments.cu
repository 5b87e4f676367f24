// Measurements behind three claims of the lessons, each with the chapters' own kernels where it can
// (the kernels against each other and against cub are timed by nvbench: reduce_bench.cu):
//  1. atomics (chapter 06): what one atomicAdd per block costs when every block adds to the same
//     address. Chapter 06's kernel, with its last line as a parameter: the block's partial goes
//     either to atomicAdd on out[0] (the chapter) or to a store in out[blockIdx.x] (no atomic, no
//     shared address). The two differ in that one line, so the difference in time is the atomics'.
//  2. loads in flight (chapter 08, exercise 4): the grid-stride loop with `#pragma unroll 4`, against
//     the same loop rewritten to issue four independent loads under one bounds check.
//  3. trees (chapter 09): the first pass of chapter 08's kernel and of each of chapter 09's lesson
//     kernels, launched with two elements a thread (chapter 06's shape), where the tree is most of
//     the work: what each warp technique buys there.
//
// Build: cmake --build build --target experiments; run: build/benchmark/experiments [atomics|loads|trees]
// (all three without an argument; needs a GPU). It prints medians of 20 timed runs after 3
// warm-ups, with CUDA events, and checks every result.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <string>
#include <tuple>
#include <vector>

#include "08_two_pass/solution/two_pass.cuh"
#include "09_warp_unrolled/solution/exact_sum.cuh"
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

// The trees of chapters 08 and 09 where the tree is most of the work: each kernel's first pass
// launched with G = n / (2B) blocks, so that its grid-stride loop gives every thread exactly two
// elements (chapter 06's shape) and every block then runs its tree over 2B elements. Only the
// tree differs between the kernels; the block results are added on the host to check them.
template <typename T>
void trees(std::size_t n, int block_log2) {
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

}  // namespace

int main(int argc, char** argv) {
  const std::string only = argc > 1 ? argv[1] : "";
  if (argc > 2 || (!only.empty() && only != "atomics" && only != "loads" && only != "trees")) {
    std::fprintf(stderr, "usage: experiments [atomics|loads|trees]\n");
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
  if (only.empty() || only == "trees")
    for (int block_log2 : {8, 10}) {
      trees<int>(std::size_t(1) << 28, block_log2);
      trees<float>(std::size_t(1) << 28, block_log2);
    }
  return 0;
}
