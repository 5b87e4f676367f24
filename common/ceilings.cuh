// The ceilings a multi-block chapter (06 to 09) measures its kernels against, in the same run, and
// the rotating copies that make every timed run read from DRAM:
//  - the copy ceiling: a device-to-device copy (bytes read + written over its time);
//  - the read ceiling: a plain streaming read, the ceiling of a kernel that only reads (a
//    reduction reads its input once and writes one value, and DRAM serves reads alone faster than
//    the mix a copy makes: the best reductions pass 100 % of the copy ceiling);
//  - RotatingInput: an input that fits in L2 is copied until the copies span three times the L2,
//    so that each run reads a copy that is not in the cache;
//  - the lines and JSON fields that say so in the report.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "cuda_check.cuh"
#include "gpu.cuh"
#include "report.hpp"

namespace reduction {

// "390.6 KiB", "1024.0 MiB": a size in the analysis and the notes.
inline std::string mebibytes(std::size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, bytes < (1 << 20) ? "%.1f KiB" : "%.1f MiB",
                bytes < (1 << 20) ? bytes / 1024.0 : bytes / double(1 << 20));
  return buf;
}

// Bytes of the device-to-device copy that sets the ceiling: as many as the input, but at least
// eight times the L2 cache, so that the copy streams from DRAM rather than from cache. Past that
// the copy's bandwidth no longer depends on its size, so it stops at 2 GiB, and at half of the free
// memory (the copy needs a source and a destination).
inline std::size_t copy_ceiling_bytes(std::size_t input_bytes, std::size_t l2_bytes, std::size_t free_bytes) {
  constexpr std::size_t kLargest = std::size_t(2) << 30;
  const std::size_t room = free_bytes > kDeviceSlackBytes ? (free_bytes - kDeviceSlackBytes) / 2 : 0;
  return std::min({std::max(input_bytes, 8 * l2_bytes), kLargest, room});
}

// What width of index the largest index a kernel computes needs, in one line for the analysis.
inline std::string index_width_note(std::size_t largest_index) {
  const std::string at = "the largest index computed is " + std::to_string(largest_index);
  if (largest_index <= 0x7fffffffull) return at + ": a 32-bit int would still do at this n";
  if (largest_index <= 0xffffffffull) return at + ": past 2^31 - 1, an int index would overflow (unsigned still fits)";
  return at + ": past 2^32 - 1, int and unsigned indices would both wrap; 64 bits are needed";
}

// An input that fits in L2 would be read from L2 by every run after the first, and the time would
// measure the cache, not DRAM. So unless --hot-l2 asks for exactly that, a small input is copied
// until the copies span at least three times the L2 (at most kMaxCopies copies: below about
// 3 x L2 / 64 they all stay in L2), and each run reads the next copy. Every copy holds the same data.
template <typename T>
class RotatingInput {
 public:
  static constexpr std::size_t kMaxCopies = 64;
  RotatingInput(const T* first, std::size_t n, std::size_t l2_bytes, bool hot_l2) : first_(first) {
    const std::size_t bytes = std::max<std::size_t>(n * sizeof(T), 1);
    copies_ = hot_l2 ? 1 : std::clamp<std::size_t>((3 * l2_bytes + bytes - 1) / bytes, 1, kMaxCopies);
    const std::size_t stride = (bytes + 255) / 256 * 256 / sizeof(T);  // 256-byte aligned, as cudaMalloc's are
    if (copies_ > 1) extra_ = DeviceBuffer<T>(stride * (copies_ - 1));
    for (std::size_t c = 0; c + 1 < copies_; ++c)
      CUDA_CHECK(cudaMemcpy(extra_.data() + c * stride, first_, n * sizeof(T), cudaMemcpyDeviceToDevice));
    stride_ = stride;
  }
  const T* next() {
    const std::size_t c = turn_++ % copies_;
    return c == 0 ? first_ : extra_.data() + (c - 1) * stride_;
  }
  std::size_t copies() const { return copies_; }

 private:
  const T* first_;
  std::size_t copies_ = 1, stride_ = 0, turn_ = 0;
  DeviceBuffer<T> extra_;
};

// The read ceiling's kernel reads `vectors` 16-byte words. Each thread XORs what it reads into one
// register and writes it only if it equals one particular value: the store, which the compiler
// cannot prove dead, keeps every load alive, and in practice nothing is written.
namespace detail {

template <int kLoadsInFlight>
__global__ void read_ceiling_kernel(const uint4* __restrict__ data, std::size_t vectors, unsigned int* sink) {
  const std::size_t step = std::size_t(blockDim.x) * gridDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
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
  int block, waves;
};

template <int kLoadsInFlight>
double time_read_gbps(const uint4* data, std::size_t vectors, ReadShape shape, unsigned int* sink, int warmup,
                      int reps) {
  const auto kernel = read_ceiling_kernel<kLoadsInFlight>;
  int device = 0, multiprocessors = 0, per_multiprocessor = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel, shape.block, 0));
  const int grid = std::max(1, per_multiprocessor) * multiprocessors * shape.waves;
  const TimingStats t = time_gpu(warmup, reps, [&](cudaStream_t stream) {
    kernel<<<grid, shape.block, 0, stream>>>(data, vectors, sink);
    CUDA_CHECK_LAUNCH();
  });
  return gigabytes_per_second(double(vectors) * sizeof(uint4), t.median_ms);
}

}  // namespace detail

struct ReadCeiling {
  double gbps = 0;         // the best of the shapes tried
  std::size_t bytes = 0;   // bytes each run read
  std::string shape;      // the shape that gave it: "512 threads x 1 wave, 4 loads in flight"
  bool of_input = false;  // it read the caller's own data (true) or a buffer of its own
};

// Measures the read ceiling over the `bytes` at `data` (device memory, 16-byte aligned, as
// cudaMalloc's is) when they span at least eight times the L2 cache, so that every run streams
// from DRAM: then the ceiling is measured on exactly the bytes the caller's kernels read. A smaller
// input would be read from L2, so then a buffer of its own, eight times the L2 (at most 2 GiB and
// half of the free memory), is read instead. A few launch shapes are tried and the best is kept:
// a ceiling should be the best a plain read does, not one arbitrary configuration.
inline ReadCeiling measure_read_ceiling(const void* data, std::size_t bytes, std::size_t l2_bytes, int warmup,
                                        int reps) {
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
  constexpr detail::ReadShape kShapes[] = {{256, 1}, {512, 1}, {1024, 2}};
  for (const auto shape : kShapes) {
    const double gbps = detail::time_read_gbps<4>(words, vectors, shape, sink.data(), warmup, reps);
    if (gbps > ceiling.gbps) {
      ceiling.gbps = gbps;
      ceiling.shape = std::to_string(shape.block) + " threads x " + std::to_string(shape.waves) +
                      (shape.waves == 1 ? " wave" : " waves") + ", 4 loads of 16 bytes in flight";
    }
  }
  return ceiling;
}

// The ceilings a run is compared with, measured in the same process: a device-to-device copy
// (bytes read + written over time), and for chapters that ask, a plain streaming read.
struct Ceilings {
  double copy_gbps = 0;
  std::size_t copy_bytes = 0;
  ReadCeiling read;  // gbps 0 when not measured
};

// The ceilings in the report: fields, and the lines under the table.
inline void describe_ceilings(Report& report, const Ceilings& c) {
  report.fields().set("copy_ceiling_bytes", c.copy_bytes);
  report.fields().set("copy_ceiling_gbps", c.copy_gbps);
  char line[320];
  std::snprintf(line, sizeof line,
                "ceiling    a device-to-device copy of %.0f MiB ran at %.1f GB/s (bytes read + written over\n"
                "           the median time); pct_of_copy is each kernel's GB/s (bytes of input read) over that.\n",
                c.copy_bytes / double(1 << 20), c.copy_gbps);
  report.summary() << line;
  if (c.read.gbps <= 0) return;
  report.fields().set("read_ceiling_gbps", c.read.gbps);
  report.fields().set("read_ceiling_bytes", c.read.bytes);
  report.fields().set("read_ceiling_shape", c.read.shape);
  std::snprintf(line, sizeof line,
                "read       a plain streaming read of %.0f MiB (%s) ran at %.1f GB/s (%s);\n"
                "           pct_of_read is each kernel's GB/s over that: the ceiling of a kernel that only reads\n",
                c.read.bytes / double(1 << 20), c.read.of_input ? "the input itself" : "a buffer of 8 x L2", c.read.gbps,
                c.read.shape.c_str());
  report.summary() << line;
}

// Where the timed runs read their input from, under the ceilings: the rotating copies, or --hot-l2.
template <typename T>
void describe_input_copies(Report& report, const RotatingInput<T>& copies, std::size_t input_bytes,
                           std::size_t l2_bytes, bool hot_l2) {
  if (copies.copies() > 1)
    report.summary() << "L2         the input (" << mebibytes(input_bytes) << ") fits in the " << mebibytes(l2_bytes)
                     << " L2: each run reads the next of " << copies.copies() << " copies of it,\n           "
                     << (copies.copies() * input_bytes < l2_bytes
                             ? "which together still fit in L2: small inputs are read from L2 by every kernel\n"
                             : "so every kernel starts from DRAM (--hot-l2: from L2)\n");
  else if (hot_l2 && input_bytes < 3 * l2_bytes)
    report.summary() << "L2         --hot-l2: every run reads the same copy, which stays in L2 after the first\n";
  report.fields().set("input_copies", copies.copies());
}

}  // namespace reduction
