// Chapter 09, step 6: the same bits everywhere (README.md, "Rounding, and the same bits everywhere").
#pragma once

#ifndef REDUCTION_EMULATOR
#include <cuda_runtime.h>
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "common/ops.hpp"
#include "exact_sum.cuh"
#include "fastest_small.cuh"

namespace ch09 {

// `reproducible`: fastest's grid path follows the GPU's multiprocessors, and the cluster path exists
// from Hopper on; this decides from n alone: the single-block path, else tiles of 64 KiB.
template <typename Op, typename T>
FastestPlan reproducible_plan(std::size_t n) {
  using C = FastestChoice;
  if (const int threads = single_block_threads<T>(n)) return {true, threads, 1};
  const std::size_t tile = std::size_t(C::kBlock) * C::kLoadsInFlight * Lanes<T, true>::count;
  const int grid = int((n + tile - 1) / tile);
  return {false, C::kBlock, grid, true, 1, tiles_to_words<Op, T>(),
          tiles_to_words<Op, T>() ? 0 : fold_threads<T>(unsigned(grid), C::kBlock)};
}

#ifndef REDUCTION_EMULATOR
template <typename Op, typename T>
void launch_reproducible(const T* input, std::size_t n, T* result, int /*block: its own*/, DeviceScratch& scratch,
                         cudaStream_t stream) {
  const FastestPlan plan = reproducible_plan<Op, T>(n);
  if (plan.single_block)
    launch_single_block<Op, T>(input, n, result, stream);
  else
    launch_fastest_tiles<Op, T, FastestChoice::kLoadsInFlight, tiles_to_words<Op, T>()>(
        input, n, result, plan.block, plan.grid, 1, plan.fold_block, scratch, stream);
}
#endif  // REDUCTION_EMULATOR

template <typename Op, typename T>
std::size_t reproducible_depth(std::size_t n, int /*block: its own*/) {
  const FastestPlan plan = reproducible_plan<Op, T>(n);
  if (plan.single_block) return single_block_depth<T>();
  return plan.to_words ? tile_words_depth<T>(n, plan.block, plan.grid)
                       : grid_path_depth<T, true>(n, plan.block, plan.grid, plan.fold_block);
}

// `exact`, the correctly rounded sum: every input goes into the words of exact_sum.cuh. An atomic per
// element would be far too slow, so each thread adds the elements of one window of magnitudes
// exactly in a register, and hands it to the block's words in shared memory only when an element of
// another window comes, or the register might stop being exact:
//  - float: a window is 16 exponents (e >> 4), whose elements are integers below 2^39 in units of
//    2^(16 window - 150). A double adds up to 2^14 of them with no rounding (53 bits), so the
//    register is a double: one conversion and one addition an element. (Window 15, from 2^113,
//    and infinities and NaN, which a double would swallow, go to the words one by one.)
//  - double: a window is 32 bits of the integer (shift / 32): m << (shift % 32), under 2^85, into
//    a 128-bit integer.
// At the end each block's words, carried into 32-bit digits, go into the sum words (a piece under
// 2^32 a block, as the tiles' are), and words_kernel rounds them once. (On the CPU emulator T is a
// checked V, and the words checked long longs.)
template <typename T, int kThreads>
__global__ void __launch_bounds__(kThreads) exact_kernel(const T* __restrict__ input, std::size_t n, long long* sum_words) {
  using V = typename reduction::Scalar<T>::type;  // float or double
  using F = ExactFormat<V>;
  using Bits = typename F::Bits;
  using Word = typename reduction::Rebind<T, long long>::type;  // long long
  __shared__ Word block_words[F::kWords];
  for (int i = threadIdx.x; i < F::kWords; i += kThreads) block_words[i] = 0;
  __syncthreads();
  const auto to_word = [&](int word, long long piece) {
    atomicAdd(reinterpret_cast<unsigned long long*>(&block_words[word]), static_cast<unsigned long long>(piece));
  };
  // value x 2^bit into the words, in pieces under 2^32 (the last one signed).
  const auto put = [&](__int128 value, int bit) {
    value *= __int128(1) << (bit % 32);
    int word = bit / 32;
    for (; value >= (__int128(1) << 31) || value < -(__int128(1) << 31); value >>= 32)  // arithmetic shift
      to_word(word++, (long long)(value & 0xffffffff));
    if (value != 0) to_word(word, (long long)value);
  };
  int window = 0, adds = 0;
  using Register = std::conditional_t<std::is_same_v<V, float>, double, __int128>;
  Register sum = 0;
  const auto flush = [&] {
    if constexpr (std::is_same_v<V, float>) {  // sum: an integer below 2^53 in units of 2^(16 window - 150)
      const long long units = (long long)ldexp(sum, 150 - 16 * window);
      if (window == 0) put(units / 2, 0);  // even: window 0's elements are multiples of 2^-149
      else put(units, 16 * window - 1);
    } else {
      put(sum, 32 * window);
    }
    sum = 0;
    adds = 0;
  };
  const auto add = [&](V x) {  // any element, one at a time
    Bits bits;
    memcpy(&bits, &x, sizeof bits);
    const unsigned exponent = unsigned(bits >> F::kFractionBits) & (2 * F::kBias + 1);
    if (Bits(bits << 1) == 0) return;  // +0 or -0
    if constexpr (std::is_same_v<V, float>) {
      if (exponent >> 4 == 15) return exact_add(x, to_word);  // from 2^113, infinities and NaN
      if (int(exponent >> 4) != window || adds == 1 << 14) flush(), window = int(exponent >> 4);
      sum += double(x);
    } else {
      if (exponent == 2 * F::kBias + 1) return exact_add(x, to_word);  // infinities and NaN
      Bits m = (bits & ((Bits(1) << F::kFractionBits) - 1)) | (exponent != 0 ? Bits(1) << F::kFractionBits : 0);
      const unsigned shift = exponent != 0 ? exponent - 1 : 0;
      if (int(shift / 32) != window) flush(), window = int(shift / 32);
      const __int128 value = __int128(m) << (shift % 32);
      sum += bits >> (8 * sizeof(V) - 1) ? -value : value;
    }
    ++adds;
  };
  // The input as fastest's kernels split it: the elements before the first 16-byte boundary, whole
  // vectors (a grid-stride loop, four loads in flight), the elements after the last whole vector.
  constexpr int kCount = 16 / sizeof(T);
  const std::size_t offset = reinterpret_cast<std::uintptr_t>(input) / sizeof(T) % kCount;
  const std::size_t head = offset == 0 ? 0 : kCount - offset < n ? kCount - offset : n;
  const std::size_t vectors = (n - head) / kCount, tail = head + vectors * kCount;
  const auto* vector = reinterpret_cast<const typename Lanes<T, true>::Vector*>(input + head);
  const std::size_t first = std::size_t(blockIdx.x) * kThreads + threadIdx.x, stride = std::size_t(gridDim.x) * kThreads;
  if (first < head) add(input[first]);
  if (first < n - tail) add(input[tail + first]);
  for (std::size_t i = first; i < vectors; i += 4 * stride) {
    typename Lanes<T, true>::Vector v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k)
      if (i + k * stride < vectors) v[k] = load_vector<T>(vector + i + k * stride);
      else
#pragma unroll
        for (int j = 0; j < kCount; ++j) v[k].lane[j] = T(0);
    if constexpr (std::is_same_v<V, float>) {  // the common case: every element in the window
      bool same = adds <= (1 << 14) - 4 * kCount;
#pragma unroll
      for (int k = 0; k < 4; ++k)
#pragma unroll
        for (int j = 0; j < kCount; ++j) same &= int(__float_as_uint(v[k].lane[j]) << 1 >> 28) == window;
      if (same) {  // one conversion and one addition an element
#pragma unroll
        for (int k = 0; k < 4; ++k)
#pragma unroll
          for (int j = 0; j < kCount; ++j) sum += double(v[k].lane[j]);
        adds += 4 * kCount;
        continue;
      }
    }
#pragma unroll
    for (int k = 0; k < 4; ++k)
#pragma unroll
      for (int j = 0; j < kCount; ++j) add(v[k].lane[j]);
  }
  flush();
  __syncthreads();
  if (threadIdx.x == 0) {  // the block's words as 32-bit digits (the top one signed): pieces under 2^32 each
    long long carry = 0;
    for (int i = 0; i < F::kValueWords; ++i) {
      const long long t = block_words[i] + carry;
      carry = i + 1 < F::kValueWords ? t >> 32 : 0;
      block_words[i] = i + 1 < F::kValueWords ? t & 0xffffffff : t;
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < F::kWords; i += kThreads)
    if (block_words[i] != 0)
      atomicAdd(reinterpret_cast<unsigned long long*>(sum_words + i), static_cast<unsigned long long>(block_words[i]));
}

#ifndef REDUCTION_EMULATOR
// `exact` for a sum: exact_kernel, one wave of blocks of 256 threads, then words_kernel. Integer
// sums (and max and min) are exact anyway: fastest's.
template <typename Op, typename T>
void launch_exact(const T* input, std::size_t n, T* result, int block, DeviceScratch& scratch, cudaStream_t stream) {
  if constexpr (std::is_integral_v<T> || !std::is_same_v<Op, reduction::Sum>) {
    launch_fastest<Op, T>(input, n, result, block, scratch, stream);
  } else {
    constexpr int kThreads = 256;
    long long* words = kept_beside(scratch.get_as<T>(1), stream).sum_words;
    const int grid = ch08::grid_for(n, kThreads * 16, ch08::resident_blocks(exact_kernel<T, kThreads>, kThreads, 0));
    exact_kernel<T, kThreads><<<grid, kThreads, 0, stream>>>(input, n, words);
    CUDA_CHECK_LAUNCH();
    words_kernel<T><<<1, 32, 0, stream>>>(words, result);
    CUDA_CHECK_LAUNCH();
  }
}

// One rounding: the exact sum rounded once is within half a unit of the last place of it.
inline std::size_t exact_depth(std::size_t, int) { return 1; }
#endif  // REDUCTION_EMULATOR

}  // namespace ch09
