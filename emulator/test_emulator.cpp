// Tests of the CPU emulator itself on small kernels written here, each with one defect, for the
// findings that the chapters' bug zoos do not all produce.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "common/testing/testing.hpp"
#include "emulator/emulator.hpp"  // last: it ends with the CUDA shim

using reduction::emulator::Checked;
using reduction::emulator::FindingKind;
using reduction::emulator::emulate;
using Element = Checked<int>;

namespace kernels {

// Right: every thread copies its element to shared memory, thread 0 adds them up after a barrier.
__device__ void serial_sum_body(Element* data, std::size_t n, Element* result) {
  __shared__ Element partial[64];
  data += blockIdx.x * n;
  partial[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    Element sum(0);
    for (unsigned i = 0; i < blockDim.x; ++i) sum = reduction::Sum{}(sum, partial[i]);
    result[blockIdx.x] = sum;
  }
}
__global__ void serial_sum(Element* data, std::size_t n, Element* result) { serial_sum_body(data, n, result); }

// The sum is computed and never stored.
__global__ void no_store(Element* data, std::size_t n, Element* result) {
  Element sum(0);
  for (std::size_t i = 0; i < n; ++i) sum = reduction::Sum{}(sum, data[blockIdx.x * n + i]);
  (void)result;
}

// Two barriers, one in each branch: the two halves of the block wait at different ones.
__global__ void two_barriers(Element* data, std::size_t n, Element* result) {
  if (threadIdx.x < 16) {
    __syncthreads();
  } else {
    __syncthreads();
  }
  serial_sum_body(data, n, result);
}

// Every thread stores to the same shared element in one step.
__global__ void all_write_one(Element* data, std::size_t n, Element* result) {
  __shared__ Element partial[1];
  partial[0] = data[blockIdx.x * n + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) result[blockIdx.x] = partial[0];
}

// Thread 0 reads a shared element that no thread writes.
__global__ void reads_unwritten(Element* data, std::size_t n, Element* result) {
  __shared__ Element partial[64];
  data += blockIdx.x * n;
  if (threadIdx.x > 0) partial[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) result[blockIdx.x] = partial[0];
}

// Every block stores to result[0]: block 1 writes outside its own row of the result.
__global__ void wrong_row(Element* data, std::size_t n, Element* result) {
  serial_sum_body(data, n, result);
  if (threadIdx.x == 0 && blockIdx.x == 1) result[0] = data[n];
}

// A tree whose stride never reaches a value that ends the loop: once 0 it stays 0.
__global__ void endless_tree(Element* data, std::size_t n, Element* result) {
  __shared__ Element partial[64];
  data += blockIdx.x * n;
  partial[threadIdx.x] = data[threadIdx.x];
  for (int stride = int(blockDim.x) / 2; stride >= 0; stride /= 2) {
    __syncthreads();
    if (int(threadIdx.x) < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
  }
  if (threadIdx.x == 0) result[blockIdx.x] = partial[0];
}

// A loop with no barrier whose index never moves.
__global__ void endless_scan(Element* data, std::size_t n, Element* result) {
  Element sum(0);
  for (std::size_t i = threadIdx.x; i < n; i += 0) sum += data[blockIdx.x * n + i];
  if (threadIdx.x == 0) result[blockIdx.x] = sum;
}

// A shared array of 8 elements for a block of 1024 threads: threads 8 to 1023 store past its end,
// far enough to leave the program's thread_local memory (where the shim puts shared arrays).
__global__ void small_shared(Element* data, std::size_t n, Element* result) {
  __shared__ Element partial[8];
  partial[threadIdx.x] = data[blockIdx.x * n + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) result[blockIdx.x] = partial[0];
}

// Written as a student might, and as nvcc accepts: a literal where an element goes, and a running
// sum in a plain int.
__global__ void plain_accumulators(Element* data, std::size_t n, Element* result) {
  if (threadIdx.x != 0) return;
  int sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += data[blockIdx.x * n + i];
  Element total = 0;
  total += sum;
  result[blockIdx.x] = total + 0;
}

}  // namespace kernels

// The kinds of finding of a run, each once.
std::vector<FindingKind> kinds(const reduction::emulator::EmulatedRun<int>& run) {
  std::vector<FindingKind> out;
  for (const auto& f : run.findings)
    if (std::find(out.begin(), out.end(), f.kind) == out.end()) out.push_back(f.kind);
  return out;
}

TEST_CASE("the emulator: a right kernel has no finding, in every schedule", "[emulator]") {
  std::vector<int> input(40);
  std::iota(input.begin(), input.end(), 1);
  for (auto kernel : {&kernels::serial_sum, &kernels::plain_accumulators}) {
    const auto run = emulate(kernel, input, 20, 2);
    INFO(run.describe());
    CHECK(run.findings.empty());
    REQUIRE(run.results.size() == 4);
    for (const auto& results : run.results) CHECK(results == std::vector<int>{210, 610});
  }
}

// Each defect on two rows of ones in a block of `threads`: the kinds of finding over every schedule
// (in the order found); whether the run stops at it (no result); what the first finding says.
TEST_CASE("the emulator: each defect gives its finding", "[emulator]") {
  struct Case {
    const char* name;
    void (*kernel)(Element*, std::size_t, Element*);
    unsigned threads;
    std::vector<FindingKind> expected;
    bool stops;
    std::vector<std::string> says;
  };
  const std::vector<Case> cases = {
      {"no_store", &kernels::no_store, 32, {FindingKind::kResultNotWritten}, false, {}},
      {"two_barriers", &kernels::two_barriers, 32, {FindingKind::kDivergentBarrier}, true,  // names both lines
       {"threads 0, 1, 2, 3 and 12 more wait at test_emulator.cpp:",
        "threads 16, 17, 18, 19 and 12 more wait at test_emulator.cpp:"}},
      {"all_write_one", &kernels::all_write_one, 32, {FindingKind::kRace, FindingKind::kWrongValue}, false, {}},
      {"reads_unwritten", &kernels::reads_unwritten, 32,
       {FindingKind::kUninitializedRead, FindingKind::kWrongValue}, false, {}},
      {"wrong_row", &kernels::wrong_row, 32, {FindingKind::kOutOfBounds, FindingKind::kWrongValue}, false, {}},
      // An endless loop is a finding, not a hang.
      {"endless_tree", &kernels::endless_tree, 32, {FindingKind::kEndlessLoop}, true, {"an endless loop?"}},
      {"endless_scan", &kernels::endless_scan, 32, {FindingKind::kEndlessLoop}, true, {"an endless loop?"}},
  // An index past an array is undefined behaviour, at which the sanitizers' build (the asan preset)
  // stops the program by design: this case runs in the other builds.
#if !defined(__SANITIZE_ADDRESS__)
      {"small_shared", &kernels::small_shared, 1024, {FindingKind::kOutOfBounds}, true,
       {"partial[8] of kernels::small_shared, past its end (8 elements): a __shared__ array declared smaller than "
        "the block of 1024 threads?"}},
#endif
  };
  for (const Case& c : cases) {
    const auto run = emulate(c.kernel, std::vector<int>(2 * c.threads, 1), c.threads, 2);
    INFO(c.name << ":\n" << run.describe());
    CHECK(kinds(run) == c.expected);
    REQUIRE(!run.findings.empty());
    for (const std::string& text : c.says) CHECK(run.findings[0].message.find(text) != std::string::npos);
    CHECK(run.results[0].empty() == c.stops);
  }
}

TEST_CASE("the emulator's recording: every load and store, with its value and level, thread by thread, and the "
          "findings", "[emulator]") {
  using reduction::single_block::Access;
  using reduction::single_block::Array;
  // serial_sum on 1 2 3 4 in a block of 4: each thread copies its element to partial[], then
  // thread 0 loads the four partial sums (its own variable `sum` is no memory access) and stores
  // 10, four additions deep, to *result. The list is sorted by thread, each thread's in its order.
  const auto recorded = reduction::emulator::record_accesses(&kernels::serial_sum, std::vector<int>{1, 2, 3, 4}, 4);
  CHECK(recorded.findings.empty());
  auto bits = [](int v) { return reduction::single_block::value_bits(v); };
  const std::vector<Access> expected = {
      {0, false, Array::kData, 0, bits(1), 0},    {0, true, Array::kPartial, 0, bits(1), 0},
      {0, false, Array::kPartial, 0, bits(1), 0}, {0, false, Array::kPartial, 1, bits(2), 0},
      {0, false, Array::kPartial, 2, bits(3), 0}, {0, false, Array::kPartial, 3, bits(4), 0},
      {0, true, Array::kResult, 0, bits(10), 4},  {1, false, Array::kData, 1, bits(2), 0},
      {1, true, Array::kPartial, 1, bits(2), 0},  {2, false, Array::kData, 2, bits(3), 0},
      {2, true, Array::kPartial, 2, bits(3), 0},  {3, false, Array::kData, 3, bits(4), 0},
      {3, true, Array::kPartial, 3, bits(4), 0}};
  CHECK(recorded.accesses == expected);
  // And the run's findings, of the one schedule it runs.
  const auto wrong = reduction::emulator::record_accesses(&kernels::no_store, std::vector<int>(32, 1), 32);
  REQUIRE(wrong.findings.size() == 1);
  CHECK(wrong.findings[0].kind == FindingKind::kResultNotWritten);
  CHECK(wrong.findings[0].schedule == "in order");
}
