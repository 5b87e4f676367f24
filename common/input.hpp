// Input data: fast seeded random generation, and loading a user's file (.npy or text).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "errors.hpp"
#include "ops.hpp"  // REDUCTION_HD
#include "parallel.hpp"
#include "types.hpp"

namespace reduction {

enum class Distribution {
  Default,  // int: uniform in [-100, 100]; float, double: uniform in [0, 1)
  NearOne,  // for products, which must neither overflow nor vanish: int: +1 or -1; float: [0.99, 1.01)
};

// splitmix64 (Steele, Lea and Flood 2014): a counter-based generator, so element i depends only on
// (seed, i), which lets every CPU core (or GPU thread, for the tests' largest inputs) fill its own
// chunk and keeps inputs reproducible.
REDUCTION_HD std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

template <typename T> REDUCTION_HD T random_element(std::uint64_t seed, std::size_t i, Distribution d) {
  const std::uint64_t bits = splitmix64(seed * 0xD1342543DE82EF95ull + i);
  const double unit = static_cast<double>(bits >> 11) * 0x1.0p-53;  // uniform in [0, 1)
  if constexpr (std::is_integral_v<T>) {
    if (d == Distribution::NearOne) return (bits >> 63) ? T(1) : T(-1);
    return static_cast<T>(static_cast<std::int64_t>(bits % 201) - 100);
  } else {
    if (d == Distribution::NearOne) return static_cast<T>(0.99 + 0.02 * unit);
    return static_cast<T>(unit);
  }
}

template <typename T>
std::vector<T> generate_input(std::size_t n, std::uint64_t seed, Distribution d = Distribution::Default) {
  std::vector<T> data(n);
  parallel_chunks(n, cpu_workers(n), [&](std::size_t b, std::size_t e, unsigned) {
    for (std::size_t i = b; i < e; ++i) data[i] = random_element<T>(seed, i, d);
  });
  return data;
}

using HostData = std::variant<std::vector<std::int32_t>, std::vector<float>, std::vector<double>>;

inline DataType data_type_of(const HostData& data) {
  return std::visit([](const auto& v) { return reduction::data_type_of<typename std::decay_t<decltype(v)>::value_type>(); }, data);
}

// Loads a 1-D array from `path`, which must be a regular file (not a directory, FIFO or device):
//   .npy: int32 ('<i4'), float32 ('<f4') or float64 ('<f8'), format versions 1 to 3;
//   anything else: whitespace-separated decimal numbers, int if every one is an integer that fits
//   in 32 bits, otherwise double.
// A file of more than `max_elements` elements is refused as soon as that is known (from a .npy
// header; in a text file, at the number past the limit), before the rest is read. Memory is
// proportional to the elements, never to the file's text.
// Throws InputError with a one-line reason on anything else, and on NaN or infinity.
HostData load_input(const std::string& path, std::size_t max_elements = std::numeric_limits<std::size_t>::max());

}  // namespace reduction
