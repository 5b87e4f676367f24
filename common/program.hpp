// The host harness of every chapter program, in the order main meets it: exit statuses, the
// command line, the input, timing, and the report (text, or one JSON object with --json).
// Bodies: options.cpp, input.cpp, report.cpp; CLI11 stays inside options.cpp.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "ops.hpp"
#include "reference.hpp"

namespace reduction {

enum ExitStatus : int {
  kVerified = 0,     // every result matched the CPU reference
  kWrongResult = 1,  // a result did not
  kBadUsage = 2,     // bad option or bad input (message on stderr)
  kCudaFailed = 3,   // a CUDA call failed (call, file and line on stderr)
  kInternal = 4,     // a bug in the program itself (message on stderr)
  kOutputFailed = 5, // stdout could not be written: closed, full, or a pipe nobody reads (one line on stderr)
  kNotVerified = 6,  // it ran, but no result could be checked: every one is unchecked (its error bound says nothing)
  kNoGpu = 77,       // no usable GPU; CTest reports the test as skipped
};

// Runs body(), turning the exceptions that escape it into exit statuses with a message: the one
// place where a failure becomes a status. 1 comes only from Report::finish, never from an exception.
int run_guarded(const std::string& program, const std::function<int()>& body);

// User text quoted in an error message, kept to one printable line: other bytes become \n, \t, \r
// or \xNN (and \ becomes \\), cut to about `max_length` characters.
std::string escaped(std::string_view text, std::size_t max_length = 200);

// "a, b, c": names in one line of the report.
template <typename T> std::string join(const std::vector<T>& items, const char* separator = ", ") {
  std::ostringstream out;
  for (std::size_t i = 0; i < items.size(); ++i) out << (i ? separator : "") << items[i];
  return out.str();
}

// ---- The command line ----

// One of a chapter's variants as `--list` shows it; the chapter's registry is where the list lives.
struct VariantInfo {
  std::string name;  // the --kernel name
  std::string idea;  // one line: what it does differently
  bool deterministic = true;  // same float result on every run
  bool zoo = false;  // a wrong kernel of the bug zoo: runs only when --kernel names it, listed last
};

struct ChapterInfo {
  std::string name;   // "03_simple_kernel"
  std::string title;  // one line: the idea this chapter adds
  DataType default_type = DataType::Int;
  bool has_block = false;  // --block applies
  int default_block = 256;
  // Returns why a block size is not allowed, or nothing if it is.
  std::function<std::optional<std::string>(int)> check_block;
  // What --kernel takes (default: all but the bug zoo's) and --list prints, so that scripts ask the
  // program instead of keeping a list of their own.
  std::vector<VariantInfo> variants;
  std::size_t default_n = 1 << 20;
  std::size_t min_n = 1;
  std::size_t max_n = std::numeric_limits<std::size_t>::max();
  std::string max_n_reason;  // why max_n, and which chapter lifts it
  std::string min_n_reason;  // why min_n, where there is more to say
  int default_reps = 20;
  // Why a GPU that is present cannot hold `bytes` of input, or nothing; asked before the input is made.
  std::function<std::optional<std::string>(std::size_t bytes)> device_room;
  // Whether the program makes the random input of --n in host memory (unset: it always does). A GPU
  // chapter that needs only the reference (reference_in_pieces) makes it only where there is a GPU.
  std::function<bool()> makes_input;
};

struct Options {
  std::size_t n = 0;
  DataType type = DataType::Int;
  int block = 0;
  int reps = 20;
  int warmup = 3;
  std::uint64_t seed = 42;
  std::string input;                 // --input FILE: overrides n and type
  bool finite_input = true;          // refuse NaN and +-inf in it (max and min take them)
  std::vector<std::string> kernels;  // selected kernels, in the chapter's order
  bool json = false;
  bool hot_l2 = false;  // time small inputs from L2 (common/gpu.cuh: RotatingInput)
  std::size_t rows = 1;  // --rows R: R arrays of n, one after another (chapters 03 to 05)
};

// Parses "1000", "2^20", "1<<20" or "4M" (K, M, G: times 2^10, 2^20, 2^30) into a count.
std::optional<std::size_t> parse_count(const std::string& text);

// The rule of the tree chapters: a power of two from min_block to max_block.
std::function<std::optional<std::string>(int)> power_of_two_block(int min_block, int max_block);

class CommandLine {
 public:
  // Also readies the standard streams: SIGPIPE is ignored (the failed write is reported), and a
  // closed stdout or stderr is held open on /dev/null, so that no file opened later takes its number.
  CommandLine(const ChapterInfo& info, Options& options);
  ~CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  void add_flag(const std::string& name, bool& value, const std::string& help);
  // An int option: an optional '-' and decimal digits, within int's range.
  void add_option(const std::string& name, int& value, const std::string& help);
  // A string option; with `choices`, any other value is refused.
  void add_option(const std::string& name, std::string& value, const std::string& help,
                  const std::vector<std::string>& choices = {});
  // Runs after parsing; returns an error message for a bad combination of options.
  void add_check(std::function<std::optional<std::string>()> check);
  // Whether the command line gave option `name`.
  bool given(const std::string& name) const;

  // Parses and validates. Returns the status to exit with now (0 after --help or --list, 2 with one
  // line on stderr for a bad option, 5 where the output could not be written), or nothing to go on.
  // --list answers only a command line that would run.
  std::optional<int> parse(int argc, const char* const* argv);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ---- The input ----

enum class Distribution {
  Default,  // int: uniform in [-100, 100]; float, double: uniform in [0, 1)
  NearOne,  // for products, which must neither overflow nor vanish: int: +1 or -1; float: [0.99, 1.01)
};

// Element i of the random input: splitmix64 (Steele, Lea and Flood 2014) of (seed, i), so that every
// CPU core, or GPU thread in the tests, fills its own chunk and inputs are reproducible.
template <typename T> REDUCTION_HD T random_element(std::uint64_t seed, std::size_t i, Distribution d) {
  std::uint64_t bits = seed * 0xD1342543DE82EF95ull + i + 0x9E3779B97F4A7C15ull;
  bits = (bits ^ (bits >> 30)) * 0xBF58476D1CE4E5B9ull;
  bits = (bits ^ (bits >> 27)) * 0x94D049BB133111EBull;
  bits ^= bits >> 31;
  const double unit = static_cast<double>(bits >> 11) * 0x1.0p-53;  // uniform in [0, 1)
  if constexpr (std::is_integral_v<T>) {
    if (d == Distribution::NearOne) return (bits >> 63) ? T(1) : T(-1);
    return static_cast<T>(static_cast<std::int64_t>(bits % 201) - 100);
  } else {
    if (d == Distribution::NearOne) return static_cast<T>(0.99 + 0.02 * unit);
    return static_cast<T>(unit);
  }
}

template <typename T>
std::vector<T> generate_input(std::size_t n, std::uint64_t seed, Distribution d = Distribution::Default) {
  std::vector<T> data(n);
  parallel_chunks(n, cpu_workers(n), [&](std::size_t b, std::size_t e, unsigned) {
    for (std::size_t i = b; i < e; ++i) data[i] = random_element<T>(seed, i, d);
  });
  return data;
}

// The reference of elements `first` to `first + n - 1` of generate_input(..., seed) under Op, made
// and reduced 2^24 elements at a time, never held whole: without a GPU that is all an analysis needs
// (06 to 10). The pieces are joined as chapter 10 joins its shards (exact for integers, max and min).
template <typename Op, typename T>
Reference<T> reference_in_pieces(std::size_t n, std::uint64_t seed, std::size_t first = 0) {
  constexpr std::size_t kPiece = std::size_t(1) << 24;
  std::vector<T> piece;
  Reference<T> whole = reference_reduce<Op>(piece.data(), 0);
  std::uint32_t wrapped_sum = 0;
  std::int64_t wide_sum = 0;
  for (std::size_t begin = 0; begin < n; begin += kPiece) {
    piece.resize(std::min(kPiece, n - begin));
    parallel_chunks(piece.size(), cpu_workers(piece.size()), [&](std::size_t b, std::size_t e, unsigned) {
      for (std::size_t i = b; i < e; ++i) piece[i] = random_element<T>(seed, first + begin + i, Distribution::Default);
    });
    const Reference<T> part = reference_reduce<Op>(piece.data(), piece.size());
    if constexpr (!std::is_same_v<Op, Sum>) {
      whole.value = Op{}(whole.value, part.value), whole.precise = static_cast<long double>(whole.value);
    } else if constexpr (std::is_integral_v<T>) {
      wrapped_sum += static_cast<std::uint32_t>(part.value), wide_sum += static_cast<std::int64_t>(part.value);
      whole.wrapped = whole.wrapped || part.wrapped;
      whole.value = static_cast<T>(wrapped_sum), whole.precise = static_cast<long double>(whole.value);
      whole.wrapped = whole.wrapped || wide_sum != static_cast<std::int64_t>(whole.value);
    } else {
      whole.precise += part.precise, whole.magnitude += part.magnitude, whole.error += part.error;
      whole.value = static_cast<T>(whole.precise);
    }
  }
  if constexpr (std::is_same_v<Op, Sum> && !std::is_integral_v<T>) {
    whole.error += gamma_bound<long double>((n + kPiece - 1) / kPiece) * whole.magnitude;
    detail::check_fits<T>("sum", whole.magnitude, "the sum of the elements' magnitudes");
  }
  return whole;
}

using HostData = std::variant<std::vector<std::int32_t>, std::vector<float>, std::vector<double>>;

inline DataType data_type_of(const HostData& data) {
  return std::visit([](const auto& v) { return reduction::data_type_of<typename std::decay_t<decltype(v)>::value_type>(); }, data);
}

// Loads a 1-D array from a regular file: .npy (int32, float32 or float64, versions 1 to 3), or else
// whitespace-separated decimal numbers (int if every one fits in 32 bits, else double). Throws
// InputError with a one-line reason on anything else, on more than `max_elements` elements (before
// reading the rest), and on NaN or infinity where `finite` (in text: nan, inf, -inf, as NumPy writes).
HostData load_input(const std::string& path, std::size_t max_elements = std::numeric_limits<std::size_t>::max(),
                    bool finite = true);

// ---- Timing and the report ----

struct TimingStats {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int reps = 0;
};

// The median, which resists outliers (a context switch, a clock ramp) that would move a mean.
TimingStats summarize(std::vector<double> times_ms);

// Runs fn `warmup` times untimed (caches, page faults), then `reps` times timed.
template <typename Fn> TimingStats time_cpu(int warmup, int reps, Fn&& fn) {
  for (int i = 0; i < warmup; ++i) fn();
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    auto start = std::chrono::steady_clock::now();
    fn();
    auto stop = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
  }
  return summarize(times);
}

// Effective bandwidth: bytes moved over time, in GB/s (10^9 bytes per second).
inline double gigabytes_per_second(double bytes, double time_ms) {
  return time_ms > 0 ? bytes / (time_ms * 1e6) : 0.0;
}

// The --json output: nlohmann-json's ordered_json, whose keys keep the order they were set in. NaN
// and infinity, which JSON cannot hold, are written as null.
class Json : public nlohmann::ordered_json {
  using Base = nlohmann::ordered_json;

 public:
  using Base::Base;  // null, bool, the integers (signed and unsigned kept apart), doubles, strings
  Json(const Base& value) : Base(value) {}
  Json(Base&& value) : Base(std::move(value)) {}
  static Json object() { return Base::object(); }
  static Json array() { return Base::array(); }
  // Sets `key` of an object (a key set again keeps its place), or appends to an array; each returns
  // the value stored, and turns anything else into an object or an array first.
  Base& set(const std::string& key, Json value);
  Base& push(Json value);
  std::vector<std::pair<std::string, Json>> items() const;  // an object's keys and values, in order
  double as_double() const;
  std::string dump() const;  // one line; bytes that are not UTF-8 become U+FFFD
};

// One kernel's run. `extra` holds chapter-specific numbers ("pct_of_copy"): fields of the run's JSON
// object, and extra columns of the human table.
struct RunResult {
  std::string kernel;
  Json result;
  bool correct = false;
  double time_ms = 0;
  double gbps = 0;
  // Why the result could not be checked (unchecked_reason), or empty: neither a pass nor a failure.
  std::string unchecked;
  Json extra = Json::object();
};

// The number in one of a run's extra columns ("pct_of_read", say), or 0 where it has none.
double column_of(const RunResult& run, const std::string& name);

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
    std::ostringstream note;
    if (ref.exact) note << "exact" << (ref.wrapped ? "; the true sum overflows 32 bits, and wraps as the GPU's adds do" : "");
    else note << "higher-precision CPU " << op_name(ref.operation) << "; a result passes within " << static_cast<double>(tolerance);
    set_reference(json_value(ref.value), note.str());
  }
  void set_reference(Json value, const std::string& note);

  std::ostream& text() { return text_; }        // human text before the runs table (analysis)
  std::ostream& summary() { return summary_; }  // human text after the runs table
  Json& fields() { return fields_; }             // chapter-specific top-level JSON fields
  const Options& options() const { return options_; }
  void add_run(RunResult run);
  const std::vector<RunResult>& runs() const { return runs_; }

  // Prints the report: 0 if every checked run is correct and one was checked, 6 where none could
  // be, 1 if a checked run is wrong; 5 where it could not be written.
  int finish();
  // Prints what can be shown without a GPU, and the reason on stderr: 77, or 5.
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

// ---- The frame of a program ----

// The data of --input, its size checked against the chapter's limits like --n's.
HostData load_chapter_input(const ChapterInfo& info, const std::string& path, bool finite);

// Calls body(data, description) with the data of --input, or else with --n random elements of --type.
template <typename Body>
int with_input(const ChapterInfo& info, const Options& options, Body&& body, Distribution d = Distribution::Default) {
  HostData data;
  std::string source;
  if (!options.input.empty()) {
    data = load_chapter_input(info, options.input, options.finite_input);
    source = "file " + escaped(options.input, 200);
  } else {
    source = "random, seed " + std::to_string(options.seed);
    dispatch_type(options.type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (info.device_room)  // refuse what the GPU cannot hold before filling host memory with it
        if (auto why = info.device_room(options.n * sizeof(T))) throw InputError(*why);
      data = generate_input<T>(options.n, options.seed, d);
    });
  }
  return std::visit([&](auto& v) { return body(v, source); }, data);
}

// The frame of the CPU chapters (01, 02): body(data, report), guarded, on one CPU core.
template <typename Body>
int run_on_cpu(const ChapterInfo& info, const Options& options, Body&& body, Distribution d = Distribution::Default) {
  return run_guarded(info.name, [&] {
    return with_input(
        info, options,
        [&](const auto& data, const std::string& source) {
          using T = typename std::decay_t<decltype(data)>::value_type;
          Report report(info, options);
          report.set_device("CPU, one core");
          report.set_input(data_type_of<T>(), data.size(), source);
          return body(data, report);
        },
        d);
  });
}

}  // namespace reduction
