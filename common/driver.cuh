// The one program of the GPU chapters (03 to 09). Data flows one way through it:
//
//   options -> input -> reference -> analysis -> GPU -> measurement -> verification -> report
//
// A chapter's main.cu hands run_chapter() a struct that derives from ChapterDefaults and says
// what is its own: its registry (variants, with the facts the driver enforces: block limits,
// operators, determinism), facts (the shape of its work, an alias of --kernel, a rule that ends a
// sweep, the variant it set out to build) and one hook, its analysis; the chapter's name and title
// are data, given with it. What a struct does not define, ChapterDefaults supplies: the facts of a
// multi-block chapter, and an analysis that says nothing. The driver calls the chapter once, at
// the analysis; everything after it (the runs' extra columns, when to stop, the conclusion) it
// does from what the analysis and the facts gave it.
//
//   struct MyChapter : reduction::ChapterDefaults {
//     template <typename Op, typename T> static std::vector<reduction::MultiBlockVariant<T>> variants();
//     static constexpr bool unfinished = my_chapter::unfinished;  // from the kernel header
//     template <typename Op, typename T> static void analyze(reduction::Analysis<T>&);
//     // optional facts, see ChapterDefaults
//   };
//   int main(int argc, char** argv) { return reduction::run_chapter<MyChapter>(argc, argv, "name", "title"); }
//
// Two shapes of work. A multi-block chapter (06 to 09) reduces one array with blocks of --block
// threads, timed against ceilings measured in the same run (common/multi_block.cuh). A chapter
// with rows (03 to 05, has_rows, common/single_block_chapter.cuh) reduces --rows R arrays of n
// elements, one after another, each with a block of its own whose size follows from n: the driver
// reads the rows, checks that they divide the input, and computes a reference for each row; the
// chapter's measure() hook times the launch and checks every row.
//
// --sizes (chapters with has_sizes, common/size_sweep.cuh) runs the chosen kernels at many sizes
// instead, alternating them run by run, one row per size.
#pragma once

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "measure.cuh"
#include "multi_block.cuh"
#include "ops.hpp"
#include "parallel.hpp"
#include "program.hpp"
#include "reference.hpp"
#include "report.hpp"
#include "size_sweep.cuh"
#include "sizes.hpp"

namespace reduction {

// The facts every multi-block chapter shares: --block from 32 to 1024 (a power of two), 2^27
// elements by default (512 MiB of int, ten times an H100's L2: the run measures memory), and a GPU
// too small for --n told so before the input is made. A chapter changes what differs.
inline ChapterInfo multi_block_info(const std::string& name, const std::string& title) {
  ChapterInfo info;
  info.name = name;
  info.title = title;
  info.has_block = true;
  info.check_block = power_of_two_block(32, 1024);
  info.default_n = std::size_t(1) << 27;
  info.device_room = device_room;
  return info;
}

// "390.6 KiB", "1024.0 MiB": a size in the analysis and the notes.
inline std::string mebibytes(std::size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, bytes < (1 << 20) ? "%.1f KiB" : "%.1f MiB",
                bytes < (1 << 20) ? bytes / 1024.0 : bytes / double(1 << 20));
  return buf;
}

// What a chapter's analysis sees, and what it gives the stages after it.
template <typename T> struct Analysis {
  std::size_t n;     // elements (of each row, in a chapter with rows)
  std::size_t rows;  // 1, but in a chapter with rows (--rows)
  int block;
  const Options& options;
  const std::vector<T>& data;             // the input: its rows one after another
  const std::vector<Reference<T>>& refs;  // one a row
  const Reference<T>& ref;                // row 0's: with one row, the whole input's
  Report& report;
  std::vector<std::string> kernels;  // the chosen ones that run, in the registry's order
  const DeviceInfo* device;          // the GPU the runs will use; null where there is none
  // Columns of a kernel's own (its grid, its registers): the driver adds them to its run.
  std::map<std::string, Json> columns;
  std::ostream& text() { return report.text(); }
  Json& fields() { return report.fields(); }
};

// --coarse F for --kernel coarseF: a chapter's own spelling of --kernel, kept for its exercises'
// text. The value v names the variant prefix + v; `all`, the default, names every variant.
struct KernelAlias {
  const char* flag = nullptr;  // "--coarse"; null: no alias
  const char* prefix = "";     // "coarse"
  const char* all = "";        // "0"
  const char* help = "";
};

// A sweep (every variant run, in the registry's order) stops at the first variant that is more
// than `clearly_slower` times the best so far: smaller differences are within the run-to-run noise
// of a median. The driver then names the best, and says where the sweep stopped and why.
struct SweepRule {
  double clearly_slower = 0;  // 0: no rule, every chosen variant runs
  const char* past_there = "";  // "coarsening costs more than it saves"
};


// The facts and hooks a chapter may define; these defaults are a multi-block chapter's, and the
// hooks do nothing.
struct ChapterDefaults {
  // The chapter's facts for the command line (--block, --n's default and limits, ...).
  static ChapterInfo info(const std::string& name, const std::string& title) { return multi_block_info(name, title); }
  // Rows of n, one block each, instead of one array (see the top of this file): the chapter sets
  // options.rows from an option of its own and times the launch itself (measure<T>(Analysis&),
  // returning its runs); there is no --hot-l2, and no ceiling to measure.
  static constexpr bool has_rows = false;
  // Built against exercise kernels that are still TODOs (the registry's header says so): the
  // program says so, and goes on.
  static constexpr bool unfinished = false;
  static constexpr bool has_ops = false;       // --op sum|max|min (variants<Op, T> for each)
  static constexpr bool has_sizes = false;     // --sizes LIST
  static constexpr bool read_ceiling = false;  // measure the read ceiling too (pct_of_read)
  static constexpr const char* baseline = "";  // a variant every run is compared with (vs_<name>)
  static constexpr KernelAlias alias{};
  static constexpr SweepRule sweep{};
  // The variant the chapter set out to build: the conclusion gives its share of the read ceiling
  // and its throughput over the baseline's (<headline>_pct_of_read, <headline>_vs_<baseline>).
  static constexpr const char* headline = "";
  // Options of the shape of work (--rows, --trace), registered before parsing.
  static void add_options(CommandLine&, Options&) {}
  // Why the chapter cannot reduce rows of n elements, asked of the input once it is read and cut
  // into rows (a file's length is known only then); nothing if it can.
  static std::optional<std::string> check_row_length(std::size_t /*n*/) { return std::nullopt; }
  // The analysis: what the program explains before the runs, with what the GPU adds where there
  // is one (a.device), and the columns each run will carry (a.columns).
  template <typename Op, typename T> static void analyze(Analysis<T>&) {}
  // --sizes: the kernels compared when --kernel is not given (empty: all), and the analysis: text
  // before the rows and, with a GPU, a note for each row (operator by operator, size by size).
  static std::vector<std::string> sizes_kernels() { return {}; }
  template <typename T>
  static std::vector<SizeNote> analyze_sizes(std::ostream&, const std::vector<std::size_t>&, const std::vector<OpKind>&,
                                             const DeviceInfo*) {
    return {};
  }
};

namespace detail {

// Puts the reference into the report. It is part of the analysis, so it is there with or without
// a GPU. A multi-block kernel's float tolerance depends on its own order and is a column of its
// run; the one kernel of a chapter with rows has its order from n alone (`depth`), and its
// tolerance goes beside the reference. With several rows the report shows row 0's.
template <typename Chapter, typename T>
void describe_reference(Report& report, const std::vector<Reference<T>>& refs, std::size_t depth) {
  const Reference<T>& ref = refs.front();
  if (Chapter::has_rows && refs.size() > 1)
    report.set_reference(json_value(ref.value), "row 0's; every row is checked against its own CPU sum, " +
                                                    std::string(ref.exact ? "exactly" : "within its error bound"));
  else if (Chapter::has_rows)
    report.set_reference(ref, tolerance(ref, depth));
  else if (ref.exact)
    report.set_reference(ref, 0);
  else
    report.set_reference(json_value(ref.value),
                         "higher-precision CPU sum; each kernel passes within the error bound "
                         "of its own summation order (column tolerance)");
}

// The run with the shortest median time.
inline std::size_t fastest_run(const std::vector<RunResult>& runs) {
  std::size_t best = 0;
  for (std::size_t k = 1; k < runs.size(); ++k)
    if (runs[k].time_ms < runs[best].time_ms) best = k;
  return best;
}

// The conclusion the chapter's facts ask for: a sweep's best and where it stopped (SweepRule), and
// the headline variant's share of the read ceiling and its throughput over the baseline's.
template <typename Chapter> void conclude(Report& report, const std::vector<RunResult>& runs, bool sweep) {
  auto& summary = report.summary();
  char line[256];
  if (Chapter::sweep.clearly_slower > 0 && !runs.empty()) {
    const RunResult& winner = runs[fastest_run(runs)];
    if (runs.size() > 1) {
      std::snprintf(line, sizeof line, "best       %s: %.1f GB/s, %.1f%% of the copy, %.2fx the throughput of %s\n",
                    winner.kernel.c_str(), winner.gbps, column_of(winner, "pct_of_copy"), winner.gbps / runs.front().gbps,
                    runs.front().kernel.c_str());
      summary << line;
      const RunResult& last = runs.back();
      if (sweep && last.time_ms > Chapter::sweep.clearly_slower * winner.time_ms) {
        std::snprintf(line, sizeof line, "sweep      stopped at %s, %.0f%% slower than %s: past there, %s\n",
                      last.kernel.c_str(), 100 * (last.time_ms / winner.time_ms - 1), winner.kernel.c_str(),
                      Chapter::sweep.past_there);
        summary << line;
      } else {
        summary << "sweep      nothing up to " << last.kernel << " was clearly slower than the best so far\n";
      }
    }
    report.fields().set("best", winner.kernel);
  }
  const std::string headline = Chapter::headline, baseline = Chapter::baseline;
  const RunResult *head = nullptr, *base = nullptr;
  for (const auto& r : runs) {
    if (r.kernel == headline) head = &r;
    if (r.kernel == baseline) base = &r;
  }
  if (head && column_of(*head, "pct_of_read") > 0) {
    std::snprintf(line, sizeof line, "%-10s %.1f %% of the read ceiling\n", headline.c_str(),
                  column_of(*head, "pct_of_read"));
    summary << line;
    report.fields().set(headline + "_pct_of_read", column_of(*head, "pct_of_read"));
  }
  if (head && base) {
    const double ratio = base->time_ms / head->time_ms;
    std::snprintf(line, sizeof line, "%s/%s throughput ratio %.3f (%s %s, %s %s; medians of %zu runs each)\n",
                  headline.c_str(), baseline.c_str(), ratio, baseline.c_str(), format_time(base->time_ms).c_str(),
                  headline.c_str(), format_time(head->time_ms).c_str(), std::size_t(report.options().reps));
    summary << line;
    report.fields().set(headline + "_vs_" + baseline, ratio);
  }
}

// The GPU half of a multi-block chapter: the input on the device with the ceilings measured
// beside it, then each chosen variant checked and timed (common/multi_block.cuh).
template <typename Chapter, typename Op, typename T>
std::vector<RunResult> measure_array(Analysis<T>& a, const DeviceInfo& device,
                                     const std::vector<MultiBlockVariant<T>>& chosen, bool every_kernel_chosen) {
  const std::size_t n = a.n;
  const int block = a.block;
  Report& report = a.report;
  DeviceInput<T> input(a.data, a.options, device, Chapter::read_ceiling);
  RotatingInput<T> rotating = input.rotating(n);
  DeviceScratch scratch;
  T* result = input.result();
  std::vector<RunResult> runs;
  for (const auto& v : chosen) {
    const Contender<T> contender{
        v.name, [&](const T* in, cudaStream_t s) { v.launch(in, n, result, block, scratch, s); }, v.depth(n, block)};
    RunResult run = input.run(contender, n, rotating, a.ref);
    // A variant that promises the same float on every run and gave two has broken its promise.
    if (v.deterministic && !a.ref.exact && column_of(run, "run_spread") != 0) {
      run.correct = false;
      report.summary() << v.name << " gave different results on different runs: it should not\n";
    }
    if (const auto columns = a.columns.find(v.name); columns != a.columns.end())
      for (const auto& [key, value] : columns->second.items()) run.extra.set(key, value);
    runs.push_back(std::move(run));
    if (runs.size() < chosen.size() && every_kernel_chosen && Chapter::sweep.clearly_slower > 0 &&
        runs.back().time_ms > Chapter::sweep.clearly_slower * runs[fastest_run(runs)].time_ms) {
      Json not_run = Json::array();  // said in the report, so that a script knows they were not lost
      for (std::size_t k = runs.size(); k < chosen.size(); ++k) not_run.push(chosen[k].name);
      a.fields().set("not_run", std::move(not_run));
      break;
    }
  }

  describe_ceilings(report, input.ceilings());
  const std::size_t bytes = n * sizeof(T);
  if (rotating.copies() > 1)
    report.summary() << "L2         the input (" << mebibytes(bytes) << ") fits in the " << mebibytes(device.l2_bytes)
                     << " L2: each run reads the next of " << rotating.copies() << " copies of it,\n           "
                     << (rotating.copies() * bytes < device.l2_bytes
                             ? "which together still fit in L2: small inputs are read from L2 by every kernel\n"
                             : "so every kernel starts from DRAM (--hot-l2: from L2)\n");
  else if (a.options.hot_l2 && bytes < 3 * device.l2_bytes)
    report.summary() << "L2         --hot-l2: every run reads the same copy, which stays in L2 after the first\n";
  report.fields().set("input_copies", rotating.copies());
  return runs;
}

// One run of the chosen kernels on the input (its rows), for one operator: the stages from the
// reference on.
template <typename Chapter, typename Op, typename T>
int run_kernels(const std::vector<T>& data, const Options& options, Report& report) {
  const std::size_t rows = options.rows, n = data.size() / rows;
  const int block = options.block;
  const auto available = Chapter::template variants<Op, T>();
  const auto chosen = chosen_variants(available, options.kernels);
  std::vector<std::string> names, skipped, offered;
  for (const auto& v : chosen) names.push_back(v.name);
  for (const auto& v : available) offered.push_back(v.name);
  for (const auto& k : options.kernels)
    if (std::find(names.begin(), names.end(), k) == names.end()) skipped.push_back(k);

  // The reference, one a row, first: the report shows it without a GPU.
  std::vector<Reference<T>> refs(rows);
  parallel_chunks(rows, unsigned(std::min<std::size_t>(rows, cpu_workers(data.size()))),
                  [&](std::size_t first, std::size_t last, unsigned) {
                    for (std::size_t row = first; row < last; ++row)
                      refs[row] = reference_reduce<Op>(data.data() + row * n, n);
                  });
  describe_reference<Chapter>(report, refs, Chapter::has_rows ? available.front().depth(n, block) : 0);

  // The analysis: what the chapter explains, with the GPU's facts where there is one.
  std::string no_gpu;
  const std::optional<DeviceInfo> device = open_gpu(report, no_gpu);
  Analysis<T> a{n, rows, block, options, data, refs, refs.front(), report, names, device ? &*device : nullptr, {}};
  if (Chapter::has_ops) {
    a.text() << "operator   " << Op::name << ", identity "
             << format_value(json_value(Op::template identity<T>()), data_type_of<T>()) << "\n";
    a.fields().set("op", Op::name);
  }
  Chapter::template analyze<Op, T>(a);
  if (!skipped.empty())
    a.text() << "skipped    " << join(skipped, " ") << ": they take only sum; --op " << Op::name << " runs "
             << join(offered) << "\n";
  if (!Chapter::has_rows) a.fields().set("block", block);  // with rows, the block follows from n

  // The GPU, then the measurement and the verification of each run.
  if (!device) return report.finish_without_gpu(no_gpu);
  std::vector<RunResult> runs;
  if constexpr (Chapter::has_rows)
    runs = Chapter::template measure<T>(a);
  else
    runs = measure_array<Chapter, Op>(a, *device, chosen, chosen.size() == available.size());

  // The report.
  const std::string baseline = Chapter::baseline;
  for (const auto& b : runs)
    if (!baseline.empty() && b.kernel == baseline)
      for (auto& r : runs) r.extra.set("vs_" + baseline, b.time_ms / r.time_ms);
  for (const auto& r : runs) report.add_run(r);
  conclude<Chapter>(report, runs, chosen.size() == available.size());
  return report.finish();
}

}  // namespace detail

// The program: parses the command line, then runs the chapter on its input.
template <typename Chapter>
int run_chapter(int argc, char** argv, const std::string& name, const std::string& title) {
  // The options.
  ChapterInfo info = Chapter::info(name, title);
  const auto registry = Chapter::template variants<Sum, int>();
  for (const auto& v : registry) info.variants.push_back({v.name, v.idea, v.deterministic});

  Options options;
  std::string op_text = "sum", sizes_text;
  CommandLine cli(info, options);
  if (Chapter::has_ops) {
    std::vector<std::string> choices = {"sum", "max", "min"};
    if (Chapter::has_sizes) choices.push_back("all");
    cli.add_option("--op", op_text,
                   std::string("operator") + (Chapter::has_sizes ? "; all: sum, max and min in turn (with --sizes)" : ""),
                   choices);
  }
  if (!Chapter::has_rows)  // rows are timed from the one copy the launch reads
    cli.add_flag("--hot-l2", options.hot_l2,
                 "time small inputs from L2: every run reads the same copy (default: rotate copies, see the report)");
  if (Chapter::has_sizes)
    cli.add_option("--sizes", sizes_text,
                   "time the kernels at each of these sizes instead, alternating (comma-separated counts, or "
                   "standard: 2^k for k = 0..30, 2^k - 1, 2^k + 1 and 10^k up to 10^9), one row each");
  Chapter::add_options(cli, options);
  std::string alias_text;
  if constexpr (Chapter::alias.flag != nullptr) {
    const std::string flag = Chapter::alias.flag, prefix = Chapter::alias.prefix;
    alias_text = Chapter::alias.all;
    std::vector<std::string> values;
    for (const auto& v : registry) values.push_back(std::string(v.name).substr(prefix.size()));
    values.push_back(alias_text);
    cli.add_option(flag, alias_text, Chapter::alias.help, values);
    cli.add_check([&, flag, prefix]() -> std::optional<std::string> {
      if (alias_text == Chapter::alias.all) return std::nullopt;
      if (options.kernels != variant_names(info)) return flag + " and --kernel both choose kernels; give one of them";
      options.kernels = {prefix + alias_text};
      return std::nullopt;
    });
  }

  // The registry's facts, enforced before anything runs.
  cli.add_check([&]() -> std::optional<std::string> {
    for (const auto& v : registry)
      if (options.block < v.min_block && std::find(options.kernels.begin(), options.kernels.end(), v.name) !=
                                             options.kernels.end())
        return "--block " + std::to_string(options.block) + " is too small for " + v.name + ", which needs at least " +
               std::to_string(v.min_block) + " threads a block (it reduces whole warps)";
    return std::nullopt;
  });
  std::vector<OpKind> ops = {OpKind::Sum};
  cli.add_check([&]() -> std::optional<std::string> {
    if (op_text == "all") {
      if (sizes_text.empty()) return std::string("--op all goes with --sizes; one run takes one operator");
      ops = {OpKind::Sum, OpKind::Max, OpKind::Min};
      return std::nullopt;
    }
    ops = {*parse_op(op_text)};
    if (op_text == "sum") return std::nullopt;
    std::vector<std::string> offered;
    dispatch_op(ops[0], [&](auto op) {
      if constexpr (!std::is_same_v<decltype(op), Product>)
        for (const auto& v : Chapter::template variants<decltype(op), int>()) offered.push_back(v.name);
      return 0;
    });
    for (const auto& k : options.kernels)
      if (std::find(offered.begin(), offered.end(), k) != offered.end()) return std::nullopt;
    return "--op " + op_text + ": the chosen kernels add only; " + join(offered) + " take " + op_text;
  });
  std::vector<std::size_t> sizes;
  cli.add_check([&]() -> std::optional<std::string> {
    if (sizes_text.empty()) return std::nullopt;
    if (!options.input.empty()) return std::string("--sizes makes its own input (one per --type); --input does not apply");
    const auto parsed = parse_sizes(sizes_text);
    if (!parsed)
      return "--sizes takes counts of at least 1 separated by commas (1,1000,2^20) or standard, got '" + sizes_text +
             "'";
    sizes = *parsed;
    if (options.kernels == variant_names(info) && !Chapter::sizes_kernels().empty())
      options.kernels = Chapter::sizes_kernels();
    return std::nullopt;
  });
  if (auto status = cli.parse(argc, argv)) return *status;
  if (!sizes.empty()) options.n = sizes.back();  // one input of the largest size; smaller sizes reduce a prefix

  // The input: --n elements, or a file; with rows, the rows one after another.
  Options input_options = options;
  if (options.rows > 1) {
    input_options.n = options.rows * options.n;  // below the host's memory: checked with the option
    info.max_n = options.rows * info.max_n;
    info.max_n_reason = std::to_string(options.rows) + " rows of at most " + std::to_string(info.max_n / options.rows) +
                        " elements";
  }
  return run_guarded(info.name, [&] {
    return with_input(info, input_options, [&](const auto& data, const std::string& source) {
      using T = typename std::decay_t<decltype(data)>::value_type;
      const std::size_t rows = options.rows;
      if (data.size() % rows != 0)
        throw InputError(source + ": " + std::to_string(data.size()) + " elements do not make " + std::to_string(rows) +
                         " rows of equal length");
      const std::size_t n = data.size() / rows;
      if (auto why = Chapter::check_row_length(n)) throw InputError(source + ": " + *why);
      Report report(info, options);
      report.set_input(data_type_of<T>(), n, source);
      if (Chapter::has_rows) report.fields().set("rows", rows);
      const int status = [&] {
        if constexpr (Chapter::has_sizes)
          if (!sizes.empty()) return detail::run_sizes<Chapter, T>(data, options, report, sizes, ops);
        if constexpr (!Chapter::has_ops)
          return detail::run_kernels<Chapter, Sum, T>(data, options, report);
        else
          return dispatch_op(ops.front(), [&](auto op) {
            using Op = decltype(op);
            if constexpr (std::is_same_v<Op, Product>) return int(kBadUsage);  // not offered by --op
            else return detail::run_kernels<Chapter, Op, T>(data, options, report);
          });
      }();
      // Said after the report, so never beside the one line of a bad input (a sum too large for
      // its type is found only with the reference).
      if (Chapter::unfinished)
        std::cerr << info.name << ": built with the exercise kernels, which are not all written yet\n";
      return status;
    });
  });
}

}  // namespace reduction
