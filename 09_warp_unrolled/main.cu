// Chapter 09 program: the warp-level finish, the unrolled tree, shuffles and `fastest`, each
// checked and timed beside cub::DeviceReduce in one table, with the throughput ratio fastest/cub,
// against the copy ceiling and the read ceiling measured in the same run.
//   09_warp_unrolled [--kernel K,...] [--op sum|max|min] [--type int|float|double] [--n N] [--block B]
//                    [--hot-l2] [--sweep] [--input FILE] [--json]
//   09_warp_unrolled --sizes LIST|standard [--op sum|max|min|all] [--type int|float|double] [--json]
// --sweep also times every configuration of `fastest` (the measurements behind its design).
// --sizes times fastest against cub at many sizes in one process, one row per size and operator
// (benchmark/sweep.py drives it for the three types).
#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "common/measure.cuh"
#include "common/multi_block.cuh"
#include "common/program.hpp"
#include "common/read_ceiling.cuh"
#include "common/reference.hpp"
#include "common/report.hpp"
#include "warp_unrolled.cuh"

using namespace reduction;

namespace {

using ch09::DeviceScratch;

constexpr std::size_t kMaxCopies = 64;

std::string megabytes(std::size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, bytes < (1 << 20) ? "%.1f KiB" : "%.1f MiB",
                bytes < (1 << 20) ? bytes / 1024.0 : bytes / double(1 << 20));
  return buf;
}

// An input that fits in L2 would be read from L2 by every run after the first, and the time would
// measure the cache, not DRAM. So unless --hot-l2 asks for exactly that, a small input is copied
// until the copies span at least three times the L2 (at most kMaxCopies copies: below about 3 x L2 / 64
// they all stay in L2), and each run reads the next copy. Every copy holds the same data.
template <typename T>
class RotatingInput {
 public:
  RotatingInput(const T* first, std::size_t n, std::size_t l2_bytes, bool hot_l2) : first_(first), n_(n) {
    const std::size_t bytes = std::max<std::size_t>(n_ * sizeof(T), 1);
    copies_ = hot_l2 ? 1 : std::clamp<std::size_t>((3 * l2_bytes + bytes - 1) / bytes, 1, kMaxCopies);
    stride_ = (bytes + 255) / 256 * 256 / sizeof(T);  // each copy 256-byte aligned, as cudaMalloc's are
    if (copies_ > 1) extra_ = DeviceBuffer<T>(stride_ * (copies_ - 1));
    for (std::size_t c = 0; c + 1 < copies_; ++c)
      CUDA_CHECK(cudaMemcpy(extra_.data() + c * stride_, first_, n_ * sizeof(T), cudaMemcpyDeviceToDevice));
  }
  const T* next() {
    const std::size_t c = turn_++ % copies_;
    return c == 0 ? first_ : extra_.data() + (c - 1) * stride_;
  }
  std::size_t copies() const { return copies_; }

 private:
  const T* first_;
  std::size_t n_, copies_ = 1, stride_ = 0, turn_ = 0;
  DeviceBuffer<T> extra_;
};

// The ceilings every run is compared with, measured in the same process.
struct Ceilings {
  double copy_gbps = 0, read_gbps = 0;
};

// Checks and times one launcher on the rotating input, with the columns of common/multi_block.cuh
// and the share of the read ceiling.
template <typename T, typename Launch>
RunResult measure(const std::string& name, Launch&& launch, std::size_t depth, RotatingInput<T>& input, std::size_t n,
                  DeviceBuffer<T>& result, const Reference<T>& ref, const Options& options, const Ceilings& ceilings) {
  const long double tol = tolerance(ref, depth);
  RunResult run = run_reduction<T>(
      name, [&](cudaStream_t stream) { launch(input.next(), stream); }, result, ref, tol, options,
      double(n) * sizeof(T), {}, depth);
  run.extra.set("pct_of_copy", ceilings.copy_gbps > 0 ? Json(100 * run.gbps / ceilings.copy_gbps) : Json());
  run.extra.set("pct_of_read", ceilings.read_gbps > 0 ? Json(100 * run.gbps / ceilings.read_gbps) : Json());
  if (!ref.exact) run.extra.set("tolerance", static_cast<double>(tol));
  return run;
}

// --sweep: every configuration of `fastest` (ch09::launch_fastest_with), each a row of the table.
// The compile-time knobs are listed here; block sizes and waves vary at run time.
template <bool kWide, int kLoads, bool kOnePass, bool kChunked>
struct Knobs {
  static constexpr bool wide = kWide, one_pass = kOnePass, chunked = kChunked;
  static constexpr int loads = kLoads;
  static std::string name(int block, int waves) {
    return std::string(kWide ? "16B" : "1el") + " x" + std::to_string(kLoads) + (kOnePass ? " 1pass" : " 2pass") +
           (kChunked ? " chunk" : " stride") + " b" + std::to_string(block) + " w" + std::to_string(waves);
  }
};
template <bool kOnePass, bool kChunked>
using KnobsRow = std::tuple<Knobs<false, 1, kOnePass, kChunked>, Knobs<true, 1, kOnePass, kChunked>,
                            Knobs<true, 2, kOnePass, kChunked>, Knobs<true, 4, kOnePass, kChunked>,
                            Knobs<true, 8, kOnePass, kChunked>>;
using SweepKnobs = decltype(std::tuple_cat(KnobsRow<false, false>{}, KnobsRow<true, false>{}, KnobsRow<false, true>{},
                                           KnobsRow<true, true>{}));
constexpr int kSweepBlocks[] = {128, 256, 512, 1024};
constexpr int kSweepWaves[] = {1, 2, 4};

template <typename T>
void sweep_fastest(std::vector<RunResult>& runs, RotatingInput<T>& input, std::size_t n, DeviceBuffer<T>& result,
                   DeviceScratch& scratch, const Reference<T>& ref, const Options& options, const Ceilings& ceilings) {
  auto one = [&](auto knobs) {
    using K = decltype(knobs);
    for (int block : kSweepBlocks)
      for (int waves : kSweepWaves)
        runs.push_back(measure<T>(
            K::name(block, waves),
            [&](const T* in, cudaStream_t s) {
              ch09::launch_fastest_with<Sum, T, K::wide, K::loads, K::one_pass, K::chunked>(in, n, result.data(), block,
                                                                                            waves, scratch, s);
            },
            ch09::fastest_depth_with<Sum, T, K::wide, K::loads, K::one_pass, K::chunked>(n, block, waves), input, n,
            result, ref, options, ceilings));
  };
  std::apply([&](auto... knobs) { (one(knobs), ...); }, SweepKnobs{});
}

// ---------------------------------------------------------------------------------------------
// --sizes: fastest against cub at many sizes, in one process.

// --sizes standard: n = 2^k for k = 0 to 30, 2^k - 1 and 2^k + 1 between them, and 10^k up to 10^9.
std::vector<std::size_t> standard_sizes() {
  std::set<std::size_t> sizes;
  for (int k = 0; k <= 30; ++k) {
    const std::size_t p = std::size_t(1) << k;
    sizes.insert(p);
    if (p > 1) sizes.insert(p - 1);
    if (k < 30) sizes.insert(p + 1);
  }
  for (std::size_t p = 10; p <= 1000000000; p *= 10) sizes.insert(p);
  return {sizes.begin(), sizes.end()};
}

// "standard", or counts separated by commas ("1,1000,2^20"): ascending, without repeats.
std::optional<std::vector<std::size_t>> parse_sizes(const std::string& text) {
  if (text == "standard") return standard_sizes();
  std::set<std::size_t> sizes;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    const auto n = parse_count(item);
    if (!n || *n == 0) return std::nullopt;
    sizes.insert(*n);
  }
  if (sizes.empty()) return std::nullopt;
  return std::vector<std::size_t>(sizes.begin(), sizes.end());
}

// The reference of every prefix data[0, n), for each n of `sizes` (ascending). Exact operators
// (integer sums, max, min) combine the references of the segments between consecutive sizes, so
// the input is read once whatever the number of sizes; a float sum takes each prefix's own
// reference, whose error bound is made for one call.
template <typename Op, typename T>
std::vector<Reference<T>> prefix_references(const std::vector<T>& data, const std::vector<std::size_t>& sizes) {
  std::vector<Reference<T>> refs;
  if constexpr (std::is_same_v<Op, Sum> && !std::is_integral_v<T>) {
    for (const std::size_t n : sizes) refs.push_back(reference_sum(data.data(), n));
  } else {
    Reference<T> running = reference_reduce<Op>(data.data(), 0);  // the identity, exactly
    std::size_t done = 0;
    for (const std::size_t n : sizes) {
      const Reference<T> segment = reference_reduce<Op>(data.data() + done, n - done);
      running.value = Op{}(running.value, segment.value);  // integer sums wrap as the GPU's do
      running.precise = static_cast<long double>(running.value);
      done = n;
      refs.push_back(running);
    }
  }
  return refs;
}

template <typename T>
struct Contender {
  std::string name;
  std::function<void(const T*, cudaStream_t)> launch;
  std::size_t depth;  // for the float tolerance
};

// Checks and times several launchers on the same input, alternating them run by run, so that a
// change of clock or a neighbour's load touches all of them alike. Each is first checked alone
// (poisoned result, one launch, compared with the reference) before it is timed; then `warmup`
// untimed rounds, then `reps` timed rounds, every timed result checked too.
template <typename T>
std::vector<RunResult> measure_alternating(const std::vector<Contender<T>>& contenders, RotatingInput<T>& input,
                                           DeviceBuffer<T>& result, const Reference<T>& ref, const Options& options,
                                           double bytes) {
  const std::size_t count = contenders.size();
  std::vector<RunResult> runs(count);
  std::vector<long double> tol(count);
  std::vector<std::vector<double>> times(count);
  std::vector<T> lowest(count), highest(count);
  for (std::size_t c = 0; c < count; ++c) {
    tol[c] = tolerance(ref, contenders[c].depth);
    result.poison();
    contenders[c].launch(input.next(), 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    const T first = result.download_one();
    runs[c].kernel = contenders[c].name;
    runs[c].result = json_value(first);
    runs[c].correct = matches(first, ref, tol[c]);
    lowest[c] = highest[c] = first;
  }
  for (int w = 0; w < options.warmup; ++w)
    for (const auto& contender : contenders) contender.launch(input.next(), 0);
  CUDA_CHECK(cudaDeviceSynchronize());
  for (int r = 0; r < options.reps; ++r)
    for (std::size_t c = 0; c < count; ++c) {
      const TimingStats one = time_gpu(
          0, 1, [&](cudaStream_t stream) { contenders[c].launch(input.next(), stream); }, [&] { result.poison(); },
          [&] {
            const T value = result.download_one();
            runs[c].correct = runs[c].correct && matches(value, ref, tol[c]);
            if (value < lowest[c]) lowest[c] = value;
            if (highest[c] < value) highest[c] = value;
          });
      times[c].push_back(one.median_ms);
    }
  for (std::size_t c = 0; c < count; ++c) {
    runs[c].time_ms = summarize(times[c]).median_ms;
    runs[c].gbps = gigabytes_per_second(bytes, runs[c].time_ms);
    if (!ref.exact) {
      runs[c].extra.set("tolerance", static_cast<double>(tol[c]));
      runs[c].extra.set("run_spread", static_cast<double>(highest[c]) - static_cast<double>(lowest[c]));
    }
  }
  return runs;
}

// fastest's plan for n, in words. The grid path's grid depends on the GPU (its multiprocessors and
// how many blocks fit on each): without one, only the rule.
template <typename Op, typename T>
std::string describe_plan(std::size_t n, bool gpu) {
  using C = ch09::FastestChoice;
  if (const int threads = ch09::single_block_threads<T>(n))
    return "one block of " + std::to_string(threads) + " threads, each loading up to " +
           std::to_string(C::kLoadsInFlight) + " vectors of 16 bytes at once; one launch, no counter";
  if (!gpu)
    return "the grid path: blocks of " + std::to_string(C::kMidBlock) + " threads, one round of loads each, while " +
           std::to_string(C::kMidBlocksPerMultiprocessor) + " a multiprocessor\n           suffice, else " +
           std::to_string(C::kBlock) + " threads, at most " + std::to_string(C::kWaves) +
           " waves; the last block to finish adds the blocks' results";
  const ch09::FastestPlan plan = ch09::fastest_plan<Op, T>(n);
  return std::to_string(plan.grid) + " blocks of " + std::to_string(plan.block) + " threads";
}

template <typename T>
int run_sizes(const ChapterInfo& info, const Options& options, const std::vector<T>& data, const std::string& source,
              const std::vector<std::size_t>& sizes, const std::vector<OpKind>& ops, bool hot_l2) {
  Report report(info, options);
  report.set_input(data_type_of<T>(), data.size(), source);
  auto& text = report.text();
  std::string op_names;
  for (const OpKind op : ops) op_names += std::string(op_names.empty() ? "" : ", ") + op_name(op);
  text << "sizes      " << sizes.size() << " sizes from " << sizes.front() << " to " << sizes.back()
       << "; at each, fastest and cub reduce the first n elements\n"
       << "           (the input --n n would make: element i depends only on the seed and i), for " << op_names
       << ".\n           Each result is checked before it is timed; then the two alternate, " << options.reps
       << " timed runs each,\n           and each reports its median.\n";
  text << "plan       fastest's single-block path for " << type_name(data_type_of<T>())
       << ": the block's threads for n up to";
  for (int threads = ch09::FastestChoice::kSingleBlockMin; threads <= ch09::FastestChoice::kSingleBlockMax;
       threads *= 2)
    text << (threads == ch09::FastestChoice::kSingleBlockMin ? "\n           " : ", ")
         << std::size_t(threads) * ch09::FastestChoice::kLoadsInFlight * ch09::Lanes<T, true>::count << ": " << threads;
  text << "; beyond, the grid path\n";
  Json size_list = Json::array();
  for (const std::size_t n : sizes) size_list.push(n);
  report.fields().set("sizes", std::move(size_list));

  DeviceInfo device;
  if (auto status = open_gpu(report, device)) return *status;
  MultiBlockBench<T> bench(data, Reference<T>{}, options, device);  // the copy ceiling, then the input
  const std::size_t input_bytes = data.size() * sizeof(T);
  const ReadCeiling read =
      measure_read_ceiling(bench.input().data(), input_bytes, device.l2_bytes, options.warmup, options.reps);
  DeviceBuffer<T> result(1);
  DeviceScratch fastest_scratch, cub_scratch;

  Json rows = Json::array();
  std::ostringstream table;
  std::vector<std::string> below;
  char line[200];
  std::snprintf(line, sizeof line, "%-4s %11s %12s %12s %7s  %s\n", "op", "n", "fastest", "cub", "ratio",
                "fastest's path");
  table << line;
  for (const OpKind op_kind : ops)
    dispatch_op(op_kind, [&](auto op) {
      using Op = decltype(op);
      if constexpr (!std::is_same_v<Op, Product>) {
        const auto refs = prefix_references<Op>(data, sizes);
        for (std::size_t i = 0; i < sizes.size(); ++i) {
          const std::size_t n = sizes[i];
          RotatingInput<T> input(bench.input().data(), n, device.l2_bytes, hot_l2);
          const std::vector<Contender<T>> contenders = {
              {"fastest",
               [&](const T* in, cudaStream_t s) { ch09::launch_fastest<Op, T>(in, n, result.data(), 0, fastest_scratch, s); },
               ch09::fastest_depth<Op, T>(n, 0)},
              {"cub", [&](const T* in, cudaStream_t s) { ch09::launch_cub<Op, T>(in, n, result.data(), 0, cub_scratch, s); },
               ch09::cub_depth(n, 0)}};
          auto runs = measure_alternating<T>(contenders, input, result, refs[i], options, double(n) * sizeof(T));
          const double ratio = runs[1].time_ms / runs[0].time_ms;
          const ch09::FastestPlan plan = ch09::fastest_plan<Op, T>(n);
          Json row = Json::object();
          row.set("op", Op::name);
          row.set("n", n);
          row.set("fastest_us", runs[0].time_ms * 1e3);
          row.set("cub_us", runs[1].time_ms * 1e3);
          row.set("ratio", ratio);
          row.set("fastest_correct", runs[0].correct);
          row.set("cub_correct", runs[1].correct);
          row.set("path", plan.single_block ? "single_block" : "grid");
          row.set("block", plan.block);
          row.set("grid", plan.grid);
          rows.push(std::move(row));
          const std::string path = (plan.single_block ? "1 block of " : std::to_string(plan.grid) + " blocks of ") +
                                   std::to_string(plan.block);
          std::snprintf(line, sizeof line, "%-4s %11zu %12s %12s %7.3f  %s%s\n", Op::name, n,
                        format_time(runs[0].time_ms).c_str(), format_time(runs[1].time_ms).c_str(), ratio,
                        path.c_str(), runs[0].correct && runs[1].correct ? "" : "  WRONG RESULT");
          table << line;
          if (ratio < 1) below.push_back(std::string(Op::name) + " " + std::to_string(n));
          for (std::size_t c = 0; c < runs.size(); ++c) {
            Json extra = Json::object();
            extra.set("op", Op::name);
            extra.set("n", n);
            extra.set("vs_cub", runs[1].time_ms / runs[c].time_ms);
            for (const auto& kv : runs[c].extra.items()) extra.set(kv.first, kv.second);
            runs[c].extra = std::move(extra);
            report.add_run(std::move(runs[c]));
          }
        }
      }
      return 0;
    });

  report.fields().set("op", ops.size() == 1 ? Json(op_name(ops[0])) : Json("all"));
  report.fields().set("copy_ceiling_gbps", bench.ceiling_gbps());
  report.fields().set("read_ceiling_gbps", read.gbps);
  report.fields().set("read_ceiling_bytes", read.bytes);
  report.fields().set("sweep", std::move(rows));
  auto& summary = report.summary();
  summary << "fastest against cub, size by size (ratio: cub's median time over fastest's):\n" << table.str();
  summary << "below 1.00: " << below.size() << " of " << sizes.size() * ops.size() << " rows";
  for (const auto& b : below) summary << (&b == &below.front() ? ": " : ", ") << b;
  std::snprintf(line, sizeof line,
                "\nceilings   copy %.1f GB/s (bytes read + written), read %.1f GB/s (%s, %.0f MiB)\n",
                bench.ceiling_gbps(), read.gbps, read.shape.c_str(), read.bytes / double(1 << 20));
  summary << line;
  return report.finish();
}

}  // namespace

int main(int argc, char** argv) {
  ChapterInfo info;
  info.name = "09_warp_unrolled";
  info.title = "the warp: a barrier-free finish, the unrolled tree, shuffles, and the library ceiling";
  info.has_block = true;
  info.default_block = 256;
  info.check_block = power_of_two_block(1, 1024);
  for (const char* name : ch09::variant_names()) info.kernels.push_back(name);
  info.default_n = std::size_t(1) << 28;  // 1 GiB of int: twenty times an H100's L2
  info.device_room = device_room;  // a GPU too small for --n is told before the input is made

  Options options;
  std::string op_text = "sum", sizes_text;
  bool hot_l2 = false, sweep = false;
  CommandLine cli(info, options);
  cli.add_option("--op", op_text,
                 "operator (warp_volatile, warp_syncwarp and unrolled add only); all: sum, max and min in turn "
                 "(with --sizes)",
                 {"sum", "max", "min", "all"});
  cli.add_flag("--hot-l2", hot_l2, "time small inputs from L2: every run reads the same copy (default: rotate copies)");
  cli.add_flag("--sweep", sweep, "also time every configuration of fastest (sum of int or float)");
  cli.add_option("--sizes", sizes_text,
                 "time fastest against cub at each of these sizes instead (comma-separated counts, or standard: "
                 "2^k for k = 0..30, 2^k - 1, 2^k + 1 and 10^k up to 10^9), one row each; --n and --kernel do not "
                 "apply");
  cli.add_check([&]() -> std::optional<std::string> {
    for (const auto& k : options.kernels)
      if (options.block < ch09::min_block(k))
        return "--block " + std::to_string(options.block) +
               " is below 32, which only unrolled (and fastest and cub, "
               "which choose their own) accept: " +
               k + " reduces whole warps";
    return std::nullopt;
  });
  cli.add_check([&]() -> std::optional<std::string> {
    if (op_text == "sum" || !sizes_text.empty()) return std::nullopt;
    if (op_text == "all") return std::string("--op all goes with --sizes; one run takes one operator");
    for (const auto& k : options.kernels)
      if (k == "shuffle" || k == "fastest" || k == "cub") return std::nullopt;
    return "--op " + op_text + ": the chosen kernels add only; shuffle, fastest and cub take max and min";
  });
  cli.add_check([&]() -> std::optional<std::string> {
    if (sweep && (op_text != "sum" || (options.input.empty() && options.type == DataType::Double)))
      return std::string("--sweep times the sum of int or float (the types of the performance goal)");
    return std::nullopt;
  });
  std::vector<std::size_t> sizes;
  cli.add_check([&]() -> std::optional<std::string> {
    if (sizes_text.empty()) return std::nullopt;
    if (!options.input.empty()) return std::string("--sizes makes its own input (one per --type); --input does not apply");
    if (sweep) return std::string("--sizes and --sweep are two different runs; choose one");
    const auto parsed = parse_sizes(sizes_text);
    if (!parsed)
      return "--sizes takes counts of at least 1 separated by commas (1,1000,2^20) or standard, got '" + sizes_text +
             "'";
    sizes = *parsed;
    return std::nullopt;
  });
  if (auto status = cli.parse(argc, argv)) return *status;
  std::vector<OpKind> ops;
  if (op_text == "all")
    ops = {OpKind::Sum, OpKind::Max, OpKind::Min};
  else
    ops = {*parse_op(op_text)};
  // --sizes generates one input of the largest size; each smaller size reduces a prefix of it.
  if (!sizes.empty()) options.n = sizes.back();

  return run_guarded(info.name, [&] {
    return with_input(info, options, [&](const auto& data, const std::string& source) {
      using T = typename std::decay_t<decltype(data)>::value_type;
#ifdef REDUCTION_EXERCISE_UNFINISHED  // said once the options and the input are known to be good
      std::cerr << info.name << ": the kernel in warp_unrolled.cuh is not implemented yet\n";
#endif
      if (!sizes.empty()) return run_sizes<T>(info, options, data, source, sizes, ops, hot_l2);
      const std::size_t n = data.size();
      if (sweep && std::is_same_v<T, double>) throw InputError("--sweep times the sum of int or float, not double");
      Report report(info, options);
      report.set_input(data_type_of<T>(), n, source);

      return dispatch_op(ops.front(), [&](auto op) {
        using Op = decltype(op);
        if constexpr (std::is_same_v<Op, Product>) {
          return int(kBadUsage);  // not offered by --op
        } else {
          const auto variants = ch09::variants<Op, T>();
          std::vector<std::string> skipped;
          for (const auto& name : options.kernels)
            if (std::none_of(variants.begin(), variants.end(), [&](const auto& v) { return name == v.name; }))
              skipped.push_back(name);

          // The reference comes first: the report shows it even without a GPU.
          const auto ref = reference_reduce<Op>(data.data(), n);
          describe_reference(report, ref);

          // The analysis: where each variant's tree steps run, for this block size.
          const int block = options.block;
          const std::size_t levels = ceil_log2(std::size_t(block));
          auto& text = report.text();
          text << "operator   " << Op::name << ", identity "
               << format_value(json_value(Op::template identity<T>()), data_type_of<T>()) << "\n"
               << "block      " << block << " threads: a tree of " << levels << " steps over the threads' sums\n";
          if (block >= 32) {
            const std::size_t warp_steps = 6, block_steps = levels > warp_steps ? levels - warp_steps : 0;
            text << "           warp_volatile, warp_syncwarp: " << block_steps << " steps behind __syncthreads(), then "
                 << warp_steps << " inside warp 0\n"
                 << "           (the tree is padded to 64 values) with no block-wide barrier\n"
                 << "           unrolled: the same steps with " << block
                 << " a compile-time constant, so the loops become straight code\n"
                 << "           shuffle: 5 shuffle steps in every warp, one __syncthreads(), 5 in warp 0\n";
          } else {
            text << "           unrolled: all " << levels << " steps inside one warp, behind __syncwarp() only\n";
          }
          text << "           fastest and cub choose their own blocks\n";
          text << "bytes      " << n << " x " << sizeof(T) << " = " << megabytes(n * sizeof(T))
               << " to read once, the least any kernel must move\n";
          if (!skipped.empty()) {
            text << "skipped   ";
            for (const auto& s : skipped) text << " " << s;
            text << ": they add only (sum); --op " << Op::name << " runs shuffle, fastest and cub\n";
          }
          report.fields().set("op", Op::name);
          report.fields().set("block", block);

          text << "fastest    " << describe_plan<Op, T>(n, false) << "\n";

          DeviceInfo device;
          if (auto status = open_gpu(report, device)) return *status;
          if (ch09::single_block_threads<T>(n) == 0) text << "           here: " << describe_plan<Op, T>(n, true) << "\n";
          const ch09::FastestPlan plan = ch09::fastest_plan<Op, T>(n);
          Json plan_json = Json::object();
          plan_json.set("path", plan.single_block ? "single_block" : "grid");
          plan_json.set("block", plan.block);
          plan_json.set("grid", plan.grid);
          report.fields().set("fastest_plan", std::move(plan_json));

          MultiBlockBench<T> bench(data, ref, options, device);  // the copy ceiling, then the input
          RotatingInput<T> input(bench.input().data(), n, device.l2_bytes, hot_l2);
          const std::size_t input_bytes = n * sizeof(T);
          const ReadCeiling read =
              measure_read_ceiling(bench.input().data(), input_bytes, device.l2_bytes, options.warmup, options.reps);
          const Ceilings ceilings{bench.ceiling_gbps(), read.gbps};
          DeviceBuffer<T> result(1);
          DeviceScratch scratch;

          std::vector<RunResult> runs;
          for (const auto& name : options.kernels)
            for (const auto& v : variants)
              if (name == v.name)
                runs.push_back(measure<T>(
                    v.name, [&](const T* in, cudaStream_t s) { v.launch(in, n, result.data(), block, scratch, s); },
                    v.depth(n, block), input, n, result, ref, options, ceilings));

          const std::size_t variant_runs = runs.size();
          if constexpr (std::is_same_v<Op, Sum> && !std::is_same_v<T, double>)
            if (sweep) sweep_fastest<T>(runs, input, n, result, scratch, ref, options, ceilings);

          // Throughput ratios to cub: cub's time over each kernel's, for the same bytes.
          double cub_ms = 0, fastest_ms = 0, fastest_gbps = 0;
          for (const auto& r : runs) {
            if (r.kernel == "cub") cub_ms = r.time_ms;
            if (r.kernel == "fastest") fastest_ms = r.time_ms, fastest_gbps = r.gbps;
          }
          for (auto& r : runs) {
            if (cub_ms > 0) r.extra.set("vs_cub", cub_ms / r.time_ms);
            report.add_run(r);
          }

          bench.describe(report);
          report.fields().set("read_ceiling_gbps", read.gbps);
          report.fields().set("read_ceiling_bytes", read.bytes);
          report.fields().set("read_ceiling_shape", read.shape);
          auto& summary = report.summary();
          char line[256];
          std::snprintf(line, sizeof line,
                        "read       a plain streaming read of %.0f MiB (%s) ran at %.1f GB/s (%s);\n"
                        "           pct_of_read is each kernel's GB/s over that: the ceiling of a kernel that only "
                        "reads\n",
                        read.bytes / double(1 << 20), read.of_input ? "the input itself" : "a buffer of 8 x L2",
                        read.gbps, read.shape.c_str());
          summary << line;
          if (input.copies() > 1)
            summary << "L2         the input (" << megabytes(input_bytes) << ") fits in the "
                    << megabytes(device.l2_bytes) << " L2: each run reads the next of " << input.copies()
                    << " copies of it,\n           "
                    << (input.copies() * input_bytes < device.l2_bytes
                            ? "which together still fit in L2: small inputs are read from L2 by every kernel, cub too\n"
                            : "so every kernel, cub too, starts from DRAM (--hot-l2: from L2)\n");
          else if (hot_l2 && input_bytes < 3 * device.l2_bytes)
            summary << "L2         --hot-l2: every run reads the same copy, which stays in L2 after the first\n";
          if (fastest_ms > 0 && read.gbps > 0) {
            std::snprintf(line, sizeof line, "fastest    %.1f %% of the read ceiling\n", 100 * fastest_gbps / read.gbps);
            summary << line;
            report.fields().set("fastest_pct_of_read", 100 * fastest_gbps / read.gbps);
          }
          if (cub_ms > 0 && fastest_ms > 0) {
            std::snprintf(
                line, sizeof line, "fastest/cub throughput ratio %.3f (cub %s, fastest %s; medians of %d runs each)\n",
                cub_ms / fastest_ms, format_time(cub_ms).c_str(), format_time(fastest_ms).c_str(), options.reps);
            summary << line;
            report.fields().set("fastest_vs_cub", cub_ms / fastest_ms);
          }
          if (runs.size() > variant_runs) {
            std::vector<const RunResult*> swept;
            for (std::size_t i = variant_runs; i < runs.size(); ++i) swept.push_back(&runs[i]);
            std::sort(swept.begin(), swept.end(), [](auto a, auto b) { return a->time_ms < b->time_ms; });
            summary << "sweep      the fastest configurations (knobs: load width, loads in flight, passes, layout,\n"
                       "           block, waves):\n";
            for (std::size_t i = 0; i < std::min<std::size_t>(8, swept.size()); ++i) {
              std::snprintf(line, sizeof line, "           %-30s %s  %.1f GB/s\n", swept[i]->kernel.c_str(),
                            format_time(swept[i]->time_ms).c_str(), swept[i]->gbps);
              summary << line;
            }
          }
          report.fields().set("input_copies", input.copies());
          return report.finish();
        }
      });
    });
  });
}
