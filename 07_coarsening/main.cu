// Chapter 07 program: thread coarsening. By default it sweeps the coarsening factors upwards until
// one is clearly slower than the best so far, and names the best; --kernel coarseF (or the alias
// --coarse F) runs the factors named. common/driver.cuh runs it; analysis.cuh says what it explains.
//   07_coarsening [--kernel coarse1,...] [--n N] [--type int|float|double] [--block 32..1024] [--input FILE] [--json]
#include "analysis.cuh"
#include "coarsening.cuh"
#include "common/driver.cuh"

using namespace reduction;

struct Coarsening : ChapterDefaults {
  template <typename Op, typename T> static auto variants() { return ch07::variants<T>(); }

  static std::string factors() {
    std::string list;
    for (int f : ch07::coarse_factors()) list += (list.empty() ? "" : ", ") + std::to_string(f);
    return list;
  }
  // --coarse F is the chapter's older spelling of --kernel coarseF, kept for the exercises' text.
  inline static int coarse = 0;
  static void add_options(CommandLine& cli, Options& options) {
    cli.add_option("--coarse", coarse, "alias: --coarse F is --kernel coarseF (F one of " + factors() + "); 0 sweeps them");
    cli.add_check([&options]() -> std::optional<std::string> {
      if (coarse == 0) return std::nullopt;
      for (int f : ch07::coarse_factors())
        if (f == coarse) {
          if (options.kernels.size() != ch07::coarse_factors().size())
            return std::string("--coarse and --kernel both choose kernels; give one of them");
          options.kernels = {"coarse" + std::to_string(f)};
          return std::nullopt;
        }
      return "--coarse must be 0 (sweep) or one of " + factors() +
             " (each factor is a template argument compiled into the program), got " + std::to_string(coarse);
    });
  }
  template <typename Op, typename T> static void analyze(Analysis<T>& a) { ch07::analyze(a); }
  template <typename Op, typename T> static void analyze_gpu(Analysis<T>& a, const DeviceInfo& d) { ch07::analyze_gpu(a, d); }
  template <typename Op, typename T> static void add_columns(const Analysis<T>& a, RunResult& r) { ch07::add_columns(a, r); }
  static bool keep_going(const std::vector<RunResult>& runs, bool sweep) { return ch07::keep_going(runs, sweep); }
  static void conclude(Report& r, const std::vector<RunResult>& runs, bool sweep) { ch07::conclude(r, runs, sweep); }
};

#ifndef REDUCTION_EXERCISE_UNFINISHED
#define REDUCTION_EXERCISE_UNFINISHED 0
#endif
int main(int argc, char** argv) {
  return run_chapter<Coarsening>(argc, argv, "07_coarsening", "thread coarsening: more elements per thread, fewer blocks",
                                 REDUCTION_EXERCISE_UNFINISHED);
}
