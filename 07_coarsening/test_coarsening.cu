#include <cstdint>

#include "coarsening.cuh"
#include "common/multi_block_testing.cuh"
#include "common/testing.hpp"

using namespace reduction;

TEMPLATE_TEST_CASE("coarsening: every factor at every edge size and block size", "[chapter07]", std::int32_t, float,
                   double) {
  for (std::size_t n : testing::edge_sizes()) testing::check_variants_at(ch07::variants<TestType>(), n);
}

TEST_CASE("coarsening: more than 2^32 elements", "[chapter07][huge]") {
  testing::check_huge_int_input(ch07::variants<std::int32_t>(), {32, 1024});
}

TEST_CASE("coarsening: the registry follows the factors", "[chapter07]") {
  const auto variants = ch07::variants<float>();
  const auto factors = ch07::coarse_factors();
  REQUIRE(variants.size() == factors.size());
  for (std::size_t k = 0; k < factors.size(); ++k) {
    CHECK(std::string(variants[k].name) == "coarse" + std::to_string(factors[k]));
    // A segment of 2 x F x block elements per block.
    CHECK(ch07::block_count(2 * std::size_t(factors[k]) * 256, 256, factors[k]) == 1);
    CHECK(ch07::block_count(2 * std::size_t(factors[k]) * 256 + 1, 256, factors[k]) == 2);
  }
  // Factor 1 is chapter 06: the same blocks and the same depth.
  CHECK(ch07::depth<1>(1025, 256) == 1 + 8 + 2);
  CHECK(ch07::depth<4>(1, 256) == 7 + 8);
}
