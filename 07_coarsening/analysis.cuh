// Chapter 07's analysis, which main.cu prints before the runs: for each factor F chosen, the work
// of a thread, the blocks and the tree's share of the additions; and with a GPU, the registers and
// the resident blocks that the occupancy calculator gives each factor's kernel.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels.cuh"
#include "common/gpu.cuh"
#include "common/ops.hpp"
#include "common/reference.hpp"

namespace ch07 {

inline int factor_of(const std::string& kernel) { return std::stoi(kernel.substr(6)); }  // "coarse16" -> 16

// The factors' table, the largest index the kernels compute, and for floats their rounding.
template <typename T>
void describe_factors(std::ostream& out, const std::vector<int>& factors, std::size_t n, int block) {
  std::size_t largest_index = 0;  // the kernel computes 2F x block indices per block, some past the end
  out << "Each thread adds 2 x F elements in a loop, then the block's tree of " << reduction::ceil_log2(block)
      << " steps and one atomicAdd per block\nfinish the job. For n = " << n << " and blocks of " << block
      << " threads:\n\n  factor F  elements per thread  blocks (= atomicAdds)  additions done in the tree\n";
  for (int f : factors) {
    const std::size_t blocks = block_count(n, block, f);
    largest_index = std::max(largest_index, 2 * std::size_t(f) * block * blocks - 1);
    // Of the 2F x block - 1 additions a full block performs, block - 1 are the tree's.
    char line[128];
    std::snprintf(line, sizeof line, "  %-8d  %-19d  %-21zu  %.2f %%\n", f, 2 * f, blocks,
                  100.0 * (block - 1) / (2.0 * f * block - 1));
    out << line;
  }
  out << "\nA larger F means fewer blocks, fewer atomics and less of the work in the tree, where barriers\n"
         "stall and threads idle. But a longer unrolled loop needs more registers, and a multiprocessor\n"
         "has 65536 of them: past a point fewer blocks fit at once, and with them fewer loads wait on\n"
         "memory (the table under gpu, with a GPU, shows the registers and resident blocks).\n"
      << "indices    " << reduction::index_width_note(largest_index) << "\n";
  if constexpr (!std::is_integral_v<T>)
    out << "rounding   each factor sums in its own order: up to 2F - 1 additions in the loop, "
        << reduction::ceil_log2(block)
        << " in the tree,\n           and up to blocks - 1 atomics; each run is checked against that bound "
           "(column tolerance).\n";
}

// What the occupancy calculator weighs for a kernel (besides the thread limit and shared memory),
// and what it answers: the registers the compiler gave it (nvcc -Xptxas -v prints them too).
struct Occupancy {
  int registers_per_thread = 0;
  int blocks_per_multiprocessor = 0;
};

// What the occupancy calculator gives the kernel of one factor: each factor is a kernel of its own
// (a template argument), so the factor is looked up among those compiled, CoarseFactors.
template <typename T, int... kFactors>
Occupancy occupancy_for(int factor, int block, std::integer_sequence<int, kFactors...>) {
  const void* kernel = nullptr;
  ((kernel = kFactors == factor ? reinterpret_cast<const void*>(coarsened_kernel<kFactors, T>) : kernel), ...);
  if (!kernel) return {};
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  Occupancy o;
  o.registers_per_thread = attributes.numRegs;
  CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o.blocks_per_multiprocessor, kernel, block, block * sizeof(T)));
  return o;
}

// How many blocks run at once, per factor (README.md says why a larger factor may fit fewer).
// Returns each factor's occupancy, in the order of `factors`.
template <typename T>
std::vector<Occupancy> describe_occupancy(std::ostream& out, const reduction::DeviceInfo& device,
                                                     const std::vector<int>& factors, std::size_t n, int block) {
  std::vector<Occupancy> occupancy;
  out << "\ngpu        " << device.sm_count << " multiprocessors of " << device.max_threads_per_sm
      << " threads; what the occupancy calculator fits on each:\n"
      << "  factor F  registers per thread  blocks per multiprocessor  resident blocks  waves of blocks\n";
  for (int f : factors) {
    const Occupancy o = occupancy_for<T>(f, block, CoarseFactors{});
    const int resident = o.blocks_per_multiprocessor * device.sm_count;
    char line[160];
    std::snprintf(line, sizeof line, "  %-8d  %-20d  %-25d  %-15d  %.1f\n", f, o.registers_per_thread,
                  o.blocks_per_multiprocessor, resident, resident ? double(block_count(n, block, f)) / resident : 0.0);
    out << line;
    occupancy.push_back(o);
  }
  out << "           Fewer resident blocks mean fewer warps with loads waiting on memory; fewer blocks than\n"
         "           resident ones (less than one wave) leave multiprocessors idle.\n";
  return occupancy;
}

}  // namespace ch07
