// Element types as C++ sees them: the same numbering as BERTH_Buffer_Type,
// with names ("f32", "bf16", "pred" ...) and sizes. Header-only; shared by the
// host, the SDK helpers and plugins.
#ifndef BERTH_ELEMENT_TYPE_HPP_
#define BERTH_ELEMENT_TYPE_HPP_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "berth/c_api.h"

namespace berth {

enum class ElementType : int32_t {
  kInvalid = BERTH_Buffer_Type_INVALID,
  kPred = BERTH_Buffer_Type_PRED,
  kS8 = BERTH_Buffer_Type_S8,
  kS16 = BERTH_Buffer_Type_S16,
  kS32 = BERTH_Buffer_Type_S32,
  kS64 = BERTH_Buffer_Type_S64,
  kU8 = BERTH_Buffer_Type_U8,
  kU16 = BERTH_Buffer_Type_U16,
  kU32 = BERTH_Buffer_Type_U32,
  kU64 = BERTH_Buffer_Type_U64,
  kF16 = BERTH_Buffer_Type_F16,
  kF32 = BERTH_Buffer_Type_F32,
  kF64 = BERTH_Buffer_Type_F64,
  kBF16 = BERTH_Buffer_Type_BF16,
  kC64 = BERTH_Buffer_Type_C64,
  kC128 = BERTH_Buffer_Type_C128,
  kF8E5M2 = BERTH_Buffer_Type_F8E5M2,
  kF8E4M3FN = BERTH_Buffer_Type_F8E4M3FN,
  kF8E4M3B11FNUZ = BERTH_Buffer_Type_F8E4M3B11FNUZ,
  kF8E5M2FNUZ = BERTH_Buffer_Type_F8E5M2FNUZ,
  kF8E4M3FNUZ = BERTH_Buffer_Type_F8E4M3FNUZ,
  kS4 = BERTH_Buffer_Type_S4,
  kU4 = BERTH_Buffer_Type_U4,
  kToken = BERTH_Buffer_Type_TOKEN,
  kS2 = BERTH_Buffer_Type_S2,
  kU2 = BERTH_Buffer_Type_U2,
  kF8E4M3 = BERTH_Buffer_Type_F8E4M3,
  kF8E3M4 = BERTH_Buffer_Type_F8E3M4,
  kF8E8M0FNU = BERTH_Buffer_Type_F8E8M0FNU,
  kF4E2M1FN = BERTH_Buffer_Type_F4E2M1FN,
  kF6E2M3FN = BERTH_Buffer_Type_F6E2M3FN,
  kF6E3M2FN = BERTH_Buffer_Type_F6E3M2FN,
};

inline constexpr ElementType kLastElementType = ElementType::kF6E3M2FN;

struct ElementTypeInfo {
  ElementType type;
  std::string_view name;  // as in MLIR/NumPy-ish short form: "f32", "i1" is "pred"
  size_t byte_size;       // storage per element in a buffer (sub-byte: 1)
};

// Names follow the StableHLO element types where one exists ("i8", "ui32",
// "f32", "bf16", "f8E4M3FN", "complex<f32>" as "c64") and "pred" for i1.
inline constexpr ElementTypeInfo kElementTypeInfos[] = {
    {ElementType::kInvalid, "invalid", 0},
    {ElementType::kPred, "pred", 1},
    {ElementType::kS8, "i8", 1},
    {ElementType::kS16, "i16", 2},
    {ElementType::kS32, "i32", 4},
    {ElementType::kS64, "i64", 8},
    {ElementType::kU8, "ui8", 1},
    {ElementType::kU16, "ui16", 2},
    {ElementType::kU32, "ui32", 4},
    {ElementType::kU64, "ui64", 8},
    {ElementType::kF16, "f16", 2},
    {ElementType::kF32, "f32", 4},
    {ElementType::kF64, "f64", 8},
    {ElementType::kBF16, "bf16", 2},
    {ElementType::kC64, "c64", 8},
    {ElementType::kC128, "c128", 16},
    {ElementType::kF8E5M2, "f8E5M2", 1},
    {ElementType::kF8E4M3FN, "f8E4M3FN", 1},
    {ElementType::kF8E4M3B11FNUZ, "f8E4M3B11FNUZ", 1},
    {ElementType::kF8E5M2FNUZ, "f8E5M2FNUZ", 1},
    {ElementType::kF8E4M3FNUZ, "f8E4M3FNUZ", 1},
    {ElementType::kS4, "i4", 1},
    {ElementType::kU4, "ui4", 1},
    {ElementType::kToken, "token", 0},
    {ElementType::kS2, "i2", 1},
    {ElementType::kU2, "ui2", 1},
    {ElementType::kF8E4M3, "f8E4M3", 1},
    {ElementType::kF8E3M4, "f8E3M4", 1},
    {ElementType::kF8E8M0FNU, "f8E8M0FNU", 1},
    {ElementType::kF4E2M1FN, "f4E2M1FN", 1},
    {ElementType::kF6E2M3FN, "f6E2M3FN", 1},
    {ElementType::kF6E3M2FN, "f6E3M2FN", 1},
};

// Whether the value is one of the enumerators above (e.g. a type read from a
// plugin may be out of range).
constexpr bool IsValidElementType(int32_t value) {
  return value > 0 && value <= static_cast<int32_t>(kLastElementType);
}

constexpr const ElementTypeInfo& GetElementTypeInfo(ElementType type) {
  int32_t index = static_cast<int32_t>(type);
  return IsValidElementType(index) ? kElementTypeInfos[index] : kElementTypeInfos[0];
}

constexpr std::string_view ElementTypeName(ElementType type) {
  return GetElementTypeInfo(type).name;
}

constexpr size_t ElementTypeByteSize(ElementType type) {
  return GetElementTypeInfo(type).byte_size;
}

// Parses a name from ElementTypeName; also accepts "i1" and "bool" for pred.
inline std::optional<ElementType> ParseElementType(std::string_view name) {
  if (name == "i1" || name == "bool") return ElementType::kPred;
  for (const ElementTypeInfo& info : kElementTypeInfos) {
    if (info.type != ElementType::kInvalid && info.name == name) return info.type;
  }
  return std::nullopt;
}

}  // namespace berth

#endif  // BERTH_ELEMENT_TYPE_HPP_
