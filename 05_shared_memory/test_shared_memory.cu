// GPU tests of chapter 05: the shared-memory kernel against the CPU reference for every size that
// matters; its result against the model's prediction, bit for bit; its input, which it must leave
// unchanged; for every n the trace and the counts recorded from the kernel against the model's;
// and over rows (common/single_block_testing.cuh).
#include <cstdint>

#include "common/single_block_testing.cuh"
#include "model.hpp"
#include "shared_memory.cuh"

TEMPLATE_TEST_CASE("shared-memory kernel", "[chapter05][gpu]", std::int32_t, float, double) {
  reduction::single_block::testing::check_kernel<ch05::Kernel, ch05::Model, TestType>();
}
