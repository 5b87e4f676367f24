// Chapter 04 program: the convergent kernel. Prints the kernel's execution-resource and memory
// model for n, computed on the CPU, then checks and times the kernel on the GPU; with --trace, the
// reduction step by step as the kernel recorded it (as the model predicts it, without a GPU).
//   04_convergent [--n N] [--type int|float|double] [--input FILE] [--trace] [--json]
// n runs from 1 to 2048. The block size follows from n (n/2 threads, rounded up to a power of
// two), so there is no --block option. The program's frame is common/single_block_program.cuh.
#include "common/single_block_program.cuh"
#include "model.hpp"
#include "convergent.cuh"

using namespace reduction;
namespace sb = reduction::single_block;

namespace {

struct Chapter {
  static constexpr const char* kernel_header = "convergent.cuh";
  static constexpr bool in_place = true;
  template <typename T> static Variant<SingleBlockLaunch<T>> variant() { return ch04::variant<T>(); }
  template <typename T> static auto recorded_kernel() { return &ch04::convergent_kernel<T, BlockRecorder>; }
  static sb::BlockCounts model(std::size_t n, std::size_t element_bytes) { return ch04::model(n, element_bytes); }
  template <typename T> static sb::Trace<T> trace(const std::vector<T>& input) { return ch04::trace(input); }

  static void analyze(std::ostream& text, Json& fields, const sb::BlockCounts& counts, std::size_t n, unsigned threads,
                      std::size_t element_bytes, const char* type) {
    (void)threads;
    (void)element_bytes;
    const sb::ClosedForm text_form = ch04::text_closed_form(n);
    text << "\n";
    sb::print_execution_model(text, counts, ch04::activity_predicate(), text_form, type);
    text << "\n";
    sb::print_memory(text, counts, type);
    fields.set("efficiency", sb::efficiency_json(counts));
    fields.set("text_closed_form", sb::closed_form_json(text_form));
  }
};

}  // namespace

int main(int argc, char** argv) {
  ChapterInfo info;
  info.name = "04_convergent";
  info.title = "the convergent kernel: the stride halving, active threads packed in the fewest warps";
#ifdef REDUCTION_EXERCISE_UNFINISHED
  const bool unfinished = true;
#else
  const bool unfinished = false;
#endif
  return sb::run_program<Chapter>(argc, argv, info, unfinished);
}
