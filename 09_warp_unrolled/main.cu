// Chapter 09 program: the warp-level finish, the unrolled tree, shuffles and `fastest`, each
// checked and timed beside cub::DeviceReduce in one table (column vs_cub), against the copy and
// read ceilings measured in the same run. common/driver.cuh runs it; analysis.cuh is the chapter
// as the driver sees it (its registry, its facts, and what it explains).
//   09_warp_unrolled [--kernel K,...] [--op sum|max|min] [--type int|float|double] [--n N] [--block B]
//                    [--hot-l2] [--input FILE] [--json]
//   09_warp_unrolled --sizes LIST|standard [--op sum|max|min|all] [--kernel K,K] [--type ...] [--json]
// --sizes times fastest against cub (or the kernels named) at many sizes in one process, one row
// per size and operator (benchmark/sweep.py drives it for the three types).
#include "analysis.cuh"

int main(int argc, char** argv) {
  return reduction::run_chapter<ch09::WarpUnrolled>(
      argc, argv, "09_warp_unrolled",
      "the warp: a barrier-free finish, the unrolled tree, shuffles, and the library ceiling");
}
