#include <algorithm>
#include <iostream>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/program.hpp"
#include "common/program_detail.hpp"
#include "common/testing/testing.hpp"

using namespace reduction;

namespace {
std::optional<int> parse(CommandLine& cli, std::vector<const char*> args) {
  args.insert(args.begin(), "prog");
  return cli.parse(static_cast<int>(args.size()), args.data());
}
// Holds what parse() writes on std::cerr while it lives.
class CapturedErrors {
 public:
  CapturedErrors() : previous_(std::cerr.rdbuf(text_.rdbuf())) {}
  ~CapturedErrors() { std::cerr.rdbuf(previous_); }
  std::string text() const { return text_.str(); }

 private:
  std::ostringstream text_;
  std::streambuf* previous_;
};

// Parses `args` with fresh options, std::cout captured: the status, and what was printed.
std::pair<std::optional<int>, std::string> parse_printing(const ChapterInfo& i, std::vector<const char*> args) {
  std::ostringstream out;
  auto* previous = std::cout.rdbuf(out.rdbuf());
  Options o;
  CommandLine cli(i, o);
  const std::optional<int> status = parse(cli, std::move(args));
  std::cout.rdbuf(previous);
  return {status, out.str()};
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
  CHECK_FALSE(parse_count("abc"));
  CHECK_FALSE(parse_count("-5"));
  CHECK_FALSE(parse_count("3^2"));
  CHECK_FALSE(parse_count(""));
  CHECK_FALSE(parse_count("2^99"));
}

TEST_CASE("options are parsed and validated", "[options]") {
  auto i = info();
  {
    Options o;
    CommandLine cli(i, o);
    CHECK_FALSE(parse(cli, {"--n", "2^10", "--type", "float", "--block", "128", "--kernel", "c,a"}));
    CHECK(o.n == 1024);
    CHECK(o.type == DataType::Float);
    CHECK(o.block == 128);
    CHECK(o.kernels == std::vector<std::string>{"a", "c"});  // the chapter's order
  }
  for (std::vector<const char*> bad : std::vector<std::vector<const char*>>{{"--n", "abc"},
                                                                            {"--n", "-5"},
                                                                            {"--n", "4096"},
                                                                            {"--type", "quad"},
                                                                            {"--block", "100"},
                                                                            {"--block", "2048"},
                                                                            {"--kernel", "zzz"},
                                                                            {"--reps", "0"},
                                                                            {"--bogus"}}) {
    Options o;
    CommandLine cli(i, o);
    INFO(bad[0] << " " << (bad.size() > 1 ? bad[1] : ""));
    CHECK(parse(cli, bad) == 2);
  }
  Options o;
  CommandLine cli(i, o);
  CHECK_FALSE(parse(cli, {}));
  CHECK(o.kernels == std::vector<std::string>{"a", "b", "c"});  // default: every kernel
}

TEST_CASE("an --n out of range is refused with the reason for the bound it crosses", "[options]") {
  auto i = info();
  i.min_n_reason = "none to reduce";
  for (const auto& [n, reason, other] : std::vector<std::tuple<const char*, std::string, std::string>>{
           {"0", ": none to reduce", "one block"}, {"4096", ": one block", "none to reduce"}}) {
    Options o;
    CommandLine cli(i, o);
    CapturedErrors errors;
    CHECK(parse(cli, {"--n", n}) == 2);
    INFO(errors.text());
    CHECK(errors.text().find("--n must be from 1 to 2048, got " + std::string(n) + reason) != std::string::npos);
    CHECK(errors.text().find(other) == std::string::npos);
  }
}

TEST_CASE("numbers that CLI11 2.1 would wrap, clamp or read as zero are refused", "[options]") {
  const auto i = info();
  // Before: --seed -1 wrapped to 2^64 - 1, 18446744073709551616 clamped to it, '' read as 0.
  for (std::vector<const char*> bad : std::vector<std::vector<const char*>>{{"--seed", "-1"},
                                                                            {"--seed", "18446744073709551616"},
                                                                            {"--seed", ""},
                                                                            {"--seed", "1x"},
                                                                            {"--seed", " 1"},
                                                                            {"--seed", "+1"},
                                                                            {"--seed", "0x10"},
                                                                            {"--block", ""},
                                                                            {"--block", "-128"},
                                                                            {"--block", "1e2"},
                                                                            {"--reps", ""},
                                                                            {"--reps", "99999999999999999999"},
                                                                            {"--warmup", ""},
                                                                            {"--warmup", "-1"},
                                                                            {"--input", ""},
                                                                            {"--n", ""},
                                                                            {"--type", ""},
                                                                            {"--kernel", ""},
                                                                            {"--kernel", ","}}) {
    Options o;
    CommandLine cli(i, o);
    CapturedErrors errors;
    INFO(bad[0] << " '" << bad[1] << "'");
    CHECK(parse(cli, bad) == 2);
    const std::string err = errors.text();
    CHECK(err.find('\n') == err.size() - 1);  // exactly one line
  }
  Options o;
  CommandLine cli(i, o);
  CHECK_FALSE(parse(cli, {"--seed", "18446744073709551615", "--reps", "7", "--warmup", "0"}));
  CHECK(o.seed == 18446744073709551615ull);
  CHECK(o.reps == 7);
  CHECK(o.warmup == 0);
}

TEST_CASE("a chapter's own int options are parsed strictly", "[options]") {
  const auto i = info();
  for (const char* bad : {"", "abc", "2147483648", "-2147483649", "1.5", "7 ", "99999999999999999999999"}) {
    Options o;
    int coarse = 0;
    CommandLine cli(i, o);
    cli.add_option("--coarse", coarse, "a factor");
    CapturedErrors errors;
    INFO("'" << bad << "'");
    CHECK(parse(cli, {"--coarse", bad}) == 2);  // '' was read as 0 before
    CHECK(errors.text().find("--coarse must be a whole number") != std::string::npos);
  }
  for (auto [text, value] :
       std::vector<std::pair<const char*, int>>{{"8", 8}, {"-3", -3}, {"2147483647", 2147483647}}) {
    Options o;
    int coarse = 0;
    CommandLine cli(i, o);
    cli.add_option("--coarse", coarse, "a factor");
    CHECK_FALSE(parse(cli, {"--coarse", text}));
    CHECK(coarse == value);
  }
  Options o;
  int coarse = 5, other = 6;
  CommandLine cli(i, o);
  cli.add_option("--coarse", coarse, "a factor");
  cli.add_option("--other", other, "another");  // the first option's text must survive a second
  CHECK_FALSE(parse(cli, {"--coarse", "3"}));
  CHECK(coarse == 3);
  CHECK(other == 6);  // defaults stay
}

TEST_CASE("an --n that no machine can hold is refused before anything is allocated", "[options]") {
  ChapterInfo i = info();
  i.max_n = std::numeric_limits<std::size_t>::max();
  // Before: accepted, and std::vector failed with "cannot create std::vector larger than max_size()".
  for (const char* n : {"2^62", "9999999999999999999", "2^50", "1<<60", "16777216G"}) {
    for (const char* type : {"int", "double"}) {
      Options o;
      CommandLine cli(i, o);
      CapturedErrors errors;
      INFO(n << " " << type);
      CHECK(parse(cli, {"--n", n, "--type", type}) == 2);
      CHECK(errors.text().find("too large") != std::string::npos);
      CHECK(errors.text().find("memory") != std::string::npos);  // the machine's, or its cgroup's limit
    }
  }
  Options o;
  CommandLine cli(i, o);
  CHECK_FALSE(parse(cli, {"--n", "2^20", "--type", "double"}));
  Options with_input;
  CommandLine cli2(i, with_input);
  CHECK_FALSE(parse(cli2, {"--n", "2^62", "--input", "file.npy"}));  // --input overrides --n
}

TEST_CASE("error messages show the user's text on one line, control characters escaped", "[options]") {
  const auto i = info();
  for (std::vector<const char*> bad : std::vector<std::vector<const char*>>{
           {"--n", "1\n"}, {"--seed", "\x1b[2J"}, {"--type", "fl\noat"}, {"--kernel", "a\r\nb"}, {"--bogus\n"}}) {
    Options o;
    CommandLine cli(i, o);
    CapturedErrors errors;
    INFO(bad[0]);
    CHECK(parse(cli, bad) == 2);
    const std::string err = errors.text();
    CHECK(err.find('\n') == err.size() - 1);
    CHECK(err.find('\x1b') == std::string::npos);
    CHECK(err.find('\r') == std::string::npos);
  }
  Options o;
  CommandLine cli(i, o);
  CapturedErrors errors;
  CHECK(parse(cli, {"--n", "1\n"}) == 2);
  CHECK(errors.text().find("got '1\\n'") != std::string::npos);
}

TEST_CASE("--list prints the chapter's variants and stops; only a chapter with variants has it", "[options]") {
  // --list answers only a command line that would run: `--list --n garbage` exited 0.
  auto i = info();
  i.variants.clear();
  {
    Options o;
    CommandLine cli(i, o);
    CapturedErrors errors;
    CHECK(parse(cli, {"--list"}) == 2);  // no variants: no --list
  }
  i.variants = {{"alpha", "the first idea", true}, {"b", "a \"quoted\" idea", false}};
  std::ostringstream out;
  auto* previous = std::cout.rdbuf(out.rdbuf());
  std::vector<std::optional<int>> refused;
  {
    CapturedErrors errors;
    for (std::vector<const char*> bad : std::vector<std::vector<const char*>>{{"--list", "--n", "not a number"},
                                                                              {"--list", "--n", "4096"},
                                                                              {"--list", "--seed", "-1"},
                                                                              {"--list", "--reps", "0"},
                                                                              {"--list", "--warmup", "x"},
                                                                              {"--list", "--block", "100"},
                                                                              {"--list", "--input", ""},
                                                                              // 03, 06 and 10 exited 0:
                                                                              {"--list", "--input", "/nonexistent/x.npy"}}) {
      Options o;
      CommandLine cli(i, o);
      refused.push_back(parse(cli, bad));
    }
  }
  const std::string printed_when_refused = out.str();
  std::cout.rdbuf(previous);
  const auto [text_status, text] = parse_printing(i, {"--list", "--n", "2^10", "--seed", "7"});
  const auto [json_status, json] = parse_printing(i, {"--list", "--json"});
  for (const auto& status : refused) CHECK(status == 2);
  CHECK(printed_when_refused.empty());
  CHECK(text_status == 0);
  CHECK(text == "alpha  the first idea\nb      a \"quoted\" idea\n");
  CHECK(json_status == 0);
  CHECK(json == R"({"chapter":"99_test","max_n":2048,"variants":[{"name":"alpha","idea":"the first idea",)"
                     R"("deterministic":true},{"name":"b","idea":"a \"quoted\" idea","deterministic":false}]})"
                     "\n");
}

TEST_CASE("the bug zoo's kernels run only when named, and are listed last, marked", "[options]") {
  // A build with REDUCTION_ZOO_KERNELS adds the zoo's wrong kernels to the chapter's registry
  // (common/gpu.cuh: zoo_of); a default run and the benchmark must not take them for the chapter's.
  auto i = info();
  i.variants = {{"a", "idea a", true}, {"zoo.bug", "wrong on purpose", true, true}, {"b", "idea b", false}};
  CHECK(variant_names(i) == std::vector<std::string>{"a", "zoo.bug", "b"});
  CHECK(default_variant_names(i) == std::vector<std::string>{"a", "b"});
  {
    Options o;
    CommandLine cli(i, o);
    CHECK_FALSE(parse(cli, {}));
    CHECK(o.kernels == std::vector<std::string>{"a", "b"});  // default: all but the zoo's
  }
  {
    Options o;
    CommandLine cli(i, o);
    CHECK_FALSE(parse(cli, {"--kernel", "b,zoo.bug"}));
    CHECK(o.kernels == std::vector<std::string>{"zoo.bug", "b"});  // named: it runs
  }
  const auto [text_status, text] = parse_printing(i, {"--list"});
  const auto [json_status, json] = parse_printing(i, {"--list", "--json"});
  CHECK(text_status == 0);
  CHECK(text ==
        "a        idea a\nb        idea b\n\nthe bug zoo (instructor/zoo/): kernels wrong on purpose, run only when "
        "--kernel names them\nzoo.bug  wrong on purpose\n");
  CHECK(json_status == 0);
  CHECK(json ==
        R"({"chapter":"99_test","max_n":2048,"variants":[{"name":"a","idea":"idea a","deterministic":true},)"
        R"({"name":"b","idea":"idea b","deterministic":false},)"
        R"({"name":"zoo.bug","idea":"wrong on purpose","deterministic":true,"zoo":true}]})"
        "\n");
}

TEST_CASE("output that could not be written is said in one line on stderr", "[options]") {
  // A closed pipe, a full disk or a closed stdout used to go unnoticed (status 0, or 77): the
  // programs ask output_written() last, and exit 5 when it says no. Here the stream is failed by
  // hand; common/tests/fuzz_inputs.py runs the programs on a closed pipe, /dev/full and a closed stdout.
  CHECK(output_written("99_test"));
  std::cout.setstate(std::ios::badbit);
  CapturedErrors errors;
  const bool written = output_written("99_test");
  std::cout.clear();
  const std::string said = errors.text();
  CHECK_FALSE(written);
  CHECK(said.rfind("99_test: error: the output could not be written (", 0) == 0);
  CHECK(std::count(said.begin(), said.end(), '\n') == 1);
}

TEST_CASE("a -- ends the options, and what follows it is named as an argument, not an option", "[options]") {
  // `--n 16 -- x` said "-- is not an option".
  const ChapterInfo i = info();
  Options o;
  CommandLine cli(i, o);
  CapturedErrors errors;
  CHECK(parse(cli, {"--n", "16", "--", "x"}) == 2);
  const std::string text = errors.text();
  INFO(text);
  CHECK(text.find("is not an option") == std::string::npos);
  CHECK(text.find("unexpected argument 'x' after --") != std::string::npos);
  CHECK(std::count(text.begin(), text.end(), '\n') == 1);
}

TEST_CASE("given() says which options the command line named", "[options]") {
  const ChapterInfo i = info();
  Options o;
  CommandLine cli(i, o);
  std::string alias = "all";
  cli.add_option("--alias", alias, "an alias of --kernel");
  bool both = false;
  cli.add_check([&]() -> std::optional<std::string> {
    both = cli.given("--alias") && cli.given("--kernel");
    return std::nullopt;
  });
  CHECK_FALSE(parse(cli, {"--alias", "all", "--kernel", "a"}));
  CHECK(both);
}
