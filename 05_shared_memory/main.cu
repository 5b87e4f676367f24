// Chapter 05 program: the tree in shared memory. Prints the kernel's global-memory traffic for n,
// computed on the CPU, then checks and times the kernel on the GPU, and checks that it left its
// input unchanged; with --trace, the reduction step by step as the kernel recorded it (as the
// model predicts it, without a GPU).
//   05_shared_memory [--n N] [--type int|float|double] [--input FILE] [--trace] [--json]
// n runs from 1 to 2048. The block size follows from n (n/2 threads, rounded up to a power of
// two), so there is no --block option. The program's frame is common/single_block_program.cuh.
#include "common/single_block_program.cuh"
#include "model.hpp"
#include "shared_memory.cuh"

using namespace reduction;
namespace sb = reduction::single_block;

namespace {

struct Chapter {
  static constexpr const char* kernel_header = "shared_memory.cuh";
  static constexpr bool in_place = false;
  template <typename T> static Variant<SingleBlockLaunch<T>> variant() { return ch05::variant<T>(); }
  template <typename T> static auto recorded_kernel() { return &ch05::shared_memory_kernel<T, BlockRecorder>; }
  static sb::BlockCounts model(std::size_t n, std::size_t element_bytes) { return ch05::model(n, element_bytes); }
  template <typename T> static sb::Trace<T> trace(const std::vector<T>& input) { return ch05::trace(input); }

  static void analyze(std::ostream& text, Json& fields, const sb::BlockCounts& counts, std::size_t n, unsigned threads,
                      std::size_t element_bytes, const char* type) {
    text << "shared     " << threads * element_bytes << " bytes of partial sums in use, of the "
         << sb::kMaxThreads * element_bytes << " the kernel declares\n\n";
    sb::print_memory(text, counts, type);
    text << "  Every load is in the first step; the other " << sb::tree_steps(counts) - 1
         << " steps work in shared memory, and the one store\n"
         << "  is the result. Chapter 04's kernel, for the same n, loads two elements and stores one for each\n"
         << "  of the n - 1 additions, then loads the total: 2n - 1 = " << 2 * n - 1 << " reads and n = " << n
         << " writes.\n";
    (void)fields;
  }
};

}  // namespace

int main(int argc, char** argv) {
  ChapterInfo info;
  info.name = "05_shared_memory";
  info.title = "shared memory: global memory read once, the tree on chip, the input left as it was";
#ifdef REDUCTION_EXERCISE_UNFINISHED
  const bool unfinished = true;
#else
  const bool unfinished = false;
#endif
  return sb::run_program<Chapter>(argc, argv, info, unfinished);
}
