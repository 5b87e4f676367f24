// Chapter 10's arithmetic (sharding.hpp) on the CPU, with no GPU and no NCCL.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/program.hpp"
#include "common/reference.hpp"
#include "common/testing/testing.hpp"
#include "sharding.hpp"

using namespace reduction;
using ch10::Shard;

namespace {

// Every property the program relies on, for one (n, G). Together they fix every shard: contiguous
// from 0, counts that never grow, at most one apart, covering n: the first n % G hold one more.
void check_split(std::size_t n, int gpus) {
  INFO("n = " << n << ", G = " << gpus);
  std::size_t next = 0, smallest = std::numeric_limits<std::size_t>::max(), largest = 0, empty_seen = 0;
  for (int g = 0; g < gpus; ++g) {
    const Shard s = ch10::shard_of(n, gpus, g);
    INFO("shard " << g << " = [" << s.begin << ", " << s.end() << ")");
    CHECK(s.begin == next);                            // contiguous, in rank order, no gap or overlap
    if (g > 0) CHECK(s.count <= ch10::shard_of(n, gpus, g - 1).count);  // the larger shards first
    next = s.end();
    smallest = std::min(smallest, s.count);
    largest = std::max(largest, s.count);
    empty_seen += s.count == 0;
  }
  CHECK(next == n);                                    // together they cover [0, n) exactly
  CHECK(largest - smallest <= 1);                      // as equal as whole elements allow
  CHECK(largest == (n + gpus - 1) / gpus);             // ceil(n / G)
  CHECK(ch10::largest_shard(n, gpus) == largest);
  CHECK(empty_seen == (n < std::size_t(gpus) ? gpus - n : 0));  // only n < G leaves GPUs without elements
}

// Each shard's reference, in rank order, for `gpus` GPUs over `data`.
template <typename T>
std::vector<Reference<T>> shard_references(const std::vector<T>& data, int gpus) {
  std::vector<Reference<T>> parts;
  for (int g = 0; g < gpus; ++g) {
    const Shard s = ch10::shard_of(data.size(), gpus, g);
    parts.push_back(reference_sum(data.data() + s.begin, s.count));
  }
  return parts;
}

}  // namespace

// With n divisible by G (8 over 4, 2^31 over 2: the goal's 2^30 a GPU), with a remainder (10 over
// 4: 3, 3, 2, 2), with n < G (3 over 5: 1, 1, 1, 0, 0), G = 1 the whole array, and past 2^32.
TEST_CASE("the shards cover the array exactly, in order, as equal as they can be", "[sharding]") {
  const std::vector<std::size_t> sizes = {1, 2, 3, 5, 7, 8, 9, 10, 1000, 12345, 1000003, std::size_t(1) << 30,
                                          std::size_t(1) << 31, (std::size_t(1) << 31) + 5, (std::size_t(1) << 33) + 7};
  for (int gpus : {1, 2, 3, 4, 5, 7, 8, 16, 64, 1000})
    for (std::size_t n : sizes) check_split(n, gpus);
}

TEST_CASE("a rank outside [0, G) is refused", "[sharding]") {
  CHECK_THROWS_AS(ch10::shard_of(10, 2, 2), std::invalid_argument);
  CHECK_THROWS_AS(ch10::shard_of(10, 2, -1), std::invalid_argument);
  CHECK_THROWS_AS(ch10::shard_of(10, 0, 0), std::invalid_argument);
}

TEST_CASE("a process's part of the random input is that slice of the whole array", "[sharding]") {
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = (std::size_t(1) << 21) + 13;  // several CPU workers per part
  const auto whole = generate_input<float>(n, seed);
  for (int processes : {1, 2, 3}) {
    for (int rank = 0; rank < processes; ++rank) {
      const Shard part = ch10::shard_of(n, processes, rank);
      INFO(processes << " processes, rank " << rank);
      CHECK(ch10::random_part<float>(seed, part) ==
            std::vector<float>(whole.begin() + part.begin, whole.begin() + part.end()));
    }
  }
  CHECK(ch10::random_part<std::int32_t>(seed, {5, 0}).empty());  // n < G: an empty part
}

TEST_CASE("the combine's depth is G - 1, never below a balanced tree's", "[sharding]") {
  CHECK(ch10::combine_depth(1) == 0);
  CHECK(ch10::combine_depth(2) == 1);
  CHECK(ch10::combine_depth(8) == 7);
  for (int g = 1; g <= 64; ++g) CHECK(ch10::combine_depth(g) >= ceil_log2(std::size_t(g)));
}

TEST_CASE("integer shards' references combine to the whole array's, bit for bit", "[sharding]") {
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 100003;
  const auto data = generate_input<std::int32_t>(n, seed);
  const auto whole = reference_sum(data.data(), n);
  for (int gpus : {1, 2, 3, 7, 16}) {
    const auto combined = ch10::combine_references(shard_references(data, gpus));
    CHECK(combined.exact);
    CHECK(combined.value == whole.value);
    CHECK(combined.wrapped == whole.wrapped);
  }
}

TEST_CASE("a total that leaves 32 bits wraps like the GPU's adds, and says so", "[sharding]") {
  const std::vector<std::int32_t> data(6, std::numeric_limits<std::int32_t>::max() / 2);  // total past 2^31
  const auto whole = reference_sum(data.data(), data.size());
  const auto parts = shard_references(data, 3);
  CHECK_FALSE(parts[0].wrapped);  // each shard fits in 32 bits ...
  const auto combined = ch10::combine_references(parts);
  CHECK(combined.value == whole.value);
  CHECK(combined.wrapped);  // ... their total does not
}

TEST_CASE("shards whose float sum together leaves the type are refused, as one array is", "[sharding]") {
  // Each shard fits; the two together do not, which reference_sum refuses for the whole array
  // (status 2): the combined reference must refuse it too, whatever the split.
  const std::vector<double> data = {1e308, 1e308};
  CHECK_THROWS_AS(reference_sum(data.data(), data.size()), InputError);
  CHECK_THROWS_AS(ch10::combine_references(shard_references(data, 2)), InputError);
  CHECK_THROWS_AS(ch10::combine_references(shard_references(std::vector<float>{3e38f, 3e38f}, 2)), InputError);
  // Below the largest value, it is not refused.
  CHECK_NOTHROW(ch10::combine_references(shard_references(std::vector<double>{1e307, 1e307}, 2)));
}

TEST_CASE("float shards' references combine within both references' error bounds", "[sharding]") {
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = (std::size_t(1) << 21) + 17;  // enough for several CPU workers per shard
  auto floats = generate_input<float>(n, seed);
  for (std::size_t i = 0; i < n; i += 3) floats[i] = -floats[i];  // some cancellation
  const auto doubles = generate_input<double>(n, seed);
  auto check = [&](const auto& data) {
    const auto whole = reference_sum(data.data(), n);
    for (int gpus : {1, 2, 5, 8}) {
      INFO("G = " << gpus);
      const auto combined = ch10::combine_references(shard_references(data, gpus));
      CHECK_FALSE(combined.exact);
      CHECK(std::fabs(combined.precise - whole.precise) <= combined.error + whole.error);
      CHECK(std::fabs(combined.magnitude - whole.magnitude) <= 1e-9L * whole.magnitude);
      CHECK(combined.error >= whole.error * 0.5L);  // not a suspiciously tighter bound
    }
  };
  check(floats);
  check(doubles);
}

TEST_CASE("a sum in the worst order of the combine stays within the chapter's bound", "[sharding]") {
  // G float partials, each rounded once from its shard's exact sum, added one after another (a ring's
  // order): the error must stay within gamma(shard depth + G - 1) * sum |x| + the reference's error.
  const auto seed = testing::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 1 << 20;
  const auto data = generate_input<float>(n, seed);
  const auto whole = reference_sum(data.data(), n);
  for (int gpus : {2, 3, 8}) {
    float running = 0;
    std::size_t shard_depth = 0;
    for (int g = 0; g < gpus; ++g) {
      const Shard s = ch10::shard_of(n, gpus, g);
      float partial = 0;  // a sequential float loop: s.count - 1 additions deep
      for (std::size_t i = s.begin; i < s.end(); ++i) partial += data[i];
      shard_depth = std::max(shard_depth, s.count);
      running = g == 0 ? partial : running + partial;
    }
    const long double tol = tolerance(whole, shard_depth + ch10::combine_depth(gpus));
    INFO("G = " << gpus << ", result " << running << ", reference " << static_cast<double>(whole.precise));
    CHECK(matches(running, whole, tol));
  }
}

TEST_CASE("bus bandwidth is algorithm bandwidth times 2 (G - 1) / G, as nccl-tests defines it", "[sharding]") {
  CHECK(ch10::algorithm_bandwidth_gbps(1000000000, 1.0) == 1.0);
  CHECK(ch10::algorithm_bandwidth_gbps(4, 0.0) == 0.0);
  CHECK(ch10::bus_bandwidth_gbps(100, 1) == 0.0);  // one GPU sends nothing
  CHECK(ch10::bus_bandwidth_gbps(100, 2) == 100.0);
  CHECK(ch10::bus_bandwidth_gbps(100, 4) == 150.0);
  CHECK(ch10::bus_bandwidth_gbps(100, 8) == 175.0);
  CHECK(ch10::allreduce_bytes_per_gpu(1 << 30, 2) == double(1 << 30));
  CHECK(ch10::allreduce_bytes_per_gpu(1 << 30, 1) == 0.0);
}

TEST_CASE("the all-reduce sweep: one element, then 4 times larger, up to the limit", "[sharding]") {
  const auto ints = ch10::allreduce_sizes(4, std::size_t(1) << 30);
  REQUIRE(ints.size() == 15);
  CHECK(ints.front() == 4);
  CHECK(ints.back() == std::size_t(1) << 30);
  CHECK(ints[6] == std::size_t(1) << 14);
  const auto doubles = ch10::allreduce_sizes(8, std::size_t(1) << 30);
  CHECK(doubles.front() == 8);
  CHECK(doubles.back() == std::size_t(1) << 29);
  CHECK(ch10::allreduce_sizes(4, 0).empty());  // --vector-max 0: no sweep
  CHECK(ch10::allreduce_sizes(4, 3).empty());
  CHECK(ch10::allreduce_sizes(4, 4) == std::vector<std::size_t>{4});
  CHECK(ch10::allreduce_sizes(4, std::numeric_limits<std::size_t>::max()).back() > (std::size_t(1) << 60));
}
