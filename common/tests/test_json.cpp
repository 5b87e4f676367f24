#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "common/program.hpp"
#include "common/testing/testing.hpp"

using namespace reduction;

TEST_CASE("json output", "[json]") {
  Json j = Json::object();
  j.set("chapter", "03_simple_kernel");
  j.set("n", std::size_t(2048));
  j.set("neg", -3);
  j.set("x", 0.5);
  j.set("bad", std::nan(""));
  j.set("ok", true);
  j.set("quote", "a\"b\n");
  Json runs = Json::array();
  runs.push(Json::object())["kernel"] = "k";
  j.set("runs", runs);
  CHECK(j.dump() ==
        R"({"chapter":"03_simple_kernel","n":2048,"neg":-3,"x":0.5,"bad":null,"ok":true,"quote":"a\"b\n","runs":[{"kernel":"k"}]})");
}

TEST_CASE("json keeps order, integers and floats apart, and every value writable", "[json]") {
  Json j = Json::object();
  j.set("first", 1);
  j.set("second", 2);
  j.set("first", 3);  // a key set again keeps its place
  CHECK(j.dump() == R"({"first":3,"second":2})");
  const auto items = j.items();
  REQUIRE(items.size() == 2);
  CHECK(items[0].first == "first");
  CHECK(items[0].second.as_double() == 3);
  CHECK(items[1].first == "second");

  // A whole double stays a double (a float result of 2 is not an int); 64-bit integers are exact.
  Json numbers = Json::array();
  numbers.push(2.0);
  numbers.push(std::numeric_limits<std::uint64_t>::max());
  numbers.push(std::numeric_limits<std::int64_t>::min());
  numbers.push(0.1f);  // a float is written as the double it widens to: every bit survives
  numbers.push(-INFINITY);
  CHECK(numbers.dump() == "[2.0,18446744073709551615,-9223372036854775808,0.10000000149011612,null]");

  CHECK(Json("\x01\t").dump() == R"("\u0001\t")");
  CHECK(Json(std::string("a\xff")).dump() == "\"a\xEF\xBF\xBD\"");  // not UTF-8: U+FFFD, no exception

  CHECK(std::isnan(Json("text").as_double()));
  CHECK(std::isnan(Json(true).as_double()));
  CHECK(Json(std::size_t(1) << 40).as_double() == std::ldexp(1.0, 40));
}
