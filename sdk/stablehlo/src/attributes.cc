// Attribute equality, enum keywords and dense literal access.
#include "berth/stablehlo/attributes.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

namespace berth::stablehlo {
namespace {

constexpr std::array<std::string_view, 6> kDirections = {"EQ", "NE", "GE", "GT", "LE", "LT"};
constexpr std::array<std::string_view, 5> kCompareTypes = {"NOTYPE", "FLOAT", "TOTALORDER",
                                                           "SIGNED", "UNSIGNED"};
constexpr std::array<std::string_view, 3> kPrecisions = {"DEFAULT", "HIGH", "HIGHEST"};
constexpr std::array<std::string_view, 4> kFftTypes = {"FFT", "IFFT", "RFFT", "IRFFT"};
constexpr std::array<std::string_view, 2> kDistributions = {"UNIFORM", "NORMAL"};
constexpr std::array<std::string_view, 3> kRngAlgorithms = {"DEFAULT", "THREE_FRY", "PHILOX"};
constexpr std::array<std::string_view, 3> kTransposes = {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};

std::span<const std::string_view> Keywords(EnumKind kind) {
  switch (kind) {
    case EnumKind::kComparisonDirection: return kDirections;
    case EnumKind::kComparisonType: return kCompareTypes;
    case EnumKind::kPrecision: return kPrecisions;
    case EnumKind::kFftType: return kFftTypes;
    case EnumKind::kRngDistribution: return kDistributions;
    case EnumKind::kRngAlgorithm: return kRngAlgorithms;
    case EnumKind::kTranspose: return kTransposes;
  }
  return {};
}

bool AttrsEqual(const Attribute* a, const Attribute* b) {
  if (a == b) return true;
  if (!a || !b) return false;
  return a->Equals(*b);
}

// Two attributes of kind A (checked by the caller) hold equal values.
template <typename A>
bool SameValue(const Attribute& a, const Attribute& b) {
  return a.dyn_cast<A>()->value() == b.dyn_cast<A>()->value();
}

}  // namespace

std::string_view EnumKindName(EnumKind kind) {
  switch (kind) {
    case EnumKind::kComparisonDirection: return "comparison_direction";
    case EnumKind::kComparisonType: return "comparison_type";
    case EnumKind::kPrecision: return "precision";
    case EnumKind::kFftType: return "fft_type";
    case EnumKind::kRngDistribution: return "rng_distribution";
    case EnumKind::kRngAlgorithm: return "rng_algorithm";
    case EnumKind::kTranspose: return "transpose";
  }
  return "";
}

std::string_view EnumKeyword(EnumKind kind, uint8_t value) {
  auto words = Keywords(kind);
  return value < words.size() ? words[value] : std::string_view();
}

std::optional<uint8_t> EnumValue(EnumKind kind, std::string_view keyword) {
  auto words = Keywords(kind);
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i] == keyword) return static_cast<uint8_t>(i);
  }
  return std::nullopt;
}

std::string_view EnumAttr::keyword() const { return EnumKeyword(enum_kind_, value_); }

bool Attribute::Equals(const Attribute& other) const {
  if (kind_ != other.kind_) return false;
  switch (kind_) {
    case AttrKind::kUnit:
      return true;
    case AttrKind::kBool: return SameValue<BoolAttr>(*this, other);
    case AttrKind::kInteger: {
      auto* a = dyn_cast<IntegerAttr>();
      auto* b = other.dyn_cast<IntegerAttr>();
      return a->value() == b->value() && a->type() == b->type();
    }
    case AttrKind::kFloat: {
      auto* a = dyn_cast<FloatAttr>();
      auto* b = other.dyn_cast<FloatAttr>();
      // Bitwise, so NaN equals NaN and -0 differs from 0.
      return std::bit_cast<uint64_t>(a->value()) == std::bit_cast<uint64_t>(b->value()) &&
             a->type() == b->type();
    }
    case AttrKind::kString: return SameValue<StringAttr>(*this, other);
    case AttrKind::kType:
      return dyn_cast<TypeAttr>()->type() == other.dyn_cast<TypeAttr>()->type();
    case AttrKind::kArray: {
      auto a = dyn_cast<ArrayAttr>()->elements();
      auto b = other.dyn_cast<ArrayAttr>()->elements();
      return std::equal(a.begin(), a.end(), b.begin(), b.end(), AttrsEqual);
    }
    case AttrKind::kDenseArray: {
      auto* a = dyn_cast<DenseArrayAttr>();
      auto* b = other.dyn_cast<DenseArrayAttr>();
      return a->element_type() == b->element_type() &&
             std::ranges::equal(a->ints(), b->ints()) &&
             std::ranges::equal(a->floats(), b->floats());
    }
    case AttrKind::kDenseElements: {
      auto* a = dyn_cast<DenseElementsAttr>();
      auto* b = other.dyn_cast<DenseElementsAttr>();
      if (a->type() != b->type()) return false;
      if (a->is_splat() == b->is_splat()) return std::ranges::equal(a->raw_data(), b->raw_data());
      return a->ExpandedData() == b->ExpandedData();
    }
    case AttrKind::kDictionary: {
      auto a = dyn_cast<DictionaryAttr>()->entries();
      auto b = other.dyn_cast<DictionaryAttr>()->entries();
      return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                        [](const NamedAttribute& x, const NamedAttribute& y) {
                          return x.name == y.name && AttrsEqual(x.value, y.value);
                        });
    }
    case AttrKind::kSymbolRef:
      return std::ranges::equal(dyn_cast<SymbolRefAttr>()->path(),
                                other.dyn_cast<SymbolRefAttr>()->path());
    case AttrKind::kEnum: {
      auto* a = dyn_cast<EnumAttr>();
      auto* b = other.dyn_cast<EnumAttr>();
      return a->enum_kind() == b->enum_kind() && a->value() == b->value();
    }
    case AttrKind::kDotDimensionNumbers: return SameValue<DotDimensionNumbersAttr>(*this, other);
    case AttrKind::kGatherDimensionNumbers:
      return SameValue<GatherDimensionNumbersAttr>(*this, other);
    case AttrKind::kScatterDimensionNumbers:
      return SameValue<ScatterDimensionNumbersAttr>(*this, other);
    case AttrKind::kConvDimensionNumbers: return SameValue<ConvDimensionNumbersAttr>(*this, other);
    case AttrKind::kChannelHandle: return SameValue<ChannelHandleAttr>(*this, other);
    case AttrKind::kOutputOperandAlias: return SameValue<OutputOperandAliasAttr>(*this, other);
    case AttrKind::kDotAlgorithm: return SameValue<DotAlgorithmAttr>(*this, other);
    case AttrKind::kRaggedDotDimensionNumbers:
      return SameValue<RaggedDotDimensionNumbersAttr>(*this, other);
    case AttrKind::kOpaque:
      return dyn_cast<OpaqueAttr>()->text() == other.dyn_cast<OpaqueAttr>()->text();
  }
  return false;
}

// ------------------------------------------------------------ Dictionary

DictionaryAttr::DictionaryAttr(std::vector<NamedAttribute> entries)
    : Attribute(kKind), entries_(std::move(entries)) {
  std::stable_sort(entries_.begin(), entries_.end(),
                   [](const NamedAttribute& a, const NamedAttribute& b) { return a.name < b.name; });
}

const Attribute* DictionaryAttr::Get(std::string_view name) const {
  for (const NamedAttribute& e : entries_) {
    if (e.name == name) return e.value;
  }
  return nullptr;
}

// ---------------------------------------------------------------- Dense

std::vector<uint8_t> DenseElementsAttr::ExpandedData() const {
  if (!splat_) return data_;
  int64_t n = num_elements();
  if (n <= 0) return {};
  std::vector<uint8_t> out(static_cast<size_t>(n) * data_.size());
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(out.data() + static_cast<size_t>(i) * data_.size(), data_.data(), data_.size());
  }
  return out;
}

bool DenseElementsAttr::CopyTo(void* dst, size_t size) const {
  int64_t n = num_elements();
  size_t element_bytes = StorageBytes(storage_type());
  if (n < 0 || size != static_cast<size_t>(n) * element_bytes) return false;
  if (!splat_) {
    if (size) std::memcpy(dst, data_.data(), size);
    return true;
  }
  auto* out = static_cast<uint8_t*>(dst);
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(out + static_cast<size_t>(i) * element_bytes, data_.data(), element_bytes);
  }
  return true;
}

namespace {

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

}  // namespace

int64_t DenseElementsAttr::IntAt(int64_t i) const {
  size_t bytes = StorageBytes(storage_type());
  const uint8_t* p = data_.data() + (splat_ ? 0 : static_cast<size_t>(i) * bytes);
  switch (storage_type()) {
    case ElementType::kI1:
    case ElementType::kUI2:
    case ElementType::kUI4:
    case ElementType::kUI8: return *p;
    case ElementType::kSI2:
    case ElementType::kSI4:
    case ElementType::kSI8: return Load<int8_t>(p);
    case ElementType::kSI16: return Load<int16_t>(p);
    case ElementType::kUI16: return Load<uint16_t>(p);
    case ElementType::kSI32: return Load<int32_t>(p);
    case ElementType::kUI32: return Load<uint32_t>(p);
    case ElementType::kSI64:
    case ElementType::kUI64:
    case ElementType::kIndex: return Load<int64_t>(p);
    default: return static_cast<int64_t>(FloatAt(i));
  }
}

double DenseElementsAttr::FloatAt(int64_t i) const {
  ElementType type = storage_type();
  size_t bytes = StorageBytes(type);
  const uint8_t* p = data_.data() + (splat_ ? 0 : static_cast<size_t>(i) * bytes);
  switch (type) {
    case ElementType::kF32:
    case ElementType::kComplex64: return Load<float>(p);
    case ElementType::kF64:
    case ElementType::kComplex128: return Load<double>(p);
    case ElementType::kF16:
    case ElementType::kBF16: return DecodeFloat(type, Load<uint16_t>(p));
    default:
      if (IsFloat(type)) return DecodeFloat(type, *p);
      return static_cast<double>(IntAt(i));
  }
}

std::vector<int64_t> DenseElementsAttr::ToInt64Vector() const {
  int64_t n = num_elements();
  std::vector<int64_t> out;
  if (n <= 0) return out;
  out.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out.push_back(IntAt(i));
  return out;
}

}  // namespace berth::stablehlo
