// The launcher shapes of the GPU chapters, and the registry entry that lists a chapter's kernels
// once for its program, its tests and the benchmark.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

#include "gpu.cuh"

namespace reduction {

// Single-block chapters (03 to 05): reduce each of `rows` rows of n elements, stored one after
// another in `data` (device memory, n at most twice the block limit), into result[row], one block
// per row. Chapters 03 and 04 reduce in place and so overwrite `data`; chapter 05 leaves it unchanged.
template <typename T>
using SingleBlockLaunch = void (*)(T* data, std::size_t rows, std::size_t n, T* result, cudaStream_t stream);

// Multi-block chapters (06 to 09): reduce the n elements of `input` into result[0] with blocks of
// `block` threads, taking any temporary memory from `scratch`. The input is left unchanged.
template <typename T>
using MultiBlockLaunch = void (*)(const T* input, std::size_t n, T* result, int block, DeviceScratch& scratch,
                                  cudaStream_t stream);

// One kernel of a chapter, as its program, tests and the benchmark see it.
template <typename Launch> struct Variant {
  const char* name;  // the --kernel name
  const char* idea;  // one line: what it does differently
  Launch launch;
  // The most rounded additions any one element meets on its way to the result, in this kernel's
  // order of summation (common/reference.hpp turns it into the float tolerance).
  std::size_t (*depth)(std::size_t n, int block);
  bool deterministic;  // same float result on every run (false where atomics set the order)
  int min_block = 32;  // the smallest --block it takes (a kernel that reduces whole warps needs 32)
  // Only in a build for instructors (cmake -DREDUCTION_ZOO_KERNELS=ON), for a wrong kernel of the
  // chapter's bug zoo (zoo.txt): the name of the chapter's kernel it is a copy of, with one edit.
  // Such a kernel runs only when --kernel names it. In every other entry, null.
  const char* zoo_of = nullptr;
};

// The variants of `all` named in `names`, in the registry's order.
template <typename Variant>
std::vector<Variant> chosen_variants(const std::vector<Variant>& all, const std::vector<std::string>& names) {
  std::vector<Variant> chosen;
  for (const auto& v : all)
    if (std::find(names.begin(), names.end(), v.name) != names.end()) chosen.push_back(v);
  return chosen;
}

// "a, b, c": names in one line of the report.
template <typename T> std::string join(const std::vector<T>& items, const char* separator = ", ") {
  std::ostringstream out;
  for (std::size_t i = 0; i < items.size(); ++i) out << (i ? separator : "") << items[i];
  return out.str();
}

}  // namespace reduction
