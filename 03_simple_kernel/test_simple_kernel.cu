// GPU tests of chapter 03: the simple kernel against the CPU reference for every size that
// matters, and against its model: the array the kernel leaves behind and its result must be the
// ones the model predicts, bit for bit, and for every n the trace and the counts recorded from the
// kernel must be the model's.
#include <cstdint>

#include "common/single_block_testing.cuh"
#include "model.hpp"
#include "simple_kernel.cuh"

namespace sbt = reduction::single_block::testing;

TEMPLATE_TEST_CASE("simple kernel: every size from 1 to 2048 that matters", "[chapter03][gpu]", std::int32_t, float,
                   double) {
  sbt::check_every_size(ch03::variant<TestType>(), [](const auto& x) { return ch03::trace(x); }, true);
}

TEMPLATE_TEST_CASE("simple kernel: the model predicts what the kernel records, for every n", "[chapter03][gpu]",
                   std::int32_t, float, double) {
  sbt::check_model_against_recording(&ch03::simple_kernel<TestType, reduction::BlockRecorder>,
                                     [](const auto& x) { return ch03::trace(x); }, &ch03::model);
}

TEST_CASE("simple kernel: int sums wrap around like the reference", "[chapter03][gpu]") {
  sbt::check_int_wraparound(ch03::launch<std::int32_t>);
}

TEST_CASE("simple kernel: sizes out of reach are refused before launching", "[chapter03][gpu]") {
  sbt::check_refused_sizes(ch03::launch<float>);
}
