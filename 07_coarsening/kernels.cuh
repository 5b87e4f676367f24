// Chapter 07's registry: one kernel per coarsening factor, listed once for the program, its tests
// and the benchmark. The kernel and its launcher are in solution/coarsening.cuh.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "coarsening.cuh"
#include "common/gpu.cuh"  // Variant, MultiBlockLaunch

namespace ch07 {

// The factors the program sweeps, from chapter 06's two elements per thread (factor 1) up to
// where, at the default size, too few blocks are left to fill the GPU.
using CoarseFactors = std::integer_sequence<int, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024>;

template <int kCoarse, typename T>
reduction::Variant<reduction::MultiBlockLaunch<T>> variant() {
  static const std::string name = "coarse" + std::to_string(kCoarse);
  static const std::string idea = "each thread adds " + std::to_string(2 * kCoarse) + " elements before the tree";
  return {name.c_str(), idea.c_str(), launch<kCoarse, T>, depth<kCoarse>, false};
}

template <typename T, int... kFactors>
std::vector<reduction::Variant<reduction::MultiBlockLaunch<T>>> variants_for(std::integer_sequence<int, kFactors...>) {
  return {variant<kFactors, T>()...};
}

// One variant per factor, in the order of CoarseFactors, named "coarse1", "coarse2", ...
template <typename T>
std::vector<reduction::Variant<reduction::MultiBlockLaunch<T>>> variants() {
  return variants_for<T>(CoarseFactors{});
}

template <int... kFactors>
std::vector<int> factors_of(std::integer_sequence<int, kFactors...>) {
  return {kFactors...};
}

// The factor of each variant, in the same order.
inline std::vector<int> coarse_factors() { return factors_of(CoarseFactors{}); }

}  // namespace ch07
