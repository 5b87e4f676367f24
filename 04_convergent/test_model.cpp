// CPU tests of chapter 04's analysis: the model's prediction of what the convergent kernel's
// threads do, and the execution-resource and memory counts and the trace computed from it. No GPU
// needed (the GPU tests check the prediction against a recording of the kernel).
#include <cstdint>
#include <set>
#include <vector>

#include "common/input.hpp"
#include "common/single_block.hpp"
#include "common/testing.hpp"
#include "model.hpp"

using namespace reduction;
namespace sb = reduction::single_block;

namespace {
template <typename Field>
std::vector<Field> tree_steps_column(const sb::BlockCounts& c, Field sb::StepCounts::*field) {
  std::vector<Field> column;
  for (const auto& s : c.steps)
    if (s.adds) column.push_back(s.*field);
  return column;
}
}  // namespace

TEST_CASE("the strides halve from the block size", "[chapter04]") {
  CHECK(tree_steps_column(ch04::model(1024, 4), &sb::StepCounts::stride) ==
        std::vector<unsigned>{512, 256, 128, 64, 32, 16, 8, 4, 2, 1});
  CHECK(tree_steps_column(ch04::model(1, 4), &sb::StepCounts::stride) == std::vector<unsigned>{1});
}

TEST_CASE("the model at n = 1024: 1023 additions in 1152 thread slots", "[chapter04]") {
  const auto c = ch04::model(1024, sizeof(std::int32_t));
  CHECK(c.threads == 512);
  CHECK(tree_steps_column(c, &sb::StepCounts::active_threads) ==
        std::vector<std::size_t>{512, 256, 128, 64, 32, 16, 8, 4, 2, 1});
  // Whole warps drop out while the active threads fill them; the last warp then stays for five steps.
  CHECK(tree_steps_column(c, &sb::StepCounts::active_warps) == std::vector<std::size_t>{16, 8, 4, 2, 1, 1, 1, 1, 1, 1});
  CHECK(c.ops == 1023);
  CHECK(c.warp_steps == 36);
  CHECK(c.thread_slots == 1152);
  CHECK(c.efficiency == 1023.0 / 1152.0);
  CHECK(ch04::text_closed_form(1024).thread_slots == std::optional<std::size_t>(1152));
}

TEST_CASE("the model at n = 256: 255 additions in 384 thread slots", "[chapter04]") {
  const auto c = ch04::model(256, sizeof(std::int32_t));
  CHECK(c.threads == 128);
  CHECK(tree_steps_column(c, &sb::StepCounts::active_warps) == std::vector<std::size_t>{4, 2, 1, 1, 1, 1, 1, 1});
  CHECK(c.ops == 255);
  CHECK(c.warp_steps == 12);
  CHECK(c.thread_slots == 384);
  CHECK(ch04::text_closed_form(256).thread_slots == std::optional<std::size_t>(384));
  CHECK_FALSE(ch04::text_closed_form(1000).thread_slots);
}

TEST_CASE("memory: adjacent threads, adjacent addresses, every fetched byte used while warps are full", "[chapter04]") {
  // Thread t owns element t. At stride s the active threads are 0 to s - 1; every active warp makes
  // three requests a step (load data[owner], load data[partner] = data[owner + s], store data[owner]).
  SECTION("int at n = 1024: 32 adjacent 4-byte elements are 128 bytes, four sectors") {
    const auto c = ch04::model(1024, 4);
    // Strides 512 to 32: a full warp, owners 32w to 32w + 31, four sectors, and partners likewise
    // (s is a multiple of 32). Stride 16: owners 0-15, 64 bytes, two sectors (partners 16-31, two).
    // Stride 8: owners 0-7, 32 bytes, one sector. Strides 4, 2, 1: 16, 8, 4 bytes, one sector.
    CHECK(tree_steps_column(c, &sb::StepCounts::max_request_sectors) ==
          std::vector<std::size_t>{4, 4, 4, 4, 4, 2, 1, 1, 1, 1});
    CHECK(tree_steps_column(c, &sb::StepCounts::min_request_sectors) ==
          std::vector<std::size_t>{4, 4, 4, 4, 4, 2, 1, 1, 1, 1});
    CHECK(c.requests == 3 * 36 + 2);  // three for each of the 36 warp-steps, and the result
    // 3 x 4 sectors for each of the 16 + 8 + 4 + 2 + 1 warp-steps of strides 512 to 32, 3 x 2 at
    // stride 16, 3 x 1 at strides 8, 4, 2 and 1, and the result's two.
    CHECK(c.sectors == 12 * (16 + 8 + 4 + 2 + 1) + 6 + 4 * 3 + 2);
    CHECK(c.reads == 2 * 1023 + 1);  // as many as chapter 03: two per addition, and the final load
    CHECK(c.writes == 1023 + 1);
    // Every byte of every sector used, until the last warp has fewer than 8 active threads: stride 4
    // uses 16 bytes of its sector, stride 2 uses 8, stride 1 uses 4.
    std::vector<double> used;
    for (const auto& s : c.steps)
      if (s.adds) used.push_back(sb::used_fraction(s.reads, s.writes, s.sectors, 4));
    CHECK(used == std::vector<double>{1, 1, 1, 1, 1, 1, 1, 0.5, 0.25, 0.125});
  }
  SECTION("double at n = 1024: 32 adjacent 8-byte elements are 256 bytes, eight sectors, one request") {
    const auto c = ch04::model(1024, 8);
    // Strides 512 to 32: 256 bytes, 8 sectors. Stride 16: 128 bytes, 4; 8: 64 bytes, 2; 4, 2, 1: 1.
    CHECK(tree_steps_column(c, &sb::StepCounts::max_request_sectors) ==
          std::vector<std::size_t>{8, 8, 8, 8, 8, 4, 2, 1, 1, 1});
    CHECK(c.requests == 3 * 36 + 2);
    CHECK(c.sectors == 24 * (16 + 8 + 4 + 2 + 1) + 12 + 6 + 3 * 3 + 2);
  }
  SECTION("n = 1000: the guard leaves warp 15 with 8 active threads in the first step") {
    const auto c = ch04::model(1000, 4);
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

TEST_CASE("for every n: n - 1 additions, every operand inside the array, and no step races", "[chapter04]") {
  for (std::size_t n = 1; n <= sb::kMaxElements; ++n) {
    INFO("n = " << n);
    const auto events = ch04::predict(std::vector<std::int32_t>(n));
    std::size_t adds = 0;
    for (const auto& e : events)
      if (e.kind == sb::BlockEvent::kAdd) {
        ++adds;
        REQUIRE(e.partner < n);
      }
    REQUIRE(adds == n - 1);
    REQUIRE_FALSE(sb::step_has_race(events));
    REQUIRE(ch04::model(n, 4).ops == n - 1);
  }
}

TEST_CASE("the trace of 3 1 7 0 4 1 6 3: the partial sums gather at the front", "[chapter04]") {
  const auto tr = ch04::trace(std::vector<int>{3, 1, 7, 0, 4, 1, 6, 3});
  CHECK(tr.threads == 4);
  REQUIRE(tr.steps.size() == 3);
  CHECK(tr.steps[0].active == std::vector<unsigned>{0, 1, 2, 3});
  CHECK(tr.steps[0].values == std::vector<int>{7, 2, 13, 3, 4, 1, 6, 3});
  CHECK(tr.steps[1].active == std::vector<unsigned>{0, 1});
  CHECK(tr.steps[1].values == std::vector<int>{20, 5, 13, 3, 4, 1, 6, 3});
  CHECK(tr.steps[2].active == std::vector<unsigned>{0});
  CHECK(tr.steps[2].values == std::vector<int>{25, 5, 13, 3, 4, 1, 6, 3});
  CHECK(tr.result == 25);
}

TEST_CASE("the trace of 1 2 3 4 5: the guard skips the partners past the end", "[chapter04]") {
  const auto tr = ch04::trace(std::vector<int>{1, 2, 3, 4, 5});
  CHECK(tr.threads == 4);
  REQUIRE(tr.steps.size() == 3);
  CHECK(tr.steps[0].active == std::vector<unsigned>{0});  // thread 1's partner would be element 5
  CHECK(tr.steps[0].values == std::vector<int>{6, 2, 3, 4, 5});
  CHECK(tr.steps[1].active == std::vector<unsigned>{0, 1});
  CHECK(tr.steps[1].values == std::vector<int>{9, 6, 3, 4, 5});
  CHECK(tr.steps[2].active == std::vector<unsigned>{0});
  CHECK(tr.steps[2].values == std::vector<int>{15, 6, 3, 4, 5});
  CHECK(tr.result == 15);
}

TEST_CASE("the trace of one element adds nothing", "[chapter04]") {
  const auto tr = ch04::trace(std::vector<float>{2.5f});
  REQUIRE(tr.steps.size() == 1);
  CHECK(tr.steps[0].active.empty());
  CHECK(tr.result == 2.5f);
  CHECK(ch04::model(1, 4).thread_slots == 0);
}

TEST_CASE("the trace sums every small input exactly (int)", "[chapter04]") {
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  for (std::size_t n = 1; n <= sb::kMaxTraceElements; ++n) {
    INFO("n = " << n);
    const auto x = generate_input<std::int32_t>(n, seed);
    CHECK(ch04::trace(x).result == reference_sum(x.data(), n).value);
  }
}
