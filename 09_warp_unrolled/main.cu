// Chapter 09 program: the warp-level finish, the unrolled tree, shuffles and `fastest`, each
// checked and timed beside cub::DeviceReduce in one table, with the throughput ratio fastest/cub.
//   09_warp_unrolled [--kernel K,...] [--op sum|max|min] [--type int|float|double] [--n N] [--block B]
//                    [--hot-l2] [--sweep] [--input FILE] [--json]
// --sweep also times every configuration of `fastest` (the measurements behind its design).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <tuple>
#include <vector>

#include "common/measure.cuh"
#include "common/multi_block.cuh"
#include "common/program.hpp"
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
// until the copies span at least three times the L2, and each run reads the next copy: by its
// turn, a copy has long been evicted. Every copy holds the same data.
template <typename T>
class RotatingInput {
 public:
  RotatingInput(const DeviceBuffer<T>& input, std::size_t l2_bytes, bool hot_l2)
      : first_(input.data()), n_(input.size()) {
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

// Checks and times one launcher on the rotating input, with the columns of common/multi_block.cuh.
template <typename T, typename Launch>
RunResult measure(const std::string& name, Launch&& launch, std::size_t depth, RotatingInput<T>& input, std::size_t n,
                  DeviceBuffer<T>& result, const Reference<T>& ref, const Options& options, double ceiling_gbps) {
  const long double tol = tolerance(ref, depth);
  RunResult run = run_reduction<T>(
      name, [&](cudaStream_t stream) { launch(input.next(), stream); }, result, ref, tol, options,
      double(n) * sizeof(T));
  run.extra.set("pct_of_copy", ceiling_gbps > 0 ? Json(100 * run.gbps / ceiling_gbps) : Json());
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
                   DeviceScratch& scratch, const Reference<T>& ref, const Options& options, double ceiling_gbps) {
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
            result, ref, options, ceiling_gbps));
  };
  std::apply([&](auto... knobs) { (one(knobs), ...); }, SweepKnobs{});
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

  Options options;
  std::string op_text = "sum";
  bool hot_l2 = false, sweep = false;
  CommandLine cli(info, options);
  cli.add_option("--op", op_text, "operator (warp_volatile, warp_syncwarp and unrolled add only)",
                 {"sum", "max", "min"});
  cli.add_flag("--hot-l2", hot_l2, "time small inputs from L2: every run reads the same copy (default: rotate copies)");
  cli.add_flag("--sweep", sweep, "also time every configuration of fastest (sum of int or float)");
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
    if (op_text == "sum") return std::nullopt;
    for (const auto& k : options.kernels)
      if (k == "shuffle" || k == "fastest" || k == "cub") return std::nullopt;
    return "--op " + op_text + ": the chosen kernels add only; shuffle, fastest and cub take max and min";
  });
  cli.add_check([&]() -> std::optional<std::string> {
    if (sweep && (op_text != "sum" || (options.input.empty() && options.type == DataType::Double)))
      return std::string("--sweep times the sum of int or float (the types of the performance goal)");
    return std::nullopt;
  });
  if (auto status = cli.parse(argc, argv)) return *status;
  const OpKind op_kind = *parse_op(op_text);

  return run_guarded(info.name, [&] {
    return with_input(info, options, [&](const auto& data, const std::string& source) {
      using T = typename std::decay_t<decltype(data)>::value_type;
#ifdef REDUCTION_EXERCISE_UNFINISHED  // said once the options and the input are known to be good
      std::cerr << info.name << ": the kernel in exercise/warp_unrolled.cuh is not implemented yet\n";
#endif
      const std::size_t n = data.size();
      if (sweep && std::is_same_v<T, double>) throw InputError("--sweep times the sum of int or float, not double");
      Report report(info, options);
      report.set_input(data_type_of<T>(), n, source);

      return dispatch_op(op_kind, [&](auto op) {
        using Op = decltype(op);
        if constexpr (std::is_same_v<Op, Product>) {
          return int(kBadUsage);  // not offered by --op
        } else {
          const auto variants = ch09::variants<Op, T>();
          std::vector<std::string> skipped;
          for (const auto& name : options.kernels)
            if (std::none_of(variants.begin(), variants.end(), [&](const auto& v) { return name == v.name; }))
              skipped.push_back(name);

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
          text << "           fastest: the shuffle tree in blocks of its own size, " << ch09::FastestChoice::kBlock
               << " threads; cub chooses its own\n";
          text << "bytes      " << n << " x " << sizeof(T) << " = " << megabytes(n * sizeof(T))
               << " to read once, the least any kernel must move\n";
          if (!skipped.empty()) {
            text << "skipped   ";
            for (const auto& s : skipped) text << " " << s;
            text << ": they add only (sum); --op " << Op::name << " runs shuffle, fastest and cub\n";
          }
          report.fields().set("op", Op::name);
          report.fields().set("block", block);

          DeviceInfo device;
          if (auto status = open_gpu(report, device)) return *status;

          const auto ref = reference_reduce<Op>(data.data(), n);
          MultiBlockBench<T> bench(data, ref, options, device);  // the ceiling, then the input
          RotatingInput<T> input(bench.input(), device.l2_bytes, hot_l2);
          const double ceiling_gbps = bench.ceiling_gbps();
          const std::size_t input_bytes = n * sizeof(T);
          DeviceBuffer<T> result(1);
          DeviceScratch scratch;

          std::vector<RunResult> runs;
          for (const auto& name : options.kernels)
            for (const auto& v : variants)
              if (name == v.name)
                runs.push_back(measure<T>(
                    v.name, [&](const T* in, cudaStream_t s) { v.launch(in, n, result.data(), block, scratch, s); },
                    v.depth(n, block), input, n, result, ref, options, ceiling_gbps));

          const std::size_t variant_runs = runs.size();
          if constexpr (std::is_same_v<Op, Sum> && !std::is_same_v<T, double>)
            if (sweep) sweep_fastest<T>(runs, input, n, result, scratch, ref, options, ceiling_gbps);

          // Throughput ratios to cub: cub's time over each kernel's, for the same bytes.
          double cub_ms = 0, fastest_ms = 0;
          for (const auto& r : runs) {
            if (r.kernel == "cub") cub_ms = r.time_ms;
            if (r.kernel == "fastest") fastest_ms = r.time_ms;
          }
          for (auto& r : runs) {
            if (cub_ms > 0) r.extra.set("vs_cub", cub_ms / r.time_ms);
            report.add_run(r);
          }

          bench.describe(report);
          auto& summary = report.summary();
          char line[256];
          if (input.copies() > 1)
            summary << "L2         the input (" << megabytes(input_bytes) << ") fits in the "
                    << megabytes(device.l2_bytes) << " L2: each run reads the next of " << input.copies()
                    << " copies of it,\n           so every kernel, cub too, starts from DRAM (--hot-l2: from L2)\n";
          else if (hot_l2 && input_bytes < 3 * device.l2_bytes)
            summary << "L2         --hot-l2: every run reads the same copy, which stays in L2 after the first\n";
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
