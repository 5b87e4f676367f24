// CPU tests of chapter 03's analysis: the model's prediction of what the simple kernel's threads
// do, and the execution-resource and memory counts and the trace computed from it. No GPU needed
// (the GPU tests check the prediction against a recording of the kernel).
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "../02_reduction_tree/reduction_tree.hpp"
#include "common/block_testing.hpp"
#include "model.hpp"

using namespace reduction;
namespace sb = reduction::single_block;

using sb::testing::tree_steps_column;

TEST_CASE("the block: n/2 threads rounded up to a power of two", "[chapter03]") {
  CHECK(sb::threads_for(1) == 1);
  CHECK(sb::threads_for(2) == 1);
  CHECK(sb::threads_for(3) == 2);
  CHECK(sb::threads_for(5) == 4);
  CHECK(sb::threads_for(1000) == 512);
  CHECK(sb::threads_for(1024) == 512);
  CHECK(sb::threads_for(1025) == 1024);
  CHECK(sb::threads_for(2048) == 1024);
  CHECK(tree_steps_column(ch03::Model::counts(1024, 4), &sb::StepCounts::stride) ==
        std::vector<unsigned>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512});
  CHECK(tree_steps_column(ch03::Model::counts(1, 4), &sb::StepCounts::stride) == std::vector<unsigned>{1});
}

TEST_CASE("rejected sizes: n = 0 and n > 2048, each naming the chapter that takes it", "[chapter03]") {
  REQUIRE(sb::size_error(0));
  CHECK(sb::size_error(0)->find("01_sequential") != std::string::npos);
  REQUIRE(sb::size_error(2049));
  CHECK(sb::size_error(2049)->find("06_hierarchical") != std::string::npos);
  CHECK_FALSE(sb::size_error(1));
  CHECK_FALSE(sb::size_error(2048));
  CHECK_THROWS_AS(sb::require_valid_size(0), InputError);
  CHECK_THROWS_AS(sb::require_valid_size(2049), InputError);
  CHECK(sb::check_input(64, true) == std::nullopt);
  CHECK(sb::check_input(65, true).has_value());
}

TEST_CASE("the model at n = 1024: 1023 additions in 3552 thread slots, not the text's 3040", "[chapter03]") {
  // 16 warps. Strides 1 to 32 leave thread 32w of every warp w active (32w is a multiple of the
  // stride): six steps of 16 warps. Then 8, 4, 2, 1 warps. The text counts five steps with every
  // warp active, one fewer than the kernel has: 3040 thread slots.
  sb::testing::check_model_at<ch03::Model>(1024, 512, {{16, 16, 16, 16, 16, 16, 8, 4, 2, 1}, 1023, 111, 3552}, 3040);
}

TEST_CASE("the model at n = 256: 255 additions in 864 thread slots, not 736", "[chapter03]") {
  sb::testing::check_model_at<ch03::Model>(256, 128, {{4, 4, 4, 4, 4, 4, 2, 1}, 255, 27, 864}, 736);
  CHECK_FALSE(ch03::Model::text_closed_form(1000).thread_slots);  // the text's formula is for powers of two
  CHECK_FALSE(ch03::Model::text_closed_form(32).thread_slots);
}

TEST_CASE("a request's sectors: the aligned 32-byte blocks its threads' addresses fall into", "[chapter03]") {
  // One step of one warp, one load: thread t copies element f(t) of global memory, or nothing,
  // into shared memory (the copy's store to shared memory is no global request).
  auto one_load = [](std::size_t element_bytes, std::function<std::optional<std::size_t>(unsigned)> element) {
    std::vector<sb::BlockEvent> events(1);  // the step's marker
    events[0].step = 1;
    for (unsigned t = 0; t < 32; ++t)
      if (auto e = element(t)) {
        sb::BlockEvent copy;
        copy.kind = sb::BlockEvent::kCopy;
        copy.step = 1;
        copy.thread = t;
        copy.owner = static_cast<std::uint32_t>(*e);
        copy.target_shared = 1;
        events.push_back(copy);
      }
    const auto c = sb::count(events, 64, 32, element_bytes);
    REQUIRE(c.steps.size() == 2);  // the load and the (empty) result
    return c;
  };
  // 32 adjacent ints: bytes 0 to 127, four sectors, every byte used.
  auto c = one_load(4, [](unsigned t) -> std::optional<std::size_t> { return t; });
  CHECK(c.requests == 1);
  CHECK(c.sectors == 4);
  CHECK(sb::used_fraction(c.reads, c.writes, c.sectors, 4) == 1.0);
  // 32 ints 8 elements (32 bytes) apart: one sector each, 4 of its 32 bytes used.
  c = one_load(4, [](unsigned t) -> std::optional<std::size_t> { return 8 * std::size_t(t); });
  CHECK(c.requests == 1);
  CHECK(c.sectors == 32);
  CHECK(sb::used_fraction(c.reads, c.writes, c.sectors, 4) == 0.125);
  // Elements 7 and 8: bytes 28-31 and 32-35 lie in two sectors; double element 3, bytes 24-31, in one.
  c = one_load(4, [](unsigned t) -> std::optional<std::size_t> {
    if (t > 1) return std::nullopt;
    return 7 + t;
  });
  CHECK(c.sectors == 2);
  c = one_load(8, [](unsigned t) -> std::optional<std::size_t> {
    if (t) return std::nullopt;
    return 3;
  });
  CHECK(c.sectors == 1);
  // A warp none of whose threads takes part issues no request.
  c = one_load(4, [](unsigned) -> std::optional<std::size_t> { return std::nullopt; });
  CHECK(c.requests == 0);
  CHECK(c.sectors == 0);
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
    // + 1 warps of strides 64 to 512, and one each for the result's load and store. Of the sectors'
    // bytes, a thread uses 4: 128 of 256 at stride 1 (half), 64 of 256 at stride 2, then 4 of every
    // 32 (one element per sector).
    const auto c = sb::testing::check_in_place_memory<ch03::Model>(
        1024, 4, {8, 8, 8, 4, 2, 1, 1, 1, 1, 1}, 3 * 111 + 2, 16 * 3 * (8 + 8 + 8 + 4 + 2 + 1) + 3 * (8 + 4 + 2 + 1) + 2,
        {0.5, 0.25, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125});
    // Over the launch: 12284 bytes loaded or stored, in 1488 + 45 + 2 = 1535 sectors of 32 bytes.
    CHECK(sb::used_fraction(c.reads, c.writes, c.sectors, 4) == double(4 * (2047 + 1024)) / double(32 * 1535));
  }
  SECTION("double: 8 bytes, 4 to a sector") {
    const auto c = ch03::Model::counts(1024, 8);
    // The owners of a warp span 512 bytes, 16 sectors. stride 1: owners 16 bytes apart, two to a
    // sector: 16. stride 2: 32 bytes apart: 16. stride 4: 64 bytes apart: 8. stride 8: 4; stride 16:
    // 2; stride 32 on: 1.
    CHECK(tree_steps_column(c, &sb::StepCounts::max_request_sectors) ==
          std::vector<std::size_t>{16, 16, 8, 4, 2, 1, 1, 1, 1, 1});
    CHECK(c.requests == 3 * 111 + 2);  // requests do not depend on the element size
    CHECK(c.sectors == 16 * 3 * (16 + 16 + 8 + 4 + 2 + 1) + 3 * (8 + 4 + 2 + 1) + 2);
  }
}

TEST_CASE("for every n: n - 1 additions, every operand inside the array, and no step races", "[chapter03]") {
  sb::testing::check_every_n_adds_inside_without_races<ch03::Model>();
}

TEST_CASE("a race within a step is seen: a read of what another thread writes, or two writers", "[chapter03]") {
  auto add = [](std::uint32_t step, std::uint32_t thread, std::uint32_t owner, std::uint32_t partner) {
    sb::BlockEvent e;
    e.kind = sb::BlockEvent::kAdd;
    e.step = step;
    e.thread = thread;
    e.owner = owner;
    e.partner = partner;
    return e;
  };
  CHECK_FALSE(sb::step_has_race({add(1, 0, 0, 1), add(1, 1, 2, 3)}));
  CHECK(sb::step_has_race({add(1, 0, 0, 2), add(1, 1, 2, 3)}));        // thread 0 reads element 2 as thread 1 writes it
  CHECK(sb::step_has_race({add(1, 0, 0, 1), add(1, 1, 0, 3)}));        // two threads write element 0
  CHECK_FALSE(sb::step_has_race({add(1, 0, 0, 2), add(2, 1, 2, 3)}));  // a barrier between them
}

TEST_CASE("the trace of 3 1 7 0 4 1 6 3: the partial sums stay where their owners are", "[chapter03]") {
  sb::testing::check_trace<ch03::Model>({3, 1, 7, 0, 4, 1, 6, 3}, 4,
                                        {{{0, 1, 2, 3}, {4, 1, 7, 0, 5, 1, 9, 3}},
                                         {{0, 2}, {11, 1, 7, 0, 14, 1, 9, 3}},
                                         {{0}, {25, 1, 7, 0, 14, 1, 9, 3}}});
}

TEST_CASE("the trace of 1 2 3 4 5: the guard skips the partners past the end", "[chapter03]") {
  // n/2 = 2.5 threads, rounded up to a power of two: 4. In step 1, thread 2's partner would be element 5.
  sb::testing::check_trace<ch03::Model>({1, 2, 3, 4, 5}, 4,
                                        {{{0, 1}, {3, 2, 7, 4, 5}}, {{0}, {10, 2, 7, 4, 5}}, {{0}, {15, 2, 7, 4, 5}}});
}

TEST_CASE("the trace of one element adds nothing", "[chapter03]") {
  sb::testing::check_one_element_trace(ch03::Model::trace(std::vector<double>{2.5}), 2.5);
  CHECK(ch03::Model::counts(1, 8).ops == 0);
  CHECK(ch03::Model::counts(1, 8).thread_slots == 0);
}

TEST_CASE("the trace sums every small input exactly (int)", "[chapter03]") {
  sb::testing::check_small_traces_sum_exactly<ch03::Model>();
}

TEST_CASE("the simple kernel adds in chapter 02's tree order: the same floats, bit for bit", "[chapter03]") {
  // Thread t's partial after k steps is the sum of the aligned run of 2^k elements from 2t, paired
  // just as chapter 02's tree pairs them, odd elements passing through where partners are missing.
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  for (std::size_t n : sb::sizes_to_test()) {
    INFO("n = " << n);
    const auto x = generate_input<float>(n, seed + n);
    const float kernel_order = ch03::Model::trace(x).result, tree_order = ch02::tree_reduce<Sum>(x);
    CHECK(std::memcmp(&kernel_order, &tree_order, sizeof(float)) == 0);
  }
}
