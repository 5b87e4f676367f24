// GPU tests of chapter 05: the shared-memory kernel against the CPU reference for every size that
// matters; its result against the model's prediction, bit for bit; its input, which it must leave
// unchanged; and for every n the trace and the counts recorded from the kernel against the model's.
#include <cstdint>

#include "common/single_block_testing.cuh"
#include "model.hpp"
#include "shared_memory.cuh"

namespace sbt = reduction::single_block::testing;

TEMPLATE_TEST_CASE("shared-memory kernel: every size from 1 to 2048 that matters", "[chapter05][gpu]", std::int32_t, float,
                   double) {
  sbt::check_every_size(ch05::variant<TestType>(), [](const auto& x) { return ch05::trace(x); }, false);
}

TEMPLATE_TEST_CASE("shared-memory kernel: the model predicts what the kernel records, for every n", "[chapter05][gpu]",
                   std::int32_t, float, double) {
  sbt::check_model_against_recording(&ch05::shared_memory_kernel<TestType, reduction::BlockRecorder>,
                                     [](const auto& x) { return ch05::trace(x); }, &ch05::model);
}

TEST_CASE("shared-memory kernel: int sums wrap around like the reference", "[chapter05][gpu]") {
  sbt::check_int_wraparound(ch05::launch<std::int32_t>);
}

TEST_CASE("shared-memory kernel: sizes out of reach are refused before launching", "[chapter05][gpu]") {
  sbt::check_refused_sizes(ch05::launch<float>);
}
