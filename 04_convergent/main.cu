// Chapter 04 program: the convergent kernel. Prints the kernel's execution-resource and memory
// model for n, computed on the CPU, then checks and times the kernel on the GPU; with --trace, the
// reduction step by step as the kernel recorded it (as the model predicts it, without a GPU).
//   04_convergent [--n N] [--rows R] [--type int|float|double] [--input FILE] [--trace] [--json]
// n runs from 1 to 2048, --rows as in chapter 03. common/driver.cuh runs it, as it runs every GPU
// chapter; common/single_block_chapter.cuh holds what the chapters of one block add to it.
#include "common/single_block_chapter.cuh"
#include "convergent.cuh"
#include "model.hpp"

int main(int argc, char** argv) {
  return reduction::run_chapter<reduction::SingleBlockChapter<ch04::Kernel, ch04::Model>>(
      argc, argv, "04_convergent", "the convergent kernel: the stride halving, active threads packed in the fewest warps");
}
