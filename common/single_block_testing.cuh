// What the GPU tests of the single-block chapters (03 to 05) share. Each chapter's test file names
// its kernel's registry entry and its model (check_kernel); the checks are the same for all three.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "block_model.hpp"
#include "block_recorder.cuh"
#include "block_trace.hpp"
#include "gpu.cuh"
#include "input.hpp"
#include "reference.hpp"
#include "single_block.hpp"
#include "testing.hpp"
#include "variants.cuh"

namespace reduction::single_block::testing {

template <typename T> bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// Every size from 1 to 2048 that matters, on fresh random input, the result poisoned before each
// launch: the result against the CPU reference, and bit for bit against the model's predicted
// trace. The array left behind must be the trace's last step for a kernel that works in place
// (03, 04), and the untouched input for one that does not (05).
template <typename T, typename TraceFn>
void check_every_size(const Variant<SingleBlockLaunch<T>>& kernel, TraceFn trace, bool in_place) {
  const auto seed = reduction::testing::fresh_seed();
  INFO("seed " << seed);
  DeviceBuffer<T> result(1);
  for (std::size_t n : sizes_to_test()) {
    INFO("n = " << n);
    const auto x = generate_input<T>(n, seed + n);
    const auto ref = reference_sum(x.data(), n);
    DeviceBuffer<T> data(x);
    result.poison();
    kernel.launch(data.data(), 1, n, result.data(), 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    const T r = result.download_one();
    CHECK_MATCHES(r, ref, tolerance(ref, kernel.depth(n, 0)));
    const auto tr = trace(x);
    if (in_place) {
      std::vector<T> expected = x;
      if (!tr.steps.empty()) expected = tr.steps.back().values;
      CHECK(same_bits(data.download(), expected));
    } else {
      CHECK(same_bits(data.download(), x));  // the input is left unchanged
    }
    CHECK(std::memcmp(&r, &tr.result, sizeof(T)) == 0);
  }
}

namespace detail {

// Where two traces differ, in words; empty if they do not (values compared bit for bit).
template <typename T>
std::string trace_difference(const Trace<T>& a, const Trace<T>& b) {
  if (a.threads != b.threads) return "threads";
  if (!same_bits(a.input, b.input)) return "input";
  if (a.steps.size() != b.steps.size())
    return "the number of steps, " + std::to_string(a.steps.size()) + " and " + std::to_string(b.steps.size());
  for (std::size_t i = 0; i < a.steps.size(); ++i) {
    const auto &x = a.steps[i], &y = b.steps[i];
    const std::string step = "step " + std::to_string(i + 1) + " (" + x.name + "): ";
    if (x.name != y.name) return step + "named " + y.name;
    if (x.active != y.active) return step + "active threads";
    if (x.actions != y.actions) return step + "actions";
    if (x.array != y.array) return step + "array";
    if (!same_bits(x.values, y.values)) return step + "values";
    if (x.written != y.written) return step + "written elements";
  }
  if (a.result_from != b.result_from) return "result taken from " + a.result_from + " and " + b.result_from;
  if (std::memcmp(&a.result, &b.result, sizeof(T)) != 0) return "result";
  return "";
}

// Where two sets of counts differ, in words; empty if they do not.
inline std::string counts_difference(const BlockCounts& a, const BlockCounts& b) {
  auto step_fields = [](const StepCounts& s) {
    return std::make_tuple(s.name, s.stride, s.adds, s.active_threads, s.active_warps, s.reads, s.writes, s.requests,
                           s.sectors, s.min_request_sectors, s.max_request_sectors);
  };
  if (a.steps.size() != b.steps.size())
    return "the number of steps, " + std::to_string(a.steps.size()) + " and " + std::to_string(b.steps.size());
  for (std::size_t i = 0; i < a.steps.size(); ++i)
    if (step_fields(a.steps[i]) != step_fields(b.steps[i]))
      return "step " + std::to_string(i + 1) + " (" + a.steps[i].name + ")";
  if (std::make_tuple(a.ops, a.warp_steps, a.thread_slots, a.reads, a.writes, a.requests, a.sectors) !=
      std::make_tuple(b.ops, b.warp_steps, b.thread_slots, b.reads, b.writes, b.requests, b.sectors))
    return "totals";
  return "";
}

}  // namespace detail

// The model against the kernel itself, recorded (`recorded`: the kernel instantiated with
// BlockRecorder). For every n up to 64, the trace drawn from the recording equals the model's
// prediction: the same steps, active threads, operands, values bit for bit, and result. For every
// n up to 2048, the counts from the recording (additions, active warps, warp-steps, thread
// slots, reads, writes, requests and sectors, step by step) equal the model's.
template <typename T, typename Data, typename TraceFn, typename ModelFn>
void check_model_against_recording(void (*recorded)(Data*, std::size_t, T*, BlockRecorder), TraceFn predicted_trace,
                                   ModelFn model) {
  const auto seed = reduction::testing::fresh_seed();
  INFO("seed " << seed);
  for (std::size_t n = 1; n <= kMaxElements; ++n) {
    INFO("n = " << n);
    const auto x = generate_input<T>(n, seed + n);
    const Recording<T> recording = record(recorded, x);
    const unsigned threads = threads_for(n);
    if (n <= kMaxTraceElements) {
      const Trace<T> predicted = predicted_trace(x);
      const Trace<T> traced = trace_from(recording.events, x, threads, predicted.layout, true);
      const std::string difference = detail::trace_difference(predicted, traced);
      INFO("the predicted and the recorded trace differ: " << difference);
      REQUIRE(difference.empty());
    }
    const std::string difference =
        detail::counts_difference(model(n, sizeof(T)), count(recording.events, n, threads, sizeof(T)));
    INFO("the model's counts and the recording's differ: " << difference);
    REQUIRE(difference.empty());
  }
}

// A sum that overflows 32 bits wraps around exactly as the reference's does.
inline void check_int_wraparound(SingleBlockLaunch<std::int32_t> launch) {
  const std::size_t n = kMaxElements;
  const std::vector<std::int32_t> x(n, std::numeric_limits<std::int32_t>::max());
  const auto ref = reference_sum(x.data(), n);
  REQUIRE(ref.wrapped);
  DeviceBuffer<std::int32_t> data(x), result(1);
  result.poison();
  launch(data.data(), 1, n, result.data(), 0);
  CHECK(result.download_one() == ref.value);
}

// n = 0 and n > 2048, no rows, and more rows than a grid has blocks are refused before anything
// is launched.
inline void check_refused_sizes(SingleBlockLaunch<float> launch) {
  DeviceBuffer<float> data(kMaxElements + 1), result(1);
  CHECK_THROWS_AS(launch(data.data(), 1, 0, result.data(), 0), InputError);
  CHECK_THROWS_AS(launch(data.data(), 1, kMaxElements + 1, result.data(), 0), InputError);
  CHECK_THROWS_AS(launch(data.data(), 0, 1, result.data(), 0), InputError);
  CHECK_THROWS_AS(launch(data.data(), kMaxRows + 1, 1, result.data(), 0), InputError);
  CUDA_CHECK(cudaDeviceSynchronize());
}

// Rows: R arrays of n elements one after another, one block each. Every row's result against its
// own reference, and against the same kernel run on that row alone, bit for bit: a row's result
// does not depend on how many rows share the launch. What the launch leaves in the array is what
// the single launches leave in their rows (in place), or the input as it was (otherwise).
template <typename T>
void check_rows(const Variant<SingleBlockLaunch<T>>& kernel, bool in_place) {
  const auto seed = reduction::testing::fresh_seed();
  INFO("seed " << seed);
  const std::vector<std::pair<std::size_t, std::size_t>> shapes = {  // {n, rows}
      {1, 1}, {1, 3}, {13, 3}, {13, 1000}, {64, 1}, {1000, 3}, {2047, 1000}, {2048, 3}, {2048, 1000}};
  for (const auto& [n, rows] : shapes) {
    INFO("n = " << n << ", rows = " << rows);
    const auto x = generate_input<T>(rows * n, seed + rows * n);
    DeviceBuffer<T> data(x), results(rows);
    results.poison();
    kernel.launch(data.data(), rows, n, results.data(), 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<T> batch = results.download(), left_in_batch = data.download();
    DeviceBuffer<T> one_row(n), one_result(1);
    std::vector<T> left_by_single_launches;
    bool same_results = true;
    for (std::size_t row = 0; row < rows; ++row) {
      const std::vector<T> row_data(x.begin() + row * n, x.begin() + (row + 1) * n);
      const auto ref = reference_sum(row_data.data(), n);
      CHECK_MATCHES(batch[row], ref, tolerance(ref, kernel.depth(n, 0)));
      one_row.upload(row_data);
      one_result.poison();
      kernel.launch(one_row.data(), 1, n, one_result.data(), 0);
      CUDA_CHECK(cudaDeviceSynchronize());
      const T alone = one_result.download_one();
      same_results = same_results && std::memcmp(&alone, &batch[row], sizeof(T)) == 0;
      const std::vector<T> left = one_row.download();
      left_by_single_launches.insert(left_by_single_launches.end(), left.begin(), left.end());
    }
    CHECK(same_results);
    CHECK(same_bits(left_in_batch, in_place ? left_by_single_launches : x));
  }
}

// Every check above, for one chapter's kernel (its registry entry, common/single_block_chapter.cuh)
// and its model, in element type T.
template <typename Kernel, typename Model, typename T>
void check_kernel() {
  const auto kernel = Kernel::template variant<T>();
  const auto recorded = Kernel::template recorded<T>();
  const bool in_place = writes_its_input(recorded);
  SECTION("every size from 1 to 2048 that matters") {
    check_every_size(kernel, [](const auto& x) { return Model::trace(x); }, in_place);
  }
  SECTION("the model predicts what the kernel records, for every n") {
    check_model_against_recording(recorded, [](const auto& x) { return Model::trace(x); }, &Model::counts);
  }
  SECTION("rows: every row against its reference, and bit for bit against the row alone") {
    check_rows(kernel, in_place);
  }
  if constexpr (std::is_same_v<T, std::int32_t>) {
    SECTION("int sums wrap around like the reference") { check_int_wraparound(kernel.launch); }
  }
  if constexpr (std::is_same_v<T, float>) {
    SECTION("sizes out of reach are refused before launching") { check_refused_sizes(kernel.launch); }
  }
}

}  // namespace reduction::single_block::testing
