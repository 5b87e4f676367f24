// Chapter 03 program: the simple kernel. Prints the kernel's execution-resource and memory model
// for n, computed on the CPU, then checks and times the kernel on the GPU; with --trace, the
// reduction step by step as the kernel recorded it (as the model predicts it, without a GPU).
//   03_simple_kernel [--n N] [--type int|float|double] [--input FILE] [--trace] [--json]
// n runs from 1 to 2048. The block size follows from n (n/2 threads, rounded up to a power of
// two), so there is no --block option. The program's frame is common/single_block_program.cuh.
#include "common/single_block_program.cuh"
#include "model.hpp"
#include "simple_kernel.cuh"

using namespace reduction;
namespace sb = reduction::single_block;

namespace {

struct Chapter {
  static constexpr const char* kernel_header = "simple_kernel.cuh";
  static constexpr bool in_place = true;
  template <typename T> static Variant<SingleBlockLaunch<T>> variant() { return ch03::variant<T>(); }
  template <typename T> static auto recorded_kernel() { return &ch03::simple_kernel<T, BlockRecorder>; }
  static sb::BlockCounts model(std::size_t n, std::size_t element_bytes) { return ch03::model(n, element_bytes); }
  template <typename T> static sb::Trace<T> trace(const std::vector<T>& input) { return ch03::trace(input); }

  static void analyze(std::ostream& text, Json& fields, const sb::BlockCounts& counts, std::size_t n, unsigned threads,
                      std::size_t element_bytes, const char* type) {
    (void)threads;
    (void)element_bytes;
    const sb::ClosedForm text_form = ch03::text_closed_form(n);
    text << "\n";
    sb::print_execution_model(text, counts, ch03::activity_predicate(), text_form, type);
    text << "\n";
    sb::print_memory(text, counts, type);
    fields.set("efficiency", sb::efficiency_json(counts));
    fields.set("text_closed_form", sb::closed_form_json(text_form));
  }
};

}  // namespace

int main(int argc, char** argv) {
  ChapterInfo info;
  info.name = "03_simple_kernel";
  info.title = "the simple kernel: one block of n/2 threads, the stride doubling from 1";
#ifdef REDUCTION_EXERCISE_UNFINISHED
  const bool unfinished = true;
#else
  const bool unfinished = false;
#endif
  return sb::run_program<Chapter>(argc, argv, info, unfinished);
}
