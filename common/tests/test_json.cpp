#include <cmath>

#include "common/json.hpp"
#include "common/testing.hpp"

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
  runs.push(Json::object()).set("kernel", "k");
  j.set("runs", runs);
  CHECK(j.dump() ==
        R"({"chapter": "03_simple_kernel", "n": 2048, "neg": -3, "x": 0.5, "bad": null, "ok": true, "quote": "a\"b\n", "runs": [{"kernel": "k"}]})");
}
