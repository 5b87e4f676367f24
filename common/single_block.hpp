// What the single-block chapters (03 to 05) share: the sizes one block can reduce, and the block
// that the algorithm dictates for n elements.
//
// One block, because the tree needs a barrier between its steps and __syncthreads() only waits
// for the threads of one block. At most 1024 threads in a block, and every thread starts with two
// elements, so at most 2048 elements. Chapter 06 lifts that limit with many blocks.
//
// Rows: the same kernels also reduce a batch of independent arrays ("rows") of n elements each,
// stored one after another, one block per row: block b reduces row b into result[b]. That is the
// shape of softmax and layer normalisation, and it gives these kernels work large enough to time
// against memory, where their ideas show (one array of 2048 elements is over in the time of a launch).
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "errors.hpp"
#include "reference.hpp"

namespace reduction::single_block {

constexpr unsigned kWarpSize = 32;
constexpr unsigned kMaxThreads = 1024;                              // the most threads a block may have
constexpr std::size_t kMaxElements = 2 * std::size_t(kMaxThreads);  // two elements for each of them
constexpr std::size_t kMaxTraceElements = 64;                       // what --trace can draw legibly
constexpr std::size_t kMaxRows = 2147483647;                         // a grid's most blocks in x, 2^31 - 1

// The block for n elements (1 <= n <= 2048): enough threads for each to own two elements, rounded
// up to a power of two so that halving the active threads always ends at exactly one. When n is not
// a power of two, some elements a thread would combine do not exist: the kernels skip those
// additions with a guard instead of padding the input with the identity.
inline unsigned threads_for(std::size_t n) {
  unsigned threads = 1;
  while (2 * std::size_t(threads) < n) threads *= 2;
  return threads;
}

inline unsigned warps_for(unsigned threads) { return (threads + kWarpSize - 1) / kWarpSize; }

// Why these kernels cannot reduce n elements, naming the chapter that can; nothing if they can.
inline std::optional<std::string> size_error(std::size_t n) {
  if (n == 0)
    return std::string(
        "n = 0 is too small: a block reduction returns the partial sum of thread 0, and with no "
        "elements there is none (01_sequential reduces an empty input to the identity)");
  if (n > kMaxElements)
    return "n = " + std::to_string(n) + " is too large: one block reduces at most " + std::to_string(kMaxElements) +
           " elements, two for each of its at most " + std::to_string(kMaxThreads) +
           " threads; 06_hierarchical lifts the limit with many blocks";
  return std::nullopt;
}

// What a single-block program refuses: a size out of reach, or a trace too large to draw.
inline std::optional<std::string> check_input(std::size_t n, bool trace) {
  if (auto why = size_error(n)) return why;
  if (trace && n > kMaxTraceElements)
    return "--trace draws at most " + std::to_string(kMaxTraceElements) + " elements, and n = " + std::to_string(n);
  return std::nullopt;
}

// Why `rows` rows cannot be launched, one block each; nothing if they can.
inline std::optional<std::string> rows_error(std::size_t rows) {
  if (rows == 0) return std::string("--rows must be at least 1");
  if (rows > kMaxRows)
    return "--rows " + std::to_string(rows) + " is too many: one block per row, and a grid has at most " +
           std::to_string(kMaxRows) + " blocks";
  return std::nullopt;
}

// The launchers' guard: a size out of reach would launch too many threads, or read element 0 of
// an empty array; no rows, or more than a grid holds, would fail the launch.
inline void require_valid_size(std::size_t n, std::size_t rows = 1) {
  if (auto why = size_error(n)) throw InputError(*why);
  if (auto why = rows_error(rows)) throw InputError(*why);
}

// The most rounded additions an element meets on its way to the result: one per step of the
// tree, and a block of threads_for(n) threads takes log2(2 * threads) = ceil(log2 n) steps.
// (The shape of Variant::depth; the block size follows from n.)
inline std::size_t tree_depth(std::size_t n, int /*block*/ = 0) { return ceil_log2(n); }

// The sizes the tests check: the smallest, every power of two with its neighbours, and a few that
// are not near a power of two.
inline std::vector<std::size_t> sizes_to_test() {
  std::vector<std::size_t> sizes = {1, 2, 3, 1000, kMaxElements - 1, kMaxElements};
  for (std::size_t p = 4; p <= kMaxElements; p *= 2)
    for (std::size_t s : {p - 1, p, p + 1})
      if (s <= kMaxElements) sizes.push_back(s);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

}  // namespace reduction::single_block
