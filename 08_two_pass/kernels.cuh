// Chapter 08's registry: its three ways to finish, listed once for the program, its tests and the
// benchmark, with the depth of each finish's order of additions; and the width of index that
// thread_partial needs, which the program explains. The kernels and their launchers are in
// solution/two_pass.cuh.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "common/gpu.cuh"  // Variant, MultiBlockLaunch
#include "two_pass.cuh"

namespace ch08 {

// The rounded additions among grid_stride_additions, what common/reference.hpp turns into a float
// tolerance: the loop's first addition, into the identity, is exact. n must be at least 1.
inline std::size_t grid_stride_rounded_additions(std::size_t n, std::size_t threads, std::size_t tree_levels) {
  return grid_stride_additions(n, threads, tree_levels) - 1;
}

// Depths of the three finishes (README.md, "Rounding"): the first pass, then a chain of up to
// grid - 1 rounded additions (the host's loop, or the atomics), or a second pass with one block.
template <Handoff kHandoff, typename T>
std::size_t depth_finish_chain(std::size_t n, int block) {
  const int grid = grid_size<kHandoff, T>(n, block);
  return grid_stride_rounded_additions(n, std::size_t(grid) * block, reduction::ceil_log2(block)) + grid - 1;
}
template <typename T>
std::size_t depth_finish_kernel(std::size_t n, int block) {
  const int grid = grid_size<Handoff::Store, T>(n, block);
  const std::size_t tree = reduction::ceil_log2(block);
  return grid_stride_rounded_additions(n, std::size_t(grid) * block, tree) +
         grid_stride_rounded_additions(grid, block, tree);
}

template <typename T>
std::vector<reduction::Variant<reduction::MultiBlockLaunch<T>>> variants() {
  return {
      {"finish_cpu", "the host adds the block partials", launch_finish_cpu<T>, depth_finish_chain<Handoff::Store, T>,
       true},
      {"finish_atomic", "each block atomicAdds its partial", launch_finish_atomic<T>,
       depth_finish_chain<Handoff::AtomicAdd, T>, false},
      {"finish_kernel", "the same kernel, one block, adds the partials", launch_finish_kernel<T>,
       depth_finish_kernel<T>, true},
  };
}

// The largest index thread_partial computes for n elements and `grid_threads` threads (G x B), the
// width its index needs: thread g's last test of the four-loads loop, the first value of
// g + 3 GB + 4 GB m (m = 0, 1, ...) that reaches n. Over the threads, that is n plus the largest
// (g + 3 GB - n) mod 4 GB, at most n - 1 + 4 GB.
inline std::size_t largest_index_computed(std::size_t n, std::size_t grid_threads) {
  const std::size_t round = kLoadsInFlight * grid_threads;
  const std::size_t first = ((kLoadsInFlight - 1) * grid_threads % round + round - n % round) % round;  // g = 0
  return n + std::min(first + grid_threads - 1, round - 1);
}

}  // namespace ch08
