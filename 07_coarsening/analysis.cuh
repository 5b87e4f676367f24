// Chapter 07 as the driver (common/driver.cuh) runs it: its registry, the --coarse alias, the rule
// that ends its sweep, and what its program explains before its runs: the factors' table (the work
// per thread, the blocks, the tree's share) and, with a GPU, the registers and resident blocks the
// GPU gives each factor. After the runs the driver names the best factor and where the sweep stopped.
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "coarsening.cuh"
#include "common/driver.cuh"

namespace ch07 {

// A factor "stops paying" once its time is this much worse than the best so far; smaller
// differences are within the run-to-run noise of a median.
constexpr double kClearlySlower = 1.05;

inline int factor_of(const std::string& kernel) { return std::stoi(kernel.substr(6)); }  // "coarse16" -> 16

// What the occupancy calculator gives one factor's kernel.
template <typename T, int... kFactors>
reduction::Occupancy occupancy_for(int factor, int block, std::integer_sequence<int, kFactors...>) {
  reduction::Occupancy found{};
  ((kFactors == factor ? (found = reduction::occupancy_of(coarsened_kernel<kFactors, T>, block, block * sizeof(T)), 0)
                       : 0),
   ...);
  return found;
}

struct Coarsening : reduction::ChapterDefaults {
  template <typename Op, typename T> static auto variants() { return ch07::variants<T>(); }
  static constexpr bool unfinished = ch07::unfinished;
  // --coarse F is the chapter's older spelling of --kernel coarseF, kept for the exercises' text.
  static constexpr reduction::KernelAlias alias{"--coarse", "coarse", "0",
                                                "alias: --coarse F is --kernel coarseF, F a factor compiled into the "
                                                "program as a template argument; 0 sweeps them all"};
  // The sweep (every factor chosen) stops once a factor is clearly slower than the best so far.
  static constexpr reduction::SweepRule sweep{kClearlySlower, "coarsening costs more than it saves"};

  template <typename Op, typename T> static void analyze(reduction::Analysis<T>& a) {
    std::size_t largest_index = 0;  // the kernel computes 2F x block indices per block, some past the end
    a.text() << "Each thread adds 2 x F elements in a loop, then the block's tree of " << reduction::ceil_log2(a.block)
             << " steps and one atomicAdd per block\nfinish the job. For n = " << a.n << " and blocks of " << a.block
             << " threads:\n\n  factor F  elements per thread  blocks (= atomicAdds)  additions done in the tree\n";
    for (const auto& kernel : a.kernels) {
      const int f = factor_of(kernel);
      const std::size_t blocks = block_count(a.n, a.block, f);
      largest_index = std::max(largest_index, 2 * std::size_t(f) * a.block * blocks - 1);
      // Of the 2F x block - 1 additions a full block performs, block - 1 are the tree's.
      char line[128];
      std::snprintf(line, sizeof line, "  %-8d  %-19d  %-21zu  %.2f %%\n", f, 2 * f, blocks,
                    100.0 * (a.block - 1) / (2.0 * f * a.block - 1));
      a.text() << line;
      a.columns[kernel].set("blocks", blocks);
    }
    a.text() << "\nA larger F means fewer blocks, fewer atomics and less of the work in the tree, where barriers\n"
                "stall and threads idle. But a longer unrolled loop needs more registers, and a multiprocessor\n"
                "has 65536 of them: past a point fewer blocks fit at once, and with them fewer loads wait on\n"
                "memory (the table under gpu, with a GPU, shows the registers and resident blocks).\n"
             << "indices    " << reduction::index_width_note(largest_index) << "\n";
    if constexpr (!std::is_integral_v<T>)
      a.text() << "rounding   each factor sums in its own order: up to 2F - 1 additions in the loop, "
               << reduction::ceil_log2(a.block)
               << " in the tree,\n           and up to blocks - 1 atomics; each run is checked against that bound "
                  "(column tolerance).\n";
    if (a.device) analyze_occupancy<T>(a, *a.device);
  }

 private:
  // How many blocks run at once, per factor: the compiler gives a larger factor's unrolled loop more
  // registers, and past 32 registers a thread, fewer blocks of 256 threads fit.
  template <typename T> static void analyze_occupancy(reduction::Analysis<T>& a, const reduction::DeviceInfo& device) {
    a.text() << "\ngpu        " << device.sm_count << " multiprocessors of " << device.max_threads_per_sm
             << " threads; what the occupancy calculator fits on each:\n"
             << "  factor F  registers per thread  blocks per multiprocessor  resident blocks  waves of blocks\n";
    for (const auto& kernel : a.kernels) {
      const int f = factor_of(kernel);
      const reduction::Occupancy o = occupancy_for<T>(f, a.block, CoarseFactors{});
      const int resident = o.blocks_per_multiprocessor * device.sm_count;
      char line[160];
      std::snprintf(line, sizeof line, "  %-8d  %-20d  %-25d  %-15d  %.1f\n", f, o.registers_per_thread,
                    o.blocks_per_multiprocessor, resident,
                    resident ? double(block_count(a.n, a.block, f)) / resident : 0.0);
      a.text() << line;
      a.columns[kernel].set("registers", o.registers_per_thread);
      a.columns[kernel].set("blocks_per_sm", o.blocks_per_multiprocessor);
    }
    a.text() << "           Fewer resident blocks mean fewer warps with loads waiting on memory; fewer blocks than\n"
                "           resident ones (less than one wave) leave multiprocessors idle.\n";
  }
};

}  // namespace ch07
