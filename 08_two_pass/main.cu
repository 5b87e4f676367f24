// Chapter 08 program: the two-pass reduction with a grid sized from the device, and the three ways
// to combine the block partials, each checked and timed against the copy ceiling (common/driver.cuh
// runs it, and fails a deterministic finish whose float results differ between runs; analysis.cuh
// is the chapter as the driver sees it).
//   08_two_pass [--kernel finish_cpu,finish_atomic,finish_kernel] [--n N] [--type int|float|double]
//               [--block 32..1024] [--input FILE] [--json]
#include "analysis.cuh"

int main(int argc, char** argv) {
  return reduction::run_chapter<ch08::TwoPass>(
      argc, argv, "08_two_pass", "two passes: a grid-stride loop, then the block partials combined without atomics");
}
