// Values in the reference interpreter's output format (interpreter_output.hpp).
#include "berth/stablehlo/interpreter_output.hpp"

#include <cstring>

#include <cmath>
#include <cstdio>

namespace berth::stablehlo {
namespace {

// Dimension `d` onwards from element `*next`, indented by `indent` spaces.
void AppendNested(std::span<const int64_t> dims, size_t d, int indent, int64_t* next,
                  const std::function<std::string(int64_t)>& element, std::string& out) {
  if (d + 1 == dims.size() || dims[d] == 0) {
    out += '[';
    if (dims[d] > 0) {
      int64_t count = 1;
      for (size_t k = d; k < dims.size(); ++k) count *= dims[k];
      for (int64_t i = 0; i < count; ++i) {
        if (i) out += ", ";
        out += element((*next)++);
      }
    }
    out += ']';
    return;
  }
  out += "[\n";
  for (int64_t i = 0; i < dims[d]; ++i) {
    if (i) out += ",\n";
    out += std::string(static_cast<size_t>(indent + 2), ' ');
    AppendNested(dims, d + 1, indent + 2, next, element, out);
  }
  out += "\n" + std::string(static_cast<size_t>(indent), ' ') + "]";
}

}  // namespace

std::string InterpreterFloatText(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.6e", value);
  return buffer;
}

std::string InterpreterElementText(ElementType type, const void* data, int64_t i) {
  const size_t size = StorageBytes(type);
  const auto* bytes = static_cast<const unsigned char*>(data) + static_cast<size_t>(i) * size;
  if (IsComplex(type)) {
    const ElementType part = ComplexComponentType(type);
    const size_t half = StorageBytes(part);
    const unsigned char* re = bytes;
    return "[" + InterpreterElementText(part, re, 0) + ", " +
           InterpreterElementText(part, re + half, 0) + "]";
  }
  uint64_t raw = 0;
  std::memcpy(&raw, bytes, size);
  if (type == ElementType::kI1) return raw & 0xff ? "true" : "false";
  if (IsFloat(type)) return InterpreterFloatText(DecodeFloat(type, raw));
  const int bits = BitWidth(type);
  const int unused = 64 - bits;
  if (IsSignedInteger(type)) return std::to_string(static_cast<int64_t>(raw << unused) >> unused);
  return std::to_string((raw << unused) >> unused);
}

std::string FormatInterpreterValue(std::string_view type, std::span<const int64_t> dims,
                                   const std::function<std::string(int64_t)>& element) {
  std::string out = std::string(type) + " {";
  if (dims.empty()) return out + element(0) + "}";
  out += "\n  ";
  int64_t next = 0;
  AppendNested(dims, 0, 2, &next, element, out);
  return out + "\n}";
}

}  // namespace berth::stablehlo
