#include <cstdint>

#include "common/multi_block_testing.cuh"
#include "common/testing.hpp"
#include "hierarchical.cuh"

using namespace reduction;

TEMPLATE_TEST_CASE("hierarchical: every edge size at every block size", "[chapter06]", std::int32_t, float, double) {
  for (std::size_t n : testing::edge_sizes()) testing::check_variants_at(ch06::variants<TestType>(), n);
}

TEST_CASE("hierarchical: more than 2^32 elements", "[chapter06][huge]") {
  testing::check_huge_int_input(ch06::variants<std::int32_t>(), {32, 256, 1024});
}

TEST_CASE("hierarchical: one block per 2 x block elements", "[chapter06]") {
  CHECK(ch06::block_count(1, 32) == 1);
  CHECK(ch06::block_count(64, 32) == 1);
  CHECK(ch06::block_count(65, 32) == 2);
  CHECK(ch06::block_count((std::size_t(1) << 32) + 3, 1024) == (std::size_t(1) << 21) + 1);
  // Depth: the pair, the tree, the atomics after the first.
  CHECK(ch06::depth(1, 256) == 9);
  CHECK(ch06::depth(1025, 256) == 9 + 2);
}
