#include "program.hpp"
#include "limits.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <iomanip>
#include <iostream>
#include <new>
#include <stdexcept>

namespace reduction {

TimingStats summarize(std::vector<double> times_ms) {
  TimingStats s;
  if (times_ms.empty()) return s;
  std::sort(times_ms.begin(), times_ms.end());
  const std::size_t m = times_ms.size();
  s.median_ms = m % 2 ? times_ms[m / 2] : (times_ms[m / 2 - 1] + times_ms[m / 2]) / 2;
  s.min_ms = times_ms.front();
  s.max_ms = times_ms.back();
  s.reps = static_cast<int>(m);
  return s;
}

Json::Base& Json::set(const std::string& key, Json value) {
  if (!is_object()) static_cast<Base&>(*this) = Base::object();
  return (*this)[key] = static_cast<Base&&>(value);
}

Json::Base& Json::push(Json value) {
  if (!is_array()) static_cast<Base&>(*this) = Base::array();
  return emplace_back(static_cast<Base&&>(value));
}

// Copies: a report has a handful of them.
std::vector<std::pair<std::string, Json>> Json::items() const {
  const auto& fields = get_ref<const object_t&>();
  return std::vector<std::pair<std::string, Json>>(fields.begin(), fields.end());
}

double Json::as_double() const { return is_number() ? get<double>() : NAN; }

std::string Json::dump() const { return Base::dump(-1, ' ', false, error_handler_t::replace); }

int run_guarded(const std::string& program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const InputError& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
    return kBadUsage;
  } catch (const CudaFailure&) {
    return kCudaFailed;  // throw_cuda_error has printed the details
  } catch (const std::bad_alloc&) {
    std::cerr << program << ": error: not enough host memory for this input\n";
    return kBadUsage;
  } catch (const std::length_error&) {  // a container asked for more than it can ever hold
    std::cerr << program << ": error: the input is too large for this machine's memory\n";
    return kBadUsage;
  } catch (const std::exception& e) {
    std::cerr << program << ": internal error (please report it): " << e.what() << "\n";
    return kInternal;
  }
}

double column_of(const RunResult& run, const std::string& name) {
  for (const auto& kv : run.extra.items())
    if (kv.first == name && kv.second.is_number()) return kv.second.as_double();
  return 0;
}

std::string format_value(const Json& v, DataType type) {
  if (!v.is_number() || type == DataType::Int) return v.dump();
  char buf[40];
  std::snprintf(buf, sizeof buf, type == DataType::Float ? "%.9g" : "%.17g", v.as_double());
  return buf;
}

std::string format_time(double ms) {
  char buf[32];
  if (ms < 1) std::snprintf(buf, sizeof buf, "%.2f us", ms * 1e3);
  else if (ms < 1000) std::snprintf(buf, sizeof buf, "%.3f ms", ms);
  else std::snprintf(buf, sizeof buf, "%.3f s", ms / 1e3);
  return buf;
}

namespace {
std::string format_cell(const Json& v) {
  if (!v.is_number()) return v.dump();
  double d = v.as_double();
  char buf[32];
  if (d == std::floor(d) && std::fabs(d) < 1e15) std::snprintf(buf, sizeof buf, "%.0f", d);
  else std::snprintf(buf, sizeof buf, std::fabs(d) >= 100 ? "%.1f" : "%.3g", d);
  return buf;
}

std::size_t count_unchecked(const std::vector<RunResult>& runs) {
  return std::count_if(runs.begin(), runs.end(), [](const RunResult& r) { return !r.unchecked.empty(); });
}
}  // namespace

Report::Report(const ChapterInfo& info, const Options& options) : info_(info), options_(options) {}

void Report::set_device(const std::string& description) { device_ = description; }

void Report::set_input(DataType type, std::size_t n, const std::string& source) {
  type_ = type;
  n_ = n;
  source_ = source;
}

void Report::set_reference(Json value, const std::string& note) {
  reference_ = std::move(value);
  reference_note_ = note;
}

void Report::add_run(RunResult run) { runs_.push_back(std::move(run)); }

void Report::print(bool with_runs) {
  if (options_.json) {
    Json j = {{"chapter", info_.name}, {"device", device_}, {"type", type_name(type_)}, {"n", n_}, {"input", source_}};
    j.set("reference", reference_);
    Json runs = Json::array();
    for (const auto& r : runs_) {
      Json o = {{"kernel", r.kernel}};
      o.set("result", r.result);
      o.set("correct", r.unchecked.empty() ? Json(r.correct) : Json());
      if (!r.unchecked.empty()) o.set("unchecked", r.unchecked);
      o.set("time_ms", r.time_ms);
      o.set("gbps", r.gbps);
      for (const auto& kv : r.extra.items()) o.set(kv.first, kv.second);
      runs.push(std::move(o));
    }
    j.set("runs", std::move(runs));
    for (const auto& kv : fields_.items()) j.set(kv.first, kv.second);
    std::cout << j.dump() << "\n";  // flushed by output_written, which then sees a failed write
    return;
  }
  std::cout << "== " << info_.name << ": " << info_.title << " ==\n"
            << "device     " << device_ << "\n"
            << "input      n = " << n_ << " " << type_name(type_) << " (" << source_ << ")\n";
  if (!reference_note_.empty())
    std::cout << "reference  " << format_value(reference_, type_) << " (" << reference_note_ << ")\n";
  std::string text = text_.str();
  if (!text.empty()) std::cout << "\n" << text << (text.back() == '\n' ? "" : "\n");
  if (with_runs && !runs_.empty()) {
    std::vector<std::vector<std::string>> rows = {{"kernel", "result", "correct", "time (median)", "GB/s"}};
    for (const auto& kv : runs_.front().extra.items()) rows[0].push_back(kv.first);
    for (const auto& r : runs_) {
      char gbps[32];
      std::snprintf(gbps, sizeof gbps, "%.1f", r.gbps);
      std::vector<std::string> row = {r.kernel, format_value(r.result, type_), !r.unchecked.empty() ? "unchecked" : r.correct ? "yes" : "NO",
                                      format_time(r.time_ms), gbps};
      for (const auto& kv : r.extra.items()) row.push_back(format_cell(kv.second));
      rows.push_back(row);
    }
    std::vector<std::size_t> width(rows[0].size());  // the header's columns
    for (const auto& row : rows)
      for (std::size_t c = 0; c < std::min(row.size(), width.size()); ++c) width[c] = std::max(width[c], row[c].size());
    std::cout << "\n";
    for (const auto& row : rows) {
      for (std::size_t c = 0; c < row.size(); ++c)
        std::cout << (c ? "  " : "") << std::left << std::setw(static_cast<int>(width[c])) << row[c];
      std::cout << "\n";
    }
  }
  std::string summary = summary_.str();
  if (!summary.empty()) std::cout << "\n" << summary << (summary.back() == '\n' ? "" : "\n");
  if (with_runs) {
    const std::size_t unchecked = count_unchecked(runs_);
    for (const auto& r : runs_)
      if (!r.unchecked.empty()) std::cout << "\nunchecked  " << r.kernel << ": " << r.unchecked;
    if (unchecked) std::cout << "\n";
    if (!all_checked_correct())
      std::cout << "\nFAILED: a result differs from the CPU reference\n";
    else if (unchecked == runs_.size())
      std::cout << "\nnot verified: no result could be checked\n";
    else
      std::cout << "\nverified: every " << (unchecked ? "checked " : "") << "result matches the CPU reference\n";
  }
}

bool Report::all_checked_correct() const {
  return std::all_of(runs_.begin(), runs_.end(), [](const RunResult& r) { return !r.unchecked.empty() || r.correct; });
}

// A wrong result stays 1 even where the report could not be written (stderr says both): it is the
// graver news. Otherwise output that never arrived is 5, and a report whose every result is
// unchecked is 6, "not verified": 0 says that a result was checked, and matched.
int Report::finish() {
  print(true);
  const bool written = output_written(info_.name);
  if (!all_checked_correct()) {
    if (!written) std::cerr << info_.name << ": FAILED: a result differs from the CPU reference\n";
    return kWrongResult;
  }
  if (!written) return kOutputFailed;
  return !runs_.empty() && count_unchecked(runs_) == runs_.size() ? kNotVerified : kVerified;
}

int Report::finish_without_gpu(const std::string& reason) {
  fields_.set("gpu_unavailable", reason);
  print(false);
  if (!output_written(info_.name)) return kOutputFailed;
  std::cerr << info_.name << ": no usable GPU (" << reason << "); "
            << (options_.json ? "the analysis in the JSON on stdout needs none" : "the analysis above needs none")
            << ", the kernels do\n";
  return kNoGpu;
}

}  // namespace reduction
