// CPU tests of chapter 05's analysis: what the shared-memory kernel's threads do, from the kernel's
// own source run on the CPU emulator (emulated.cpp), and the global-memory counts and the trace
// computed from it, held against the figures of the README.
#include <cstdint>
#include <string>
#include <vector>

#include "emulator/block_testing.hpp"
#include "common/program.hpp"
#include "analysis.hpp"

using namespace reduction;
namespace sb = reduction::single_block;

// The kernel's accesses on x on the CPU emulator: no finding, and the chapter's pattern.
template <typename T>
std::vector<sb::Access> emulated(const std::vector<T>& x) {
  return sb::testing::emulated(x, &ch05::kPattern);
}

// The counts of the kernel's run on n elements of element_bytes, and its trace of an input.
sb::BlockCounts counts(std::size_t n, std::size_t element_bytes = 4) {
  return sb::testing::counts_of(&emulated<std::int32_t>, n, element_bytes);
}
template <typename T>
sb::Trace<T> trace(const std::vector<T>& x) {
  const unsigned threads = sb::threads_for(x.size());
  return sb::trace_from(sb::steps_of(emulated(x)), x, threads, ch05::layout(threads), false);
}

TEST_CASE("the steps: the first on the way in, the others in shared memory", "[chapter05]") {
  auto step_names = [](const sb::BlockCounts& c) {
    std::vector<std::string> names;
    for (const auto& s : c.steps) names.push_back(s.name);
    return names;
  };
  CHECK(step_names(counts(1024)) == std::vector<std::string>{"load, stride 512", "stride 256", "stride 128",
                                                             "stride 64", "stride 32", "stride 16", "stride 8",
                                                             "stride 4", "stride 2", "stride 1", "result"});
  CHECK(step_names(counts(2)) == std::vector<std::string>{"load, stride 1", "result"});
  CHECK(step_names(counts(1)) == std::vector<std::string>{"load", "result"});  // a copy, no addition
}

TEST_CASE("memory at n = 1024: each element read once, one write", "[chapter05]") {
  // 512 threads, 16 warps. Two load requests per warp (data[t] and data[t + 512]: 32 adjacent
  // elements each) and one store request, thread 0's store of the result: 16 + 16 + 1 = 33.
  SECTION("int: 32 adjacent ints, 128 bytes, four sectors per load") {
    const auto c = counts(1024, 4);
    sb::testing::check_memory(c, {{4, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 16 + 16 + 1, 4 * (16 + 16) + 1, 1024, 1});
    // 4100 bytes used (1025 elements) of 129 x 32 = 4128: only the result's sector is mostly unused.
    CHECK(sb::used_fraction(c.reads, c.writes, c.sectors, 4) == 4100.0 / 4128.0);
    CHECK(c.ops == 1023);
  }
  SECTION("double: 32 adjacent doubles, 256 bytes, eight sectors per load, still one request") {
    sb::testing::check_memory(counts(1024, 8),
                              {{8, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 16 + 16 + 1, 8 * (16 + 16) + 1, 1024, 1});
  }
  SECTION("n = 1000: the guard skips the 24 partners past the end") {
    const auto c = counts(1000, 4);
    CHECK(c.steps.front().active_threads == 488);
    // Warp 15 still loads 8 partners, elements 992-999, bytes 3968-3999: one sector (3968 = 124 x 32).
    sb::testing::check_memory(c, {{4, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 16 + 16 + 1, 4 * 16 + (4 * 15 + 1) + 1, 1000, 1});
  }
}

TEST_CASE("for every swept n: each element read once, n - 1 additions, no step races", "[chapter05]") {
  sb::testing::check_every_n_adds_inside_without_races(&emulated<std::int32_t>);
  for (std::size_t n : sb::testing::swept_sizes()) {
    INFO("n = " << n);
    REQUIRE(sb::threads_for(n) <= n);  // every thread has a first element to load
    const auto c = counts(n);
    REQUIRE(c.reads == n);
    REQUIRE(c.writes == 1);
  }
}

TEST_CASE("the trace of 3 1 7 0 4 1 6 3: two elements per thread on the way in", "[chapter05]") {
  sb::testing::check_trace(trace(std::vector<int>{3, 1, 7, 0, 4, 1, 6, 3}), 4,
                           {{{0, 1, 2, 3}, {7, 2, 13, 3}}, {{0, 1}, {20, 5, 13, 3}}, {{0}, {25, 5, 13, 3}}});
  // The values are the block's shared memory; the input, in global memory, is left as it was.
  CHECK(trace(std::vector<int>{3, 1, 7, 0, 4, 1, 6, 3}).input == std::vector<int>{3, 1, 7, 0, 4, 1, 6, 3});
}

TEST_CASE("the trace of 1 2 3 4 5: threads without a partner load one element", "[chapter05]") {
  const auto tr = trace(std::vector<int>{1, 2, 3, 4, 5});
  sb::testing::check_trace(tr, 4, {{{0}, {6, 2, 3, 4}}, {{0, 1}, {9, 6, 3, 4}}, {{0}, {15, 6, 3, 4}}});
  CHECK(tr.steps[0].actions.size() == 4);  // every thread loads
  CHECK(tr.steps[0].actions[1].second == "partial[1] = data[1]");
}

TEST_CASE("the trace of one element: one load, no addition", "[chapter05]") {
  const auto one = trace(std::vector<double>{2.5});
  REQUIRE(one.steps.size() == 1);
  CHECK(one.steps[0].active.empty());
  CHECK(one.result == 2.5);
  const auto c = counts(1, 8);
  CHECK(c.reads == 1);
  CHECK(c.writes == 1);
}

TEST_CASE("the trace sums every small input exactly (int)", "[chapter05]") {
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  for (std::size_t n = 1; n <= sb::kMaxTraceElements; ++n) {
    INFO("n = " << n);
    const auto x = generate_input<std::int32_t>(n, seed);
    CHECK(trace(x).result == reference_sum(x.data(), n).value);
  }
}
