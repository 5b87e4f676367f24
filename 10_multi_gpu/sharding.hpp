// Chapter 10's arithmetic, none of which needs a GPU: how the array is split over G GPUs, each
// process's part of the random input, the whole array's reference put together from the
// references of its parts, the depth of the combine for the float bound, and the
// bandwidth figures of a collective as NCCL's own tests define them. The CPU tests check all of it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "common/program.hpp"
#include "common/reference.hpp"

namespace ch10 {

// One GPU's part of the array: elements [begin, begin + count).
struct Shard {
  std::size_t begin = 0;
  std::size_t count = 0;
  std::size_t end() const { return begin + count; }
};

// Shard `rank` of `gpus` over n elements: contiguous pieces in rank order, as equal as whole
// elements allow. The first n % G shards hold one element more than the others; with n < G the
// last G - n shards are empty (those GPUs still take part in the combine, with a partial of 0).
inline Shard shard_of(std::size_t n, int gpus, int rank) {
  if (gpus < 1 || rank < 0 || rank >= gpus) throw std::invalid_argument("shard_of: rank must be in [0, gpus)");
  const std::size_t g = static_cast<std::size_t>(gpus), r = static_cast<std::size_t>(rank);
  const std::size_t base = n / g, extra = n % g;
  return {r * base + std::min(r, extra), base + (r < extra ? 1 : 0)};
}

// The most elements any one GPU holds: shard 0's.
inline std::size_t largest_shard(std::size_t n, int gpus) { return shard_of(n, gpus, 0).count; }

// Elements [part.begin, part.end()) of the array generate_input(n, seed) makes, made alone: element
// i depends only on the seed and i, so each process makes its own part and never the whole array.
template <typename T>
std::vector<T> random_part(std::uint64_t seed, Shard part) {
  std::vector<T> data(part.count);
  reduction::parallel_chunks(
      part.count, reduction::cpu_workers(part.count), [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t i = b; i < e; ++i)
          data[i] = reduction::random_element<T>(seed, part.begin + i, reduction::Distribution::Default);
      });
  return data;
}

// How many rounded additions the combine may add to an element's path, for the float bound
// (common/reference.hpp). NCCL does not document the order in which an all-reduce adds the G
// partials, and it depends on the algorithm NCCL picks for the call: a ring passes one running sum
// from GPU to GPU (G - 1 additions in a row), NCCL's tree is a chain inside each machine, NVLink
// SHARP adds in the switch. So the bound takes the worst order there is: any way of adding G
// numbers leaves each of them under at most G - 1 additions. For G = 1 and 2 that equals
// ceil(log2 G), the depth of a balanced tree; past 2 it is larger, and safe whatever NCCL chooses.
inline std::size_t combine_depth(int gpus) { return gpus > 1 ? static_cast<std::size_t>(gpus - 1) : 0; }

// The reference of the whole array from the references of its shards, in rank order: the same
// tree one level up, on the CPU. Each process then needs only its own part in memory, which is
// what lets the mpirun path span machines.
//  - integers: the shards' sums added with the same wrap-around modulo 2^32, so the total is
//    exact. `wrapped` says whether a shard's sum or the total left the 32-bit range (a shard that
//    wrapped marks the total as wrapped too, which is the rare case where that note is cautious).
//  - floats: the wider sums added in long double; the magnitudes (sum |x|) and error bounds add,
//    plus the rounding of those G - 1 long double additions. Each shard's sum of magnitudes fit in
//    T (reference_sum refuses it otherwise), but together they may not: a float sum past T's
//    largest value is refused here as reference_sum refuses it for one array (status 2).
template <typename T>
reduction::Reference<T> combine_references(const std::vector<reduction::Reference<T>>& shards) {
  reduction::Reference<T> whole;
  if (shards.empty()) throw std::invalid_argument("combine_references: no shards");
  whole.exact = shards.front().exact;
  if constexpr (std::is_integral_v<T>) {
    std::uint32_t sum = 0;
    std::int64_t wide = 0;
    for (const auto& s : shards) {
      sum += static_cast<std::uint32_t>(s.value);
      wide += static_cast<std::int64_t>(s.value);
      whole.wrapped = whole.wrapped || s.wrapped;
    }
    whole.value = static_cast<T>(sum);
    whole.precise = static_cast<long double>(whole.value);
    whole.wrapped = whole.wrapped || wide != static_cast<std::int64_t>(whole.value);
  } else {
    long double precise = 0, magnitude = 0, error = 0;
    for (const auto& s : shards) {
      precise += s.precise;
      magnitude += s.magnitude;
      error += s.error;
    }
    whole.precise = precise;
    whole.value = static_cast<T>(precise);
    whole.magnitude = magnitude;
    whole.error = error + reduction::gamma_bound<long double>(shards.size()) * magnitude;
    if (shards.size() > 1)  // one shard: reference_sum has checked it
      reduction::detail::check_fits<T>("sum", magnitude, "the sum of the elements' magnitudes");
  }
  return whole;
}

// NCCL's tests report a collective's speed twice (nccl-tests, doc/PERFORMANCE.md):
//  - algorithm bandwidth: the bytes of the vector over the time, as a user sees it;
//  - bus bandwidth: what each GPU's links carried, comparable with the links' peak whatever G is.
//    An all-reduce of S bytes must bring each GPU the other G - 1 GPUs' contributions and send
//    its own: 2 (G - 1) / G x S bytes in each direction, with a ring. One GPU moves nothing.
inline double algorithm_bandwidth_gbps(std::size_t bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(bytes) / seconds / 1e9 : 0.0;
}
inline double bus_bandwidth_gbps(double algorithm_gbps, int gpus) {
  return gpus > 1 ? algorithm_gbps * 2.0 * (gpus - 1) / gpus : 0.0;
}
// Bytes each GPU sends (and receives) in a ring all-reduce of `bytes`.
inline double allreduce_bytes_per_gpu(std::size_t bytes, int gpus) {
  return gpus > 1 ? static_cast<double>(bytes) * 2.0 * (gpus - 1) / gpus : 0.0;
}

// The vector sizes of the all-reduce sweep: one element, then 4 times larger each step, up to
// max_bytes (4 B, 16 B, ... 256 MiB, 1 GiB for int and float). Empty when max_bytes is below one
// element (--vector-max 0 turns the sweep off).
inline std::vector<std::size_t> allreduce_sizes(std::size_t element_bytes, std::size_t max_bytes) {
  std::vector<std::size_t> sizes;
  for (std::size_t bytes = element_bytes; bytes > 0 && bytes <= max_bytes; bytes *= 4) {
    sizes.push_back(bytes);
    if (bytes > max_bytes / 4) break;
  }
  return sizes;
}

// The interconnect's peak as NVIDIA's datasheets give it, for the GPUs this chapter was measured
// on: a vendor's figure, never a measurement. The CUDA runtime does not report NVLink's speed
// (NVML does, and this project does not depend on it). NVLink 4 on H100 SXM and H200: 18 links,
// 900 GB/s per GPU counting both directions, so 450 GB/s each way, which is what bus bandwidth
// is compared with.
struct VendorLinkPeak {
  const char* name_contains;
  double total_gbps;  // both directions together, as the datasheet states it
  const char* description;
};
inline const VendorLinkPeak* vendor_link_peak(const std::string& device_name) {
  static const VendorLinkPeak known[] = {
      {"H200", 900, "NVLink 4, 18 links: 900 GB/s per GPU, both directions (NVIDIA H200 datasheet)"},
      {"H100 80GB HBM3", 900, "NVLink 4, 18 links: 900 GB/s per GPU, both directions (NVIDIA H100 SXM datasheet)"},
  };
  for (const auto& k : known)
    if (device_name.find(k.name_contains) != std::string::npos) return &k;
  return nullptr;
}

}  // namespace ch10
