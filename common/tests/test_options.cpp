#include <algorithm>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/program.hpp"
#include "common/limits.hpp"
#include "common/testing/testing.hpp"

using namespace reduction;

namespace {
// Holds what is written on `stream` while it lives.
class Captured {
 public:
  explicit Captured(std::ostream& stream) : stream_(stream), previous_(stream.rdbuf(text_.rdbuf())) {}
  ~Captured() { stream_.rdbuf(previous_); }
  std::string text() const { return text_.str(); }

 private:
  std::ostream& stream_;
  std::ostringstream text_;
  std::streambuf* previous_;
};

// What a parse gave: its status, what it wrote on stdout and stderr, and the options.
struct Parsed {
  std::optional<int> status;
  std::string out, err;
  Options options;
};

// Parses `args` with fresh options, after `extend` has added a chapter's own options to the command line.
Parsed parse(const ChapterInfo& info, std::vector<const char*> args,
             const std::function<void(CommandLine&)>& extend = {}) {
  args.insert(args.begin(), "prog");
  Parsed parsed;
  Captured out(std::cout), errors(std::cerr);
  CommandLine cli(info, parsed.options);
  if (extend) extend(cli);
  parsed.status = cli.parse(static_cast<int>(args.size()), args.data());
  parsed.out = out.text();
  parsed.err = errors.text();
  return parsed;
}

ChapterInfo info() {
  ChapterInfo i;
  i.name = "99_test";
  i.title = "test";
  i.has_block = true;
  i.check_block = power_of_two_block(32, 1024);
  i.variants = {{"a", "", true}, {"b", "", true}, {"c", "", true}};
  i.default_n = 1000;
  i.max_n = 2048;
  i.max_n_reason = "one block";
  return i;
}
}  // namespace

TEST_CASE("counts", "[options]") {
  CHECK(parse_count("1000") == 1000u);
  CHECK(parse_count("2^20") == (1u << 20));
  CHECK(parse_count("1<<3") == 8u);
  CHECK(parse_count("4M") == (4u << 20));
  for (const char* bad : {"abc", "-5", "3^2", "", "2^99"}) CHECK_FALSE(parse_count(bad));
}

TEST_CASE("options are parsed and validated", "[options]") {
  const auto i = info();
  const Parsed given = parse(i, {"--n", "2^10", "--type", "float", "--block", "128", "--kernel", "c,a"});
  CHECK_FALSE(given.status);
  CHECK(given.options.n == 1024);
  CHECK(given.options.type == DataType::Float);
  CHECK(given.options.block == 128);
  CHECK(given.options.kernels == std::vector<std::string>{"a", "c"});  // the chapter's order
  const Parsed defaults = parse(i, {});
  CHECK_FALSE(defaults.status);
  CHECK(defaults.options.kernels == std::vector<std::string>{"a", "b", "c"});  // default: every kernel
}

TEST_CASE("bad options are refused with one line on stderr, the user's text escaped", "[options]") {
  const auto i = info();
  for (std::vector<const char*> bad : std::vector<std::vector<const char*>>{
           {"--n", "abc"}, {"--n", "-5"}, {"--n", "4096"}, {"--n", ""}, {"--type", "quad"}, {"--type", ""},
           {"--block", "100"}, {"--block", "2048"}, {"--kernel", "zzz"}, {"--kernel", ""}, {"--kernel", ","},
           {"--reps", "0"}, {"--bogus"}, {"--input", ""},
           {"--seed", "-1"}, {"--seed", "18446744073709551616"}, {"--seed", ""}, {"--seed", "1x"}, {"--seed", " 1"},
           {"--seed", "+1"}, {"--seed", "0x10"}, {"--block", ""}, {"--block", "-128"}, {"--block", "1e2"},
           {"--reps", ""}, {"--reps", "99999999999999999999"}, {"--warmup", ""}, {"--warmup", "-1"},
           // Control characters in the user's text.
           {"--n", "1\n"}, {"--seed", "\x1b[2J"}, {"--type", "fl\noat"}, {"--kernel", "a\r\nb"}, {"--bogus\n"}}) {
    INFO(bad[0] << " '" << (bad.size() > 1 ? bad[1] : "") << "'");
    const Parsed parsed = parse(i, bad);
    CHECK(parsed.status == 2);
    CHECK(parsed.err.find('\n') == parsed.err.size() - 1);  // exactly one line
    CHECK(parsed.err.find('\x1b') == std::string::npos);
    CHECK(parsed.err.find('\r') == std::string::npos);
  }
  CHECK(parse(i, {"--n", "1\n"}).err.find("got '1\\n'") != std::string::npos);
  const Parsed largest = parse(i, {"--seed", "18446744073709551615", "--reps", "7", "--warmup", "0"});
  CHECK_FALSE(largest.status);
  CHECK(largest.options.seed == 18446744073709551615ull);
  CHECK(largest.options.reps == 7);
  CHECK(largest.options.warmup == 0);
}

TEST_CASE("an --n out of range is refused with the reason for the bound it crosses", "[options]") {
  auto i = info();
  i.min_n_reason = "none to reduce";
  for (const auto& [n, reason, other] : std::vector<std::tuple<const char*, std::string, std::string>>{
           {"0", ": none to reduce", "one block"}, {"4096", ": one block", "none to reduce"}}) {
    const Parsed parsed = parse(i, {"--n", n});
    INFO(parsed.err);
    CHECK(parsed.status == 2);
    CHECK(parsed.err.find("--n must be from 1 to 2048, got " + std::string(n) + reason) != std::string::npos);
    CHECK(parsed.err.find(other) == std::string::npos);
  }
}

TEST_CASE("a chapter's own int options are parsed strictly", "[options]") {
  const auto i = info();
  int coarse = 5, other = 6;
  const auto with_coarse = [&](CommandLine& cli) {
    cli.add_option("--coarse", coarse, "a factor");
    cli.add_option("--other", other, "another");  // the first option's text must survive a second
  };
  for (const char* bad : {"", "abc", "2147483648", "-2147483649", "1.5", "7 ", "99999999999999999999999"}) {
    INFO("'" << bad << "'");
    const Parsed parsed = parse(i, {"--coarse", bad}, with_coarse);
    CHECK(parsed.status == 2);
    CHECK(parsed.err.find("--coarse must be a whole number") != std::string::npos);
  }
  CHECK(coarse == 5);
  for (auto [text, value] :
       std::vector<std::pair<const char*, int>>{{"8", 8}, {"-3", -3}, {"2147483647", 2147483647}}) {
    CHECK_FALSE(parse(i, {"--coarse", text}, with_coarse).status);
    CHECK(coarse == value);
    CHECK(other == 6);  // defaults stay
  }
}

TEST_CASE("an --n that no machine can hold is refused before anything is allocated", "[options]") {
  ChapterInfo i = info();
  i.max_n = std::numeric_limits<std::size_t>::max();
  for (const char* n : {"2^62", "9999999999999999999", "2^50", "1<<60", "16777216G"}) {
    for (const char* type : {"int", "double"}) {
      INFO(n << " " << type);
      const Parsed parsed = parse(i, {"--n", n, "--type", type});
      CHECK(parsed.status == 2);
      CHECK(parsed.err.find("too large") != std::string::npos);
      CHECK(parsed.err.find("memory") != std::string::npos);  // the machine's, or its cgroup's limit
    }
  }
  CHECK_FALSE(parse(i, {"--n", "2^20", "--type", "double"}).status);
  CHECK_FALSE(parse(i, {"--n", "2^62", "--input", "file.npy"}).status);  // --input overrides --n
}

TEST_CASE("--list prints the chapter's variants, the bug zoo's last, and stops; only a chapter with variants has it",
          "[options]") {
  auto i = info();
  i.variants.clear();
  CHECK(parse(i, {"--list"}).status == 2);  // no variants: no --list
  // A build with REDUCTION_ZOO_KERNELS adds the zoo's wrong kernels to the chapter's registry
  // (common/gpu.cuh: zoo_of); a default run and the benchmark must not take them for the chapter's.
  i.variants = {{"alpha", "the first idea", true}, {"zoo.bug", "wrong on purpose", true, true},
                {"b", "a \"quoted\" idea", false}};
  CHECK(variant_names(i) == std::vector<std::string>{"alpha", "zoo.bug", "b"});
  CHECK(variant_names(i, false) == std::vector<std::string>{"alpha", "b"});
  CHECK(parse(i, {}).options.kernels == std::vector<std::string>{"alpha", "b"});  // default: all but the zoo's
  const Parsed named = parse(i, {"--kernel", "b,zoo.bug"});
  CHECK_FALSE(named.status);
  CHECK(named.options.kernels == std::vector<std::string>{"zoo.bug", "b"});  // named: it runs
  // --list answers only a command line that would run.
  for (std::vector<const char*> bad : std::vector<std::vector<const char*>>{
           {"--list", "--n", "not a number"}, {"--list", "--n", "4096"}, {"--list", "--seed", "-1"},
           {"--list", "--reps", "0"}, {"--list", "--warmup", "x"}, {"--list", "--block", "100"},
           {"--list", "--input", ""}, {"--list", "--input", "/nonexistent/x.npy"}}) {
    INFO(bad[1] << " " << bad[2]);
    const Parsed parsed = parse(i, bad);
    CHECK(parsed.status == 2);
    CHECK(parsed.out.empty());
  }
  const Parsed text = parse(i, {"--list", "--n", "2^10", "--seed", "7"});
  const Parsed json = parse(i, {"--list", "--json"});
  CHECK(text.status == 0);
  CHECK(text.out ==
        "alpha    the first idea\nb        a \"quoted\" idea\n\nthe bug zoo (instructor/zoo/): kernels wrong on "
        "purpose, run only when --kernel names them\nzoo.bug  wrong on purpose\n");
  CHECK(json.status == 0);
  CHECK(json.out ==
        R"({"chapter":"99_test","max_n":2048,"variants":[)"
        R"({"name":"alpha","idea":"the first idea","deterministic":true},)"
        R"({"name":"b","idea":"a \"quoted\" idea","deterministic":false},)"
        R"({"name":"zoo.bug","idea":"wrong on purpose","deterministic":true,"zoo":true}]})"
        "\n");
}

TEST_CASE("output that could not be written is said in one line on stderr", "[options]") {
  // Here the stream is failed by hand; fuzz_inputs.py runs the programs on a closed pipe, /dev/full
  // and a closed stdout.
  CHECK(output_written("99_test"));
  std::cout.setstate(std::ios::badbit);
  Captured errors(std::cerr);
  const bool written = output_written("99_test");
  std::cout.clear();
  const std::string said = errors.text();
  CHECK_FALSE(written);
  CHECK(said.rfind("99_test: error: the output could not be written (", 0) == 0);
  CHECK(std::count(said.begin(), said.end(), '\n') == 1);
}

TEST_CASE("a -- ends the options, and what follows it is named as an argument, not an option", "[options]") {
  const Parsed parsed = parse(info(), {"--n", "16", "--", "x"});
  INFO(parsed.err);
  CHECK(parsed.status == 2);
  CHECK(parsed.err.find("is not an option") == std::string::npos);
  CHECK(parsed.err.find("unexpected argument 'x' after --") != std::string::npos);
  CHECK(std::count(parsed.err.begin(), parsed.err.end(), '\n') == 1);
}

TEST_CASE("given() says which options the command line named", "[options]") {
  std::string alias = "all";
  bool both = false;
  const Parsed parsed = parse(info(), {"--alias", "all", "--kernel", "a"}, [&](CommandLine& cli) {
    cli.add_option("--alias", alias, "an alias of --kernel");
    cli.add_check([&]() -> std::optional<std::string> {
      both = cli.given("--alias") && cli.given("--kernel");
      return std::nullopt;
    });
  });
  CHECK_FALSE(parsed.status);
  CHECK(both);
}
