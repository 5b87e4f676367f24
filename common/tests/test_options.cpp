#include <vector>

#include "common/options.hpp"
#include "common/testing.hpp"

using namespace reduction;

namespace {
std::optional<int> parse(CommandLine& cli, std::vector<const char*> args) {
  args.insert(args.begin(), "prog");
  return cli.parse(static_cast<int>(args.size()), args.data());
}
ChapterInfo info() {
  ChapterInfo i;
  i.name = "99_test";
  i.title = "test";
  i.has_block = true;
  i.check_block = power_of_two_block(32, 1024);
  i.kernels = {"a", "b", "c"};
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
  for (std::vector<const char*> bad : std::vector<std::vector<const char*>>{
           {"--n", "abc"}, {"--n", "-5"}, {"--n", "4096"}, {"--type", "quad"}, {"--block", "100"},
           {"--block", "2048"}, {"--kernel", "zzz"}, {"--reps", "0"}, {"--bogus"}}) {
    Options o;
    CommandLine cli(i, o);
    INFO(bad[0] << " " << (bad.size() > 1 ? bad[1] : ""));
    CHECK(parse(cli, bad) == 2);
  }
  Options o;
  CommandLine cli(i, o);
  CHECK_FALSE(parse(cli, {}));
  CHECK(o.kernels == i.kernels);  // default: every kernel
}
