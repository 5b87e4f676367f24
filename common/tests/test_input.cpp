#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <atomic>
#include <set>
#include <thread>
#include <string>

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

TEST_CASE("npy files load with their type", "[input]") {
  auto data = load_input(temp_file("ints.npy", npy("<i4", "(3,)", bytes_of(std::vector<std::int32_t>{1, -2, 3}))));
  REQUIRE(data_type_of(data) == DataType::Int);
  CHECK(std::get<std::vector<std::int32_t>>(data) == std::vector<std::int32_t>{1, -2, 3});
  data = load_input(temp_file("doubles.npy", npy("<f8", "(2,)", bytes_of(std::vector<double>{0.5, 2.25}))));
  REQUIRE(data_type_of(data) == DataType::Double);
  CHECK(std::get<std::vector<double>>(data) == std::vector<double>{0.5, 2.25});
}

TEST_CASE("bad npy files are refused with a reason", "[input]") {
  const std::string two_floats = bytes_of(std::vector<float>{1.0f, 2.0f});
  CHECK_THROWS_AS(load_input(temp_file("short.npy", npy("<f4", "(3,)", two_floats))), InputError);
  CHECK_THROWS_AS(load_input(temp_file("2d.npy", npy("<f4", "(1, 2)", two_floats))), InputError);
  CHECK_THROWS_AS(load_input(temp_file("i8.npy", npy("<i8", "(1,)", two_floats))), InputError);
  CHECK_THROWS_AS(load_input(temp_file("magic.npy", "not numpy at all")), InputError);
  CHECK_THROWS_AS(load_input("no/such/file.npy"), InputError);
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

TEST_CASE("text files: integers stay int, anything else is double", "[input]") {
  auto data = load_input(temp_file("ints.txt", "1 2\n-3\t4\n"));
  REQUIRE(data_type_of(data) == DataType::Int);
  CHECK(std::get<std::vector<std::int32_t>>(data) == std::vector<std::int32_t>{1, 2, -3, 4});
  data = load_input(temp_file("mixed.txt", "7.0 2.1 5.3 9 11.2"));
  REQUIRE(data_type_of(data) == DataType::Double);
  CHECK(std::get<std::vector<double>>(data).size() == 5);
  data = load_input(temp_file("big.txt", "1 3000000000"));
  CHECK(data_type_of(data) == DataType::Double);  // does not fit in 32 bits
}

TEST_CASE("npy: versions 1 to 3, Fortran order for 1-D, other keys ignored", "[input]") {
  const std::string data = bytes_of(std::vector<float>{1.5f, 2.5f});
  for (int version : {1, 2, 3}) {
    INFO("version " << version);
    auto loaded = load_input(temp_file("v.npy", npy("<f4", "(2,)", data, version)));
    CHECK(std::get<std::vector<float>>(loaded) == std::vector<float>{1.5f, 2.5f});
  }
  auto fortran = load_input(temp_file("f.npy", npy_with_header("{'descr': '<f4', 'fortran_order': True, 'shape': (2,)}", data)));
  CHECK(std::get<std::vector<float>>(fortran).size() == 2);
  // The old reader took the first "'shape': (" in the text, here inside a string: 16 elements.
  auto decoy = load_input(temp_file("decoy.npy", npy_with_header("{'note': \"'shape': (16,)\", 'descr': '<f4', "
                                                                 "'fortran_order': False, 'shape': (2,), }",
                                                                 data)));
  CHECK(std::get<std::vector<float>>(decoy) == std::vector<float>{1.5f, 2.5f});
}

TEST_CASE("npy: a header of any length up to numpy's 10,000 bytes is parsed without recursion", "[input]") {
  // std::regex recursed once per character of these and overflowed the stack (SIGSEGV).
  const std::string one = bytes_of(std::vector<float>{1.0f});
  const std::string spaces(4900, ' ');
  auto spaced = load_input(temp_file("spaces.npy", npy("<f4", "(" + spaces + "1," + spaces + ")", one, 2)));
  CHECK(std::get<std::vector<float>>(spaced).size() == 1);
  const std::string long_descr = refusal(temp_file("descr.npy", npy("<f4" + std::string(9000, 'x'), "(1,)", one, 2)));
  CHECK(long_descr.find("unsupported dtype") != std::string::npos);
  CHECK(long_descr.size() < 1000);  // the echoed descr is cut short
  CHECK(refusal(temp_file("dims.npy", npy("<f4", "(" + std::string(9000, '1') + ",)", one, 2))) != "");
  // Past 10,000 bytes the header is refused unread, as numpy refuses it by default.
  const std::string longer = refusal(temp_file("spaces.npy", npy("<f4", "(" + std::string(10000, ' ') + "1,)", one, 2)));
  CHECK(longer.find("more than the 10000 numpy reads") != std::string::npos);
}

TEST_CASE("npy: a header length of 4 GiB in a sparse file is refused before it is read", "[input]") {
  // Every program read the 4 GiB into memory before finding that it was not a dictionary.
  const std::string path = temp_file("sparse.npy", std::string("\x93NUMPY\x02\x00\xff\xff\xff\xff{", 13));
  REQUIRE(::truncate(path.c_str(), 12 + 0xFFFFFFFFll + 64) == 0);
  CHECK(refusal(path).find("header is 4294967295 bytes long, more than the 10000") != std::string::npos);
  std::remove(path.c_str());
}

TEST_CASE("npy: sizes are checked against the file before anything is allocated", "[input]") {
  // 2^62 float32 elements: n * 4 wrapped to 0 and passed the old length check.
  CHECK(refusal(temp_file("wrap.npy", npy("<f4", "(4611686018427387904,)", ""))).find("more than 2^64") != std::string::npos);
  CHECK(refusal(temp_file("wrap8.npy", npy("<f8", "(2305843009213693952,)", ""))) != "");
  // Too many digits for 64 bits: std::stoull threw out_of_range, reported as an internal error.
  CHECK(refusal(temp_file("digits.npy", npy("<i4", "(99999999999999999999999999,)", ""))).find("64 bits") != std::string::npos);
  const std::string three = bytes_of(std::vector<std::int32_t>{1, 2, 3});
  const std::string full = npy("<i4", "(3,)", three);
  for (std::size_t cut : {std::size_t(0), std::size_t(5), std::size_t(9), std::size_t(11), std::size_t(40), full.size() - 1}) {
    INFO("cut at " << cut);
    CHECK(refusal(temp_file("cut.npy", full.substr(0, cut))) != "");
  }
  CHECK(refusal(temp_file("long.npy", full + "x")) != "");  // trailing bytes
}

TEST_CASE("npy: malformed dictionaries are refused with a reason", "[input]") {
  const std::string one = bytes_of(std::vector<std::int32_t>{7});
  for (const char* header : {"{'descr': '<i4', 'fortran_order': False}", "{'descr': '<i4', 'shape': (1,), 'shape': (1,), 'fortran_order': False}",
                             "{'descr': '<i4', 'fortran_order': False, 'shape': (1)}", "{'descr': '<i4', 'fortran_order': Maybe, 'shape': (1,)}",
                             "{'descr': '<i4', 'fortran_order': False, 'shape': (1,)} extra", "{'descr: '<i4', 'fortran_order': False, 'shape': (1,)}",
                             "{'descr': '<i4', 'fortran_order': False, 'shape': (1,)", "{'descr': '>i4', 'fortran_order': False, 'shape': (1,)}",
                             "{'descr': '<i4', 'fortran_order': False, 'shape': (-1,)}", "{'descr': '<i4', 'fortran_order': False, 'shape': ()}",
                             "[('a', '<i4')]", ""}) {
    INFO(header);
    const std::string why = refusal(temp_file("bad.npy", npy_with_header(header, one)));
    CHECK(why.find("bad.npy") != std::string::npos);
  }
  auto ok = load_input(temp_file("ok.npy", npy_with_header("{\"descr\":\"<i4\",\"fortran_order\":False,\"shape\":(1L,)}", one)));
  CHECK(std::get<std::vector<std::int32_t>>(ok) == std::vector<std::int32_t>{7});
}

TEST_CASE("only regular files are read, and they are refused at once", "[input]") {
  CHECK(refusal("").find("names no file") != std::string::npos);
  CHECK(refusal(".").find("is a directory") != std::string::npos);
  CHECK(refusal("/dev/zero").find("not a regular file") != std::string::npos);  // was read until memory ran out
  const std::string fifo = "reduction_test_fifo";
  std::remove(fifo.c_str());
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(refusal(fifo).find("is a FIFO") != std::string::npos);  // opening it waited for a writer forever
  std::remove(fifo.c_str());
}

TEST_CASE("the element limit stops reading early", "[input]") {
  const std::string three = temp_file("three.npy", npy("<i4", "(3,)", bytes_of(std::vector<std::int32_t>{1, 2, 3})));
  CHECK(refusal(three, 2).find("holds 3 elements; this program takes at most 2") != std::string::npos);
  CHECK(refusal(three, 3) == "");
  // The garbage after the limit is never reached: the count is what is refused.
  std::string many;
  for (int i = 0; i < 3000; ++i) many += "1 ";
  const std::string why = refusal(temp_file("many.txt", many + "garbage"), 2048);
  CHECK(why.find("more than 2048 numbers") != std::string::npos);
  CHECK(refusal(temp_file("exact.txt", std::string(2 * 2048, ' ').replace(0, 1, "5")), 1) == "");
}

TEST_CASE("text: every byte is part of a number or whitespace", "[input]") {
  // Read as three numbers with a sum of 7 before: the NUL ended a token silently.
  const std::string nul = refusal(temp_file("nul.txt", std::string("1 2\0 3 4", 8)));
  CHECK(nul.find("byte 3 is '\\x00'") != std::string::npos);
  const std::string binary = refusal(temp_file("binary.txt", "12 \x1b[31m\n"));
  CHECK(binary.find("byte 3 is '\\x1b'") != std::string::npos);
  CHECK(binary.find('\x1b') == std::string::npos);
  CHECK(binary.find('\n') == std::string::npos);
  for (const char* bad : {"1 two 3", "1 2x", "1 - 2", "1e", "1.2.3", "--4", ".", "1e5e5", "0x10", "inf", "nan", "1,2"}) {
    INFO(bad);
    CHECK(refusal(temp_file("bad.txt", bad)) != "");
  }
  CHECK(refusal(temp_file("huge.txt", "1 1e999")).find("too large for a double") != std::string::npos);
  CHECK(refusal(temp_file("digits.txt", std::string(5000, '9'))).find("longer than") != std::string::npos);
  auto mixed = load_input(temp_file("forms.txt", "+1 -2. .5 1e2\r\n2E-1\v\f99999999999999999999 1e-400"));
  CHECK(std::get<std::vector<double>>(mixed) == std::vector<double>{1, -2, 0.5, 100, 0.2, 1e20, 0});
  auto ints = load_input(temp_file("ints_limits.txt", "-2147483648 2147483647 +0"));
  const std::int32_t lowest = std::numeric_limits<std::int32_t>::min(), highest = std::numeric_limits<std::int32_t>::max();
  CHECK(std::get<std::vector<std::int32_t>>(ints) == std::vector<std::int32_t>{lowest, highest, 0});
  CHECK(data_type_of(load_input(temp_file("past_int.txt", "-2147483649"))) == DataType::Double);
  auto empty = load_input(temp_file("empty.txt", " \n\t"));
  CHECK(std::get<std::vector<std::int32_t>>(empty).empty());
}

TEST_CASE("text: numbers across the read buffer's edge are read whole", "[input]") {
  std::string text;
  std::vector<std::int32_t> expected;
  for (std::int32_t i = 0; text.size() < 200000; ++i) {
    text += std::to_string(i * 7919) + (i % 3 ? " " : "\n");
    expected.push_back(i * 7919);
  }
  CHECK(std::get<std::vector<std::int32_t>>(load_input(temp_file("long.txt", text))) == expected);
}

TEST_CASE("text: a file that grows while it is read is read to the size it had when it was opened", "[input]") {
  // A file appended to during the run was read until its writer stopped. Here a writer appends up to
  // 128 MiB of "2\n" lines from just before the file is opened until it has been read: only the few
  // 1 MiB blocks it wrote before the open may be read.
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
