// Chapter 08 as the driver (common/driver.cuh) runs it: its registry, the --finish alias, and what
// its program explains before its runs: the two passes and the three finishes and, with a GPU, the
// grid it chose from the occupancy calculator.
#pragma once

#include <string>

#include "common/driver.cuh"
#include "two_pass.cuh"

namespace ch08 {

struct TwoPass : reduction::ChapterDefaults {
  template <typename Op, typename T> static auto variants() { return ch08::variants<T>(); }
  static constexpr bool unfinished = ch08::unfinished;

  // --finish W is the chapter's older spelling of --kernel finish_W, kept as an alias.
  static constexpr reduction::KernelAlias alias{"--finish", "finish_", "all",
                                                "alias: --finish W is --kernel finish_W (all: each way in turn)"};

  template <typename Op, typename T> static void analyze(reduction::Analysis<T>& a) {
    const int block = a.block;
    a.text() << "pass 1     a grid of G blocks of " << block << " threads, G chosen from the device; thread g of the grid adds\n"
             << "           elements g, g + " << block << "G, g + " << 2 * block
             << "G, ... (a grid-stride loop), the block's tree takes " << reduction::ceil_log2(block) << " steps,\n"
             << "           and thread 0 stores the block's partial: G partials, no atomics\n"
             << "finish     combines the G partials (--kernel):\n"
             << "             finish_cpu     copied to the host, added in a loop, the sum copied back\n"
             << "             finish_atomic  each block atomicAdds its partial instead of storing it\n"
             << "             finish_kernel  the same kernel again, with one block, over the partials\n"
             << "memory     reads each of the " << a.n * sizeof(T) << " input bytes once\n";
    if (a.device) analyze_grid<T>(a, *a.device);
  }

 private:
  // The grid, chosen from the occupancy calculator: only a GPU can say it.
  template <typename T> static void analyze_grid(reduction::Analysis<T>& a, const reduction::DeviceInfo& device) {
    // Both flavours of the kernel use the same resources; the stored one stands for both here.
    const int block = a.block;
    const int resident = resident_blocks<Handoff::Store, T>(block);
    const int grid = grid_size<Handoff::Store, T>(a.n, block);
    const std::size_t grid_threads = std::size_t(grid) * block;
    a.text() << "grid       the occupancy calculator fits " << resident / device.sm_count << " blocks of " << block
             << " threads on a multiprocessor; x " << device.sm_count << " multiprocessors = " << resident << " blocks"
             << (grid < resident ? "; n needs only " + std::to_string(grid) : std::string()) << ": G = " << grid << "\n"
             << "           each thread adds up to ceil(n / (G x " << block
             << ")) = " << (a.n + grid_threads - 1) / grid_threads << " elements in its loop\n"
             << "indices    " << reduction::index_width_note(a.n - 1 + grid_threads) << "\n";
    if constexpr (!std::is_integral_v<T>)
      a.text() << "rounding   each finish is checked against the bound of its own order (column tolerance); cpu and\n"
                  "           kernel add in an order fixed by the code, so their run_spread must be 0; atomic adds\n"
                  "           in the order the blocks finish, which changes from run to run\n";
    a.fields().set("grid", grid);
    a.fields().set("resident_blocks", resident);
  }
};

}  // namespace ch08
