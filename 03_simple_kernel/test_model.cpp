// CPU tests of chapter 03's analysis: the execution-resource and memory model of the simple
// kernel, and its trace, all evaluated from the kernel's own index arithmetic. No GPU needed.
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "../02_reduction_tree/reduction_tree.hpp"
#include "common/input.hpp"
#include "common/single_block.hpp"
#include "common/testing.hpp"
#include "model.hpp"

using namespace reduction;
namespace sb = reduction::single_block;

namespace {
std::vector<std::size_t> tree_steps_column(const sb::BlockCounts& c, std::size_t sb::StepCounts::*field) {
  std::vector<std::size_t> column;
  for (const auto& s : c.steps)
    if (s.adds) column.push_back(s.*field);
  return column;
}
}  // namespace

TEST_CASE("the block: n/2 threads rounded up to a power of two", "[chapter03]") {
  CHECK(sb::threads_for(1) == 1);
  CHECK(sb::threads_for(2) == 1);
  CHECK(sb::threads_for(3) == 2);
  CHECK(sb::threads_for(5) == 4);
  CHECK(sb::threads_for(1000) == 512);
  CHECK(sb::threads_for(1024) == 512);
  CHECK(sb::threads_for(1025) == 1024);
  CHECK(sb::threads_for(2048) == 1024);
  CHECK(ch03::strides(512) == std::vector<unsigned>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512});
  CHECK(ch03::strides(1) == std::vector<unsigned>{1});
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
  const auto c = ch03::model(1024, sizeof(std::int32_t));
  CHECK(c.threads == 512);
  // 16 warps. Strides 1 to 32 leave thread 32w of every warp w active (32w is a multiple of the
  // stride): six steps of 16 warps. Then 8, 4, 2, 1 warps.
  CHECK(tree_steps_column(c, &sb::StepCounts::active_threads) ==
        std::vector<std::size_t>{512, 256, 128, 64, 32, 16, 8, 4, 2, 1});
  CHECK(tree_steps_column(c, &sb::StepCounts::active_warps) ==
        std::vector<std::size_t>{16, 16, 16, 16, 16, 16, 8, 4, 2, 1});
  CHECK(c.ops == 1023);
  CHECK(c.warp_steps == 111);
  CHECK(c.thread_slots == 3552);
  CHECK(c.efficiency == 1023.0 / 3552.0);
  // The text counts five steps with every warp active, one fewer than the kernel has.
  CHECK(ch03::text_closed_form(1024).thread_slots == std::optional<std::size_t>(3040));
}

TEST_CASE("the model at n = 256: 255 additions in 864 thread slots, not 736", "[chapter03]") {
  const auto c = ch03::model(256, sizeof(std::int32_t));
  CHECK(c.threads == 128);
  CHECK(tree_steps_column(c, &sb::StepCounts::active_warps) == std::vector<std::size_t>{4, 4, 4, 4, 4, 4, 2, 1});
  CHECK(c.ops == 255);
  CHECK(c.warp_steps == 27);
  CHECK(c.thread_slots == 864);
  CHECK(ch03::text_closed_form(256).thread_slots == std::optional<std::size_t>(736));
  CHECK_FALSE(ch03::text_closed_form(1000).thread_slots);
  CHECK_FALSE(ch03::text_closed_form(32).thread_slots);
}

TEST_CASE("memory: requests per warp and per launch at n = 1024", "[chapter03]") {
  SECTION("int: a warp's 32 owners span 64 elements, 256 bytes, two segments") {
    const auto c = ch03::model(1024, 4);
    // Three accesses a step (load owner, load partner, store owner), two segments each, while a
    // warp has two or more active threads; one each from stride 32 on, with one active thread.
    CHECK(tree_steps_column(c, &sb::StepCounts::max_warp_requests) ==
          std::vector<std::size_t>{6, 6, 6, 6, 6, 3, 3, 3, 3, 3});
    CHECK(c.requests == 5 * 16 * 6 + (16 + 8 + 4 + 2 + 1) * 3 + 2);
    CHECK(c.reads == 2 * 1023 + 1);  // two per addition, and thread 0's final load of data[0]
    CHECK(c.writes == 1023 + 1);     // one per addition, and the result
  }
  SECTION("double: 512 bytes, four segments, until the active owners thin out") {
    const auto c = ch03::model(1024, 8);
    // Stride 16: owners 64w and 64w + 32, partners 64w + 16 and 64w + 48: two segments each.
    CHECK(tree_steps_column(c, &sb::StepCounts::max_warp_requests) ==
          std::vector<std::size_t>{12, 12, 12, 12, 6, 3, 3, 3, 3, 3});
  }
}

TEST_CASE("for every n: n - 1 additions, and no step races", "[chapter03]") {
  for (std::size_t n = 1; n <= sb::kMaxElements; ++n) {
    INFO("n = " << n);
    const unsigned threads = sb::threads_for(n);
    std::size_t ops = 0;
    for (unsigned stride : ch03::strides(threads)) {
      // Within a step, no thread reads or writes an element that another thread writes.
      std::set<std::size_t> written, read;
      for (unsigned t = 0; t < threads; ++t) {
        if (!ch03::is_active(t, stride, n)) continue;
        ++ops;
        REQUIRE(ch03::partner_of(t, stride) < n);
        REQUIRE(written.insert(ch03::owner_of(t)).second);
        read.insert(ch03::partner_of(t, stride));
      }
      for (std::size_t e : read) REQUIRE(written.count(e) == 0);
    }
    REQUIRE(ops == n - 1);
    REQUIRE(ch03::model(n, 4).ops == n - 1);
  }
}

TEST_CASE("the trace of 3 1 7 0 4 1 6 3: the partial sums stay where their owners are", "[chapter03]") {
  const auto tr = ch03::trace(std::vector<int>{3, 1, 7, 0, 4, 1, 6, 3});
  CHECK(tr.threads == 4);
  REQUIRE(tr.steps.size() == 3);
  CHECK(tr.steps[0].active == std::vector<unsigned>{0, 1, 2, 3});
  CHECK(tr.steps[0].values == std::vector<int>{4, 1, 7, 0, 5, 1, 9, 3});
  CHECK(tr.steps[1].active == std::vector<unsigned>{0, 2});
  CHECK(tr.steps[1].values == std::vector<int>{11, 1, 7, 0, 14, 1, 9, 3});
  CHECK(tr.steps[2].active == std::vector<unsigned>{0});
  CHECK(tr.steps[2].values == std::vector<int>{25, 1, 7, 0, 14, 1, 9, 3});
  CHECK(tr.result == 25);
}

TEST_CASE("the trace of 1 2 3 4 5: the guard skips the partners past the end", "[chapter03]") {
  const auto tr = ch03::trace(std::vector<int>{1, 2, 3, 4, 5});
  CHECK(tr.threads == 4);  // n/2 = 2.5 threads, rounded up to a power of two
  REQUIRE(tr.steps.size() == 3);
  CHECK(tr.steps[0].active == std::vector<unsigned>{0, 1});  // thread 2's partner would be element 5
  CHECK(tr.steps[0].values == std::vector<int>{3, 2, 7, 4, 5});
  CHECK(tr.steps[1].active == std::vector<unsigned>{0});
  CHECK(tr.steps[1].values == std::vector<int>{10, 2, 7, 4, 5});
  CHECK(tr.steps[2].active == std::vector<unsigned>{0});
  CHECK(tr.result == 15);
}

TEST_CASE("the trace of one element adds nothing", "[chapter03]") {
  const auto tr = ch03::trace(std::vector<double>{2.5});
  REQUIRE(tr.steps.size() == 1);
  CHECK(tr.steps[0].active.empty());
  CHECK(tr.result == 2.5);
  CHECK(ch03::model(1, 8).ops == 0);
  CHECK(ch03::model(1, 8).thread_slots == 0);
}

TEST_CASE("the trace sums every small input exactly (int)", "[chapter03]") {
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  for (std::size_t n = 1; n <= sb::kMaxTraceElements; ++n) {
    INFO("n = " << n);
    const auto x = generate_input<std::int32_t>(n, seed);
    CHECK(ch03::trace(x).result == reference_sum(x.data(), n).value);
  }
}

TEST_CASE("the simple kernel adds in chapter 02's tree order: the same floats, bit for bit", "[chapter03]") {
  // Thread t's partial after k steps is the sum of the aligned run of 2^k elements from 2t, paired
  // just as chapter 02's tree pairs them, odd elements passing through where partners are missing.
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  for (std::size_t n : sb::sizes_to_test()) {
    INFO("n = " << n);
    const auto x = generate_input<float>(n, seed + n);
    const float kernel_order = ch03::trace(x).result, tree_order = ch02::tree_reduce<Sum>(x);
    CHECK(std::memcmp(&kernel_order, &tree_order, sizeof(float)) == 0);
  }
}
