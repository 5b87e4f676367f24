// GPU test of a chapter's bug zoo for the detectors that need a GPU and a launcher: value,
// nondeterministic, and the runs that compute-sanitizer watches (cmake/Sanitize.cmake). Zoo.cmake
// compiles it once per chapter, against the chapter's generated zoo_list.hpp.
//
//   <chapter>_zoo_gpu --bug NAME --detector value             the bug's int sum is wrong, the solution's right
//   <chapter>_zoo_gpu --bug NAME --detector nondeterministic  the bug's float sum changes between runs,
//                                                             the solution's never does
//   <chapter>_zoo_gpu --bug NAME --detector run [--solution]  one run of the bug (or of the solution),
//                                                             its sum printed, not checked (a race may change it)
//
// Exit status: 0 the detector fired for the bug and not for the solution (run: the runs finished),
// 1 it did not, 2 a bad option, 3 a CUDA error, 77 no usable GPU or not enough device memory.
#include <cstdint>
#include <cstring>
#include <exception>
#include <iostream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/gpu.cuh"
#include "common/program.hpp"
#include "common/reference.hpp"

#define REDUCTION_ZOO_LAUNCHERS
#include "zoo_list.hpp"  // the solution, the bugs, and their launchers

namespace {

template <typename E>
using Launcher = void (*)(const E*, std::size_t, E*, int, reduction::DeviceScratch&, cudaStream_t);

struct GpuBug {
  const char* name;
  const char* detectors;
  Launcher<std::int32_t> bug_int, solution_int;
  Launcher<float> bug_float, solution_float;
  std::size_t n;
};

#define REDUCTION_ZOO_GPU_BUG(name, detectors)       \
  GpuBug{#name,                                      \
         detectors,                                  \
         zoo_launch::bug_##name<std::int32_t>,       \
         zoo_launch::solution_##name<std::int32_t>,  \
         zoo_launch::bug_##name<float>,              \
         zoo_launch::solution_##name<float>,         \
         zoo_launch::kN_##name},
const std::vector<GpuBug> kGpuBugs = {REDUCTION_ZOO_GPU_BUGS};
#undef REDUCTION_ZOO_GPU_BUG

constexpr std::size_t kDeviceFillFrom = std::size_t(1) << 31;  // inputs past this are made on the GPU
constexpr int kRuns = 20;                                      // runs of the nondeterministic check
constexpr int kBlock = 256;                                    // threads a block, for every bug

// One launch on the device input, and its result, copied back.
template <typename E>
E run_once(Launcher<E> launch, const reduction::DeviceBuffer<E>& input, std::size_t n) {
  reduction::DeviceBuffer<E> result(1);
  result.poison();  // a launcher that writes nothing gives -1 or NaN, not a leftover
  reduction::DeviceScratch scratch;
  launch(input.data(), n, result.data(), kBlock, scratch, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  return result.download_one();
}

// The int input of n elements and its exact sum (modulo 2^32, as the kernels wrap around): random
// positive ints, so that whatever a bug leaves out changes the sum; past 2^31 elements, where a
// 32-bit index is tested, zero below element 2^31 and 0x01010101 (odd) from there, made on the GPU.
reduction::DeviceBuffer<std::int32_t> int_input(std::size_t n, std::int32_t& sum) {
  if (n <= kDeviceFillFrom) {
    std::vector<std::int32_t> host = reduction::generate_input<std::int32_t>(n, std::random_device{}());
    for (std::int32_t& x : host) x = (x < 0 ? -x : x) + 1;  // from [-100, 100] to [1, 101]
    sum = reduction::reference_sum(host.data(), n).value;
    return reduction::DeviceBuffer<std::int32_t>(host);
  }
  reduction::DeviceBuffer<std::int32_t> input(n);
  CUDA_CHECK(cudaMemset(input.data(), 0, kDeviceFillFrom * sizeof(std::int32_t)));
  CUDA_CHECK(cudaMemset(input.data() + kDeviceFillFrom, 0x01, (n - kDeviceFillFrom) * sizeof(std::int32_t)));
  sum = static_cast<std::int32_t>(static_cast<std::uint32_t>(n - kDeviceFillFrom) * 0x01010101u);
  return input;
}

// The same float input kRuns times: how many distinct results, bit for bit.
std::size_t distinct_results(Launcher<float> launch, const reduction::DeviceBuffer<float>& input, std::size_t n) {
  std::set<std::uint32_t> seen;
  for (int run = 0; run < kRuns; ++run) {
    const float result = run_once(launch, input, n);
    std::uint32_t bits;
    std::memcpy(&bits, &result, sizeof bits);
    seen.insert(bits);
  }
  return seen.size();
}

int check(const GpuBug& bug, const std::string& detector, bool solution_only) {
  std::cout << REDUCTION_ZOO_CHAPTER << ", bug " << bug.name << " (caught: " << bug.detectors << "), n = " << bug.n
            << ", blocks of " << kBlock << "\n";
  const std::size_t bytes = bug.n * (detector == "nondeterministic" ? sizeof(float) : sizeof(std::int32_t));
  if (auto no_room = reduction::device_room(bytes)) {
    std::cout << "SKIPPED: " << *no_room << std::endl;
    return 77;
  }
  if (detector == "nondeterministic") {
    const reduction::DeviceBuffer<float> input(reduction::generate_input<float>(bug.n, std::random_device{}()));
    const std::size_t solution = distinct_results(bug.solution_float, input, bug.n);
    const std::size_t wrong = distinct_results(bug.bug_float, input, bug.n);
    std::cout << "float, " << kRuns << " runs each on one input: the solution gave " << solution
              << " distinct result(s), the bug " << wrong << "\n";
    if (solution != 1) std::cout << "FAILED: the solution must give the same bits in every run\n";
    if (wrong < 2) std::cout << "FAILED: the bug gave the same bits in every run; not caught\n";
    return solution == 1 && wrong >= 2 ? 0 : 1;
  }
  std::int32_t sum = 0;
  const reduction::DeviceBuffer<std::int32_t> input = int_input(bug.n, sum);
  if (detector == "run") {  // for compute-sanitizer, which does the checking
    const std::int32_t result = run_once(solution_only ? bug.solution_int : bug.bug_int, input, bug.n);
    std::cout << (solution_only ? "the solution" : "the bug") << ": " << result << ", expected " << sum << "\n";
    return 0;
  }
  const std::int32_t solution = run_once(bug.solution_int, input, bug.n);
  const std::int32_t wrong = run_once(bug.bug_int, input, bug.n);
  std::cout << "int sum " << sum << ": the solution gave " << solution << ", the bug " << wrong << "\n";
  if (solution != sum) std::cout << "FAILED: the solution must give the sum\n";
  if (wrong == sum) std::cout << "FAILED: the bug gave the sum; not caught\n";
  return solution == sum && wrong != sum ? 0 : 1;
}

int usage(const std::string& why) {
  std::cerr << "error: " << why << " (usage: --bug NAME --detector value|nondeterministic|run [--solution])\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string name, detector;
  bool solution_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--bug" || arg == "--detector") && i + 1 < argc)
      (arg == "--bug" ? name : detector) = argv[++i];
    else if (arg == "--solution")
      solution_only = true;
    else
      return usage("unknown argument " + arg);
  }
  if (detector != "value" && detector != "nondeterministic" && detector != "run")
    return usage("--detector must be value, nondeterministic or run");
  const GpuBug* bug = nullptr;
  for (const GpuBug& b : kGpuBugs) bug = b.name == name ? &b : bug;
  if (!bug) return usage("no bug " + name + " with a launcher in this chapter's zoo");
  const reduction::GpuStatus gpu = reduction::probe_gpu();
  if (!gpu.usable) {
    std::cout << "SKIPPED: no usable GPU (" << gpu.reason << ")" << std::endl;
    return 77;
  }
  try {
    return check(*bug, detector, solution_only);
  } catch (const std::exception& e) {  // CUDA_CHECK has printed the failing call
    std::cerr << "error: " << e.what() << "\n";
    return 3;
  }
}
