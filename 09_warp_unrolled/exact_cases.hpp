// The inputs the tests of `exact` make to break a sum that is not exact, on the GPU and on the CPU
// emulator, each with what it tests; the last, every exponent, is drawn from rng.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace ch09 {

template <typename T>
std::vector<std::pair<std::string, std::vector<T>>> exact_breaking_cases(std::mt19937_64& rng) {
  using L = std::numeric_limits<T>;
  const T big = L::max(), tiny = L::denorm_min(), eps = L::epsilon(), inf = L::infinity();
  std::vector<std::pair<std::string, std::vector<T>>> cases = {
      {"1", {T(1)}},
      {"the largest values cancelling (1)", {big, T(1), -big}},
      {"a sum that passes infinity in this order (big)", {big, big, -big}},
      {"a sum too large to be finite (infinity)", {big, big}},
      {"a tie (to even: 1)", {T(1), eps / 2}},
      {"just past a tie (1 + eps)", {T(1), eps / 2, tiny}},
      {"just short of a negative tie (-1)", {-T(1), -eps / 2, tiny}},
      {"subnormals and the smallest normals", {tiny, tiny, -tiny, L::min(), -L::min()}},
      {"+infinity", {inf, T(1)}},
      {"-infinity and the largest value", {-inf, big}},
      {"+infinity and -infinity", {inf, -inf}},
      {"a NaN", {T(1), L::quiet_NaN()}}};
  std::vector<T> spread;  // every exponent, random signs, then all but a few taken away again
  for (int e = L::min_exponent - L::digits; e < L::max_exponent; ++e)
    spread.push_back(std::ldexp(T(1) + T(rng() % 1000) * eps, e) * (rng() % 2 ? 1 : -1));
  const std::size_t kept = spread.size();
  for (std::size_t i = 0; i < kept; ++i)
    if (i % 97 != 0) spread.push_back(-spread[i]);
  cases.push_back({"every exponent, most of them cancelling", spread});
  return cases;
}

}  // namespace ch09
