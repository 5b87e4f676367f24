// Chapter 07 program: thread coarsening, one kernel per factor F (solution/coarsening.cuh). It sweeps
// the factors upwards until one is clearly slower than the best so far and names the best, each run
// checked against the CPU reference and timed against a copy measured in the same run.
//   07_coarsening [--coarse F | --kernel coarse1,...] [--n N] [--type T] [--block B] [--hot-l2] [--input FILE] [--json]
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis.cuh"  // the factors' table, and with a GPU their registers and resident blocks
#include "kernels.cuh"
#include "common/gpu.cuh"
#include "common/program.hpp"
#include "common/reference.hpp"
#ifdef REDUCTION_ZOO_KERNELS  // a build for instructors only: see kernels() below
#include "zoo_list.hpp"
#endif

using namespace reduction;

// The kernels --kernel takes: the chapter's registry (kernels.cuh). A build for instructors
// (cmake -DREDUCTION_ZOO_KERNELS=ON) adds the bug zoo's wrong kernels (instructor/zoo/), which run only by name.
template <typename T>
std::vector<Variant<MultiBlockLaunch<T>>> kernels() {
  auto list = ch07::variants<T>();
#ifdef REDUCTION_ZOO_KERNELS
  zoo_kernels::append_to(list);
#endif
  return list;
}

// A factor "stops paying" once its time is this much worse than the best so far: smaller
// differences are within the run-to-run noise of a median.
constexpr double kClearlySlower = 1.05;

template <typename T>
int sum_input(const std::vector<T>& data, std::size_t n, const std::string& source, const ChapterInfo& info,
              const Options& options);

int main(int argc, char** argv) {
  // The options: the shared ones (common/program.hpp), with --block, --hot-l2 and --coarse.
  ChapterInfo info;
  info.name = "07_coarsening";
  info.title = "thread coarsening: more elements per thread, fewer blocks";
  info.has_block = true;
  info.check_block = power_of_two_block(32, 1024);  // the tree halves the block; 1024 threads at most
  info.default_n = std::size_t(1) << 27;            // 512 MiB of int, ten times an H100's L2: it measures memory
  info.device_room = device_room;                   // a --n the GPU cannot hold is refused before it is made
  info.makes_input = [] { return probe_gpu().usable; };  // without a GPU: the reference alone
  for (const auto& v : kernels<int>()) info.variants.push_back({v.name, v.idea, v.deterministic, v.zoo_of != nullptr});
  Options options;
  CommandLine cli(info, options);
  cli.add_flag("--hot-l2", options.hot_l2,
               "time small inputs from L2: every run reads the same copy (default: rotate copies, see the report)");
  // --coarse F is the chapter's older spelling of --kernel coarseF, kept for the exercises' text.
  std::string coarse = "0";
  std::vector<std::string> values;
  for (int f : ch07::coarse_factors()) values.push_back(std::to_string(f));
  values.push_back(coarse);
  cli.add_option("--coarse", coarse,
                 "alias: --coarse F is --kernel coarseF, F a factor compiled into the program as a template "
                 "argument; 0 sweeps them all",
                 values);
  cli.add_check([&]() -> std::optional<std::string> {
    // Asked of the command line, not of the list: `--coarse 0 --kernel coarse4` names two choices too.
    if (cli.given("--coarse") && cli.given("--kernel"))
      return std::string("--coarse and --kernel both choose kernels; give one of them");
    if (coarse == "0") return std::nullopt;
    options.kernels = {"coarse" + coarse};
    return std::nullopt;
  });
  if (auto status = cli.parse(argc, argv)) return *status;

  // The input: --n random elements of --type, or the file of --input. run_guarded turns a failure
  // into its exit status: 2 for bad input, 3 for a CUDA error. Without a GPU the random input is not
  // made (512 MiB by default): the analysis needs only its reference, made a piece at a time. A file
  // is still read and checked, so that its errors are the same on every machine.
  return run_guarded(info.name, [&] {
    int status = 0;
    if (options.input.empty() && !probe_gpu().usable)
      status = dispatch_type(options.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return sum_input(std::vector<T>(), options.n, "random, seed " + std::to_string(options.seed), info, options);
      });
    else
      status = with_input(info, options, [&](const auto& data, const std::string& source) {
        return sum_input(data, data.size(), source, info, options);
      });
#ifdef REDUCTION_EXERCISE_UNFINISHED
    std::cerr << info.name << ": the kernel in coarsening.cuh is not implemented yet\n";
#endif
    return status;
  });
}

// Everything after the input: the reference, the analysis, the runs on the GPU, the report.
template <typename T>
int sum_input(const std::vector<T>& data, std::size_t n, const std::string& source, const ChapterInfo& info,
              const Options& options) {
  const std::size_t input_bytes = n * sizeof(T);
  const int block = options.block;
  Report report(info, options);
  report.set_input(data_type_of<T>(), n, source);

  // The CPU reference: exact for int; for floats each kernel's order of additions sets its own bound.
  // `data` holds the n elements, or nothing where there is no GPU to reduce them (main).
  const Reference<T> ref = data.size() == n ? reference_sum(data.data(), n) : reference_in_pieces<Sum, T>(n, options.seed);
  if (ref.exact)
    report.set_reference(ref, 0);
  else
    report.set_reference(json_value(ref.value),
                         "higher-precision CPU sum; each kernel passes within the error bound "
                         "of its own summation order (column tolerance)");

  // The GPU, found first so that the report names it; the analysis below needs none.
  std::string no_gpu;
  const std::optional<DeviceInfo> device = open_gpu(report, no_gpu);

  // The kernels: those chosen. All of them, in order from factor 1, make a sweep (the stop rule below).
  const auto available = ch07::variants<T>();
  const auto chosen = chosen_variants(kernels<T>(), options.kernels);
  const bool sweep = chosen.size() == available.size();

  // The analysis (analysis.cuh): per factor, its blocks and its share of tree; the GPU's registers.
  // (A kernel of the bug zoo has the factor of the kernel it is a wrong copy of.)
  std::vector<int> factors;
  for (const auto& kernel : chosen) factors.push_back(ch07::factor_of(kernel.zoo_of ? kernel.zoo_of : kernel.name));
  ch07::describe_factors<T>(report.text(), factors, n, block);
  std::vector<ch07::Occupancy> occupancy;
  if (device) occupancy = ch07::describe_occupancy<T>(report.text(), *device, factors, n, block);
  report.fields().set("block", block);
  if (!device) return report.finish_without_gpu(no_gpu);

  // The ceiling: a device-to-device copy, measured while the memory is still free, of at least
  // 8 x L2 so that it streams from DRAM. A file's data may still be too large for the GPU.
  if (auto why = device_room(input_bytes)) throw InputError(*why);
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  Ceilings ceilings;
  ceilings.copy_bytes = copy_ceiling_bytes(input_bytes, device->l2_bytes, free_bytes);
  if (ceilings.copy_bytes > 0)
    ceilings.copy_gbps = measure_copy_ceiling_gbps(ceilings.copy_bytes, options.warmup, options.reps);

  // Device memory: the input, uploaded once (and copied, if it fits in L2, so that each run reads a
  // copy that is not in L2 yet), and the one result every block adds into.
  const DeviceBuffer<T> input(data);
  RotatingInput<T> copies(input.data(), n, device->l2_bytes, options.hot_l2);
  DeviceBuffer<T> result(1);
  DeviceScratch scratch;  // in the launchers' signature; this chapter's needs none

  // The runs: each kernel is launched once on a poisoned result (NaN, or -1 for int) and checked,
  // then timed (CUDA events, as chapter 03 writes them out: warm-up, median), every timed result
  // checked too (common/gpu.cuh: run_reduction). The atomics add in a new order every run, so float
  // results differ: run_spread says how far.
  const std::vector<RunResult>& runs = report.runs();
  std::size_t best = 0;  // the fastest run so far
  bool stopped = false;
  for (std::size_t k = 0; k < chosen.size() && !stopped; ++k) {
    const auto& kernel = chosen[k];
    const std::size_t depth = kernel.depth(n, block);
    const long double tol = tolerance(ref, depth);
    // The launcher clears the result (cudaMemsetAsync) and launches ceil(n / 2F block) blocks.
    auto launch = [&](cudaStream_t stream) { kernel.launch(copies.next(), n, result.data(), block, scratch, stream); };
    RunResult run = run_reduction<T>(kernel.name, launch, result, ref, tol, options, double(input_bytes), {}, depth);
    Json columns = Json::object();
    columns.set("pct_of_copy", ceilings.copy_gbps > 0 ? Json(100 * run.gbps / ceilings.copy_gbps) : Json());
    if (!ref.exact) columns.set("tolerance", static_cast<double>(tol));
    for (const auto& [key, value] : run.extra.items()) columns.set(key, value);  // run_spread, for floats
    columns.set("blocks", ch07::block_count(n, block, factors[k]));
    columns.set("registers", occupancy[k].registers_per_thread);
    columns.set("blocks_per_sm", occupancy[k].blocks_per_multiprocessor);
    run.extra = std::move(columns);
    report.add_run(std::move(run));

    // The stop rule of the sweep: a factor more than kClearlySlower times slower than the best so
    // far ends it; past there, coarsening costs more than it saves.
    if (runs[k].time_ms < runs[best].time_ms) best = k;
    stopped = sweep && runs[k].time_ms > kClearlySlower * runs[best].time_ms;
  }
  if (runs.size() < chosen.size()) {  // the sweep stopped: the report names what it did not run
    Json not_run = Json::array();
    for (std::size_t k = runs.size(); k < chosen.size(); ++k) not_run.push(chosen[k].name);
    report.fields().set("not_run", std::move(not_run));
  }

  // The report: the runs, the ceiling, and whether the input came from L2 or from DRAM.
  describe_ceilings(report, ceilings);
  describe_input_copies(report, copies.copies(), input_bytes, device->l2_bytes, options.hot_l2);

  // The conclusion: the best factor, and where the sweep stopped.
  const RunResult& winner = runs[best];  // --kernel chooses one kernel at least
  char line[256];
  if (runs.size() > 1) {
    std::snprintf(line, sizeof line, "best       %s: %.1f GB/s, %.1f%% of the copy, %.2fx the throughput of %s\n",
                  winner.kernel.c_str(), winner.gbps, column_of(winner, "pct_of_copy"), winner.gbps / runs.front().gbps,
                  runs.front().kernel.c_str());
    report.summary() << line;
  }
  if (stopped) {
    std::snprintf(line, sizeof line,
                  "sweep      stopped at %s, %.0f%% slower than %s: past there, coarsening costs more than it saves\n",
                  runs.back().kernel.c_str(), 100 * (runs.back().time_ms / winner.time_ms - 1), winner.kernel.c_str());
    report.summary() << line;
  } else if (sweep) {
    report.summary() << "sweep      nothing up to " << runs.back().kernel
                     << " was clearly slower than the best so far\n";
  }
  report.fields().set("best", winner.kernel);
  return report.finish();
}
