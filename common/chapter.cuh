// What a GPU chapter gives the driver (common/driver.cuh): a struct that derives from
// ChapterDefaults and says what is its own. Its registry (variants, with the facts the driver
// enforces: block limits, operators, determinism), facts (the shape of its work, an alias of
// --kernel, a rule that ends a sweep, the variant it set out to build) and one hook, its analysis.
// What a struct does not define, ChapterDefaults supplies: the facts of a multi-block chapter, and
// an analysis that says nothing. The driver calls the chapter once, at the analysis; everything
// after it (the runs' extra columns, when to stop, the conclusion) it does from what the analysis
// and the facts gave it.
//
//   struct MyChapter : reduction::ChapterDefaults {
//     template <typename Op, typename T> static std::vector<reduction::MultiBlockVariant<T>> variants();
//     static constexpr bool unfinished = my_chapter::unfinished;  // from the kernel header
//     template <typename Op, typename T> static void analyze(reduction::Analysis<T>&);
//     // optional facts, see ChapterDefaults
//   };
#pragma once

#include <cstddef>
#include <cstdio>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "gpu.cuh"
#include "json.hpp"
#include "ops.hpp"
#include "options.hpp"
#include "reference.hpp"
#include "report.hpp"

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
  double clearly_slower = 0;    // 0: no rule, every chosen variant runs
  const char* past_there = "";  // "coarsening costs more than it saves"
};

// What a chapter's analysis says of one row (one operator and size), beside its times.
struct SizeNote {
  std::string text;  // the row's last column
  Json fields;       // into the row's JSON
};

// The facts a chapter may state and its analysis; these defaults are a multi-block chapter's, and
// the analysis says nothing. (add_options, check_row_length and measure belong to a shape of work,
// the rows of common/single_block_chapter.cuh, not to a chapter.)
struct ChapterDefaults {
  // The chapter's facts for the command line (--block, --n's default and limits, ...).
  static ChapterInfo info(const std::string& name, const std::string& title) { return multi_block_info(name, title); }
  // Rows of n, one block each, instead of one array (common/driver.cuh): the shape of work sets
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
  static constexpr KernelAlias alias{};  // none
  static constexpr SweepRule sweep{};    // none: every chosen variant runs
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

}  // namespace reduction
