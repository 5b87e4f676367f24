// Chapter 09 program: the warp-level finish, the unrolled tree, shuffles and `fastest`, each checked
// and timed beside cub::DeviceReduce (column vs_cub), against the copy and read ceilings measured
// in the same run. Read it top to bottom: options, input, reference, analysis, GPU, ceilings and
// upload, the runs, the comparison with cub, the report.
//   09_warp_unrolled [--kernel K,...] [--op sum|max|min] [--type int|float|double] [--n N] [--block B]
//                    [--hot-l2] [--input FILE] [--json]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "harness.cuh"
#include "common/program.hpp"
#include "common/gpu.cuh"
#include "common/reference.hpp"
#ifdef REDUCTION_ZOO_KERNELS  // a build for instructors only: see kernels() below
#include "zoo_list.hpp"
#endif

using namespace reduction;

namespace {

// The kernels --kernel takes: the registry (harness.cuh), and in a build for instructors
// (-DREDUCTION_ZOO_KERNELS=ON) the bug zoo's wrong kernels, which run only by name.
template <typename Op, typename T>
std::vector<Variant<MultiBlockLaunch<T>>> kernels() {
  auto list = ch09::variants<Op, T>();
#ifdef REDUCTION_ZOO_KERNELS
  if constexpr (std::is_same_v<Op, Sum>) zoo_kernels::append_to(list);  // the zoo's launchers add
#endif
  return list;
}

// Everything after the input, for its element type T and the operator Op. `data` holds the n
// elements, or nothing where there is no GPU to reduce them.
template <typename Op, typename T>
int reduce(const std::vector<T>& data, std::size_t n, const Options& options, Report& report) {
  const std::size_t bytes = n * sizeof(T);
  const int block = options.block;
  // The kernels that run: the chosen ones that take Op (warp_volatile, warp_syncwarp and unrolled add only).
  const auto chosen = chosen_variants(kernels<Op, T>(), options.kernels);
  std::vector<std::string> names, skipped, offered;
  for (const auto& v : chosen) names.push_back(v.name);
  for (const auto& v : kernels<Op, T>()) offered.push_back(v.name);
  for (const auto& k : options.kernels)
    if (!ch09::contains(names, k)) skipped.push_back(k);

  // The reference. Each kernel adds floats in an order of its own, so each is checked against the
  // error bound of that order (its column `tolerance`); max and min are exact.
  const Reference<T> ref = data.size() == n ? reference_reduce<Op>(data.data(), n) : reference_in_pieces<Op, T>(n, options.seed);
  if (ref.exact)
    report.set_reference(ref, 0);
  else
    report.set_reference(json_value(ref.value), "higher-precision CPU sum; each kernel passes within the error bound "
                                                "of its own summation order (column tolerance)");

  // The analysis: where each kernel's tree runs, the bytes, and fastest's plan for n (its grid
  // comes from the GPU, if there is one).
  std::string no_gpu;
  const std::optional<DeviceInfo> device = open_gpu(report, no_gpu);
  report.text() << "operator   " << Op::name << ", identity "
                << format_value(json_value(Op::template identity<T>()), data_type_of<T>()) << "\n";
  report.fields().set("op", Op::name);
  ch09::describe_trees(report.text(), block, names, std::is_same_v<Op, Sum>);
  report.text() << "bytes      " << n << " x " << sizeof(T) << " = " << mebibytes(bytes)
                << " to read once, the least any kernel must move\n";
  if (ch09::contains(names, "fastest")) {
    report.text() << "fastest    " << ch09::describe_plan<Op, T>(n) << "\n";
    if (device) {
      const ch09::FastestPlan plan = ch09::fastest_plan<Op, T>(n);
      if (!plan.single_block)
        report.text() << "           here: " << plan.grid << " blocks of " << plan.block << " threads\n";
      const char* path = plan.single_block ? "single_block" : plan.cluster ? "cluster" : plan.tiles ? "tiles" : "grid";
      report.fields().set("fastest_plan", Json{{"path", path}, {"block", plan.block}, {"grid", plan.grid}});
    }
  }
  if (!skipped.empty())
    report.text() << "skipped    " << join(skipped, " ") << ": they take only sum; --op " << Op::name << " runs "
                  << join(offered) << "\n";
  report.fields().set("block", block);
  if (!device) return report.finish_without_gpu(no_gpu);

  // The copy ceiling, measured while the device memory is still free. An input the GPU cannot hold
  // (a file's data, say) is bad input, exit 2.
  if (auto why = device_room(bytes)) throw InputError(*why);
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  Ceilings ceilings;
  ceilings.copy_bytes = copy_ceiling_bytes(bytes, device->l2_bytes, free_bytes);
  if (ceilings.copy_bytes > 0)
    ceilings.copy_gbps = measure_copy_ceiling_gbps(ceilings.copy_bytes, options.warmup, options.reps);

  // Allocation and upload; the read ceiling reads the input itself where it streams from DRAM. An
  // input that fits in L2 is copied until the copies do not, each run reading the next (common/gpu.cuh).
  const DeviceBuffer<T> input(data);
  ceilings.read = ch09::measure_read_ceiling(input.data(), bytes, device->l2_bytes, options.warmup, options.reps);
  RotatingInput<T> rotating(input.data(), n, device->l2_bytes, options.hot_l2);
  DeviceBuffer<T> result(1);
  DeviceScratch scratch;  // block results, cub's temporary storage

  // The runs: each kernel is launched once on a poisoned result and checked, then timed (events,
  // warm-up, median), every timed result checked too (common/gpu.cuh: run_reduction).
  std::vector<RunResult> runs;
  for (const auto& v : chosen) {
    const std::size_t depth = v.depth(n, block);
    const long double tol = tolerance(ref, depth);
    const auto launch = [&](cudaStream_t stream) { v.launch(rotating.next(), n, result.data(), block, scratch, stream); };
    RunResult run = run_reduction<T>(v.name, launch, result, ref, tol, options, double(bytes), {}, depth);
    Json columns = Json::object();
    columns.set("pct_of_copy", ceilings.copy_gbps > 0 ? Json(100 * run.gbps / ceilings.copy_gbps) : Json());
    if (!ref.exact) columns.set("tolerance", static_cast<double>(tol));
    for (const auto& [key, value] : run.extra.items()) columns.set(key, value);  // run_spread, for floats
    run.extra = std::move(columns);
    // Every kernel here promises the same float on every run: two different results break that promise.
    if (v.deterministic && !ref.exact && column_of(run, "run_spread") != 0) {
      run.correct = false;
      report.summary() << v.name << " gave different results on different runs: it should not\n";
    }
    runs.push_back(std::move(run));
  }

  // The read ceiling: the fastest read of these bytes in this run, so that no kernel is above 100 % of it.
  double read_ceiling = ceilings.read.gbps;
  std::string read_ceiling_by = "the plain read";
  for (const auto& r : runs)
    if (r.correct && r.gbps > read_ceiling) {
      read_ceiling = r.gbps;
      read_ceiling_by = r.kernel;
    }
  if (read_ceiling > 0)
    for (auto& r : runs) r.extra.set("pct_of_read", 100 * r.gbps / read_ceiling);

  // The library as the ceiling: every kernel's throughput over cub's, measured in the same run.
  const RunResult *fastest = nullptr, *cub = nullptr;
  for (const auto& r : runs) {
    if (r.kernel == "fastest") fastest = &r;
    if (r.kernel == "cub") cub = &r;
  }
  if (cub)
    for (auto& r : runs) r.extra.set("vs_cub", cub->time_ms / r.time_ms);

  // The report: the runs, the ceilings, the rotation of copies, and fastest against both ceilings and cub.
  const auto say = [&](const char* format, auto... values) {  // a line of the summary, printf's way
    char line[256];
    std::snprintf(line, sizeof line, format, values...);
    report.summary() << line;
  };
  for (const auto& r : runs) report.add_run(r);
  describe_ceilings(report, ceilings);
  if (read_ceiling > ceilings.read.gbps) {
    say("           %s read them faster, at %.1f GB/s: that is the read ceiling here\n", read_ceiling_by.c_str(),
        read_ceiling);
    report.fields().set("plain_read_gbps", ceilings.read.gbps);
    report.fields().set("read_ceiling_gbps", read_ceiling);
  }
  if (ceilings.read.gbps > 0) report.fields().set("read_ceiling_by", read_ceiling_by);
  // The datasheet's figure, for comparison: two transfers a clock, on every bit of the bus.
  const int memory_khz = ch08::device_attribute(cudaDevAttrMemoryClockRate);
  const int bus_bits = ch08::device_attribute(cudaDevAttrGlobalMemoryBusWidth);
  const double datasheet_gbps = 2.0 * memory_khz * 1e3 * (bus_bits / 8) / 1e9;
  if (datasheet_gbps > 0) report.fields().set("datasheet_gbps", datasheet_gbps);
  describe_input_copies(report, rotating.copies(), bytes, device->l2_bytes, options.hot_l2);
  if (fastest && column_of(*fastest, "pct_of_read") > 0) {
    say("%-10s %.1f %% of the read ceiling (%s)", "fastest", column_of(*fastest, "pct_of_read"),
        read_ceiling_by.c_str());
    if (datasheet_gbps > 0) {
      say(", %.1f %% of the datasheet's %.0f GB/s", 100 * fastest->gbps / datasheet_gbps, datasheet_gbps);
      report.fields().set("fastest_pct_of_datasheet", 100 * fastest->gbps / datasheet_gbps);
    }
    report.summary() << "\n";
    report.fields().set("fastest_pct_of_read", column_of(*fastest, "pct_of_read"));
  }
  if (fastest && cub) {
    const double ratio = cub->time_ms / fastest->time_ms;
    say("fastest/cub throughput ratio %.3f (cub %s, fastest %s; medians of %d runs each)\n", ratio,
        format_time(cub->time_ms).c_str(), format_time(fastest->time_ms).c_str(), options.reps);
    report.fields().set("fastest_vs_cub", ratio);
  }
  return report.finish();
}

}  // namespace

int main(int argc, char** argv) {
  // The options: the shared ones (common/program.hpp), --op and --hot-l2.
  ChapterInfo info;
  info.name = "09_warp_unrolled";
  info.title = "the warp: a barrier-free finish, the unrolled tree, shuffles, and the library ceiling";
  info.has_block = true;
  info.check_block = power_of_two_block(1, 1024);  // unrolled takes any block; below 32, only it (the check below)
  info.default_n = std::size_t(1) << 28;           // 1 GiB of int: twenty times an H100's L2
  info.device_room = device_room;                  // a GPU too small for --n says so before the input is made
  info.makes_input = [] { return probe_gpu().usable; };  // without a GPU: the reference alone
  const auto registry = kernels<Sum, int>();
  for (const auto& v : registry) info.variants.push_back({v.name, v.idea, v.deterministic, v.zoo_of != nullptr});
  Options options;
  CommandLine cli(info, options);
  std::string op_text = "sum";
  cli.add_option("--op", op_text, "operator", {"sum", "max", "min"});
  cli.add_flag("--hot-l2", options.hot_l2,
               "time small inputs from L2: every run reads the same copy (default: rotate copies, see the report)");
  cli.add_check([&]() -> std::optional<std::string> {  // the warp finishes and shuffles reduce whole warps
    for (const auto& v : registry)
      if (options.block < v.min_block && ch09::contains(options.kernels, v.name))
        return "--block " + std::to_string(options.block) + " is too small for " + v.name + ", which needs at least " +
               std::to_string(v.min_block) + " threads a block (it reduces whole warps)";
    return std::nullopt;
  });
  cli.add_check([&]() -> std::optional<std::string> {
    options.finite_input = op_text == "sum";  // a file's NaN and +-inf: max and min take them
    std::vector<std::string> offered;  // the kernels that take max and min
    for (const auto& v : ch09::variants<Max, int>()) offered.push_back(v.name);
    if (op_text == "sum" || std::any_of(options.kernels.begin(), options.kernels.end(),
                                        [&](const std::string& k) { return ch09::contains(offered, k); }))
      return std::nullopt;
    return "--op " + op_text + ": the chosen kernels add only; " + join(offered) + " take " + op_text;
  });
  if (auto status = cli.parse(argc, argv)) return *status;
  const OpKind op_kind = *parse_op(op_text);
  // Everything after the input, for its type and the operator.
  const auto rest = [&](const auto& data, std::size_t n, const std::string& source) {
    using T = typename std::decay_t<decltype(data)>::value_type;
    Report report(info, options);
    report.set_input(data_type_of<T>(), n, source);
    const int status = dispatch_op(op_kind, [&](auto op) {
      using Op = decltype(op);
      if constexpr (std::is_same_v<Op, Product>) return int(kBadUsage);  // not offered by --op
      else return reduce<Op>(data, n, options, report);
    });
    // Said after the report, so never beside the one line of a bad input.
#ifdef REDUCTION_EXERCISE_UNFINISHED  // defined by the exercise versions, until the student deletes it
    std::cerr << info.name << ": built with the exercise kernels, which are not all written yet\n";
#endif
    return status;
  };
  // Without a GPU the random input is not made (1 GiB by default): the analysis needs only its
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
