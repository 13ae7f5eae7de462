// Parsing dense<...> literals straight into the contiguous little-endian
// buffer of a DenseElementsAttr (see attributes.hpp for the layout).
#include <charconv>
#include <cmath>
#include <algorithm>
#include <cstring>

#include "src/parser_impl.hpp"

namespace berth::stablehlo::detail {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

int Hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Reads the scalars of a dense literal; positions are offsets into `src`.
class DenseReader {
 public:
  DenseReader(std::string_view src, size_t begin, size_t end, ElementType type, uint8_t* out)
      : src_(src), p_(begin), end_(end), type_(type), out_(out) {}

  size_t pos() const { return p_; }
  void set_pos(size_t p) { p_ = p; }
  const std::string& error() const { return error_; }
  size_t error_pos() const { return error_pos_; }

  void SkipSpace() {
    while (p_ < end_ && IsSpace(src_[p_])) ++p_;
  }
  char Peek() {
    SkipSpace();
    return p_ < end_ ? src_[p_] : '\0';
  }

  // Writes one element (a complex pair for complex types) at `out_ + offset`.
  bool Element(size_t offset) {
    SkipSpace();
    if (IsComplex(type_)) {
      ElementType part = ComplexComponentType(type_);
      size_t bytes = StorageBytes(part);
      if (Peek() != '(') return Fail("expected '(' to start a complex value");
      ++p_;
      if (!Scalar(part, offset)) return false;
      if (Peek() != ',') return Fail("expected ',' in a complex value");
      ++p_;
      if (!Scalar(part, offset + bytes)) return false;
      if (Peek() != ')') return Fail("expected ')' to close a complex value");
      ++p_;
      return true;
    }
    return Scalar(type_, offset);
  }

  bool Fail(std::string message) {
    if (error_.empty()) {
      error_ = std::move(message);
      error_pos_ = p_;
    }
    return false;
  }

 private:
  bool Scalar(ElementType type, size_t offset) {
    SkipSpace();
    size_t start = p_;
    bool negative = false;
    if (p_ < end_ && (src_[p_] == '-' || src_[p_] == '+')) {
      negative = src_[p_] == '-';
      ++p_;
    }
    if (p_ >= end_) return Fail("expected a value in the dense literal");
    char c = src_[p_];
    if (c >= 'a' && c <= 'z') {
      size_t w = p_;
      while (p_ < end_ && ((src_[p_] >= 'a' && src_[p_] <= 'z'))) ++p_;
      std::string_view word = src_.substr(w, p_ - w);
      if (word == "true" || word == "false") {
        if (negative) return Fail("unexpected '-' before a boolean");
        if (IsFloat(type)) return Fail("expected a float value, found a boolean");
        return StoreInt(type, word == "true" ? 1 : 0, false, offset, start);
      }
      if ((word == "inf" || word == "nan") && IsFloat(type)) {
        double v = word == "inf" ? INFINITY : NAN;
        return StoreFloat(type, negative ? -v : v, offset);
      }
      p_ = start;
      return Fail("unexpected '" + std::string(word) + "' in a dense literal");
    }
    if (c < '0' || c > '9') return Fail("expected a number in the dense literal");
    // Hexadecimal: a bit pattern for floats, a value for integers.
    if (c == '0' && p_ + 1 < end_ && (src_[p_ + 1] == 'x' || src_[p_ + 1] == 'X')) {
      size_t d = p_ + 2;
      size_t e = d;
      while (e < end_ && Hex(src_[e]) >= 0) ++e;
      uint64_t v;
      if (e == d || !ParseUnsigned(src_.substr(d, e - d), true, &v)) {
        return Fail("invalid hexadecimal literal");
      }
      p_ = e;
      if (IsFloat(type)) {
        if (negative) return Fail("hexadecimal float bit patterns cannot be negative");
        int bits = BitWidth(type);
        if (bits < 64 && (v >> bits) != 0) {
          p_ = start;
          return Fail("hexadecimal float constant is out of range for " +
                      std::string(ElementTypeName(type)));
        }
        StoreBits(type, v, offset);
        return true;
      }
      return StoreInt(type, v, negative, offset, start);
    }
    size_t digits_begin = p_;
    while (p_ < end_ && src_[p_] >= '0' && src_[p_] <= '9') ++p_;
    size_t digits_end = p_;
    bool is_float = false;
    if (p_ < end_ && src_[p_] == '.') {
      is_float = true;
      ++p_;
      while (p_ < end_ && src_[p_] >= '0' && src_[p_] <= '9') ++p_;
    }
    if (p_ < end_ && (src_[p_] == 'e' || src_[p_] == 'E')) {
      size_t q = p_ + 1;
      if (q < end_ && (src_[q] == '+' || src_[q] == '-')) ++q;
      if (q < end_ && src_[q] >= '0' && src_[q] <= '9') {
        is_float = true;
        p_ = q;
        while (p_ < end_ && src_[p_] >= '0' && src_[p_] <= '9') ++p_;
      }
    }
    if (IsFloat(type)) {
      const char* b = src_.data() + digits_begin;
      const char* e = src_.data() + p_;
      if (type == ElementType::kF32) {
        float f;
        auto r = std::from_chars(b, e, f);
        if (r.ptr != e) return Fail("invalid float literal");
        if (r.ec == std::errc::result_out_of_range) f = ParseOutOfRange<float>(b, e);
        StoreFloat32(negative ? -f : f, offset);
        return true;
      }
      double v;
      auto r = std::from_chars(b, e, v);
      if (r.ptr != e) return Fail("invalid float literal");
      if (r.ec == std::errc::result_out_of_range) v = ParseOutOfRange<double>(b, e);
      return StoreFloat(type, negative ? -v : v, offset);
    }
    if (is_float) {
      p_ = start;
      return Fail("expected an integer value for " + std::string(ElementTypeName(type)) +
                  ", found a float");
    }
    uint64_t v;
    if (!ParseUnsigned(src_.substr(digits_begin, digits_end - digits_begin), false, &v)) {
      p_ = start;
      return Fail("integer literal is out of range");
    }
    return StoreInt(type, v, negative, offset, start);
  }

  // from_chars reports overflow and underflow alike; tell them apart.
  template <typename T>
  static T ParseOutOfRange(const char* b, const char* e) {
    // An exponent sign of '-' or a leading "0." means the value underflowed.
    for (const char* q = b; q < e; ++q) {
      if ((*q == 'e' || *q == 'E') && q + 1 < e) return q[1] == '-' ? T(0) : T(INFINITY);
    }
    return T(INFINITY);
  }

  bool StoreInt(ElementType type, uint64_t magnitude, bool negative, size_t offset, size_t start) {
    int bits = type == ElementType::kIndex ? 64 : BitWidth(type);
    bool ok;
    if (type == ElementType::kI1) {
      ok = magnitude <= 1;
    } else if (IsUnsignedInteger(type)) {
      ok = (!negative || magnitude == 0) && (bits >= 64 || magnitude <= (uint64_t{1} << bits) - 1);
    } else if (negative) {
      ok = magnitude <= (uint64_t{1} << (bits - 1));
    } else {
      ok = bits >= 64 || magnitude <= (uint64_t{1} << bits) - 1;
    }
    if (!ok) {
      p_ = start;
      return Fail("integer value is out of range for " + std::string(ElementTypeName(type)));
    }
    uint64_t v = negative ? 0 - magnitude : magnitude;
    uint8_t* dst = out_ + offset;
    switch (type) {
      case ElementType::kI1:
        *dst = magnitude ? 1 : 0;
        return true;
      case ElementType::kSI2:
      case ElementType::kSI4: {
        // Sign-extend from the type's width.
        int shift = 64 - bits;
        int64_t s = static_cast<int64_t>(v << shift) >> shift;
        *dst = static_cast<uint8_t>(static_cast<int8_t>(s));
        return true;
      }
      case ElementType::kUI2:
      case ElementType::kUI4:
        *dst = static_cast<uint8_t>(v & ((uint64_t{1} << bits) - 1));
        return true;
      default: {
        size_t bytes = StorageBytes(type);
        uint64_t le = v;
        std::memcpy(dst, &le, bytes);  // little-endian host
        return true;
      }
    }
  }

  bool StoreFloat(ElementType type, double v, size_t offset) {
    if (type == ElementType::kF32) {
      StoreFloat32(static_cast<float>(v), offset);
      return true;
    }
    if (type == ElementType::kF64) {
      std::memcpy(out_ + offset, &v, sizeof(double));
      return true;
    }
    StoreBits(type, EncodeFloat(type, v), offset);
    return true;
  }

  void StoreFloat32(float f, size_t offset) { std::memcpy(out_ + offset, &f, sizeof(float)); }

  void StoreBits(ElementType type, uint64_t bits, size_t offset) {
    std::memcpy(out_ + offset, &bits, StorageBytes(type));
  }

  std::string_view src_;
  size_t p_;
  size_t end_;
  ElementType type_;
  uint8_t* out_;
  std::string error_;
  size_t error_pos_ = 0;
};

}  // namespace

Status Parser::ParseDense(const Attribute** out) {
  size_t start = pos_;
  BERTH_RETURN_IF_ERROR(Expect('<', "after 'dense'"));
  size_t begin = pos_;
  // The literal ends at the first '>' outside a string.
  size_t end = begin;
  const size_t n = src_.size();
  bool in_string = false;
  for (; end < n; ++end) {
    char c = src_[end];
    if (in_string) {
      if (c == '\\') {
        ++end;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '>') {
      break;
    }
  }
  if (end >= n) return ErrorAt(start, "unterminated dense literal");
  pos_ = end + 1;
  if (Peek() != ':') return Error("expected ':' and a tensor type after a dense literal");
  ++pos_;
  SkipWs();
  size_t type_pos = pos_;
  Type type;
  BERTH_RETURN_IF_ERROR(ParseType(&type));
  if (!type.IsTensor()) return ErrorAt(type_pos, "a dense literal needs a tensor type");
  if (!type.HasStaticShape()) return ErrorAt(type_pos, "a dense literal needs a static shape");
  ElementType element = type.element_type();
  if (type.IsQuantized()) {
    // !quant.uniform<i8:f32, ...> or <i8<-127:127>:f32, ...>: the literal
    // holds storage integers.
    std::string_view text = type.opaque_text();
    size_t open = text.find('<');
    size_t stop = open == std::string_view::npos ? open : text.find_first_of(":<", open + 1);
    if (!text.starts_with("!quant.") || stop == std::string_view::npos ||
        !ElementTypeFromKeyword(text.substr(open + 1, stop - open - 1), &element) ||
        !IsInteger(element)) {
      return ErrorAt(type_pos, "unsupported quantized element type in a dense literal");
    }
  }
  if (!(IsBool(element) || IsInteger(element) || IsFloat(element) || IsComplex(element) ||
        element == ElementType::kIndex)) {
    return ErrorAt(type_pos, "unsupported element type in a dense literal");
  }
  const size_t bytes = StorageBytes(element);
  const int64_t count = type.NumElements();
  const size_t after = pos_;

  DenseReader probe(src_, begin, end, element, nullptr);
  char first = probe.Peek();
  // dense<>: no elements.
  if (first == '\0') {
    if (count != 0) return ErrorAt(start, "dense<> needs a tensor type without elements");
    *out = b_.Make<DenseElementsAttr>(type, false, std::vector<uint8_t>(), element);
    return OkStatus();
  }
  // dense<"0x...">: the raw little-endian bytes of all elements (or one).
  if (first == '"') {
    pos_ = probe.pos();
    std::string blob;
    BERTH_RETURN_IF_ERROR(LexString(&blob));
    if (pos_ > end) return ErrorAt(begin, "unterminated string in dense literal");
    pos_ = begin;
    if (blob.size() < 2 || blob[0] != '0' || (blob[1] != 'x' && blob[1] != 'X') ||
        (blob.size() % 2) != 0) {
      return ErrorAt(begin, "expected a hexadecimal string \"0x...\" in the dense literal");
    }
    size_t nbytes = (blob.size() - 2) / 2;
    std::vector<uint8_t> raw(nbytes);
    for (size_t i = 0; i < nbytes; ++i) {
      int hi = Hex(blob[2 + 2 * i]);
      int lo = Hex(blob[3 + 2 * i]);
      if (hi < 0 || lo < 0) return ErrorAt(begin, "invalid hexadecimal digit in dense literal");
      raw[i] = static_cast<uint8_t>(hi * 16 + lo);
    }
    size_t full = static_cast<size_t>(count) * bytes;
    bool splat;
    if (IsBool(element)) {
      size_t packed = (static_cast<size_t>(count) + 7) / 8;
      if (nbytes == static_cast<size_t>(count)) {
        splat = false;
      } else if (nbytes == packed && count > 1) {
        std::vector<uint8_t> unpacked(static_cast<size_t>(count));
        for (int64_t i = 0; i < count; ++i) unpacked[i] = (raw[i / 8] >> (i % 8)) & 1;
        raw = std::move(unpacked);
        splat = false;
      } else if (nbytes == 1) {
        splat = true;
      } else {
        return ErrorAt(begin, "hexadecimal dense literal has the wrong size for its type");
      }
      for (uint8_t& v : raw) v = v ? 1 : 0;
    } else {
      if (nbytes == full) {
        splat = false;
      } else if (nbytes == bytes) {
        splat = true;
      } else {
        return ErrorAt(begin, "hexadecimal dense literal has " + std::to_string(nbytes) +
                                  " bytes; the type needs " + std::to_string(full));
      }
      // Normalize sub-byte integers to the buffer layout.
      if (element == ElementType::kSI2 || element == ElementType::kSI4) {
        int shift = 8 - BitWidth(element);
        for (uint8_t& v : raw) {
          v = static_cast<uint8_t>(static_cast<int8_t>(static_cast<uint8_t>(v << shift)) >> shift);
        }
      } else if (element == ElementType::kUI2 || element == ElementType::kUI4 ||
                 element == ElementType::kF4E2M1FN || element == ElementType::kF6E2M3FN ||
                 element == ElementType::kF6E3M2FN) {
        uint8_t mask = static_cast<uint8_t>((1u << BitWidth(element)) - 1);
        for (uint8_t& v : raw) v &= mask;
      }
    }
    pos_ = after;
    *out = b_.Make<DenseElementsAttr>(type, splat, std::move(raw), element);
    return OkStatus();
  }
  // A single value: a splat.
  if (first != '[') {
    std::vector<uint8_t> data(bytes);
    DenseReader reader(src_, probe.pos(), end, element, data.data());
    if (!reader.Element(0)) return ErrorAt(reader.error_pos(), reader.error());
    if (reader.Peek() != '\0') return ErrorAt(reader.pos(), "unexpected text after the dense value");
    pos_ = after;
    *out = b_.Make<DenseElementsAttr>(type, true, std::move(data), element);
    return OkStatus();
  }
  // Nested lists. Their shape is inferred from the nesting (every sublist of
  // a level must agree) and must match the type; a literal with the same
  // number of elements in another shape is accepted too (row-major), as the
  // upstream test suite contains one.
  std::span<const int64_t> shape = type.shape();
  if (static_cast<uint64_t>(count) > end - begin) {
    return ErrorAt(begin, "dense literal has fewer values than its type " + type.ToString() +
                              " needs");
  }
  std::vector<uint8_t> data(static_cast<size_t>(count) * bytes);
  DenseReader reader(src_, probe.pos(), end, element, data.data());
  std::vector<int64_t> literal_shape;  // learned while parsing
  std::vector<int64_t> seen;           // values so far per open level
  int64_t rank = -1;                   // depth of the values, once known
  size_t index = 0;
  bool need_item = true;  // after '[' or ','
  bool after_open = false;
  while (true) {
    char c = reader.Peek();
    if (c == '[') {
      if (!need_item) return ErrorAt(reader.pos(), "expected ',' or ']' in the dense literal");
      if (rank >= 0 && static_cast<int64_t>(seen.size()) >= rank) {
        return ErrorAt(reader.pos(), "tensor literal is invalid; ranks are not consistent "
                                     "between elements");
      }
      if (seen.size() >= static_cast<size_t>(kMaxNestingDepth)) {
        return ErrorAt(reader.pos(), "nesting is deeper than 256 levels");
      }
      if (!seen.empty()) ++seen.back();
      reader.set_pos(reader.pos() + 1);
      seen.push_back(0);
      need_item = true;
      after_open = true;
      continue;
    }
    if (c == ']') {
      if (seen.empty()) return ErrorAt(reader.pos(), "unbalanced ']' in the dense literal");
      if (need_item && !after_open) return ErrorAt(reader.pos(), "expected a value before ']'");
      size_t level = seen.size() - 1;
      if (after_open) {
        // `[]`: this level is the innermost one.
        if (rank >= 0 && static_cast<int64_t>(seen.size()) != rank) {
          return ErrorAt(reader.pos(), "tensor literal is invalid; ranks are not consistent "
                                       "between elements");
        }
        rank = static_cast<int64_t>(seen.size());
      }
      if (literal_shape.size() <= level) literal_shape.resize(level + 1, -1);
      if (literal_shape[level] < 0) {
        literal_shape[level] = seen[level];
      } else if (literal_shape[level] != seen[level]) {
        return ErrorAt(reader.pos(), "tensor literal is invalid; sublists of dimension " +
                                         std::to_string(level) + " differ in length");
      }
      reader.set_pos(reader.pos() + 1);
      seen.pop_back();
      need_item = false;
      after_open = false;
      if (seen.empty()) break;
      continue;
    }
    if (c == ',') {
      if (need_item) return ErrorAt(reader.pos(), "unexpected ',' in the dense literal");
      reader.set_pos(reader.pos() + 1);
      need_item = true;
      after_open = false;
      continue;
    }
    if (c == '\0') return ErrorAt(begin, "unterminated list in the dense literal");
    if (!need_item) return ErrorAt(reader.pos(), "expected ',' or ']' in the dense literal");
    if (rank < 0) rank = static_cast<int64_t>(seen.size());
    if (static_cast<int64_t>(seen.size()) != rank) {
      return ErrorAt(reader.pos(), "tensor literal is invalid; ranks are not consistent between "
                                   "elements");
    }
    if (index >= static_cast<size_t>(count)) {
      return ErrorAt(reader.pos(), "dense literal has more values than its type " +
                                       type.ToString() + " holds");
    }
    ++seen.back();
    if (!reader.Element(index * bytes)) return ErrorAt(reader.error_pos(), reader.error());
    ++index;
    need_item = false;
    after_open = false;
  }
  if (!std::equal(literal_shape.begin(), literal_shape.end(), shape.begin(), shape.end()) &&
      index != static_cast<size_t>(count)) {
    std::string inferred = "[";
    for (size_t i = 0; i < literal_shape.size(); ++i) {
      if (i) inferred += ", ";
      inferred += std::to_string(literal_shape[i]);
    }
    inferred += "]";
    return ErrorAt(begin, "inferred shape of elements literal (" + inferred +
                              ") does not match type " + type.ToString());
  }
  if (index != static_cast<size_t>(count)) {
    return ErrorAt(begin, "dense literal has " + std::to_string(index) + " values; its type " +
                              type.ToString() + " needs " + std::to_string(count));
  }
  if (reader.Peek() != '\0') return ErrorAt(reader.pos(), "unexpected text after the dense list");
  pos_ = after;
  *out = b_.Make<DenseElementsAttr>(type, false, std::move(data), element);
  return OkStatus();
}

}  // namespace berth::stablehlo::detail
