#include "json.hpp"

#include <cmath>
#include <cstdio>

namespace reduction {

Json& Json::set(const std::string& key, Json value) {
  if (!is_object()) value_ = Object{};
  auto& obj = std::get<Object>(value_);
  for (auto& kv : obj)
    if (kv.first == key) return kv.second = std::move(value);
  obj.emplace_back(key, std::move(value));
  return obj.back().second;
}

Json& Json::push(Json value) {
  if (!std::holds_alternative<Array>(value_)) value_ = Array{};
  auto& arr = std::get<Array>(value_);
  arr.push_back(std::move(value));
  return arr.back();
}

bool Json::is_number() const {
  return std::holds_alternative<std::int64_t>(value_) || std::holds_alternative<std::uint64_t>(value_) ||
         std::holds_alternative<double>(value_);
}

double Json::as_double() const {
  if (auto p = std::get_if<std::int64_t>(&value_)) return static_cast<double>(*p);
  if (auto p = std::get_if<std::uint64_t>(&value_)) return static_cast<double>(*p);
  if (auto p = std::get_if<double>(&value_)) return *p;
  return NAN;
}

namespace {
void write_string(std::string& out, const std::string& s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

struct Writer {
  std::string& out;
  void operator()(std::nullptr_t) { out += "null"; }
  void operator()(bool b) { out += b ? "true" : "false"; }
  void operator()(std::int64_t i) { out += std::to_string(i); }
  void operator()(std::uint64_t i) { out += std::to_string(i); }
  void operator()(double d) {
    if (!std::isfinite(d)) { out += "null"; return; }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", d);
    out += buf;
  }
  void operator()(const std::string& s) { write_string(out, s); }
  void operator()(const Json::Array& a) {
    out += '[';
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (i) out += ", ";
      out += a[i].dump();
    }
    out += ']';
  }
  void operator()(const Json::Object& o) {
    out += '{';
    for (std::size_t i = 0; i < o.size(); ++i) {
      if (i) out += ", ";
      write_string(out, o[i].first);
      out += ": ";
      out += o[i].second.dump();
    }
    out += '}';
  }
};
}  // namespace

std::string Json::dump() const {
  std::string out;
  std::visit(Writer{out}, value_);
  return out;
}

}  // namespace reduction
