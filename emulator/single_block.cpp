// The bodies of what analysis.hpp declares for the single-block programs, but analyse(), which
// runs the chapter's kernel and so is compiled with it (emulated.cpp).
#include "emulator/analysis.hpp"

#include <algorithm>
#include <ostream>

#include "common/limits.hpp"

namespace reduction::single_block {

ChapterInfo chapter_info(const std::string& name, const std::string& title, const VariantInfo& kernel) {
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

std::optional<std::string> check_rows_option(const std::string& rows_text, bool trace, Options& options) {
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
  const std::string what =
      "--rows " + std::to_string(*rows) + " of " + std::to_string(options.n) + " elements and their results";
  // Against the machine's memory; rows * (n + 1) < 2^42: no overflow.
  return memory_refusal(*rows * (options.n + 1), options.type == DataType::Double ? 8 : 4, what, true);
}

ChapterInfo rows_info(ChapterInfo info, std::size_t rows) {
  if (rows > 1) {
    info.max_n = rows * kMaxElements;
    info.max_n_reason = std::to_string(rows) + " rows of at most " + std::to_string(kMaxElements) + " elements";
  }
  return info;
}

std::size_t row_length(std::size_t elements, std::size_t rows, const std::string& source, bool trace) {
  if (elements % rows != 0)
    throw InputError(source + ": " + std::to_string(elements) + " elements do not make " + std::to_string(rows) +
                     " rows of equal length");
  const std::size_t n = elements / rows;
  if (trace && n > kMaxTraceElements)
    throw InputError(source + ": --trace draws at most " + std::to_string(kMaxTraceElements) +
                     " elements, and n = " + std::to_string(n));
  return n;
}

void print_timing_note(std::ostream& out, int reps, std::size_t steps, std::size_t rows) {
  if (rows > 1) {
    out << "Time: the median of " << reps << " launches of " << rows << " blocks, one per row, each timed with CUDA\n"
        << "events. Every SM now holds several blocks at once, and while one waits at a barrier or on memory\n"
        << "the others work: GB/s counts every row's input bytes once, and shows how the kernel's memory\n"
        << "accesses and idle threads cost it against the GPU's bandwidth.\n";
    return;
  }
  out << "Time: the median of " << reps << " launches, each timed with CUDA events. One block runs on a single\n"
      << "SM and works through " << steps << (steps == 1 ? " step" : " dependent steps, with a barrier between them")
      << ": the time is launch\n"
      << "latency and that chain of steps, not memory traffic. These kernels are bound by latency, not\n"
      << "bandwidth: read the microseconds; the GB/s column says little here.\n";
}

// The references are computed here and not kept: a million rows of one element would otherwise
// take 80 MB of references for 4 MB of input.
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

// The reference of the whole input says it for every row at once, since no row's magnitude exceeds
// the whole's; only where the whole could overflow are the rows checked one by one.
template <typename T>
void check_rows_fit(const std::vector<T>& data, std::size_t n) {
  try {
    reference_sum(data.data(), data.size());
  } catch (const InputError&) {
    check_rows(data, n, {});
  }
}

template <typename T>
void describe_reference(Report& report, const Reference<T>& row0, std::size_t rows, std::size_t n) {
  if (rows == 1) return report.set_reference(row0, tolerance(row0, tree_depth(n)));
  report.set_reference(json_value(row0.value), "row 0's; every row is checked against its own CPU sum, " +
                                                   std::string(row0.exact ? "exactly" : "within its error bound"));
}

template RowsChecked check_rows(const std::vector<std::int32_t>&, std::size_t, const std::vector<std::int32_t>&);
template RowsChecked check_rows(const std::vector<float>&, std::size_t, const std::vector<float>&);
template RowsChecked check_rows(const std::vector<double>&, std::size_t, const std::vector<double>&);
template void check_rows_fit(const std::vector<std::int32_t>&, std::size_t);
template void check_rows_fit(const std::vector<float>&, std::size_t);
template void check_rows_fit(const std::vector<double>&, std::size_t);
template void describe_reference(Report&, const Reference<std::int32_t>&, std::size_t, std::size_t);
template void describe_reference(Report&, const Reference<float>&, std::size_t, std::size_t);
template void describe_reference(Report&, const Reference<double>&, std::size_t, std::size_t);

}  // namespace reduction::single_block
