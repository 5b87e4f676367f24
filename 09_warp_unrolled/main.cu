// Chapter 09 program: the warp-level finish, the unrolled tree, shuffles and `fastest`, each
// checked and timed beside cub::DeviceReduce in one table (column vs_cub), against the copy and
// read ceilings measured in the same run. common/driver.cuh runs it; analysis.cuh says what it
// explains.
//   09_warp_unrolled [--kernel K,...] [--op sum|max|min] [--type int|float|double] [--n N] [--block B]
//                    [--hot-l2] [--input FILE] [--json]
//   09_warp_unrolled --sizes LIST|standard [--op sum|max|min|all] [--kernel K,K] [--type ...] [--json]
// --sizes times fastest against cub (or the kernels named) at many sizes in one process, one row
// per size and operator (benchmark/sweep.py drives it for the three types).
#include "analysis.cuh"
#include "common/driver.cuh"
#include "warp_unrolled.cuh"

using namespace reduction;

struct WarpUnrolled : ChapterDefaults {
  static ChapterInfo info(const std::string& name, const std::string& title) {
    ChapterInfo info = multi_block_info(name, title);
    info.check_block = power_of_two_block(1, 1024);  // unrolled takes any block; the registry says which need 32
    info.default_n = std::size_t(1) << 28;            // 1 GiB of int: twenty times an H100's L2
    return info;
  }
  template <typename Op, typename T> static auto variants() { return ch09::variants<Op, T>(); }
  static constexpr bool has_ops = true, has_sizes = true, read_ceiling = true;
  static constexpr const char* baseline = "cub";
  static std::vector<std::string> sizes_kernels() { return {"fastest", "cub"}; }

  template <typename Op, typename T> static void analyze(Analysis<T>& a) { ch09::analyze<Op, T>(a); }
  template <typename Op, typename T> static void analyze_gpu(Analysis<T>& a, const DeviceInfo& d) {
    ch09::analyze_gpu<Op, T>(a, d);
  }
  static void conclude(Report& report, const std::vector<RunResult>& runs, bool) { ch09::conclude(report, runs); }
  template <typename T> static void analyze_sizes(std::ostream& text) { ch09::analyze_sizes<T>(text); }
  template <typename Op, typename T> static std::string size_row(std::size_t n, Json& row) {
    return ch09::size_row<Op, T>(n, row);
  }
};

#ifndef REDUCTION_EXERCISE_UNFINISHED
#define REDUCTION_EXERCISE_UNFINISHED 0
#endif
int main(int argc, char** argv) {
  return run_chapter<WarpUnrolled>(
      argc, argv, "09_warp_unrolled",
      "the warp: a barrier-free finish, the unrolled tree, shuffles, and the library ceiling",
      REDUCTION_EXERCISE_UNFINISHED);
}
