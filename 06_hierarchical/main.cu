// Chapter 06 program: the hierarchical reduction over any n, checked against the CPU reference and
// timed against a device-to-device copy measured in the same run (common/driver.cuh runs it).
//   06_hierarchical [--n N] [--type int|float|double] [--block 32..1024] [--input FILE] [--json] [--list]
#include "common/driver.cuh"
#include "hierarchical.cuh"

using namespace reduction;

struct Hierarchical : ChapterDefaults {
  template <typename Op, typename T> static auto variants() { return ch06::variants<T>(); }
  static constexpr bool unfinished = ch06::unfinished;

  template <typename Op, typename T> static void analyze(Analysis<T>& a) {
    const std::size_t blocks = ch06::block_count(a.n, a.block), segment = 2 * std::size_t(a.block);
    a.text() << "launch     " << blocks << " blocks of " << a.block << " threads; block b reduces the elements ["
             << segment << " b, " << segment << " b + " << segment << ")\n"
             << "work       each thread adds its 2 elements as it loads them, then the block's tree takes "
             << ceil_log2(a.block) << " steps,\n"
             << "           each behind a barrier; thread 0 of each block then adds the partial to the result:\n"
             << "           " << blocks << " atomicAdds, all on the same address\n"
             << "memory     reads each of the " << a.n * sizeof(T) << " input bytes once\n"
             << "indices    " << index_width_note(segment * blocks - 1) << "\n";
    if constexpr (!std::is_integral_v<T>) {
      const std::size_t depth = ch06::depth(a.n, a.block);
      a.text() << "rounding   an element meets at most " << depth << " rounded additions (1 with its pair, "
               << ceil_log2(a.block) << " in the tree, up to " << blocks - 1 << "\n           atomics): tolerance gamma("
               << depth << ") x sum|x| = " << static_cast<double>(tolerance(a.ref, depth))
               << ". The blocks finish in a different\n           order on every run, and so do the atomic additions: "
                  "run_spread shows how far apart runs came.\n";
    }
    a.fields().set("blocks", blocks);
    a.fields().set("atomic_adds", blocks);
  }
};

int main(int argc, char** argv) {
  return run_chapter<Hierarchical>(argc, argv, "06_hierarchical", "many blocks, one segment each, joined by atomicAdd");
}
