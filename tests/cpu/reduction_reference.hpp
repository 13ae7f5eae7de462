// An independent scalar reference for reductions in the cpu kernel tests:
// host element types (with f16/bf16 as bit patterns), one step of each
// reducer as the StableHLO ops define it, seeded values that stress each
// reducer, and exact comparison (any NaN equal to any NaN).
#ifndef BERTH_TESTS_CPU_REDUCTION_REFERENCE_HPP_
#define BERTH_TESTS_CPU_REDUCTION_REFERENCE_HPP_

#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "kernel_test_util.hpp"

namespace berth::testing {

// f16 and bf16 held as their bits.
struct F16 {
  uint16_t bits;
};
struct BF16 {
  uint16_t bits;
};

// The body of a reduce-like op: one StableHLO binary op of its arguments.
enum class Reducer { kAdd, kMultiply, kMaximum, kMinimum, kAnd, kOr, kXor };

inline const char* OpName(Reducer r) {
  switch (r) {
    case Reducer::kAdd: return "add";
    case Reducer::kMultiply: return "multiply";
    case Reducer::kMaximum: return "maximum";
    case Reducer::kMinimum: return "minimum";
    case Reducer::kAnd: return "and";
    case Reducer::kOr: return "or";
    case Reducer::kXor: return "xor";
  }
  return "?";
}

// f16 from float, rounded to nearest even (through the compiler's _Float16,
// which libgcc converts in software: independent of the plugin).
inline uint16_t F16Bits(float f) { return std::bit_cast<uint16_t>(static_cast<_Float16>(f)); }
inline float F16Value(uint16_t bits) { return static_cast<float>(std::bit_cast<_Float16>(bits)); }

// Host type T: its StableHLO name, how it computes (Calc) and is stored.
template <typename T>
struct Elem {
  using Calc = T;
  static Calc ToCalc(T x) { return x; }
  static T FromCalc(Calc x) { return x; }
};
template <>
struct Elem<F16> {
  using Calc = float;
  static Calc ToCalc(F16 x) { return F16Value(x.bits); }
  static F16 FromCalc(float x) { return F16{F16Bits(x)}; }
};
template <>
struct Elem<BF16> {
  using Calc = float;
  static Calc ToCalc(BF16 x) { return FromBf16(x.bits); }
  static BF16 FromCalc(float x) {
    if (std::isnan(x)) return BF16{static_cast<uint16_t>((FloatBits(x) >> 16) | 0x40)};
    return BF16{ToBf16(x)};
  }
};

template <typename T>
constexpr bool kIsFloatElem = std::is_floating_point_v<T> || std::is_same_v<T, F16> ||
                              std::is_same_v<T, BF16>;

template <typename T>
const char* TypeName() {
  if constexpr (std::is_same_v<T, bool>) return "i1";
  else if constexpr (std::is_same_v<T, int8_t>) return "i8";
  else if constexpr (std::is_same_v<T, int16_t>) return "i16";
  else if constexpr (std::is_same_v<T, int32_t>) return "i32";
  else if constexpr (std::is_same_v<T, int64_t>) return "i64";
  else if constexpr (std::is_same_v<T, uint8_t>) return "ui8";
  else if constexpr (std::is_same_v<T, uint16_t>) return "ui16";
  else if constexpr (std::is_same_v<T, uint32_t>) return "ui32";
  else if constexpr (std::is_same_v<T, uint64_t>) return "ui64";
  else if constexpr (std::is_same_v<T, F16>) return "f16";
  else if constexpr (std::is_same_v<T, BF16>) return "bf16";
  else if constexpr (std::is_same_v<T, float>) return "f32";
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return "complex<f32>";
  else if constexpr (std::is_same_v<T, std::complex<double>>)
    return "complex<f64>";
  else return "f64";
}

template <typename T>
ElementType AbiType() {
  if constexpr (std::is_same_v<T, F16>) return ElementType::kF16;
  else if constexpr (std::is_same_v<T, BF16>) return ElementType::kBF16;
  else return ElementTypeOf<T>();
}

template <typename T>
Literal MakeLiteral(const std::vector<T>& values, std::vector<int64_t> dims) {
  if constexpr (std::is_same_v<T, F16> || std::is_same_v<T, BF16>) {
    std::vector<uint16_t> bits(values.size());
    for (size_t i = 0; i < values.size(); ++i) bits[i] = values[i].bits;
    return Literal::Raw<uint16_t>(AbiType<T>(), bits, std::move(dims));
  } else {
    return Literal::Of<T>(values, std::move(dims));
  }
}

template <typename T>
std::vector<T> LiteralValues(const Literal& literal) {
  if constexpr (std::is_same_v<T, F16> || std::is_same_v<T, BF16>) {
    std::vector<uint16_t> bits = literal.Values<uint16_t>();
    std::vector<T> out(bits.size());
    for (size_t i = 0; i < bits.size(); ++i) out[i] = T{bits[i]};
    return out;
  } else {
    return literal.Values<T>();
  }
}

// A scalar constant as MLIR text: floats as their bit pattern in hex.
template <typename T>
std::string ConstantText(T x) {
  char text[32];
  if constexpr (std::is_same_v<T, bool>) {
    return x ? "true" : "false";
  } else if constexpr (std::is_same_v<T, F16> || std::is_same_v<T, BF16>) {
    std::snprintf(text, sizeof(text), "0x%04X", static_cast<unsigned>(x.bits));
  } else if constexpr (std::is_same_v<T, float>) {
    std::snprintf(text, sizeof(text), "0x%08X", static_cast<unsigned>(FloatBits(x)));
  } else if constexpr (std::is_same_v<T, double>) {
    uint64_t bits;
    std::memcpy(&bits, &x, sizeof(bits));
    std::snprintf(text, sizeof(text), "0x%016llX", static_cast<unsigned long long>(bits));
  } else if constexpr (std::is_signed_v<T>) {
    return std::to_string(static_cast<long long>(x));
  } else {
    return std::to_string(static_cast<unsigned long long>(x));
  }
  return text;
}

// One step of `r` on T as the StableHLO op computes it: integers wrap, i1
// add/multiply are or/and, float maximum/minimum propagate NaN and order -0
// below +0, f16/bf16 round after the step.
template <typename T>
T Combine(Reducer r, T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    switch (r) {
      case Reducer::kAdd: case Reducer::kMaximum: case Reducer::kOr: return a || b;
      case Reducer::kMultiply: case Reducer::kMinimum: case Reducer::kAnd: return a && b;
      case Reducer::kXor: return a != b;
    }
    return a;
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
    switch (r) {
      case Reducer::kAdd: return static_cast<T>(static_cast<W>(a) + static_cast<W>(b));
      case Reducer::kMultiply: return static_cast<T>(static_cast<W>(a) * static_cast<W>(b));
      case Reducer::kMaximum: return a < b ? b : a;
      case Reducer::kMinimum: return b < a ? b : a;
      case Reducer::kAnd: return static_cast<T>(a & b);
      case Reducer::kOr: return static_cast<T>(a | b);
      case Reducer::kXor: return static_cast<T>(a ^ b);
    }
    return a;
  } else {
    using C = typename Elem<T>::Calc;
    C x = Elem<T>::ToCalc(a), y = Elem<T>::ToCalc(b);
    C z = x;
    switch (r) {
      case Reducer::kAdd: z = x + y; break;
      case Reducer::kMultiply: z = x * y; break;
      case Reducer::kMaximum:
      case Reducer::kMinimum: {
        const bool maximum = r == Reducer::kMaximum;
        if (std::isnan(x)) return a;
        if (std::isnan(y)) return b;
        if (x == y) return (std::signbit(x) != maximum) ? a : b;
        return ((x < y) == maximum) ? b : a;
      }
      default: break;
    }
    return Elem<T>::FromCalc(z);
  }
}

// Exact equality; any NaN equals any NaN.
template <typename T>
bool SameValue(T a, T b) {
  if constexpr (kIsFloatElem<T>) {
    using C = typename Elem<T>::Calc;
    C x = Elem<T>::ToCalc(a), y = Elem<T>::ToCalc(b);
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
    return std::memcmp(&a, &b, sizeof(T)) == 0;
  } else {
    return a == b;
  }
}

template <typename T>
std::string ValueText(T x) {
  if constexpr (kIsFloatElem<T>) {
    return std::to_string(static_cast<double>(Elem<T>::ToCalc(x)));
  } else {
    return ConstantText(x);
  }
}

// Whether `r` is defined on T (and/or/xor are not on floats).
template <typename T>
bool Applies(Reducer r) {
  return !kIsFloatElem<T> || (r != Reducer::kAnd && r != Reducer::kOr && r != Reducer::kXor);
}

// `count` values for folds of `r` whose exact result every order of the
// fold gives. Integers: any value (wrapping arithmetic is exact and
// commutative). Floats: small integers for add (partial sums exact in every
// type for up to `max_fold` elements per result), +-1 and +-2^+-1 for
// multiply (exact powers of two while the exponent stays in range), any
// value with NaN, infinities and signed zeros for maximum and minimum.
template <typename T>
std::vector<T> ReductionValues(Reducer r, size_t count, std::mt19937_64& random) {
  std::vector<T> values(count);
  if constexpr (std::is_same_v<T, bool>) {
    for (size_t i = 0; i < count; ++i) values[i] = (random() & 1) != 0;
  } else if constexpr (std::is_integral_v<T>) {
    for (size_t i = 0; i < count; ++i) values[i] = static_cast<T>(random());
  } else {
    using C = typename Elem<T>::Calc;
    const bool half = !std::is_floating_point_v<T>;
    for (size_t i = 0; i < count; ++i) {
      C x = 0;
      uint64_t pick = random();
      if (r == Reducer::kAdd) {
        x = static_cast<C>(static_cast<int>(pick % (half ? 3 : 17)) - (half ? 1 : 8));
      } else if (r == Reducer::kMultiply) {
        const C choices[] = {1, -1, 2, 0.5, 1, -1};
        x = choices[pick % 6];
      } else {
        switch (pick % 16) {
          case 0: x = std::numeric_limits<C>::quiet_NaN(); break;
          case 1: x = -0.0; break;
          case 2: x = 0.0; break;
          case 3: x = std::numeric_limits<C>::infinity(); break;
          case 4: x = -std::numeric_limits<C>::infinity(); break;
          default: {
            std::uniform_real_distribution<double> dist(-1000, 1000);
            x = static_cast<C>(dist(random));
          }
        }
        // NaN is rare enough that most results are numbers.
        if (pick % 16 == 0 && (pick >> 8) % 8 != 0) x = 1;
      }
      values[i] = Elem<T>::FromCalc(x);
    }
  }
  return values;
}

// The most elements one fold of `r` on T may take (its start value
// included) for ReductionValues to keep every order exact: sums of +-1 stay
// integers bf16 and f16 hold, products of +-2^+-1 stay in range.
template <typename T>
int64_t MaxFold(Reducer r) {
  if constexpr (!kIsFloatElem<T>) {
    return std::numeric_limits<int64_t>::max();
  } else {
    const bool bf16 = std::is_same_v<T, BF16>, f16 = std::is_same_v<T, F16>;
    if (r == Reducer::kAdd) return bf16 ? 256 : f16 ? 2048 : std::is_same_v<T, float> ? (1 << 20) : (1 << 30);
    if (r == Reducer::kMultiply) return f16 ? 14 : std::is_same_v<T, double> ? 1000 : 120;
    return std::numeric_limits<int64_t>::max();
  }
}

// A start value for folds of `r`.
template <typename T>
T InitValue(Reducer r, std::mt19937_64& random) {
  std::vector<T> one = ReductionValues<T>(r, 1, random);
  if constexpr (kIsFloatElem<T>) {
    // Not NaN: one NaN init would make every result NaN.
    using C = typename Elem<T>::Calc;
    if (std::isnan(Elem<T>::ToCalc(one[0]))) one[0] = Elem<T>::FromCalc(C(0));
  }
  return one[0];
}

// "2x3x4" for dims.
inline std::string DimsText(const std::vector<int64_t>& dims) {
  std::string text;
  for (int64_t d : dims) text += std::to_string(d) + "x";
  return text;
}

// Calls f.template operator()<T>() for every T of Ts, in order.
template <typename... Ts, typename F>
void ForEachType(F&& f) {
  (f.template operator()<Ts>(), ...);
}

// Calls f.template operator()<T>() for every host element type.
template <typename F>
void ForEveryElementType(F&& f) {
  ForEachType<bool, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t, F16,
              BF16, float, double>(f);
}

constexpr Reducer kReducers[] = {Reducer::kAdd, Reducer::kMultiply, Reducer::kMaximum,
                                 Reducer::kMinimum, Reducer::kAnd, Reducer::kOr, Reducer::kXor};

// Sizes around multiples of 8, 16, 32 and 64 lanes.
constexpr int64_t kLaneSizes[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 32, 33,
                                  63, 64, 65, 127, 128, 129};

}  // namespace berth::testing

#endif  // BERTH_TESTS_CPU_REDUCTION_REFERENCE_HPP_
