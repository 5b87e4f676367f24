// GPU tests of chapter 04: the convergent kernel, checked as chapter 03's is: against the CPU
// reference and its model, bit for bit, for every n, and over rows (common/single_block_testing.cuh).
#include <cstdint>

#include "common/single_block_testing.cuh"
#include "convergent.cuh"
#include "model.hpp"

TEMPLATE_TEST_CASE("convergent kernel", "[chapter04][gpu]", std::int32_t, float, double) {
  reduction::single_block::testing::check_kernel<ch04::Kernel, ch04::Model, TestType>();
}
