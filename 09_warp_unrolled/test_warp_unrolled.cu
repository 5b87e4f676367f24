// Chapter 09 on the GPU: every variant against the CPU reference, with the result poisoned before
// each launch; integers exact, floats within the bound of each variant's own order of additions.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/gpu.cuh"
#include "common/program.hpp"
#include "common/reference.hpp"
#include "common/testing/huge.cuh"
#include "common/testing/testing.hpp"
#include "exact_cases.hpp"
#include "harness.cuh"

using namespace reduction;

namespace {

// One launch on a result slot poisoned with something other than `answer`; returns what the kernel wrote.
template <typename T, typename Launch>
T run_once(Launch&& launch, T answer = T(0)) {
  DeviceBuffer<T> result(1);
  result.poison_unlike(answer);
  launch(result.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  return result.download_one();
}

template <typename T>
T run_variant(const Variant<MultiBlockLaunch<T>>& v, const T* input, std::size_t n, int block, DeviceScratch& scratch) {
  return run_once<T>([&](T* result) { v.launch(input, n, result, block, scratch, 0); });
}

// Inputs for max and min too: integers in [-100, 100], floats shifted to [-0.5, 0.5).
template <typename T>
std::vector<T> fresh_input(std::size_t n, std::uint64_t seed) {
  auto data = generate_input<T>(n, seed);
  if constexpr (!std::is_integral_v<T>)
    for (auto& x : data) x -= T(0.5);
  return data;
}

template <typename T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// A launch's result against the reference, within the bound of `depth` additions, and the same bits
// on a second run.
template <typename T, typename Launch>
void check_twice(const Launch& launch, const Reference<T>& ref, std::size_t depth) {
  const T first = run_once<T>(launch, ref.value);
  CHECK_MATCHES(first, ref, tolerance(ref, depth));
  CHECK(same_bits(first, run_once<T>(launch, ref.value)));
}

// Every variant of `Op` on `data` from element `offset` on, at `block`: right, and (floats) the
// same bits on a second run.
template <typename Op, typename T>
void check_registry(const std::vector<T>& data, int block, std::size_t offset = 0) {
  const std::size_t n = data.size() - offset;
  const auto ref = reference_reduce<Op>(data.data() + offset, n);
  DeviceBuffer<T> whole(data);
  const T* input = whole.data() + offset;
  DeviceScratch scratch;
  for (const auto& v : ch09::variants<Op, T>()) {
    if (block < v.min_block) continue;
    INFO("variant " << v.name << ", op " << Op::name << ", n " << n << ", block " << block << ", offset " << offset);
    check_twice<T>([&](T* result) { v.launch(input, n, result, block, scratch, 0); }, ref, v.depth(n, block));
  }
}

}  // namespace

TEMPLATE_TEST_CASE("every variant sums inputs of any size", "[chapter09]", std::int32_t, float, double) {
  using T = TestType;
  const std::size_t n =
      GENERATE(as<std::size_t>{}, 1, 2, 3, 31, 32, 33, 1023, 1024, 1025, 4099, (1 << 20) + 1, (1 << 24) - 1);
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  check_registry<Sum>(fresh_input<T>(n, seed), 256);
}

TEMPLATE_TEST_CASE("every variant at every block size it accepts", "[chapter09]", std::int32_t, float) {
  using T = TestType;
  const std::size_t n = GENERATE(as<std::size_t>{}, 5, 100003);
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  const auto data = fresh_input<T>(n, seed);
  for (int block = 1; block <= 1024; block *= 2) check_registry<Sum>(data, block);
}

TEMPLATE_TEST_CASE("shuffle, fastest, reproducible and cub take max and min", "[chapter09]", std::int32_t, float, double) {
  using T = TestType;
  const std::size_t n = GENERATE(as<std::size_t>{}, 1, 2, 33, 1025, (1 << 20) + 3);
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  const auto data = fresh_input<T>(n, seed);
  for (const int block : {32, 256, 1024}) {
    check_registry<Max>(data, block);
    check_registry<Min>(data, block);
  }
  CHECK(ch09::variants<Max, T>().size() == 4);  // the four that add only are not offered
}

// Max and min on testing::special_inputs (NaN anywhere, -0 beside +0, infinities), at sizes that
// take each path of fastest: each variant gives the operator's answer, bits included, on both runs.
TEMPLATE_TEST_CASE("shuffle, fastest, reproducible and cub on NaN, -0 and +0, infinities", "[chapter09]", float, double) {
  using T = TestType;
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  const std::size_t tiles = ch09::FastestChoice::kTilesFromBytes / sizeof(T) + 5;
  for (const std::size_t n : {std::size_t(3), std::size_t(1000), std::size_t(50001), std::size_t(300007), tiles})
    for (const auto& input : testing::special_inputs<T>(n, seed)) {
      INFO(input.what);
      check_registry<Max>(input.x, 256);
      check_registry<Min>(input.x, 256);
    }
}

TEMPLATE_TEST_CASE("inputs that do not start on a 16-byte boundary", "[chapter09]", std::int32_t, float, double) {
  using T = TestType;
  const std::size_t n = GENERATE(as<std::size_t>{}, 1, 2, 3, 5, 1000, 100001);
  const std::size_t offset = GENERATE(as<std::size_t>{}, 1, 2, 3);
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed << ", input starts " << offset << " elements past an aligned address");
  check_registry<Sum>(fresh_input<T>(n + offset, seed), 256, offset);
}

// Every combination of fastest's knobs must be right, not only FastestChoice's.
template <typename T, bool kWide, int kLoads, bool kOnePass, bool kChunked>
void check_fastest_knobs() {
  const auto seed = testing::fresh_seed();
  for (std::size_t n : {std::size_t(1), std::size_t(3), std::size_t(4099), std::size_t(1 << 20) + 1}) {
    const auto data = fresh_input<T>(n, seed + n);
    const auto ref = reference_sum(data.data(), n);
    DeviceBuffer<T> input(data);
    DeviceScratch scratch;
    for (int block : {32, 256, 1024})
      for (int waves : {1, 4}) {
        INFO("seed " << seed + n << ", n " << n << ", block " << block << ", waves " << waves << ", wide " << kWide
                     << ", loads " << kLoads << ", one pass " << kOnePass << ", chunked " << kChunked);
        const int grid = ch09::fastest_grid<Sum, T, kWide, kLoads, kOnePass, kChunked>(n, block, waves);
        const T r = run_once<T>([&](T* result) {
          ch09::launch_fastest_grid<Sum, T, kWide, kLoads, kOnePass, kChunked>(input.data(), n, result, block, grid,
                                                                               scratch, 0);
        });
        CHECK_MATCHES(r, ref, tolerance(ref, ch09::grid_path_depth<T, kWide>(n, block, grid)));
      }
  }
}

TEMPLATE_TEST_CASE("every knob of fastest", "[chapter09]", std::int32_t, float) {
  using T = TestType;
  check_fastest_knobs<T, false, 1, false, false>();
  check_fastest_knobs<T, true, 1, false, false>();
  check_fastest_knobs<T, true, 2, true, false>();
  check_fastest_knobs<T, true, 4, true, false>();
  check_fastest_knobs<T, true, 8, false, true>();
  check_fastest_knobs<T, true, 4, true, true>();
  check_fastest_knobs<T, false, 1, true, true>();
}

TEST_CASE("one-pass fastest stays right as its grid changes from launch to launch", "[chapter09]") {
  // The block counter must be back at zero after every launch, whatever the grid was: a large grid,
  // the single-block path (no counter) and a mid-size grid of 256-thread blocks, on one scratch, so
  // one counter. The large grid first, so that the scratch does not grow (and move) after it.
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  const std::size_t sizes[] = {1 << 22, 100, 50001};
  std::vector<std::int32_t> sums;
  std::vector<DeviceBuffer<std::int32_t>> inputs;
  for (const std::size_t n : sizes) {
    const auto data = fresh_input<std::int32_t>(n, seed + n);
    sums.push_back(reference_sum(data.data(), n).value);
    inputs.emplace_back(data);
  }
  REQUIRE_FALSE(ch09::fastest_plan<Sum, std::int32_t>(sizes[2]).single_block);
  REQUIRE(ch09::fastest_plan<Sum, std::int32_t>(sizes[2]).grid != ch09::fastest_plan<Sum, std::int32_t>(sizes[0]).grid);
  const auto fastest = ch09::variants<Sum, std::int32_t>()[4];
  REQUIRE(std::string(fastest.name) == "fastest");
  DeviceScratch scratch;
  for (int round = 0; round < 10; ++round)
    for (std::size_t i = 0; i < 3; ++i)
      CHECK(run_variant(fastest, inputs[i].data(), sizes[i], round % 2 ? 1024 : 128, scratch) == sums[i]);
}

// Every size at which fastest changes its block or its path, and one either side of it: the
// single-block path's six block sizes (each thread at most 4 vectors), the step to the grid path,
// the step from 256-thread blocks to 1024-thread blocks, and the step to the tile path (16 MiB):
// the plans, and the results at every misalignment of the input, the same bits on a second run.
template <typename Op, typename T>
void check_fastest_at(const std::vector<T>& whole, const DeviceBuffer<T>& input, std::size_t offset, std::size_t n,
                      DeviceScratch& scratch) {
  const auto ref = reference_reduce<Op>(whole.data() + offset, n);
  const auto plan = ch09::fastest_plan<Op, T>(n);
  INFO("op " << Op::name << ", n " << n << ", input " << offset << " elements past an aligned address, "
             << (plan.single_block ? "single block of " : plan.tiles ? "tile path, blocks of " : "grid path, blocks of ") << plan.block);
  const auto launch = [&](T* result) { ch09::launch_fastest<Op, T>(input.data() + offset, n, result, 0, scratch, 0); };
  check_twice<T>(launch, ref, ch09::fastest_depth<Op, T>(n, 0));
}

TEMPLATE_TEST_CASE("fastest at the edges of its paths", "[chapter09]", std::int32_t, float, double) {
  using T = TestType;
  using C = ch09::FastestChoice;
  constexpr std::size_t kCount = 16 / sizeof(T);
  std::vector<std::size_t> sizes = {0, 1};
  for (int threads = C::kSingleBlockMin; threads <= C::kSingleBlockMax; threads *= 2) {
    const std::size_t most = std::size_t(threads) * C::kLoadsInFlight * kCount;  // the most one block of them takes
    CHECK(ch09::single_block_threads<T>(most) == threads);
    CHECK(ch09::single_block_threads<T>(most + 1) == (threads < C::kSingleBlockMax ? 2 * threads : 0));
    for (std::size_t n : {most - 1, most, most + 1}) sizes.push_back(n);
  }
  const std::size_t sms = ch08::multiprocessors();
  const std::size_t mid_most =
      std::size_t(C::kMidBlock) * C::kLoadsInFlight * kCount * C::kMidBlocksPerMultiprocessor * sms;
  const auto mid = ch09::fastest_plan<Sum, T>(mid_most), large = ch09::fastest_plan<Sum, T>(mid_most + 1);
  CHECK(mid.block == C::kMidBlock);
  CHECK(std::size_t(mid.grid) == C::kMidBlocksPerMultiprocessor * sms);
  CHECK(large.block == C::kBlock);
  CHECK(std::size_t(large.grid) >= sms);
  // The tile path, from kTilesFromBytes: one wave of 1024-thread blocks below, a block per tile from there.
  const std::size_t first_tiles = C::kTilesFromBytes / sizeof(T);
  const std::size_t round = std::size_t(C::kBlock) * C::kLoadsInFlight * kCount;
  const int resident = ch08::resident_blocks(
      ch09::fastest_kernel<Sum, T, C::kWide, C::kLoadsInFlight, C::kOnePass, C::kChunked>, C::kBlock, 0);
  const auto below = ch09::fastest_plan<Sum, T>(first_tiles - 1), at = ch09::fastest_plan<Sum, T>(first_tiles);
  CHECK(!below.tiles);
  CHECK(below.block == C::kBlock);
  CHECK(below.grid == std::min<std::size_t>(resident, (first_tiles - 1 + round - 1) / round));
  CHECK(at.tiles);
  CHECK(at.block == C::kBlock);
  CHECK(std::size_t(at.grid) == (first_tiles + round - 1) / round);
  // Max and min turn there too; of doubles, to tiles of two rounds (ch09::tile_rounds).
  const std::size_t tile = (sizeof(T) < 8 ? 1 : 2) * round;
  for (const auto& plan : {ch09::fastest_plan<Max, T>(first_tiles - 1), ch09::fastest_plan<Min, T>(first_tiles - 1)})
    CHECK(!plan.tiles);
  for (const auto& plan : {ch09::fastest_plan<Max, T>(first_tiles), ch09::fastest_plan<Min, T>(first_tiles)}) {
    CHECK(plan.tiles);
    CHECK(plan.rounds == (sizeof(T) < 8 ? 1 : 2));
    CHECK(std::size_t(plan.grid) == (first_tiles + tile - 1) / tile);
  }
  const std::size_t odd = first_tiles + 12345;  // not a whole vector, nor a whole tile
  for (std::size_t n : {mid_most, mid_most + 1, first_tiles - 1, first_tiles, odd}) sizes.push_back(n);
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  const auto whole = fresh_input<T>(odd + kCount, seed);
  const DeviceBuffer<T> input(whole);
  DeviceScratch scratch;
  for (const std::size_t n : sizes)
    for (std::size_t offset = 0; offset < kCount; ++offset) {
      if (n > (1u << 16) && offset > 1) continue;  // the large sizes at two alignments are enough
      check_fastest_at<Sum>(whole, input, offset, n, scratch);
      check_fastest_at<Max>(whole, input, offset, n, scratch);
      check_fastest_at<Min>(whole, input, offset, n, scratch);
    }
}

// The tile path's words, kept beside the scratch: words_kernel sets them back to zero for the next
// call. int, float and double sums take turns on one scratch, at sizes that are not whole tiles: a
// word left over from one call would be added into the next. Float sums also through the fold, as
// max and min finish, so that either finish stays correct. Then the specials, which the words count
// apart: a NaN anywhere gives a NaN, +infinity and -infinity a NaN together and themselves alone.
template <typename T, bool kToWords>
auto tile_launch(const DeviceBuffer<T>& input, std::size_t n, DeviceScratch& scratch) {
  using C = ch09::FastestChoice;
  const auto plan = ch09::fastest_plan<Sum, T>(n);
  REQUIRE(plan.tiles);
  // A sum's plan ends in the words and has no fold block: the fold's threads for its tiles, as for max.
  const int fold_block = ch09::fold_threads<T>(unsigned(plan.grid), plan.block);
  return [&input, n, &scratch, plan, fold_block](T* result) {
    ch09::launch_fastest_tiles<Sum, T, C::kLoadsInFlight, kToWords>(input.data(), n, result, plan.block, plan.grid,
                                                                    plan.rounds, fold_block, scratch, 0);
  };
}

template <typename T>
void check_tile_sum(const std::vector<T>& data, DeviceScratch& scratch) {
  const DeviceBuffer<T> input(data);
  const std::size_t n = data.size();
  const auto ref = reference_sum(data.data(), n);
  check_twice<T>([&](T* result) { ch09::launch_fastest<Sum, T>(input.data(), n, result, 0, scratch, 0); }, ref,
                 ch09::fastest_depth<Sum, T>(n, 0));
  if constexpr (!std::is_integral_v<T>) {  // a float or double sum through the fold too (fastest's is the words)
    static_assert(ch09::tiles_to_words<Sum, T>(), "fastest's own launch above is the words'");
    const auto plan = ch09::fastest_plan<Sum, T>(n);
    const int fold_block = ch09::fold_threads<T>(unsigned(plan.grid), plan.block);
    check_twice<T>(tile_launch<T, false>(input, n, scratch), ref,
                   ch09::grid_path_depth<T, ch09::FastestChoice::kWide>(n, plan.block, plan.grid, fold_block));
  }
}

TEST_CASE("fastest's tile path: the sum words back at zero after every call, NaN and infinities", "[chapter09]") {
  using C = ch09::FastestChoice;
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  const auto ints = fresh_input<std::int32_t>(C::kTilesFromBytes / 4 + 4321, seed);
  const auto floats = fresh_input<float>(C::kTilesFromBytes / 4 + 999, seed + 1);
  const auto doubles = fresh_input<double>(C::kTilesFromBytes / 8 + 77, seed + 2);
  DeviceScratch scratch;
  for (int round = 0; round < 3; ++round) {
    check_tile_sum(doubles, scratch);
    check_tile_sum(ints, scratch);
    check_tile_sum(floats, scratch);
  }
  const double inf = std::numeric_limits<double>::infinity();
  auto specials = doubles;
  const auto both_ways = [&](const std::vector<double>& data, auto&& expect) {
    const DeviceBuffer<double> input(data);
    expect(run_once<double>(tile_launch<double, false>(input, data.size(), scratch)));  // the fold
    expect(run_once<double>(tile_launch<double, true>(input, data.size(), scratch)));   // the words
  };
  specials[12345] = std::nan("");
  both_ways(specials, [](double x) { CHECK(std::isnan(x)); });
  specials[12345] = inf;
  both_ways(specials, [&](double x) { CHECK(x == inf); });
  specials[specials.size() - 1] = -inf;
  both_ways(specials, [](double x) { CHECK(std::isnan(x)); });
  specials[12345] = 1.0;
  both_ways(specials, [&](double x) { CHECK(x == -inf); });
  check_tile_sum(doubles, scratch);  // and the words at zero after the specials
}

// fastest from several streams and host threads at once, each call with its own scratch and
// result, as its launcher asks.
class ConcurrentJob {
 public:
  virtual ~ConcurrentJob() = default;
  virtual void launch(int round, cudaStream_t stream) = 0;
  virtual void poison() = 0;
  // Every round's result against the reference; floats also the same bits in every round, and
  // the same as in the previous check, if any.
  virtual void check(int rounds) = 0;
};

template <typename Op, typename T>
class Job : public ConcurrentJob {
 public:
  Job(std::size_t n, std::uint64_t seed, int rounds) : Job(fresh_input<T>(n, seed), rounds) {}
  Job(const std::vector<T>& data, int rounds)
      : n_(data.size()), ref_(reference_reduce<Op>(data.data(), n_)), input_(data), results_(rounds) {}
  void launch(int round, cudaStream_t stream) override {
    ch09::launch_fastest<Op, T>(input_.data(), n_, results_.data() + round, 0, scratch_, stream);
  }
  void poison() override { results_.poison(); }
  void check(int rounds) override {
    const auto results = results_.download();
    const long double tol = tolerance(ref_, ch09::fastest_depth<Op, T>(n_, 0));
    for (int r = 0; r < rounds; ++r) {
      INFO("op " << Op::name << ", n " << n_ << ", type " << type_name(data_type_of<T>()) << ", round " << r);
      CHECK_MATCHES(results[r], ref_, tol);
      CHECK(same_bits(results[r], results[0]));
      if (!previous_.empty()) CHECK(same_bits(results[r], previous_[0]));
    }
    previous_ = results;
  }

 private:
  std::size_t n_;
  Reference<T> ref_;
  DeviceBuffer<T> input_;
  DeviceBuffer<T> results_;
  DeviceScratch scratch_;
  std::vector<T> previous_;
};

TEST_CASE("fastest on several streams and host threads at once", "[chapter09]") {
  constexpr int kRounds = 8, kThreads = 4;
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  // Both paths, mid-size and large grids, every type and operator.
  std::vector<std::unique_ptr<ConcurrentJob>> jobs;
  jobs.push_back(std::make_unique<Job<Sum, std::int32_t>>(3000, seed + 1, kRounds));
  jobs.push_back(std::make_unique<Job<Sum, float>>(50003, seed + 2, kRounds));
  jobs.push_back(std::make_unique<Job<Sum, double>>((1 << 20) + 1, seed + 3, kRounds));
  jobs.push_back(std::make_unique<Job<Max, std::int32_t>>((1 << 18) + 5, seed + 4, kRounds));
  jobs.push_back(std::make_unique<Job<Min, float>>(1000, seed + 5, kRounds));
  jobs.push_back(std::make_unique<Job<Sum, float>>((1 << 22) + 7, seed + 6, kRounds));
  jobs.push_back(std::make_unique<Job<Max, double>>(77777, seed + 7, kRounds));
  jobs.push_back(std::make_unique<Job<Sum, std::int32_t>>(1 << 16, seed + 8, kRounds));
  jobs.push_back(std::make_unique<Job<Min, std::int32_t>>((1 << 23) + 1, seed + 9, kRounds));
  jobs.push_back(std::make_unique<Job<Sum, float>>(100, seed + 10, kRounds));

  // First from one host thread, every round queued before any is waited for; then from several
  // host threads. A stream per reduction. Twice each: the second pass, and the other way of running
  // them, must give the same bits.
  const auto twice = [&](const std::string& how, const auto& launch_all) {
    for (int pass = 0; pass < 2; ++pass) {
      INFO(how << ", pass " << pass);
      for (auto& job : jobs) job->poison();
      CUDA_CHECK(cudaDeviceSynchronize());
      launch_all();
      CUDA_CHECK(cudaDeviceSynchronize());
      for (auto& job : jobs) job->check(kRounds);
    }
  };
  std::vector<cudaStream_t> streams(jobs.size());
  for (auto& s : streams) CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  twice("one host thread", [&] {
    for (int round = 0; round < kRounds; ++round)
      for (std::size_t j = 0; j < jobs.size(); ++j) jobs[j]->launch(round, streams[j]);
  });
  twice(std::to_string(kThreads) + " host threads", [&] {  // a failure on any thread is rethrown here
    parallel_chunks(kThreads, kThreads, [&](std::size_t, std::size_t, unsigned t) {  // jobs t, t + kThreads, ...
      for (int round = 0; round < kRounds; ++round)
        for (std::size_t j = t; j < jobs.size(); j += kThreads) jobs[j]->launch(round, streams[j]);
      for (std::size_t j = t; j < jobs.size(); j += kThreads) CUDA_CHECK(cudaStreamSynchronize(streams[j]));
    });
  });
  for (auto& s : streams) CUDA_CHECK(cudaStreamDestroy(s));
}

TEMPLATE_TEST_CASE("float results are the same bits run after run", "[chapter09]", float, double) {
  using T = TestType;
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = (1 << 22) + 17;
  const auto data = fresh_input<T>(n, seed);
  DeviceBuffer<T> input(data);
  DeviceScratch scratch;
  for (const auto& v : ch09::variants<Sum, T>()) {
    INFO("variant " << v.name);
    const T first = run_variant(v, input.data(), n, 256, scratch);
    bool all_same = true;
    for (int run = 0; run < 20; ++run)
      all_same = all_same && same_bits(first, run_variant(v, input.data(), n, 256, scratch));
    CHECK(all_same);
  }
}

// fastest's grid path as GPUs of 16 to 144 multiprocessors would launch it; reproducible, which chooses
// from n alone: the same bits on every run and, from 16 MiB, fastest's own (the same tile path).
TEMPLATE_TEST_CASE("determinism: fastest's bits follow the GPU's size below 16 MiB, reproducible's do not",
                   "[chapter09]", float, double) {
  using T = TestType;
  using C = ch09::FastestChoice;
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  DeviceScratch scratch;
  int sizes_that_differ = 0;
  const std::size_t sizes[] = {100003, (1 << 20) + 3, 2000003};
  for (const std::size_t n : sizes) {
    INFO("n " << n);
    const auto data = fresh_input<T>(n, seed + n);
    const auto ref = reference_sum(data.data(), n);
    DeviceBuffer<T> input(data);
    std::vector<T> by_gpu_size;
    for (const int multiprocessors : {16, 66, 108, 114, 132, 144}) {
      const ch09::FastestPlan plan = ch09::fastest_grid_plan<Sum, T>(n, multiprocessors);
      REQUIRE_FALSE(plan.tiles);
      by_gpu_size.push_back(run_once<T>([&](T* result) {
        ch09::launch_fastest_grid<Sum, T, C::kWide, C::kLoadsInFlight, C::kOnePass, C::kChunked>(
            input.data(), n, result, plan.block, plan.grid, scratch, 0);
      }));
      CHECK_MATCHES(by_gpu_size.back(), ref,
                    tolerance(ref, ch09::grid_path_depth<T, C::kWide>(n, plan.block, plan.grid)));
    }
    sizes_that_differ +=
        std::any_of(by_gpu_size.begin(), by_gpu_size.end(), [&](T x) { return !same_bits(x, by_gpu_size.front()); });
    const auto reproducible = [&](T* r) { ch09::launch_reproducible<Sum, T>(input.data(), n, r, 0, scratch, 0); };
    const T first = run_once<T>(reproducible);
    CHECK_MATCHES(first, ref, tolerance(ref, ch09::reproducible_depth<Sum, T>(n, 0)));
    for (int run = 0; run < 5; ++run) CHECK(same_bits(first, run_once<T>(reproducible)));
  }
  // Three sizes, six grids each, all the same bits would be a coincidence. (The lesson's claim: a
  // failure means fastest's grid path no longer depends on the GPU, and the README must say so.)
  CHECK(sizes_that_differ > 0);
  // From 16 MiB fastest takes the same tiles, so the same bits.
  const std::size_t large = C::kTilesFromBytes / sizeof(T) + 5;
  const auto data = fresh_input<T>(large, seed);
  DeviceBuffer<T> input(data);
  const T tiles = run_once<T>([&](T* r) { ch09::launch_fastest<Sum, T>(input.data(), large, r, 0, scratch, 0); });
  CHECK(same_bits(tiles, run_once<T>([&](T* r) { ch09::launch_reproducible<Sum, T>(input.data(), large, r, 0, scratch, 0); })));
}

// Inputs made to break a sum that is not exact (exact_cases.hpp), each scattered over 2^20 zeros (some
// of them -0), so that its elements meet in different blocks. Then one block, each thread past 2^14
// elements of one window (where a float's double register must go to the shared words first), of
// both signs: the sum cancels down to its last bits.
TEMPLATE_TEST_CASE("exact: the exact sum rounded once, bit for bit, on inputs made to break it", "[chapter09]", float,
                   double) {
  using T = TestType;
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  DeviceScratch scratch;
  for (const auto& [what, values] : ch09::exact_breaking_cases<T>(rng)) {
    std::vector<T> data((1 << 20) + 7, T(0));
    for (std::size_t i = 0; i < data.size(); i += 3) data[i] = -T(0);
    for (const T v : values) data[rng() % data.size()] = v;  // a collision only changes the case
    DeviceBuffer<T> input(data);
    for (const std::size_t offset : {0, 1}) {  // from a 16-byte boundary, and past it
      const T want = ch09::exact_total(data.data() + offset, data.size() - offset);
      INFO(what << ", from element " << offset << ": the exact sum rounded once is " << want);
      const T got = run_once<T>([&](T* r) {
        ch09::launch_exact<Sum, T>(input.data() + offset, data.size() - offset, r, 0, scratch, 0);
      });
      CHECK((std::isnan(want) ? std::isnan(got) : same_bits(got, want)));
    }
  }
  std::vector<T> data(256 * ((1 << 14) + 3000));
  for (auto& x : data) x = T(0.5 + double(rng() >> 11) * 0x1.0p-52) * (rng() % 2 ? 1 : -1);
  DeviceBuffer<T> input(data);
  INFO("one block, each thread's register emptied many times");
  const T got = run_once<T>([&](T* result) {
    long long* words = ch09::kept_beside(scratch.get_as<T>(1), 0).sum_words;
    ch09::exact_kernel<T, 256><<<1, 256>>>(input.data(), data.size(), words);
    ch09::words_kernel<T><<<1, 32>>>(words, result);
    CUDA_CHECK_LAUNCH();
  });
  CHECK(same_bits(got, ch09::exact_total(data.data(), data.size())));
}

TEST_CASE("the unrolled dispatch takes exactly the powers of two from 1 to 1024", "[chapter09]") {
  DeviceScratch scratch;
  DeviceBuffer<std::int32_t> input(std::vector<std::int32_t>{1, 2, 3});
  DeviceBuffer<std::int32_t> result(1);
  for (int block : {0, 3, 48, 2048})
    CHECK_THROWS_AS(ch09::launch_unrolled(input.data(), 3, result.data(), block, scratch, 0), std::invalid_argument);
}

TEST_CASE("every variant on 2^32 + 3 ints, past where a 32-bit index wraps; max and min too", "[chapter09][huge]") {
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  DeviceBuffer<std::int32_t> input = testing::huge_random_ints(seed);
  if (!input.size()) return;
  const std::size_t n = input.size();
  // The one maximum (the last element) and the one minimum (at 2^32 + 1), both past 2^32 and at
  // different places (the elements are in [-100, 100]): only a kernel that reaches them finds them.
  // The sum takes them in place of the elements they replace.
  std::uint64_t sum = testing::streamed_int_sum(seed);
  for (const auto& [i, value] :
       {std::pair<std::size_t, std::int32_t>{n - 1, 1000}, {(std::size_t(1) << 32) + 1, -1000}}) {
    CUDA_CHECK(cudaMemcpy(input.data() + i, &value, sizeof value, cudaMemcpyHostToDevice));
    sum += std::uint64_t(std::int64_t(value)) -
           std::uint64_t(std::int64_t(random_element<std::int32_t>(seed, i, Distribution::Default)));
  }
  const auto wrapped = std::int32_t(std::uint32_t(sum));  // as the GPU's 32-bit adds wrap
  DeviceScratch scratch;
  const auto check_every_variant = [&](auto op, int block, std::int32_t answer) {
    for (const auto& v : ch09::variants<decltype(op), std::int32_t>()) {
      INFO("variant " << v.name << " (" << decltype(op)::name << ")");
      CHECK(run_variant(v, input.data(), n, block, scratch) == answer);
    }
  };
  check_every_variant(Sum{}, 256, wrapped);
  check_every_variant(Max{}, 1024, 1000);
  check_every_variant(Min{}, 1024, -1000);
}
