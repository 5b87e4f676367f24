// The step-by-step trace of a single-block reduction (the --trace of chapters 03 to 05), drawn
// from the steps its threads took: recorded on the GPU when there is one, else emulated on the CPU.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdio>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "block_events.hpp"
#include "block_model.hpp"
#include "common/program.hpp"
#include "common/ops.hpp"

namespace reduction::single_block {

template <typename T>
struct TraceStep {
  std::string name;              // "stride 2", "load, stride 8"
  std::vector<unsigned> active;  // the threads that added in this step
  // What each thread that wrote did, in the kernel's names: {0, "data[0] += data[2]"}.
  std::vector<std::pair<unsigned, std::string>> actions;
  std::string array;          // the array the step writes: "data" (global) or "partial" (shared)
  std::vector<T> values;      // that array after the step
  std::vector<bool> written;  // the elements the step wrote
};

template <typename T>
struct Trace {
  bool recorded = false;  // recorded on the GPU, or emulated on the CPU
  std::string layout;     // who owns what, in one line: "thread t owns data[2t]"
  unsigned threads = 0;
  std::vector<T> input;
  std::vector<TraceStep<T>> steps;
  std::string result_from;  // the element thread 0 stores to *result: "data[0]"; empty: none
  T result{};
};

// The trace of the steps of one launch on `input`, in a block of `threads`: the arrays the steps
// wrote (data, or partial in shared memory), with the values the accesses carry.
template <typename T>
Trace<T> trace_from(const Steps& steps, const std::vector<T>& input, unsigned threads, const std::string& layout,
                    bool recorded) {
  Trace<T> trace{recorded, layout, threads, input, {}, "", T{}};
  std::vector<T> arrays[2] = {input, std::vector<T>(threads)};  // data, partial
  auto name = [](Array array, std::size_t i) {
    return std::string(array == Array::kPartial ? "partial" : "data") + "[" + std::to_string(i) + "]";
  };
  Array shown = Array::kData;  // the array the step writes; a step that writes nothing shows the last one
  for (const Step& step : steps.tree) {
    if (!step.operations.empty()) shown = step.operations.front().target;
    std::vector<T>& array = arrays[shown == Array::kPartial];
    TraceStep<T> out{step_name(step), {}, {}, shown == Array::kPartial ? "partial" : "data", {}, {}};
    out.written.assign(array.size(), false);
    for (const Operation& line : step.operations) {
      if (line.target != shown) throw std::runtime_error("a step of these kernels writes one array");
      array.at(line.index) = value_of<T>(line.value_bits);
      out.written.at(line.index) = true;
      std::string what = name(line.target, line.index);
      if (line.kind == Operation::kCopy)
        what += " = " + name(line.source, line.first);
      else if (line.target == line.source && line.index == line.first)
        what += " += " + name(line.source, line.second);
      else
        what += " = " + name(line.source, line.first) + " + " + name(line.source, line.second);
      if (line.kind == Operation::kAdd) out.active.push_back(line.thread);
      out.actions.push_back({line.thread, what});
    }
    out.values = array;
    trace.steps.push_back(std::move(out));
  }
  for (const Operation& line : steps.results) {
    trace.result_from = name(line.source, line.first);
    trace.result = value_of<T>(line.value_bits);
  }
  return trace;
}

namespace detail {

// Short enough for 8 or 16 to a line; the result line shows every digit.
template <typename T>
std::string trace_value(T v) {
  if constexpr (std::is_integral_v<T>) return std::to_string(v);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", static_cast<double>(v));
  return buf;
}

// "threads 0-31 add (32, in 1 warp)", "threads 0 2 4 6 add (4, in 1 warp)"
inline std::string describe_active(const std::vector<unsigned>& active) {
  if (active.empty()) return "no thread adds";
  std::string list;
  std::size_t warps = 0;
  for (std::size_t i = 0; i < active.size();) {
    std::size_t j = i;
    while (j + 1 < active.size() && active[j + 1] == active[j] + 1) ++j;
    list += (list.empty() ? "" : " ") + std::to_string(active[i]);
    if (j > i) list += (j - i >= 2 ? "-" : " ") + std::to_string(active[j]);
    i = j + 1;
  }
  for (std::size_t i = 0; i < active.size(); ++i) warps += i == 0 || active[i] / kWarpSize != active[i - 1] / kWarpSize;
  return (active.size() == 1 ? "thread " : "threads ") + list + (active.size() == 1 ? " adds (" : " add (") +
         std::to_string(active.size()) + ", in " + std::to_string(warps) + (warps == 1 ? " warp)" : " warps)");
}

template <typename T>
void print_array(std::ostream& out, const std::string& name, const std::vector<T>& values,
                 const std::vector<bool>& written, std::size_t label_width, std::size_t width, std::size_t per_line) {
  for (std::size_t begin = 0; begin < values.size(); begin += per_line) {
    const std::size_t end = std::min(values.size(), begin + per_line);
    std::string label = name + "[" + std::to_string(begin) + ".." + std::to_string(end - 1) + "]";
    label.resize(std::max(label.size(), label_width), ' ');
    std::string line = "    " + label;
    for (std::size_t i = begin; i < end; ++i) {
      const std::string v = trace_value(values[i]);
      line += std::string(width - v.size() + 1, ' ') + v + (i < written.size() && written[i] ? '*' : ' ');
    }
    while (line.back() == ' ') line.pop_back();
    out << line << "\n";
  }
}

}  // namespace detail

template <typename T>
void print_trace(std::ostream& out, const Trace<T>& trace) {
  std::size_t width = 1;
  for (const T& v : trace.input) width = std::max(width, detail::trace_value(v).size());
  for (const auto& step : trace.steps)
    for (const T& v : step.values) width = std::max(width, detail::trace_value(v).size());
  const std::size_t per_line = width <= 5 ? 16 : 8;
  std::size_t name_width = 4;  // "data"
  for (const auto& step : trace.steps) name_width = std::max(name_width, step.array.size());
  const std::size_t label_width = name_width + 2 * std::to_string(trace.input.size()).size() + 4;  // "name[a..b]"

  std::string layout = trace.layout;
  if (!layout.empty()) layout[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(layout[0])));
  out << "Trace (" << (trace.recorded ? "recorded on the GPU" : "emulated on the CPU, no GPU to record on")
      << "): " << trace.input.size() << (trace.input.size() == 1 ? " element, " : " elements, ")
      << describe_block(trace.threads) << ".\n"
      << layout << ".\n"
      << "After each step, the array the step works on; * marks the elements it wrote. A step is the\n"
      << "additions of one stride, and the kernel's __syncthreads() separates it from the next.\n\n"
      << "input\n";
  detail::print_array(out, "data", trace.input, {}, label_width, width, per_line);
  int number = 0;
  for (const auto& step : trace.steps) {
    out << "step " << ++number << ", " << step.name << ": " << detail::describe_active(step.active) << "\n";
    // The actions in columns, as many to a line as fit in 100 characters.
    std::vector<std::string> actions;
    std::size_t action_width = 0;
    for (const auto& [thread, what] : step.actions) {
      actions.push_back("t" + std::to_string(thread) + ": " + what);
      action_width = std::max(action_width, actions.back().size());
    }
    const std::size_t per_row = std::max<std::size_t>(1, 96 / (action_width + 3));
    for (std::size_t i = 0; i < actions.size(); ++i) {
      std::string cell = actions[i];
      const bool last_in_row = (i + 1) % per_row == 0 || i + 1 == actions.size();
      if (!last_in_row) cell.resize(action_width + 3, ' ');
      out << (i % per_row == 0 ? "    " : "") << cell << (last_in_row ? "\n" : "");
    }
    detail::print_array(out, step.array, step.values, step.written, label_width, width, per_line);
  }
  if (trace.result_from.empty())
    out << "result: thread 0 stored nothing to *result\n";
  else
    out << "result: " << trace.result_from << " = " << format_value(json_value(trace.result), data_type_of<T>())
        << ", which thread 0 stores to *result\n";
}

template <typename T>
Json trace_json(const Trace<T>& trace) {
  Json j = {{"recorded", trace.recorded}, {"layout", trace.layout}, {"threads", trace.threads}, {"input", trace.input}};
  auto& steps = j.set("steps", Json::array());
  for (const auto& step : trace.steps)
    steps.push_back(
        {{"step", step.name}, {"active_threads", step.active}, {"array", step.array}, {"values", step.values}});
  j.set("result", trace.result);
  return j;
}

// Instead of the counts and the trace, when the kernel's run on the CPU emulator found something
// a right kernel never does (`findings`: one line per kind): a wrong kernel's counts would look like
// the lesson and be nothing of it. In the JSON: "emulator_findings", one string per line.
inline void show_emulator_findings(Report& report, const std::string& findings, bool trace) {
  std::ostream& text = report.text();
  text << "The kernel's run on the CPU emulator found what a right kernel never does: the kernel is not\n"
       << "written yet or is wrong, so there are no counts to show:\n";
  Json lines = Json::array();
  for (std::size_t begin = 0; begin < findings.size();) {
    std::size_t end = findings.find('\n', begin);
    if (end == std::string::npos) end = findings.size();
    text << "  " << findings.substr(begin, end - begin) << "\n";
    lines.push(findings.substr(begin, end - begin));
    begin = end + 1;
  }
  text << "The chapter's CPU tests (ctest -L cpu) run it in more orders of the threads and say more.\n";
  if (trace) text << "\nTrace: not drawn, for the same reason: the emulated run found the above.\n";
  report.fields().set("emulator_findings", std::move(lines));
}

}  // namespace reduction::single_block
