// The bodies of the templates that analysis.hpp, the emulator's face for chapters 03 to 05,
// declares: the rows of --rows checked against their references, and the reference described.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "common/program.hpp"
#include "common/reference.hpp"
#include "emulator/analysis.hpp"

namespace reduction::single_block {

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
