#include "input.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <regex>
#include <sstream>

namespace reduction {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot open input file '" + path + "': " + std::strerror(errno));
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

template <typename T> void reject_non_finite(const std::vector<T>& v, const std::string& path) {
  if constexpr (!std::is_integral_v<T>) {
    for (std::size_t i = 0; i < v.size(); ++i)
      if (!std::isfinite(v[i]))
        throw InputError(path + ": element " + std::to_string(i) + " is " + (std::isnan(v[i]) ? "NaN" : "infinite") +
                         "; a reduction of it has no meaningful reference");
  }
}

template <typename T> std::vector<T> copy_elements(const std::string& bytes, std::size_t offset, std::size_t n) {
  std::vector<T> v(n);
  if (n) std::memcpy(v.data(), bytes.data() + offset, n * sizeof(T));
  return v;
}

HostData parse_npy(const std::string& bytes, const std::string& path) {
  auto fail = [&](const std::string& why) { return InputError(path + ": not a valid .npy file: " + why); };
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) throw fail("missing the \\x93NUMPY magic");
  const unsigned major = static_cast<unsigned char>(bytes[6]);
  std::size_t header_len = 0, header_start = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw fail("truncated header");
    for (int i = 3; i >= 0; --i) header_len = (header_len << 8) | static_cast<unsigned char>(bytes[8 + i]);
    header_start = 12;
  } else {
    throw fail("unknown format version " + std::to_string(major));
  }
  if (header_start + header_len > bytes.size()) throw fail("truncated header");
  const std::string header = bytes.substr(header_start, header_len);

  std::smatch m;
  if (!std::regex_search(header, m, std::regex(R"('descr'\s*:\s*'([^']*)')"))) throw fail("no 'descr' in header");
  const std::string descr = m[1];
  if (!std::regex_search(header, m, std::regex(R"('shape'\s*:\s*\(([^)]*)\))"))) throw fail("no 'shape' in header");
  const std::string shape = m[1];
  if (std::regex_search(header, std::regex(R"('fortran_order'\s*:\s*True)")) && shape.find(',') != shape.rfind(','))
    throw fail("Fortran-ordered arrays are not supported");
  if (!std::regex_match(shape, m, std::regex(R"(\s*(\d+)\s*,?\s*)")))
    throw InputError(path + ": only 1-D arrays are supported, this one has shape (" + shape + ")");
  const std::size_t n = std::stoull(m[1]);

  const std::size_t data_start = header_start + header_len;
  auto check_size = [&](std::size_t item) {
    if (bytes.size() - data_start != n * item)
      throw fail("expected " + std::to_string(n * item) + " bytes of data for shape (" + std::to_string(n) +
                 ",), found " + std::to_string(bytes.size() - data_start));
  };
  // '<' is little-endian, '|' and '=' native; the machines CUDA runs on are little-endian.
  auto is = [&](const char* code) { return descr.size() == 3 && std::strchr("<|=", descr[0]) && descr.substr(1) == code; };
  if (is("i4")) { check_size(4); return copy_elements<std::int32_t>(bytes, data_start, n); }
  if (is("f4")) { check_size(4); auto v = copy_elements<float>(bytes, data_start, n); reject_non_finite(v, path); return v; }
  if (is("f8")) { check_size(8); auto v = copy_elements<double>(bytes, data_start, n); reject_non_finite(v, path); return v; }
  throw InputError(path + ": unsupported dtype '" + descr + "' (use int32, float32 or float64)");
}

HostData parse_text(const std::string& text, const std::string& path) {
  std::istringstream in(text);
  std::vector<std::string> tokens{std::istream_iterator<std::string>(in), std::istream_iterator<std::string>()};
  bool all_int = true;
  std::vector<std::int64_t> ints;
  for (const auto& t : tokens) {
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(t.c_str(), &end, 10);
    if (*end != '\0' || errno == ERANGE || v < std::numeric_limits<std::int32_t>::min() ||
        v > std::numeric_limits<std::int32_t>::max()) {
      all_int = false;
      break;
    }
    ints.push_back(v);
  }
  if (all_int) return std::vector<std::int32_t>(ints.begin(), ints.end());
  std::vector<double> v;
  v.reserve(tokens.size());
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    char* end = nullptr;
    double x = std::strtod(tokens[i].c_str(), &end);
    if (*end != '\0') throw InputError(path + ": value " + std::to_string(i) + " ('" + tokens[i] + "') is not a number");
    v.push_back(x);
  }
  reject_non_finite(v, path);
  return v;
}

}  // namespace

HostData load_input(const std::string& path) {
  const std::string bytes = read_file(path);
  const bool npy = path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0;
  if (npy || bytes.compare(0, 6, "\x93NUMPY") == 0) return parse_npy(bytes, path);
  return parse_text(bytes, path);
}

}  // namespace reduction
