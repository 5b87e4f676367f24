// The element types the chapters reduce, and the switch from a run-time type name to a
// compile-time type.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace reduction {

enum class DataType { Int, Float, Double };

inline const char* type_name(DataType t) {
  switch (t) {
    case DataType::Int: return "int";
    case DataType::Float: return "float";
    case DataType::Double: return "double";
  }
  return "?";
}

inline std::optional<DataType> parse_type(const std::string& s) {
  if (s == "int") return DataType::Int;
  if (s == "float") return DataType::Float;
  if (s == "double") return DataType::Double;
  return std::nullopt;
}

template <typename T> constexpr DataType data_type_of();
template <> constexpr DataType data_type_of<std::int32_t>() { return DataType::Int; }
template <> constexpr DataType data_type_of<float>() { return DataType::Float; }
template <> constexpr DataType data_type_of<double>() { return DataType::Double; }

template <typename T> struct TypeTag { using type = T; };

// Calls f(TypeTag<T>{}) with T the C++ type that `t` names.
template <typename F> decltype(auto) dispatch_type(DataType t, F&& f) {
  switch (t) {
    case DataType::Int: return f(TypeTag<std::int32_t>{});
    case DataType::Float: return f(TypeTag<float>{});
    default: return f(TypeTag<double>{});
  }
}

}  // namespace reduction
