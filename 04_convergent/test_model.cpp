// CPU tests of chapter 04's analysis: the model's prediction of what the convergent kernel's
// threads do, and the execution-resource and memory counts and the trace computed from it. No GPU
// needed (the GPU tests check the prediction against a recording of the kernel).
#include <cstdint>
#include <set>
#include <vector>

#include "common/block_testing.hpp"
#include "model.hpp"

using namespace reduction;
namespace sb = reduction::single_block;

using sb::testing::tree_steps_column;

TEST_CASE("the strides halve from the block size", "[chapter04]") {
  CHECK(tree_steps_column(ch04::Model::counts(1024, 4), &sb::StepCounts::stride) ==
        std::vector<unsigned>{512, 256, 128, 64, 32, 16, 8, 4, 2, 1});
  CHECK(tree_steps_column(ch04::Model::counts(1, 4), &sb::StepCounts::stride) == std::vector<unsigned>{1});
}

TEST_CASE("the model at n = 1024: 1023 additions in 1152 thread slots", "[chapter04]") {
  // Whole warps drop out while the active threads fill them; the last warp then stays for five steps.
  sb::testing::check_model_at<ch04::Model>(1024, 512, {{16, 8, 4, 2, 1, 1, 1, 1, 1, 1}, 1023, 36, 1152}, 1152);
}

TEST_CASE("the model at n = 256: 255 additions in 384 thread slots", "[chapter04]") {
  sb::testing::check_model_at<ch04::Model>(256, 128, {{4, 2, 1, 1, 1, 1, 1, 1}, 255, 12, 384}, 384);
  CHECK_FALSE(ch04::Model::text_closed_form(1000).thread_slots);
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
    sb::testing::check_in_place_memory<ch04::Model>(1024, 4, {4, 4, 4, 4, 4, 2, 1, 1, 1, 1}, 3 * 36 + 2,
                                                    12 * (16 + 8 + 4 + 2 + 1) + 6 + 4 * 3 + 2,
                                                    {1, 1, 1, 1, 1, 1, 1, 0.5, 0.25, 0.125});
  }
  SECTION("double at n = 1024: 32 adjacent 8-byte elements are 256 bytes, eight sectors, one request") {
    const auto c = ch04::Model::counts(1024, 8);
    // Strides 512 to 32: 256 bytes, 8 sectors. Stride 16: 128 bytes, 4; 8: 64 bytes, 2; 4, 2, 1: 1.
    CHECK(tree_steps_column(c, &sb::StepCounts::max_request_sectors) ==
          std::vector<std::size_t>{8, 8, 8, 8, 8, 4, 2, 1, 1, 1});
    CHECK(c.requests == 3 * 36 + 2);
    CHECK(c.sectors == 24 * (16 + 8 + 4 + 2 + 1) + 12 + 6 + 3 * 3 + 2);
  }
  SECTION("n = 1000: the guard leaves warp 15 with 8 active threads in the first step") {
    const auto c = ch04::Model::counts(1000, 4);
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
  sb::testing::check_every_n_adds_inside_without_races<ch04::Model>();
}

TEST_CASE("the trace of 3 1 7 0 4 1 6 3: the partial sums gather at the front", "[chapter04]") {
  sb::testing::check_trace<ch04::Model>({3, 1, 7, 0, 4, 1, 6, 3}, 4,
                                        {{{0, 1, 2, 3}, {7, 2, 13, 3, 4, 1, 6, 3}},
                                         {{0, 1}, {20, 5, 13, 3, 4, 1, 6, 3}},
                                         {{0}, {25, 5, 13, 3, 4, 1, 6, 3}}});
}

TEST_CASE("the trace of 1 2 3 4 5: the guard skips the partners past the end", "[chapter04]") {
  // In step 1, thread 1's partner would be element 5.
  sb::testing::check_trace<ch04::Model>({1, 2, 3, 4, 5}, 4,
                                        {{{0}, {6, 2, 3, 4, 5}}, {{0, 1}, {9, 6, 3, 4, 5}}, {{0}, {15, 6, 3, 4, 5}}});
}

TEST_CASE("the trace of one element adds nothing", "[chapter04]") {
  sb::testing::check_one_element_trace(ch04::Model::trace(std::vector<float>{2.5f}), 2.5f);
  CHECK(ch04::Model::counts(1, 4).thread_slots == 0);
}

TEST_CASE("the trace sums every small input exactly (int)", "[chapter04]") {
  sb::testing::check_small_traces_sum_exactly<ch04::Model>();
}
