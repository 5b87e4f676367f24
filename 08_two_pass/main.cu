// Chapter 08 program: the two-pass reduction. A grid sized from the device, a grid-stride loop,
// and three ways to combine the block partials, each checked and timed against a copy ceiling
// measured in the same run.
//   08_two_pass [--kernel finish_cpu,finish_atomic,finish_kernel | --finish cpu|atomic|kernel|all]
//               [--n N] [--type int|float|double] [--block 32..1024] [--hot-l2] [--input FILE] [--json]
#include <cuda_runtime.h>

#include <iostream>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "common/gpu.cuh"
#include "common/program.hpp"
#include "common/reference.hpp"
#include "kernels.cuh"
#ifdef REDUCTION_ZOO_KERNELS  // a build for instructors only: see kernels() below
#include "zoo_list.hpp"
#endif

using namespace reduction;

namespace {

// The kernels --kernel takes: the chapter's registry (kernels.cuh). A build for instructors
// (cmake -DREDUCTION_ZOO_KERNELS=ON) adds the bug zoo's wrong kernels (instructor/zoo/), which run only by name.
template <typename T>
std::vector<Variant<MultiBlockLaunch<T>>> kernels() {
  auto list = ch08::variants<T>();
#ifdef REDUCTION_ZOO_KERNELS
  zoo_kernels::append_to(list);
#endif
  return list;
}

// Everything after the input, for its element type T.
template <typename T>
int reduce(const std::vector<T>& data, std::size_t n, const Options& options, Report& report) {
  const std::size_t bytes = n * sizeof(T);
  const int block = options.block;

  // The reference. Each finish adds floats in an order of its own, so each is checked against the
  // error bound of that order (its column `tolerance`), not one bound for all.
  const Reference<T> ref = data.size() == n ? reference_sum(data.data(), n) : reference_in_pieces<Sum, T>(n, options.seed);
  if (ref.exact)
    report.set_reference(ref, 0);
  else
    report.set_reference(json_value(ref.value), "higher-precision CPU sum; each kernel passes within the error bound "
                                                "of its own summation order (column tolerance)");

  // The analysis: the two passes and the three finishes; the GPU, if there is one, adds the grid.
  std::string no_gpu;
  const std::optional<DeviceInfo> device = open_gpu(report, no_gpu);
  report.text() << "pass 1     a grid of G blocks of " << block << " threads, G chosen from the device; thread g of "
                << "the grid adds\n           elements g, g + " << block << "G, g + " << 2 * block
                << "G, ... (a grid-stride loop), the block's tree takes " << ceil_log2(block) << " steps,\n"
                << "           and thread 0 stores the block's partial: G partials, no atomics\n"
                << "finish     combines the G partials (--kernel):\n"
                << "             finish_cpu     copied to the host, added in a loop, the sum copied back\n"
                << "             finish_atomic  each block atomicAdds its partial instead of storing it\n"
                << "             finish_kernel  the same kernel again, with one block, over the partials\n"
                << "memory     reads each of the " << bytes << " input bytes once\n";
  if (device) {
    // The grid, from the occupancy calculator: only a GPU can say it. Both flavours of the kernel
    // use the same resources; the stored one stands for both here.
    const int resident = ch08::resident_blocks(ch08::two_pass_kernel<ch08::Handoff::Store, T>, block, block * sizeof(T));
    const int grid = ch08::grid_size<ch08::Handoff::Store, T>(n, block);
    const std::size_t grid_threads = std::size_t(grid) * block;
    report.text() << "grid       the occupancy calculator fits " << resident / device->sm_count << " blocks of " << block
                  << " threads on a multiprocessor; x " << device->sm_count << " multiprocessors = " << resident
                  << " blocks" << (grid < resident ? "; n needs only " + std::to_string(grid) : std::string())
                  << ": G = " << grid << "\n           each thread adds up to ceil(n / (G x " << block
                  << ")) = " << (n + grid_threads - 1) / grid_threads << " elements in its loop\n"
                  << "indices    " << index_width_note(ch08::largest_index_computed(n, grid_threads)) << "\n";
    if constexpr (!std::is_integral_v<T>)
      report.text() << "rounding   each finish is checked against the bound of its own order (column tolerance); cpu and\n"
                       "           kernel add in an order fixed by the code, so their run_spread must be 0; atomic adds\n"
                       "           in the order the blocks finish, which changes from run to run\n";
    report.fields().set("grid", grid);
    report.fields().set("resident_blocks", resident);
  }
  report.fields().set("block", block);
  if (!device) return report.finish_without_gpu(no_gpu);

  // The ceiling, measured while the device memory is still free: a device-to-device copy of at
  // least eight times the L2, so that it streams from DRAM. An input the GPU cannot hold (a file's
  // data, say) is bad input, exit 2.
  if (auto why = device_room(bytes)) throw InputError(*why);
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  Ceilings ceilings;
  ceilings.copy_bytes = copy_ceiling_bytes(bytes, device->l2_bytes, free_bytes);
  if (ceilings.copy_bytes > 0)
    ceilings.copy_gbps = measure_copy_ceiling_gbps(ceilings.copy_bytes, options.warmup, options.reps);

  // Allocation and upload. An input that fits in L2 would be timed from L2: unless --hot-l2 asks
  // for that, it is copied until the copies do not fit, and each run reads the next copy.
  const DeviceBuffer<T> input(data);
  RotatingInput<T> rotating(input.data(), n, device->l2_bytes, options.hot_l2);
  DeviceBuffer<T> result(1);
  DeviceScratch scratch;  // the block partials

  // The runs: each finish is launched once on a poisoned result and checked, then timed (events,
  // warm-up, median), every timed result checked too (common/gpu.cuh: run_reduction).
  for (const auto& v : chosen_variants(kernels<T>(), options.kernels)) {
    const std::size_t depth = v.depth(n, block);
    const long double tol = tolerance(ref, depth);
    const auto launch = [&](cudaStream_t stream) { v.launch(rotating.next(), n, result.data(), block, scratch, stream); };
    RunResult run = run_reduction<T>(v.name, launch, result, ref, tol, options, double(bytes), {}, depth);
    Json columns = Json::object();
    columns.set("pct_of_copy", ceilings.copy_gbps > 0 ? Json(100 * run.gbps / ceilings.copy_gbps) : Json());
    if (!ref.exact) columns.set("tolerance", static_cast<double>(tol));
    for (const auto& [key, value] : run.extra.items()) columns.set(key, value);  // run_spread, for floats
    run.extra = std::move(columns);
    // cpu and kernel promise the same float on every run: two different results break that promise.
    if (v.deterministic && !ref.exact && column_of(run, "run_spread") != 0) {
      run.correct = false;
      report.summary() << v.name << " gave different results on different runs: it should not\n";
    }
    report.add_run(std::move(run));
  }

  // The report: the runs, the ceiling, and what the rotation of copies meant for the timing.
  describe_ceilings(report, ceilings);
  describe_input_copies(report, rotating.copies(), bytes, device->l2_bytes, options.hot_l2);
  return report.finish();
}

}  // namespace

int main(int argc, char** argv) {
  // The options: the shared ones (common/program.hpp), --hot-l2, and --finish, the chapter's older
  // spelling of --kernel.
  ChapterInfo info;
  info.name = "08_two_pass";
  info.title = "two passes: a grid-stride loop, then the block partials combined without atomics";
  info.has_block = true;
  info.check_block = power_of_two_block(32, 1024);
  info.default_n = std::size_t(1) << 27;  // 512 MiB of int, ten times an H100's L2: the run measures memory
  info.device_room = device_room;         // a GPU too small for --n says so before the input is made
  info.makes_input = [] { return probe_gpu().usable; };  // without a GPU: the reference alone
  for (const auto& v : kernels<int>()) info.variants.push_back({v.name, v.idea, v.deterministic, v.zoo_of != nullptr});
  Options options;
  CommandLine cli(info, options);
  cli.add_flag("--hot-l2", options.hot_l2,
               "time small inputs from L2: every run reads the same copy (default: rotate copies, see the report)");
  std::string finish = "all";
  cli.add_option("--finish", finish, "alias: --finish W is --kernel finish_W (all: each way in turn)",
                 {"cpu", "atomic", "kernel", "all"});
  cli.add_check([&]() -> std::optional<std::string> {
    // Asked of the command line, not of the list: `--finish all --kernel finish_kernel` names two choices too.
    if (cli.given("--finish") && cli.given("--kernel"))
      return std::string("--finish and --kernel both choose kernels; give one of them");
    if (finish == "all") return std::nullopt;
    options.kernels = {"finish_" + finish};
    return std::nullopt;
  });
  if (auto status = cli.parse(argc, argv)) return *status;
  // Everything after the input, for its type: `n` elements, of which `data` holds all, or none
  // where there is no GPU to reduce them.
  const auto rest = [&](const auto& data, std::size_t n, const std::string& source) {
    using T = typename std::decay_t<decltype(data)>::value_type;
    Report report(info, options);
    report.set_input(data_type_of<T>(), n, source);
    const int status = reduce(data, n, options, report);
    // Said after the report, so never beside the one line of a bad input.
#ifdef REDUCTION_EXERCISE_UNFINISHED
    std::cerr << info.name << ": built with the exercise kernels, which are not all written yet\n";
#endif
    return status;
  };
  // Without a GPU the random input is not made (512 MiB by default): the analysis needs only its
  // reference, made a piece at a time. A file is still read and checked below, so that its errors
  // are the same on every machine.
  if (options.input.empty() && !probe_gpu().usable)
    return run_guarded(info.name, [&] {
      return dispatch_type(options.type, [&](auto tag) {
        return rest(std::vector<typename decltype(tag)::type>(), options.n,
                    "random, seed " + std::to_string(options.seed));
      });
    });

  // The input (--n random elements of --type, or --input FILE), then the rest.
  return run_guarded(info.name, [&] {
    return with_input(info, options, [&](const auto& data, const std::string& source) {
      return rest(data, data.size(), source);
    });
  });
}
