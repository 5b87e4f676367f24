// Chapter 06 program: the hierarchical reduction over any n, checked against the CPU reference and
// timed against a device-to-device copy measured in the same run.
//   06_hierarchical [--n N] [--type int|float|double] [--block 32..1024] [--input FILE] [--json]
#include <iostream>
#include <string>

#include "common/multi_block.cuh"
#include "common/program.hpp"
#include "common/reference.hpp"
#include "common/report.hpp"
#include "hierarchical.cuh"

using namespace reduction;

int main(int argc, char** argv) {
  ChapterInfo info;
  info.name = "06_hierarchical";
  info.title = "many blocks, one segment each, joined by atomicAdd";
  info.has_block = true;
  info.default_block = 256;
  info.check_block = power_of_two_block(32, 1024);
  info.default_n = std::size_t(1) << 27;  // 512 MiB of int, ten times an H100's L2: the run measures memory
  info.device_room = device_room;  // a GPU too small for --n is told before the input is made
  for (const auto& v : ch06::variants<int>()) info.variants.push_back({v.name, v.idea, v.deterministic});

  Options options;
  CommandLine cli(info, options);
  if (auto status = cli.parse(argc, argv)) return *status;

  return run_guarded(info.name, [&] {
    return with_input(info, options, [&](const auto& data, const std::string& source) {
      using T = typename std::decay_t<decltype(data)>::value_type;
#ifdef REDUCTION_EXERCISE_UNFINISHED  // said once the options and the input are known to be good
      std::cerr << info.name << ": the kernel in exercise/hierarchical.cuh is not implemented yet\n";
#endif
      const std::size_t n = data.size();
      const int block = options.block;
      Report report(info, options);
      report.set_input(data_type_of<T>(), n, source);
      const auto ref = reference_sum(data.data(), n);

      const std::size_t blocks = ch06::block_count(n, block);
      auto& text = report.text();
      text << "launch     " << blocks << " blocks of " << block << " threads; block b reduces the elements ["
           << 2 * block << " b, " << 2 * block << " b + " << 2 * block << ")\n"
           << "work       each thread adds its 2 elements as it loads them, then the block's tree takes "
           << ceil_log2(block) << " steps,\n"
           << "           each behind a barrier; thread 0 of each block then adds the partial to the result:\n"
           << "           " << blocks << " atomicAdds, all on the same address\n"
           << "memory     reads each of the " << n * sizeof(T) << " input bytes once\n"
           << "indices    " << index_width_note(2 * std::size_t(block) * blocks - 1) << "\n";
      if constexpr (!std::is_integral_v<T>) {
        const std::size_t depth = ch06::depth(n, block);
        text << "rounding   an element meets at most " << depth << " rounded additions (1 with its pair, "
             << ceil_log2(block) << " in the tree, up to " << blocks - 1 << "\n"
             << "           atomics): tolerance gamma(" << depth
             << ") x sum|x| = " << static_cast<double>(tolerance(ref, depth)) << ". The blocks finish in a different\n"
             << "           order on every run, and so do the atomic additions: run_spread shows how far apart runs "
                "came.\n";
      }
      report.fields().set("blocks", blocks);
      report.fields().set("atomic_adds", blocks);
      return run_multi_block_chapter(ch06::variants<T>(), data, ref, options, report);
    });
  });
}
