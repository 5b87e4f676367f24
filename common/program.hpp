// The host harness every chapter program shares, as it meets it in main: the exit statuses and the
// guard that maps failures to them; the command line (CommandLine, Options, and what a chapter says
// about itself, ChapterInfo); the input (seeded random data, or the user's file); timing
// statistics; and the report, human-readable or with --json one JSON object on stdout. The bodies
// are in options.cpp, input.cpp and report.cpp; CLI11 stays inside options.cpp.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
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

// Runs body(), turning the exceptions that escape it into exit statuses with a message (report.cpp).
// This is the one place where a failure becomes a status: 1 only ever comes from a result that did
// not match (Report::finish), never from an exception.
int run_guarded(const std::string& program, const std::function<int()>& body);

// User text (an option's value, a file name, a file's bytes) quoted in an error message, kept to
// one line a terminal shows as it is: every byte that is not printable ASCII written as \n, \t,
// \r or \xNN (and \ as \\), cut to about `max_length` characters (input.cpp).
std::string escaped(std::string_view text, std::size_t max_length = 200);

// ---- The command line ----

// One of a chapter's variants as `--list` shows it; the chapter's registry is where the list lives.
struct VariantInfo {
  std::string name;  // the --kernel name
  std::string idea;  // one line: what it does differently
  bool deterministic = true;  // same float result on every run
  // A wrong kernel of the bug zoo (Variant::zoo_of, common/gpu.cuh): run only when --kernel
  // names it, and listed after the chapter's own, marked as the zoo's.
  bool zoo = false;
};

struct ChapterInfo {
  std::string name;   // "03_simple_kernel"
  std::string title;  // one line: the idea this chapter adds
  bool uses_gpu = true;
  bool has_type = true;    // --type applies
  DataType default_type = DataType::Int;
  bool has_block = false;  // --block applies
  int default_block = 256;
  // Returns why a block size is not allowed, or nothing if it is.
  std::function<std::optional<std::string>(int)> check_block;
  // From the chapter's registry: what --kernel takes (default: all but the bug zoo's, in order),
  // and what --list prints (with --json, {"chapter", "max_n", "variants": [...]}) before anything
  // touches a GPU: scripts ask the program instead of keeping a list of their own.
  std::vector<VariantInfo> variants;
  std::size_t default_n = 1 << 20;
  std::size_t min_n = 1;
  std::size_t max_n = std::numeric_limits<std::size_t>::max();
  std::string max_n_reason;  // why max_n, and which chapter lifts it
  std::string min_n_reason;  // why min_n, where a chapter can say more than that it is the least
  int default_reps = 20;
  // For GPU chapters: why a GPU that is present cannot hold `bytes` of input, or nothing if it can
  // (or if there is no GPU: the analysis still runs). Asked before any input is generated.
  std::function<std::optional<std::string>(std::size_t bytes)> device_room;
  // Whether the program makes the random input of --n, which the host memory must then hold (unset:
  // it always does). A GPU chapter whose analysis needs only the reference, made a piece at a time,
  // makes it only where there is a GPU to reduce it.
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
  bool finite_input = true;          // refuse NaN and +-inf in it (max and min take them; a chapter says so)
  std::vector<std::string> kernels;  // selected kernels, in the chapter's order
  bool json = false;
  bool hot_l2 = false;  // time small inputs from L2 (common/gpu.cuh: RotatingInput)
  std::size_t rows = 1;  // --rows R: R arrays of n, one after another (chapters 03 to 05)
};

// Parses "1000", "2^20" or "1<<20" (and "4M", "1G" for 2^20 and 2^30 multiples) into a count.
std::optional<std::size_t> parse_count(const std::string& text);

// Block-size rules used by several chapters.
std::function<std::optional<std::string>(int)> power_of_two_block(int min_block, int max_block);

class CommandLine {
 public:
  // Also readies the standard streams, before the program writes anything: SIGPIPE is ignored (a
  // write to a pipe whose reader has gone fails and is reported), and a closed stdout or stderr is
  // held open on /dev/null, so that no file the program opens later takes its number.
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
  // Whether the command line gave option `name` (for a check: an alias and what it stands for).
  bool given(const std::string& name) const;

  // Parses and validates. Returns the status to exit with right away (0 after --help or --list,
  // 2 with a one-line message on stderr for a bad option, 5 where --help or --list could not be
  // written), or nothing to go on. --list answers only a command line that would run: its other
  // options are checked first.
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

// splitmix64 (Steele, Lea and Flood 2014): a counter-based generator, so element i depends only on
// (seed, i), which lets every CPU core (or GPU thread, for the tests' largest inputs) fill its own
// chunk and keeps inputs reproducible.
REDUCTION_HD std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

template <typename T> REDUCTION_HD T random_element(std::uint64_t seed, std::size_t i, Distribution d) {
  const std::uint64_t bits = splitmix64(seed * 0xD1342543DE82EF95ull + i);
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

// The reference of generate_input(n, seed) under Op (of its elements `first` to `first + n` - 1), the
// input made and reduced 2^24 elements at a time and never held whole: without a GPU that is all a
// program's analysis needs of it (06 to 10). The pieces' references are joined as chapter 10 joins
// its shards' (exact for integers, max and min).
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

// Loads a 1-D array from `path`, a regular file: .npy (int32, float32 or float64, versions 1 to 3),
// or else whitespace-separated decimal numbers (int if every one fits in 32 bits, else double).
// More than `max_elements` elements are refused as soon as that is known, before the rest is read.
// Throws InputError with a one-line reason on anything else, and on NaN or infinity where `finite`
// (in text: nan, inf, -inf, as NumPy writes them).
HostData load_input(const std::string& path, std::size_t max_elements = std::numeric_limits<std::size_t>::max(),
                    bool finite = true);

// ---- Timing and the report ----

struct TimingStats {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int reps = 0;
};

// The median, which resists the outliers (a context switch, a clock ramp) that would move a mean,
// and the extremes (report.cpp).
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

// The --json output: nlohmann-json's ordered_json, whose keys keep the order they were set in, so
// the output reads in the order the report is built. NaN and infinity, which JSON cannot hold, are
// written as null. The bodies are in report.cpp.
class Json : public nlohmann::ordered_json {
  using Base = nlohmann::ordered_json;

 public:
  using Base::Base;  // null, bool, the integers (signed and unsigned kept apart), doubles, strings
  Json(const Base& value) : Base(value) {}
  Json(Base&& value) : Base(std::move(value)) {}
  static Json object() { return Base::object(); }
  static Json array() { return Base::array(); }
  // Object: sets `key` (a key set again keeps its place). Array: appends. Each returns the value it
  // stored; something else first turns into an object or an array.
  Base& set(const std::string& key, Json value);
  Base& push(Json value);
  std::vector<std::pair<std::string, Json>> items() const;  // an object's keys and values, in order
  double as_double() const;
  std::string dump() const;  // one line; bytes that are not UTF-8 become U+FFFD
};

// One kernel's run. `extra` holds chapter-specific numbers (for example "pct_of_copy"); they go
// into the run's JSON object and become extra columns of the human table.
struct RunResult {
  std::string kernel;
  Json result;
  bool correct = false;
  double time_ms = 0;
  double gbps = 0;
  // Why the result could not be checked (bound_says_something), or empty. An unchecked result is
  // neither a pass nor a failure, and does not count towards "verified".
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
  void add_run(RunResult run);
  const std::vector<RunResult>& runs() const { return runs_; }

  // Prints the report: 0 if every checked run is correct and one was checked, 6 (kNotVerified)
  // where none could be, 1 if a checked run is wrong; 5 where it could not be written.
  int finish();
  // Prints what can be shown without a GPU, and the reason on stderr: 77, or 5 (not written).
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

// The data of --input, its size checked against the chapter's limits like --n's (input.cpp).
HostData load_chapter_input(const ChapterInfo& info, const std::string& path, bool finite);

// Calls body(data, description) with the data of --input, or with generated data of --n
// elements of --type.
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

// The frame of the CPU chapters (01, 02): guarded, on the input of the options, with a report of a
// run on one CPU core. Calls body(data, report) and returns what it returns.
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
