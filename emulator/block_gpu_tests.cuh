// The GPU tests of a single-block chapter (03 to 05), for its kernel: against the CPU reference and
// against the kernel's run on the CPU emulator, in int, float and double: the result and the array
// left behind at the sizes that matter, every row of a batch, and the recording (traced.cuh), which
// must take the emulated run's steps line for line, so the trace and the counts are the same.
// Kernel names the chapter's kernel template: `template <typename T> static constexpr auto of =
// &chNN::kernel<T>;`. kKeepsInput: the kernel leaves its input as it was (05 works in shared memory).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "block_testing.hpp"
#include "traced.cuh"
#include "common/gpu.cuh"
#include "common/program.hpp"

namespace reduction::single_block::testing {

inline const std::vector<std::size_t> kSizesThatMatter = {1,   2,   3,   4,   5,    7,    8,    9,    15,   16,  17,
                                                          31,  32,  33,  63,  64,   65,   127,  128,  129,  255, 256,
                                                          257, 511, 512, 513, 1000, 1023, 1024, 1025, 2047, 2048};

template <typename T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

template <typename Kernel, bool kKeepsInput>
struct BlockGpuTests {
  // The kernel on `rows` rows of n: what it leaves in the array, and each row's result.
  template <typename T>
  static std::pair<std::vector<T>, std::vector<T>> run_kernel(const std::vector<T>& x, std::size_t rows) {
    const std::size_t n = x.size() / rows;
    DeviceBuffer<T> data(x), results(rows);
    results.poison();
    const auto kernel = Kernel::template of<T>;
    kernel<<<static_cast<unsigned>(rows), threads_for(n)>>>(data.data(), n, results.data());
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    return {data.download(), results.download()};
  }

  // What the emulated run says one row leaves in the array, and its result.
  template <typename T>
  static std::pair<std::vector<T>, T> emulated_outcome(const std::vector<T>& x) {
    const auto trace = trace_from(steps_of(emulated(x)), x, threads_for(x.size()), "", false);
    return {kKeepsInput || trace.steps.empty() ? x : trace.steps.back().values, trace.result};
  }

  template <typename T>
  static void sizes_that_matter() {
    const auto seed = reduction::testing::fresh_seed();
    INFO("seed " << seed);
    for (std::size_t n : kSizesThatMatter) {
      INFO("n = " << n);
      const auto x = generate_input<T>(n, seed + n);
      const auto ref = reference_sum(x.data(), n);
      const auto [left, results] = run_kernel(x, 1);
      const auto [emulated_left, emulated_result] = emulated_outcome(x);
      CHECK_MATCHES(results[0], ref, tolerance(ref, tree_depth(n)));
      CHECK(same_bits(results, {emulated_result}));
      CHECK(same_bits(left, emulated_left));  // what the kernel leaves in the array, where the emulated run says
    }
  }

  template <typename T>
  static void rows() {
    const auto seed = reduction::testing::fresh_seed();
    INFO("seed " << seed);
    for (const auto& [n, rows] : std::vector<std::pair<std::size_t, std::size_t>>{
             {1, 3}, {13, 3}, {13, 1000}, {1000, 3}, {2047, 100}, {2048, 100}}) {
      INFO("n = " << n << ", rows = " << rows);
      const auto x = generate_input<T>(rows * n, seed + rows * n);
      const auto [left, results] = run_kernel(x, rows);
      CHECK(check_rows(x, n, results).wrong == 0);
      if constexpr (kKeepsInput) CHECK(same_bits(left, x));  // every row's input left as it was
      bool as_alone = true;
      for (std::size_t row : {std::size_t(0), std::min<std::size_t>(1, rows - 1), rows / 2, rows - 1}) {
        const std::vector<T> one(x.begin() + row * n, x.begin() + (row + 1) * n);
        const auto [emulated_left, emulated_result] = emulated_outcome(one);
        as_alone = as_alone && std::memcmp(&results[row], &emulated_result, sizeof(T)) == 0 &&
                   std::memcmp(left.data() + row * n, emulated_left.data(), n * sizeof(T)) == 0;
      }
      CHECK(as_alone);
    }
  }

  static void int_sums_wrap() {
    const std::vector<std::int32_t> x(kMaxElements, std::numeric_limits<std::int32_t>::max());
    const auto ref = reference_sum(x.data(), x.size());
    REQUIRE(ref.wrapped);
    CHECK(run_kernel(x, 1).second[0] == ref.value);
  }

  // The recording of the kernel on the GPU against its emulated run, for each n: the same steps, line
  // for line, and so the same counts (count() reads nothing else) as the program prints them.
  template <typename T>
  static void recording(const std::vector<std::size_t>& sizes) {
    const auto seed = reduction::testing::fresh_seed();
    INFO("seed " << seed);
    for (std::size_t n : sizes) {
      INFO("n = " << n);
      const auto x = generate_input<T>(n, seed + n);
      const Steps recorded = steps_of(record(Kernel::template of<Traced<T>>, x, threads_for(n)));
      REQUIRE(steps_difference(recorded, steps_of(emulated(x))) == "");
    }
  }
};

}  // namespace reduction::single_block::testing
