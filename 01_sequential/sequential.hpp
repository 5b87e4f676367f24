// Chapter 01: the sequential reduction. One accumulator starts at the operator's identity and takes
// in the elements one after another: n operations in a chain, each waiting for the one before it,
// the baseline every later chapter is timed against.
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
