// Chapter 07 program: thread coarsening. By default it sweeps the coarsening factors upwards until
// one is clearly slower than the best so far, and names the best; --kernel coarseF (or the alias
// --coarse F) runs the factors named.
//   07_coarsening [--kernel coarse1,...] [--n N] [--type int|float|double] [--block 32..1024] [--input FILE] [--json]
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "coarsening.cuh"
#include "common/multi_block.cuh"
#include "common/program.hpp"
#include "common/reference.hpp"
#include "common/report.hpp"

using namespace reduction;

namespace {

// A factor "stops paying" once its time is this much worse than the best so far; smaller
// differences are within the run-to-run noise of a median.
constexpr double kClearlySlower = 1.05;

std::string list_of(const std::vector<int>& factors) {
  std::string s;
  for (int f : factors) s += (s.empty() ? "" : ", ") + std::to_string(f);
  return s;
}

// The occupancy of each factor's kernel, in the order of the factors.
template <typename T, int... kFactors>
std::vector<Occupancy> occupancy_for(std::integer_sequence<int, kFactors...>, int block) {
  return {occupancy_of(ch07::coarsened_kernel<kFactors, T>, block, block * sizeof(T))...};
}

}  // namespace

int main(int argc, char** argv) {
  ChapterInfo info;
  info.name = "07_coarsening";
  info.title = "thread coarsening: more elements per thread, fewer blocks";
  info.has_block = true;
  info.default_block = 256;
  info.check_block = power_of_two_block(32, 1024);
  info.default_n = std::size_t(1) << 27;  // 512 MiB of int, ten times an H100's L2: the run measures memory
  info.device_room = device_room;  // a GPU too small for --n is told before the input is made

  const std::vector<int> factors = ch07::coarse_factors();
  for (const auto& variant : ch07::variants<int>()) info.kernels.push_back(variant.name);

  Options options;
  CommandLine cli(info, options);
  // --coarse F is the chapter's older spelling of --kernel coarseF, kept for the exercises' text.
  int coarse = 0;
  cli.add_option("--coarse", coarse,
                 "alias: --coarse F is --kernel coarseF (F one of " + list_of(factors) + "); 0 sweeps them all");
  cli.add_check([&]() -> std::optional<std::string> {
    if (coarse == 0) return std::nullopt;
    for (int f : factors)
      if (f == coarse) {
        if (options.kernels.size() != info.kernels.size())
          return std::string("--coarse and --kernel both choose kernels; give one of them");
        options.kernels = {"coarse" + std::to_string(f)};
        return std::nullopt;
      }
    return "--coarse must be 0 (sweep) or one of " + list_of(factors) +
           " (each factor is a template argument compiled into the program), got " + std::to_string(coarse);
  });
  if (auto status = cli.parse(argc, argv)) return *status;

  return run_guarded(info.name, [&] {
    return with_input(info, options, [&](const auto& data, const std::string& source) {
      using T = typename std::decay_t<decltype(data)>::value_type;
#ifdef REDUCTION_EXERCISE_UNFINISHED  // said once the options and the input are known to be good
      std::cerr << info.name << ": the kernel in coarsening.cuh is not implemented yet\n";
#endif
      const std::size_t n = data.size();
      const int block = options.block;
      Report report(info, options);
      report.set_input(data_type_of<T>(), n, source);
      const auto ref = reference_sum(data.data(), n);
      describe_reference(report, ref);

      // The registry and the factors come in the same order; keep the chosen ones. With every
      // factor chosen (the default), the run is a sweep that stops once a factor is clearly slower.
      const auto all = ch07::variants<T>();
      std::vector<MultiBlockVariant<T>> chosen;
      std::vector<int> chosen_factors;
      for (std::size_t k = 0; k < all.size(); ++k)
        for (const auto& name : options.kernels)
          if (name == all[k].name) chosen.push_back(all[k]), chosen_factors.push_back(factors[k]);
      const bool sweep = chosen.size() == all.size();

      std::size_t largest_index = 0;  // the kernel computes 2F x block indices per block, some past the end
      for (int f : chosen_factors)
        largest_index = std::max(largest_index, 2 * std::size_t(f) * block * ch07::block_count(n, block, f) - 1);

      auto& text = report.text();
      text << "Each thread adds 2 x F elements in a loop, then the block's tree of " << ceil_log2(block)
           << " steps and one atomicAdd per block\nfinish the job. For n = " << n << " and blocks of " << block
           << " threads:\n\n"
           << "  factor F  elements per thread  blocks (= atomicAdds)  additions done in the tree\n";
      for (int f : chosen_factors) {
        // Of the 2F x block - 1 additions a full block performs, block - 1 are the tree's.
        const double tree_share = 100.0 * (block - 1) / (2.0 * f * block - 1);
        char line[128];
        std::snprintf(line, sizeof line, "  %-8d  %-19d  %-21zu  %.2f %%\n", f, 2 * f, ch07::block_count(n, block, f),
                      tree_share);
        text << line;
      }
      text << "\nA larger F means fewer blocks, fewer atomics and less of the work in the tree, where barriers\n"
              "stall and threads idle. But a longer unrolled loop needs more registers, and a multiprocessor\n"
              "has 65536 of them: past a point fewer blocks fit at once, and with them fewer loads wait on\n"
              "memory (the table under gpu, with a GPU, shows the registers and resident blocks).\n"
           << "indices    " << index_width_note(largest_index) << "\n";
      if constexpr (!std::is_integral_v<T>)
        text << "rounding   each factor sums in its own order: up to 2F - 1 additions in the loop, " << ceil_log2(block)
             << " in the tree,\n           and up to blocks - 1 atomics; each run is checked against that bound "
                "(column tolerance).\n";

      DeviceInfo device;
      if (auto status = open_gpu(report, device)) return *status;
      // How many blocks run at once, per factor: the compiler gives a larger factor's unrolled loop
      // more registers, and past 32 registers a thread, fewer blocks of 256 threads fit.
      const std::vector<Occupancy> all_occupancy = occupancy_for<T>(ch07::CoarseFactors{}, block);
      std::vector<Occupancy> occupancy;
      for (int f : chosen_factors)
        for (std::size_t k = 0; k < factors.size(); ++k)
          if (factors[k] == f) occupancy.push_back(all_occupancy[k]);
      text << "\ngpu        " << device.sm_count << " multiprocessors of " << device.max_threads_per_sm
           << " threads; what the occupancy calculator fits on each:\n"
           << "  factor F  registers per thread  blocks per multiprocessor  resident blocks  waves of blocks\n";
      for (std::size_t k = 0; k < chosen_factors.size(); ++k) {
        const int resident = occupancy[k].blocks_per_multiprocessor * device.sm_count;
        const std::size_t blocks = ch07::block_count(n, block, chosen_factors[k]);
        char line[160];
        std::snprintf(line, sizeof line, "  %-8d  %-20d  %-25d  %-15d  %.1f\n", chosen_factors[k],
                      occupancy[k].registers_per_thread, occupancy[k].blocks_per_multiprocessor, resident,
                      resident ? double(blocks) / resident : 0.0);
        text << line;
      }
      text << "           Fewer resident blocks mean fewer warps with loads waiting on memory; fewer blocks than\n"
              "           resident ones (less than one wave) leave multiprocessors idle.\n";
      MultiBlockBench<T> bench(data, ref, options, device);
      std::size_t best = 0, stopped_at = chosen.size();
      std::vector<RunResult> runs;
      for (std::size_t k = 0; k < chosen.size(); ++k) {
        RunResult run = bench.run(chosen[k]);
        Json extra = Json::object();
        extra.set("blocks", ch07::block_count(n, block, chosen_factors[k]));
        extra.set("registers", occupancy[k].registers_per_thread);
        extra.set("blocks_per_sm", occupancy[k].blocks_per_multiprocessor);
        for (const auto& kv : run.extra.items()) extra.set(kv.first, kv.second);
        run.extra = std::move(extra);
        runs.push_back(run);
        report.add_run(run);
        if (run.time_ms < runs[best].time_ms) best = k;
        if (sweep && run.time_ms > kClearlySlower * runs[best].time_ms) {
          stopped_at = k;
          break;
        }
      }
      bench.describe(report);

      const RunResult& winner = runs[best];
      char line[256];
      auto& summary = report.summary();
      if (chosen.size() > 1) {
        std::snprintf(line, sizeof line,
                      "best       %s: %.1f GB/s, %.1f%% of the copy, %.2fx the throughput of coarse1\n",
                      winner.kernel.c_str(), winner.gbps, 100 * winner.gbps / bench.ceiling_gbps(),
                      winner.gbps / runs.front().gbps);
        summary << line;
        if (stopped_at < chosen.size()) {
          std::snprintf(
              line, sizeof line,
              "sweep      stopped at %s, %.0f%% slower than %s: past there, coarsening costs more than it saves\n",
              runs[stopped_at].kernel.c_str(), 100 * (runs[stopped_at].time_ms / winner.time_ms - 1),
              winner.kernel.c_str());
          summary << line;
        } else {
          summary << "sweep      no factor up to " << factors.back() << " was clearly slower than the best so far\n";
        }
      }
      report.fields().set("best", winner.kernel);
      report.fields().set("best_factor", chosen_factors[best]);
      return report.finish();
    });
  });
}
