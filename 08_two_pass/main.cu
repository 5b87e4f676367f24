// Chapter 08 program: the two-pass reduction with a grid sized from the device, and the three ways
// to combine the block partials, each checked and timed against the copy ceiling (common/driver.cuh
// runs it, and fails a deterministic finish whose float results differ between runs).
//   08_two_pass [--kernel finish_cpu,finish_atomic,finish_kernel] [--n N] [--type int|float|double]
//               [--block 32..1024] [--input FILE] [--json]
#include "analysis.cuh"
#include "common/driver.cuh"
#include "two_pass.cuh"

using namespace reduction;

struct TwoPass : ChapterDefaults {
  template <typename Op, typename T> static auto variants() { return ch08::variants<T>(); }

  // --finish W is the chapter's older spelling of --kernel finish_W, kept as an alias.
  inline static std::string finish = "all";
  static void add_options(CommandLine& cli, Options& options) {
    cli.add_option("--finish", finish, "alias: --finish W is --kernel finish_W (all: each way in turn)",
                   {"cpu", "atomic", "kernel", "all"});
    cli.add_check([&options]() -> std::optional<std::string> {
      if (finish == "all") return std::nullopt;
      if (options.kernels.size() != ch08::variants<int>().size())
        return std::string("--finish and --kernel both choose kernels; give one of them");
      options.kernels = {"finish_" + finish};
      return std::nullopt;
    });
  }
  template <typename Op, typename T> static void analyze(Analysis<T>& a) { ch08::analyze<T>(a); }
  template <typename Op, typename T> static void analyze_gpu(Analysis<T>& a, const DeviceInfo& d) {
    ch08::analyze_gpu<T>(a, d);
  }
};

#ifndef REDUCTION_EXERCISE_UNFINISHED
#define REDUCTION_EXERCISE_UNFINISHED 0
#endif
int main(int argc, char** argv) {
  return run_chapter<TwoPass>(argc, argv, "08_two_pass",
                              "two passes: a grid-stride loop, then the block partials combined without atomics",
                              REDUCTION_EXERCISE_UNFINISHED);
}
