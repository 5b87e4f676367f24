// The step-by-step trace of a single-block reduction (the --trace of chapters 03 to 05), drawn from
// what the kernel's threads did (common/block_events.hpp): recorded on the GPU when there is one,
// else the chapter model's prediction, and labelled as such.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "block_events.hpp"
#include "block_model.hpp"
#include "json.hpp"
#include "ops.hpp"
#include "report.hpp"
#include "single_block.hpp"
#include "types.hpp"

namespace reduction::single_block {

template <typename T>
struct TraceStep {
  std::string name;              // "stride 2", "load"
  std::vector<unsigned> active;  // the threads that added in this step
  // What each thread that wrote did, in the kernel's names: {0, "data[0] += data[2]"}.
  std::vector<std::pair<unsigned, std::string>> actions;
  std::string array;          // the array the step writes: "data" (global) or "partial" (shared)
  std::vector<T> values;      // that array after the step
  std::vector<bool> written;  // the elements the step wrote
};

template <typename T>
struct Trace {
  bool recorded = false;  // recorded on the GPU, or the model's prediction
  std::string layout;     // who owns what, in one line: "thread t owns data[2t]"
  unsigned threads = 0;
  std::vector<T> input;
  std::vector<TraceStep<T>> steps;
  std::string result_from;  // the element thread 0 stores to *result: "data[0]"
  T result{};
};

// The trace of the events of one launch on `input`, in a block of `threads`. The arrays shown are
// what the events wrote: the input ("data", in global memory) and the partial sums ("partial", in
// shared memory), element by element, with the values the events carry.
template <typename T>
Trace<T> trace_from(const std::vector<BlockEvent>& events, const std::vector<T>& input, unsigned threads,
                    const std::string& layout, bool recorded) {
  Trace<T> trace;
  trace.recorded = recorded;
  trace.layout = layout;
  trace.threads = threads;
  trace.input = input;
  std::vector<T> data = input, partial(threads);
  auto name = [](bool shared, std::size_t i) {
    return std::string(shared ? "partial" : "data") + "[" + std::to_string(i) + "]";
  };
  std::vector<BlockEvent> sorted = events;
  sort_events(sorted);
  bool shared = false;  // the array the step writes; a step that writes nothing shows the last one
  for (const BlockEvent& marker : sorted) {
    if (marker.kind != BlockEvent::kStep) continue;
    std::vector<BlockEvent> writes;  // the step's additions and copies, thread by thread
    for (const BlockEvent& e : sorted)
      if (e.step == marker.step && (e.kind == BlockEvent::kAdd || e.kind == BlockEvent::kCopy)) writes.push_back(e);
    if (!writes.empty()) shared = writes.front().target_shared;
    std::vector<T>& array = shared ? partial : data;
    TraceStep<T> step;
    step.name = detail::step_name(marker, sorted);
    step.array = shared ? "partial" : "data";
    step.written.assign(array.size(), false);
    for (const BlockEvent& e : writes) {
      if (bool(e.target_shared) != shared) throw std::logic_error("a step of these kernels writes one array");
      array.at(e.owner) = value_of<T>(e);
      step.written.at(e.owner) = true;
      std::string what = name(shared, e.owner);
      if (e.kind == BlockEvent::kCopy)
        what += " = " + name(e.source_shared, e.owner);
      else if (e.target_shared == e.source_shared)
        what += " += " + name(e.source_shared, e.partner);
      else
        what += " = " + name(e.source_shared, e.owner) + " + " + name(e.source_shared, e.partner);
      if (e.kind == BlockEvent::kAdd) step.active.push_back(e.thread);
      step.actions.push_back({e.thread, what});
    }
    step.values = array;
    trace.steps.push_back(std::move(step));
  }
  for (const BlockEvent& e : sorted)
    if (e.kind == BlockEvent::kResult) {
      trace.result_from = name(e.source_shared, e.owner);
      trace.result = value_of<T>(e);
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

// "0-31", "0 2 4 6", "0-15 32"
inline std::string thread_list(const std::vector<unsigned>& threads) {
  std::string out;
  for (std::size_t i = 0; i < threads.size();) {
    std::size_t j = i;
    while (j + 1 < threads.size() && threads[j + 1] == threads[j] + 1) ++j;
    if (!out.empty()) out += ' ';
    if (j - i >= 2)
      out += std::to_string(threads[i]) + "-" + std::to_string(threads[j]);
    else {
      out += std::to_string(threads[i]);
      if (j > i) out += " " + std::to_string(threads[j]);
    }
    i = j + 1;
  }
  return out;
}

inline std::string describe_active(const std::vector<unsigned>& active) {
  if (active.empty()) return "no thread adds";
  std::vector<unsigned> warps;
  for (unsigned t : active)
    if (warps.empty() || warps.back() != t / kWarpSize) warps.push_back(t / kWarpSize);
  return (active.size() == 1 ? "thread " : "threads ") + thread_list(active) +
         (active.size() == 1 ? " adds (" : " add (") + std::to_string(active.size()) + ", in " +
         std::to_string(warps.size()) + (warps.size() == 1 ? " warp)" : " warps)");
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
  out << "Trace (" << (trace.recorded ? "recorded on the GPU" : "predicted, no GPU to record on")
      << "): " << trace.input.size() << (trace.input.size() == 1 ? " element, " : " elements, ")
      << describe_block(trace.threads) << ".\n"
      << layout << ".\n"
      << "After each step, the array the step works on; * marks the elements it wrote.\n\n"
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
  auto values = [](const std::vector<T>& v) {
    Json a = Json::array();
    for (const T& x : v) a.push(json_value(x));
    return a;
  };
  Json j = Json::object();
  j.set("recorded", trace.recorded);
  j.set("layout", trace.layout);
  j.set("threads", trace.threads);
  j.set("input", values(trace.input));
  Json steps = Json::array();
  for (const auto& step : trace.steps) {
    Json s = Json::object();
    s.set("step", step.name);
    Json active = Json::array();
    for (unsigned t : step.active) active.push(t);
    s.set("active_threads", std::move(active));
    s.set("array", step.array);
    s.set("values", values(step.values));
    steps.push(std::move(s));
  }
  j.set("steps", std::move(steps));
  j.set("result", json_value(trace.result));
  return j;
}

// A chapter's model (its model.hpp) derives from this and supplies
//   template <typename T> static std::vector<BlockEvent> predict(const std::vector<T>& input);
//   static std::string layout(unsigned threads);  // who owns what, in one line
// and, for the analysis below, activity_predicate() and text_closed_form(n), or an analyze() of
// its own. The counts and the trace the program prints (and the tests check) follow from the
// prediction in the same way for every chapter, so they are written once, here.
template <typename Model>
struct PredictedKernel {
  // The program's analysis, where the lesson is how the threads are spent (03, 04): the step table
  // against the text's closed form, then the memory counts. A model whose lesson lies elsewhere
  // (05) declares an analyze() of its own, which hides this one.
  static void analyze(std::ostream& text, Json& fields, const BlockCounts& counts, const char* type) {
    const ClosedForm text_form = Model::text_closed_form(counts.n);
    text << "\n";
    print_execution_model(text, counts, Model::activity_predicate(), text_form, type);
    text << "\n";
    print_memory(text, counts, type);
    fields.set("efficiency", efficiency_json(counts));
    fields.set("text_closed_form", closed_form_json(text_form));
  }
  // The execution-resource and memory counts for n elements of element_bytes (the values do not matter).
  static BlockCounts counts(std::size_t n, std::size_t element_bytes) {
    return count(Model::predict(std::vector<std::int32_t>(n)), n, threads_for(n), element_bytes);
  }
  // The trace the model predicts on `input`, labelled as a prediction.
  template <typename T>
  static Trace<T> trace(const std::vector<T>& input) {
    const unsigned threads = threads_for(input.size());
    return trace_from(Model::predict(input), input, threads, Model::layout(threads), false);
  }
};

}  // namespace reduction::single_block
