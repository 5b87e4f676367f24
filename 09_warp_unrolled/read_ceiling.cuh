// Chapter 09's second ceiling: a plain streaming read of the bytes the kernels read. A reduction
// reads its input once and writes one value, and DRAM serves reads alone faster than the mix of
// reads and writes a copy makes: the best reductions pass 100 % of the copy ceiling, so 09 holds
// `fastest` and cub against this one (common/ceilings.cuh reports it beside the copy).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <string>

#include "common/ceilings.cuh"
#include "common/cuda_check.cuh"
#include "common/gpu.cuh"

namespace ch09 {

// The read ceiling's kernel reads `vectors` 16-byte words. Each thread XORs what it reads into one
// register and writes it only if it equals one particular value: the store, which the compiler
// cannot prove dead, keeps every load alive, and in practice nothing is written.
namespace detail {

// `chunk` 0: the grid strides over all the vectors; else block b reads vectors [b chunk, (b + 1)
// chunk), its threads striding by blockDim.x (many blocks, each its own chunk, as fastest does
// with a large input).
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

struct ReadShape {
  int block, waves;  // waves 0: one block per chunk of kChunkVectors
};
constexpr std::size_t kChunkVectors = 8192;  // 128 KiB

template <int kLoadsInFlight>
double time_read_gbps(const uint4* data, std::size_t vectors, ReadShape shape, unsigned int* sink, int warmup,
                      int reps) {
  const auto kernel = read_ceiling_kernel<kLoadsInFlight>;
  int device = 0, multiprocessors = 0, per_multiprocessor = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel, shape.block, 0));
  const std::size_t chunk = shape.waves == 0 ? kChunkVectors : 0;
  const int grid =
      chunk > 0 ? int((vectors + chunk - 1) / chunk) : std::max(1, per_multiprocessor) * multiprocessors * shape.waves;
  const reduction::TimingStats t = reduction::time_gpu(warmup, reps, [&](cudaStream_t stream) {
    kernel<<<grid, shape.block, 0, stream>>>(data, vectors, chunk, sink);
    CUDA_CHECK_LAUNCH();
  });
  return reduction::gigabytes_per_second(double(vectors) * sizeof(uint4), t.median_ms);
}

}  // namespace detail

// Measures the read ceiling over the `bytes` at `data` (device memory, 16-byte aligned, as
// cudaMalloc's is) when they span at least eight times the L2 cache, so that every run streams
// from DRAM: then the ceiling is measured on exactly the bytes the caller's kernels read. A smaller
// input would be read from L2, so then a buffer of its own, eight times the L2 (at most 2 GiB and
// half of the free memory), is read instead. A few launch shapes are tried and the best is kept:
// a ceiling should be the best a plain read does, not one arbitrary configuration. Even so a
// kernel may read faster than all of them: then the programs take that kernel's rate as the
// ceiling (main.cu, sizes.cuh), so that no kernel is above 100 % of it.
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
  constexpr detail::ReadShape kShapes[] = {{256, 1}, {512, 1}, {1024, 1}, {1024, 2}, {1024, 0}};
  for (const auto shape : kShapes) {
    const double gbps = detail::time_read_gbps<4>(words, vectors, shape, sink.data(), warmup, reps);
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

}  // namespace ch09
