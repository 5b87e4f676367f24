// CPU tests of chapter 04's analysis: what the convergent kernel's threads do, from the kernel's
// own source run on the CPU emulator (emulated.cpp), and the execution-resource and memory counts
// and the trace computed from it, held against the figures of the README.
#include <cstdint>
#include <vector>

#include "emulator/block_testing.hpp"
#include "common/program.hpp"
#include "analysis.hpp"

using namespace reduction;
namespace sb = reduction::single_block;
using sb::testing::column;

// The kernel's accesses on x on the CPU emulator: no finding, and the chapter's pattern.
template <typename T>
std::vector<sb::Access> emulated(const std::vector<T>& x) {
  return sb::testing::emulated(x, &ch04::kPattern);
}

// The counts of the kernel's run on n elements of element_bytes, and its trace of an input.
sb::BlockCounts counts(std::size_t n, std::size_t element_bytes = 4) {
  return sb::testing::counts_of(&emulated<std::int32_t>, n, element_bytes);
}
template <typename T>
sb::Trace<T> trace(const std::vector<T>& x) {
  return sb::trace_from(sb::steps_of(emulated(x)), x, sb::threads_for(x.size()), ch04::kLayout, false);
}

// The strides (halving from the block size) are checked on every emulated run, by kPattern.
TEST_CASE("the kernel at n = 1024: 1023 additions in 1152 thread slots", "[chapter04]") {
  // Whole warps drop out while the active threads fill them; the last warp then stays for five steps.
  sb::testing::check_thread_use(counts(1024), {512, {16, 8, 4, 2, 1, 1, 1, 1, 1, 1}, 1023, 36, 1152});
  CHECK(column(counts(1024), &sb::StepCounts::active_threads) ==
        std::vector<std::size_t>{512, 256, 128, 64, 32, 16, 8, 4, 2, 1});
  CHECK(ch04::text_closed_form(1024).thread_slots == 1152);
}

TEST_CASE("the kernel at n = 256: 255 additions in 384 thread slots", "[chapter04]") {
  sb::testing::check_thread_use(counts(256), {128, {4, 2, 1, 1, 1, 1, 1, 1}, 255, 12, 384});
  CHECK(ch04::text_closed_form(256).thread_slots == 384);
  CHECK_FALSE(ch04::text_closed_form(1000).thread_slots);
}

TEST_CASE("n = 600: an addition whose operands are both inputs still belongs to its stride's step", "[chapter04]") {
  // 512 threads. Stride 512: threads 0-87 add (t + 512 < 600). Stride 256: threads 0-255 add, and
  // those from 88 on add two elements no step has written yet (level 1, as in the first step): the
  // step is found by its stride, 256, not by the level of what it writes.
  const auto c = counts(600);
  CHECK(column(c, &sb::StepCounts::stride) == std::vector<unsigned>{512, 256, 128, 64, 32, 16, 8, 4, 2, 1});
  CHECK(column(c, &sb::StepCounts::active_threads) == std::vector<std::size_t>{88, 256, 128, 64, 32, 16, 8, 4, 2, 1});
  CHECK(column(c, &sb::StepCounts::active_warps) == std::vector<std::size_t>{3, 8, 4, 2, 1, 1, 1, 1, 1, 1});
}

TEST_CASE("memory: adjacent threads, adjacent addresses, every fetched byte used while warps are full", "[chapter04]") {
  // Thread t owns element t. At stride s the active threads are 0 to s - 1; every active warp makes
  // three requests a step (load data[owner], load data[partner] = data[owner + s], store data[owner]).
  SECTION("int at n = 1024: 32 adjacent 4-byte elements are 128 bytes, four sectors") {
    // Strides 512 to 32: a full warp, owners 32w to 32w + 31, four sectors, and partners likewise
    // (s is a multiple of 32). Stride 16: owners 0-15, 64 bytes, two sectors (partners 16-31, two).
    // Stride 8: owners 0-7, 32 bytes, one sector. Strides 4, 2, 1: 16, 8, 4 bytes, one sector.
    // Requests: three for each of the 36 warp-steps, and the result. Sectors: 3 x 4 for each of the
    // 16 + 8 + 4 + 2 + 1 warp-steps of strides 512 to 32, 3 x 2 at stride 16, 3 x 1 at strides 8,
    // 4, 2 and 1, and the result's two. Every byte of every sector used, until the last warp has
    // fewer than 8 active threads: stride 4 uses 16 bytes of its sector, stride 2 uses 8, stride 1 uses 4.
    const auto c = counts(1024, 4);
    sb::testing::check_memory(c, {{4, 4, 4, 4, 4, 2, 1, 1, 1, 1},
                                  3 * 36 + 2,
                                  12 * (16 + 8 + 4 + 2 + 1) + 6 + 4 * 3 + 2,
                                  2 * 1023 + 1,
                                  1023 + 1});
    CHECK(sb::testing::used_per_step(c) == std::vector<double>{1, 1, 1, 1, 1, 1, 1, 0.5, 0.25, 0.125});
  }
  SECTION("double at n = 1024: 32 adjacent 8-byte elements are 256 bytes, eight sectors, one request") {
    // Strides 512 to 32: 256 bytes, 8 sectors. Stride 16: 128 bytes, 4; 8: 64 bytes, 2; 4, 2, 1: 1.
    sb::testing::check_memory(
        counts(1024, 8),
        {{8, 8, 8, 8, 8, 4, 2, 1, 1, 1}, 3 * 36 + 2, 24 * (16 + 8 + 4 + 2 + 1) + 12 + 6 + 3 * 3 + 2, 2047, 1024});
  }
  SECTION("n = 1000: the guard leaves warp 15 with 8 active threads in the first step") {
    const auto c = counts(1000, 4);
    REQUIRE(c.steps.front().stride == 512);
    CHECK(c.steps.front().active_threads == 488);  // t + 512 < 1000
    CHECK(c.steps.front().active_warps == 16);
    // Warp 15's active threads 480-487 own elements 480-487, bytes 1920-1951: one sector, and
    // their partners 992-999, bytes 3968-3999: one sector (3968 = 124 x 32). The other 15 warps: 4.
    CHECK(c.steps.front().min_request_sectors == 1);
    CHECK(c.steps.front().sectors == 15 * 12 + 3);
    CHECK(c.reads == 2 * 999 + 1);
    CHECK(c.writes == 999 + 1);
  }
}

TEST_CASE("for every swept n: n - 1 additions, every operand inside the array, and no step races", "[chapter04]") {
  sb::testing::check_every_n_adds_inside_without_races(&emulated<std::int32_t>);
}

TEST_CASE("the trace of 3 1 7 0 4 1 6 3: the partial sums gather at the front", "[chapter04]") {
  sb::testing::check_trace(trace(std::vector<int>{3, 1, 7, 0, 4, 1, 6, 3}), 4,
                           {{{0, 1, 2, 3}, {7, 2, 13, 3, 4, 1, 6, 3}},
                            {{0, 1}, {20, 5, 13, 3, 4, 1, 6, 3}},
                            {{0}, {25, 5, 13, 3, 4, 1, 6, 3}}});
}

TEST_CASE("the trace of 1 2 3 4 5: the guard skips the partners past the end", "[chapter04]") {
  // In step 1, thread 1's partner would be element 5. In step 2 thread 1 adds elements 1 and 3,
  // which no step has written: found in step 2 by its stride all the same.
  sb::testing::check_trace(trace(std::vector<int>{1, 2, 3, 4, 5}), 4,
                           {{{0}, {6, 2, 3, 4, 5}}, {{0, 1}, {9, 6, 3, 4, 5}}, {{0}, {15, 6, 3, 4, 5}}});
}

TEST_CASE("the trace of one element adds nothing", "[chapter04]") {
  const auto one = trace(std::vector<float>{2.5f});
  CHECK(one.steps.empty());
  CHECK(one.result == 2.5f);
  CHECK(counts(1, 4).thread_slots == 0);
}

TEST_CASE("the trace sums every small input exactly (int)", "[chapter04]") {
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  for (std::size_t n = 1; n <= sb::kMaxTraceElements; ++n) {
    INFO("n = " << n);
    const auto x = generate_input<std::int32_t>(n, seed);
    CHECK(trace(x).result == reference_sum(x.data(), n).value);
  }
}
