// CPU tests of chapter 05's analysis: the model's prediction of what the shared-memory kernel's
// threads do, and the global-memory counts and the trace computed from it. No GPU needed (the GPU
// tests check the prediction against a recording of the kernel).
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "common/block_testing.hpp"
#include "model.hpp"

using namespace reduction;
namespace sb = reduction::single_block;

TEST_CASE("the steps: the first on the way in, the others in shared memory", "[chapter05]") {
  auto step_names = [](const sb::BlockCounts& c) {
    std::vector<std::string> names;
    for (const auto& s : c.steps) names.push_back(s.name);
    return names;
  };
  CHECK(step_names(ch05::Model::counts(1024, 4)) == std::vector<std::string>{"load, stride 512", "stride 256", "stride 128",
                                                                     "stride 64", "stride 32", "stride 16", "stride 8",
                                                                     "stride 4", "stride 2", "stride 1", "result"});
  CHECK(step_names(ch05::Model::counts(2, 4)) == std::vector<std::string>{"load, stride 1", "result"});
}

TEST_CASE("memory at n = 1024: each element read once, one write", "[chapter05]") {
  // 512 threads, 16 warps. Two load requests per warp (data[t] and data[t + 512]: 32 adjacent
  // elements each) and one store request, thread 0's store of the result: 16 + 16 + 1 = 33.
  SECTION("int: 32 adjacent ints, 128 bytes, four sectors per load") {
    const auto c = ch05::Model::counts(1024, 4);
    CHECK(c.reads == 1024);
    CHECK(c.writes == 1);
    CHECK(c.requests == 16 + 16 + 1);
    CHECK(c.sectors == 4 * (16 + 16) + 1);
    // 4100 bytes used (1025 elements) of 129 x 32 = 4128: only the result's sector is mostly unused.
    CHECK(sb::used_fraction(c.reads, c.writes, c.sectors, 4) == 4100.0 / 4128.0);
    CHECK(c.ops == 1023);
    REQUIRE(c.steps.size() == 11);  // the load, nine steps in shared memory, the result
    CHECK(c.steps.front().max_request_sectors == 4);
    for (std::size_t i = 1; i + 1 < c.steps.size(); ++i) {
      CHECK(c.steps[i].reads == 0);
      CHECK(c.steps[i].writes == 0);
      CHECK(c.steps[i].requests == 0);
    }
  }
  SECTION("double: 32 adjacent doubles, 256 bytes, eight sectors per load, still one request") {
    const auto c = ch05::Model::counts(1024, 8);
    CHECK(c.requests == 16 + 16 + 1);
    CHECK(c.sectors == 8 * (16 + 16) + 1);
  }
  SECTION("n = 1000: the guard skips the 24 partners past the end") {
    const auto c = ch05::Model::counts(1000, 4);
    CHECK(c.reads == 1000);
    CHECK(c.steps.front().active_threads == 488);
    CHECK(c.requests == 16 + 16 + 1);  // warp 15 still loads 8 partners
    // Warp 15's 8 partners are elements 992-999, bytes 3968-3999: one sector (3968 = 124 x 32).
    CHECK(c.sectors == 4 * 16 + (4 * 15 + 1) + 1);
  }
}

TEST_CASE("for every n: each element read once, n - 1 additions, no step races", "[chapter05]") {
  for (std::size_t n = 1; n <= sb::kMaxElements; ++n) {
    INFO("n = " << n);
    const unsigned threads = sb::threads_for(n);
    REQUIRE(threads <= n);  // every thread has a first element to load
    const auto c = ch05::Model::counts(n, 4);
    REQUIRE(c.reads == n);
    REQUIRE(c.writes == 1);
    REQUIRE(c.ops == n - 1);
    const auto events = ch05::Model::predict(std::vector<std::int32_t>(n));
    for (const auto& e : events)
      if (e.kind == sb::BlockEvent::kAdd) REQUIRE(e.partner < (e.source_shared ? threads : n));
    REQUIRE_FALSE(sb::step_has_race(events));
  }
}

TEST_CASE("the trace of 3 1 7 0 4 1 6 3: two elements per thread on the way in", "[chapter05]") {
  sb::testing::check_trace<ch05::Model>(
      {3, 1, 7, 0, 4, 1, 6, 3}, 4, {{{0, 1, 2, 3}, {7, 2, 13, 3}}, {{0, 1}, {20, 5, 13, 3}}, {{0}, {25, 5, 13, 3}}});
  // The values are the block's shared memory; the input, in global memory, is left as it was.
  CHECK(ch05::Model::trace(std::vector<int>{3, 1, 7, 0, 4, 1, 6, 3}).input == std::vector<int>{3, 1, 7, 0, 4, 1, 6, 3});
}

TEST_CASE("the trace of 1 2 3 4 5: threads without a partner load one element", "[chapter05]") {
  const auto tr = ch05::Model::trace(std::vector<int>{1, 2, 3, 4, 5});
  CHECK(tr.threads == 4);
  REQUIRE(tr.steps.size() == 3);
  CHECK(tr.steps[0].active == std::vector<unsigned>{0});
  CHECK(tr.steps[0].actions.size() == 4);  // every thread loads
  CHECK(tr.steps[0].values == std::vector<int>{6, 2, 3, 4});
  CHECK(tr.steps[1].values == std::vector<int>{9, 6, 3, 4});
  CHECK(tr.steps[2].values == std::vector<int>{15, 6, 3, 4});
  CHECK(tr.result == 15);
}

TEST_CASE("the trace of one element: one load, no addition", "[chapter05]") {
  sb::testing::check_one_element_trace(ch05::Model::trace(std::vector<double>{2.5}), 2.5);
  const auto c = ch05::Model::counts(1, 8);
  CHECK(c.reads == 1);
  CHECK(c.writes == 1);
}

TEST_CASE("the trace sums every small input exactly (int)", "[chapter05]") {
  sb::testing::check_small_traces_sum_exactly<ch05::Model>();
}
