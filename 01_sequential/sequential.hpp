// Chapter 01: the sequential reduction.
//
// One accumulator starts at the operator's identity and takes in the elements one after another:
// n operations in a chain, each waiting for the one before it. Every later chapter computes the
// same value; this loop is the baseline they are timed against, and its order of additions is the
// one whose rounding chapter 02 compares with a tree's.
#pragma once

#include <cstddef>

#include "common/ops.hpp"

namespace ch01 {

template <typename Op, typename T> T sequential_reduce(const T* data, std::size_t n, Op op = {}) {
  T acc = Op::template identity<T>();  // an empty input reduces to the identity
  for (std::size_t i = 0; i < n; ++i) acc = op(acc, data[i]);
  return acc;
}

}  // namespace ch01
