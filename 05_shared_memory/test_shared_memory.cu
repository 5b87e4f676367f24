// GPU tests of chapter 05: the shared-memory kernel against the CPU reference and against its run on the CPU
// emulator (emulated.cpp), in int, float and double; emulator/block_gpu_tests.cuh says what each
// checks. It works in shared memory, so its input must come back as it was.
#include <cstdint>

#include "emulator/block_gpu_tests.cuh"
#include "shared_memory.cuh"

namespace sb = reduction::single_block;

namespace {
struct Kernel {
  template <typename T>
  static constexpr auto of = &ch05::shared_memory_kernel<T>;
};
using Tests = sb::testing::BlockGpuTests<Kernel, /*kKeepsInput=*/true>;
}  // namespace

TEMPLATE_TEST_CASE("the sizes that matter: the reference, and the emulated run bit for bit", "[chapter05][gpu]",
                   std::int32_t, float, double) {
  Tests::sizes_that_matter<TestType>();
}

TEMPLATE_TEST_CASE("rows: every row right, four as if reduced alone", "[chapter05][gpu]", std::int32_t, float, double) {
  Tests::rows<TestType>();
}

TEST_CASE("int sums wrap around like the reference", "[chapter05][gpu]") { Tests::int_sums_wrap(); }

TEST_CASE("the recording is the emulated run: the swept sizes from 1 to 2048 (int)", "[chapter05][gpu]") {
  Tests::recording<std::int32_t>(sb::testing::swept_sizes());
}

// The counts depend on the element size, the values on the type.
TEMPLATE_TEST_CASE("the recording is the emulated run: the sizes that matter", "[chapter05][gpu]", float,
                   double) {
  Tests::recording<TestType>(sb::testing::kSizesThatMatter);
}
