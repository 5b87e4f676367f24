#include <cmath>
#include <cstdint>
#include <vector>

#include "../01_sequential/sequential.hpp"
#include "common/program.hpp"
#include "common/reference.hpp"
#include "common/testing/testing.hpp"
#include "reduction_tree.hpp"

using namespace reduction;

using Levels = std::vector<std::vector<int>>;

TEST_CASE("the example tree: 3 1 7 0 4 1 6 3 reduces to 25 in three steps", "[chapter02]") {
  const Levels example = {{3, 1, 7, 0, 4, 1, 6, 3}, {4, 7, 5, 9}, {11, 14}, {25}};
  CHECK(ch02::tree_levels<Sum>(example[0]) == example);
  CHECK(ch02::tree_reduce<Sum>(example[0]) == 25);
  CHECK(ch02::tree_reduce<Max>(example[0]) == 7);
}

TEST_CASE("the model for n = 1024, for n not a power of two, and for the smallest n", "[chapter02]") {
  struct Case {
    std::size_t n, work, steps, peak_parallelism;
    double average_parallelism, ideal_speedup;
  };
  for (const Case& c : {Case{1024, 1023, 10, 512, 102.3, 102.4}, Case{1000, 999, 10, 500, 99.9, 100.0},
                        Case{5, 4, 3, 2, 4.0 / 3.0, 5.0 / 3.0}, Case{1, 0, 0, 0, 0.0, 1.0}}) {
    INFO("n = " << c.n);
    const auto m = ch02::tree_model(c.n);
    CHECK(m.work == c.work);
    CHECK(m.steps == c.steps);
    CHECK(m.peak_parallelism == c.peak_parallelism);
    CHECK(std::fabs(m.average_parallelism - c.average_parallelism) < 1e-12);
    CHECK(std::fabs(m.ideal_speedup - c.ideal_speedup) < 1e-12);
  }
}

TEST_CASE("trees of odd sizes: the odd element out passes through", "[chapter02]") {
  const Levels odd = {{1, 2, 3, 4, 5}, {3, 7, 5}, {10, 5}, {15}};  // ceil(log2 5) = 3 steps
  CHECK(ch02::tree_levels<Sum>(odd[0]) == odd);
  // Every level count matches the model's step count, for many n.
  for (std::size_t n = 1; n <= 300; ++n)
    REQUIRE(ch02::tree_levels<Sum>(std::vector<int>(n, 1)).size() - 1 == ch02::tree_model(n).steps);
}

TEMPLATE_TEST_CASE("tree and loop agree: integers exactly, floats within their bounds", "[chapter02]", std::int32_t, float,
                   double) {
  using T = TestType;
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = GENERATE(1, 2, 3, 1000, 1 << 16, (1 << 16) + 1);
  const auto x = generate_input<T>(n, seed);
  const auto ref = reference_sum(x.data(), n);
  CHECK_MATCHES(ch02::tree_reduce<Sum>(x), ref, tolerance(ref, ceil_log2(n)));
  CHECK_MATCHES(ch01::sequential_reduce<Sum>(x.data(), n), ref, tolerance(ref, n - 1));
}

// The tree pairs the elements in another order than the loop: the same max and min all the same.
TEMPLATE_TEST_CASE("the tree's max and min: NaN wherever it is, -0 below +0, infinities", "[chapter02]", float, double) {
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  for (const std::size_t n : {3, 5, 1000})
    for (const auto& c : testing::special_inputs<TestType>(n, seed)) {
      INFO(c.what);
      CHECK(testing::same_value(ch02::tree_reduce<Max>(c.x), c.max));
      CHECK(testing::same_value(ch02::tree_reduce<Min>(c.x), c.min));
    }
}

TEST_CASE("at tens of millions of floats the tree is far more accurate than the loop", "[chapter02]") {
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = std::size_t(1) << 26;
  const auto x = generate_input<float>(n, seed);
  const auto ref = reference_sum(x.data(), n);
  const long double tree_err = std::fabs(ch02::tree_reduce<Sum>(x) - ref.precise);
  const long double seq_err = std::fabs(ch01::sequential_reduce<Sum>(x.data(), n) - ref.precise);
  CHECK(tree_err <= tolerance(ref, ceil_log2(n)));
  // The loop's total stalls near 2^24 while the true sum goes on to about 2^25 (README.md).
  CHECK(seq_err / ref.magnitude > 0.25L);
  CHECK(seq_err > 1000 * tree_err);
}
