// GPU tests of chapter 04: the convergent kernel against the CPU reference for every size that
// matters, and against its model: the array the kernel leaves behind and its result must be the
// ones the model predicts, bit for bit, and for every n the trace and the counts recorded from the
// kernel must be the model's.
#include <cstdint>

#include "common/single_block_testing.cuh"
#include "model.hpp"
#include "convergent.cuh"

namespace sbt = reduction::single_block::testing;

TEMPLATE_TEST_CASE("convergent kernel: every size from 1 to 2048 that matters", "[chapter04][gpu]", std::int32_t, float,
                   double) {
  sbt::check_every_size(ch04::variant<TestType>(), [](const auto& x) { return ch04::trace(x); }, true);
}

TEMPLATE_TEST_CASE("convergent kernel: the model predicts what the kernel records, for every n", "[chapter04][gpu]",
                   std::int32_t, float, double) {
  sbt::check_model_against_recording(&ch04::convergent_kernel<TestType, reduction::BlockRecorder>,
                                     [](const auto& x) { return ch04::trace(x); }, &ch04::model);
}

TEST_CASE("convergent kernel: int sums wrap around like the reference", "[chapter04][gpu]") {
  sbt::check_int_wraparound(ch04::launch<std::int32_t>);
}

TEST_CASE("convergent kernel: sizes out of reach are refused before launching", "[chapter04][gpu]") {
  sbt::check_refused_sizes(ch04::launch<float>);
}
