#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "common/program.hpp"
#include "common/testing/testing.hpp"

using namespace reduction;

namespace {
std::string temp_file(const std::string& name, const std::string& contents) {
  std::string path = "reduction_test_" + name;
  std::ofstream(path, std::ios::binary) << contents;
  return path;
}

// A .npy file with the given header dictionary, in format version 1, 2 or 3.
std::string npy_with_header(std::string header, const std::string& data, int version = 1) {
  const std::size_t preamble = version == 1 ? 10 : 12;
  while ((preamble + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(version);
  out += '\x00';
  for (std::size_t i = 0; i < preamble - 8; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  return out + header + data;
}

std::string npy(const std::string& descr, const std::string& shape, const std::string& data, int version = 1) {
  return npy_with_header("{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }", data, version);
}

template <typename T> std::string bytes_of(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

// The message load_input refuses `path` with, or "" if it loads.
std::string refusal(const std::string& path, std::size_t max_elements = std::numeric_limits<std::size_t>::max()) {
  try {
    load_input(path, max_elements);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

const std::string one_int = bytes_of(std::vector<std::int32_t>{7});
const std::string two_floats = bytes_of(std::vector<float>{1.5f, 2.5f});
const std::string spaces(4900, ' ');
}  // namespace

TEST_CASE("generated inputs are seeded, varied and in range", "[input]") {
  auto a = generate_input<std::int32_t>(10000, 7), b = generate_input<std::int32_t>(10000, 7),
       c = generate_input<std::int32_t>(10000, 8);
  CHECK(a == b);
  CHECK(a != c);
  std::set<std::int32_t> distinct(a.begin(), a.end());
  CHECK(distinct.size() > 150);  // not all ones, not all zeros
  for (auto v : a) REQUIRE((v >= -100 && v <= 100));
  auto f = generate_input<float>(10000, 7);
  for (auto v : f) REQUIRE((v >= 0.0f && v < 1.0f));
  auto p = generate_input<double>(10000, 7, Distribution::NearOne);
  for (auto v : p) REQUIRE((v >= 0.99 && v < 1.01));
}

TEST_CASE("files load with their type: .npy as its dtype; text as int while every number fits, else double",
          "[input]") {
  using Ints = std::vector<std::int32_t>;
  using Doubles = std::vector<double>;
  const std::int32_t lowest = std::numeric_limits<std::int32_t>::min();
  const std::int32_t highest = std::numeric_limits<std::int32_t>::max();
  std::string edge;  // numbers across the read buffer's edge are read whole
  Ints edge_values;
  for (std::int32_t i = 0; edge.size() < 200000; ++i) {
    edge += std::to_string(i * 7919) + (i % 3 ? " " : "\n");
    edge_values.push_back(i * 7919);
  }
  const std::vector<std::tuple<const char*, std::string, HostData>> cases = {
      {"ints.npy", npy("<i4", "(3,)", bytes_of(Ints{1, -2, 3})), Ints{1, -2, 3}},
      {"doubles.npy", npy("<f8", "(2,)", bytes_of(Doubles{0.5, 2.25})), Doubles{0.5, 2.25}},
      {"v2.npy", npy("<f4", "(2,)", two_floats, 2), std::vector<float>{1.5f, 2.5f}},
      {"v3.npy", npy("<f4", "(2,)", two_floats, 3), std::vector<float>{1.5f, 2.5f}},
      // A 1-D array is the same in Fortran order; keys other than the format's three are ignored,
      // and a 'shape' inside a string is only text.
      {"fortran.npy", npy_with_header("{'descr': '<f4', 'fortran_order': True, 'shape': (2,)}", two_floats),
       std::vector<float>{1.5f, 2.5f}},
      {"decoy.npy",
       npy_with_header("{'note': \"'shape': (16,)\", 'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                       two_floats),
       std::vector<float>{1.5f, 2.5f}},
      {"python2.npy", npy_with_header("{\"descr\":\"<i4\",\"fortran_order\":False,\"shape\":(1L,)}", one_int), Ints{7}},
      // A header of up to numpy's 10,000 bytes is parsed without recursion.
      {"spaces.npy", npy("<f4", "(" + spaces + "2," + spaces + ")", two_floats, 2), std::vector<float>{1.5f, 2.5f}},
      {"ints.txt", "1 2\n-3\t4\n", Ints{1, 2, -3, 4}},
      {"ints_limits.txt", "-2147483648 2147483647 +0", Ints{lowest, highest, 0}},
      {"empty.txt", " \n\t", Ints{}},
      {"edge.txt", edge, edge_values},
      {"mixed.txt", "7.0 2.1 5.3 9 11.2", Doubles{7.0, 2.1, 5.3, 9, 11.2}},
      {"big.txt", "1 3000000000", Doubles{1, 3e9}},  // does not fit in 32 bits
      {"past_int.txt", "-2147483649", Doubles{-2147483649.0}},
      {"forms.txt", "+1 -2. .5 1e2\r\n2E-1\v\f99999999999999999999 1e-400", Doubles{1, -2, 0.5, 100, 0.2, 1e20, 0}},
  };
  for (const auto& [name, contents, expected] : cases) {
    INFO(name);
    CHECK(load_input(temp_file(name, contents)) == expected);
  }
}

TEST_CASE("bad files are refused with a reason that names the file", "[input]") {
  const std::string one = bytes_of(std::vector<float>{1.0f});
  const std::string full = npy("<i4", "(3,)", bytes_of(std::vector<std::int32_t>{1, 2, 3}));
  std::string many;  // the garbage after the limit is never reached: the count is what is refused
  for (int i = 0; i < 3000; ++i) many += "1 ";
  // (file, contents, a part of the reason, the most elements taken)
  std::vector<std::tuple<std::string, std::string, std::string, std::size_t>> cases = {
      {"short.npy", npy("<f4", "(3,)", two_floats), "needs 12 bytes of data", 0},
      {"2d.npy", npy("<f4", "(1, 2)", two_floats), "only 1-D arrays", 0},
      {"i8.npy", npy("<i8", "(1,)", two_floats), "unsupported dtype", 0},
      {"magic.npy", "not numpy at all", "magic", 0},
      {"long.npy", full + "x", "needs 12 bytes of data, the file has 13", 0},
      // n * 4 of 2^62 float32 elements wraps to 0 in 64 bits.
      {"wrap.npy", npy("<f4", "(4611686018427387904,)", ""), "more than 2^64", 0},
      {"wrap8.npy", npy("<f8", "(2305843009213693952,)", ""), "more than 2^64", 0},
      {"descr.npy", npy("<f4" + std::string(9000, 'x'), "(1,)", one, 2), "unsupported dtype", 0},
      {"dims.npy", npy("<f4", "(" + std::string(9000, '1') + ",)", one, 2), "64 bits", 0},
      // Past 10,000 bytes the header is refused unread, as numpy refuses it by default.
      {"longer.npy", npy("<f4", "(" + std::string(10000, ' ') + "1,)", one, 2), "more than the 10000 numpy reads", 0},
      {"three.npy", full, "holds 3 elements; this program takes at most 2", 2},
      {"many.txt", many + "garbage", "more than 2048 numbers", 2048},
      // Every byte of a text file is part of a number or whitespace, and is quoted escaped.
      {"nul.txt", std::string("1 2\0 3 4", 8), "byte 3 is '\\x00'", 0},
      {"binary.txt", "12 \x1b[31m\n", "byte 3 is '\\x1b'", 0},
      {"huge.txt", "1 1e999", "too large for a double", 0},
      {"digits.txt", std::string(5000, '9'), "longer than", 0},
  };
  for (std::size_t cut : {std::size_t(0), std::size_t(5), std::size_t(9), std::size_t(11), std::size_t(40),
                          full.size() - 1})
    cases.push_back({"cut" + std::to_string(cut) + ".npy", full.substr(0, cut), "", 0});
  for (const char* bad : {"1 two 3", "1 2x", "1 - 2", "1e", "1.2.3", "--4", ".", "1e5e5", "0x10", "inf", "nan", "1,2"})
    cases.push_back({"bad_text.txt", bad, "", 0});
  for (const char* header : {"{'descr': '<i4', 'fortran_order': False}",
                             "{'descr': '<i4', 'shape': (1,), 'shape': (1,), 'fortran_order': False}",
                             "{'descr': '<i4', 'fortran_order': False, 'shape': (1)}",
                             "{'descr': '<i4', 'fortran_order': Maybe, 'shape': (1,)}",
                             "{'descr': '<i4', 'fortran_order': False, 'shape': (1,)} extra",
                             "{'descr: '<i4', 'fortran_order': False, 'shape': (1,)}",
                             "{'descr': '<i4', 'fortran_order': False, 'shape': (1,)",
                             "{'descr': '>i4', 'fortran_order': False, 'shape': (1,)}",
                             "{'descr': '<i4', 'fortran_order': False, 'shape': (-1,)}",
                             "{'descr': '<i4', 'fortran_order': False, 'shape': ()}", "[('a', '<i4')]", ""})
    cases.push_back({"bad_header.npy", npy_with_header(header, one_int), "", 0});
  for (const auto& [name, contents, says, most] : cases) {
    INFO(name << ": " << escaped(contents, 100));
    const std::string why = refusal(temp_file(name, contents), most ? most : std::numeric_limits<std::size_t>::max());
    CHECK(why.find("reduction_test_" + name) != std::string::npos);
    CHECK(why.find(says) != std::string::npos);
    CHECK(why.size() < 1000);  // what is echoed of the file is cut short
    CHECK(why.find_first_of("\n\x1b") == std::string::npos);
  }
  CHECK(refusal(temp_file("three.npy", full), 3) == "");
  CHECK(refusal(temp_file("exact.txt", std::string(2 * 2048, ' ').replace(0, 1, "5")), 1) == "");
  CHECK(refusal("no/such/file.npy") != "");
}

// max and min take NaN and +-inf (load_input(..., finite = false)); sum and product refuse them.
TEST_CASE("NaN and infinities: read for max and min, refused otherwise with the element named", "[input]") {
  const std::vector<float> f = {1.0f, std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::infinity()};
  const std::string npy_path = temp_file("specials.npy", npy("<f4", "(3,)", bytes_of(f)));
  const std::string text_path = temp_file("specials.txt", "1 nan -inf\n+inf -nan\n");
  CHECK(refusal(npy_path).find("element 1 is NaN; a reduction of it has no meaningful reference") != std::string::npos);
  CHECK(refusal(text_path).find("element 1 is NaN") != std::string::npos);
  CHECK(refusal(temp_file("inf.txt", "1 2 inf")).find("element 2 is infinite") != std::string::npos);
  const auto read = std::get<std::vector<float>>(load_input(npy_path, 3, false));
  CHECK((read[0] == 1.0f && std::isnan(read[1]) && read[2] == f[2]));
  const auto text = std::get<std::vector<double>>(load_input(text_path, 5, false));
  REQUIRE(text.size() == 5);
  CHECK((text[0] == 1 && std::isnan(text[1]) && std::isinf(text[2]) && text[2] < 0 && text[3] > 1e308));
  CHECK((std::isnan(text[4]) && std::signbit(text[4])));
  for (const char* bad : {"nana", "in", "infinity", "NaN", "1 -n", "1e999"}) {  // only what NumPy writes
    INFO(bad);
    CHECK_THROWS_AS(load_input(temp_file("bad.txt", bad), 10, false), InputError);
  }
}

TEST_CASE("npy: a header length of 4 GiB in a sparse file is refused before it is read", "[input]") {
  const std::string path = temp_file("sparse.npy", std::string("\x93NUMPY\x02\x00\xff\xff\xff\xff{", 13));
  REQUIRE(::truncate(path.c_str(), 12 + 0xFFFFFFFFll + 64) == 0);
  CHECK(refusal(path).find("header is 4294967295 bytes long, more than the 10000") != std::string::npos);
  std::remove(path.c_str());
}

TEST_CASE("only regular files are read, and they are refused at once", "[input]") {
  CHECK(refusal("").find("names no file") != std::string::npos);
  CHECK(refusal(".").find("is a directory") != std::string::npos);
  CHECK(refusal("/dev/zero").find("not a regular file") != std::string::npos);  // never ends
  const std::string fifo = "reduction_test_fifo";
  std::remove(fifo.c_str());
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(refusal(fifo).find("is a FIFO") != std::string::npos);  // opening it would wait for a writer
  std::remove(fifo.c_str());
}

TEST_CASE("text: a file that grows while it is read is read to the size it had when it was opened", "[input]") {
  // A writer appends up to 128 MiB of "2\n" lines from just before the file is opened until it has
  // been read: only the few 1 MiB blocks it wrote before the open may be read.
  std::string initial;
  for (int i = 0; i < (1 << 20); ++i) initial += "1\n";  // 2 MiB
  const std::string path = temp_file("growing.txt", initial);
  std::atomic<bool> start{false}, stop{false};
  std::thread writer([&] {
    std::ofstream out(path, std::ios::binary | std::ios::app);
    std::string block;
    for (int i = 0; i < (1 << 19); ++i) block += "2\n";  // 1 MiB, 2^19 numbers
    while (!start) std::this_thread::yield();
    for (int i = 0; i < 128 && !stop; ++i) out.write(block.data(), std::streamsize(block.size())).flush();
  });
  start = true;
  const HostData data = load_input(path);
  stop = true;
  writer.join();
  std::remove(path.c_str());
  const auto& v = std::get<std::vector<std::int32_t>>(data);
  REQUIRE(v.size() >= std::size_t(1) << 20);
  CHECK(v.size() < (std::size_t(1) << 20) + (std::size_t(16) << 19));  // at most 16 blocks: not 128
  CHECK(std::count(v.begin(), v.begin() + (1 << 20), 1) == 1 << 20);
}
