#include "cli/host_array.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include "berth/shape.hpp"
#include "berth/stablehlo/interpreter_output.hpp"
#include "berth/stablehlo/parser.hpp"

namespace berth::cli {

namespace {

float HalfToFloat(uint16_t bits) {
  uint32_t sign = (bits >> 15) & 1, exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  float value;
  if (exponent == 0) value = std::ldexp(static_cast<float>(mantissa), -24);
  else if (exponent == 31) value = mantissa ? std::numeric_limits<float>::quiet_NaN() : INFINITY;
  else value = std::ldexp(static_cast<float>(mantissa | 0x400), static_cast<int>(exponent) - 25);
  return sign ? -value : value;
}

float BFloatToFloat(uint16_t bits) {
  uint32_t wide = uint32_t{bits} << 16;
  float value;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}

// Element i as a double (floats), or as int64/uint64 for integers.
struct Element {
  enum Kind { kBool, kSigned, kUnsigned, kFloat, kComplex, kOther } kind = kOther;
  int64_t s = 0;
  uint64_t u = 0;
  double f = 0;       // a float, or a complex number's real part
  double imag = 0;    // a complex number's imaginary part
  uint64_t bits = 0;  // raw bits for non-finite floats (and the imaginary part's)
  uint64_t imag_bits = 0;
  int bit_width = 0;  // of a float or of each part
};

// The program's element type of the same name (the float formats, for
// stablehlo::DecodeFloat).
std::optional<stablehlo::ElementType> ProgramType(ElementType type) {
  for (int i = 0; i <= static_cast<int>(stablehlo::ElementType::kComplex128); ++i) {
    auto candidate = static_cast<stablehlo::ElementType>(i);
    if (stablehlo::ElementTypeName(candidate) == ElementTypeName(type)) return candidate;
  }
  return std::nullopt;
}

template <typename T>
T Load(const std::byte* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

// A complex number of parts P (bits B) at `p` into `e`.
template <typename P, typename B>
void LoadComplex(const std::byte* p, Element& e) {
  e.kind = Element::kComplex;
  e.bit_width = static_cast<int>(sizeof(P) * 8);
  e.bits = Load<B>(p);
  e.imag_bits = Load<B>(p + sizeof(P));
  e.f = Load<P>(p);
  e.imag = Load<P>(p + sizeof(P));
}

Element ElementAt(const HostArray& a, int64_t i) {
  const size_t size = ElementTypeByteSize(a.type);
  const std::byte* p = a.bytes.data() + static_cast<size_t>(i) * size;
  Element e;
  switch (a.type) {
    case ElementType::kPred: e.kind = Element::kBool; e.u = Load<uint8_t>(p) != 0; break;
    case ElementType::kS8: case ElementType::kS4: case ElementType::kS2:
      e.kind = Element::kSigned; e.s = Load<int8_t>(p); break;
    case ElementType::kS16: e.kind = Element::kSigned; e.s = Load<int16_t>(p); break;
    case ElementType::kS32: e.kind = Element::kSigned; e.s = Load<int32_t>(p); break;
    case ElementType::kS64: e.kind = Element::kSigned; e.s = Load<int64_t>(p); break;
    case ElementType::kU8: case ElementType::kU4: case ElementType::kU2:
      e.kind = Element::kUnsigned; e.u = Load<uint8_t>(p); break;
    case ElementType::kU16: e.kind = Element::kUnsigned; e.u = Load<uint16_t>(p); break;
    case ElementType::kU32: e.kind = Element::kUnsigned; e.u = Load<uint32_t>(p); break;
    case ElementType::kU64: e.kind = Element::kUnsigned; e.u = Load<uint64_t>(p); break;
    case ElementType::kF16:
      e.kind = Element::kFloat; e.bits = Load<uint16_t>(p); e.bit_width = 16;
      e.f = HalfToFloat(static_cast<uint16_t>(e.bits)); break;
    case ElementType::kBF16:
      e.kind = Element::kFloat; e.bits = Load<uint16_t>(p); e.bit_width = 16;
      e.f = BFloatToFloat(static_cast<uint16_t>(e.bits)); break;
    case ElementType::kF32:
      e.kind = Element::kFloat; e.bits = Load<uint32_t>(p); e.bit_width = 32;
      e.f = Load<float>(p); break;
    case ElementType::kF64:
      e.kind = Element::kFloat; e.bits = Load<uint64_t>(p); e.bit_width = 64;
      e.f = Load<double>(p); break;
    case ElementType::kC64: LoadComplex<float, uint32_t>(p, e); break;
    case ElementType::kC128: LoadComplex<double, uint64_t>(p, e); break;
    default: {
      // The f8, f6 and f4 formats: one pattern per byte, exact in a double.
      std::optional<stablehlo::ElementType> program = ProgramType(a.type);
      if (program && stablehlo::IsFloat(*program) && size == 1) {
        e.kind = Element::kFloat;
        e.bits = Load<uint8_t>(p);
        e.bit_width = 8;
        e.f = stablehlo::DecodeFloat(*program, e.bits);
      } else {
        e.kind = Element::kOther;
      }
      break;
    }
  }
  return e;
}

// Shortest text that reads back as the same value of the element's width.
std::string FloatText(const Element& e) {
  char buffer[64];
  std::to_chars_result r = e.bit_width == 64
                               ? std::to_chars(buffer, buffer + sizeof(buffer), e.f)
                               : std::to_chars(buffer, buffer + sizeof(buffer), static_cast<float>(e.f));
  std::string text(buffer, r.ptr);
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";  // keep it a float literal
  return text;
}

std::string HexBits(uint64_t bits, int width) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "0x%0*llX", width / 4, static_cast<unsigned long long>(bits));
  return buffer;
}

std::string FloatOrBits(double value, uint64_t bits, int bit_width) {
  Element part;
  part.f = value;
  part.bit_width = bit_width;
  return std::isfinite(value) ? FloatText(part) : HexBits(bits, bit_width);
}

std::string ElementText(const Element& e) {
  switch (e.kind) {
    case Element::kBool: return e.u ? "true" : "false";
    case Element::kSigned: return std::to_string(e.s);
    case Element::kUnsigned: return std::to_string(e.u);
    case Element::kFloat: return FloatOrBits(e.f, e.bits, e.bit_width);
    case Element::kComplex:
      return "(" + FloatOrBits(e.f, e.bits, e.bit_width) + ", " +
             FloatOrBits(e.imag, e.imag_bits, e.bit_width) + ")";
    case Element::kOther: return "?";
  }
  return "?";
}

std::string InterpreterElement(const Element& e) {
  switch (e.kind) {
    case Element::kFloat: return stablehlo::InterpreterFloatText(e.f);
    case Element::kComplex:
      return "[" + stablehlo::InterpreterFloatText(e.f) + ", " +
             stablehlo::InterpreterFloatText(e.imag) + "]";
    default: return ElementText(e);
  }
}

// Appends elements [offset, offset + count of dims[d..]) as nested lists.
void AppendNested(const HostArray& a, size_t d, int64_t& next, std::string& out) {
  if (d == a.dims.size()) {
    out += ElementText(ElementAt(a, next++));
    return;
  }
  out += '[';
  for (int64_t i = 0; i < a.dims[d]; ++i) {
    if (i) out += ", ";
    AppendNested(a, d + 1, next, out);
  }
  out += ']';
}

std::string TypeText(const HostArray& a) {
  std::string out = "tensor<";
  for (int64_t d : a.dims) out += std::to_string(d) + "x";
  std::string name(ElementTypeName(a.type));
  if (a.type == ElementType::kPred) name = "i1";
  else if (a.type == ElementType::kC64) name = "complex<f32>";
  else if (a.type == ElementType::kC128) name = "complex<f64>";
  return out + name + ">";
}

}  // namespace

Result<HostArray> ParseMlirLiteral(std::string_view text) {
  // Parse the literal as the value of a constant, with the StableHLO parser.
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || text.substr(0, colon).find("dense") == std::string_view::npos) {
    return InvalidArgumentError("expected an MLIR literal like 'dense<[1.0, 2.0]> : tensor<2xf32>', got '" +
                                std::string(text) + "'");
  }
  std::string type(text.substr(colon + 1));
  std::string program = "func.func @literal() -> " + type + " {\n  %0 = stablehlo.constant " +
                        std::string(text) + "\n  return %0 : " + type + "\n}\n";
  BERTH_ASSIGN_OR_RETURN(stablehlo::Module module, stablehlo::ParseModule(program, "<literal>"));
  const stablehlo::Function* f = module.function("literal");
  const stablehlo::Operation* constant = f->entry_block().operations().front();
  const stablehlo::DenseElementsAttr* value = constant->GetDense("value");
  if (value == nullptr) return InvalidArgumentError("'" + std::string(text) + "' is not a dense literal");
  HostArray array;
  array.type = stablehlo::ToBufferType(value->element_type());
  if (array.type == ElementType::kInvalid) {
    return InvalidArgumentError("element type " +
                                std::string(stablehlo::ElementTypeName(value->element_type())) +
                                " cannot be passed as an argument");
  }
  std::span<const int64_t> shape = value->type().shape();
  array.dims.assign(shape.begin(), shape.end());
  std::vector<uint8_t> data = value->ExpandedData();
  array.bytes.resize(data.size());
  if (!data.empty()) std::memcpy(array.bytes.data(), data.data(), data.size());
  return array;
}

std::string FormatInterpreterResult(const HostArray& array) {
  return stablehlo::FormatInterpreterValue(TypeText(array), array.dims, [&](int64_t i) {
    return InterpreterElement(ElementAt(array, i));
  });
}

std::string FormatMlirLiteral(const HostArray& array) {
  std::string out = "dense<";
  int64_t next = 0;
  if (array.dims.empty()) {
    out += ElementText(ElementAt(array, 0));
  } else {
    AppendNested(array, 0, next, out);
  }
  return out + "> : " + TypeText(array);
}

namespace {

// A float in JSON: a number, or "nan", "inf", "-inf".
nlohmann::json JsonFloat(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return value;
}

}  // namespace

nlohmann::json ArrayToJson(const HostArray& array) {
  nlohmann::json data = nlohmann::json::array();
  int64_t count = ElementCount(array.dims);
  for (int64_t i = 0; i < count; ++i) {
    Element e = ElementAt(array, i);
    switch (e.kind) {
      case Element::kBool: data.push_back(e.u != 0); break;
      case Element::kSigned: data.push_back(e.s); break;
      case Element::kUnsigned: data.push_back(e.u); break;
      case Element::kFloat: data.push_back(JsonFloat(e.f)); break;
      case Element::kComplex: data.push_back({JsonFloat(e.f), JsonFloat(e.imag)}); break;
      case Element::kOther: data.push_back(nullptr); break;
    }
  }
  std::string dtype(ElementTypeName(array.type));
  return {{"dtype", dtype}, {"shape", array.dims}, {"data", data}};
}

// ------------------------------------------------------------------- npy

namespace {

struct NpyType {
  ElementType type;
  const char* descr;
};

constexpr NpyType kNpyTypes[] = {
    {ElementType::kPred, "|b1"}, {ElementType::kS8, "|i1"},  {ElementType::kU8, "|u1"},
    {ElementType::kS16, "<i2"},  {ElementType::kU16, "<u2"}, {ElementType::kS32, "<i4"},
    {ElementType::kU32, "<u4"},  {ElementType::kS64, "<i8"}, {ElementType::kU64, "<u8"},
    {ElementType::kF16, "<f2"},  {ElementType::kF32, "<f4"}, {ElementType::kF64, "<f8"},
    {ElementType::kC64, "<c8"},  {ElementType::kC128, "<c16"},
};

// The value of `key` in the header dict: the text after "'key':" up to the
// next top-level comma or closing brace.
std::string_view HeaderValue(std::string_view header, std::string_view key) {
  std::string quoted = "'" + std::string(key) + "'";
  size_t at = header.find(quoted);
  if (at == std::string_view::npos) return {};
  size_t colon = header.find(':', at + quoted.size());
  if (colon == std::string_view::npos) return {};
  size_t start = colon + 1;
  while (start < header.size() && header[start] == ' ') ++start;
  int depth = 0;
  size_t end = start;
  for (; end < header.size(); ++end) {
    char c = header[end];
    if (c == '(') ++depth;
    else if (c == ')') --depth;
    else if ((c == ',' || c == '}') && depth == 0) break;
  }
  return header.substr(start, end - start);
}

}  // namespace

Result<HostArray> ParseNpy(std::string_view bytes, std::string_view what) {
  const std::string where(what);
  static constexpr char kMagic[] = "\x93NUMPY";
  if (bytes.size() < 10 || bytes.substr(0, 6) != std::string_view(kMagic, 6)) {
    return InvalidArgumentError(where + ": not a .npy file (bad magic)");
  }
  uint8_t major = static_cast<uint8_t>(bytes[6]);
  size_t header_len, header_start;
  if (major == 1) {
    header_len = static_cast<uint8_t>(bytes[8]) | (static_cast<size_t>(static_cast<uint8_t>(bytes[9])) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return InvalidArgumentError(where + ": truncated .npy header");
    header_len = 0;
    for (int i = 0; i < 4; ++i) header_len |= static_cast<size_t>(static_cast<uint8_t>(bytes[8 + i])) << (8 * i);
    header_start = 12;
  } else {
    return InvalidArgumentError(where + ": unsupported .npy format version " + std::to_string(major));
  }
  if (header_start + header_len > bytes.size()) {
    return InvalidArgumentError(where + ": truncated .npy header");
  }
  std::string_view header = bytes.substr(header_start, header_len);
  std::string_view descr = HeaderValue(header, "descr");
  std::string_view fortran = HeaderValue(header, "fortran_order");
  std::string_view shape = HeaderValue(header, "shape");
  if (descr.size() < 3 || shape.empty() || fortran.empty()) {
    return InvalidArgumentError(where + ": .npy header lacks descr, fortran_order or shape");
  }
  if (fortran != "False") {
    return UnimplementedError(where + ": Fortran-order .npy arrays are not supported; save with order='C'");
  }
  std::string dtype(descr.substr(1, descr.size() - 2));  // strip quotes
  if (dtype.size() >= 2 && dtype[0] == '=' ) dtype[0] = '<';
  HostArray array;
  for (const NpyType& t : kNpyTypes) {
    std::string d = t.descr;
    if (dtype == d || (d[0] == '|' && dtype == "<" + d.substr(1)) || (d[0] == '<' && dtype == "|" + d.substr(1))) {
      array.type = t.type;
    }
  }
  if (array.type == ElementType::kInvalid) {
    return UnimplementedError(where + ": dtype '" + dtype + "' is not supported (big-endian, "
                              "strings, objects and records are not)");
  }
  // shape: "(2, 3)" or "(4,)" or "()".
  std::string inner(shape.substr(1, shape.size() >= 2 ? shape.size() - 2 : 0));
  std::stringstream stream(inner);
  std::string item;
  while (std::getline(stream, item, ',')) {
    size_t first = item.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    int64_t dim = 0;
    auto [ptr, ec] = std::from_chars(item.data() + first, item.data() + item.size(), dim);
    if (ec != std::errc() || dim < 0) return InvalidArgumentError(where + ": bad shape " + std::string(shape));
    (void)ptr;
    array.dims.push_back(dim);
  }
  BERTH_ASSIGN_OR_RETURN(size_t size, DenseByteSize(array.type, array.dims));
  size_t data_start = header_start + header_len;
  if (bytes.size() - data_start != size) {
    return InvalidArgumentError(where + ": holds " + std::to_string(bytes.size() - data_start) +
                                " data bytes; shape " + std::string(shape) + " of " + dtype +
                                " needs " + std::to_string(size));
  }
  array.bytes.resize(size);
  if (size > 0) std::memcpy(array.bytes.data(), bytes.data() + data_start, size);
  return array;
}

Result<HostArray> ReadNpy(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFoundError("cannot open " + path.string());
  std::stringstream contents;
  contents << in.rdbuf();
  return ParseNpy(contents.str(), path.string());
}

Status WriteNpy(const std::filesystem::path& path, const HostArray& array) {
  const char* descr = nullptr;
  for (const NpyType& t : kNpyTypes) {
    if (t.type == array.type) descr = t.descr;
  }
  if (descr == nullptr) {
    return UnimplementedError("element type " + std::string(ElementTypeName(array.type)) +
                              " has no NumPy dtype; use --json or the MLIR output instead");
  }
  std::string shape = "(";
  for (size_t i = 0; i < array.dims.size(); ++i) shape += std::to_string(array.dims[i]) + ", ";
  if (array.dims.size() > 1) shape.resize(shape.size() - 2);
  if (array.dims.size() == 1) shape.resize(shape.size() - 1);
  shape += ")";
  std::string header = "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': " +
                       shape + ", }";
  // Pad so the data starts at a multiple of 64 bytes (10-byte preamble).
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out) return PermissionDeniedError("cannot write " + path.string());
  out.write("\x93NUMPY\x01\x00", 8);
  char len[2] = {static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
  out.write(len, 2);
  out << header;
  out.write(reinterpret_cast<const char*>(array.bytes.data()), static_cast<std::streamsize>(array.bytes.size()));
  if (!out) return DataLossError("writing " + path.string() + " failed");
  return OkStatus();
}

}  // namespace berth::cli
