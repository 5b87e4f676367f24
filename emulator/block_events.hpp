// What the threads of a single-block kernel (chapters 03 to 05) did to memory, one load or store of
// one element at a time, and the steps of the tree read from it. The same kernel source gives the
// accesses on the GPU (traced.cuh: the recording) and on the CPU emulator (the emulated run); the
// trace (block_trace.hpp) and the counts (block_model.hpp) are computed from their steps, and the
// GPU tests hold the emulated run against the recording.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "common/ops.hpp"

namespace reduction::single_block {

// The arrays these kernels touch: the input (global memory), the partial sums (chapter 05's, in
// shared memory) and *result (global memory).
enum class Array : std::uint32_t { kData, kPartial, kResult };

// One load or store of one element by one thread. Each thread's accesses come in its program order.
struct Access {
  std::uint32_t thread = 0;
  bool write = false;
  Array array = Array::kData;
  std::uint32_t index = 0;
  std::uint64_t value_bits = 0;  // the element's value, as bytes (a T has at most 8)
  std::uint32_t level = 0;       // the additions on the longest path from the input to that value
  auto key() const { return std::tie(thread, write, array, index, value_bits, level); }
  bool operator==(const Access& o) const { return key() == o.key(); }
};

// One line of a kernel as one thread ran it: a store, and the one or two loads whose value it stores.
struct Operation {
  enum Kind : std::uint32_t { kAdd, kCopy, kResult };  // target = a + b; target = a; *result = a
  Kind kind = kAdd;
  std::uint32_t thread = 0;
  Array target = Array::kData, source = Array::kData;
  std::uint32_t index = 0;              // the element stored
  std::uint32_t first = 0, second = 0;  // the elements loaded, in the order of their indices (second: kAdd)
  std::uint64_t value_bits = 0;
  std::uint32_t level = 0;
  auto key() const { return std::tie(kind, thread, target, source, index, first, second, value_bits, level); }
  bool operator==(const Operation& o) const { return key() == o.key(); }
};

// A step of the tree: the additions of one stride, the distance between the two elements each adds.
struct Step {
  unsigned stride = 0;                // 0: a step that only copies (chapter 05's load of one element)
  std::vector<Operation> operations;  // thread by thread
};

struct Steps {
  std::vector<Step> tree;          // in the kernel's order
  std::vector<Operation> results;  // the stores to *result, after the tree
};

template <typename T>
std::uint64_t value_bits(T value) {
  static_assert(sizeof(T) <= sizeof(std::uint64_t), "an access holds values of at most 8 bytes");
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  return bits;
}

template <typename T>
T value_of(std::uint64_t bits) {
  T value;
  std::memcpy(&value, &bits, sizeof(T));
  return value;
}

// One access as it is logged, by address: on the GPU (traced.cuh) or on the emulator.
struct LoggedAccess {
  std::uint32_t thread, order;  // order: the thread's own count of its accesses before this one (the GPU's)
  std::uint32_t write, shared;
  std::uint64_t address;  // global: the address; shared: on the GPU, the offset in the block's shared memory
  std::uint64_t value_bits;
  std::uint32_t level, unused;
};

// A log of accesses, the GPU's (traced.cuh's record()) or the emulator's, as Accesses: each
// thread's together in its order, an element named by its index in the row (data), in shared
// memory (partial, counted from the lowest shared address touched) or as the result.
inline std::vector<Access> accesses_from(const std::vector<LoggedAccess>& log, std::uint64_t data, std::size_t n,
                                         std::uint64_t result, std::uint64_t element_size) {
  std::uint64_t shared_base = ~std::uint64_t(0);
  for (const LoggedAccess& l : log)
    if (l.shared) shared_base = std::min<std::uint64_t>(shared_base, l.address);
  std::vector<Access> out;
  for (const LoggedAccess& l : log) {
    Access access{std::uint32_t(l.thread), l.write != 0, Array::kData, 0, l.value_bits, l.level};
    if (l.shared) {
      access.array = Array::kPartial;
      access.index = std::uint32_t((l.address - shared_base) / element_size);
    } else if (l.address >= data && l.address < data + n * element_size) {
      access.index = std::uint32_t((l.address - data) / element_size);
    } else if (l.address == result) {
      access.array = Array::kResult;
    } else {
      throw std::runtime_error("the recorded kernel touched global memory outside its input and its result");
    }
    out.push_back(access);
  }
  std::stable_sort(out.begin(), out.end(), [](const Access& a, const Access& b) { return a.thread < b.thread; });
  return out;
}

// The lines the threads ran, thread by thread, each thread's in its order: every store closes a
// line, with the loads since the thread's last store.
inline std::vector<Operation> operations_of(std::vector<Access> accesses) {
  std::stable_sort(accesses.begin(), accesses.end(),
                   [](const Access& a, const Access& b) { return a.thread < b.thread; });
  std::vector<Operation> lines;
  std::vector<Access> loads;
  for (const Access& a : accesses) {
    if (!loads.empty() && loads.front().thread != a.thread)
      throw std::runtime_error("thread " + std::to_string(loads.front().thread) + " loaded an element it never stored");
    if (!a.write) {
      loads.push_back(a);
      continue;
    }
    if (loads.empty() || loads.size() > 2 || (loads.size() == 2 && loads[0].array != loads[1].array))
      throw std::runtime_error("thread " + std::to_string(a.thread) +
                               " stored something other than one element or the sum of two of one array");
    if (loads.size() == 2 && loads[1].index < loads[0].index) std::swap(loads[0], loads[1]);
    Operation line;
    line.kind = a.array == Array::kResult ? Operation::kResult : loads.size() == 2 ? Operation::kAdd : Operation::kCopy;
    line.thread = a.thread;
    line.target = a.array;
    line.index = a.index;
    line.source = loads[0].array;
    line.first = loads[0].index;
    line.second = loads.size() == 2 ? loads[1].index : 0;
    line.value_bits = a.value_bits;
    line.level = a.level;
    lines.push_back(line);
    loads.clear();
  }
  if (!loads.empty())
    throw std::runtime_error("thread " + std::to_string(loads.front().thread) + " loaded an element it never stored");
  return lines;
}

// The steps of the tree, read from the accesses alone. Barriers leave no access, so a step is
// found by its stride (in these kernels each step has its own), and the steps come in the order of
// the dependency level of what they write. A copy adds nothing: it belongs to the first step.
inline Steps steps_of(const std::vector<Access>& accesses) {
  Steps steps;
  std::map<unsigned, Step> by_stride;
  std::map<unsigned, std::uint32_t> deepest;  // stride -> the highest level its step writes
  std::vector<Operation> copies;
  for (const Operation& line : operations_of(accesses)) {
    if (line.kind == Operation::kResult) {
      steps.results.push_back(line);
    } else if (line.kind == Operation::kCopy) {
      copies.push_back(line);
    } else {
      const unsigned stride = line.second - line.first;
      by_stride[stride].stride = stride;
      by_stride[stride].operations.push_back(line);
      deepest[stride] = std::max(deepest[stride], line.level);
    }
  }
  for (auto& [stride, step] : by_stride) steps.tree.push_back(std::move(step));
  std::stable_sort(steps.tree.begin(), steps.tree.end(),
                   [&](const Step& a, const Step& b) { return deepest[a.stride] < deepest[b.stride]; });
  if (!copies.empty()) {
    if (steps.tree.empty()) steps.tree.emplace_back();
    auto& first = steps.tree.front().operations;
    first.insert(first.end(), copies.begin(), copies.end());
    std::stable_sort(first.begin(), first.end(),
                     [](const Operation& a, const Operation& b) { return a.thread < b.thread; });
  }
  return steps;
}

}  // namespace reduction::single_block

namespace reduction::emulator {

// The chapter's kernel (03 to 05) run on one row on the CPU emulator, threads in order, in a block of
// threads_for(n): every load and store it made, as traced.cuh's record() returns them from the GPU.
// `findings` receives what the run found, one line per kind: if not empty, these are the accesses
// of a wrong kernel and must not be shown as the lesson. Compiled per chapter (emulated.cpp).
template <typename T>
std::vector<single_block::Access> emulate_accesses(const std::vector<T>& row, std::string* findings);

}  // namespace reduction::emulator
