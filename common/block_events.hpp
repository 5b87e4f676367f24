// What the threads of a single-block kernel (chapters 03 to 05) did, one event per operation, and
// the model that predicts those events on the CPU.
//
// There are two sources of events, in the same format:
//  - the recording: the kernel itself, instantiated with a recorder (common/block_recorder.cuh),
//    writes an event beside each operation it performs on the GPU;
//  - the prediction: a chapter's model (its model.hpp) walks the kernel's steps thread by thread
//    on the CPU with arithmetic of its own, through PredictedBlock below.
// The trace (block_trace.hpp) and the execution and memory counts (block_model.hpp) are computed
// from a list of events, whichever source it came from. The GPU tests hold the prediction against
// the recording, so nothing the program says about a kernel's steps goes unchecked.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <tuple>
#include <vector>

#include "ops.hpp"

namespace reduction::single_block {

// One operation of one thread. The kernels of these chapters write in only two places: an array in
// global memory (the input, or *result) and one in shared memory (chapter 05's partial sums).
struct BlockEvent {
  enum Kind : std::uint32_t {
    kStep,    // the block begins a step of the tree (recorded once, by thread 0)
    kAdd,     // target[owner] = source[owner] + source[partner]
    kCopy,    // target[owner] = source[owner]
    kResult,  // *result = source[owner]
  };
  std::uint32_t kind = kStep;
  std::uint32_t step = 0;    // the steps the thread had begun: 1 in the first step (kResult: after the last)
  std::uint32_t stride = 0;  // kStep only: the step's stride
  std::uint32_t thread = 0;
  std::uint32_t owner = 0;                             // the element written, and the first operand's index
  std::uint32_t partner = 0;                           // kAdd only: the second operand's index
  std::uint32_t target_shared = 0, source_shared = 0;  // 1 for an array in shared memory, 0 for global
  std::uint64_t value_bits = 0;                        // the value written, as bytes (a T has at most 8)
};

inline bool operator==(const BlockEvent& a, const BlockEvent& b) {
  return std::memcmp(&a, &b, sizeof(BlockEvent)) == 0;
}

template <typename T>
std::uint64_t value_bits(T value) {
  static_assert(sizeof(T) <= sizeof(std::uint64_t), "an event holds values of at most 8 bytes");
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  return bits;
}

template <typename T>
T value_of(const BlockEvent& e) {
  T value;
  std::memcpy(&value, &e.value_bits, sizeof(T));
  return value;
}

// Puts events in the order of the kernel: step by step, the step's marker first, then thread by
// thread, the result last. (The recorder appends them in whatever order the threads arrive.)
inline void sort_events(std::vector<BlockEvent>& events) {
  auto key = [](const BlockEvent& e) {
    return std::make_tuple(e.kind == BlockEvent::kResult, e.step, e.kind != BlockEvent::kStep, e.thread, e.kind);
  };
  std::stable_sort(events.begin(), events.end(),
                   [&](const BlockEvent& a, const BlockEvent& b) { return key(a) < key(b); });
}

// Whether, in some step, a thread reads or writes an element that another thread writes in that
// step. None does in these kernels, and that is what lets the model below carry out a step's
// threads one after another and still get what the block computes at once (the chapters' CPU
// tests check it on the prediction, for every n).
inline bool step_has_race(const std::vector<BlockEvent>& events) {
  struct Element {
    std::uint32_t step, shared;
    std::size_t index;
    bool operator<(const Element& o) const {
      return std::tie(step, shared, index) < std::tie(o.step, o.shared, o.index);
    }
  };
  std::map<Element, std::uint32_t> writer;  // element -> the thread that writes it in its step
  for (const BlockEvent& e : events)
    if (e.kind == BlockEvent::kAdd || e.kind == BlockEvent::kCopy)
      if (!writer.insert({{e.step, e.target_shared, e.owner}, e.thread}).second) return true;  // two writers
  for (const BlockEvent& e : events) {
    if (e.kind != BlockEvent::kAdd && e.kind != BlockEvent::kCopy) continue;
    std::vector<std::size_t> reads = {e.owner};
    if (e.kind == BlockEvent::kAdd) reads.push_back(e.partner);
    for (std::size_t index : reads) {
      auto it = writer.find({e.step, e.source_shared, index});
      if (it != writer.end() && it->second != e.thread) return true;
    }
  }
  return false;
}

// The model's side: the kernel's operations carried out one thread after another on the CPU, each
// leaving the event that the recorder would write for it. A chapter's model calls these in the
// order its kernel's threads perform them; a step's threads may go in any order, because within a
// step no thread touches an element that another writes (the chapters' CPU tests check that on
// the prediction, and the GPU tests check the prediction against the recording).
template <typename T>
class PredictedBlock {
 public:
  enum Array { kData, kPartial };  // the input, in global memory; the partial sums, in shared memory

  PredictedBlock(const std::vector<T>& input, unsigned threads) : data_(input), partial_(threads) {}

  void step(unsigned stride) {
    ++step_;
    BlockEvent e;
    e.kind = BlockEvent::kStep;
    e.step = step_;
    e.stride = stride;
    events_.push_back(e);
  }
  void add(unsigned thread, Array target, std::size_t owner, Array source, std::size_t partner) {
    const T sum = Sum{}(at(source, owner), at(source, partner));
    at(target, owner) = sum;
    push(BlockEvent::kAdd, thread, target, owner, source, partner, sum);
  }
  void copy(unsigned thread, Array target, std::size_t owner, Array source) {
    const T value = at(source, owner);
    at(target, owner) = value;
    push(BlockEvent::kCopy, thread, target, owner, source, 0, value);
  }
  void result(unsigned thread, Array source, std::size_t index) {
    push(BlockEvent::kResult, thread, kData, index, source, 0, at(source, index));
  }

  const std::vector<BlockEvent>& events() const { return events_; }

 private:
  T& at(Array array, std::size_t index) { return array == kData ? data_.at(index) : partial_.at(index); }
  void push(BlockEvent::Kind kind, unsigned thread, Array target, std::size_t owner, Array source, std::size_t partner,
            T value) {
    BlockEvent e;
    e.kind = kind;
    e.step = step_;
    e.thread = thread;
    e.owner = static_cast<std::uint32_t>(owner);
    e.partner = static_cast<std::uint32_t>(partner);
    e.target_shared = kind != BlockEvent::kResult && target == kPartial;
    e.source_shared = source == kPartial;
    e.value_bits = value_bits(value);
    events_.push_back(e);
  }

  std::vector<T> data_, partial_;
  std::vector<BlockEvent> events_;
  std::uint32_t step_ = 0;
};

}  // namespace reduction::single_block
