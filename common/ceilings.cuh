// The ceilings a multi-block chapter (06 to 09) measures its kernels against, in the same run, and
// the rotating copies that make every timed run read from DRAM:
//  - the copy ceiling: a device-to-device copy (bytes read + written over its time);
//  - the read ceiling, where chapter 09 measured one (09_warp_unrolled/read_ceiling.cuh);
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

// A plain streaming read of some bytes (chapter 09 measures it: 09_warp_unrolled/read_ceiling.cuh).
struct ReadCeiling {
  double gbps = 0;         // the best of the shapes tried
  std::size_t bytes = 0;   // bytes each run read
  std::string shape;      // the shape that gave it: "512 threads x 1 wave, 4 loads in flight"
  bool of_input = false;  // it read the caller's own data (true) or a buffer of its own
};

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
