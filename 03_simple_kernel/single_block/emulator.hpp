// A CPU emulator for the single-block kernels (chapters 03 to 05): the chapter's own kernel source,
// compiled by the host compiler, runs one emulated thread per CUDA thread, so that a student
// without a GPU learns whether the kernel is right (STYLE.md, point 17).
//
// How: each thread of the block runs on its own fiber (a small stack of its own, ucontext), and
// switches back to the emulator at every __syncthreads(). Between two barriers the emulator runs
// the threads in an order it chooses; a whole run of the kernel is repeated under several orders
// (schedules), each on a fresh copy of the input. The kernel is instantiated with Checked<V>, an
// element that reports each of its loads and stores (as reduction::Traced does on the GPU), and the
// emulator checks every access as it happens:
//  - a race: between two barriers (a "step"), an element written by one thread and read or written
//    by another. On a GPU the order of those two accesses is not defined; here it is a finding in
//    every schedule, whatever values the schedule happens to produce;
//  - out of bounds: an element past either end of its row of the input or of the result (guard
//    elements surround each buffer, so a stray read reads a poison value instead of crashing);
//  - a read of shared memory that no thread of the block has written yet (it reads a poison value);
//  - a __syncthreads() that not every thread reaches: some threads wait at a barrier while others
//    have returned, or wait at another one. On a GPU that hangs or silently does not wait; here the
//    run stops and says where;
//  - the result: never written, or not the sum of the row (exact for integers, within the error
//    bound of common/reference.hpp for floating point), or different from the first schedule's.
//
// It also records: record_accesses() runs one row in the in-order schedule and returns every load
// and store in the form that traced.cuh's record() gives on the GPU (single_block::Access, with
// values and dependency levels), with that run's findings. The programs of chapters 03 to 05 draw
// their analysis from it, so what they print comes from the kernel the student wrote, with or
// without a GPU; the GPU tests hold it against the recording made on the GPU.
//
// Use: include this header after every other header and just before the kernel headers: it ends
// with a shim that turns the CUDA keywords (__global__, __shared__, threadIdx, __syncthreads(), ...)
// into host C++ for the emulator. Only host-compiled sources include it: the CPU tests, and each
// chapter's emulated.cpp, which the program calls.
//
//   #include "03_simple_kernel/single_block/emulator.hpp"
//   #include "convergent.cuh"
//   auto run = reduction::emulator::emulate(&ch04::convergent_kernel<Checked<int>>, input, threads);
//   run.findings: empty if the kernel was right in every schedule.
//   auto one = reduction::emulator::record_accesses(&ch04::convergent_kernel<Checked<int>>, row, threads);
//   one.accesses: what each thread loaded and stored; one.findings: empty if the run was right.
//
// Left out: warp-level code (__syncwarp, shuffles, volatile), atomics, more than one dimension of
// threads, and kernels that keep anything but Checked<V> elements in shared or global memory.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "03_simple_kernel/single_block/block_events.hpp"
#include "common/ops.hpp"
#include "common/reference.hpp"

namespace reduction::emulator {

struct Dim3 {
  unsigned x = 0, y = 0, z = 0;
};

// What a run can find. The names are those a zoo.txt writes after `emulator:`.
enum class FindingKind { kRace, kOutOfBounds, kUninitializedRead, kDivergentBarrier, kResultNotWritten, kWrongValue };
const char* kind_name(FindingKind kind);

struct Finding {
  FindingKind kind;
  std::string schedule;
  std::string message;  // the first such event in the schedule's run, in words, with how many there were
};

// The orders in which the threads of a block run between two barriers.
enum class Schedule {
  kInOrder,        // thread 0, 1, 2, ... each to its next barrier
  kReversed,       // the last thread first
  kFirstWarpLast,  // warp 0 runs after every other warp (a late warp)
  kInterleaved,    // round robin, the threads taking turns at every load and store
};
constexpr Schedule kSchedules[] = {Schedule::kInOrder, Schedule::kReversed, Schedule::kFirstWarpLast,
                                   Schedule::kInterleaved};
const char* schedule_name(Schedule schedule);

namespace detail {

// One global buffer of the launch: `count` elements from `begin`, `row_length` per block, with
// `guard` elements of poison on either side.
struct Buffer {
  const char* name;
  const void* begin;
  std::size_t count, row_length, guard, element_size;
};

// The outcome of one run of the kernel under one schedule (emulator.cpp runs it).
struct RunOutcome {
  bool finished = false;                  // false: stopped at a barrier not every thread reached
  std::vector<bool> result_written;       // per row
  std::vector<Finding> findings;
};

// One load or store of a buffer or of shared memory, as a recording run logs it: by address (the
// template that knows the buffers turns it into a single_block::Access).
struct Logged {
  std::uint32_t thread = 0;
  bool write = false, shared = false;
  std::uintptr_t address = 0;
  std::uint64_t value_bits = 0;
  std::uint32_t level = 0;
};

// Runs `kernel` (the launch of every block: blockIdx tells it which) with `threads` threads per
// block and `blocks` blocks, one block after another, under `schedule`. `poison` overwrites an
// element about to be read that holds nothing valid (an unwritten shared element). `log`, if not
// null, receives every access inside a row of a buffer or in shared memory, in the order they ran.
RunOutcome run_kernel(const std::function<void()>& kernel, unsigned threads, unsigned blocks, Schedule schedule,
                      const std::vector<Buffer>& buffers, std::size_t result_buffer,
                      const std::function<void(void*)>& poison, std::vector<Logged>* log = nullptr);

// Called by Checked<V> before each of its loads and stores; does nothing outside a run. `value`
// (`size` bytes) is what the access carries: for a load it is read after the checks, which may
// have put poison there.
extern bool running;
void access(bool write, const void* where, const void* value, std::size_t size, std::uint32_t level);
inline void load(const void* where, const void* value, std::size_t size, std::uint32_t level) {
  if (running) access(false, where, value, size, level);
}
inline void store(const void* where, const void* value, std::size_t size, std::uint32_t level) {
  if (running) access(true, where, value, size, level);
}

// The shim's side: the running thread's indices, and the barrier.
extern Dim3 thread_idx, block_idx, block_dim, grid_dim;
void sync_threads(const char* file, int line);

// A value no correct kernel produces: guard elements and unwritten shared memory hold it. NaN
// for floating point (NaN never passes a check); an odd large number for integers.
template <typename V> V poison_value() {
  if constexpr (std::is_floating_point_v<V>) return V(NAN);
  else return V(-559038737);  // 0xdeadbeef
}

template <typename V> std::string to_text(V v) {
  return std::to_string(v);
}

// A recording run's log as single_block::Access, in the form traced.cuh's record() gives: sorted by
// thread (stable, so each thread's accesses stay in its order), the elements by index.
inline std::vector<single_block::Access> accesses_of(const std::vector<Logged>& log, const void* data,
                                                     const void* result, std::size_t element_size) {
  using single_block::Array;
  std::uintptr_t shared_base = ~std::uintptr_t(0);
  for (const Logged& l : log)
    if (l.shared) shared_base = std::min(shared_base, l.address);
  const auto data_begin = reinterpret_cast<std::uintptr_t>(data),
             result_begin = reinterpret_cast<std::uintptr_t>(result);
  std::vector<single_block::Access> out;
  for (const Logged& l : log) {
    single_block::Access a{l.thread, l.write, Array::kData, 0, l.value_bits, l.level};
    if (l.shared) {
      a.array = Array::kPartial;
      a.index = std::uint32_t((l.address - shared_base) / element_size);
    } else if (l.address >= result_begin && l.address < result_begin + element_size) {
      a.array = Array::kResult;
    } else {
      a.index = std::uint32_t((l.address - data_begin) / element_size);
    }
    out.push_back(a);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.thread < b.thread; });
  return out;
}

}  // namespace detail

// An element of type V that reports its loads and stores to the emulator, and carries, as
// reduction::Traced does on the GPU, its dependency level: the additions on the longest path from
// the input to its value (the steps of the tree are told apart by it):
//  - the copy constructor loads its source: reduction::Sum takes its operands by value, so
//    `add(data[i], data[j])` loads data[i] and data[j];
//  - the copy assignment loads its source and stores its target: `data[i] = ...`;
//  - the addition adds the values (Sum's wrap-around for integers), one level deeper than its
//    deeper operand.
// A copy between a thread's own variables (on its fiber's stack) is no memory access: the emulator
// ignores it. The default constructor is trivial, so that `__shared__ Checked<V> partial[1024]`
// (a static array under the shim) needs no constructor call.
template <typename V>
struct Checked {
  V value;
  std::uint32_t level;

  Checked() = default;
  explicit Checked(V v, std::uint32_t depth = 0) : value(v), level(depth) {}
  Checked(const Checked& other) {
    detail::load(&other, &other.value, sizeof(V), other.level);
    value = other.value;
    level = other.level;
  }
  Checked& operator=(const Checked& other) {
    detail::load(&other, &other.value, sizeof(V), other.level);
    const V v = other.value;  // read before the store is reported: another thread may run between them
    const std::uint32_t depth = other.level;
    detail::store(this, &v, sizeof(V), depth);
    value = v;
    level = depth;
    return *this;
  }
  friend Checked operator+(Checked a, Checked b) {
    return Checked(Sum{}(a.value, b.value), std::max(a.level, b.level) + 1);
  }
  Checked& operator+=(const Checked& other) { return *this = *this + other; }
};

// The outcome of emulate(): each schedule's results (one per row) and every finding.
template <typename V>
struct EmulatedRun {
  std::vector<Schedule> schedules;
  std::vector<std::vector<V>> results;  // per schedule, per row (empty for a run that stopped)
  std::vector<Finding> findings;        // empty: right in every schedule

  bool has(FindingKind kind) const {
    for (const Finding& f : findings)
      if (f.kind == kind) return true;
    return false;
  }
  std::string describe() const {
    std::string text;
    for (const Finding& f : findings)
      text += std::string(kind_name(f.kind)) + " (schedule " + f.schedule + "): " + f.message + "\n";
    return text.empty() ? "no findings\n" : text;
  }
};

namespace detail {

// emulate() and record_accesses(): `kernel` on `input` in each of `schedules`; `accesses`, if not
// null, receives the accesses of the first schedule's run.
template <typename V, typename Kernel>
EmulatedRun<V> emulate_in(Kernel kernel, const std::vector<V>& input, unsigned threads, std::size_t rows,
                          const std::vector<Schedule>& schedules, std::vector<single_block::Access>* accesses) {
  using Element = Checked<V>;
  const std::size_t n = input.size() / rows;
  // Guards wide enough for any index a single-block kernel of these chapters computes
  // (below 2 x 2048): a read past them would be a read of memory that is not there.
  const std::size_t guard = 4096;
  EmulatedRun<V> run;
  // The first finished schedule's results: where they are right, every other schedule must give the
  // same bits (a kernel without a race adds in the same order whatever the order of its threads).
  std::vector<V> first;
  std::vector<bool> first_right;
  for (Schedule schedule : schedules) {
    std::vector<Element> data(guard + input.size() + guard, Element(detail::poison_value<V>()));
    std::vector<Element> result(guard + rows + guard, Element(detail::poison_value<V>()));
    for (std::size_t i = 0; i < input.size(); ++i) data[guard + i] = Element(input[i]);
    Element* data_begin = data.data() + guard;
    Element* result_begin = result.data() + guard;
    const std::vector<detail::Buffer> buffers = {{"data", data_begin, input.size(), n, guard, sizeof(Element)},
                                                 {"result", result_begin, rows, 1, guard, sizeof(Element)}};
    std::vector<detail::Logged> log;
    const bool recording = accesses && run.schedules.empty();
    const detail::RunOutcome outcome = detail::run_kernel(
        [&] { kernel(data_begin, n, result_begin); }, threads, unsigned(rows), schedule, buffers, 1,
        [](void* element) { static_cast<Element*>(element)->value = detail::poison_value<V>(); },
        recording ? &log : nullptr);
    if (recording) *accesses = detail::accesses_of(log, data_begin, result_begin, sizeof(Element));
    run.schedules.push_back(schedule);
    run.findings.insert(run.findings.end(), outcome.findings.begin(), outcome.findings.end());
    std::vector<V> values;
    if (outcome.finished) {
      for (std::size_t row = 0; row < rows; ++row) values.push_back(result_begin[row].value);
      std::size_t wrong = 0, unwritten = 0;
      std::string first_wrong, first_unwritten;
      for (std::size_t row = 0; row < rows; ++row) {
        if (!outcome.result_written[row]) {
          if (unwritten++ == 0) first_unwritten = "no thread of block " + std::to_string(row) + " stored result[" +
                                                  std::to_string(row) + "]";
          continue;
        }
        const Reference<V> ref = reference_sum(input.data() + row * n, n);
        const long double tol = tolerance(ref, ceil_log2(n));  // the tree's depth: ceil(log2 n) additions
        std::string why;
        if (!matches(values[row], ref, tol))
          why = "is not the sum of the row: its reference is " + detail::to_text(ref.value) +
                (ref.exact ? " (exact)" : " within " + std::to_string(double(tol)));
        else if (!first.empty() && first_right[row] && std::memcmp(&values[row], &first[row], sizeof(V)) != 0)
          why = "differs from schedule " + std::string(schedule_name(run.schedules.front())) + "'s " +
                detail::to_text(first[row]) + ": the same kernel on the same input must add in the same order";
        if (first.empty()) first_right.push_back(why.empty());
        if (!why.empty() && wrong++ == 0)
          first_wrong = "row " + std::to_string(row) + " of " + std::to_string(n) + " elements gave " +
                        detail::to_text(values[row]) + ", which " + why;
      }
      const std::string name = schedule_name(schedule);
      if (unwritten)
        run.findings.push_back({FindingKind::kResultNotWritten, name,
                                first_unwritten + " (" + std::to_string(unwritten) + " of " + std::to_string(rows) +
                                    " rows unwritten)"});
      if (wrong)
        run.findings.push_back({FindingKind::kWrongValue, name,
                                first_wrong + " (" + std::to_string(wrong) + " of " + std::to_string(rows) +
                                    " rows wrong)"});
      if (first.empty()) first = values;
    }
    run.results.push_back(values);
  }
  return run;
}

}  // namespace detail

// Launches `kernel` (a chapter's kernel instantiated with Checked<V>) as <<<rows, threads>>> on
// `input` (rows of input.size() / rows elements, one after another) in every schedule, and checks
// each row's result against its CPU reference.
template <typename V, typename Kernel>
EmulatedRun<V> emulate(Kernel kernel, const std::vector<V>& input, unsigned threads, std::size_t rows = 1) {
  return detail::emulate_in(kernel, input, threads, rows, {std::begin(kSchedules), std::end(kSchedules)}, nullptr);
}

// The findings in words, one line each ("race: ..."), as the programs print them; empty if none.
std::string findings_text(const std::vector<Finding>& findings);

// What one run of a kernel did, and what the emulator found in it.
struct RecordedRun {
  std::vector<single_block::Access> accesses;
  std::vector<Finding> findings;  // empty: the run was right (result written and the row's sum,
                                  // no race, no access out of bounds, every barrier reached)
};

// Launches `kernel` (a chapter's kernel instantiated with Checked<V>) as <<<1, threads>>> on one
// row, in the in-order schedule, and returns its accesses as traced.cuh's record() returns the
// GPU's: each thread's in its own order, sorted by thread; the elements named by their index in the
// row (data), in shared memory (partial, counted from the lowest shared address touched) or in the
// result. A race is found in any order of the threads, so one schedule is enough to know whether
// the kernel is right; the tests (emulator_checks.hpp) try every order. Accesses out of bounds are
// not in the list: they are findings.
template <typename V, typename Kernel>
RecordedRun record_accesses(Kernel kernel, const std::vector<V>& row, unsigned threads) {
  RecordedRun recorded;
  recorded.findings = detail::emulate_in(kernel, row, threads, 1, {Schedule::kInOrder}, &recorded.accesses).findings;
  return recorded;
}

}  // namespace reduction::emulator

// The shim: the CUDA that the kernels of chapters 03 to 05 use, as host C++ for the emulator.
// __shared__ becomes static: one array for the block, which the blocks use one after another.
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define threadIdx (::reduction::emulator::detail::thread_idx)
#define blockIdx (::reduction::emulator::detail::block_idx)
#define blockDim (::reduction::emulator::detail::block_dim)
#define gridDim (::reduction::emulator::detail::grid_dim)
#define __syncthreads() ::reduction::emulator::detail::sync_threads(__FILE__, __LINE__)
