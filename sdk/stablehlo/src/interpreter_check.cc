#include "berth/stablehlo/interpreter_check.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <vector>

namespace berth::stablehlo {
namespace {

// "[1, 2]" for flat index 5 of a 3x3 tensor.
std::string IndexString(int64_t flat, std::span<const int64_t> dims) {
  std::vector<int64_t> index(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    if (dims[d] > 0) {
      index[d] = flat % dims[d];
      flat /= dims[d];
    }
  }
  std::string out = "[";
  for (size_t d = 0; d < index.size(); ++d) out += (d ? ", " : "") + std::to_string(index[d]);
  return out + "]";
}

std::string FloatString(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

// Element i of `data` as raw bits, zero-extended.
uint64_t BitsAt(const void* data, size_t bytes, int64_t i) {
  uint64_t bits = 0;
  std::memcpy(&bits, static_cast<const uint8_t*>(data) + static_cast<size_t>(i) * bytes, bytes);
  return bits;
}

// The bits of a float of `bytes` bytes as an integer ordered like the floats
// (for the ULP distance).
int64_t OrderedBits(uint64_t bits, size_t bytes) {
  const int width = static_cast<int>(bytes) * 8;
  // Sign-extend the pattern, then map negative floats below the positive ones.
  const int64_t value = static_cast<int64_t>(bits << (64 - width)) >> (64 - width);
  const int64_t lowest =
      width == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (width - 1));
  return value < 0 ? lowest - value : value;
}

}  // namespace

bool IsComparingCheck(const Operation& op) {
  switch (op.kind()) {
    case OpKind::kCheckExpectEq:
    case OpKind::kCheckExpectAlmostEq:
    case OpKind::kCheckExpectClose:
    case OpKind::kCheckExpectEqConst:
    case OpKind::kCheckExpectAlmostEqConst: return true;
    default: return false;
  }
}

CheckSpec CheckSpecOf(const Operation& op) {
  CheckSpec spec;
  switch (op.kind()) {
    case OpKind::kCheckExpectAlmostEq:
    case OpKind::kCheckExpectAlmostEqConst:
      spec.kind = CheckSpec::kAlmostEqual;
      spec.tolerance = op.GetFloat("tolerance").value_or(kDefaultCheckTolerance);
      break;
    case OpKind::kCheckExpectClose:
      spec.kind = CheckSpec::kClose;
      spec.min_ulps = op.GetInt("min_ulp_difference").value_or(0);
      spec.max_ulps = op.GetInt("max_ulp_difference").value_or(kDefaultCheckMaxUlps);
      break;
    default: spec.kind = CheckSpec::kEqual; break;
  }
  spec.name = std::string(op.name());
  return spec;
}

bool IsCheckableType(ElementType type) {
  if (IsComplex(type) || IsInteger(type)) return true;
  return type == ElementType::kI1 || (IsFloat(type) && type != ElementType::kTF32);
}

Status CompareForCheck(ElementType type, std::span<const int64_t> dims, const void* actual,
                       const void* expected, const CheckSpec& spec) {
  if (!IsCheckableType(type)) {
    return InvalidArgumentError(spec.name + ": cannot compare values of " +
                                std::string(ElementTypeName(type)));
  }
  if (IsComplex(type)) {
    std::vector<int64_t> parts(dims.begin(), dims.end());
    parts.push_back(2);
    return CompareForCheck(ComplexComponentType(type), parts, actual, expected, spec);
  }
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  if (type != ElementType::kI1 && StorageBytes(type) == 1 &&
      (BitWidth(type) < 8 || IsFloat(type))) {
    // A narrow type (one element per byte) as the values it stands for:
    // integers as i8/ui8 (sign- or zero-extended from their bits), floats
    // exactly as f32.
    const int bits = BitWidth(type);
    const bool wide_float = IsFloat(type);
    std::vector<int8_t> small_actual, small_expected;
    std::vector<float> float_actual, float_expected;
    for (int64_t i = 0; i < count; ++i) {
      for (const void* data : {actual, expected}) {
        const uint8_t byte = static_cast<const uint8_t*>(data)[i];
        const bool is_actual = data == actual;
        if (wide_float) {
          (is_actual ? float_actual : float_expected)
              .push_back(static_cast<float>(DecodeFloat(type, byte)));
        } else {
          const int shift = 8 - bits;
          const uint8_t low = static_cast<uint8_t>(byte << shift);
          (is_actual ? small_actual : small_expected)
              .push_back(IsSignedInteger(type)
                             ? static_cast<int8_t>(static_cast<int8_t>(low) >> shift)
                             : static_cast<int8_t>(low >> shift));
        }
      }
    }
    if (wide_float) {
      return CompareForCheck(ElementType::kF32, dims, float_actual.data(), float_expected.data(),
                             spec);
    }
    return CompareForCheck(IsSignedInteger(type) ? ElementType::kSI8 : ElementType::kUI8, dims,
                           small_actual.data(), small_expected.data(), spec);
  }
  const size_t bytes = StorageBytes(type);
  const bool is_float = IsFloat(type);
  const bool is_signed = IsSignedInteger(type);
  const int width = static_cast<int>(bytes) * 8;
  auto text = [&](uint64_t bits) -> std::string {
    if (is_float) return FloatString(DecodeFloat(type, bits));
    if (type == ElementType::kI1) return bits != 0 ? "true" : "false";
    if (is_signed) {
      return std::to_string(static_cast<int64_t>(bits << (64 - width)) >> (64 - width));
    }
    return std::to_string(bits);
  };
  int64_t mismatches = 0;
  std::string first;
  for (int64_t i = 0; i < count; ++i) {
    const uint64_t a = BitsAt(actual, bytes, i);
    const uint64_t e = BitsAt(expected, bytes, i);
    bool ok = true;
    std::string detail;
    if (is_float) {
      const double x = DecodeFloat(type, a), y = DecodeFloat(type, e);
      if (std::isnan(x) || std::isnan(y)) {
        ok = std::isnan(x) && std::isnan(y);
      } else if (spec.kind == CheckSpec::kAlmostEqual) {
        ok = x == y || std::fabs(x - y) <= spec.tolerance;
        if (!ok) {
          detail = " (difference " + FloatString(std::fabs(x - y)) + " > tolerance " +
                   FloatString(spec.tolerance) + ")";
        }
      } else if (spec.kind == CheckSpec::kClose) {
        int64_t ulps = x == y ? 0 : OrderedBits(a, bytes) - OrderedBits(e, bytes);
        ulps = ulps < 0 ? -ulps : ulps;
        ok = ulps >= spec.min_ulps && ulps <= spec.max_ulps;
        if (!ok) {
          detail = " (" + std::to_string(ulps) + " ULPs apart, allowed " +
                   std::to_string(spec.min_ulps) + ".." + std::to_string(spec.max_ulps) + ")";
        }
      } else {
        ok = x == y;
      }
    } else {
      ok = type == ElementType::kI1 ? (a != 0) == (e != 0) : a == e;
    }
    if (!ok && mismatches++ == 0) {
      first =
          "element " + IndexString(i, dims) + " is " + text(a) + ", expected " + text(e) + detail;
    }
  }
  if (mismatches == 0) return OkStatus();
  return FailedPreconditionError("check failed: " + spec.name + ": " + first + " (" +
                                 std::to_string(mismatches) + " of " + std::to_string(count) +
                                 " elements differ)");
}

std::string SerializedCheckFailure(std::string_view id, int64_t iteration, const Type* probed,
                                   const Type& actual) {
  const std::string name = "check failed: check.expect_serialized_eq: ";
  if (probed == nullptr) {
    return name + "no value was probed as '" + std::string(id) + "' at iteration " +
           std::to_string(iteration);
  }
  if (*probed != actual) {
    return name + "'" + std::string(id) + "' was " + probed->ToString() + ", the value is " +
           actual.ToString();
  }
  return "";
}

}  // namespace berth::stablehlo
