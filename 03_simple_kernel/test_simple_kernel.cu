// GPU tests of chapter 03: the simple kernel against the CPU reference and against its run on
// the CPU emulator (emulated.cpp), in int, float and double:
//  - the sizes that matter (1, 2, 3, every power of two to 2048 with its neighbours, 1000): the
//    result, and the array the kernel leaves behind, bit for bit the emulated run's;
//  - rows: every row of a batch right, and four of them bit for bit what the emulated run gives
//    for that row alone;
//  - the recording: the kernel itself, run on elements that log their loads and stores
//    (emulator/traced.cuh), takes the steps of the emulated run, line for line
//    and value for value, so the trace and the counts (thread slots, requests, sectors) are the
//    same: for the swept sizes from 1 to 2048 in int, and for the sizes that matter in float and double
//    (the counts depend on the element size, the values on the type).
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "emulator/block_testing.hpp"
#include "emulator/traced.cuh"
#include "common/gpu.cuh"
#include "common/program.hpp"
#include "simple_kernel.cuh"

using namespace reduction;
namespace sb = reduction::single_block;

const std::vector<std::size_t> kSizesThatMatter = {1,   2,   3,   4,   5,    7,    8,    9,    15,   16,  17,
                                                   31,  32,  33,  63,  64,   65,   127,  128,  129,  255, 256,
                                                   257, 511, 512, 513, 1000, 1023, 1024, 1025, 2047, 2048};

using sb::testing::emulated;  // the kernel's run on the CPU emulator, which must have found nothing

// The timed kernel on `rows` rows of n: what it leaves in the array, and each row's result.
template <typename T>
std::pair<std::vector<T>, std::vector<T>> run_kernel(const std::vector<T>& x, std::size_t rows) {
  const std::size_t n = x.size() / rows;
  DeviceBuffer<T> data(x), results(rows);
  results.poison();
  ch03::simple_kernel<<<static_cast<unsigned>(rows), sb::threads_for(n)>>>(data.data(), n, results.data());
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  return {data.download(), results.download()};
}

// What the emulated run says one row leaves in the array, and its result.
template <typename T>
std::pair<std::vector<T>, T> emulated_outcome(const std::vector<T>& x) {
  const auto trace = sb::trace_from(sb::steps_of(emulated(x)), x, sb::threads_for(x.size()), "", false);
  return {trace.steps.empty() ? x : trace.steps.back().values, trace.result};
}

template <typename T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

TEMPLATE_TEST_CASE("the sizes that matter: the reference, and the emulated run bit for bit", "[chapter03][gpu]",
                   std::int32_t, float, double) {
  const auto seed = reduction::testing::fresh_seed();
  INFO("seed " << seed);
  for (std::size_t n : kSizesThatMatter) {
    INFO("n = " << n);
    const auto x = generate_input<TestType>(n, seed + n);
    const auto ref = reference_sum(x.data(), n);
    const auto [left, results] = run_kernel(x, 1);
    const auto [emulated_left, emulated_result] = emulated_outcome(x);
    CHECK_MATCHES(results[0], ref, tolerance(ref, sb::tree_depth(n)));
    CHECK(same_bits(results, {emulated_result}));
    CHECK(same_bits(left, emulated_left));  // the partial sums overwrite the input where the emulated run says
  }
}

TEMPLATE_TEST_CASE("rows: every row right, four as if reduced alone", "[chapter03][gpu]", std::int32_t, float, double) {
  const auto seed = reduction::testing::fresh_seed();
  INFO("seed " << seed);
  for (const auto& [n, rows] : std::vector<std::pair<std::size_t, std::size_t>>{
           {1, 3}, {13, 3}, {13, 1000}, {1000, 3}, {2047, 100}, {2048, 100}}) {
    INFO("n = " << n << ", rows = " << rows);
    const auto x = generate_input<TestType>(rows * n, seed + rows * n);
    const auto [left, results] = run_kernel(x, rows);
    CHECK(sb::check_rows(x, n, results).wrong == 0);
    bool all_as_alone = true;  // the first two rows, the middle one and the last: a row's offset is all that differs
    for (std::size_t row : {std::size_t(0), std::min<std::size_t>(1, rows - 1), rows / 2, rows - 1}) {
      const std::vector<TestType> one(x.begin() + row * n, x.begin() + (row + 1) * n);
      const auto [emulated_left, emulated_result] = emulated_outcome(one);
      all_as_alone = all_as_alone && std::memcmp(&results[row], &emulated_result, sizeof(TestType)) == 0 &&
                     std::memcmp(left.data() + row * n, emulated_left.data(), n * sizeof(TestType)) == 0;
    }
    CHECK(all_as_alone);
  }
}

TEST_CASE("int sums wrap around like the reference", "[chapter03][gpu]") {
  const std::vector<std::int32_t> x(sb::kMaxElements, std::numeric_limits<std::int32_t>::max());
  const auto ref = reference_sum(x.data(), x.size());
  REQUIRE(ref.wrapped);
  CHECK(run_kernel(x, 1).second[0] == ref.value);
}

// The recording of the kernel on the GPU against its emulated run, for each n: the same steps, line by
// line (and so the same trace), and the same counts.
template <typename T>
void check_recording(const std::vector<std::size_t>& sizes) {
  const auto seed = reduction::testing::fresh_seed();
  INFO("seed " << seed);
  for (std::size_t n : sizes) {
    INFO("n = " << n);
    const auto x = generate_input<T>(n, seed + n);
    const unsigned threads = sb::threads_for(n);
    const sb::Steps recorded = sb::steps_of(record(&ch03::simple_kernel<Traced<T>>, x, threads)),
                    emulated_steps = sb::steps_of(emulated(x));
    REQUIRE(sb::testing::steps_difference(recorded, emulated_steps) == "");
    // The counts as the program prints them: each step's active threads and warps (and so the
    // thread slots), reads, writes, requests and sectors, and the launch's totals.
    const auto from_recording = sb::count(recorded, n, threads, sizeof(T)),
               from_emulator = sb::count(emulated_steps, n, threads, sizeof(T));
    REQUIRE(sb::steps_json(from_recording).dump() == sb::steps_json(from_emulator).dump());
    REQUIRE(sb::memory_json(from_recording).dump() == sb::memory_json(from_emulator).dump());
  }
}

TEST_CASE("the recording is the emulated run: the swept sizes from 1 to 2048 (int)", "[chapter03][gpu]") {
  check_recording<std::int32_t>(sb::testing::swept_sizes());
}

TEMPLATE_TEST_CASE("the recording is the emulated run: the sizes that matter", "[chapter03][gpu]", float,
                   double) {
  check_recording<TestType>(kSizesThatMatter);
}
