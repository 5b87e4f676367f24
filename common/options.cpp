#include "program.hpp"
#include "limits.hpp"

#include <CLI/CLI.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <deque>
#include <iomanip>
#include <iostream>

namespace reduction {

// Not CLI11's: it would wrap "-1", clamp "18446744073709551616" and read "" as zero.
std::optional<std::uint64_t> parse_digits(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const unsigned digit = static_cast<unsigned>(c - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

std::optional<std::size_t> parse_count(const std::string& text) {
  auto number = [](const std::string& s) { return s.size() <= 19 ? parse_digits(s) : std::nullopt; };
  auto shifted = [](std::optional<std::uint64_t> base,
                    std::optional<std::uint64_t> shift) -> std::optional<std::size_t> {
    if (!base || !shift || *shift > 62 || *base > (std::numeric_limits<std::size_t>::max() >> *shift))
      return std::nullopt;
    return *base << *shift;
  };
  if (const auto pos = text.find('^'); pos != std::string::npos)
    return text.substr(0, pos) == "2" ? shifted(1, number(text.substr(pos + 1))) : std::nullopt;
  if (const auto pos = text.find("<<"); pos != std::string::npos)
    return shifted(number(text.substr(0, pos)), number(text.substr(pos + 2)));
  const char unit = text.empty() ? '\0' : text.back();
  const unsigned shift = unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : 0;
  return shifted(number(shift ? text.substr(0, text.size() - 1) : text), shift);
}

namespace {
bool stdout_was_closed = false;  // held open on /dev/null by ready_standard_streams()

// See CommandLine's constructor. Once per process.
void ready_standard_streams() {
  static bool ready = false;
  if (ready) return;
  ready = true;
  std::signal(SIGPIPE, SIG_IGN);
  // Past a file-size limit (ulimit -f, prlimit --fsize) a write raised SIGXFSZ, which ended the
  // program with status 153 and no word: ignored, the write fails (EFBIG) as to a broken pipe.
  std::signal(SIGXFSZ, SIG_IGN);
  for (const int fd : {STDOUT_FILENO, STDERR_FILENO}) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int held = ::open("/dev/null", O_WRONLY);  // the lowest free number: fd itself, unless 0 is free too
    if (held >= 0 && held != fd) {
      ::dup2(held, fd);
      ::close(held);
    }
    if (fd == STDOUT_FILENO) stdout_was_closed = true;
  }
}
}  // namespace

bool output_written(const std::string& program) {
  errno = 0;
  std::cout.flush();
  const bool flushed = std::fflush(stdout) == 0;
  const int error = errno;
  if (!stdout_was_closed && flushed && std::cout && !std::ferror(stdout)) return true;
  const std::string why = stdout_was_closed ? "stdout is closed"
                          : error != 0      ? std::strerror(error)
                                            : "a write to stdout failed";
  std::cerr << program << ": error: the output could not be written (" << why << ")\n";
  return false;
}

// The chapter's reason for the bound that an n out of its range crosses, or "".
const std::string& bound_reason(const ChapterInfo& info, std::size_t n) {
  return n < info.min_n ? info.min_n_reason : info.max_n_reason;
}

HostData load_chapter_input(const ChapterInfo& info, const std::string& path, bool finite) {
  HostData data = load_input(path, info.max_n, finite);
  const std::size_t n = std::visit([](const auto& v) { return v.size(); }, data);
  const bool unbounded = info.max_n == std::numeric_limits<std::size_t>::max();
  const std::string& reason = bound_reason(info, n);
  if (n < info.min_n || n > info.max_n)
    throw InputError(escaped(path, 200) + " holds " + std::to_string(n) + " elements; this chapter takes " +
                     (unbounded ? "at least " : "") + std::to_string(info.min_n) +
                     (unbounded ? "" : " to " + std::to_string(info.max_n)) +
                     (reason.empty() ? "" : " (" + reason + ")"));
  return data;
}

std::vector<std::string> variant_names(const ChapterInfo& info, bool with_zoo) {
  std::vector<std::string> names;
  for (const auto& v : info.variants)
    if (with_zoo || !v.zoo) names.push_back(v.name);
  return names;
}

namespace {

// An int in [min, max], written as decimal digits with a '-' in front where negatives are allowed.
std::optional<int> parse_int(const std::string& text, int min, int max) {
  const bool negative = min < 0 && !text.empty() && text[0] == '-';
  const auto magnitude = parse_digits(negative ? text.substr(1) : text);
  if (!magnitude || *magnitude > std::uint64_t(std::numeric_limits<int>::max()) + 1) return std::nullopt;
  const long long value = negative ? -static_cast<long long>(*magnitude) : static_cast<long long>(*magnitude);
  if (value < min || value > max) return std::nullopt;
  return static_cast<int>(value);
}

// --list: one line per variant, or one JSON object; the bug zoo's kernels, if any, last.
void print_variants(const ChapterInfo& info, bool json) {
  std::vector<VariantInfo> listed = info.variants;
  std::stable_partition(listed.begin(), listed.end(), [](const VariantInfo& v) { return !v.zoo; });
  if (json) {
    Json variants = Json::array();
    for (const auto& v : listed) {
      auto& variant = variants.push({{"name", v.name}, {"idea", v.idea}, {"deterministic", v.deterministic}});
      if (v.zoo) variant["zoo"] = true;  // scripts that time the chapter leave these out
    }
    Json out = {{"chapter", info.name}};
    // The largest --n the chapter takes (null: no limit of its own), so a script can size its runs.
    out.set("max_n", info.max_n == std::numeric_limits<std::size_t>::max() ? Json() : Json(info.max_n));
    out.set("variants", std::move(variants));
    std::cout << out.dump() << "\n";
    return;
  }
  std::size_t width = 0;
  for (const auto& v : listed) width = std::max(width, v.name.size());
  for (std::size_t i = 0; i < listed.size(); ++i) {
    const auto& v = listed[i];
    if (v.zoo && (i == 0 || !listed[i - 1].zoo))
      std::cout << "\nthe bug zoo (instructor/zoo/): kernels wrong on purpose, run only when --kernel names them\n";
    std::cout << std::left << std::setw(static_cast<int>(width)) << v.name << "  " << v.idea << "\n";
  }
}

}  // namespace

std::function<std::optional<std::string>(int)> power_of_two_block(int min_block, int max_block) {
  return [=](int b) -> std::optional<std::string> {
    if (b < min_block || b > max_block || (b & (b - 1)) != 0)
      return "--block must be a power of two from " + std::to_string(min_block) + " to " + std::to_string(max_block) +
             " (the tree halves the active threads each step, and a block has at most 1024 threads), got " +
             std::to_string(b);
    return std::nullopt;
  };
}

// CLI11 gets the numbers as text; parse() converts them strictly (see parse_digits).
struct IntOption {
  std::string name, text;
  int* value;  // left as it is unless the option is given
  int min, max;
  CLI::Option* option = nullptr;
};

struct CommandLine::Impl {
  const ChapterInfo& info;
  Options& options;
  CLI::App app;
  std::string n_text, type_text = "int", seed_text;
  bool list = false;
  std::deque<IntOption> int_options;  // a deque: CLI11 holds on to each text as more are added
  CLI::Option* input_option = nullptr;
  std::vector<std::function<std::optional<std::string>()>> checks;

  Impl(const ChapterInfo& i, Options& o) : info(i), options(o), app(i.title, i.name) {}

  void add_int(const std::string& name, int& value, const std::string& help, int min, int max) {
    IntOption& opt = int_options.emplace_back(IntOption{name, std::to_string(value), &value, min, max});
    opt.option = app.add_option(name, opt.text, help)->type_name("INT")->capture_default_str();
  }
};

CommandLine::CommandLine(const ChapterInfo& info, Options& options) : impl_(std::make_unique<Impl>(info, options)) {
  ready_standard_streams();
  auto& app = impl_->app;
  options.n = info.default_n;
  options.block = info.default_block;
  options.reps = info.default_reps;
  impl_->n_text = std::to_string(info.default_n);
  impl_->type_text = type_name(info.default_type);
  impl_->seed_text = std::to_string(options.seed);
  app.add_option("--n", impl_->n_text, "number of elements (also 2^20, 1<<20, 4M)")->capture_default_str();
  app.add_option("--type", impl_->type_text, "element type")->check(CLI::IsMember({"int", "float", "double"}))
      ->capture_default_str();
  const int most = std::numeric_limits<int>::max();
  if (info.has_block) impl_->add_int("--block", options.block, "threads per block", 0, most);
  impl_->add_int("--reps", options.reps, "timed repetitions (the median is reported)", 1, 100000);
  impl_->add_int("--warmup", options.warmup, "untimed runs before timing", 0, 100000);
  app.add_option("--seed", impl_->seed_text, "seed of the random input")->type_name("UINT")->capture_default_str();
  impl_->input_option = app.add_option("--input", options.input,
                                       "read the data from a .npy (int32, float32, float64) or text file; "
                                       "overrides --n and --type");
  if (!info.variants.empty())
    app.add_option("--kernel", options.kernels,
                   variant_names(info) == variant_names(info, false)
                       ? "kernels to run, comma-separated (default: all)"
                       : "kernels to run, comma-separated (default: all but the bug zoo's)")
        ->delimiter(',')
        ->check(CLI::IsMember(variant_names(info)));
  app.add_flag("--json", options.json, "print one JSON object on stdout instead of text");
  if (!info.variants.empty())
    app.add_flag("--list", impl_->list, "print the chapter's variants, one a line (with --json: as JSON), and exit");
}

CommandLine::~CommandLine() = default;

void CommandLine::add_flag(const std::string& name, bool& value, const std::string& help) {
  impl_->app.add_flag(name, value, help);
}
void CommandLine::add_option(const std::string& name, int& value, const std::string& help) {
  impl_->add_int(name, value, help, std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
}
void CommandLine::add_option(const std::string& name, std::string& value, const std::string& help,
                             const std::vector<std::string>& choices) {
  auto* opt = impl_->app.add_option(name, value, help)->capture_default_str();
  if (!choices.empty()) opt->check(CLI::IsMember(choices));
}
bool CommandLine::given(const std::string& name) const {
  const CLI::Option* option = impl_->app.get_option_no_throw(name);
  return option != nullptr && option->count() > 0;
}
void CommandLine::add_check(std::function<std::optional<std::string>()> check) {
  impl_->checks.push_back(std::move(check));
}

std::optional<int> CommandLine::parse(int argc, const char* const* argv) {
  auto& app = impl_->app;
  const auto& info = impl_->info;
  auto& options = impl_->options;
  // Messages quote the user's text through escaped(): stderr gets one line whatever was typed.
  auto fail = [&](const std::string& message) {
    std::cerr << info.name << ": error: " << message << " (see --help)\n";
    return std::optional<int>(2);
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    std::cout << app.help();
    return output_written(info.name) ? 0 : int(kOutputFailed);
  } catch (const CLI::ExtrasError& e) {
    // CLI11 says "not expected: 64 --block"; a student needs to hear which option this chapter lacks.
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--") {  // what follows is an argument, not an option; no program takes one
        if (i + 1 < argc) return fail("unexpected argument '" + escaped(argv[i + 1], 100) + "' after --");
        break;
      }
      if (arg.size() < 2 || arg[0] != '-' || (arg[1] != '-' && std::isdigit(static_cast<unsigned char>(arg[1]))))
        continue;
      const std::string name = arg.substr(0, arg.find('='));
      if (!app.get_option_no_throw(name))
        return fail(escaped(name, 100) + " is not an option of " + info.name);
    }
    return fail(escaped(e.what(), 400));
  } catch (const CLI::ParseError& e) {
    return fail(escaped(e.what(), 400));
  }

  for (const auto& opt : impl_->int_options) {
    if (opt.option->count() == 0) continue;
    const auto value = parse_int(opt.text, opt.min, opt.max);
    if (!value) {
      const bool any_int = opt.min == std::numeric_limits<int>::min() && opt.max == std::numeric_limits<int>::max();
      return fail(opt.name + " must be a whole number" +
                  (any_int ? "" : " from " + std::to_string(opt.min) + " to " + std::to_string(opt.max)) + ", got '" +
                  escaped(opt.text) + "'");
    }
    *opt.value = *value;
  }
  const auto seed = parse_digits(impl_->seed_text);
  if (!seed)
    return fail("--seed must be a whole number from 0 to " + std::to_string(std::numeric_limits<std::uint64_t>::max()) +
                ", got '" + escaped(impl_->seed_text) + "'");
  options.seed = *seed;
  if (impl_->input_option->count() > 0 && options.input.empty()) return fail("--input needs a file name, got ''");

  auto n = parse_count(impl_->n_text);
  if (!n)
    return fail("--n must be a whole number of elements such as 1000, 2^20 or 1<<20, got '" + escaped(impl_->n_text) + "'");
  options.n = *n;
  for (DataType t : {DataType::Int, DataType::Float, DataType::Double})  // CLI11 took only these names
    if (impl_->type_text == type_name(t)) options.type = t;
  if (options.input.empty() && (options.n < info.min_n || options.n > info.max_n)) {
    std::string range = info.max_n == std::numeric_limits<std::size_t>::max()
                            ? "at least " + std::to_string(info.min_n)
                            : "from " + std::to_string(info.min_n) + " to " + std::to_string(info.max_n);
    const std::string& reason = bound_reason(info, options.n);
    return fail("--n must be " + range + ", got " + std::to_string(options.n) + (reason.empty() ? "" : ": " + reason));
  }
  if (info.has_block && info.check_block)
    if (auto why = info.check_block(options.block)) return fail(*why);
  if (options.kernels.empty()) options.kernels = variant_names(info, false);
  else {  // keep the chapter's order, drop repeats
    std::vector<std::string> ordered;
    for (const auto& k : variant_names(info))
      if (std::find(options.kernels.begin(), options.kernels.end(), k) != options.kernels.end()) ordered.push_back(k);
    options.kernels = ordered;
  }
  for (auto& check : impl_->checks)
    if (auto why = check()) return fail(*why);

  // Last, so that a chapter's own limit is the reason given where it applies: an input the memory
  // cannot hold (limits.hpp) is refused before anything is allocated. A chapter that makes no input
  // (ChapterInfo::makes_input) needs only an --n the machine could hold, whatever its cgroup allows.
  if (options.input.empty())
    if (auto why = memory_refusal(options.n, options.type == DataType::Double ? 8 : 4,
                                  std::to_string(options.n) + " " + type_name(options.type) + " elements",
                                  info.makes_input && !info.makes_input()))
      return fail("--n " + std::to_string(options.n) + " is too large: " + *why);
  // After every check: `--list --n garbage` is as wrong as `--n garbage`, and `--list --input F`
  // as wrong as `--input F` where F cannot be read or taken.
  if (impl_->list && !options.input.empty()) {
    // --rows R (03 to 05) takes R rows of up to max_n elements each, as the run's input does.
    ChapterInfo limits = info;
    if (options.rows > 1 && info.max_n <= std::numeric_limits<std::size_t>::max() / options.rows)
      limits.max_n = info.max_n * options.rows;
    const int status = run_guarded(info.name, [&] {
      load_chapter_input(limits, options.input, options.finite_input);
      return 0;
    });
    if (status != 0) return status;
  }
  if (impl_->list) {
    print_variants(info, options.json);
    return output_written(info.name) ? 0 : int(kOutputFailed);
  }
  return std::nullopt;
}

}  // namespace reduction
