// Chapter 06 program: the hierarchical reduction of any n. Many blocks each reduce their own
// segment of the input and atomicAdd joins their partial sums (solution/hierarchical.cuh). The
// program prints what the launch does, then checks the kernel against the CPU reference and times
// it against a device-to-device copy measured in the same run.
//   06_hierarchical [--n N] [--type int|float|double] [--block 32..1024] [--hot-l2] [--input FILE] [--json] [--list]
#include <cuda_runtime.h>

#include <cstddef>
#include <iostream>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/gpu.cuh"
#include "common/program.hpp"
#include "common/reference.hpp"
#include "hierarchical.cuh"
#ifdef REDUCTION_ZOO_KERNELS  // a build for instructors only: see kernels() below
#include "zoo_list.hpp"
#endif

using namespace reduction;

// The kernels --kernel takes: the chapter's one, with its depth (the float tolerance) and whether
// its float result is the same on every run. A build for instructors (cmake
// -DREDUCTION_ZOO_KERNELS=ON) adds the bug zoo's wrong kernels (instructor/zoo/), which run only by name.
template <typename T>
std::vector<Variant<MultiBlockLaunch<T>>> kernels() {
  std::vector<Variant<MultiBlockLaunch<T>>> list = {
      {"hierarchical", "each block reduces its segment of 2 x block elements; atomicAdd joins the blocks",
       ch06::launch<T>, ch06::depth, false}};
#ifdef REDUCTION_ZOO_KERNELS
  zoo_kernels::append_to(list);
#endif
  return list;
}

template <typename T>
int sum_input(const std::vector<T>& data, std::size_t n, const std::string& source, const ChapterInfo& info,
              const Options& options);

int main(int argc, char** argv) {
  // The options: the shared ones (common/program.hpp), with --block, since the number of blocks now
  // follows from n and the block size is ours to choose, and --hot-l2.
  ChapterInfo info;
  info.name = "06_hierarchical";
  info.title = "many blocks, one segment each, joined by atomicAdd";
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
    std::cerr << info.name << ": the kernel in hierarchical.cuh is not implemented yet\n";
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

  // The analysis: the launch, the work of a block, the bytes read, the indices, the rounding.
  const std::size_t blocks = ch06::block_count(n, block), segment = 2 * std::size_t(block);
  report.text() << "launch     " << blocks << " blocks of " << block << " threads; block b reduces the elements ["
                << segment << " b, " << segment << " b + " << segment << ")\n"
                << "work       each thread adds its 2 elements as it loads them, then the block's tree takes "
                << ceil_log2(block) << " steps,\n"
                << "           each behind a barrier; thread 0 of each block then adds the partial to the result:\n"
                << "           " << blocks << " atomicAdds, all on the same address\n"
                << "memory     reads each of the " << input_bytes << " input bytes once\n"
                << "indices    " << index_width_note(segment * blocks - 1) << "\n";
  if constexpr (!std::is_integral_v<T>) {
    const std::size_t depth = ch06::depth(n, block);
    report.text()
        << "rounding   an element meets at most " << depth << " rounded additions (1 with its pair, "
        << ceil_log2(block) << " in the tree, up to " << blocks - 1 << "\n           atomics): tolerance gamma("
        << depth << ") x sum|x| = " << static_cast<double>(tolerance(ref, depth))
        << ". The blocks finish in a different\n           order on every run, and so do the atomic additions: "
           "run_spread shows how far apart runs came.\n";
  }
  report.fields().set("blocks", blocks);
  report.fields().set("atomic_adds", blocks);
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
  for (const auto& kernel : chosen_variants(kernels<T>(), options.kernels)) {
    const std::size_t depth = kernel.depth(n, block);
    const long double tol = tolerance(ref, depth);
    // The launcher clears the result (cudaMemsetAsync) and launches ceil(n / 2 block) blocks.
    auto launch = [&](cudaStream_t stream) { kernel.launch(copies.next(), n, result.data(), block, scratch, stream); };
    RunResult run = run_reduction<T>(kernel.name, launch, result, ref, tol, options, double(input_bytes), {}, depth);
    Json columns = Json::object();
    columns.set("pct_of_copy", ceilings.copy_gbps > 0 ? Json(100 * run.gbps / ceilings.copy_gbps) : Json());
    if (!ref.exact) columns.set("tolerance", static_cast<double>(tol));
    for (const auto& [key, value] : run.extra.items()) columns.set(key, value);  // run_spread, for floats
    run.extra = std::move(columns);
    report.add_run(std::move(run));
  }

  // The report: the runs, the ceiling, and whether the input came from L2 or from DRAM.
  describe_ceilings(report, ceilings);
  describe_input_copies(report, copies.copies(), input_bytes, device->l2_bytes, options.hot_l2);
  return report.finish();
}
