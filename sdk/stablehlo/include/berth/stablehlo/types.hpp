// Element types and value types of StableHLO programs.
//
// A Type is a small handle to an interned description owned by the Module it
// came from; it stays valid as long as that Module lives. Two types compare
// equal when they describe the same type (even across modules).
#ifndef BERTH_STABLEHLO_TYPES_HPP_
#define BERTH_STABLEHLO_TYPES_HPP_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "berth/element_type.hpp"

namespace berth::stablehlo {

// Element types of tensors. Signless MLIR integers (`i32`) and signed ones
// (`si32`) both map to the signed kinds, as StableHLO treats them alike.
enum class ElementType : uint8_t {
  kI1,  // pred
  kSI2,
  kSI4,
  kSI8,
  kSI16,
  kSI32,
  kSI64,
  kUI2,
  kUI4,
  kUI8,
  kUI16,
  kUI32,
  kUI64,
  kF4E2M1FN,
  kF6E2M3FN,
  kF6E3M2FN,
  kF8E3M4,
  kF8E4M3,
  kF8E4M3FN,
  kF8E4M3FNUZ,
  kF8E4M3B11FNUZ,
  kF8E5M2,
  kF8E5M2FNUZ,
  kF8E8M0FNU,
  kBF16,
  kF16,
  kF32,
  kF64,
  kComplex64,   // complex<f32>
  kComplex128,  // complex<f64>
  // Not valid in tensors of values; they occur in attributes only.
  kTF32,   // dot algorithm precision types
  kIndex,  // `tensor<2xindex>` layouts of custom calls
  // A dialect element type kept as text (e.g. `!quant.uniform<...>`); the
  // verifier reports it as unsupported.
  kOpaque,
};

// The MLIR spelling: "i1", "i32", "ui8", "f8E4M3FN", "complex<f32>" ...
std::string_view ElementTypeName(ElementType type);

// The buffer element type (berth/element_type.hpp) holding `type`'s values
// (kInvalid when there is none: tf32, index, opaque).
berth::ElementType ToBufferType(ElementType type);
// The program's element type for a buffer type (false when there is none).
bool FromBufferType(berth::ElementType type, ElementType* out);

// Bits of one value: 1 for i1, 4 for i4, 64 for complex<f32>.
int BitWidth(ElementType type);

// Bytes one element takes in a dense literal buffer (see DenseElementsAttr):
// 1 for i1, i2, i4, f4/f6/f8; 2 for f16/bf16; 8 for complex<f32> ...
size_t StorageBytes(ElementType type);

bool IsBool(ElementType type);
bool IsInteger(ElementType type);  // signed or unsigned, not i1
bool IsSignedInteger(ElementType type);
bool IsUnsignedInteger(ElementType type);
bool IsFloat(ElementType type);  // every float format, not complex
bool IsComplex(ElementType type);
// f32 for complex<f32>, f64 for complex<f64>; the type itself otherwise.
ElementType ComplexComponentType(ElementType type);

// Decodes the bit pattern of a float element (f4..f64, bf16, tf32) into a
// double, exactly. Unknown types give NaN.
double DecodeFloat(ElementType type, uint64_t bits);
// Rounds a double to the nearest value of a float element type (ties to
// even) and returns its bit pattern. Overflow gives infinity where the format
// has one, else NaN where it has one, else the largest finite value.
uint64_t EncodeFloat(ElementType type, double value);

enum class TypeKind : uint8_t {
  kTensor,    // tensor<2x?xf32>
  kToken,     // !stablehlo.token
  kTuple,     // tuple<tensor<f32>, !stablehlo.token>
  kElement,   // a bare element type such as `f32` (attributes only)
  kFunction,  // (tensor<f32>) -> tensor<f32> (attributes only)
  kOpaque,    // a dialect type kept as text
};

// The size of a dynamic dimension (`?`).
inline constexpr int64_t kDynamic = INT64_MIN;
// The most elements a tensor type may have: the parser and the bytecode
// reader refuse more, so element counts never overflow.
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 48;

namespace detail {
struct TypeStorage;
}

// A value type or an attribute's type. Cheap to copy; null when default
// constructed.
class Type {
 public:
  Type() = default;
  explicit Type(const detail::TypeStorage* impl) : impl_(impl) {}

  explicit operator bool() const { return impl_ != nullptr; }
  TypeKind kind() const;
  bool IsTensor() const { return impl_ && kind() == TypeKind::kTensor; }
  bool IsToken() const { return impl_ && kind() == TypeKind::kToken; }
  bool IsTuple() const { return impl_ && kind() == TypeKind::kTuple; }
  bool IsFunction() const { return impl_ && kind() == TypeKind::kFunction; }

  // Tensors and bare element types.
  ElementType element_type() const;
  // Tensors: dimension sizes, kDynamic for `?`.
  std::span<const int64_t> shape() const;
  int64_t rank() const { return static_cast<int64_t>(shape().size()); }
  int64_t dim(int64_t i) const { return shape()[static_cast<size_t>(i)]; }
  bool HasStaticShape() const;
  // Product of the dimensions; -1 when a dimension is dynamic.
  int64_t NumElements() const;
  // Bounds of bounded-dynamic dimensions (`#stablehlo.bounds<4, ?>`), one
  // per dimension (kDynamic where unbounded); empty when not given.
  std::span<const int64_t> bounds() const;
  // True when the element type is a dialect type such as !quant.uniform.
  bool IsQuantized() const;

  // Tuples: element types. Functions: inputs() and results().
  std::span<const Type> types() const;
  std::span<const Type> inputs() const;
  std::span<const Type> results() const;

  // Opaque types and opaque element types: the text as written.
  std::string_view opaque_text() const;

  // MLIR spelling, e.g. "tensor<2x3xf32>".
  std::string ToString() const;

  const detail::TypeStorage* impl() const { return impl_; }

  friend bool operator==(Type a, Type b);
  friend bool operator!=(Type a, Type b) { return !(a == b); }

 private:
  const detail::TypeStorage* impl_ = nullptr;
};

}  // namespace berth::stablehlo

#endif  // BERTH_STABLEHLO_TYPES_HPP_
