// Chapter 10's arithmetic, none of which needs a GPU (the CPU tests check it all): the split over
// G GPUs, each process's part of the random input, the whole array's reference put together from
// its parts', the depth of step 2 for the float bound, and a collective's bandwidth figures.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
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

// Shard `rank` of `gpus` over n elements: contiguous, in rank order, as equal as whole elements
// allow (the first n % G hold one more). With n < G the last G - n are empty.
inline Shard shard_of(std::size_t n, int gpus, int rank) {
  if (gpus < 1 || rank < 0 || rank >= gpus) throw std::invalid_argument("shard_of: rank must be in [0, gpus)");
  const std::size_t g = static_cast<std::size_t>(gpus), r = static_cast<std::size_t>(rank);
  const std::size_t base = n / g, extra = n % g;
  return {r * base + std::min(r, extra), base + (r < extra ? 1 : 0)};
}

// The most elements any one GPU holds: shard 0's.
inline std::size_t largest_shard(std::size_t n, int gpus) { return shard_of(n, gpus, 0).count; }

// Elements [part.begin, part.end()) of generate_input(n, seed), made alone (element i depends only
// on the seed and i): each process makes its own part, never the whole array.
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

// The rounded additions step 2 may add to an element's path, for the float bound: G - 1, the worst
// order there is (README, "Floats: the order and the bound").
inline std::size_t combine_depth(int gpus) { return gpus > 1 ? static_cast<std::size_t>(gpus - 1) : 0; }

// The whole array's reference from its shards', in rank order, so that each process needs only its
// own part in memory. Integers: the sums added modulo 2^32, exact. Floats: the wide sums, the
// magnitudes and the error bounds added, plus the rounding of those additions; a total whose
// magnitudes do not fit T is refused (status 2), as reference_sum refuses one array's.
template <typename T>
reduction::Reference<T> combine_references(const std::vector<reduction::Reference<T>>& shards) {
  reduction::Reference<T> whole;
  if (shards.empty()) throw std::invalid_argument("combine_references: no shards");
  whole.exact = shards.front().exact;
  if constexpr (std::is_integral_v<T>) {
    std::int64_t wide = 0;  // the shards' values added without wrapping
    for (const auto& s : shards) {
      wide += static_cast<std::int64_t>(s.value);
      whole.wrapped = whole.wrapped || s.wrapped;
    }
    whole.value = static_cast<T>(static_cast<std::uint32_t>(wide));  // modulo 2^32, as the GPU's adds
    whole.precise = static_cast<long double>(whole.value);
    whole.wrapped = whole.wrapped || wide != static_cast<std::int64_t>(whole.value);
  } else {
    for (const auto& s : shards) {
      whole.precise += s.precise;
      whole.magnitude += s.magnitude;
      whole.error += s.error;
    }
    whole.value = static_cast<T>(whole.precise);
    whole.error += reduction::gamma_bound<long double>(shards.size()) * whole.magnitude;
    if (shards.size() > 1)  // one shard: reference_sum has checked it
      reduction::detail::check_fits<T>("sum", whole.magnitude, "the sum of the elements' magnitudes");
  }
  return whole;
}

// A collective's speed as nccl-tests reports it (doc/PERFORMANCE.md): algorithm bandwidth, the
// vector's bytes over the time; bus bandwidth, what each GPU's links carried each way.
inline double algorithm_bandwidth_gbps(std::size_t bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(bytes) / seconds / 1e9 : 0.0;
}
// What each GPU sends (and receives) in a ring all-reduce, per byte of the vector: 2 (G - 1) / G.
inline double ring_factor(int gpus) { return gpus > 1 ? 2.0 * (gpus - 1) / gpus : 0.0; }
inline double bus_bandwidth_gbps(double algorithm_gbps, int gpus) { return algorithm_gbps * ring_factor(gpus); }
inline double allreduce_bytes_per_gpu(std::size_t bytes, int gpus) { return double(bytes) * ring_factor(gpus); }

// The vector sizes of the sweep: one element, then 4 times larger, up to max_bytes (none below one).
inline std::vector<std::size_t> allreduce_sizes(std::size_t element_bytes, std::size_t max_bytes) {
  std::vector<std::size_t> sizes;
  for (std::size_t bytes = element_bytes; bytes > 0 && bytes <= max_bytes; bytes *= 4) {
    sizes.push_back(bytes);
    if (bytes > max_bytes / 4) break;
  }
  return sizes;
}

}  // namespace ch10
