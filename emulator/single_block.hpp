// What the single-block chapters (03 to 05) share: the sizes one block can reduce, the block that
// the algorithm dictates for n elements, and the rows of --rows, checked and cut.
//
// One block, because the tree needs a barrier between its steps and __syncthreads() only waits
// for the threads of one block. At most 1024 threads in a block, and every thread starts with two
// elements, so at most 2048 elements. Chapter 06 lifts that limit with many blocks.
//
// Rows: the same kernels also reduce a batch of independent arrays ("rows") of n elements each,
// stored one after another, one block per row: block b reduces row b into result[b]. That is the
// shape of softmax and layer normalisation, and it gives these kernels work large enough to time
// against memory, where their ideas show (one array of 2048 elements is over in the time of a launch).
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "common/escape.hpp"
#include "common/options.hpp"
#include "common/parallel.hpp"
#include "common/reference.hpp"
#include "common/report.hpp"

namespace reduction::single_block {

constexpr unsigned kWarpSize = 32;
constexpr unsigned kMaxThreads = 1024;                              // the most threads a block may have
constexpr std::size_t kMaxElements = 2 * std::size_t(kMaxThreads);  // two elements for each of them
constexpr std::size_t kMaxTraceElements = 64;                       // what --trace can draw legibly
constexpr std::size_t kMaxRows = 2147483647;                        // a grid's most blocks in x, 2^31 - 1

// The block for n elements (1 <= n <= 2048): enough threads for each to own two elements, rounded
// up to a power of two so that halving the active threads always ends at exactly one. When n is not
// a power of two, some elements a thread would combine do not exist: the kernels skip those
// additions with a guard instead of padding the input with the identity.
inline unsigned threads_for(std::size_t n) {
  unsigned threads = 1;
  while (2 * std::size_t(threads) < n) threads *= 2;
  return threads;
}

inline unsigned warps_for(unsigned threads) { return (threads + kWarpSize - 1) / kWarpSize; }

// The most rounded additions an element meets on its way to the result: one per step of the
// tree, and a block of threads_for(n) threads takes log2(2 * threads) = ceil(log2 n) steps.
inline std::size_t tree_depth(std::size_t n) { return ceil_log2(n); }

// The command line's facts for a single-block chapter: n from 1 to 2048 (2048 by default, the most
// one block takes), 100 repetitions (a launch is short), and its one kernel for --kernel and --list.
inline ChapterInfo chapter_info(const std::string& name, const std::string& title, const VariantInfo& kernel) {
  ChapterInfo info;
  info.name = name;
  info.title = title;
  info.default_n = info.max_n = kMaxElements;
  info.max_n_reason = "one block reduces at most " + std::to_string(kMaxElements) +
                      " elements, two for each of its at most " + std::to_string(kMaxThreads) +
                      " threads; 06_hierarchical lifts the limit with many blocks";
  info.min_n_reason = "a block reduction returns the partial sum of thread 0, and with no elements there is none "
                      "(01_sequential reduces an empty input to the identity)";
  info.default_reps = 100;
  info.variants = {kernel};
  return info;
}

constexpr const char* kRowsHelp =
    "reduce this many independent rows of n elements, one block each (also 2^16, 64K); "
    "with --input, the file holds them one after another";

// --rows and --trace, checked once the other options are parsed: sets options.rows, or says what
// is wrong. The host must hold the rows and a result for each (a million rows of one element need
// as much memory for their results as for their input).
inline std::optional<std::string> check_rows_option(const std::string& rows_text, bool trace, Options& options) {
  const auto rows = parse_count(rows_text);
  if (!rows) return "--rows must be a whole number of rows such as 1000, 2^16 or 64K, got '" + escaped(rows_text) + "'";
  if (*rows == 0) return std::string("--rows must be at least 1");
  if (*rows > kMaxRows)
    return "--rows " + std::to_string(*rows) + " is too many: one block per row, and a grid has at most " +
           std::to_string(kMaxRows) + " blocks";
  if (trace && *rows > 1) return "--trace draws one row, and --rows is " + std::to_string(*rows);
  options.rows = *rows;
  if (!options.input.empty()) return std::nullopt;  // a file's rows are checked once it is read
  if (trace && options.n > kMaxTraceElements)
    return "--trace draws at most " + std::to_string(kMaxTraceElements) +
           " elements, and n = " + std::to_string(options.n);
  const std::size_t element_bytes = options.type == DataType::Double ? 8 : 4,
                    bytes = *rows * (options.n + 1) * element_bytes;
  const auto memory = host_memory_bytes();  // rows * (n + 1) < 2^42: no overflow
  if (memory && bytes > *memory)
    return "--rows " + std::to_string(*rows) + " of " + std::to_string(options.n) +
           " elements and their results take " + std::to_string(bytes) + " bytes, and this machine has " +
           std::to_string(*memory) + " bytes of memory";
  return std::nullopt;
}

// The chapter's facts for the input of `rows` rows: a file may hold up to rows x 2048 elements.
inline ChapterInfo rows_info(ChapterInfo info, std::size_t rows) {
  if (rows > 1) {
    info.max_n = rows * kMaxElements;
    info.max_n_reason = std::to_string(rows) + " rows of at most " + std::to_string(kMaxElements) + " elements";
  }
  return info;
}

// The length of each of `rows` rows in `elements` elements read from `source`; refuses (InputError)
// rows of unequal length, and a row too long to trace.
inline std::size_t row_length(std::size_t elements, std::size_t rows, const std::string& source, bool trace) {
  if (elements % rows != 0)
    throw InputError(source + ": " + std::to_string(elements) + " elements do not make " + std::to_string(rows) +
                     " rows of equal length");
  const std::size_t n = elements / rows;
  if (trace && n > kMaxTraceElements)
    throw InputError(source + ": --trace draws at most " + std::to_string(kMaxTraceElements) +
                     " elements, and n = " + std::to_string(n));
  return n;
}

// The rows' results against their references: how many differ, how many the error bound cannot
// check, and the first that differs, in words.
struct RowsChecked {
  std::size_t wrong = 0, unchecked = 0;
  std::string first_wrong;
};

// Every row's result against its own CPU reference, the rows shared among the CPU's cores. The
// references are computed here and not kept: a million rows of one element would otherwise take
// 80 MB of references for 4 MB of input. With `results` empty, only the references are computed,
// which refuses (InputError) a float row whose sum could overflow its type: the programs do that
// before they touch the GPU.
template <typename T>
RowsChecked check_rows(const std::vector<T>& data, std::size_t n, const std::vector<T>& results) {
  const std::size_t rows = data.size() / n, depth = tree_depth(n);
  const unsigned workers = unsigned(std::min<std::size_t>(rows, cpu_workers(data.size())));
  std::vector<RowsChecked> each(workers);
  parallel_chunks(rows, workers, [&](std::size_t begin, std::size_t end, unsigned w) {
    for (std::size_t row = begin; row < end; ++row) {
      const Reference<T> ref = reference_sum(data.data() + row * n, n);
      const long double tol = tolerance(ref, depth);
      if (results.empty()) continue;
      if (!unchecked_reason(ref, tol, depth).empty()) {
        ++each[w].unchecked;
      } else if (!matches(results[row], ref, tol) && each[w].wrong++ == 0) {
        each[w].first_wrong = "row " + std::to_string(row) + " gave " +
                              format_value(json_value(results[row]), data_type_of<T>()) + ", its reference is " +
                              format_value(json_value(ref.value), data_type_of<T>());
      }
    }
  });
  RowsChecked all;
  for (unsigned w = 0; w < workers; ++w) {
    all.wrong += each[w].wrong;
    all.unchecked += each[w].unchecked;
    if (all.first_wrong.empty()) all.first_wrong = each[w].first_wrong;  // workers hold rows in order
  }
  return all;
}

// Refuses (InputError), before the GPU, rows whose float sum could overflow their type. The
// reference of the whole input says it for every row at once, since no row's magnitude exceeds the
// whole's; only where the whole could overflow are the rows checked one by one.
template <typename T>
void check_rows_fit(const std::vector<T>& data, std::size_t n) {
  try {
    reference_sum(data.data(), data.size());
  } catch (const InputError&) {
    check_rows(data, n, {});
  }
}

// What the report says of the reference: row 0's, and how every row is checked.
template <typename T>
void describe_reference(Report& report, const Reference<T>& row0, std::size_t rows, std::size_t n) {
  if (rows == 1) return report.set_reference(row0, tolerance(row0, tree_depth(n)));
  report.set_reference(json_value(row0.value), "row 0's; every row is checked against its own CPU sum, " +
                                                   std::string(row0.exact ? "exactly" : "within its error bound"));
}

}  // namespace reduction::single_block
