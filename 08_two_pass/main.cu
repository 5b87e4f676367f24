// Chapter 08 program: the two-pass reduction with a grid sized from the device, and the three ways
// to combine the block partials, each checked and timed against the copy ceiling.
//   08_two_pass [--kernel finish_cpu,finish_atomic,finish_kernel] [--n N] [--type int|float|double] [--block 32..1024]
//               [--input FILE] [--json]
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "common/multi_block.cuh"
#include "common/program.hpp"
#include "common/reference.hpp"
#include "common/report.hpp"
#include "two_pass.cuh"

using namespace reduction;

int main(int argc, char** argv) {
  ChapterInfo info;
  info.name = "08_two_pass";
  info.title = "two passes: a grid-stride loop, then the block partials combined without atomics";
  info.has_block = true;
  info.default_block = 256;
  info.check_block = power_of_two_block(32, 1024);
  info.default_n = std::size_t(1) << 27;  // 512 MiB of int, ten times an H100's L2: the run measures memory
  info.device_room = device_room;  // a GPU too small for --n is told before the input is made

  for (const auto& variant : ch08::variants<int>()) info.kernels.push_back(variant.name);

  Options options;
  CommandLine cli(info, options);
  // --finish W is the chapter's older spelling of --kernel finish_W, kept as an alias.
  std::string finish = "all";
  cli.add_option("--finish", finish, "alias: --finish W is --kernel finish_W (all: each way in turn)",
                 {"cpu", "atomic", "kernel", "all"});
  cli.add_check([&]() -> std::optional<std::string> {
    if (finish == "all") return std::nullopt;
    if (options.kernels.size() != info.kernels.size())
      return std::string("--finish and --kernel both choose kernels; give one of them");
    options.kernels = {"finish_" + finish};
    return std::nullopt;
  });
  if (auto status = cli.parse(argc, argv)) return *status;

  return run_guarded(info.name, [&] {
    return with_input(info, options, [&](const auto& data, const std::string& source) {
      using T = typename std::decay_t<decltype(data)>::value_type;
#ifdef REDUCTION_EXERCISE_UNFINISHED  // said once the options and the input are known to be good
      std::cerr << info.name << ": the kernel in two_pass.cuh is not implemented yet\n";
#endif
      const std::size_t n = data.size();
      const int block = options.block;
      Report report(info, options);
      report.set_input(data_type_of<T>(), n, source);
      const auto ref = reference_sum(data.data(), n);
      describe_reference(report, ref);

      std::vector<MultiBlockVariant<T>> chosen;
      for (const auto& variant : ch08::variants<T>())
        for (const auto& name : options.kernels)
          if (name == variant.name) chosen.push_back(variant);

      auto& text = report.text();
      text << "pass 1     a grid of G blocks of " << block
           << " threads, G chosen from the device; thread g of the grid adds\n"
           << "           elements g, g + " << block << "G, g + " << 2 * block
           << "G, ... (a grid-stride loop), the block's tree takes " << ceil_log2(block) << " steps,\n"
           << "           and thread 0 stores the block's partial: G partials, no atomics\n"
           << "finish     combines the G partials (--kernel):\n"
           << "             finish_cpu     copied to the host, added in a loop, the sum copied back\n"
           << "             finish_atomic  each block atomicAdds its partial instead of storing it\n"
           << "             finish_kernel  the same kernel again, with one block, over the partials\n"
           << "memory     reads each of the " << n * sizeof(T) << " input bytes once\n";

      DeviceInfo device;
      if (auto status = open_gpu(report, device)) return *status;
      // Both flavours of the kernel use the same resources; the stored one stands for both here.
      const int resident = ch08::resident_blocks<ch08::Handoff::Store, T>(block);
      const int grid = ch08::grid_size<ch08::Handoff::Store, T>(n, block);
      const std::size_t grid_threads = std::size_t(grid) * block;
      text << "grid       the occupancy calculator fits " << resident / device.sm_count << " blocks of " << block
           << " threads on a multiprocessor; x " << device.sm_count << " multiprocessors = " << resident << " blocks"
           << (grid < resident ? "; n needs only " + std::to_string(grid) : std::string()) << ": G = " << grid << "\n"
           << "           each thread adds up to ceil(n / (G x " << block
           << ")) = " << (n + grid_threads - 1) / grid_threads << " elements in its loop\n"
           << "indices    " << index_width_note(n - 1 + grid_threads) << "\n";
      if constexpr (!std::is_integral_v<T>)
        text << "rounding   each finish is checked against the bound of its own order (column tolerance); cpu and\n"
                "           kernel add in an order fixed by the code, so their run_spread must be 0; atomic adds\n"
                "           in the order the blocks finish, which changes from run to run\n";
      report.fields().set("grid", grid);
      report.fields().set("resident_blocks", resident);

      MultiBlockBench<T> bench(data, ref, options, device);
      for (const auto& variant : chosen) {
        RunResult run = bench.run(variant);
        // A finish without atomics that gave two different floats has broken its promise.
        if (variant.deterministic && !ref.exact && run.extra.is_object())
          for (const auto& kv : run.extra.items())
            if (kv.first == "run_spread" && kv.second.as_double() != 0) {
              run.correct = false;
              report.summary() << variant.name << " gave different results on different runs: it should not\n";
            }
        report.add_run(run);
      }
      bench.describe(report);
      return report.finish();
    });
  });
}
