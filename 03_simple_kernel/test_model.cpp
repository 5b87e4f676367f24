// CPU tests of chapter 03's analysis: what the simple kernel's threads do, from the kernel's own
// source run on the CPU emulator (emulated.cpp), and the execution-resource and memory counts and
// the trace computed from it, held against the figures of the README.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "../02_reduction_tree/reduction_tree.hpp"
#include "emulator/block_testing.hpp"
#include "common/program.hpp"
#include "analysis.hpp"

using namespace reduction;
namespace sb = reduction::single_block;
using sb::testing::column;

// The kernel's accesses on x on the CPU emulator: no finding, and the chapter's pattern.
template <typename T>
std::vector<sb::Access> emulated(const std::vector<T>& x) {
  return sb::testing::emulated(x, &ch03::kPattern);
}

// The counts of the kernel's run on n elements of element_bytes, and its trace of an input.
sb::BlockCounts counts(std::size_t n, std::size_t element_bytes = 4) {
  return sb::testing::counts_of(&emulated<std::int32_t>, n, element_bytes);
}
template <typename T>
sb::Trace<T> trace(const std::vector<T>& x) {
  return sb::trace_from(sb::steps_of(emulated(x)), x, sb::threads_for(x.size()), ch03::kLayout, false);
}

// The strides (doubling from 1) are checked on every emulated run, by kPattern.
TEST_CASE("the block: n/2 threads rounded up to a power of two", "[chapter03]") {
  const std::pair<std::size_t, unsigned> threads_for_n[] = {{1, 1},      {2, 1},      {3, 2},       {5, 4},
                                                            {1000, 512}, {1024, 512}, {1025, 1024}, {2048, 1024}};
  for (const auto& [n, threads] : threads_for_n) CHECK(sb::threads_for(n) == threads);
}

TEST_CASE("the kernel at n = 1024: 1023 additions in 3552 thread slots, not the text's 3040", "[chapter03]") {
  // 16 warps. Strides 1 to 32 leave thread 32w of every warp w active (32w is a multiple of the
  // stride): six steps of 16 warps. Then 8, 4, 2, 1 warps. The text counts five steps with every
  // warp active, one fewer than the kernel has: 3040 thread slots.
  sb::testing::check_thread_use(counts(1024), {512, {16, 16, 16, 16, 16, 16, 8, 4, 2, 1}, 1023, 111, 3552});
  CHECK(column(counts(1024), &sb::StepCounts::active_threads) ==
        std::vector<std::size_t>{512, 256, 128, 64, 32, 16, 8, 4, 2, 1});
  CHECK(ch03::text_closed_form(1024).thread_slots == 3040);
}

TEST_CASE("the kernel at n = 256: 255 additions in 864 thread slots, not 736", "[chapter03]") {
  sb::testing::check_thread_use(counts(256), {128, {4, 4, 4, 4, 4, 4, 2, 1}, 255, 27, 864});
  CHECK(ch03::text_closed_form(256).thread_slots == 736);
  CHECK_FALSE(ch03::text_closed_form(1000).thread_slots);  // the text's formula is for powers of two
  CHECK_FALSE(ch03::text_closed_form(32).thread_slots);
}

TEST_CASE("a request's sectors: the aligned 32-byte blocks its threads' addresses fall into", "[chapter03]") {
  // One step of one warp, one load: threads 0 to `threads` - 1 copy elements first, first + spacing,
  // ... of global memory into shared memory (the copy's store to shared memory is no global request).
  struct Case {
    std::size_t element_bytes;
    unsigned threads, first, spacing;
    std::size_t requests, sectors;
    double used;  // the share of the sectors' bytes loaded
  };
  const Case cases[] = {
      {4, 32, 0, 1, 1, 4, 1.0},     // 32 adjacent ints: bytes 0 to 127, four sectors, every byte used
      {4, 32, 0, 8, 1, 32, 0.125},  // 32 ints 8 elements (32 bytes) apart: one sector each, 4 of its 32 bytes used
      {4, 2, 7, 1, 1, 2, 0.125},    // elements 7 and 8: bytes 28-31 and 32-35 lie in two sectors
      {8, 1, 3, 0, 1, 1, 0.25},     // double element 3, bytes 24-31: one sector
      {4, 0, 0, 0, 0, 0, 0.0},      // a warp none of whose threads takes part issues no request
  };
  for (const Case& c : cases) {
    INFO(c.threads << " threads load elements " << c.first << ", " << c.first + c.spacing << ", ...");
    std::vector<sb::Operation> copies(c.threads);
    for (unsigned t = 0; t < c.threads; ++t) {
      copies[t].kind = sb::Operation::kCopy;
      copies[t].thread = t;
      copies[t].target = sb::Array::kPartial;
      copies[t].index = t;
      copies[t].first = c.first + c.spacing * t;
    }
    const auto counts = sb::count_step(copies, c.element_bytes);
    CHECK(counts.requests == c.requests);
    CHECK(counts.sectors == c.sectors);
    if (c.sectors) CHECK(sb::used_fraction(counts.reads, counts.writes, counts.sectors, c.element_bytes) == c.used);
  }
}

TEST_CASE("memory at n = 1024: requests and sectors per step and per launch", "[chapter03]") {
  // 512 threads, 16 warps; warp w holds threads 32w to 32w + 31, which own elements 64w to 64w + 62.
  // Every active warp makes three requests a step (load data[owner], load data[partner], store
  // data[owner]); the store touches the sectors of the owner load, and in these steps the partner
  // load (owners shifted by `stride` elements) touches as many sectors as the owner load.
  SECTION("int: 4 bytes, 8 to a sector") {
    // stride 1: the 32 owners of warp w are 64w, 64w + 2, ..., 64w + 62: 256 bytes, 8 sectors.
    // stride 2: 16 owners 64w + 4k: bytes 256w + 16k, 2 to a sector: 8 sectors.
    // stride 4: 8 owners 64w + 8k: bytes 256w + 32k, one to a sector: 8 sectors.
    // stride 8: 4 owners 64w + 16k, 64 bytes apart: 4 sectors; stride 16: owners 64w and 64w + 32: 2.
    // stride 32 on: one active thread in each active warp: 1 sector.
    // Requests: three for each of the 111 warp-steps, and the result's load and store. Sectors:
    // 16 warps x 3 x (8 + 8 + 8 + 4 + 2 + 1) for strides 1 to 32, then 3 for each of the 8 + 4 + 2
    // + 1 warps of strides 64 to 512, and one each for the result's load and store. Reads and
    // writes follow from the tree: two loads and a store an addition, then the result's.
    const auto c = counts(1024, 4);
    sb::testing::check_memory(c, {{8, 8, 8, 4, 2, 1, 1, 1, 1, 1},
                                  3 * 111 + 2,
                                  16 * 3 * (8 + 8 + 8 + 4 + 2 + 1) + 3 * (8 + 4 + 2 + 1) + 2,
                                  2 * 1023 + 1,
                                  1023 + 1});
    CHECK(column(c, &sb::StepCounts::min_request_sectors) == column(c, &sb::StepCounts::max_request_sectors));
    // Of the sectors' bytes, a thread uses 4: 128 of 256 at stride 1 (half), 64 of 256 at stride 2,
    // then 4 of every 32 (one element per sector).
    CHECK(sb::testing::used_per_step(c) ==
          std::vector<double>{0.5, 0.25, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125});
    // Over the launch: 12284 bytes loaded or stored, in 1488 + 45 + 2 = 1535 sectors of 32 bytes.
    CHECK(sb::used_fraction(c.reads, c.writes, c.sectors, 4) == double(4 * (2047 + 1024)) / double(32 * 1535));
  }
  SECTION("double: 8 bytes, 4 to a sector") {
    // The owners of a warp span 512 bytes, 16 sectors. stride 1: owners 16 bytes apart, two to a
    // sector: 16. stride 2: 32 bytes apart: 16. stride 4: 64 bytes apart: 8. stride 8: 4; stride 16:
    // 2; stride 32 on: 1. Requests do not depend on the element size.
    sb::testing::check_memory(counts(1024, 8), {{16, 16, 8, 4, 2, 1, 1, 1, 1, 1},
                                                3 * 111 + 2,
                                                16 * 3 * (16 + 16 + 8 + 4 + 2 + 1) + 3 * (8 + 4 + 2 + 1) + 2,
                                                2047,
                                                1024});
  }
}

TEST_CASE("for every swept n: n - 1 additions, every operand inside the array, and no step races", "[chapter03]") {
  sb::testing::check_every_n_adds_inside_without_races(&emulated<std::int32_t>);
}

TEST_CASE("a race within a step is seen: a read of what another thread writes, or two writers", "[chapter03]") {
  auto add = [](std::uint32_t thread, std::uint32_t owner, std::uint32_t partner) {
    sb::Operation line;
    line.thread = thread;
    line.index = line.first = owner;
    line.second = partner;
    return line;
  };
  auto one_step = [](std::vector<sb::Operation> lines) { return sb::Steps{{sb::Step{1, std::move(lines)}}, {}}; };
  CHECK_FALSE(sb::testing::step_has_race(one_step({add(0, 0, 1), add(1, 2, 3)})));
  CHECK(sb::testing::step_has_race(
      one_step({add(0, 0, 2), add(1, 2, 3)})));  // thread 0 reads element 2 as thread 1 writes it
  CHECK(sb::testing::step_has_race(one_step({add(0, 0, 1), add(1, 0, 3)})));  // two threads write element 0
  CHECK_FALSE(sb::testing::step_has_race(sb::Steps{{sb::Step{2, {add(0, 0, 2)}}, sb::Step{1, {add(1, 2, 3)}}}, {}}));
}

TEST_CASE("the steps are found from the accesses alone: the stride of their additions, in the order of their levels",
          "[chapter03]") {
  // The accesses in any order of threads give the same steps: each thread's own order is all that counts.
  std::vector<sb::Access> accesses = emulated(std::vector<int>{3, 1, 7, 0, 4, 1, 6, 3});
  std::stable_sort(accesses.begin(), accesses.end(), [](const auto& a, const auto& b) { return a.thread > b.thread; });
  const sb::Steps steps = sb::steps_of(accesses);
  REQUIRE(steps.tree.size() == 3);
  CHECK(steps.tree[0].stride == 1);
  CHECK(steps.tree[1].stride == 2);
  CHECK(steps.tree[2].stride == 4);
  CHECK(steps.tree[2].operations.front().level == 3);
  REQUIRE(steps.results.size() == 1);
  CHECK(sb::value_of<int>(steps.results[0].value_bits) == 25);
}

TEST_CASE("the trace of 3 1 7 0 4 1 6 3: the partial sums stay where their owners are", "[chapter03]") {
  sb::testing::check_trace(trace(std::vector<int>{3, 1, 7, 0, 4, 1, 6, 3}), 4,
                           {{{0, 1, 2, 3}, {4, 1, 7, 0, 5, 1, 9, 3}},
                            {{0, 2}, {11, 1, 7, 0, 14, 1, 9, 3}},
                            {{0}, {25, 1, 7, 0, 14, 1, 9, 3}}});
}

TEST_CASE("the trace of 1 2 3 4 5: the guard skips the partners past the end", "[chapter03]") {
  // n/2 = 2.5 threads, rounded up to a power of two: 4. In step 1, thread 2's partner would be element 5.
  sb::testing::check_trace(trace(std::vector<int>{1, 2, 3, 4, 5}), 4,
                           {{{0, 1}, {3, 2, 7, 4, 5}}, {{0}, {10, 2, 7, 4, 5}}, {{0}, {15, 2, 7, 4, 5}}});
}

TEST_CASE("the trace of one element adds nothing", "[chapter03]") {
  const auto one = trace(std::vector<double>{2.5});
  CHECK(one.steps.empty());
  CHECK(one.result == 2.5);
  CHECK(counts(1, 8).ops == 0);
  CHECK(counts(1, 8).thread_slots == 0);
}

TEST_CASE("the trace sums every small input exactly (int)", "[chapter03]") {
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  for (std::size_t n = 1; n <= sb::kMaxTraceElements; ++n) {
    INFO("n = " << n);
    const auto x = generate_input<std::int32_t>(n, seed);
    CHECK(trace(x).result == reference_sum(x.data(), n).value);
  }
}

TEST_CASE("the simple kernel adds in chapter 02's tree order: the same floats, bit for bit", "[chapter03]") {
  // Thread t's partial after k steps is the sum of the aligned run of 2^k elements from 2t, paired
  // just as chapter 02's tree pairs them, odd elements passing through where partners are missing.
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  for (std::size_t n : {1, 2, 3, 5, 13, 64, 100, 1000, 1023, 1024, 1025, 2047, 2048}) {
    INFO("n = " << n);
    const auto x = generate_input<float>(n, seed + n);
    const float kernel_order = trace(x).result, tree_order = ch02::tree_reduce<Sum>(x);
    CHECK(std::memcmp(&kernel_order, &tree_order, sizeof(float)) == 0);
  }
}

TEST_CASE("rows: cut from the input, and every row checked against its own reference", "[chapter03]") {
  CHECK(sb::row_length(26, 2, "file", false) == 13);
  CHECK_THROWS_AS(sb::row_length(27, 2, "file", false), InputError);  // rows of unequal length
  CHECK_THROWS_AS(sb::row_length(130, 2, "file", true), InputError);  // 65 elements: too many to trace
  const std::vector<int> data = {1, 2, 3, 4, 5, 6};                   // three rows of two: 3, 7, 11
  CHECK(sb::check_rows(data, 2, {3, 7, 11}).wrong == 0);
  const auto checked = sb::check_rows(data, 2, {3, 8, 12});
  CHECK(checked.wrong == 2);
  CHECK(checked.first_wrong == "row 1 gave 8, its reference is 7");
  // A float row whose sum could overflow is refused; rows that fit pass, though all of them together would not.
  CHECK_THROWS_AS(sb::check_rows_fit(std::vector<float>{3e38f, 3e38f, 1, 1}, 2), InputError);
  CHECK_NOTHROW(sb::check_rows_fit(std::vector<float>{3e38f, 1, 3e38f, 1}, 2));
  Options options;
  options.n = 13;
  CHECK_FALSE(sb::check_rows_option("2^10", false, options));
  CHECK(options.rows == 1024);
  CHECK(sb::check_rows_option("0", false, options) == "--rows must be at least 1");
  CHECK(sb::check_rows_option("3", true, options) == "--trace draws one row, and --rows is 3");
}
