// Attributes of operations, functions and modules.
//
// Attributes are immutable and owned by the Module they were parsed into;
// pointers to them stay valid as long as that Module lives. Use
// `attr->dyn_cast<DenseElementsAttr>()` to get at a specific kind.
#ifndef BERTH_STABLEHLO_ATTRIBUTES_HPP_
#define BERTH_STABLEHLO_ATTRIBUTES_HPP_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "berth/stablehlo/types.hpp"

namespace berth::stablehlo {

enum class AttrKind : uint8_t {
  kUnit,
  kBool,
  kInteger,
  kFloat,
  kString,
  kType,
  kArray,
  kDenseArray,
  kDenseElements,
  kDictionary,
  kSymbolRef,
  kEnum,
  kDotDimensionNumbers,
  kGatherDimensionNumbers,
  kScatterDimensionNumbers,
  kConvDimensionNumbers,
  kChannelHandle,
  kOutputOperandAlias,
  kDotAlgorithm,
  kRaggedDotDimensionNumbers,
  kOpaque,
};

class Attribute {
 public:
  virtual ~Attribute() = default;
  Attribute(const Attribute&) = delete;
  Attribute& operator=(const Attribute&) = delete;

  AttrKind kind() const { return kind_; }

  // The attribute as T, or nullptr when it is of another kind.
  template <typename T>
  const T* dyn_cast() const {
    return kind_ == T::kKind ? static_cast<const T*>(this) : nullptr;
  }
  template <typename T>
  bool isa() const { return kind_ == T::kKind; }

  // Structural equality (deep).
  bool Equals(const Attribute& other) const;
  // MLIR spelling; parses back to an equal attribute.
  std::string ToString() const;

 protected:
  explicit Attribute(AttrKind kind) : kind_(kind) {}

 private:
  AttrKind kind_;
};

struct NamedAttribute {
  std::string_view name;     // owned by the Module
  const Attribute* value = nullptr;
};

// `unit_attr` in a dictionary: present, no value.
class UnitAttr final : public Attribute {
 public:
  static constexpr AttrKind kKind = AttrKind::kUnit;
  UnitAttr() : Attribute(kKind) {}
};

class BoolAttr final : public Attribute {
 public:
  static constexpr AttrKind kKind = AttrKind::kBool;
  explicit BoolAttr(bool value) : Attribute(kKind), value_(value) {}
  bool value() const { return value_; }

 private:
  bool value_;
};

// `3 : i64`, `-1 : i32`, `7 : ui64`, `0 : index`.
class IntegerAttr final : public Attribute {
 public:
  static constexpr AttrKind kKind = AttrKind::kInteger;
  IntegerAttr(int64_t value, ElementType type) : Attribute(kKind), value_(value), type_(type) {}
  // The value as a signed number (ui64 values above INT64_MAX wrap).
  int64_t value() const { return value_; }
  uint64_t unsigned_value() const { return static_cast<uint64_t>(value_); }
  ElementType type() const { return type_; }

 private:
  int64_t value_;
  ElementType type_;
};

// `0.1 : f64`, `0x7FC00000 : f32`.
class FloatAttr final : public Attribute {
 public:
  static constexpr AttrKind kKind = AttrKind::kFloat;
  FloatAttr(double value, ElementType type) : Attribute(kKind), value_(value), type_(type) {}
  double value() const { return value_; }
  ElementType type() const { return type_; }

 private:
  double value_;
  ElementType type_;
};

// A string literal, escapes resolved (may hold arbitrary bytes).
class StringAttr final : public Attribute {
 public:
  static constexpr AttrKind kKind = AttrKind::kString;
  explicit StringAttr(std::string value) : Attribute(kKind), value_(std::move(value)) {}
  std::string_view value() const { return value_; }

 private:
  std::string value_;
};

class TypeAttr final : public Attribute {
 public:
  static constexpr AttrKind kKind = AttrKind::kType;
  explicit TypeAttr(Type type) : Attribute(kKind), type_(type) {}
  Type type() const { return type_; }

 private:
  Type type_;
};

// `[a, b, c]`.
class ArrayAttr final : public Attribute {
 public:
  static constexpr AttrKind kKind = AttrKind::kArray;
  explicit ArrayAttr(std::vector<const Attribute*> elements)
      : Attribute(kKind), elements_(std::move(elements)) {}
  std::span<const Attribute* const> elements() const { return elements_; }
  size_t size() const { return elements_.size(); }
  const Attribute* operator[](size_t i) const { return elements_[i]; }

 private:
  std::vector<const Attribute*> elements_;
};

// `array<i64: 1, 2>`, `array<i1: true, false>`, `array<f32: 1.0>`.
// Integer and bool elements are in ints(); float elements in floats().
class DenseArrayAttr final : public Attribute {
 public:
  static constexpr AttrKind kKind = AttrKind::kDenseArray;
  DenseArrayAttr(ElementType type, std::vector<int64_t> ints, std::vector<double> floats)
      : Attribute(kKind), type_(type), ints_(std::move(ints)), floats_(std::move(floats)) {}
  ElementType element_type() const { return type_; }
  std::span<const int64_t> ints() const { return ints_; }
  std::span<const double> floats() const { return floats_; }
  size_t size() const { return IsFloat(type_) ? floats_.size() : ints_.size(); }

 private:
  ElementType type_;
  std::vector<int64_t> ints_;
  std::vector<double> floats_;
};

// `dense<...> : tensor<...>`. The data is little-endian, row-major, in the
// natural C layout of the element type: i1 as one byte 0/1; i2/i4 as one
// byte per element, sign-extended (ui2/ui4 zero-extended); f16/bf16 as
// uint16 bit patterns; f4/f6/f8 as one byte holding the bit pattern; f32 as
// float, f64 as double; complex as (real, imaginary) pairs. A splat stores a
// single element; ExpandedData() yields the full buffer either way.
// Literals of quantized types hold their storage integers (storage_type()).
class DenseElementsAttr final : public Attribute {
 public:
  static constexpr AttrKind kKind = AttrKind::kDenseElements;
  DenseElementsAttr(Type type, bool splat, std::vector<uint8_t> data)
      : DenseElementsAttr(type, splat, std::move(data), type.element_type()) {}
  DenseElementsAttr(Type type, bool splat, std::vector<uint8_t> data, ElementType storage)
      : Attribute(kKind), type_(type), splat_(splat), data_(std::move(data)), storage_(storage) {}

  Type type() const { return type_; }
  ElementType element_type() const { return type_.element_type(); }
  // The layout of the data: element_type(), or the storage integer type of a
  // quantized element type.
  ElementType storage_type() const { return storage_; }
  int64_t num_elements() const { return type_.NumElements(); }
  bool is_splat() const { return splat_; }
  // The stored bytes: one element when is_splat(), all elements otherwise.
  std::span<const uint8_t> raw_data() const { return data_; }
  // All elements (splats expanded). Size: num_elements() * StorageBytes().
  std::vector<uint8_t> ExpandedData() const;
  // Writes all elements to `dst`, which holds `size` bytes; false when
  // `size` differs from the expanded size.
  bool CopyTo(void* dst, size_t size) const;

  // Element `i` (row-major) as an integer (integers, i1) or double (floats;
  // for complex the real part).
  int64_t IntAt(int64_t i) const;
  double FloatAt(int64_t i) const;
  // All elements as int64 (integer and bool element types).
  std::vector<int64_t> ToInt64Vector() const;

 private:
  Type type_;
  bool splat_;
  std::vector<uint8_t> data_;
  ElementType storage_;
};

// `{a = 1 : i64, b}`, entries sorted by name.
class DictionaryAttr final : public Attribute {
 public:
  static constexpr AttrKind kKind = AttrKind::kDictionary;
  explicit DictionaryAttr(std::vector<NamedAttribute> entries);
  std::span<const NamedAttribute> entries() const { return entries_; }
  const Attribute* Get(std::string_view name) const;
  bool empty() const { return entries_.empty(); }

 private:
  std::vector<NamedAttribute> entries_;
};

// `@f` or `@outer::@inner`.
class SymbolRefAttr final : public Attribute {
 public:
  static constexpr AttrKind kKind = AttrKind::kSymbolRef;
  explicit SymbolRefAttr(std::vector<std::string> path) : Attribute(kKind), path_(std::move(path)) {}
  // The root (first) symbol name, without '@'.
  std::string_view name() const { return path_.front(); }
  std::span<const std::string> path() const { return path_; }

 private:
  std::vector<std::string> path_;
};

enum class ComparisonDirection : uint8_t { kEq, kNe, kGe, kGt, kLe, kLt };
enum class ComparisonType : uint8_t { kNoType, kFloat, kTotalOrder, kSigned, kUnsigned };
enum class Precision : uint8_t { kDefault, kHigh, kHighest };
enum class FftType : uint8_t { kFft, kIfft, kRfft, kIrfft };
enum class RngDistribution : uint8_t { kUniform, kNormal };
enum class RngAlgorithm : uint8_t { kDefault, kThreeFry, kPhilox };
enum class Transpose : uint8_t { kNoTranspose, kTranspose, kAdjoint };

enum class EnumKind : uint8_t {
  kComparisonDirection,
  kComparisonType,
  kPrecision,
  kFftType,
  kRngDistribution,
  kRngAlgorithm,
  kTranspose,
};

// `#stablehlo<comparison_direction LT>` and the other enum attributes.
class EnumAttr final : public Attribute {
 public:
  static constexpr AttrKind kKind = AttrKind::kEnum;
  EnumAttr(EnumKind enum_kind, uint8_t value) : Attribute(kKind), enum_kind_(enum_kind), value_(value) {}
  EnumKind enum_kind() const { return enum_kind_; }
  uint8_t value() const { return value_; }
  // The keyword, e.g. "LT", "SIGNED", "DEFAULT", "FFT".
  std::string_view keyword() const;

 private:
  EnumKind enum_kind_;
  uint8_t value_;
};

// Name of an enum kind as written after `#stablehlo<`, e.g. "comparison_direction".
std::string_view EnumKindName(EnumKind kind);
// The keyword of a value, e.g. (kComparisonDirection, 5) -> "LT"; empty when
// out of range.
std::string_view EnumKeyword(EnumKind kind, uint8_t value);
// The value of a keyword, or nullopt.
std::optional<uint8_t> EnumValue(EnumKind kind, std::string_view keyword);

struct DotDimensionNumbers {
  std::vector<int64_t> lhs_batching_dimensions;
  std::vector<int64_t> rhs_batching_dimensions;
  std::vector<int64_t> lhs_contracting_dimensions;
  std::vector<int64_t> rhs_contracting_dimensions;
  friend bool operator==(const DotDimensionNumbers&, const DotDimensionNumbers&) = default;
};

struct GatherDimensionNumbers {
  std::vector<int64_t> offset_dims;
  std::vector<int64_t> collapsed_slice_dims;
  std::vector<int64_t> operand_batching_dims;
  std::vector<int64_t> start_indices_batching_dims;
  std::vector<int64_t> start_index_map;
  int64_t index_vector_dim = 0;
  friend bool operator==(const GatherDimensionNumbers&, const GatherDimensionNumbers&) = default;
};

struct ScatterDimensionNumbers {
  std::vector<int64_t> update_window_dims;
  std::vector<int64_t> inserted_window_dims;
  std::vector<int64_t> input_batching_dims;
  std::vector<int64_t> scatter_indices_batching_dims;
  std::vector<int64_t> scatter_dims_to_operand_dims;
  int64_t index_vector_dim = 0;
  friend bool operator==(const ScatterDimensionNumbers&, const ScatterDimensionNumbers&) = default;
};

struct ConvDimensionNumbers {
  int64_t input_batch_dimension = 0;
  int64_t input_feature_dimension = 0;
  std::vector<int64_t> input_spatial_dimensions;
  int64_t kernel_input_feature_dimension = 0;
  int64_t kernel_output_feature_dimension = 0;
  std::vector<int64_t> kernel_spatial_dimensions;
  int64_t output_batch_dimension = 0;
  int64_t output_feature_dimension = 0;
  std::vector<int64_t> output_spatial_dimensions;
  friend bool operator==(const ConvDimensionNumbers&, const ConvDimensionNumbers&) = default;
};

struct ChannelHandle {
  int64_t handle = 0;
  int64_t type = 0;
  friend bool operator==(const ChannelHandle&, const ChannelHandle&) = default;
};

struct OutputOperandAlias {
  std::vector<int64_t> output_tuple_indices;
  int64_t operand_index = 0;
  std::vector<int64_t> operand_tuple_indices;
  friend bool operator==(const OutputOperandAlias&, const OutputOperandAlias&) = default;
};

struct DotAlgorithm {
  ElementType lhs_precision_type = ElementType::kF32;
  ElementType rhs_precision_type = ElementType::kF32;
  ElementType accumulation_type = ElementType::kF32;
  int64_t lhs_component_count = 1;
  int64_t rhs_component_count = 1;
  int64_t num_primitive_operations = 1;
  bool allow_imprecise_accumulation = false;
  friend bool operator==(const DotAlgorithm&, const DotAlgorithm&) = default;
};

// chlo.ragged_dot's dimension numbers (#chlo.ragged_dot<...>): dot_general's
// and the lhs ragged dimension and the rhs group dimension (at most one
// each).
struct RaggedDotDimensionNumbers {
  DotDimensionNumbers dot;
  std::vector<int64_t> lhs_ragged_dimensions;
  std::vector<int64_t> rhs_group_dimensions;
  friend bool operator==(const RaggedDotDimensionNumbers&, const RaggedDotDimensionNumbers&) = default;
};

// Wraps one of the structs above as an attribute.
template <typename T, AttrKind K>
class StructAttr final : public Attribute {
 public:
  static constexpr AttrKind kKind = K;
  explicit StructAttr(T value) : Attribute(kKind), value_(std::move(value)) {}
  const T& value() const { return value_; }

 private:
  T value_;
};

using DotDimensionNumbersAttr = StructAttr<DotDimensionNumbers, AttrKind::kDotDimensionNumbers>;
using GatherDimensionNumbersAttr =
    StructAttr<GatherDimensionNumbers, AttrKind::kGatherDimensionNumbers>;
using ScatterDimensionNumbersAttr =
    StructAttr<ScatterDimensionNumbers, AttrKind::kScatterDimensionNumbers>;
using ConvDimensionNumbersAttr = StructAttr<ConvDimensionNumbers, AttrKind::kConvDimensionNumbers>;
using ChannelHandleAttr = StructAttr<ChannelHandle, AttrKind::kChannelHandle>;
using OutputOperandAliasAttr = StructAttr<OutputOperandAlias, AttrKind::kOutputOperandAlias>;
using DotAlgorithmAttr = StructAttr<DotAlgorithm, AttrKind::kDotAlgorithm>;
using RaggedDotDimensionNumbersAttr =
    StructAttr<RaggedDotDimensionNumbers, AttrKind::kRaggedDotDimensionNumbers>;

// An attribute of another dialect (`#sdy.sharding<...>`, `#mhlo...`) or one
// this library does not model, kept as the text written.
class OpaqueAttr final : public Attribute {
 public:
  static constexpr AttrKind kKind = AttrKind::kOpaque;
  explicit OpaqueAttr(std::string text) : Attribute(kKind), text_(std::move(text)) {}
  std::string_view text() const { return text_; }

 private:
  std::string text_;
};

}  // namespace berth::stablehlo

#endif  // BERTH_STABLEHLO_ATTRIBUTES_HPP_
