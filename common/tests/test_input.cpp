#include <cstdio>
#include <fstream>
#include <set>
#include <string>

#include "common/input.hpp"
#include "common/testing.hpp"

using namespace reduction;

namespace {
std::string temp_file(const std::string& name, const std::string& contents) {
  std::string path = "reduction_test_" + name;
  std::ofstream(path, std::ios::binary) << contents;
  return path;
}

std::string npy(const std::string& descr, const std::string& shape, const std::string& data) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xFF);
  out += static_cast<char>(header.size() >> 8);
  return out + header + data;
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
  std::int32_t ints[3] = {1, -2, 3};
  auto path = temp_file("ints.npy", npy("<i4", "(3,)", std::string(reinterpret_cast<char*>(ints), 12)));
  auto data = load_input(path);
  REQUIRE(data_type_of(data) == DataType::Int);
  CHECK(std::get<std::vector<std::int32_t>>(data) == std::vector<std::int32_t>{1, -2, 3});

  double d[2] = {0.5, 2.25};
  path = temp_file("doubles.npy", npy("<f8", "(2,)", std::string(reinterpret_cast<char*>(d), 16)));
  data = load_input(path);
  REQUIRE(data_type_of(data) == DataType::Double);
  CHECK(std::get<std::vector<double>>(data) == std::vector<double>{0.5, 2.25});
}

TEST_CASE("bad npy files are refused with a reason", "[input]") {
  float f[2] = {1.0f, 2.0f};
  std::string two_floats(reinterpret_cast<char*>(f), 8);
  CHECK_THROWS_AS(load_input(temp_file("short.npy", npy("<f4", "(3,)", two_floats))), InputError);
  CHECK_THROWS_AS(load_input(temp_file("2d.npy", npy("<f4", "(1, 2)", two_floats))), InputError);
  CHECK_THROWS_AS(load_input(temp_file("i8.npy", npy("<i8", "(1,)", two_floats))), InputError);
  CHECK_THROWS_AS(load_input(temp_file("magic.npy", "not numpy at all")), InputError);
  CHECK_THROWS_AS(load_input("no/such/file.npy"), InputError);
  float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_AS(load_input(temp_file("nan.npy", npy("<f4", "(1,)", std::string(reinterpret_cast<char*>(&nan), 4)))),
                  InputError);
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
  CHECK_THROWS_AS(load_input(temp_file("word.txt", "1 two 3")), InputError);
  CHECK_THROWS_AS(load_input(temp_file("nan.txt", "1 nan")), InputError);
}
