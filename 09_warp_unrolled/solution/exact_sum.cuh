// Chapter 09, step 5: how fastest's tile path finishes a sum, the same bits on every run. Integers
// add exactly in any order; floating-point additions round. But every double is M x 2^(e - 1074)
// with M below 2^53 and e from 0 to 2045: in units of 2^-1074, the smallest subnormal, the integer
// M x 2^e, at most 2098 bits. So the tiles' results are added as integers, exactly, in whatever
// order they arrive, and the total rounded once at the end.
//
// The integer is kept in 64-bit words that each stand for 32 bits of it: a tile's M x 2^e touches at
// most three words, each with a 32-bit piece, so with fewer than 2^31 tiles no word overflows and no
// carry moves while the tiles run. The words above the top one a value can reach leave room for the
// carries and the sign; three more count the NaNs, +infinities and -infinities.
//
// At the end one thread (exact_round) moves the carries up and rounds the integer to T once: the top
// 64 bits, with a last bit set when any bit below them is set (so ties round as the exact value
// would), converted with round-to-nearest, then scaled by a power of two, which is exact.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common/ops.hpp"  // REDUCTION_HD: host and device under nvcc, plain inline under g++

namespace ch09 {

template <typename T>
struct ExactFormat {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "float or double");
  using Bits = std::conditional_t<std::is_same_v<T, double>, std::uint64_t, std::uint32_t>;
  static constexpr int kFractionBits = std::numeric_limits<T>::digits - 1;  // 52, 23
  static constexpr int kBias = std::numeric_limits<T>::max_exponent - 1;    // 1023, 127
  // The value of the integer's bit 0: 2^-1074 for double, 2^-149 for float.
  static constexpr int kBitZero = kBias - 1 + kFractionBits;  // 1074, 149
  // The highest bit a finite value sets: (2^53 - 1) x 2^2045 has its top bit at 2097 (double), 276 (float).
  static constexpr int kTopBit = 2 * kBias + kFractionBits - 1;
  // Words for the value, its carries from up to 2^31 tiles, and the sign: bits 0 .. kTopBit + 33.
  static constexpr int kValueWords = (kTopBit + 33) / 32 + 1;  // 67 for double, 10 for float
  static constexpr int kNaN = kValueWords, kPlusInfinity = kValueWords + 1, kMinusInfinity = kValueWords + 2;
  static constexpr int kWords = kValueWords + 3;
};

// Adds x, a tile's result, to the integer in words: add(word, piece) adds a signed piece to one word
// (atomicAdd on the GPU; a plain addition in the tests).
template <typename T, typename Add>
REDUCTION_HD void exact_add(T x, Add&& add) {
  using F = ExactFormat<T>;
  typename F::Bits bits;
  std::memcpy(&bits, &x, sizeof bits);
  const bool negative = (bits >> (8 * sizeof(T) - 1)) != 0;
  const unsigned exponent = unsigned(bits >> F::kFractionBits) & (2 * F::kBias + 1);
  std::uint64_t m = std::uint64_t(bits) & ((std::uint64_t(1) << F::kFractionBits) - 1);
  if (exponent == 2 * F::kBias + 1) {  // all ones: infinity (m == 0) or NaN
    add(m != 0 ? F::kNaN : negative ? F::kMinusInfinity : F::kPlusInfinity, 1);
    return;
  }
  if (exponent != 0) m |= std::uint64_t(1) << F::kFractionBits;  // the implicit leading bit
  if (m == 0) return;                                           // +0 or -0
  // x = m x 2^(shift - kBitZero): the integer m << shift, from word shift / 32 on.
  const unsigned shift = exponent != 0 ? exponent - 1 : 0;
  const int word = int(shift / 32);
  const unsigned s = shift % 32;
  const std::uint64_t low = (m & 0xffffffffu) << s;          // bits 0 .. 62 of m << s
  const std::uint64_t above = (low >> 32) + ((m >> 32) << s);  // (m << s) >> 32, below 2^53
  const std::uint64_t piece[3] = {low & 0xffffffffu, above & 0xffffffffu, above >> 32};
  for (int k = 0; k < 3; ++k)
    if (piece[k] != 0) add(word + k, negative ? -std::int64_t(piece[k]) : std::int64_t(piece[k]));
}

// The number of leading zero bits of a nonzero 32-bit value.
REDUCTION_HD int leading_zeros(std::uint32_t v) {
#ifdef __CUDA_ARCH__
  return __clz(v);
#else
  return __builtin_clz(v);
#endif
}

// The value words[lowest .. highest] stand for (every other value word zero; lowest <= highest),
// rounded to T once. Two passes over those words and the two above them, in registers: the first
// moves the carries up to find the sign; the second makes the digits of the magnitude, 32 bits each,
// and keeps the top three nonzero ones and whether any digit below them is set. (Word: long long;
// on the CPU emulator, a checked one.)
template <typename T, typename Word>
REDUCTION_HD T exact_round(const Word* words, int lowest, int highest) {
  using F = ExactFormat<T>;
  // Past the highest word the carry is below 2^31 in size: two more digits leave a carry of 0 (a
  // positive total) or -1 (negative).
  const int end = highest + 3 < F::kValueWords ? highest + 3 : F::kValueWords;
  long long carry = 0;
  for (int i = lowest; i < end; ++i) carry = (words[i] + carry) >> 32;  // arithmetic: floor(t / 2^32)
  const bool negative = carry < 0;
  // The digits again, of |total| (a negative total's digits inverted, plus one), from the lowest up.
  carry = 0;
  std::uint64_t plus_one = 1;
  std::uint32_t below_window = 0, previous1 = 0, previous2 = 0;  // the two digits before this one
  std::uint32_t top0 = 0, top1 = 0, top2 = 0, sticky = 0;
  int top = -1;
  for (int i = lowest; i < end; ++i) {
    const long long t = words[i] + carry;  // |t| < 2^63: a word holds under 2^31 pieces of 32 bits
    carry = t >> 32;
    std::uint32_t digit = std::uint32_t(t);
    if (negative) {
      const std::uint64_t flipped = std::uint64_t(std::uint32_t(~digit)) + plus_one;
      digit = std::uint32_t(flipped);
      plus_one = flipped >> 32;
    }
    if (digit != 0) {
      top = i;
      top0 = digit;
      top1 = previous1;
      top2 = previous2;
      sticky = below_window;
    }
    below_window |= previous2;
    previous2 = previous1;
    previous1 = digit;
  }
  if (top < 0) return T(0);
  // The top 64 bits from the top digit's highest set bit; below them, whether any bit is set.
  const int zeros = leading_zeros(top0);
  std::uint64_t window = (std::uint64_t(top0) << 32) | top1;
  if (zeros != 0) {
    window = (window << zeros) | (top2 >> (32 - zeros));
    sticky |= std::uint32_t(top2 << zeros);
  } else {
    sticky |= top2;
  }
  // 64 bits hold T's significand and at least two bits more, so a set last bit makes the
  // conversion round as the exact value would. Its bit 0 stands for bit 32 (top - 1) - zeros.
  const T rounded = T(window | (sticky != 0 ? 1u : 0u));
  const int scale = 32 * (top - 1) - zeros - F::kBitZero;
  T total;
  if constexpr (std::is_same_v<T, double>) total = ldexp(rounded, scale);
  else total = ldexpf(rounded, scale);
  return negative ? -total : total;
}

// A NaN, +infinity or -infinity where a tile's result was one; otherwise 0 (exact_round decides).
template <typename T, typename Word>
REDUCTION_HD bool exact_special(const Word* words, T& special) {
  using F = ExactFormat<T>;
  const T infinity = static_cast<T>(HUGE_VAL);  // (std::numeric_limits' functions are host-only)
  const bool plus = words[F::kPlusInfinity] != 0, minus = words[F::kMinusInfinity] != 0;
  if (words[F::kNaN] != 0 || (plus && minus)) special = infinity - infinity;  // a NaN
  else if (plus) special = infinity;
  else if (minus) special = -infinity;
  else return false;
  return true;
}

// The exact sum of x[0, n) rounded once, on the CPU: the tests' reference. Each element goes into
// the words with a plain addition, and one thread looks for the lowest and highest nonzero word
// (words_kernel has its warp look).
template <typename T>
T exact_total(const T* x, std::size_t n) {
  using F = ExactFormat<T>;
  struct AddToWords {  // not a lambda: exact_add is a host and device function
    long long* words;
    REDUCTION_HD void operator()(int w, long long piece) const { words[w] += piece; }
  };
  long long words[F::kWords] = {};
  for (std::size_t i = 0; i < n; ++i) exact_add(x[i], AddToWords{words});
  T special;
  if (exact_special(words, special)) return special;
  int lowest = 0, highest = F::kValueWords - 1;
  while (lowest < F::kValueWords && words[lowest] == 0) ++lowest;
  if (lowest == F::kValueWords) return T(0);
  while (words[highest] == 0) --highest;
  return exact_round<T>(words, lowest, highest);
}

// The most words any type needs (double's), which the launcher keeps beside each scratch
// (kept_beside, fastest.cuh), zeroed once; every finish leaves them zero again.
constexpr int kSumWords = ExactFormat<double>::kWords;

#if defined(__CUDACC__) && !defined(REDUCTION_EMULATOR)  // atomics on device memory: nvcc only

// A tile's total into the words, called by the 32 lanes of the block's first warp, lane 0 holding
// the total: an int sum wraps in 32 bits, so lane 0 adds it to the first word's low half
// (little-endian); a float or double goes in as up to three pieces (exact_add), lane k adding the
// k-th: one atomic instruction, where three from one thread made the tiles 1.4 to 2 % slower on
// some H200s.
template <typename T>
__device__ void add_to_words(T total, long long* words, unsigned lane) {
  if constexpr (std::is_integral_v<T>) {
    static_assert(sizeof(T) == 4, "32-bit integers");
    if (lane == 0) atomicAdd(reinterpret_cast<unsigned int*>(words), static_cast<unsigned int>(total));
  } else {
    const T all = __shfl_sync(0xffffffffu, total, 0);
    unsigned k = 0;
    int word = 0;
    long long mine = 0;  // exact_add hands on only pieces that are not zero
    exact_add(all, [&](int w, long long piece) {
      if (k++ == lane) word = w, mine = piece;
    });
    if (mine != 0)
      atomicAdd(reinterpret_cast<unsigned long long*>(words + word), static_cast<unsigned long long>(mine));
  }
}

#else  // the host compiler (the CPU tests; the emulator, whose tiles store slots)
template <typename T>
void add_to_words(T total, long long* words, unsigned lane);  // declared, never called
#endif

#if defined(__CUDACC__) || defined(REDUCTION_EMULATOR)  // a kernel: nvcc, or the CPU emulator's shim

// The tile path's last launch for a sum, one warp: it loads the words, sets them back to zero for
// the next call, finds the lowest and highest nonzero value words with one ballot a row, and lane 0
// rounds them to T and writes *result. A dependent launch, like fold_kernel.
template <typename T>
__global__ void __launch_bounds__(32) words_kernel(long long* words, T* result) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
  const unsigned lane = threadIdx.x;
  if constexpr (std::is_integral_v<T>) {
    if (lane == 0) {
      const long long word = __ldcg(words);
      words[0] = 0;
      *result = static_cast<T>(static_cast<unsigned int>(word));  // the low half: the sum in 32 bits
    }
  } else {
    using V = typename reduction::Scalar<T>::type;  // float or double (on the CPU emulator T is a checked V)
    using F = ExactFormat<V>;
    constexpr int kRows = (F::kWords + 31) / 32;
    __shared__ typename reduction::Rebind<T, long long>::type w[kRows * 32];  // long long
    unsigned nonzero[kRows];
#pragma unroll
    for (int k = 0; k < kRows; ++k) {
      const int i = k * 32 + int(lane);
      const long long word = i < F::kWords ? __ldcg(words + i) : 0;
      w[i] = word;
      nonzero[k] = __ballot_sync(0xffffffffu, i < F::kValueWords && word != 0);
    }
#pragma unroll
    for (int k = 0; k < kRows; ++k)
      if (k * 32 + int(lane) < F::kWords) words[k * 32 + lane] = 0;
    __syncwarp();
    if (lane != 0) return;
    V total;
    if (!exact_special<V>(w, total)) {
      int lowest = -1, highest = -1;
#pragma unroll
      for (int k = 0; k < kRows; ++k)
        if (nonzero[k] != 0) {
          if (lowest < 0) lowest = k * 32 + __ffs(int(nonzero[k])) - 1;
          highest = k * 32 + 31 - __clz(int(nonzero[k]));
        }
      total = lowest < 0 ? V(0) : exact_round<V>(w, lowest, highest);
    }
    *result = total;
  }
}
#endif  // a kernel

}  // namespace ch09
