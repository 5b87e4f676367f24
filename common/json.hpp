// The programs' --json output: nlohmann-json's ordered_json (keys stay in the order they were set,
// so the output reads in the order the report is built), with the few helpers the harness calls.
// A float that is NaN or infinite, which JSON cannot hold, is written as null.
#pragma once

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace reduction {

class Json : public nlohmann::ordered_json {
  using Base = nlohmann::ordered_json;

 public:
  using Base::Base;  // null, bool, the integers (signed and unsigned kept apart), doubles, strings
  Json(const Base& value) : Base(value) {}
  Json(Base&& value) : Base(std::move(value)) {}

  static Json object() { return Base::object(); }
  static Json array() { return Base::array(); }

  // Object: sets `key`; a key set again keeps its place and takes the new value. Array: appends.
  // Each returns the value it stored (something else first turns into an object or an array).
  Base& set(const std::string& key, Json value) {
    if (!is_object()) static_cast<Base&>(*this) = Base::object();
    return (*this)[key] = static_cast<Base&&>(value);
  }
  Base& push(Json value) {
    if (!is_array()) static_cast<Base&>(*this) = Base::array();
    return emplace_back(static_cast<Base&&>(value));
  }

  // An object's keys and values, in order (copies: a report has a handful of them).
  std::vector<std::pair<std::string, Json>> items() const {
    const auto& fields = get_ref<const object_t&>();
    return std::vector<std::pair<std::string, Json>>(fields.begin(), fields.end());
  }
  double as_double() const { return is_number() ? get<double>() : NAN; }

  // One line. Bytes that are not UTF-8 (a file name, say) become U+FFFD instead of an exception.
  std::string dump() const { return Base::dump(-1, ' ', false, error_handler_t::replace); }
};

}  // namespace reduction
