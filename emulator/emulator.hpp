// A CPU emulator for the kernels of chapters 03 to 09 (one block, a grid, or a grid's launches).
// README.md beside this file says how it runs them, what it finds and what it cannot see.
//
// Include it after every other header and just before the kernel headers: it ends with a shim that
// turns the CUDA keywords (__global__, __shared__, threadIdx, __syncthreads(), ...) into host C++.
//
//   #include "emulator/emulator.hpp"
//   #include "convergent.cuh"
//   auto run = reduction::emulator::emulate(&ch04::convergent_kernel<Checked<int>>, input, threads);
//   run.findings: empty if the kernel was right in every schedule.
//
// Left out: atomics other than atomicAdd and atomicInc, more than one dimension of threads, shuffles
// of anything but whole values, and anything but Checked<V> (or 09's integer words) in shared or
// global memory.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "emulator/block_events.hpp"
#include "common/ops.hpp"
#include "common/reference.hpp"

namespace reduction::emulator {

struct Dim3 {
  unsigned x = 0, y = 0, z = 0;
};

// What a run can find (README.md's table says what each means). The names are those a bug list of
// instructor/zoo/ writes after `emulator:`.
enum class FindingKind {
  kRace,
  kOutOfBounds,
  kUninitializedRead,
  kDivergentBarrier,
  kResultNotWritten,
  kWrongValue,
  kBadWarpMask,
  kEndlessLoop
};
constexpr std::size_t kFindingKinds = 8;
const char* kind_name(FindingKind kind);

constexpr unsigned kMaxBarriers = 1000;
constexpr std::uint64_t kMaxAccessesPerStep = 1000000;

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

namespace detail {

// One global buffer of the launch: `count` elements from `begin`, `row_length` per block, with
// `guard` elements of poison on either side.
struct Buffer {
  const char* name;
  const void* begin;
  std::size_t count, row_length, guard, element_size;
  bool whole_grid = false;  // true: every block may touch every element (a grid's input), not only its row
  // Not null: which elements hold a value, kept by the caller from one launch to the next (the
  // block partials of a two-pass reduction); a read of one that none holds is an uninitialized read.
  std::vector<bool>* written = nullptr;
};

// The memory a kernel's `extern __shared__` array names (REDUCTION_EMULATOR_DYNAMIC_SHARED below
// defines it): `capacity` bytes from `begin`, of which a launch gives each block `bytes`.
struct DynamicShared {
  unsigned char* begin = nullptr;
  std::size_t capacity = 0, bytes = 0;
};

// The outcome of one run of the kernel under one schedule (emulator.cpp runs it).
struct RunOutcome {
  bool finished = false;                  // false: stopped at a barrier not every thread reached
  std::vector<bool> result_written;       // per row
  std::vector<Finding> findings;
};

using Logged = single_block::LoggedAccess;  // one access, as a recording run logs it

// Runs `kernel` (the launch of every block: blockIdx tells it which) in `blocks` blocks of `threads`,
// one block after another (`blocks_reversed`: the last first), under `schedule`. `poison` overwrites
// an unwritten shared element about to be read. `log`, if not null, receives every access inside a
// row of a buffer or in shared memory, in the order they ran.
RunOutcome run_kernel(const std::function<void()>& kernel, unsigned threads, unsigned blocks, Schedule schedule,
                      const std::vector<Buffer>& buffers, std::size_t result_buffer,
                      const std::function<void(void*)>& poison, std::vector<Logged>* log = nullptr,
                      bool blocks_reversed = false, DynamicShared dynamic = {});

// A schedule's name as the findings give it: the threads' order, and the blocks' if reversed.
std::string schedule_text(Schedule schedule, bool blocks_reversed);

// These three do nothing outside a run. access(): called by Checked<V> before each of its loads and
// stores; `value` is what the access carries: for a load it is read after the checks, which may
// have put poison there. atomic_access(): called by atomicAdd before its read-add-write, one atomic
// access, which races with no other. load_bytes(): a 16-byte vector load through __ldg, a load of
// each element of its buffer that the bytes cover.
void access(bool write, const void* where, const void* value, std::size_t size, std::uint32_t level);
void atomic_access(const void* where, const void* value, std::size_t size, std::uint32_t level);
void load_bytes(const void* where, std::size_t size);

// The shim's side: the running thread's indices, and the barrier.
extern Dim3 thread_idx, block_idx, block_dim, grid_dim;
void sync_threads(const char* file, int line);

// The warp's side. __syncwarp(mask): the lanes of `mask` wait for one another, and their accesses
// before it are ordered before those after it. Shuffles: every lane of `mask` must arrive at one of
// the same kind and mask; then each receives, through `copy`, its source lane's `value`. A shuffle
// orders no memory access (CUDA promises that only of __syncwarp). __threadfence(): the thread's
// global stores before it are seen by any block that sees its atomics after it.
enum class ShuffleKind { kIndexed, kUp, kDown, kXor };
void sync_warp(unsigned mask, const char* file, int line);
void shuffle(ShuffleKind kind, unsigned mask, const void* value, void* result, void (*copy)(void*, const void*),
             int lane_or_delta, int width, const char* file, int line);
void thread_fence();

// A value no correct kernel produces: guard elements and unwritten shared memory hold it. NaN
// for floating point (NaN never passes a check); an odd large number for integers.
template <typename V> V poison_value() {
  if constexpr (std::is_floating_point_v<V>) return V(NAN);
  else return V(-559038737);  // 0xdeadbeef
}

// A vector of `count` elements with `guard` poison elements either side, its first element
// `misalignment` elements past a 64-byte boundary: a kernel's vector loads then see the alignment
// the test chose, not the allocator's.
template <typename Element>
struct GuardedBuffer {
  std::vector<Element> storage;
  Element* begin = nullptr;
  GuardedBuffer(std::size_t count, std::size_t guard, std::size_t misalignment, const Element& poison)
      : storage(guard + 2 * 64 + count + guard, poison) {
    auto at = reinterpret_cast<std::uintptr_t>(storage.data() + guard);
    at = (at + 63) / 64 * 64 + misalignment * sizeof(Element);
    begin = reinterpret_cast<Element*>(at);
  }
};

}  // namespace detail

// An element of type V that reports its loads and stores to the emulator and carries, as
// reduction::Traced does on the GPU, its dependency level (the additions on the longest path from
// the input to its value). The copy constructor loads its source (Sum takes its operands by value,
// so `add(data[i], data[j])` loads both); the copy assignment loads its source and stores its
// target; through a `volatile` pointer the same (volatile orders nothing between threads). A copy
// between a thread's own variables (on its fiber's stack) is no memory access. The default
// constructor is trivial, so that a `__shared__` array (thread_local under the shim) needs no call.
template <typename V>
struct Checked {
  V value;
  std::uint32_t level;

  Checked() = default;
  explicit Checked(V v, std::uint32_t depth = 0) : value(v), level(depth) {}
  Checked(const Checked& other) {
    detail::access(false, &other, &other.value, sizeof(V), other.level);
    value = other.value;
    level = other.level;
  }
  Checked(const volatile Checked& other) : Checked(const_cast<const Checked&>(other)) {}
  Checked& operator=(const Checked& other) {
    const Checked loaded(other);  // read before the store is reported: another thread may run between them
    detail::access(true, this, &loaded.value, sizeof(V), loaded.level);
    value = loaded.value;
    level = loaded.level;
    return *this;
  }
  Checked& operator=(const volatile Checked& other) { return *this = Checked(other); }
  void operator=(const Checked& other) volatile { const_cast<Checked&>(*this) = other; }
  friend Checked operator+(Checked a, Checked b) {
    return Checked(Sum{}(a.value, b.value), std::max(a.level, b.level) + 1);
  }
  friend Checked maximum(Checked a, Checked b) { return Checked(Max{}(a.value, b.value), std::max(a.level, b.level) + 1); }
  friend Checked minimum(Checked a, Checked b) { return Checked(Min{}(a.value, b.value), std::max(a.level, b.level) + 1); }
  Checked& operator+=(const Checked& other) { return *this = *this + other; }

  // What nvcc accepts in a kernel, the emulator accepts too: a literal or a plain variable where an
  // element goes (`T sum = 0;`, `partial[t] + 1`), and an element read into a plain variable
  // (`int sum = 0; sum += input[i];`, checked as a load of the element).
  template <typename U, typename = std::enable_if_t<std::is_arithmetic_v<U>>>
  Checked(U v) : value(static_cast<V>(v)), level(0) {}
  operator V() const {
    detail::access(false, this, &value, sizeof(V), level);
    return value;
  }
  template <typename U, typename = std::enable_if_t<std::is_arithmetic_v<U>>>
  friend Checked operator+(Checked a, U b) {
    return a + Checked(b);
  }
  template <typename U, typename = std::enable_if_t<std::is_arithmetic_v<U>>>
  friend Checked operator+(U a, Checked b) {
    return Checked(a) + b;
  }
};

}  // namespace reduction::emulator
template <typename V> struct reduction::Scalar<reduction::emulator::Checked<V>> { using type = V; };  // for identities
// A kernel's other arrays (09's exact_kernel: its words) as checked elements too.
template <typename V, typename U> struct reduction::Rebind<reduction::emulator::Checked<V>, U> {
  using type = reduction::emulator::Checked<U>;
};
namespace reduction::emulator {

// The outcome of emulate(): each schedule's results (one per row) and every finding.
template <typename V>
struct EmulatedRun {
  std::vector<Schedule> schedules;
  std::vector<bool> blocks_reversed;    // per schedule: whether the last block ran first
  std::vector<std::vector<V>> results;  // per schedule, per row (empty for a run that stopped)
  std::vector<Finding> findings;        // empty: right in every schedule

  bool has(FindingKind kind) const {
    return std::any_of(findings.begin(), findings.end(), [kind](const Finding& f) { return f.kind == kind; });
  }
  std::string describe() const {
    std::string text;
    for (const Finding& f : findings)
      text += std::string(kind_name(f.kind)) + " (schedule " + f.schedule + "): " + f.message + "\n";
    return text.empty() ? "no findings\n" : text;
  }
};

namespace detail {

// What the runs pass as `poison`: an element about to be read that holds nothing gets the poison.
template <typename V>
void poison_element(void* element) {
  static_cast<Checked<V>*>(element)->value = poison_value<V>();
}

// emulate() and record_accesses(): `kernel` on `input` in each of `schedules`; `accesses`, if not
// null, receives the accesses of the first schedule's run.
template <typename V, typename Kernel>
EmulatedRun<V> emulate_in(Kernel kernel, const std::vector<V>& input, unsigned threads, std::size_t rows,
                          const std::vector<Schedule>& schedules, std::vector<single_block::Access>* accesses) {
  using Element = Checked<V>;
  const std::size_t n = input.size() / rows;
  const std::size_t guard = 4096;  // past any index these kernels compute (below 2 x 2048)
  EmulatedRun<V> run;
  // The first finished schedule's results: where they are right, every other schedule must give the
  // same bits (a kernel without a race adds in the same order whatever the order of its threads).
  std::vector<V> first;
  std::vector<bool> first_right(rows);  // false where that run left the row unwritten
  std::string first_name;
  for (const Schedule schedule : schedules) {
    const Element poison(poison_value<V>());
    GuardedBuffer<Element> data(input.size(), guard, 0, poison), result(rows, guard, 0, poison);
    for (std::size_t i = 0; i < input.size(); ++i) data.begin[i] = Element(input[i]);
    const std::vector<detail::Buffer> buffers = {{"data", data.begin, input.size(), n, guard, sizeof(Element)},
                                                 {"result", result.begin, rows, 1, guard, sizeof(Element)}};
    std::vector<detail::Logged> log;
    const bool recording = accesses && run.schedules.empty();
    const detail::RunOutcome outcome =
        detail::run_kernel([&] { kernel(data.begin, n, result.begin); }, threads, unsigned(rows), schedule, buffers, 1,
                           &poison_element<V>, recording ? &log : nullptr);
    if (recording)
      *accesses = single_block::accesses_from(log, reinterpret_cast<std::uintptr_t>(data.begin), n,
                                              reinterpret_cast<std::uintptr_t>(result.begin), sizeof(Element));
    run.schedules.push_back(schedule);
    run.blocks_reversed.push_back(false);
    run.findings.insert(run.findings.end(), outcome.findings.begin(), outcome.findings.end());
    std::vector<V> values;
    if (outcome.finished) {
      for (std::size_t row = 0; row < rows; ++row) values.push_back(result.begin[row].value);
      std::size_t wrong = 0, unwritten = 0;
      std::string first_wrong, first_unwritten;
      for (std::size_t row = 0; row < rows; ++row) {
        if (!outcome.result_written[row]) {
          if (unwritten++ == 0)
            first_unwritten =
                "no thread of block " + std::to_string(row) + " stored result[" + std::to_string(row) + "]";
          continue;
        }
        const Reference<V> ref = reference_sum(input.data() + row * n, n);
        const long double tol = tolerance(ref, ceil_log2(n));  // one block's tree: ceil(log2 n) additions
        std::string why;
        if (!matches(values[row], ref, tol))
          why = "is not the sum of the row: its reference is " + std::to_string(ref.value) +
                (ref.exact ? " (exact)" : " within " + std::to_string(double(tol)));
        else if (!first.empty() && first_right[row] && std::memcmp(&values[row], &first[row], sizeof(V)) != 0)
          why = "differs from schedule " + first_name + "'s " + std::to_string(first[row]) +
                ": the same kernel on the same input must add in the same order";
        if (first.empty()) first_right[row] = why.empty();
        if (!why.empty() && wrong++ == 0)
          first_wrong = "row " + std::to_string(row) + " of " + std::to_string(n) + " elements gave " +
                        std::to_string(values[row]) + ", which " + why;
      }
      const auto add_finding = [&](FindingKind kind, std::size_t count, const std::string& text, const char* what) {
        const std::string of = std::to_string(count) + " of " + std::to_string(rows) + " rows " + what;
        if (count) run.findings.push_back({kind, schedule_text(schedule, false), text + " (" + of + ")"});
      };
      add_finding(FindingKind::kResultNotWritten, unwritten, first_unwritten, "unwritten");
      add_finding(FindingKind::kWrongValue, wrong, first_wrong, "wrong");
      if (first.empty()) {
        first = values;
        first_name = schedule_text(schedule, false);
      }
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

// Chapters 08 and 09: a reduction in one or more launches, as their launchers make them. The memory
// that every launch of one run sees: the input, the block partials (unwritten at the start), the
// result, and the one-pass kernel's block counter, at zero.
template <typename V>
struct PassMemory {
  const Checked<V>* input;
  std::size_t n;
  Checked<V>* partials;
  Checked<V>* result;
  unsigned* blocks_done;
  long long* sum_words;  // 09's exact finish: integer words, zero at the start, added to by atomics
};

// One launch, <<<blocks, threads, shared_bytes>>>: `kernel` calls the chapter's kernel with the
// arguments its launcher passes.
template <typename V>
struct Pass {
  unsigned blocks = 1, threads = 32;
  std::size_t shared_bytes = 0;
  std::function<void(const PassMemory<V>&)> kernel;
};

// Where a sequence of launches leaves its answer.
enum class Answer {
  kResult,              // result[0], unwritten at the start
  kResultFromIdentity,  // result[0], which starts at the identity: the blocks add into it with atomics
  kPartialsOnHost,      // the partials, each written, which the host adds in order (08's finish_cpu)
};

struct PassesOptions {
  std::size_t partials = 0;      // how many block partials the scratch holds
  Answer answer = Answer::kResult;
  std::size_t depth = 0;         // the tolerance's rounded additions (the chapter's depth)
  bool same_bits = false;        // a fixed order of additions: every schedule gives the same bits
  std::size_t misalignment = 0;  // the input starts this many elements past a 64-byte boundary
  std::size_t sum_words = 0;     // how many words sum_words holds; each must end at zero again
  bool check_value = true;       // false: the caller checks the results itself (09's exact sum, bit for bit)
};

// Runs `passes` one after another on one fresh copy of the memory, in every order of the threads,
// the blocks first to last and then last to first, and checks the answer for Op (Sum, Max, Min)
// against the CPU reference within `options.depth` rounded additions. A launch ends with every block
// done, so races, atomics and fences are checked within a launch. `dynamic`: the array that
// REDUCTION_EMULATOR_DYNAMIC_SHARED defined for the kernels' `extern __shared__` declaration.
template <typename Op = Sum, typename V, std::size_t kCapacity>
EmulatedRun<V> emulate_passes(const std::vector<V>& input, const std::vector<Pass<V>>& passes,
                              const PassesOptions& options, unsigned char (&dynamic)[kCapacity]) {
  using Element = Checked<V>;
  const std::size_t guard = 4096, n = input.size();
  if (options.misalignment * sizeof(Element) >= 64) throw std::invalid_argument("emulate_passes: misalignment");
  for (const Pass<V>& pass : passes)
    if (pass.shared_bytes > kCapacity) throw std::length_error("emulate_passes: more dynamic shared memory than defined");
  const Element poison(detail::poison_value<V>());
  EmulatedRun<V> run;
  bool have_first = false, first_right = false;
  V first{};
  std::string first_name;
  for (std::size_t order = 0; order < 2 * std::size(kSchedules); ++order) {
    const Schedule schedule = kSchedules[order % std::size(kSchedules)];
    const bool blocks_reversed = order >= std::size(kSchedules);
    const std::string name = detail::schedule_text(schedule, blocks_reversed);
    detail::GuardedBuffer<Element> data(n, guard, options.misalignment, poison),
        partials(options.partials, guard, 0, poison), result(1, guard, 0, poison);
    detail::GuardedBuffer<unsigned> counter(1, guard, 0, 0xdeadbeefu);
    detail::GuardedBuffer<long long> words(options.sum_words, guard, 0, 0);  // zero, as the launcher keeps them
    for (std::size_t i = 0; i < n; ++i) data.begin[i] = Element(input[i]);
    if (options.answer == Answer::kResultFromIdentity) result.begin[0] = Element(Op::template identity<V>());
    counter.begin[0] = 0;
    std::vector<bool> partials_written(options.partials, false);
    const std::vector<detail::Buffer> buffers = {
        {"input", data.begin, n, n, guard, sizeof(Element), true},
        {"partials", partials.begin, options.partials, options.partials, guard, sizeof(Element), true,
         &partials_written},
        {"result", result.begin, 1, 1, guard, sizeof(Element), true},
        {"blocks_done", counter.begin, 1, 1, guard, sizeof(unsigned), true},
        {"sum_words", words.begin, options.sum_words, options.sum_words, guard, sizeof(long long), true}};
    const std::size_t answer_buffer = options.answer == Answer::kPartialsOnHost ? 1 : 2;
    const PassMemory<V> memory{data.begin, n, partials.begin, result.begin, counter.begin, words.begin};
    std::vector<bool> written(buffers[answer_buffer].count, false);
    bool finished = true;
    for (std::size_t p = 0; p < passes.size() && finished; ++p) {
      const Pass<V>& pass = passes[p];
      const detail::RunOutcome outcome =
          detail::run_kernel([&] { pass.kernel(memory); }, pass.threads, pass.blocks, schedule, buffers, answer_buffer,
                             &detail::poison_element<V>, nullptr, blocks_reversed,
                             detail::DynamicShared{dynamic, kCapacity, pass.shared_bytes});
      for (Finding f : outcome.findings) {
        if (passes.size() > 1)
          f.message = "launch " + std::to_string(p + 1) + " of " + std::to_string(passes.size()) + ": " + f.message;
        run.findings.push_back(f);
      }
      for (std::size_t i = 0; i < written.size(); ++i) written[i] = written[i] || outcome.result_written[i];
      finished = outcome.finished;
    }
    run.schedules.push_back(schedule);
    run.blocks_reversed.push_back(blocks_reversed);
    if (!finished) {
      run.results.push_back({});
      continue;
    }
    const std::size_t unwritten = std::size_t(std::count(written.begin(), written.end(), false));
    if (unwritten) {
      const std::string what = options.answer == Answer::kPartialsOnHost
                                   ? std::to_string(unwritten) + " of " + std::to_string(written.size()) +
                                         " partials never written: the host would add what the scratch held"
                               : options.answer == Answer::kResultFromIdentity
                                   ? "no thread of any block added to result[0]"
                                   : "no launch wrote result[0]";
      run.findings.push_back({FindingKind::kResultNotWritten, name, what});
      run.results.push_back({});
      continue;
    }
    // The answer, as the launcher takes it: result[0], or the host's loop over the partials.
    V value = result.begin[0].value;
    if (options.answer == Answer::kPartialsOnHost) {
      value = Op::template identity<V>();
      for (std::size_t i = 0; i < options.partials; ++i) value = Op{}(value, partials.begin[i].value);
    }
    std::string why;
    const Reference<V> ref = options.check_value ? reference_reduce<Op>(input.data(), n) : Reference<V>{};
    const long double tol = options.check_value ? tolerance(ref, options.depth) : 0;
    if (!options.check_value)
      ;  // the caller's check
    else if (!matches(value, ref, tol))
      why = "is not the " + std::string(Op::name) + ": its reference is " + std::to_string(ref.value) +
            (ref.exact ? " (exact)" : " within " + std::to_string(double(tol)));
    else if (options.same_bits && have_first && first_right && std::memcmp(&value, &first, sizeof(V)) != 0)
      why = "differs from schedule " + first_name + "'s " + std::to_string(first) +
            ": a fixed order of additions gives the same bits in any order of the threads and blocks";
    if (!why.empty())
      run.findings.push_back({FindingKind::kWrongValue, name,
                              std::to_string(n) + " elements gave " + std::to_string(value) + ", which " + why});
    if (counter.begin[0] != 0)
      run.findings.push_back({FindingKind::kWrongValue, name,
                              "blocks_done ends at " + std::to_string(counter.begin[0]) +
                                  ", not 0: the next launch's blocks would count from there"});
    for (std::size_t i = 0; i < options.sum_words; ++i)
      if (words.begin[i] != 0) {
        run.findings.push_back({FindingKind::kWrongValue, name,
                                "sum_words[" + std::to_string(i) + "] ends at " + std::to_string(words.begin[i]) +
                                    ", not 0: the next launch would add to what it holds"});
        break;
      }
    if (!have_first) {
      have_first = true;
      first_right = why.empty();
      first = value;
      first_name = name;
    }
    run.results.push_back({value});
  }
  return run;
}

// One launch of a grid kernel, <<<blocks, threads, shared_bytes>>>, with one result that starts at
// the identity (as the chapters' launchers clear it), checked within `depth` rounded additions (the
// chapter's depth()), as emulate_passes() checks a launcher's launches.
template <typename V, typename Kernel, std::size_t kCapacity>
EmulatedRun<V> emulate_grid(Kernel kernel, const std::vector<V>& input, unsigned blocks, unsigned threads,
                            std::size_t shared_bytes, std::size_t depth, unsigned char (&dynamic)[kCapacity]) {
  PassesOptions options;
  options.answer = Answer::kResultFromIdentity;
  options.depth = depth;
  const auto launch = [kernel](const PassMemory<V>& memory) { kernel(memory.input, memory.n, memory.result); };
  return emulate_passes(input, {Pass<V>{blocks, threads, shared_bytes, launch}}, options, dynamic);
}

// The findings in words, one line each ("race: ..."), as the programs print them; empty if none.
std::string findings_text(const std::vector<Finding>& findings);

// What one run of a kernel did, and what the emulator found in it.
struct RecordedRun {
  std::vector<single_block::Access> accesses;
  std::vector<Finding> findings;  // empty: the run was right
};

// Launches `kernel` (a chapter's kernel instantiated with Checked<V>) as <<<1, threads>>> on one
// row, threads in order, and returns its accesses as traced.cuh's record() returns the GPU's
// (accesses_from(), block_events.hpp). A race is found in any order of the threads, so one schedule
// tells whether the kernel is right. Accesses out of bounds are not in the list: they are findings.
template <typename V, typename Kernel>
RecordedRun record_accesses(Kernel kernel, const std::vector<V>& row, unsigned threads) {
  RecordedRun recorded;
  recorded.findings = detail::emulate_in(kernel, row, threads, 1, {Schedule::kInOrder}, &recorded.accesses).findings;
  return recorded;
}

}  // namespace reduction::emulator

// The memory of a kernel's `extern __shared__ unsigned char shared_bytes[]`: a block-scope extern
// declaration names a variable of the enclosing namespace, so the chapter's CPU test defines it
// there, `REDUCTION_EMULATOR_DYNAMIC_SHARED(ch06)`. 48 KiB: what a block may have without opting in
// on a GPU. A guard either side, so that a __shared__ array's overflow never runs into it unseen.
#define REDUCTION_EMULATOR_DYNAMIC_SHARED(ns)                       \
  namespace ns {                                                    \
  thread_local unsigned char shared_bytes_guard_before[16];         \
  alignas(16) thread_local unsigned char shared_bytes[48 * 1024];   \
  thread_local unsigned char shared_bytes_guard_after[16];          \
  }

// The shim: the kernels' CUDA as host C++. __shared__ becomes thread_local: one array for the block
// (all fibers run on one OS thread). Not static: `extern static` is no C++, `extern thread_local` is.
// __align__ becomes nothing: the definition above carries the alignment.
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ thread_local
#define __align__(n)
#define threadIdx (::reduction::emulator::detail::thread_idx)
#define blockIdx (::reduction::emulator::detail::block_idx)
#define blockDim (::reduction::emulator::detail::block_dim)
#define gridDim (::reduction::emulator::detail::grid_dim)
#define __syncthreads() ::reduction::emulator::detail::sync_threads(__FILE__, __LINE__)
#define __launch_bounds__(...)
#define __threadfence() ::reduction::emulator::detail::thread_fence()

namespace reduction::emulator::detail {
// __syncwarp(mask), the shuffles and __ballot_sync, written as calls of these objects, so that each
// knows the file and line of its call (the findings name it).
struct WarpBarrier {
  const char* file;
  int line;
  void operator()(unsigned mask = 0xffffffffu) const { sync_warp(mask, file, line); }
};
template <typename T> void copy_as(void* to, const void* from) {
  *static_cast<T*>(to) = *static_cast<const T*>(from);
}
struct WarpShuffle {
  ShuffleKind kind;
  const char* file;
  int line;
  template <typename T> T operator()(unsigned mask, T var, int lane_or_delta, int width = 32) const {
    T received = var;  // copies on the fiber's own stack: no memory access
    shuffle(kind, mask, &var, &received, &copy_as<T>, lane_or_delta, width, file, line);
    return received;
  }
};
// __ballot_sync(mask, predicate): every lane of the mask learns which lanes' predicates are true.
// Here one indexed shuffle per lane of the mask (like a shuffle, it orders no memory access).
struct WarpBallot {
  const char* file;
  int line;
  unsigned operator()(unsigned mask, int predicate) const {
    unsigned ballot = 0;
    for (int lane = 0; lane < 32; ++lane)
      if (mask >> lane & 1u) {
        int mine = predicate != 0, theirs = mine;
        shuffle(ShuffleKind::kIndexed, mask, &mine, &theirs, &copy_as<int>, lane, 32, file, line);
        ballot |= unsigned(theirs) << lane;
      }
    return ballot;
  }
};
}  // namespace reduction::emulator::detail
#define __syncwarp ::reduction::emulator::detail::WarpBarrier{__FILE__, __LINE__}
#define REDUCTION_EMULATOR_SHUFFLE(kind) \
  ::reduction::emulator::detail::WarpShuffle{::reduction::emulator::detail::ShuffleKind::kind, __FILE__, __LINE__}
#define __shfl_sync REDUCTION_EMULATOR_SHUFFLE(kIndexed)
#define __shfl_up_sync REDUCTION_EMULATOR_SHUFFLE(kUp)
#define __shfl_down_sync REDUCTION_EMULATOR_SHUFFLE(kDown)
#define __shfl_xor_sync REDUCTION_EMULATOR_SHUFFLE(kXor)
#define __ballot_sync ::reduction::emulator::detail::WarpBallot{__FILE__, __LINE__}

// CUDA's warpSize, and its min() and max(), which CUDA declares for every pair of arithmetic types
// (the usual arithmetic conversions pick the type): what nvcc accepts the emulator must accept.
inline constexpr int warpSize = 32;
template <typename A, typename B, typename = std::enable_if_t<std::is_arithmetic_v<A> && std::is_arithmetic_v<B>>>
inline std::common_type_t<A, B> min(A a, B b) {
  using C = std::common_type_t<A, B>;
  return C(b) < C(a) ? C(b) : C(a);
}
template <typename A, typename B, typename = std::enable_if_t<std::is_arithmetic_v<A> && std::is_arithmetic_v<B>>>
inline std::common_type_t<A, B> max(A a, B b) {
  using C = std::common_type_t<A, B>;
  return C(a) < C(b) ? C(b) : C(a);
}

// The bit intrinsics.
inline int __ffs(int x) {
  return __builtin_ffs(x);
}
inline int __clz(int x) {
  return x == 0 ? 32 : __builtin_clz(unsigned(x));
}
inline unsigned __float_as_uint(float x) {
  unsigned bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

// atomicAdd on an element of global or shared memory: one atomic access, then read, added to and
// written with nothing in between (the fibers switch only inside the emulator's calls).
template <typename V>
inline reduction::emulator::Checked<V> atomicAdd(reduction::emulator::Checked<V>* address,
                                                 typename std::common_type<reduction::emulator::Checked<V>>::type value) {
  reduction::emulator::detail::atomic_access(address, &address->value, sizeof(V), address->level);
  const reduction::emulator::Checked<V> old(address->value, address->level);  // the thread's own: no memory access
  address->value = reduction::Sum{}(old.value, value.value);
  address->level = std::max(old.level, value.level) + 1;
  return old;
}

// atomicAdd on a 64-bit integer word (09's exact finish), one atomic access.
inline unsigned long long atomicAdd(unsigned long long* address, unsigned long long value) {
  reduction::emulator::detail::atomic_access(address, address, sizeof *address, 0);
  const unsigned long long old = *address;
  *address = old + value;
  return old;
}

// atomicInc, as CUDA defines it: the old value back, the new one old + 1, or 0 where old reached
// `limit`; one atomic access.
inline unsigned atomicInc(unsigned* address, unsigned limit) {
  reduction::emulator::detail::atomic_access(address, address, sizeof(unsigned), 0);
  const unsigned old = *address;
  *address = old >= limit ? 0u : old + 1u;
  return old;
}

// Loads through the read-only path (__ldg), through L2 only (__ldcg) and as read once (__ldcs): the
// emulator has no caches, so each is a plain load. A 16-byte uint4 load is checked as a load of each
// element its bytes cover.
struct alignas(16) uint4 {
  unsigned x, y, z, w;
};
template <typename T> inline T __ldg(const T* address) {
  return *address;
}
template <typename T> inline T __ldcg(const T* address) {
  return *address;
}
template <typename T> inline T __ldcs(const T* address) {
  return *address;
}
inline long long __ldcg(const long long* address) {  // a word of 09's exact finish: checked as a load
  reduction::emulator::detail::access(false, address, address, sizeof *address, 0);
  return *address;
}
inline uint4 __ldg(const uint4* address) {
  reduction::emulator::detail::load_bytes(address, sizeof(uint4));
  uint4 bits;
  std::memcpy(&bits, address, sizeof bits);
  return bits;
}
inline uint4 __ldcs(const uint4* address) { return __ldg(address); }
