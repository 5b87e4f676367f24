// Chapter 02: the reduction tree, as a model on the CPU. Because the operator is associative, the
// n - 1 operations of the loop can be regrouped into a tree: at each level all disjoint pairs combine
// at once, so the steps drop from n to ceil(log2 n) while the work stays n - 1.
#pragma once

#include <cstddef>
#include <vector>

#include "common/ops.hpp"

namespace ch02 {

// What the tree costs and what it gives, for n >= 1 inputs.
struct TreeModel {
  std::size_t work;            // operations: n - 1, the same as sequential (work-efficient)
  std::size_t steps;           // levels of the tree: ceil(log2 n)
  std::size_t peak_parallelism;  // operations in the first level: floor(n / 2)
  double average_parallelism;  // work / steps
  double ideal_speedup;        // sequential steps (n, as chapter 01's loop does) / tree steps
};

inline TreeModel tree_model(std::size_t n) {
  TreeModel m{};
  m.work = n ? n - 1 : 0;
  m.steps = n ? reduction::ceil_log2(n) : 0;
  m.peak_parallelism = n / 2;
  m.average_parallelism = m.steps ? double(m.work) / double(m.steps) : 0.0;
  m.ideal_speedup = m.steps ? double(n) / double(m.steps) : 1.0;
  return m;
}

// One level of the tree, in place: element i becomes the combination of elements 2i and 2i+1; an
// odd element out at the end passes through unchanged, to be paired at a later level.
template <typename Op, typename T> void tree_level(std::vector<T>& values, Op op = {}) {
  const std::size_t pairs = values.size() / 2, odd = values.size() % 2;
  for (std::size_t i = 0; i < pairs; ++i) values[i] = op(values[2 * i], values[2 * i + 1]);
  if (odd) values[pairs] = values.back();
  values.resize(pairs + odd);
}

// Every level from the inputs to the root: levels.front() is the input, levels.back() the result.
template <typename Op, typename T> std::vector<std::vector<T>> tree_levels(std::vector<T> values, Op op = {}) {
  std::vector<std::vector<T>> levels{values};
  while (values.size() > 1) {
    tree_level(values, op);
    levels.push_back(values);
  }
  return levels;
}

// The tree's result. Each element passes through at most ceil(log2 n) operations, so a float sum's
// rounding error is bounded by gamma(ceil(log2 n)) sum|x| instead of the sequential loop's
// gamma(n - 1) sum|x|.
template <typename Op, typename T> T tree_reduce(std::vector<T> values, Op op = {}) {
  if (values.empty()) return Op::template identity<T>();
  while (values.size() > 1) tree_level(values, op);
  return values[0];
}

}  // namespace ch02
