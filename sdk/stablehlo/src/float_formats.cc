// Bit-exact conversion between doubles and the small float formats
// (f4, f6, f8 variants, f16, bf16, tf32), rounding to nearest, ties to even.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "berth/stablehlo/types.hpp"

namespace berth::stablehlo {
namespace {

enum class NanKind : uint8_t {
  kIeee,        // exponent all ones: mantissa 0 = inf, else NaN
  kAllOnes,     // only S.1111.111 is NaN; no infinity (E4M3FN)
  kNegZero,     // the negative-zero pattern 0x80 is NaN; no inf, no -0 (FNUZ)
  kNone,        // no NaN, no infinity (f4/f6)
};

struct Format {
  int exp_bits;
  int man_bits;
  int bias;
  NanKind nan;
};

bool GetFormat(ElementType type, Format* f) {
  switch (type) {
    case ElementType::kF16: *f = {5, 10, 15, NanKind::kIeee}; return true;
    case ElementType::kBF16: *f = {8, 7, 127, NanKind::kIeee}; return true;
    case ElementType::kTF32: *f = {8, 10, 127, NanKind::kIeee}; return true;
    case ElementType::kF8E5M2: *f = {5, 2, 15, NanKind::kIeee}; return true;
    case ElementType::kF8E4M3: *f = {4, 3, 7, NanKind::kIeee}; return true;
    case ElementType::kF8E3M4: *f = {3, 4, 3, NanKind::kIeee}; return true;
    case ElementType::kF8E4M3FN: *f = {4, 3, 7, NanKind::kAllOnes}; return true;
    case ElementType::kF8E4M3FNUZ: *f = {4, 3, 8, NanKind::kNegZero}; return true;
    case ElementType::kF8E5M2FNUZ: *f = {5, 2, 16, NanKind::kNegZero}; return true;
    case ElementType::kF8E4M3B11FNUZ: *f = {4, 3, 11, NanKind::kNegZero}; return true;
    case ElementType::kF6E2M3FN: *f = {2, 3, 1, NanKind::kNone}; return true;
    case ElementType::kF6E3M2FN: *f = {3, 2, 3, NanKind::kNone}; return true;
    case ElementType::kF4E2M1FN: *f = {2, 1, 1, NanKind::kNone}; return true;
    default: return false;
  }
}

double DecodeSmall(const Format& f, uint64_t bits) {
  const uint64_t man_mask = (uint64_t{1} << f.man_bits) - 1;
  const uint64_t exp_mask = (uint64_t{1} << f.exp_bits) - 1;
  const int total = 1 + f.exp_bits + f.man_bits;
  bits &= (uint64_t{1} << total) - 1;
  const bool negative = (bits >> (total - 1)) & 1;
  const uint64_t exp = (bits >> f.man_bits) & exp_mask;
  const uint64_t man = bits & man_mask;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  switch (f.nan) {
    case NanKind::kIeee:
      if (exp == exp_mask) {
        if (man != 0) return nan;
        return negative ? -INFINITY : INFINITY;
      }
      break;
    case NanKind::kAllOnes:
      if (exp == exp_mask && man == man_mask) return nan;
      break;
    case NanKind::kNegZero:
      if (negative && exp == 0 && man == 0) return nan;
      break;
    case NanKind::kNone:
      break;
  }
  double magnitude;
  if (exp == 0) {
    magnitude = std::ldexp(static_cast<double>(man), 1 - f.bias - f.man_bits);
  } else {
    magnitude = std::ldexp(static_cast<double>(man | (uint64_t{1} << f.man_bits)),
                           static_cast<int>(exp) - f.bias - f.man_bits);
  }
  return negative ? -magnitude : magnitude;
}

uint64_t EncodeSmall(const Format& f, double value) {
  const int total = 1 + f.exp_bits + f.man_bits;
  const uint64_t sign_bit = uint64_t{1} << (total - 1);
  const uint64_t man_mask = (uint64_t{1} << f.man_bits) - 1;
  const uint64_t exp_mask = (uint64_t{1} << f.exp_bits) - 1;
  const uint64_t canonical_nan = f.nan == NanKind::kIeee      ? (exp_mask << f.man_bits) |
                                                                  (uint64_t{1} << (f.man_bits - 1))
                                 : f.nan == NanKind::kAllOnes ? (exp_mask << f.man_bits) | man_mask
                                 : f.nan == NanKind::kNegZero ? sign_bit
                                                              : 0;
  if (std::isnan(value)) return canonical_nan;
  bool negative = std::signbit(value);
  uint64_t sign = negative ? sign_bit : 0;
  double a = std::fabs(value);
  // Largest finite exponent field and mantissa.
  uint64_t max_exp = f.nan == NanKind::kIeee ? exp_mask - 1 : exp_mask;
  uint64_t max_man_at_max_exp = f.nan == NanKind::kAllOnes ? man_mask - 1 : man_mask;
  auto overflow = [&]() -> uint64_t {
    switch (f.nan) {
      case NanKind::kIeee: return sign | (exp_mask << f.man_bits);
      case NanKind::kAllOnes:
      case NanKind::kNegZero: return canonical_nan;
      case NanKind::kNone: return sign | (max_exp << f.man_bits) | max_man_at_max_exp;
    }
    return canonical_nan;
  };
  if (std::isinf(a)) return overflow();
  if (a == 0) return f.nan == NanKind::kNegZero ? 0 : sign;
  int e2;
  std::frexp(a, &e2);  // a = m * 2^e2, m in [0.5, 1)
  int e = e2 - 1;      // a = 1.x * 2^e
  const int emin = 1 - f.bias;
  uint64_t exp_field;
  uint64_t man;
  if (e < emin) {
    double scaled = std::nearbyint(std::ldexp(a, f.man_bits - emin));
    man = static_cast<uint64_t>(scaled);
    if (man > man_mask) {
      exp_field = 1;
      man = 0;
    } else {
      exp_field = 0;
    }
  } else {
    double scaled = std::nearbyint(std::ldexp(a, f.man_bits - e));
    uint64_t full = static_cast<uint64_t>(scaled);
    if (full >> (f.man_bits + 1)) {
      full >>= 1;
      ++e;
    }
    if (e - emin + 1 > static_cast<int>(max_exp)) return overflow();
    exp_field = static_cast<uint64_t>(e + f.bias);
    man = full & man_mask;
  }
  if (exp_field > max_exp || (exp_field == max_exp && man > max_man_at_max_exp)) {
    return overflow();
  }
  uint64_t bits = (exp_field << f.man_bits) | man;
  if (bits == 0 && f.nan == NanKind::kNegZero) return 0;
  return sign | bits;
}

}  // namespace

double DecodeFloat(ElementType type, uint64_t bits) {
  switch (type) {
    case ElementType::kF32:
      return std::bit_cast<float>(static_cast<uint32_t>(bits));
    case ElementType::kF64:
      return std::bit_cast<double>(bits);
    case ElementType::kF8E8M0FNU: {
      uint64_t e = bits & 0xFF;
      if (e == 0xFF) return std::numeric_limits<double>::quiet_NaN();
      return std::ldexp(1.0, static_cast<int>(e) - 127);
    }
    default:
      break;
  }
  Format f;
  if (!GetFormat(type, &f)) return std::numeric_limits<double>::quiet_NaN();
  return DecodeSmall(f, bits);
}

uint64_t EncodeFloat(ElementType type, double value) {
  switch (type) {
    case ElementType::kF32:
      return std::bit_cast<uint32_t>(static_cast<float>(value));
    case ElementType::kF64:
      return std::bit_cast<uint64_t>(value);
    case ElementType::kF8E8M0FNU: {
      if (std::isnan(value) || !(value > 0) || std::isinf(value)) return 0xFF;
      int e2;
      double m = std::frexp(value, &e2);  // value = m * 2^e2
      int e = e2 - 1;
      // m*2 in [1, 2): round to 1 or 2, ties to even (2).
      if (m * 2 >= 1.5) ++e;
      if (e < -127) return 0;
      if (e > 127) return 0xFF;
      return static_cast<uint64_t>(e + 127);
    }
    default:
      break;
  }
  Format f;
  if (!GetFormat(type, &f)) return 0;
  return EncodeSmall(f, value);
}

}  // namespace berth::stablehlo
