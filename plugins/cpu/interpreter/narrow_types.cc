#include "interpreter/narrow_types.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>

namespace berth::cpu {

using E = ElementType;

bool IsNarrowInteger(ElementType type) {
  return type == E::kSI2 || type == E::kSI4 || type == E::kUI2 || type == E::kUI4;
}

namespace {

bool IsNarrowFloat(ElementType type) {
  return stablehlo::IsFloat(type) && stablehlo::BitWidth(type) <= 8;
}

// The value of a narrow integer's byte: its low `bits`, sign- or
// zero-extended as the type is signed or not.
int64_t NarrowValue(ElementType type, uint8_t byte) {
  const int bits = stablehlo::BitWidth(type);
  const uint8_t low = static_cast<uint8_t>(byte & ((1u << bits) - 1));
  if (stablehlo::IsSignedInteger(type) && (low >> (bits - 1)) != 0) {
    return static_cast<int64_t>(low) - (int64_t{1} << bits);
  }
  return low;
}

// Every bit pattern of a float format decoded (low bits only; the table
// repeats for f6 and f4), built once per format.
const std::array<double, 256>& DecodeTable(ElementType type) {
  static std::array<std::array<double, 256>, static_cast<size_t>(E::kComplex128) + 1> tables;
  static std::array<std::once_flag, static_cast<size_t>(E::kComplex128) + 1> built;
  const size_t index = static_cast<size_t>(type);
  std::call_once(built[index], [&] {
    const uint64_t mask = (uint64_t{1} << stablehlo::BitWidth(type)) - 1;
    for (uint64_t bits = 0; bits < 256; ++bits) {
      tables[index][bits] = stablehlo::DecodeFloat(type, bits & mask);
    }
  });
  return tables[index];
}

// Calls `f.template operator()<T>()` with T the C++ type of `type`: an
// integer of at most 64 bits, i1, f32 or f64 (the types narrow values are
// decoded into and encoded from); nothing for another type.
template <typename F>
void DispatchPlain(ElementType type, F&& f) {
  switch (type) {
    case E::kSI8: f.template operator()<int8_t>(); break;
    case E::kSI16: f.template operator()<int16_t>(); break;
    case E::kSI32: f.template operator()<int32_t>(); break;
    case E::kSI64: f.template operator()<int64_t>(); break;
    case E::kUI8: f.template operator()<uint8_t>(); break;
    case E::kUI16: f.template operator()<uint16_t>(); break;
    case E::kUI32: f.template operator()<uint32_t>(); break;
    case E::kUI64: f.template operator()<uint64_t>(); break;
    case E::kI1: f.template operator()<bool>(); break;
    case E::kF32: f.template operator()<float>(); break;
    case E::kF64: f.template operator()<double>(); break;
    default: break;
  }
}

// Calls `f(i, value)` for each element of `in` (type `from`).
template <typename F>
void ForEachSource(ElementType from, const void* in, int64_t n, F&& f) {
  DispatchPlain(from, [&]<typename T>() {
    const T* values = static_cast<const T*>(in);
    for (int64_t i = 0; i < n; ++i) f(i, values[i]);
  });
}

// Writes `value(i)` converted to `to` for i < n.
template <typename F>
void StoreAs(ElementType to, void* out, int64_t n, F&& value) {
  DispatchPlain(to, [&]<typename T>() {
    T* o = static_cast<T*>(out);
    for (int64_t i = 0; i < n; ++i) {
      auto v = value(i);
      if constexpr (std::is_same_v<T, bool>) {
        o[i] = v != 0;
      } else {
        o[i] = static_cast<T>(v);
      }
    }
  });
}

// `value` brought to narrow integer type `to` by wrapping.
uint8_t WrapTo(ElementType to, uint64_t value) {
  return static_cast<uint8_t>(NarrowValue(to, static_cast<uint8_t>(value)));
}

}  // namespace

bool IsNarrowType(ElementType type) { return IsNarrowInteger(type) || IsNarrowFloat(type); }

ElementType WideComputeType(ElementType type) {
  if (IsNarrowInteger(type)) return stablehlo::IsSignedInteger(type) ? E::kSI8 : E::kUI8;
  if (IsNarrowFloat(type)) return E::kF32;
  return type;
}

void DecodeNarrow(ElementType from, const uint8_t* in, ElementType to, void* out, int64_t n,
                  bool as_bits) {
  if (as_bits) {
    const unsigned mask = (1u << stablehlo::BitWidth(from)) - 1;
    StoreAs(to, out, n, [&](int64_t i) { return static_cast<int64_t>(in[i] & mask); });
    return;
  }
  if (IsNarrowInteger(from)) {
    // By value; the cast to `to` then wraps as convert does.
    StoreAs(to, out, n, [&](int64_t i) { return NarrowValue(from, in[i]); });
    return;
  }
  const std::array<double, 256>& table = DecodeTable(from);
  StoreAs(to, out, n, [&](int64_t i) { return table[in[i]]; });
}

void EncodeNarrow(ElementType from, const void* in, ElementType to, uint8_t* out, int64_t n,
                  NarrowEncode mode) {
  if (IsNarrowFloat(to)) {
    ForEachSource(from, in, n, [&](int64_t i, auto v) {
      out[i] = static_cast<uint8_t>(stablehlo::EncodeFloat(to, static_cast<double>(v)));
    });
    return;
  }
  const int bits = stablehlo::BitWidth(to);
  const bool is_signed = stablehlo::IsSignedInteger(to);
  const int64_t lo = is_signed ? -(int64_t{1} << (bits - 1)) : 0;
  const int64_t hi = is_signed ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
  ForEachSource(from, in, n, [&](int64_t i, auto v) {
    using V = decltype(v);
    if constexpr (std::is_floating_point_v<V>) {
      // Truncate toward zero, saturate, NaN -> 0 (convert's rule).
      double d = static_cast<double>(v);
      int64_t value = d != d                         ? 0
                      : d <= static_cast<double>(lo) ? lo
                      : d >= static_cast<double>(hi) ? hi
                                                     : static_cast<int64_t>(d);
      out[i] = static_cast<uint8_t>(value);
    } else if (mode == NarrowEncode::kSaturate) {
      int64_t value;
      if constexpr (std::is_unsigned_v<V>) {
        value = static_cast<uint64_t>(v) > static_cast<uint64_t>(hi) ? hi : static_cast<int64_t>(v);
      } else {
        value = static_cast<int64_t>(v) < lo   ? lo
                : static_cast<int64_t>(v) > hi ? hi
                                               : static_cast<int64_t>(v);
      }
      out[i] = static_cast<uint8_t>(value);
    } else if (mode == NarrowEncode::kLeadingZeros) {
      out[i] = WrapTo(to, static_cast<uint64_t>(static_cast<int64_t>(v) - (8 - bits)));
    } else {
      out[i] = WrapTo(to, static_cast<uint64_t>(v));
    }
  });
}

void NormalizeNarrowIntegers(ElementType type, uint8_t* data, int64_t n) {
  if (!IsNarrowInteger(type)) return;
  for (int64_t i = 0; i < n; ++i) data[i] = static_cast<uint8_t>(NarrowValue(type, data[i]));
}

}  // namespace berth::cpu
