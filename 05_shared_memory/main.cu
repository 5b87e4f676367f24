// Chapter 05 program: the tree in shared memory. Prints the kernel's global-memory traffic for n,
// computed on the CPU, then checks and times the kernel on the GPU, and checks that it left its
// input unchanged; with --trace, the reduction step by step as the kernel recorded it (as the
// model predicts it, without a GPU).
//   05_shared_memory [--n N] [--rows R] [--type int|float|double] [--input FILE] [--trace] [--json]
// n runs from 1 to 2048, --rows as in chapter 03. common/driver.cuh runs it, as it runs every GPU
// chapter; common/single_block_chapter.cuh holds what the chapters of one block add to it.
#include "common/single_block_chapter.cuh"
#include "model.hpp"
#include "shared_memory.cuh"

int main(int argc, char** argv) {
  return reduction::run_chapter<reduction::SingleBlockChapter<ch05::Kernel, ch05::Model>>(
      argc, argv, "05_shared_memory", "shared memory: global memory read once, the tree on chip, the input left as it was");
}
