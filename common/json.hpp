// A small JSON value with a writer, enough for the programs' --json output.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace reduction {

class Json {
 public:
  using Array = std::vector<Json>;
  using Object = std::vector<std::pair<std::string, Json>>;  // keeps insertion order

  Json() : value_(nullptr) {}
  Json(std::nullptr_t) : value_(nullptr) {}
  Json(bool b) : value_(b) {}
  template <typename I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  Json(I i) {
    if constexpr (std::is_signed_v<I>) value_ = static_cast<std::int64_t>(i);
    else value_ = static_cast<std::uint64_t>(i);
  }
  Json(double d) : value_(d) {}
  Json(float f) : value_(static_cast<double>(f)) {}
  Json(const char* s) : value_(std::string(s)) {}
  Json(std::string s) : value_(std::move(s)) {}

  static Json object() { Json j; j.value_ = Object{}; return j; }
  static Json array() { Json j; j.value_ = Array{}; return j; }

  // Object: sets `key` (replacing an earlier value). Array: appends.
  Json& set(const std::string& key, Json value);
  Json& push(Json value);
  bool is_object() const { return std::holds_alternative<Object>(value_); }
  const Object& items() const { return std::get<Object>(value_); }
  bool is_number() const;
  double as_double() const;  // for numbers

  // Floats print with enough digits to round-trip; NaN and infinity, which JSON lacks, as null.
  std::string dump() const;

 private:
  std::variant<std::nullptr_t, bool, std::int64_t, std::uint64_t, double, std::string, Array, Object> value_;
};

}  // namespace reduction
