// GPU tests of chapter 03: the simple kernel against the CPU reference for every size that
// matters, and against its model: the array the kernel leaves behind and its result must be the
// ones the model predicts, bit for bit, and for every n the trace and the counts recorded from the
// kernel must be the model's; over rows, every row right and each as if reduced alone
// (common/single_block_testing.cuh).
#include <cstdint>

#include "common/single_block_testing.cuh"
#include "model.hpp"
#include "simple_kernel.cuh"

TEMPLATE_TEST_CASE("simple kernel", "[chapter03][gpu]", std::int32_t, float, double) {
  reduction::single_block::testing::check_kernel<ch03::Kernel, ch03::Model, TestType>();
}
