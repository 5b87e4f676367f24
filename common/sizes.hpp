// --sizes: one run over many sizes. Every size reduces a prefix of one input (the input --n would
// make of the largest size: element i depends only on the seed and i), so the sizes share one
// upload and one pass of the CPU reference.
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "ops.hpp"
#include "options.hpp"
#include "reference.hpp"

namespace reduction {

// "standard": n = 2^k for k = 0 to 30, 2^k - 1 and 2^k + 1 between them, and 10^k up to 10^9.
inline std::vector<std::size_t> standard_sizes() {
  std::set<std::size_t> sizes;
  for (int k = 0; k <= 30; ++k) {
    const std::size_t p = std::size_t(1) << k;
    sizes.insert(p);
    if (p > 1) sizes.insert(p - 1);
    if (k < 30) sizes.insert(p + 1);
  }
  for (std::size_t p = 10; p <= 1000000000; p *= 10) sizes.insert(p);
  return {sizes.begin(), sizes.end()};
}

// "standard", or counts separated by commas ("1,1000,2^20"): ascending, without repeats.
inline std::optional<std::vector<std::size_t>> parse_sizes(const std::string& text) {
  if (text == "standard") return standard_sizes();
  std::set<std::size_t> sizes;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    const auto n = parse_count(item);
    if (!n || *n == 0) return std::nullopt;
    sizes.insert(*n);
  }
  if (sizes.empty()) return std::nullopt;
  return std::vector<std::size_t>(sizes.begin(), sizes.end());
}

// The reference of every prefix data[0, n), for each n of `sizes` (ascending). Exact operators
// (integer sums, max, min) combine the references of the segments between consecutive sizes, so
// the input is read once whatever the number of sizes; a float sum takes each prefix's own
// reference, whose error bound is made for one call.
template <typename Op, typename T>
std::vector<Reference<T>> prefix_references(const std::vector<T>& data, const std::vector<std::size_t>& sizes) {
  std::vector<Reference<T>> refs;
  if constexpr (std::is_same_v<Op, Sum> && !std::is_integral_v<T>) {
    for (const std::size_t n : sizes) refs.push_back(reference_sum(data.data(), n));
  } else {
    Reference<T> running = reference_reduce<Op>(data.data(), 0);  // the identity, exactly
    std::size_t done = 0;
    for (const std::size_t n : sizes) {
      const Reference<T> segment = reference_reduce<Op>(data.data() + done, n - done);
      running.value = Op{}(running.value, segment.value);  // integer sums wrap as the GPU's do
      running.precise = static_cast<long double>(running.value);
      done = n;
      refs.push_back(running);
    }
  }
  return refs;
}

}  // namespace reduction
