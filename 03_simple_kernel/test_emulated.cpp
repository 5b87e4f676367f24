// CPU tests of chapter 03's kernel itself, for a student without a GPU: the kernel's own source on
// the CPU emulator, in several thread orders, must give every row's sum with no finding
// (emulator/README.md lists what it runs and finds).
#include "emulator/emulator_checks.hpp"  // last before the kernel: it ends with the CUDA shim
#include "simple_kernel.cuh"

namespace emu = reduction::emulator::testing;
using reduction::emulator::Checked;

TEMPLATE_TEST_CASE("chapter 03's kernel on the CPU emulator: every size, every schedule", "[chapter03][emulator]",
                   std::int32_t, float, double) {
  const auto seed = reduction::testing::fresh_seed();
  for (std::size_t n : emu::kSizes)  // the first size that fails is enough to show
    if (!emu::check_solution<TestType>("chapter 03", &ch03::simple_kernel<Checked<TestType>>, n, 1, seed + n)) break;
  // Several rows, one block each: each block must keep to its own row.
  emu::check_solution<TestType>("chapter 03", &ch03::simple_kernel<Checked<TestType>>, 33, 5, seed);
}
