// Chapter 03 program: the simple kernel. Prints the kernel's execution-resource and memory model
// for n, computed on the CPU, then checks and times the kernel on the GPU; with --trace, the
// reduction step by step as the kernel recorded it (as the model predicts it, without a GPU).
//   03_simple_kernel [--n N] [--rows R] [--type int|float|double] [--input FILE] [--trace] [--json]
// n runs from 1 to 2048. The block size follows from n (n/2 threads, rounded up to a power of
// two), so there is no --block option. --rows R reduces R rows of n elements, one block each,
// which is work enough to time against memory. common/driver.cuh runs it, as it runs every GPU
// chapter; common/single_block_chapter.cuh holds what the chapters of one block add to it.
#include "common/single_block_chapter.cuh"
#include "model.hpp"
#include "simple_kernel.cuh"

int main(int argc, char** argv) {
  return reduction::run_chapter<reduction::SingleBlockChapter<ch03::Kernel, ch03::Model>>(
      argc, argv, "03_simple_kernel", "the simple kernel: one block of n/2 threads, the stride doubling from 1");
}
