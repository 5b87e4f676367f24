// What a chapter program prints: a human-readable report, or with --json exactly one JSON object
// on stdout. Chapters fill a Report and call finish(); nothing else writes to stdout.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "json.hpp"
#include "options.hpp"
#include "reference.hpp"
#include "types.hpp"

namespace reduction {

// One kernel's run. `extra` holds chapter-specific numbers (for example "pct_of_copy"); they go
// into the run's JSON object and become extra columns of the human table.
struct RunResult {
  std::string kernel;
  Json result;
  bool correct = false;
  double time_ms = 0;
  double gbps = 0;
  // Why the result could not be checked (its error bound says nothing, see reference.hpp's
  // bound_says_something); empty when it was. An unchecked result is neither a pass nor a
  // failure: it is reported as what it is, and does not count towards "verified".
  std::string unchecked;
  Json extra = Json::object();
};

// The number in one of a run's extra columns ("pct_of_read", say), or 0 where it has none.
inline double column_of(const RunResult& run, const std::string& name) {
  for (const auto& kv : run.extra.items())
    if (kv.first == name && kv.second.is_number()) return kv.second.as_double();
  return 0;
}

template <typename T> Json json_value(T v) {
  if constexpr (std::is_integral_v<T>) return Json(static_cast<std::int64_t>(v));
  else return Json(static_cast<double>(v));
}

// Human form of a result: integers exactly, floats with the digits that tell them apart.
std::string format_value(const Json& v, DataType type);
// "12.3 us", "4.56 ms", "1.23 s".
std::string format_time(double ms);

class Report {
 public:
  Report(const ChapterInfo& info, const Options& options);

  void set_device(const std::string& description);
  void set_input(DataType type, std::size_t n, const std::string& source);
  template <typename T> void set_reference(const Reference<T>& ref, long double tolerance) {
    reference_ = json_value(ref.value);
    std::ostringstream note;
    if (ref.exact) note << "exact" << (ref.wrapped ? "; the true sum overflows 32 bits, and wraps as the GPU's adds do" : "");
    else note << "higher-precision CPU " << op_name(ref.operation) << "; a result passes within " << static_cast<double>(tolerance);
    reference_note_ = note.str();
  }
  void set_reference(Json value, const std::string& note);

  std::ostream& text() { return text_; }        // human text before the runs table (analysis)
  std::ostream& summary() { return summary_; }  // human text after the runs table
  Json& fields() { return fields_; }             // chapter-specific top-level JSON fields
  const Options& options() const { return options_; }
  const ChapterInfo& info() const { return info_; }
  void add_run(RunResult run);
  const std::vector<RunResult>& runs() const { return runs_; }

  // Prints the report. Returns 0 if every checked run is correct and one was checked, 6
  // (kNotVerified) where none could be, 1 if a checked run is wrong; 5 (kOutputFailed) where the
  // report could not be written (see output_written), unless a result was wrong.
  int finish();
  // Prints what can be shown without a GPU, and the reason on stderr. Returns 77, or 5 where the
  // analysis could not be written.
  int finish_without_gpu(const std::string& reason);

 private:
  void print(bool with_runs);
  bool all_checked_correct() const;

  const ChapterInfo& info_;
  const Options& options_;
  std::string device_ = "none";
  DataType type_ = DataType::Int;
  std::size_t n_ = 0;
  std::string source_;
  Json reference_;
  std::string reference_note_;
  std::ostringstream text_, summary_;
  Json fields_ = Json::object();
  std::vector<RunResult> runs_;
};

}  // namespace reduction
