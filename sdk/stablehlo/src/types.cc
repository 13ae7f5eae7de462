// Element type facts, interned value types and their spelling.
#include "berth/stablehlo/types.hpp"

#include <cstring>

#include "src/storage.hpp"

namespace berth::stablehlo {

std::string_view ElementTypeName(ElementType type) {
  switch (type) {
    case ElementType::kI1: return "i1";
    case ElementType::kSI2: return "i2";
    case ElementType::kSI4: return "i4";
    case ElementType::kSI8: return "i8";
    case ElementType::kSI16: return "i16";
    case ElementType::kSI32: return "i32";
    case ElementType::kSI64: return "i64";
    case ElementType::kUI2: return "ui2";
    case ElementType::kUI4: return "ui4";
    case ElementType::kUI8: return "ui8";
    case ElementType::kUI16: return "ui16";
    case ElementType::kUI32: return "ui32";
    case ElementType::kUI64: return "ui64";
    case ElementType::kF4E2M1FN: return "f4E2M1FN";
    case ElementType::kF6E2M3FN: return "f6E2M3FN";
    case ElementType::kF6E3M2FN: return "f6E3M2FN";
    case ElementType::kF8E3M4: return "f8E3M4";
    case ElementType::kF8E4M3: return "f8E4M3";
    case ElementType::kF8E4M3FN: return "f8E4M3FN";
    case ElementType::kF8E4M3FNUZ: return "f8E4M3FNUZ";
    case ElementType::kF8E4M3B11FNUZ: return "f8E4M3B11FNUZ";
    case ElementType::kF8E5M2: return "f8E5M2";
    case ElementType::kF8E5M2FNUZ: return "f8E5M2FNUZ";
    case ElementType::kF8E8M0FNU: return "f8E8M0FNU";
    case ElementType::kBF16: return "bf16";
    case ElementType::kF16: return "f16";
    case ElementType::kF32: return "f32";
    case ElementType::kF64: return "f64";
    case ElementType::kComplex64: return "complex<f32>";
    case ElementType::kComplex128: return "complex<f64>";
    case ElementType::kTF32: return "tf32";
    case ElementType::kIndex: return "index";
    case ElementType::kOpaque: return "<opaque>";
  }
  return "<invalid>";
}

int BitWidth(ElementType type) {
  switch (type) {
    case ElementType::kI1: return 1;
    case ElementType::kSI2:
    case ElementType::kUI2: return 2;
    case ElementType::kSI4:
    case ElementType::kUI4:
    case ElementType::kF4E2M1FN: return 4;
    case ElementType::kF6E2M3FN:
    case ElementType::kF6E3M2FN: return 6;
    case ElementType::kSI8:
    case ElementType::kUI8:
    case ElementType::kF8E3M4:
    case ElementType::kF8E4M3:
    case ElementType::kF8E4M3FN:
    case ElementType::kF8E4M3FNUZ:
    case ElementType::kF8E4M3B11FNUZ:
    case ElementType::kF8E5M2:
    case ElementType::kF8E5M2FNUZ:
    case ElementType::kF8E8M0FNU: return 8;
    case ElementType::kSI16:
    case ElementType::kUI16:
    case ElementType::kBF16:
    case ElementType::kF16: return 16;
    case ElementType::kTF32: return 19;
    case ElementType::kSI32:
    case ElementType::kUI32:
    case ElementType::kF32: return 32;
    case ElementType::kSI64:
    case ElementType::kUI64:
    case ElementType::kF64:
    case ElementType::kComplex64:
    case ElementType::kIndex: return 64;
    case ElementType::kComplex128: return 128;
    case ElementType::kOpaque: return 0;
  }
  return 0;
}

size_t StorageBytes(ElementType type) {
  switch (type) {
    case ElementType::kTF32: return 4;
    case ElementType::kOpaque: return 0;
    default: break;
  }
  int bits = BitWidth(type);
  return bits <= 8 ? 1 : static_cast<size_t>(bits / 8);
}

bool IsBool(ElementType type) { return type == ElementType::kI1; }

bool IsSignedInteger(ElementType type) {
  return type >= ElementType::kSI2 && type <= ElementType::kSI64;
}

bool IsUnsignedInteger(ElementType type) {
  return type >= ElementType::kUI2 && type <= ElementType::kUI64;
}

bool IsInteger(ElementType type) { return IsSignedInteger(type) || IsUnsignedInteger(type); }

bool IsFloat(ElementType type) {
  return (type >= ElementType::kF4E2M1FN && type <= ElementType::kF64) ||
         type == ElementType::kTF32;
}

bool IsComplex(ElementType type) {
  return type == ElementType::kComplex64 || type == ElementType::kComplex128;
}

ElementType ComplexComponentType(ElementType type) {
  if (type == ElementType::kComplex64) return ElementType::kF32;
  if (type == ElementType::kComplex128) return ElementType::kF64;
  return type;
}

// ------------------------------------------------------------------ Type

TypeKind Type::kind() const { return impl_->kind; }

ElementType Type::element_type() const { return impl_->element; }

std::span<const int64_t> Type::shape() const {
  if (!impl_) return {};
  return impl_->shape;
}

bool Type::HasStaticShape() const {
  for (int64_t d : shape()) {
    if (d == kDynamic) return false;
  }
  return true;
}

int64_t Type::NumElements() const {
  int64_t n = 1;
  for (int64_t d : shape()) {
    if (d == kDynamic) return -1;
    n *= d;
  }
  return n;
}

std::span<const int64_t> Type::bounds() const {
  if (!impl_) return {};
  return impl_->bounds;
}

bool Type::IsQuantized() const {
  return impl_ && impl_->kind == TypeKind::kTensor && impl_->element == ElementType::kOpaque;
}

std::span<const Type> Type::types() const {
  if (!impl_) return {};
  return impl_->types;
}

std::span<const Type> Type::inputs() const {
  if (!impl_ || impl_->kind != TypeKind::kFunction) return {};
  return std::span<const Type>(impl_->types).first(impl_->num_inputs);
}

std::span<const Type> Type::results() const {
  if (!impl_ || impl_->kind != TypeKind::kFunction) return {};
  return std::span<const Type>(impl_->types).subspan(impl_->num_inputs);
}

std::string_view Type::opaque_text() const {
  if (!impl_) return {};
  return impl_->opaque;
}

namespace {

void AppendType(std::string& out, Type type);

void AppendTypeList(std::string& out, std::span<const Type> types) {
  for (size_t i = 0; i < types.size(); ++i) {
    if (i) out += ", ";
    AppendType(out, types[i]);
  }
}

void AppendDim(std::string& out, int64_t d) {
  if (d == kDynamic) {
    out += '?';
  } else {
    out += std::to_string(d);
  }
}

void AppendType(std::string& out, Type type) {
  if (!type) {
    out += "<<null type>>";
    return;
  }
  const detail::TypeStorage& s = *type.impl();
  switch (s.kind) {
    case TypeKind::kTensor:
      out += "tensor<";
      for (int64_t d : s.shape) {
        AppendDim(out, d);
        out += 'x';
      }
      if (s.element == ElementType::kOpaque) {
        out += s.opaque;
      } else {
        out += ElementTypeName(s.element);
      }
      if (!s.bounds.empty()) {
        out += ", #stablehlo.bounds<";
        for (size_t i = 0; i < s.bounds.size(); ++i) {
          if (i) out += ", ";
          AppendDim(out, s.bounds[i]);
        }
        out += '>';
      }
      out += '>';
      return;
    case TypeKind::kToken:
      out += "!stablehlo.token";
      return;
    case TypeKind::kTuple:
      out += "tuple<";
      AppendTypeList(out, s.types);
      out += '>';
      return;
    case TypeKind::kElement:
      out += ElementTypeName(s.element);
      return;
    case TypeKind::kFunction: {
      out += '(';
      AppendTypeList(out, type.inputs());
      out += ") -> ";
      std::span<const Type> results = type.results();
      if (results.size() == 1 && !results[0].IsFunction()) {
        AppendType(out, results[0]);
      } else {
        out += '(';
        AppendTypeList(out, results);
        out += ')';
      }
      return;
    }
    case TypeKind::kOpaque:
      out += s.opaque;
      return;
  }
}

}  // namespace

std::string Type::ToString() const {
  std::string out;
  AppendType(out, *this);
  return out;
}

bool operator==(Type a, Type b) {
  if (a.impl_ == b.impl_) return true;
  if (!a.impl_ || !b.impl_) return false;
  const detail::TypeStorage& x = *a.impl_;
  const detail::TypeStorage& y = *b.impl_;
  if (x.kind != y.kind || x.element != y.element || x.num_inputs != y.num_inputs ||
      x.shape != y.shape || x.bounds != y.bounds || x.opaque != y.opaque ||
      x.types.size() != y.types.size()) {
    return false;
  }
  for (size_t i = 0; i < x.types.size(); ++i) {
    if (x.types[i] != y.types[i]) return false;
  }
  return true;
}

// ----------------------------------------------------------- TypeContext

namespace detail {

namespace {

void AppendRaw(std::string& key, const void* data, size_t size) {
  key.append(static_cast<const char*>(data), size);
}

}  // namespace

Type TypeContext::Intern(std::string key, TypeStorage storage) {
  auto it = interned_.find(key);
  if (it != interned_.end()) return Type(it->second.get());
  auto owned = std::make_unique<TypeStorage>(std::move(storage));
  Type type(owned.get());
  interned_.emplace(std::move(key), std::move(owned));
  return type;
}

Type TypeContext::Tensor(ElementType element, std::span<const int64_t> shape,
                         std::span<const int64_t> bounds, std::string_view opaque_element) {
  std::string key;
  key.reserve(8 + 8 * (shape.size() + bounds.size()) + opaque_element.size());
  key += static_cast<char>(TypeKind::kTensor);
  key += static_cast<char>(element);
  uint32_t rank = static_cast<uint32_t>(shape.size());
  AppendRaw(key, &rank, sizeof(rank));
  AppendRaw(key, shape.data(), shape.size_bytes());
  uint32_t nbounds = static_cast<uint32_t>(bounds.size());
  AppendRaw(key, &nbounds, sizeof(nbounds));
  AppendRaw(key, bounds.data(), bounds.size_bytes());
  key += opaque_element;
  TypeStorage s;
  s.kind = TypeKind::kTensor;
  s.element = element;
  s.shape.assign(shape.begin(), shape.end());
  s.bounds.assign(bounds.begin(), bounds.end());
  s.opaque = std::string(opaque_element);
  return Intern(std::move(key), std::move(s));
}

Type TypeContext::Token() {
  TypeStorage s;
  s.kind = TypeKind::kToken;
  return Intern(std::string(1, static_cast<char>(TypeKind::kToken)), std::move(s));
}

Type TypeContext::Tuple(std::span<const Type> types) {
  std::string key(1, static_cast<char>(TypeKind::kTuple));
  for (Type t : types) {
    const void* p = t.impl();
    AppendRaw(key, &p, sizeof(p));
  }
  TypeStorage s;
  s.kind = TypeKind::kTuple;
  s.types.assign(types.begin(), types.end());
  return Intern(std::move(key), std::move(s));
}

Type TypeContext::Element(ElementType element) {
  std::string key;
  key += static_cast<char>(TypeKind::kElement);
  key += static_cast<char>(element);
  TypeStorage s;
  s.kind = TypeKind::kElement;
  s.element = element;
  return Intern(std::move(key), std::move(s));
}

Type TypeContext::Function(std::span<const Type> inputs, std::span<const Type> results) {
  std::string key(1, static_cast<char>(TypeKind::kFunction));
  uint32_t n = static_cast<uint32_t>(inputs.size());
  AppendRaw(key, &n, sizeof(n));
  TypeStorage s;
  s.kind = TypeKind::kFunction;
  s.num_inputs = inputs.size();
  for (Type t : inputs) {
    const void* p = t.impl();
    AppendRaw(key, &p, sizeof(p));
    s.types.push_back(t);
  }
  for (Type t : results) {
    const void* p = t.impl();
    AppendRaw(key, &p, sizeof(p));
    s.types.push_back(t);
  }
  return Intern(std::move(key), std::move(s));
}

Type TypeContext::Opaque(std::string_view text) {
  std::string key(1, static_cast<char>(TypeKind::kOpaque));
  key += text;
  TypeStorage s;
  s.kind = TypeKind::kOpaque;
  s.opaque = std::string(text);
  return Intern(std::move(key), std::move(s));
}

// ------------------------------------------------------------ StringArena

std::string_view StringArena::Save(std::string_view text) {
  if (text.empty()) return {};
  if (text.size() > 4096) {
    auto block = std::make_unique<char[]>(text.size());
    std::memcpy(block.get(), text.data(), text.size());
    std::string_view saved(block.get(), text.size());
    // Keep the current block as the one to fill: insert before it.
    blocks_.insert(blocks_.end() - (blocks_.empty() ? 0 : 1), std::move(block));
    return saved;
  }
  if (blocks_.empty() || used_ + text.size() > capacity_) {
    capacity_ = 64 * 1024;
    blocks_.push_back(std::make_unique<char[]>(capacity_));
    used_ = 0;
  }
  char* dst = blocks_.back().get() + used_;
  std::memcpy(dst, text.data(), text.size());
  used_ += text.size();
  return std::string_view(dst, text.size());
}

}  // namespace detail

berth::ElementType ToBufferType(ElementType type) {
  using B = berth::ElementType;
  switch (type) {
    case ElementType::kI1: return B::kPred;
    case ElementType::kSI2: return B::kS2;
    case ElementType::kSI4: return B::kS4;
    case ElementType::kSI8: return B::kS8;
    case ElementType::kSI16: return B::kS16;
    case ElementType::kSI32: return B::kS32;
    case ElementType::kSI64: return B::kS64;
    case ElementType::kUI2: return B::kU2;
    case ElementType::kUI4: return B::kU4;
    case ElementType::kUI8: return B::kU8;
    case ElementType::kUI16: return B::kU16;
    case ElementType::kUI32: return B::kU32;
    case ElementType::kUI64: return B::kU64;
    case ElementType::kF16: return B::kF16;
    case ElementType::kBF16: return B::kBF16;
    case ElementType::kF32: return B::kF32;
    case ElementType::kF64: return B::kF64;
    case ElementType::kComplex64: return B::kC64;
    case ElementType::kComplex128: return B::kC128;
    case ElementType::kF8E5M2: return B::kF8E5M2;
    case ElementType::kF8E4M3FN: return B::kF8E4M3FN;
    case ElementType::kF8E4M3B11FNUZ: return B::kF8E4M3B11FNUZ;
    case ElementType::kF8E5M2FNUZ: return B::kF8E5M2FNUZ;
    case ElementType::kF8E4M3FNUZ: return B::kF8E4M3FNUZ;
    case ElementType::kF8E4M3: return B::kF8E4M3;
    case ElementType::kF8E3M4: return B::kF8E3M4;
    case ElementType::kF8E8M0FNU: return B::kF8E8M0FNU;
    case ElementType::kF4E2M1FN: return B::kF4E2M1FN;
    case ElementType::kF6E2M3FN: return B::kF6E2M3FN;
    case ElementType::kF6E3M2FN: return B::kF6E3M2FN;
    default: return B::kInvalid;
  }
}

bool FromBufferType(berth::ElementType type, ElementType* out) {
  for (int i = 0; i <= static_cast<int>(ElementType::kComplex128); ++i) {
    ElementType candidate = static_cast<ElementType>(i);
    if (ToBufferType(candidate) == type) {
      *out = candidate;
      return true;
    }
  }
  return false;
}

}  // namespace berth::stablehlo
