// Chapter 07 as the driver (common/driver.cuh) runs it: its registry, the --coarse alias, and what
// its program explains around its runs: the factors' table before them (the work per thread, the
// blocks, the tree's share), the registers and resident blocks the GPU gives each factor, and
// after them which factor won and where the sweep stopped.
#pragma once

#include <cstdio>
#include <optional>
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

inline std::size_t best_of(const std::vector<reduction::RunResult>& runs) {
  std::size_t best = 0;
  for (std::size_t k = 1; k < runs.size(); ++k)
    if (runs[k].time_ms < runs[best].time_ms) best = k;
  return best;
}

struct Coarsening : reduction::ChapterDefaults {
  template <typename Op, typename T> static auto variants() { return ch07::variants<T>(); }
  static constexpr bool unfinished = ch07::unfinished;

  static std::string factors() {
    std::string list;
    for (int f : coarse_factors()) list += (list.empty() ? "" : ", ") + std::to_string(f);
    return list;
  }
  // --coarse F is the chapter's older spelling of --kernel coarseF, kept for the exercises' text.
  inline static int coarse = 0;
  static void add_options(reduction::CommandLine& cli, reduction::Options& options) {
    cli.add_option("--coarse", coarse,
                   "alias: --coarse F is --kernel coarseF (F one of " + factors() + "); 0 sweeps them");
    cli.add_check([&options]() -> std::optional<std::string> {
      if (coarse == 0) return std::nullopt;
      for (int f : coarse_factors())
        if (f == coarse) {
          if (options.kernels.size() != coarse_factors().size())
            return std::string("--coarse and --kernel both choose kernels; give one of them");
          options.kernels = {"coarse" + std::to_string(f)};
          return std::nullopt;
        }
      return "--coarse must be 0 (sweep) or one of " + factors() +
             " (each factor is a template argument compiled into the program), got " + std::to_string(coarse);
    });
  }

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
  }

  // How many blocks run at once, per factor: the compiler gives a larger factor's unrolled loop more
  // registers, and past 32 registers a thread, fewer blocks of 256 threads fit.
  template <typename Op, typename T>
  static void analyze_gpu(reduction::Analysis<T>& a, const reduction::DeviceInfo& device) {
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
    }
    a.text() << "           Fewer resident blocks mean fewer warps with loads waiting on memory; fewer blocks than\n"
                "           resident ones (less than one wave) leave multiprocessors idle.\n";
  }

  template <typename Op, typename T>
  static void add_columns(const reduction::Analysis<T>& a, reduction::RunResult& run) {
    const int f = factor_of(run.kernel);
    const reduction::Occupancy o = occupancy_for<T>(f, a.block, CoarseFactors{});
    run.extra.set("blocks", block_count(a.n, a.block, f));
    run.extra.set("registers", o.registers_per_thread);
    run.extra.set("blocks_per_sm", o.blocks_per_multiprocessor);
  }

  // The sweep (every factor chosen) stops once a factor is clearly slower than the best so far.
  static bool keep_going(const std::vector<reduction::RunResult>& runs, bool sweep) {
    return !sweep || runs.back().time_ms <= kClearlySlower * runs[best_of(runs)].time_ms;
  }

  static void conclude(reduction::Report& report, const std::vector<reduction::RunResult>& runs, bool sweep) {
    const reduction::RunResult& winner = runs[best_of(runs)];
    auto& summary = report.summary();
    char line[256];
    if (runs.size() > 1) {
      std::snprintf(line, sizeof line, "best       %s: %.1f GB/s, %.1f%% of the copy, %.2fx the throughput of %s\n",
                    winner.kernel.c_str(), winner.gbps, reduction::column_of(winner, "pct_of_copy"),
                    winner.gbps / runs.front().gbps,
                    runs.front().kernel.c_str());
      summary << line;
      const reduction::RunResult& last = runs.back();
      if (sweep && last.time_ms > kClearlySlower * winner.time_ms) {
        std::snprintf(line, sizeof line,
                      "sweep      stopped at %s, %.0f%% slower than %s: past there, coarsening costs more than it saves\n",
                      last.kernel.c_str(), 100 * (last.time_ms / winner.time_ms - 1), winner.kernel.c_str());
        summary << line;
      } else {
        summary << "sweep      no factor up to " << factor_of(last.kernel) << " was clearly slower than the best so far\n";
      }
    }
    report.fields().set("best", winner.kernel);
    report.fields().set("best_factor", factor_of(winner.kernel));
  }
};

}  // namespace ch07
