#include "options.hpp"

#include <CLI/CLI.hpp>

#include <cctype>
#include <iostream>

namespace reduction {

std::optional<std::size_t> parse_count(const std::string& text) {
  auto digits = [](const std::string& s) {
    return !s.empty() && s.size() <= 19 && s.find_first_not_of("0123456789") == std::string::npos;
  };
  for (const char* op : {"^", "<<"}) {
    auto pos = text.find(op);
    if (pos == std::string::npos) continue;
    std::string base = text.substr(0, pos), exponent = text.substr(pos + std::char_traits<char>::length(op));
    if (!digits(exponent) || std::stoull(exponent) > 62) return std::nullopt;
    unsigned shift = static_cast<unsigned>(std::stoull(exponent));
    if (op[0] == '^' && base != "2") return std::nullopt;
    if (op[0] == '<' && !digits(base)) return std::nullopt;
    std::size_t b = op[0] == '^' ? 1 : std::stoull(base);
    if (b > (std::numeric_limits<std::size_t>::max() >> shift)) return std::nullopt;
    return b << shift;
  }
  std::string number = text;
  unsigned shift = 0;
  if (!number.empty() && (number.back() == 'K' || number.back() == 'M' || number.back() == 'G')) {
    shift = number.back() == 'K' ? 10 : number.back() == 'M' ? 20 : 30;
    number.pop_back();
  }
  if (!digits(number)) return std::nullopt;
  std::size_t v = std::stoull(number);
  if (v > (std::numeric_limits<std::size_t>::max() >> shift)) return std::nullopt;
  return v << shift;
}

std::function<std::optional<std::string>(int)> power_of_two_block(int min_block, int max_block) {
  return [=](int b) -> std::optional<std::string> {
    if (b < min_block || b > max_block || (b & (b - 1)) != 0)
      return "--block must be a power of two from " + std::to_string(min_block) + " to " + std::to_string(max_block) +
             " (the tree halves the active threads each step, and a block has at most 1024 threads), got " +
             std::to_string(b);
    return std::nullopt;
  };
}

struct CommandLine::Impl {
  const ChapterInfo& info;
  Options& options;
  CLI::App app;
  std::string n_text, type_text = "int";
  std::vector<std::function<std::optional<std::string>()>> checks;

  Impl(const ChapterInfo& i, Options& o) : info(i), options(o), app(i.title, i.name) {}
};

CommandLine::CommandLine(const ChapterInfo& info, Options& options) : impl_(std::make_unique<Impl>(info, options)) {
  auto& app = impl_->app;
  options.n = info.default_n;
  options.block = info.default_block;
  options.reps = info.default_reps;
  impl_->n_text = std::to_string(info.default_n);
  impl_->type_text = type_name(info.default_type);
  app.add_option("--n", impl_->n_text, "number of elements (also 2^20, 1<<20, 4M)")->capture_default_str();
  if (info.has_type)
    app.add_option("--type", impl_->type_text, "element type")->check(CLI::IsMember({"int", "float", "double"}))
        ->capture_default_str();
  if (info.has_block) app.add_option("--block", options.block, "threads per block")->capture_default_str();
  app.add_option("--reps", options.reps, "timed repetitions (the median is reported)")->capture_default_str()
      ->check(CLI::Range(1, 100000));
  app.add_option("--warmup", options.warmup, "untimed runs before timing")->capture_default_str()
      ->check(CLI::Range(0, 100000));
  app.add_option("--seed", options.seed, "seed of the random input")->capture_default_str();
  app.add_option("--input", options.input, "read the data from a .npy (int32, float32, float64) or text file; "
                                           "overrides --n and --type");
  if (!info.kernels.empty())
    app.add_option("--kernel", options.kernels, "kernels to run, comma-separated (default: all)")
        ->delimiter(',')
        ->check(CLI::IsMember(info.kernels));
  app.add_flag("--json", options.json, "print one JSON object on stdout instead of text");
}

CommandLine::~CommandLine() = default;

void CommandLine::add_flag(const std::string& name, bool& value, const std::string& help) {
  impl_->app.add_flag(name, value, help);
}
void CommandLine::add_option(const std::string& name, int& value, const std::string& help) {
  impl_->app.add_option(name, value, help)->capture_default_str();
}
void CommandLine::add_option(const std::string& name, std::string& value, const std::string& help,
                             const std::vector<std::string>& choices) {
  auto* opt = impl_->app.add_option(name, value, help)->capture_default_str();
  if (!choices.empty()) opt->check(CLI::IsMember(choices));
}
void CommandLine::add_check(std::function<std::optional<std::string>()> check) {
  impl_->checks.push_back(std::move(check));
}

std::optional<int> CommandLine::parse(int argc, const char* const* argv) {
  auto& app = impl_->app;
  const auto& info = impl_->info;
  auto& options = impl_->options;
  auto fail = [&](const std::string& message) {
    std::cerr << info.name << ": error: " << message << " (see --help)\n";
    return std::optional<int>(2);
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    for (auto& c : what) if (c == '\n') c = ' ';
    return fail(what);
  }

  auto n = parse_count(impl_->n_text);
  if (!n) return fail("--n must be a whole number of elements such as 1000, 2^20 or 1<<20, got '" + impl_->n_text + "'");
  options.n = *n;
  options.type = *parse_type(impl_->type_text);
  if (options.input.empty() && (options.n < info.min_n || options.n > info.max_n)) {
    std::string range = info.max_n == std::numeric_limits<std::size_t>::max()
                            ? "at least " + std::to_string(info.min_n)
                            : "from " + std::to_string(info.min_n) + " to " + std::to_string(info.max_n);
    return fail("--n must be " + range + ", got " + std::to_string(options.n) +
                (info.max_n_reason.empty() || options.n < info.min_n ? "" : ": " + info.max_n_reason));
  }
  if (info.has_block && info.check_block)
    if (auto why = info.check_block(options.block)) return fail(*why);
  if (options.kernels.empty()) options.kernels = info.kernels;
  else {  // keep the chapter's order, drop repeats
    std::vector<std::string> ordered;
    for (const auto& k : info.kernels)
      for (const auto& chosen : options.kernels)
        if (k == chosen) { ordered.push_back(k); break; }
    options.kernels = ordered;
  }
  for (auto& check : impl_->checks)
    if (auto why = check()) return fail(*why);
  return std::nullopt;
}

}  // namespace reduction
