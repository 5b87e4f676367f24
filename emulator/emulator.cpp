// The emulator's machinery (see emulator.hpp): fibers, schedules, and the checks of every access.
// The fibers switch with _setjmp/_longjmp (Machine::resume), which a fortified glibc takes for a jump
// into an unwound frame of the same stack, and stops: the fortified versions are left out.
#undef _FORTIFY_SOURCE
#include "emulator/emulator.hpp"

#include <cxxabi.h>
#include <elf.h>
#include <link.h>
#include <setjmp.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <new>
#include <tuple>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

// AddressSanitizer must be told when the stack changes under it, or it takes a fiber's stack for
// an overflow of another's (<sanitizer/common_interface_defs.h>).
#if defined(__SANITIZE_ADDRESS__)
#define REDUCTION_EMULATOR_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define REDUCTION_EMULATOR_ASAN 1
#endif
#endif
// Under ASan every switch is a swapcontext; elsewhere only a fiber's first entry is, and the switches
// after it are _setjmp/_longjmp, which save no signal mask: no system call, a tenth of the time.
#if defined(REDUCTION_EMULATOR_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace reduction::emulator {

// In the order of the enumerators.
const char* kind_name(FindingKind kind) {
  static const char* const names[kFindingKinds] = {
      "race",        "out_of_bounds", "uninitialized_read", "divergent_barrier", "result_not_written",
      "wrong_value", "bad_warp_mask", "endless_loop"};
  return names[std::size_t(kind)];
}

std::string findings_text(const std::vector<Finding>& findings) {
  std::string text;
  for (const Finding& f : findings) text += std::string(kind_name(f.kind)) + ": " + f.message + "\n";
  return text;
}

namespace detail {

Dim3 thread_idx, block_idx, block_dim, grid_dim;

std::string schedule_text(Schedule schedule, bool blocks_reversed) {
  static const char* const names[] = {"in order", "reversed", "warp 0 late", "interleaved"};
  return std::string(names[std::size_t(schedule)]) + (blocks_reversed ? ", blocks last to first" : "");
}

namespace {

constexpr unsigned kWarpSize = 32;
constexpr std::size_t kStackBytes = 64 * 1024;  // the kernels' frames take a few hundred bytes

// Switching stacks, told to AddressSanitizer when it watches.
void start_switch([[maybe_unused]] void** fake_stack, [[maybe_unused]] const void* bottom,
                  [[maybe_unused]] std::size_t size) {
#if defined(REDUCTION_EMULATOR_ASAN)
  __sanitizer_start_switch_fiber(fake_stack, bottom, size);
#endif
}
void finish_switch([[maybe_unused]] void* fake_stack, [[maybe_unused]] const void** old_bottom,
                   [[maybe_unused]] std::size_t* old_size) {
#if defined(REDUCTION_EMULATOR_ASAN)
  __sanitizer_finish_switch_fiber(fake_stack, old_bottom, old_size);
#endif
}

// What a thread waits at: a block barrier, or one of its warp's collectives.
enum class Wait { kNone, kBlock, kWarpBarrier, kShuffle };

struct Fiber {
  ucontext_t context;  // its first entry
  jmp_buf jump;        // where it yielded
  bool started = false, returned = false;
  const char* barrier_file = nullptr;  // where it waits
  int barrier_line = 0;
  Wait wait = Wait::kNone;  // kNone: ready to run, unless it has returned
  // At a warp collective: its mask; at a shuffle, also what shuffle() was given.
  unsigned mask = 0;
  ShuffleKind shuffle_kind = ShuffleKind::kIndexed;
  int lane_or_delta = 0, width = 32;
  const void* value = nullptr;
  void* received = nullptr;
  void (*copy)(void*, const void*) = nullptr;
  // The thread's view of its warp since the last block barrier (a vector clock): element l counts
  // the warp barriers lane l had passed when this thread last synchronised with it.
  std::uint32_t clock[32] = {};
  // Global stores not yet fenced, and fenced ones not yet followed by an atomic; the atomic
  // locations this thread has seen, with the latest atomic's number on each.
  std::vector<std::uintptr_t> unfenced, fenced;
  std::map<std::uintptr_t, std::uint64_t> seen;
};

// One thread's access to an element, and the thread's own warp clock at that moment.
struct Touch {
  int thread = -1;
  std::uint32_t epoch = 0;
};

// Who touched an element in the current step: its writer and up to two distinct readers and
// atomic adders (two tell whether a thread other than any given one has read it).
struct Touches {
  std::uint64_t step = ~std::uint64_t(0);  // the step (numbered over the whole run) these are of
  Touch writer, readers[2], atomics[2];
};

// A global store that its thread fenced and then followed with an atomic on `counter`: a block
// whose atomic on that counter comes later may read it (the one-pass grid's last block).
struct Release {
  std::uintptr_t counter = 0;
  std::uint64_t atomic = 0;  // the releasing atomic's number in the launch
  unsigned block = 0;
};

// Which blocks touched a global element over the whole run, up to two of each kind: no barrier
// spans blocks, so two may share an element only by reading it or by atomics.
struct BlockTouches {
  int writers[2] = {-1, -1}, readers[2] = {-1, -1}, atomics[2] = {-1, -1};
};

// A member of a pair of distinct block ids other than `block`, or -1; adding to the pair.
int other_than(const int (&ids)[2], int block) { return ids[0] != block ? ids[0] : ids[1]; }
void add_to(int (&ids)[2], int block) {
  if (ids[0] < 0) ids[0] = block;
  else if (ids[0] != block && ids[1] < 0) ids[1] = block;
}

// The calling thread's block of the program's own thread_local variables, where the shim puts
// __shared__ arrays: [begin, end).
std::pair<std::uintptr_t, std::uintptr_t> thread_local_block() {
  std::pair<std::uintptr_t, std::uintptr_t> range{0, 0};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) {
        auto& r = *static_cast<std::pair<std::uintptr_t, std::uintptr_t>*>(out);
        for (int i = 0; i < info->dlpi_phnum; ++i)
          if (info->dlpi_phdr[i].p_type == PT_TLS && info->dlpi_tls_data) {
            r.first = reinterpret_cast<std::uintptr_t>(info->dlpi_tls_data);
            r.second = r.first + info->dlpi_phdr[i].p_memsz;
          }
        return 1;  // the first object is the program itself
      },
      &range);
  return range;
}

// The program's block-scope thread_local objects (mangled names beginning _ZZ, under the shim the
// kernels' __shared__ arrays), by offset in its TLS block, from its symbol table; empty where it has
// none (stripped), and then no access inside the TLS block is checked.
struct SharedArray {
  std::uintptr_t offset, size;
  std::string name;
};
const std::vector<SharedArray>& shared_arrays() {
  static const std::vector<SharedArray> arrays = [] {
    std::vector<SharedArray> found;
    std::ifstream file("/proc/self/exe", std::ios::binary);
    const auto read = [&](std::uint64_t at, void* to, std::size_t bytes) {
      return bool(file.seekg(std::streamoff(at)).read(static_cast<char*>(to), std::streamsize(bytes)));
    };
    Elf64_Ehdr header{};
    if (!read(0, &header, sizeof header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
        header.e_ident[EI_CLASS] != ELFCLASS64)
      return found;
    std::vector<Elf64_Shdr> sections(header.e_shnum);
    if (!read(header.e_shoff, sections.data(), sections.size() * sizeof(Elf64_Shdr))) return found;
    for (const Elf64_Shdr& table : sections) {
      if (table.sh_type != SHT_SYMTAB || table.sh_link >= sections.size()) continue;
      std::vector<Elf64_Sym> symbols(table.sh_size / sizeof(Elf64_Sym));
      std::string names(sections[table.sh_link].sh_size, '\0');
      if (!read(table.sh_offset, symbols.data(), symbols.size() * sizeof(Elf64_Sym)) ||
          !read(sections[table.sh_link].sh_offset, names.data(), names.size()))
        return found;
      for (const Elf64_Sym& symbol : symbols)
        if (ELF64_ST_TYPE(symbol.st_info) == STT_TLS && symbol.st_name < names.size() &&
            names.compare(symbol.st_name, 3, "_ZZ") == 0)
          found.push_back({symbol.st_value, symbol.st_size, names.c_str() + symbol.st_name});
    }
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.offset < b.offset; });
    return found;
  }();
  return arrays;
}

// The shared array at `offset` in the TLS block (inside: true), or else the last one before it.
const SharedArray* shared_array_near(std::uintptr_t offset, bool& inside) {
  const auto& arrays = shared_arrays();
  auto it = std::upper_bound(arrays.begin(), arrays.end(), offset,
                             [](std::uintptr_t o, const SharedArray& a) { return o < a.offset; });
  inside = it != arrays.begin() && offset < std::prev(it)->offset + std::prev(it)->size;
  return it == arrays.begin() ? nullptr : &*std::prev(it);
}

// A finding as it happened, put in words at the end of the run.
struct Event {
  int thread = -1, other = -1;  // other: the second thread of a race, or block if other_is_block
  bool write = false, other_wrote = false, atomic = false, other_atomic = false, other_is_block = false;
  bool unreleased = false;  // a read of another block's store that no fence and atomic published
  unsigned block = 0, step = 0;
  std::uintptr_t address = 0;
  std::string text;  // for barriers: already in words
};

// The fibers' stacks, kept from one run to the next (mapping a thousand takes longer than a run of a
// small kernel) and grown when a block has more threads. Each sits above a page that faults.
struct StackRegion {
  char* base = nullptr;
  std::size_t slots = 0, slot_bytes = 0, guard_bytes = 0;
};

const StackRegion& stacks_for(unsigned threads) {
  static StackRegion region;
  if (region.slots >= threads) return region;
  if (region.base) munmap(region.base, region.slots * region.slot_bytes);
  const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
  const std::size_t slots = std::max<std::size_t>(threads, 32);
  void* base =
      mmap(nullptr, slots * (page + kStackBytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) {
    region = StackRegion{};
    throw std::bad_alloc();
  }
  region = StackRegion{static_cast<char*>(base), slots, page + kStackBytes, page};
  for (std::size_t t = 0; t < slots; ++t) mprotect(region.base + t * region.slot_bytes, page, PROT_NONE);
  return region;
}

class Machine {
 public:
  Machine(unsigned threads, unsigned blocks, Schedule schedule, const std::vector<Buffer>& buffers,
          std::size_t result_buffer, const std::function<void(void*)>& poison, std::vector<Logged>* log,
          bool blocks_reversed, DynamicShared dynamic)
      : threads_(threads), blocks_(blocks), schedule_(schedule), blocks_reversed_(blocks_reversed),
        buffers_(buffers), result_buffer_(result_buffer), poison_(poison), log_(log), dynamic_(dynamic),
        stacks_(stacks_for(threads)) {
    std::tie(tls_begin_, tls_end_) = thread_local_block();
    outcome_.result_written.assign(buffers_[result_buffer_].count, false);
  }
  ~Machine() {
#if defined(REDUCTION_EMULATOR_ASAN)
    // A run stopped at a divergent barrier leaves frames on the stacks, poisoned by ASan; the next
    // run uses the same stacks.
    ASAN_UNPOISON_MEMORY_REGION(stacks_.base, stacks_.slots * stacks_.slot_bytes);
#endif
  }

  RunOutcome run(const std::function<void()>& kernel) {
    kernel_ = &kernel;
    block_dim = {threads_, 1, 1};
    grid_dim = {blocks_, 1, 1};
    outcome_.finished = true;
    for (unsigned i = 0; i < blocks_ && outcome_.finished; ++i) run_block(blocks_reversed_ ? blocks_ - 1 - i : i);
    report();
    return outcome_;
  }

  void access(bool write, const void* where, const void* value, std::size_t size, std::uint32_t level,
              bool atomic = false);
  void load_bytes(const void* where, std::size_t size);
  void wait_at(Wait wait, const char* file, int line);
  void check_warp_call(Wait wait, unsigned mask, const char* file, int line);
  void yield();
  Fiber& self() { return fibers_[unsigned(current_)]; }
  char* stack_of(unsigned t) const { return stacks_.base + t * stacks_.slot_bytes + stacks_.guard_bytes; }
  // Stops the running thread for good, and with it the run: the scheduler never resumes it.
  [[noreturn]] void stop_thread() {
    stopped_ = true;
    yield();
    std::abort();  // not reached: a stopped run resumes no thread
  }

 private:
  void run_block(unsigned b);
  void run_ready();
  bool resolve_warps();
  void report_stuck_warp();
  bool ordered(const Touch& earlier, int t) const;
  void resume(unsigned t);
  static void fiber_main();
  std::vector<unsigned> order() const;
  void record(FindingKind kind, const Event& event);
  void record(FindingKind kind, std::string text);  // a finding already in words
  std::string where(std::uintptr_t address, unsigned block) const;
  const Buffer* buffer_at(std::uintptr_t address) const;
  bool in_shared_memory(std::uintptr_t address) const;
  void report();

  unsigned threads_, blocks_;
  Schedule schedule_;
  bool blocks_reversed_;
  const std::vector<Buffer>& buffers_;
  std::size_t result_buffer_;
  const std::function<void(void*)>& poison_;
  std::vector<Logged>* log_;  // null: not recording
  DynamicShared dynamic_;
  std::uintptr_t tls_begin_ = 0, tls_end_ = 0;  // the program's thread_local variables
  std::unordered_map<std::uintptr_t, BlockTouches> block_touches_;  // global elements, over the run
  const std::function<void()>* kernel_ = nullptr;
  std::vector<Fiber> fibers_;
  const StackRegion& stacks_;

  ucontext_t scheduler_;
  jmp_buf scheduler_jump_;  // where the scheduler resumed a fiber
  const void* scheduler_stack_ = nullptr;  // the scheduler's stack, as ASan reports it to a fiber
  std::size_t scheduler_stack_size_ = 0;
  int current_ = -1;  // the thread running, -1 in the scheduler
  unsigned block_ = 0, step_ = 0;
  std::uint64_t run_step_ = 0;  // the step counted over every block of the run
  std::unordered_map<std::uintptr_t, Touches> touches_;
  std::unordered_set<std::uintptr_t> shared_written_;  // in the current block
  std::uintptr_t lowest_shared_ = ~std::uintptr_t(0);
  std::vector<std::pair<FindingKind, Event>> first_;  // the first event of each kind
  std::vector<std::size_t> counts_ = std::vector<std::size_t>(kFindingKinds, 0);
  std::uint64_t accesses_in_step_ = 0;  // the block's loads and stores since its last barrier
  bool stopped_ = false;  // a warp collective that cannot complete, or is misused: the run stops
  std::uint64_t atomics_ = 0;  // global atomics so far in the launch
  std::unordered_map<std::uintptr_t, Release> released_;  // global stores published by fence and atomic
  RunOutcome outcome_;
};

Machine* machine = nullptr;  // the one running; null outside a run

// The threads' order in one step, for the schedules that run each thread to its barrier.
std::vector<unsigned> Machine::order() const {
  std::vector<unsigned> ids;
  for (unsigned t = 0; t < threads_; ++t) ids.push_back(t);
  if (schedule_ == Schedule::kReversed) std::reverse(ids.begin(), ids.end());
  if (schedule_ == Schedule::kFirstWarpLast)
    std::rotate(ids.begin(), ids.begin() + std::min<std::size_t>(kWarpSize, ids.size()), ids.end());
  return ids;
}

void Machine::fiber_main() {
  Machine& m = *machine;
  // The first switch into this fiber: ASan tells where the scheduler's stack is.
  finish_switch(nullptr, &m.scheduler_stack_, &m.scheduler_stack_size_);
  (*m.kernel_)();
  Fiber& self = m.fibers_[unsigned(m.current_)];
  self.returned = true;
  start_switch(nullptr, m.scheduler_stack_, m.scheduler_stack_size_);  // never resumed
#if defined(REDUCTION_EMULATOR_ASAN)
  swapcontext(&self.context, &m.scheduler_);
#else
  _longjmp(m.scheduler_jump_, 1);
#endif
}

void Machine::resume(unsigned t) {
  Fiber& fiber = fibers_[t];
  current_ = int(t);
  thread_idx = {t, 0, 0};
  const bool first = !fiber.started;
  if (first) {
    fiber.started = true;
    getcontext(&fiber.context);
    fiber.context.uc_stack.ss_sp = stack_of(t);
    fiber.context.uc_stack.ss_size = kStackBytes;
    fiber.context.uc_link = nullptr;
    makecontext(&fiber.context, &Machine::fiber_main, 0);
  }
  void* fake_stack = nullptr;
  start_switch(&fake_stack, stack_of(t), kStackBytes);
#if defined(REDUCTION_EMULATOR_ASAN)
  swapcontext(&scheduler_, &fiber.context);
#else
  if (_setjmp(scheduler_jump_) == 0) {  // back here with 1 when the fiber yields or returns
    if (first) swapcontext(&scheduler_, &fiber.context);
    else _longjmp(fiber.jump, 1);
  }
#endif
  finish_switch(fake_stack, nullptr, nullptr);
  current_ = -1;
}

void Machine::yield() {
  Fiber& self = fibers_[unsigned(current_)];
  const int me = current_;
  void* fake_stack = nullptr;
  start_switch(&fake_stack, scheduler_stack_, scheduler_stack_size_);
#if defined(REDUCTION_EMULATOR_ASAN)
  swapcontext(&self.context, &scheduler_);
#else
  if (_setjmp(self.jump) == 0) _longjmp(scheduler_jump_, 1);  // back here when resumed
#endif
  finish_switch(fake_stack, nullptr, nullptr);
  current_ = me;
  thread_idx = {unsigned(me), 0, 0};
}

// Where a kernel calls something: "convergent.cuh:42".
std::string site(const char* path, int line) {
  const std::string p = path;
  return p.substr(p.find_last_of('/') + 1) + ":" + std::to_string(line);
}

// The running thread waits at a barrier or a warp collective.
void Machine::wait_at(Wait wait, const char* file, int line) {
  Fiber& f = self();
  f.wait = wait;
  f.barrier_file = file;
  f.barrier_line = line;
}

// A warp collective as the kernel wrote it: "__shfl_down_sync(0x0000ffff)".
std::string collective(const Fiber& f) {
  static const char* const shuffles[] = {"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync"};
  char mask[16];
  std::snprintf(mask, sizeof mask, "0x%08x", f.mask);
  return std::string(f.wait == Wait::kShuffle ? shuffles[int(f.shuffle_kind)] : "__syncwarp") + "(" + mask + ")";
}

// Records the fiber's wait at a warp collective, and a finding if its mask or width is wrong. The
// caller yields after it returns: its strings are gone before the fiber yields, perhaps for good.
void Machine::check_warp_call(Wait wait, unsigned mask, const char* file, int line) {
  Fiber& f = self();
  const unsigned t = unsigned(current_), lane = t % kWarpSize, base = t - lane;
  const unsigned lanes = std::min(kWarpSize, threads_ - base);
  const unsigned existing = lanes == kWarpSize ? ~0u : (1u << lanes) - 1u;
  wait_at(wait, file, line);
  f.mask = mask;
  std::string problem;
  if (!(mask >> lane & 1u))
    problem = "leaves out the calling lane " + std::to_string(lane);
  else if (mask & ~existing)
    problem = "names lanes that do not exist: warp " + std::to_string(t / kWarpSize) + " of this block has " +
              std::to_string(lanes) + (lanes == 1 ? " lane" : " lanes");
  else if (wait == Wait::kShuffle && (f.width < 1 || f.width > int(kWarpSize) || (f.width & (f.width - 1))))
    problem = "comes with width " + std::to_string(f.width) + ", not a power of two from 1 to 32";
  if (!problem.empty()) {
    record(FindingKind::kBadWarpMask,
           "block " + std::to_string(block_) + ": thread " + std::to_string(t) + " (lane " + std::to_string(lane) +
               ") calls " + collective(f) + " at " + site(file, line) + ", whose mask " + problem +
               ". A warp collective must name the calling lane and only lanes that reach it (the run stops here)");
    stopped_ = true;
  }
}

// Which threads wait where, in words: "threads 0, 2, 4 and 253 more".
std::string some_threads(const std::vector<unsigned>& ids) {
  std::string text = ids.size() == 1 ? "thread " : "threads ";
  for (std::size_t i = 0; i < ids.size() && i < 4; ++i) text += (i ? ", " : "") + std::to_string(ids[i]);
  if (ids.size() > 4) text += " and " + std::to_string(ids.size() - 4) + " more";
  return text;
}

// Runs every thread that waits at nothing, in the schedule's order, until each waits or returns.
// Interleaved, round robin: each thread runs up to its next load or store (access() yields).
void Machine::run_ready() {
  for (bool progress = true; progress && !stopped_;) {
    progress = false;
    for (unsigned t : order()) {
      if (stopped_ || fibers_[t].returned || fibers_[t].wait != Wait::kNone) continue;
      resume(t);
      progress = schedule_ == Schedule::kInterleaved;
    }
  }
}

// Completes every warp collective whose lanes have all arrived: each lane its mask names waits at
// one of the same kind with the same mask. A __syncwarp() orders the lanes' accesses (their clocks
// join); a shuffle hands each lane its source lane's value. Returns whether any completed.
bool Machine::resolve_warps() {
  bool any = false;
  for (unsigned t = 0; t < threads_ && !stopped_; ++t) {
    const Fiber& f = fibers_[t];
    if (f.wait != Wait::kWarpBarrier && f.wait != Wait::kShuffle) continue;
    const unsigned base = t - t % kWarpSize, mask = f.mask;
    const Wait kind = f.wait;
    bool complete = true;
    for (unsigned l = 0; l < kWarpSize && complete; ++l)
      if (mask >> l & 1u) {
        const Fiber& o = fibers_[base + l];
        complete = o.wait == kind && o.mask == mask && (kind != Wait::kShuffle || o.shuffle_kind == f.shuffle_kind);
      }
    if (!complete) continue;
    if (kind == Wait::kWarpBarrier) {
      std::uint32_t joined[kWarpSize] = {};
      for (unsigned l = 0; l < kWarpSize; ++l)
        if (mask >> l & 1u) {
          Fiber& o = fibers_[base + l];
          ++o.clock[l];  // what the lane did before the barrier is before what any of them does after it
          for (unsigned k = 0; k < kWarpSize; ++k) joined[k] = std::max(joined[k], o.clock[k]);
        }
      for (unsigned l = 0; l < kWarpSize; ++l)
        if (mask >> l & 1u) std::copy(std::begin(joined), std::end(joined), fibers_[base + l].clock);
    } else {
      for (unsigned l = 0; l < kWarpSize; ++l) {
        if (!(mask >> l & 1u)) continue;
        Fiber& to = fibers_[base + l];
        const int lane = int(l), width = to.width, segment = lane & ~(width - 1), x = to.lane_or_delta;
        int source = lane;  // a source past the lane's segment of `width` lanes: its own value, as CUDA says
        switch (to.shuffle_kind) {
          case ShuffleKind::kIndexed: source = segment + ((x % width) + width) % width; break;
          case ShuffleKind::kUp: source = lane - segment >= x ? lane - x : lane; break;
          case ShuffleKind::kDown: source = lane - segment + x < width ? lane + x : lane; break;
          case ShuffleKind::kXor: source = (lane ^ x) < segment + width ? lane ^ x : lane; break;
        }
        if (source < 0 || source >= int(kWarpSize) || !(mask >> source & 1u)) {
          record(FindingKind::kBadWarpMask,
                 "block " + std::to_string(block_) + ": thread " + std::to_string(base + l) + " (lane " +
                     std::to_string(l) + ") reads lane " + std::to_string(source) + " through " + collective(to) +
                     " at " + site(to.barrier_file, to.barrier_line) +
                     ", a lane its mask leaves out: the value it receives is undefined (the run stops here)");
          stopped_ = true;
          return false;
        }
        to.copy(to.received, fibers_[base + unsigned(source)].value);  // here, no thread runs: not an access
      }
    }
    for (unsigned l = 0; l < kWarpSize; ++l)
      if (mask >> l & 1u) fibers_[base + l].wait = Wait::kNone;
    any = true;
  }
  return any;
}

// Where lanes still wait at a warp collective, it cannot complete: a lane its mask names waits
// elsewhere or has returned. On a GPU that hangs or gives undefined values; here the run stops and
// says where.
void Machine::report_stuck_warp() {
  for (unsigned t = 0; t < threads_; ++t) {
    const Fiber& f = fibers_[t];
    if (f.wait != Wait::kWarpBarrier && f.wait != Wait::kShuffle) continue;
    const unsigned base = t - t % kWarpSize;
    std::vector<unsigned> here;
    std::string elsewhere;
    for (unsigned l = 0; l < kWarpSize; ++l) {
      if (!(f.mask >> l & 1u)) continue;
      const Fiber& o = fibers_[base + l];
      if (o.wait == f.wait && o.mask == f.mask && o.shuffle_kind == f.shuffle_kind) {
        here.push_back(base + l);
      } else if (elsewhere.empty()) {
        elsewhere = "thread " + std::to_string(base + l) + " (lane " + std::to_string(l) + ") " +
                    (o.returned ? std::string("has returned and never will")
                                : "waits at " + (o.wait == Wait::kBlock ? "__syncthreads()" : collective(o)) + " at " +
                                      site(o.barrier_file, o.barrier_line));
      }
    }
    record(FindingKind::kDivergentBarrier,
           "a " + collective(f) + " that not every lane of its mask reaches, in block " + std::to_string(block_) +
               " after " + std::to_string(step_) + (step_ == 1 ? " barrier: " : " barriers: ") + some_threads(here) +
               " wait at " + site(f.barrier_file, f.barrier_line) + "; " + elsewhere +
               ". Every lane a warp collective names must reach it (the run stops here)");
    stopped_ = true;
    return;
  }
}

void Machine::run_block(unsigned b) {
  block_ = b;
  block_idx = {b, 0, 0};
  ++run_step_;  // a block's first step is not its predecessor's last: the blocks run one after another
  shared_written_.clear();
  // A block's dynamic shared memory holds whatever the previous block left, or anything: poison
  // (0xff bytes: a NaN for floating point) until a thread of this block writes it.
  if (dynamic_.begin) std::memset(dynamic_.begin, 0xff, dynamic_.capacity);
  fibers_.assign(threads_, Fiber{});  // not started, waiting at nothing, nothing stored, fenced or seen
  for (step_ = 0;; ++step_, ++run_step_) {
    for (Fiber& f : fibers_) std::fill(std::begin(f.clock), std::end(f.clock), 0u);  // a new step
    accesses_in_step_ = 0;
    if (step_ > kMaxBarriers) {  // a kernel that would never finish: say so rather than hang
      record(FindingKind::kEndlessLoop,
             "block " + std::to_string(b) + " passed " + std::to_string(kMaxBarriers) +
                 " barriers without finishing: an endless loop? A loop around __syncthreads() whose condition "
                 "never turns false (a stride that stops changing, say) never ends (the run stops here)");
      outcome_.finished = false;
      return;
    }
    // The threads run until each waits at a barrier or has returned; a warp collective that all its
    // lanes reach lets them go on.
    do run_ready();
    while (!stopped_ && resolve_warps());
    if (!stopped_) report_stuck_warp();
    if (stopped_) {
      outcome_.finished = false;  // the waiting fibers are left as they are: their stacks go with the machine
      return;
    }
    // Every thread waits at a barrier or has returned.
    std::vector<unsigned> returned;
    std::vector<std::pair<std::pair<const char*, int>, std::vector<unsigned>>> sites;  // each barrier's waiters
    for (unsigned t = 0; t < threads_; ++t) {
      const Fiber& f = fibers_[t];
      if (f.returned) {
        returned.push_back(t);
        continue;
      }
      const auto site = std::make_pair(f.barrier_file, f.barrier_line);
      auto it = std::find_if(sites.begin(), sites.end(), [&](const auto& s) {
        return s.first.second == site.second && std::strcmp(s.first.first, site.first) == 0;
      });
      if (it == sites.end()) sites.push_back({site, {t}});
      else it->second.push_back(t);
    }
    if (sites.empty()) return;  // the block has finished
    if (sites.size() == 1 && returned.empty()) {  // every thread at the same barrier: it opens
      // What any thread of the block has seen of the atomics, every thread has seen after it.
      std::map<std::uintptr_t, std::uint64_t> seen;
      for (const Fiber& f : fibers_)
        for (const auto& [counter, number] : f.seen) seen[counter] = std::max(seen[counter], number);
      for (Fiber& f : fibers_) {
        f.wait = Wait::kNone;
        if (!seen.empty()) f.seen = seen;
      }
      continue;
    }
    std::string text = "a __syncthreads() that not every thread reaches, in block " + std::to_string(b) + " after " +
                       std::to_string(step_) + (step_ == 1 ? " barrier: " : " barriers: ");
    for (std::size_t i = 0; i < sites.size(); ++i)
      text += (i ? "; " : "") + some_threads(sites[i].second) +
              (sites[i].second.size() == 1 ? " waits at " : " wait at ") +
              site(sites[i].first.first, sites[i].first.second);
    if (!returned.empty())
      text += "; " + some_threads(returned) + (returned.size() == 1 ? " has" : " have") + " returned and never will";
    text += ". Every thread of the block must reach every barrier (the run stops here)";
    record(FindingKind::kDivergentBarrier, text);
    outcome_.finished = false;  // the waiting fibers are left as they are: their stacks go with the machine
    return;
  }
}

// Whether `earlier` (another thread's access in this step) is ordered before what thread t does now:
// only a __syncwarp() both passed can order two accesses of one step, and only in one warp.
bool Machine::ordered(const Touch& earlier, int t) const {
  return unsigned(earlier.thread) / kWarpSize == unsigned(t) / kWarpSize &&
         fibers_[unsigned(t)].clock[unsigned(earlier.thread) % kWarpSize] > earlier.epoch;
}

void Machine::record(FindingKind kind, const Event& event) {
  if (counts_[std::size_t(kind)]++ == 0) first_.push_back({kind, event});
}

void Machine::record(FindingKind kind, std::string text) {
  Event event;
  event.text = std::move(text);
  record(kind, event);
}

void Machine::access(bool write, const void* where_ptr, const void* value, std::size_t size, std::uint32_t level,
                     bool atomic) {
  if (current_ < 0) return;  // the scheduler's own copies
  const auto address = reinterpret_cast<std::uintptr_t>(where_ptr);
  const auto stacks = reinterpret_cast<std::uintptr_t>(stacks_.base);
  if (address >= stacks && address < stacks + stacks_.slots * stacks_.slot_bytes) return;  // a thread's own variable
  if (++accesses_in_step_ > kMaxAccessesPerStep) {  // a loop with no barrier that never ends
    // The message is gone before the thread stops: a stopped thread's stack is never unwound.
    record(FindingKind::kEndlessLoop,
           "block " + std::to_string(block_) + ": its threads made " + std::to_string(kMaxAccessesPerStep) +
               " loads and stores without reaching a barrier or returning: an endless loop? (thread " +
               std::to_string(current_) +
               " was running; a loop whose index or bound never changes, say; the "
               "run stops here)");
    stop_thread();
  }
  if (schedule_ == Schedule::kInterleaved) yield();                  // let the next thread in first
  const int t = current_;
  Event event;
  event.thread = t;
  event.write = write;
  event.atomic = atomic;
  event.block = block_;
  event.step = step_;
  event.address = address;

  // Global memory: inside a buffer, inside its guards (out of bounds), or in another block's row.
  const Buffer* buffer = buffer_at(address);
  const bool shared = buffer == nullptr;
  if (buffer) {
    const auto begin = reinterpret_cast<std::intptr_t>(buffer->begin);
    const auto index = (std::intptr_t(address) - begin) / std::intptr_t(buffer->element_size);
    const auto row_begin = buffer->whole_grid ? 0 : std::intptr_t(block_ * buffer->row_length);
    const auto row_length = std::intptr_t(buffer->whole_grid ? buffer->count : buffer->row_length);
    if (index < row_begin || index >= row_begin + row_length) {
      record(FindingKind::kOutOfBounds, event);
      return;  // an element outside the row is not checked further
    }
    if (write && buffer == &buffers_[result_buffer_]) outcome_.result_written[std::size_t(index)] = true;
    if (buffer->written) {  // a buffer that starts unwritten: a read must follow some launch's store
      if (write) (*buffer->written)[std::size_t(index)] = true;
      else if (!(*buffer->written)[std::size_t(index)]) record(FindingKind::kUninitializedRead, event);
    }
  } else {  // shared memory, or past its end
    const auto dynamic_begin = reinterpret_cast<std::uintptr_t>(dynamic_.begin);
    if (address >= dynamic_begin && address < dynamic_begin + dynamic_.capacity &&
        address + size > dynamic_begin + dynamic_.bytes) {
      record(FindingKind::kOutOfBounds, event);  // past the bytes of dynamic shared memory the launch gave
      return;
    }
    if (!in_shared_memory(address)) {
      // Neither a buffer, nor its guards, nor shared memory (past the end of a __shared__ array, say):
      // the access would land in the emulator's own memory or another array. The thread stops, and the run.
      record(FindingKind::kOutOfBounds, event);
      stop_thread();
    }
    lowest_shared_ = std::min(lowest_shared_, address);
    if (write && !atomic) {
      shared_written_.insert(address);
    } else if (!shared_written_.count(address)) {
      record(FindingKind::kUninitializedRead, event);
      poison_(const_cast<void*>(where_ptr));  // what a GPU leaves there is anything: here, poison
    }
  }

  // The race check: in one step, one thread's write and another's read or write of an element,
  // unless a __syncwarp() of their warp lies between the two.
  Touches& touches = touches_[address];
  if (touches.step != run_step_) touches = Touches{run_step_};
  // Two atomics never race: each is one indivisible read-add-write.
  const auto unordered = [&](const Touch& other) { return other.thread >= 0 && other.thread != t && !ordered(other, t); };
  const auto unordered_of = [&](const Touch(&slots)[2]) {  // the thread of an unordered one, or -1
    return unordered(slots[0]) ? slots[0].thread : unordered(slots[1]) ? slots[1].thread : -1;
  };
  Event race = event;
  if (unordered(touches.writer)) {
    race.other = touches.writer.thread;
    race.other_wrote = true;
  } else if (write && unordered_of(touches.readers) >= 0) {
    race.other = unordered_of(touches.readers);
  } else if (!atomic && unordered_of(touches.atomics) >= 0) {
    race.other = unordered_of(touches.atomics);
    race.other_atomic = true;
  }
  if (race.other >= 0) record(FindingKind::kRace, race);
  const Touch me{t, fibers_[unsigned(t)].clock[unsigned(t) % kWarpSize]};
  const auto keep = [&](Touch(&slots)[2]) {  // the thread's latest access, in its own slot or a free one
    for (Touch& slot : slots)
      if (slot.thread == t || slot.thread < 0) {
        slot = me;
        return;
      }
  };
  if (atomic) keep(touches.atomics);
  else if (write) touches.writer = me;
  else keep(touches.readers);

  // Fences and atomics: a global store, then __threadfence(), then an atomic, publishes the store to
  // every block whose atomic on the same location comes later (see Release).
  if (!shared) {
    Fiber& f = fibers_[unsigned(t)];
    if (atomic) {
      ++atomics_;
      for (std::uintptr_t stored : f.fenced) released_[stored] = Release{address, atomics_, block_};
      f.fenced.clear();
      f.seen[address] = atomics_;
    } else if (write) {
      f.unfenced.push_back(address);
    }
  }

  // The same between blocks, for global elements, over the whole run: a block's accesses are in no
  // order with another's, whatever step each is in. Reads share; atomics share with atomics.
  if (!shared && blocks_ > 1) {
    BlockTouches& blocks = block_touches_[address];
    const int b = int(block_);
    Event cross = event;  // its `other` is a block
    cross.other_is_block = true;
    // Another block's store that it published (Release) to a block this thread has seen the atomic of.
    const auto published = [&](int writer) {
      const auto it = released_.find(address);
      if (write || it == released_.end() || it->second.block != unsigned(writer)) return false;
      const auto& seen = fibers_[unsigned(t)].seen;
      const auto counter = seen.find(it->second.counter);
      return counter != seen.end() && counter->second > it->second.atomic;
    };
    if (const int w = other_than(blocks.writers, b); w >= 0 && !published(w)) {  // another block's plain write
      cross.other = w;
      cross.other_wrote = true;
      cross.unreleased = !write;
    } else if (!atomic && other_than(blocks.atomics, b) >= 0) {  // a plain access after another block's atomic
      cross.other = other_than(blocks.atomics, b);
      cross.other_atomic = true;
    } else if (write && other_than(blocks.readers, b) >= 0) {  // a write or an atomic after another block's read
      cross.other = other_than(blocks.readers, b);
    }
    if (cross.other >= 0) record(FindingKind::kRace, cross);
    add_to(atomic ? blocks.atomics : write ? blocks.writers : blocks.readers, b);
  }

  // The recording: the access as it leaves this function, its value read after the checks above
  // (a read of unwritten shared memory carries the poison put there).
  if (log_) {
    log_->push_back({std::uint32_t(t), 0, write, shared, address, 0, level, 0});
    std::memcpy(&log_->back().value_bits, value, std::min(size, sizeof log_->back().value_bits));
  }
}

// The buffer whose elements or guards hold `address`, or null.
const Buffer* Machine::buffer_at(std::uintptr_t address) const {
  for (const Buffer& buffer : buffers_) {
    const auto begin = reinterpret_cast<std::uintptr_t>(buffer.begin);
    if (address >= begin - buffer.guard * buffer.element_size &&
        address < begin + (buffer.count + buffer.guard) * buffer.element_size)
      return &buffer;
  }
  return nullptr;
}

// A load of raw bytes (a vector through __ldg): one load of each element of its buffer they cover.
void Machine::load_bytes(const void* where_ptr, std::size_t size) {
  const auto address = reinterpret_cast<std::uintptr_t>(where_ptr);
  const Buffer* buffer = buffer_at(address);
  if (!buffer) return access(false, where_ptr, where_ptr, size, 0);
  for (std::size_t at = 0; at < size; at += buffer->element_size) {
    const auto element = reinterpret_cast<const void*>(address + at);
    access(false, element, element, buffer->element_size, 0);
  }
}

// Whether an address that no buffer holds is shared memory: the launch's dynamic shared memory, or
// inside a __shared__ array (a thread_local under the shim, in the program's TLS block).
bool Machine::in_shared_memory(std::uintptr_t address) const {
  if (address - reinterpret_cast<std::uintptr_t>(dynamic_.begin) < dynamic_.capacity) return true;
  if (address < tls_begin_ || address >= tls_end_) return false;
  bool inside = true;
  if (!shared_arrays().empty()) shared_array_near(address - tls_begin_, inside);
  return inside;
}

// An element, as the kernel names it: data[i] counted from the start of the block's own row.
std::string Machine::where(std::uintptr_t address, unsigned block) const {
  if (const Buffer* held = buffer_at(address)) {
    const Buffer& buffer = *held;
    const auto begin = reinterpret_cast<std::uintptr_t>(buffer.begin);
    // A grid's buffers are the whole grid's: counted from their start, not from the block's row.
    const std::size_t length = buffer.whole_grid ? buffer.count : buffer.row_length;
    const auto index = (std::intptr_t(address) - std::intptr_t(begin)) / std::intptr_t(buffer.element_size) -
                       std::intptr_t(buffer.whole_grid ? 0 : block * buffer.row_length);
    std::string text = std::string(buffer.name) + "[" + std::to_string(index) + "]";
    if (index < 0 || index >= std::intptr_t(length))
      text += std::string(buffer.whole_grid ? ", outside the " : ", outside the block's ") + std::to_string(length) +
              (length == 1 ? " element" : " elements") + " (" + std::string(buffer.name) + "[0, " +
              std::to_string(length) + "))";
    return text;
  }
  const auto dynamic_begin = reinterpret_cast<std::uintptr_t>(dynamic_.begin);
  if (address >= dynamic_begin && address < dynamic_begin + dynamic_.capacity)
    return "byte " + std::to_string(address - dynamic_begin) + " of dynamic shared memory (extern __shared__), of " +
           std::to_string(dynamic_.bytes) + " the launch gave";
  const std::string smaller = "a __shared__ array declared smaller than the block of " + std::to_string(threads_) +
                              " threads? (the run stops here)";
  bool inside = true;
  const SharedArray* array = address >= tls_begin_ && address < tls_end_ + 65536  // or just past the block's end
                                 ? shared_array_near(address - tls_begin_, inside) : nullptr;
  if (array && !inside) {  // "partial[256] of ch05::shared_memory_kernel<Checked<int> >, ..."
    char* demangled = abi::__cxa_demangle(array->name.c_str(), nullptr, nullptr, nullptr);
    const std::string name = demangled ? demangled : array->name;
    std::free(demangled);
    std::size_t end = 0;  // the function's name ends at its parameters' `(`, outside any template argument
    for (int depth = 0; end < name.size() && (name[end] != '(' || depth > 0); ++end)
      depth += name[end] == '<' ? 1 : name[end] == '>' ? -1 : 0;
    std::string function = name.substr(0, end);
    for (std::size_t at; (at = function.find("reduction::emulator::")) != std::string::npos;) function.erase(at, 21);
    const std::size_t element = buffers_[0].element_size;
    return name.substr(name.rfind("::") + 2) + "[" +
           std::to_string((address - tls_begin_ - array->offset) / element) + "] of " + function +
           ", past its end (" + std::to_string(array->size / element) + " elements): " + smaller;
  }
  if (!in_shared_memory(address)) return "an address in no buffer and outside every shared array: " + smaller;
  return "shared element " + std::to_string((address - lowest_shared_) / buffers_[0].element_size) +
         " (counted from the lowest shared element touched)";
}

void Machine::report() {
  for (const auto& [kind, e] : first_) {
    std::string text;
    const std::string who = "block " + std::to_string(e.block) + ", " +
                            (e.step == 0 ? std::string("before the first barrier")
                                         : "after barrier " + std::to_string(e.step)) +
                            ": thread " + std::to_string(e.thread);
    switch (kind) {
      case FindingKind::kRace: {
        const auto did = [](bool atomic, bool wrote) {
          return std::string(atomic ? " adds to atomically" : wrote ? " writes" : " reads");
        };
        text = who + did(e.atomic, e.write) + " " + where(e.address, e.block) + ", which ";
        if (e.other_is_block)
          text += "block " + std::to_string(e.other) + did(e.other_atomic, e.other_wrote) +
                  ": no barrier orders two blocks, so they may share a global element only by reading it or "
                  "by atomics" +
                  (e.unreleased ? ", or by a store that the writer follows with __threadfence() and then an "
                                  "atomic, which the reader's block sees before it reads"
                                : "");
        else
          text += "thread " + std::to_string(e.other) + did(e.other_atomic, e.other_wrote) +
                  " in the same step: no barrier orders the two";
        break;
      }
      case FindingKind::kOutOfBounds:
        text = who + (e.write ? " writes " : " reads ") + where(e.address, e.block);
        break;
      case FindingKind::kUninitializedRead:  // global memory that starts unwritten, or shared memory
        text = who + " reads " + where(e.address, e.block) +
               (buffer_at(e.address) ? " before any launch has written it"
                                     : " before any thread of the block has written it");
        break;
      default:
        text = e.text;
    }
    const std::size_t count = counts_[std::size_t(kind)];
    if (count > 1) text += " (" + std::to_string(count) + " such accesses in this run)";
    outcome_.findings.push_back({kind, schedule_text(schedule_, blocks_reversed_), text});
  }
}

}  // namespace

void access(bool write, const void* where, const void* value, std::size_t size, std::uint32_t level) {
  if (machine) machine->access(write, where, value, size, level);
}
void atomic_access(const void* where, const void* value, std::size_t size, std::uint32_t level) {
  if (machine) machine->access(true, where, value, size, level, true);
}
void sync_threads(const char* file, int line) {
  if (!machine) throw std::logic_error("__syncthreads() outside an emulated kernel");
  machine->wait_at(Wait::kBlock, file, line);
  machine->yield();
}
void load_bytes(const void* where, std::size_t size) {
  if (machine) machine->load_bytes(where, size);
}
void sync_warp(unsigned mask, const char* file, int line) {
  if (!machine) throw std::logic_error("__syncwarp() outside an emulated kernel");
  machine->check_warp_call(Wait::kWarpBarrier, mask, file, line);
  machine->yield();
}
void shuffle(ShuffleKind kind, unsigned mask, const void* value, void* received, void (*copy)(void*, const void*),
             int lane_or_delta, int width, const char* file, int line) {
  if (!machine) throw std::logic_error("a shuffle outside an emulated kernel");
  Fiber& f = machine->self();
  f.shuffle_kind = kind;
  f.value = value;
  f.received = received;
  f.copy = copy;
  f.lane_or_delta = lane_or_delta;
  f.width = width;
  machine->check_warp_call(Wait::kShuffle, mask, file, line);
  machine->yield();
}
void thread_fence() {
  if (!machine) return;
  Fiber& f = machine->self();
  f.fenced.insert(f.fenced.end(), f.unfenced.begin(), f.unfenced.end());
  f.unfenced.clear();
}

RunOutcome run_kernel(const std::function<void()>& kernel, unsigned threads, unsigned blocks, Schedule schedule,
                      const std::vector<Buffer>& buffers, std::size_t result_buffer,
                      const std::function<void(void*)>& poison, std::vector<Logged>* log, bool blocks_reversed,
                      DynamicShared dynamic) {
  Machine m(threads, blocks, schedule, buffers, result_buffer, poison, log, blocks_reversed, dynamic);
  machine = &m;
  RunOutcome outcome = m.run(kernel);
  machine = nullptr;
  return outcome;
}

}  // namespace detail
}  // namespace reduction::emulator
