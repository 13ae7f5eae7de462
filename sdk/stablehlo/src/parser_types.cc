// Parsing types: tensor<...>, tuple<...>, !stablehlo.token, element types,
// function types and aliases.
#include "src/parser_impl.hpp"

namespace berth::stablehlo::detail {
namespace {

struct KeywordType {
  std::string_view keyword;
  ElementType type;
};

constexpr KeywordType kElementKeywords[] = {
    {"f32", ElementType::kF32},
    {"i32", ElementType::kSI32},
    {"i64", ElementType::kSI64},
    {"i1", ElementType::kI1},
    {"f64", ElementType::kF64},
    {"f16", ElementType::kF16},
    {"bf16", ElementType::kBF16},
    {"i8", ElementType::kSI8},
    {"i16", ElementType::kSI16},
    {"ui8", ElementType::kUI8},
    {"ui16", ElementType::kUI16},
    {"ui32", ElementType::kUI32},
    {"ui64", ElementType::kUI64},
    {"i2", ElementType::kSI2},
    {"i4", ElementType::kSI4},
    {"ui2", ElementType::kUI2},
    {"ui4", ElementType::kUI4},
    {"si2", ElementType::kSI2},
    {"si4", ElementType::kSI4},
    {"si8", ElementType::kSI8},
    {"si16", ElementType::kSI16},
    {"si32", ElementType::kSI32},
    {"si64", ElementType::kSI64},
    {"f4E2M1FN", ElementType::kF4E2M1FN},
    {"f6E2M3FN", ElementType::kF6E2M3FN},
    {"f6E3M2FN", ElementType::kF6E3M2FN},
    {"f8E3M4", ElementType::kF8E3M4},
    {"f8E4M3", ElementType::kF8E4M3},
    {"f8E4M3FN", ElementType::kF8E4M3FN},
    {"f8E4M3FNUZ", ElementType::kF8E4M3FNUZ},
    {"f8E4M3B11FNUZ", ElementType::kF8E4M3B11FNUZ},
    {"f8E5M2", ElementType::kF8E5M2},
    {"f8E5M2FNUZ", ElementType::kF8E5M2FNUZ},
    {"f8E8M0FNU", ElementType::kF8E8M0FNU},
    {"tf32", ElementType::kTF32},
    {"index", ElementType::kIndex},
};

// Product of static dimensions must stay well inside int64.
constexpr int64_t kMaxElements = kMaxTensorElements;

}  // namespace

bool ElementTypeFromKeyword(std::string_view keyword, ElementType* out) {
  for (const KeywordType& k : kElementKeywords) {
    if (k.keyword == keyword) {
      *out = k.type;
      return true;
    }
  }
  return false;
}

// An element type at pos_: a keyword, complex<f32|f64>, or a dialect type
// such as !quant.uniform<...> (kept as text in `opaque`).
Status Parser::ParseElementType(ElementType* out, std::string* opaque) {
  SkipWs();
  size_t start = pos_;
  if (Peek() == '!') {
    ++pos_;
    std::string_view name = LexSuffixId();
    if (name.empty()) return ErrorAt(start, "expected a dialect type name after '!'");
    if (Peek() == '<') {
      size_t end;
      BERTH_RETURN_IF_ERROR(ScanBalanced(&end));
      pos_ = end;
    }
    *out = ElementType::kOpaque;
    *opaque = std::string(src_.substr(start, pos_ - start));
    return OkStatus();
  }
  std::string_view keyword = LexBareId();
  if (keyword.empty()) return ErrorAt(start, "expected an element type");
  if (keyword == "complex") {
    BERTH_RETURN_IF_ERROR(Expect('<', "after 'complex'"));
    size_t inner = pos_;
    std::string_view part = LexBareId();
    if (part == "f32") {
      *out = ElementType::kComplex64;
    } else if (part == "f64") {
      *out = ElementType::kComplex128;
    } else {
      return ErrorAt(inner, "complex types must have f32 or f64 parts");
    }
    return Expect('>', "to close complex<...>");
  }
  if (!ElementTypeFromKeyword(keyword, out)) {
    return ErrorAt(start, "unknown element type '" + std::string(keyword) + "'");
  }
  return OkStatus();
}

Status Parser::ParseType(Type* out) {
  char c = Peek();
  size_t start = pos_;
  if (c == '(') {

    BERTH_RETURN_IF_ERROR(EnterNesting());
    struct Leave {
      Parser* p;
      ~Leave() { p->LeaveNesting(); }
    } leave{this};
    std::vector<Type> inputs;
    std::vector<Type> results;
    BERTH_RETURN_IF_ERROR(ParseParenTypeList(&inputs));
    BERTH_RETURN_IF_ERROR(ExpectArrow("in a function type"));
    BERTH_RETURN_IF_ERROR(ParseFunctionResults(&results));
    *out = b_.types().Function(inputs, results);
    return OkStatus();
  }
  if (c == '!') {
    ++pos_;
    std::string_view name = LexSuffixId();
    if (name == "stablehlo.token" || name == "mhlo.token") {
      *out = b_.types().Token();
      return OkStatus();
    }
    if (name.empty()) return ErrorAt(start, "expected a type name after '!'");
    if (Peek() == '<') {
      size_t end;
      BERTH_RETURN_IF_ERROR(ScanBalanced(&end));
      pos_ = end;
      *out = b_.types().Opaque(src_.substr(start, pos_ - start));
      return OkStatus();
    }
    auto it = type_aliases_.find(std::string(name));
    if (it != type_aliases_.end()) {
      *out = it->second;
      return OkStatus();
    }
    return ErrorAt(start, "unknown type '!" + std::string(name) + "'");
  }
  std::string_view keyword = PeekBareId();
  if (keyword == "tensor") {
    // Identical spellings are common; look the text up before parsing it.
    pos_ += keyword.size();
    if (Peek() != '<') return Error("expected '<' after 'tensor'");
    size_t end;
    BERTH_RETURN_IF_ERROR(ScanBalanced(&end));
    std::string_view text = src_.substr(start, end - start);
    auto cached = type_cache_.find(text);
    if (cached != type_cache_.end()) {
      pos_ = end;
      *out = cached->second;
      return OkStatus();
    }
    ++pos_;  // '<'
    std::vector<int64_t> shape;
    int64_t elements = 1;
    while (true) {
      char d = Peek();
      if (d == '*') return Error("unranked tensors are not supported");
      if (d == '?') {
        ++pos_;
        shape.push_back(kDynamic);
      } else if (d >= '0' && d <= '9') {
        size_t dim_pos = pos_;
        size_t e = pos_;
        while (e < src_.size() && src_[e] >= '0' && src_[e] <= '9') ++e;
        uint64_t v;
        if (!ParseUnsigned(src_.substr(pos_, e - pos_), false, &v) ||
            v > static_cast<uint64_t>(kMaxElements)) {
          return ErrorAt(dim_pos, "tensor dimension is too large");
        }
        pos_ = e;
        shape.push_back(static_cast<int64_t>(v));
        if (v != 0 && elements > kMaxElements / static_cast<int64_t>(v)) {
          return ErrorAt(dim_pos, "tensor type has too many elements");
        }
        elements *= static_cast<int64_t>(v);
      } else {
        break;
      }
      SkipWs();
      if (PeekAt(0) != 'x') return Error("expected 'x' after a tensor dimension");
      ++pos_;
    }
    ElementType element;
    std::string opaque;
    BERTH_RETURN_IF_ERROR(ParseElementType(&element, &opaque));
    std::vector<int64_t> bounds;
    if (TryConsume(',')) {
      // Encoding: bounds of bounded-dynamic dimensions; others are ignored.
      size_t enc = pos_;
      if (Peek() != '#') return Error("expected a tensor encoding attribute");
      ++pos_;
      std::string_view name = LexSuffixId();
      if (Peek() != '<') return ErrorAt(enc, "expected '<' in a tensor encoding");
      if (name == "stablehlo.bounds" || name == "stablehlo.type_extensions") {
        ++pos_;
        if (name == "stablehlo.type_extensions") {
          BERTH_RETURN_IF_ERROR(ExpectKeyword("bounds", "in #stablehlo.type_extensions"));
          BERTH_RETURN_IF_ERROR(Expect('=', "after 'bounds'"));
          BERTH_RETURN_IF_ERROR(Expect('[', "for bounds"));
        }
        char close = name == "stablehlo.bounds" ? '>' : ']';
        if (!TryConsume(close)) {
          do {
            if (TryConsume('?')) {
              bounds.push_back(kDynamic);
            } else {
              int64_t v;
              BERTH_RETURN_IF_ERROR(LexInt64(&v, "in tensor bounds"));
              bounds.push_back(v);
            }
          } while (TryConsume(','));
          BERTH_RETURN_IF_ERROR(Expect(close, "to close tensor bounds"));
        }
        if (close == ']') {
          // A trailing comma after the last field, as in the other structured attributes.
          TryConsume(',');
          BERTH_RETURN_IF_ERROR(Expect('>', "to close the encoding"));
        }
        if (bounds.size() != shape.size()) {
          return ErrorAt(enc, "tensor bounds must have one entry per dimension");
        }
      } else {
        size_t e;
        BERTH_RETURN_IF_ERROR(ScanBalanced(&e));
        pos_ = e;
      }
    }
    BERTH_RETURN_IF_ERROR(Expect('>', "to close the tensor type"));
    *out = b_.types().Tensor(element, shape, bounds, opaque);
    type_cache_.emplace(text, *out);
    return OkStatus();
  }
  if (keyword == "tuple") {
    pos_ += keyword.size();
    BERTH_RETURN_IF_ERROR(EnterNesting());
    struct Leave {
      Parser* p;
      ~Leave() { p->LeaveNesting(); }
    } leave{this};
    BERTH_RETURN_IF_ERROR(Expect('<', "after 'tuple'"));
    std::vector<Type> types;
    if (!TryConsume('>')) {
      BERTH_RETURN_IF_ERROR(ParseTypeList(&types));
      BERTH_RETURN_IF_ERROR(Expect('>', "to close the tuple type"));
    }
    *out = b_.types().Tuple(types);
    return OkStatus();
  }
  if (keyword == "none") {
    pos_ += keyword.size();
    *out = b_.types().Opaque("none");
    return OkStatus();
  }
  if (keyword.empty()) return Error("expected a type");
  ElementType element;
  std::string opaque;
  BERTH_RETURN_IF_ERROR(ParseElementType(&element, &opaque));
  *out = b_.types().Element(element);
  return OkStatus();
}

Status Parser::ParseTypeList(std::vector<Type>* out) {
  do {
    Type t;
    BERTH_RETURN_IF_ERROR(ParseType(&t));
    out->push_back(t);
  } while (TryConsume(','));
  return OkStatus();
}

Status Parser::ParseParenTypeList(std::vector<Type>* out) {
  BERTH_RETURN_IF_ERROR(Expect('(', "to start a type list"));
  if (TryConsume(')')) return OkStatus();
  BERTH_RETURN_IF_ERROR(ParseTypeList(out));
  return Expect(')', "to close the type list");
}

Status Parser::ParseFunctionResults(std::vector<Type>* out) {
  if (Peek() == '(') {
    // `(T1, T2)`, or a single function type `(A) -> B` (rare).
    size_t save = pos_;
    std::vector<Type> list;
    BERTH_RETURN_IF_ERROR(ParseParenTypeList(&list));
    if (Peek() == '-' && PeekAt(1) == '>') {
      pos_ = save;
      Type t;
      BERTH_RETURN_IF_ERROR(ParseType(&t));
      out->push_back(t);
      return OkStatus();
    }
    out->insert(out->end(), list.begin(), list.end());
    return OkStatus();
  }
  Type t;
  BERTH_RETURN_IF_ERROR(ParseType(&t));
  out->push_back(t);
  return OkStatus();
}

}  // namespace berth::stablehlo::detail
