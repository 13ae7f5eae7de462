// A program per element type the plugin takes (its "element_types", else
// every type a buffer can hold densely): `stablehlo.add` of two 6-element
// tensors (`stablehlo.or` for i1), run on the first device and compared bit
// for bit with the sums computed here. The inputs are small integers, exact
// in every format, and so are their sums (integers wrap at their width, as
// the spec says).
#include <optional>
#include <vector>

#include "conformance/suite_context.hpp"

namespace berth::conformance {
namespace {

constexpr int64_t kCount = 6;
constexpr int kX[kCount] = {0, 1, 2, 1, 0, 2};
constexpr int kY[kCount] = {1, 1, 1, 2, 0, 0};

// A float format: exponent and mantissa bits, bias, and whether it has a
// sign bit (all here do but E8M0).
struct FloatFormat {
  int exponent_bits;
  int mantissa_bits;
  int bias;
};

std::optional<FloatFormat> FormatOf(ElementType type) {
  switch (type) {
    case ElementType::kF16: return FloatFormat{5, 10, 15};
    case ElementType::kBF16: return FloatFormat{8, 7, 127};
    case ElementType::kF32: return FloatFormat{8, 23, 127};
    case ElementType::kF64: return FloatFormat{11, 52, 1023};
    case ElementType::kF8E5M2: return FloatFormat{5, 2, 15};
    case ElementType::kF8E4M3FN: return FloatFormat{4, 3, 7};
    case ElementType::kF8E4M3: return FloatFormat{4, 3, 7};
    case ElementType::kF8E3M4: return FloatFormat{3, 4, 3};
    case ElementType::kF8E4M3B11FNUZ: return FloatFormat{4, 3, 11};
    case ElementType::kF8E5M2FNUZ: return FloatFormat{5, 2, 16};
    case ElementType::kF8E4M3FNUZ: return FloatFormat{4, 3, 8};
    case ElementType::kF6E2M3FN: return FloatFormat{2, 3, 1};
    case ElementType::kF6E3M2FN: return FloatFormat{3, 2, 3};
    case ElementType::kF4E2M1FN: return FloatFormat{2, 1, 1};
    default: return std::nullopt;
  }
}

// The bits of a small non-negative integer in `format` (exact: every value
// used here is a normal number or zero in each format above).
uint64_t FloatBits(const FloatFormat& format, int value) {
  if (value == 0) return 0;
  int exponent = 0;
  while ((1 << (exponent + 1)) <= value) ++exponent;
  // value = 2^exponent * (1 + fraction); the fraction's bits below the point.
  const uint64_t fraction = static_cast<uint64_t>(value - (1 << exponent));
  const uint64_t mantissa = format.mantissa_bits >= exponent
                                ? fraction << (format.mantissa_bits - exponent)
                                : fraction >> (exponent - format.mantissa_bits);
  return (static_cast<uint64_t>(exponent + format.bias) << format.mantissa_bits) | mantissa;
}

// Integer types (not i1): their width in bits and whether they are signed.
struct IntegerType {
  int bits;
  bool is_signed;
};

std::optional<IntegerType> IntegerOf(ElementType type) {
  switch (type) {
    case ElementType::kS2: return IntegerType{2, true};
    case ElementType::kS4: return IntegerType{4, true};
    case ElementType::kS8: return IntegerType{8, true};
    case ElementType::kS16: return IntegerType{16, true};
    case ElementType::kS32: return IntegerType{32, true};
    case ElementType::kS64: return IntegerType{64, true};
    case ElementType::kU2: return IntegerType{2, false};
    case ElementType::kU4: return IntegerType{4, false};
    case ElementType::kU8: return IntegerType{8, false};
    case ElementType::kU16: return IntegerType{16, false};
    case ElementType::kU32: return IntegerType{32, false};
    case ElementType::kU64: return IntegerType{64, false};
    default: return std::nullopt;
  }
}

// The MLIR name of a buffer element type (i1, ui8, complex<f32>, ...).
std::string MlirType(ElementType type) {
  switch (type) {
    case ElementType::kPred: return "i1";
    case ElementType::kC64: return "complex<f32>";
    case ElementType::kC128: return "complex<f64>";
    default: return std::string(ElementTypeName(type));
  }
}

// Little-endian bytes of `bits`, `width` bytes.
void Put(std::vector<std::byte>& out, uint64_t bits, size_t width) {
  for (size_t i = 0; i < width; ++i) out.push_back(static_cast<std::byte>((bits >> (8 * i)) & 0xFF));
}

// The dense bytes of `values` as `type`; nullopt for a type this check has no
// encoding for. Complex values are (value, 1).
std::optional<std::vector<std::byte>> Encode(ElementType type, const std::vector<int>& values) {
  std::vector<std::byte> out;
  const size_t width = ElementTypeByteSize(type);
  if (type == ElementType::kPred) {
    for (int v : values) Put(out, v != 0 ? 1 : 0, 1);
    return out;
  }
  if (type == ElementType::kC64 || type == ElementType::kC128) {
    const FloatFormat part = type == ElementType::kC64 ? FloatFormat{8, 23, 127}
                                                       : FloatFormat{11, 52, 1023};
    for (int v : values) {
      Put(out, FloatBits(part, v), width / 2);
      Put(out, FloatBits(part, 1), width / 2);
    }
    return out;
  }
  if (std::optional<FloatFormat> format = FormatOf(type)) {
    for (int v : values) Put(out, FloatBits(*format, v), width);
    return out;
  }
  if (std::optional<IntegerType> integer = IntegerOf(type)) {
    const int bits = integer->bits;
    const uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    for (int v : values) {
      uint64_t wrapped = static_cast<uint64_t>(static_cast<int64_t>(v)) & mask;
      // Signed narrow types are stored sign-extended to their byte.
      if (integer->is_signed && bits < static_cast<int>(8 * width) &&
          (wrapped >> (bits - 1)) != 0) {
        wrapped |= ~mask;
      }
      Put(out, wrapped, width);
    }
    return out;
  }
  return std::nullopt;
}

void RunType(Context& c, const Emit& emit, ElementType type, bool declared) {
  const std::string name = "execute.add." + std::string(ElementTypeName(type));
  std::vector<int> x(kX, kX + kCount), y(kY, kY + kCount), sum(kCount);
  for (int64_t i = 0; i < kCount; ++i) {
    sum[i] = type == ElementType::kPred ? (x[i] | y[i]) : x[i] + y[i];
  }
  std::optional<std::vector<std::byte>> bx = Encode(type, x), by = Encode(type, y);
  std::optional<std::vector<std::byte>> expected = Encode(type, sum);
  if (type == ElementType::kC64 || type == ElementType::kC128) {
    // (x, 1) + (y, 1) = (x + y, 2).
    expected = std::vector<std::byte>();
    const FloatFormat part = type == ElementType::kC64 ? FloatFormat{8, 23, 127}
                                                       : FloatFormat{11, 52, 1023};
    for (int v : sum) {
      Put(*expected, FloatBits(part, v), ElementTypeByteSize(type) / 2);
      Put(*expected, FloatBits(part, 2), ElementTypeByteSize(type) / 2);
    }
  }
  if (!bx || !by || !expected) {
    return emit(Skip(name, "the suite has no exact encoding of " +
                               std::string(ElementTypeName(type)) + " values"));
  }
  const std::string t = "tensor<6x" + MlirType(type) + ">";
  const std::string op = type == ElementType::kPred ? "stablehlo.or" : "stablehlo.add";
  const std::string program = "func.func @main(%x: " + t + ", %y: " + t + ") -> " + t +
                              " {\n  %r = " + op + " %x, %y : " + t + "\n  return %r : " + t +
                              "\n}\n";
  // A source name that names no op or type: the refusal is matched against
  // those words.
  Result<Executable> executable = c.Compile(program, "conformance/program.mlir");
  if (!executable.ok()) {
    const std::string mlir = MlirType(type);
    return emit(CompileRefused(c, name, executable.status(),
                               {op, mlir, ElementTypeName(type)}));
  }
  const Device& device = c.client->addressable_devices()[0];
  const int64_t dims[1] = {kCount};
  Result<Buffer> a = c.client->BufferFromHost(bx->data(), type, dims, device);
  Result<Buffer> b = a.ok() ? c.client->BufferFromHost(by->data(), type, dims, device)
                            : Result<Buffer>(a.status());
  if (!b.ok()) {
    // A type the plugin does not list may be refused; a listed one not.
    if (!declared) return emit(Skip(name, "not taken by the plugin: " + b.status().ToString()));
    return emit(Fail(name, "making the inputs: " + b.status().ToString()));
  }
  Result<ExecuteResult> result = executable->ExecuteOn(device, {&*a, &*b});
  Status status = result.ok() ? result->completion[0].Await() : result.status();
  if (!status.ok()) return emit(Fail(name, status.ToString()));
  if (result->outputs[0].size() != 1) {
    return emit(Fail(name, std::to_string(result->outputs[0].size()) + " outputs, expected 1"));
  }
  Result<std::vector<std::byte>> got = result->outputs[0][0].ToHostBytes();
  if (!got.ok()) return emit(Fail(name, got.status().ToString()));
  if (*got != *expected) {
    return emit(Fail(name, op + " of [0, 1, 2, 1, 0, 2] and [1, 1, 1, 2, 0, 0] as " +
                               std::string(ElementTypeName(type)) +
                               " is not the exact sum (bytes differ)"));
  }
  emit(Pass(name));
}

}  // namespace

void ElementTypeChecks(Context& context, const Emit& emit) {
  bool declared = false;
  for (ElementType type : TypesToTry(context, &declared)) {
    if (type == ElementType::kToken || type == ElementType::kF8E8M0FNU) {
      emit(Skip("execute.add." + std::string(ElementTypeName(type)),
                "no add over this type's values is exact"));
      continue;
    }
    RunType(context, emit, type, declared);
  }
}

}  // namespace berth::conformance
