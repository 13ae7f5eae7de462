// CHLO's elementwise math on the CPU plugin against long double references
// (special_reference.hpp, and the C library's long double functions for
// the ops the plugin takes from the C library), on seeded random inputs
// and edge values (NaN, infinities, signed zeros, subnormals, poles, huge
// arguments), in f32, f64, f16 and bf16, over sizes that straddle the
// vector widths and the fused block (1, 17 and 2053 elements), fused and
// alone.
#include <bit>
#include <cstring>
#include <functional>
#include <random>

#include "elementwise_test_util.hpp"
#include "special_reference.hpp"

namespace berth::testing {
namespace {

using Reference = std::function<long double(long double)>;
using Reference2 = std::function<long double(long double, long double)>;

// ---------------------------------------------------------------- f16 / bf16

float HalfToFloat(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1F;
  uint32_t mantissa = h & 0x3FF;
  if (exponent == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
  if (exponent == 0) return std::copysign(std::ldexp(static_cast<float>(mantissa), -24), sign ? -1.0f : 1.0f);
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}
float Bf16ToFloat(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

// Every finite f16 / bf16 value as a long double, by bit pattern: rounding
// a long double to nearest (ties to even) by searching the sorted values,
// independent of any bit manipulation the plugin does.
struct HalfFormat {
  bool bf16;
  std::vector<std::pair<long double, uint16_t>> finite;  // sorted by value, -0 dropped
  explicit HalfFormat(bool is_bf16) : bf16(is_bf16) {
    for (uint32_t bits = 0; bits < 0x10000; ++bits) {
      float f = Decode(static_cast<uint16_t>(bits));
      if (std::isfinite(f) && bits != 0x8000) finite.push_back({f, static_cast<uint16_t>(bits)});
    }
    std::sort(finite.begin(), finite.end());
  }
  float Decode(uint16_t bits) const { return bf16 ? Bf16ToFloat(bits) : HalfToFloat(bits); }
  uint16_t Round(long double v) const {
    if (std::isnan(v)) return bf16 ? 0x7FC0 : 0x7E00;
    uint16_t inf = bf16 ? 0x7F80 : 0x7C00;
    if (v == 0) return std::signbit(v) ? 0x8000 : 0;
    long double max = finite.back().first;
    // Beyond max + half an ulp of max: infinity.
    long double ulp = max - finite[finite.size() - 2].first;
    if (v >= max + ulp / 2) return inf;
    if (v <= -max - ulp / 2) return static_cast<uint16_t>(inf | 0x8000);
    auto it = std::lower_bound(finite.begin(), finite.end(), std::make_pair(v, uint16_t{0}));
    if (it == finite.end()) return finite.back().second;
    if (it->first == v || it == finite.begin()) return it->second;
    auto below = std::prev(it);
    long double up = it->first - v, down = v - below->first;
    uint16_t r = up < down ? it->second : down < up ? below->second
                 : ((it->second & 1) == 0 ? it->second : below->second);
    // A value that rounds to zero keeps its sign.
    if ((r & 0x7FFF) == 0) return v < 0 ? 0x8000 : 0;
    return r;
  }
};

const HalfFormat& F16Format() {
  static const HalfFormat format(false);
  return format;
}
const HalfFormat& Bf16Format() {
  static const HalfFormat format(true);
  return format;
}

// ---------------------------------------------------------------- comparison

// The distance in representable values between two floats of one type,
// saturated at INT64_MAX (two 64-bit magnitudes of opposite signs can be
// further apart than an int64_t holds).
template <typename Bits>
int64_t UlpDistance(Bits a, Bits b, int width) {
  const uint64_t sign = uint64_t{1} << (width - 1);
  const uint64_t ma = static_cast<uint64_t>(a) & (sign - 1);
  const uint64_t mb = static_cast<uint64_t>(b) & (sign - 1);
  const bool na = (static_cast<uint64_t>(a) & sign) != 0;
  const bool nb = (static_cast<uint64_t>(b) & sign) != 0;
  uint64_t d;
  if (na == nb) {
    d = ma > mb ? ma - mb : mb - ma;
  } else {
    d = ma + mb;  // both below 2^63: no wrap
  }
  return d > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(d);
}

// How close a result must be: `ulps` in its type, or `absolute`.
struct Tolerance {
  int64_t ulps = 1;
  long double absolute = 0;
};

// Checks got[i] (bits of T) against ref[i] rounded to T.
template <typename T>
void ExpectClose(const std::string& what, const std::vector<long double>& inputs,
                 const std::vector<long double>& refs, const Literal& out, Tolerance tolerance,
                 const HalfFormat* half = nullptr) {
  ASSERT_EQ(out.bytes.size(), refs.size() * sizeof(T)) << what;
  int failures = 0;
  for (size_t i = 0; i < refs.size(); ++i) {
    T got;
    std::memcpy(&got, out.bytes.data() + i * sizeof(T), sizeof(T));
    long double ref = refs[i];
    long double value;
    int64_t ulps;
    if constexpr (std::is_same_v<T, uint16_t>) {
      value = half->Decode(got);
      uint16_t expected = half->Round(ref);
      ulps = UlpDistance<uint16_t>(got, expected, 16);
      if (std::isnan(ref) || std::isnan(value)) ulps = std::isnan(ref) && std::isnan(value) ? 0 : 1 << 20;
    } else {
      value = got;
      T expected = static_cast<T>(ref);
      using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
      ulps = UlpDistance<Bits>(std::bit_cast<Bits>(got), std::bit_cast<Bits>(expected),
                               sizeof(T) * 8);
      if (std::isnan(ref) || std::isnan(value)) ulps = std::isnan(ref) && std::isnan(value) ? 0 : int64_t{1} << 40;
    }
    bool ok = ulps <= tolerance.ulps ||
              (std::isfinite(ref) && std::fabs(value - ref) <= tolerance.absolute);
    if (!ok && failures++ < 8) {
      ADD_FAILURE() << what << " at element " << i << " of " << refs.size() << ": input "
                    << static_cast<double>(inputs[i]) << " gave " << static_cast<double>(value)
                    << ", reference " << static_cast<double>(ref) << " (" << ulps << " ulps)";
    }
  }
}

// ---------------------------------------------------------------- inputs

// Edge values every unary op sees, in the precision of each type.
std::vector<long double> EdgeValues() {
  const long double nan = std::numeric_limits<long double>::quiet_NaN();
  const long double inf = std::numeric_limits<long double>::infinity();
  return {nan, inf, -inf, 0.0L, -0.0L, 1.0L, -1.0L, 0.5L, -0.5L, 2.0L, -2.0L, 1e-30L, -1e-30L,
          1e30L, -1e30L, 3.0e38L, -3.0e38L, 1e-40L, -1e-40L, 1e-310L, 1e300L, 0.99999994L,
          -0.99999994L, 1.0000001L, 1.5L, 10.0L, -10.5L, 100.25L, 0x1p-126L, 0x1p-149L};
}

// The inputs of one op in type T: edge values, then uniform values in
// [lo, hi] and log-uniform magnitudes up to 2^`exponent`, each rounded to T.
struct InputSpec {
  long double lo = -10, hi = 10;
  int exponent = 20;
  std::vector<long double> extra;  // the op's own edge values
  // Negative non-integers made positive (zeta's q: there the sum cancels
  // catastrophically for odd s, so no direct reference is exact; the
  // identity test below covers them).
  bool no_negative_fractions = false;
};

template <typename T>
long double RoundTo(long double v, const HalfFormat* half) {
  if constexpr (std::is_same_v<T, uint16_t>) {
    return half->Decode(half->Round(v));
  } else {
    return static_cast<T>(v);
  }
}

template <typename T>
std::vector<long double> Inputs(const InputSpec& spec, size_t n, uint64_t seed,
                                const HalfFormat* half = nullptr) {
  std::mt19937_64 random(seed);
  std::vector<long double> values = EdgeValues();
  values.insert(values.end(), spec.extra.begin(), spec.extra.end());
  std::uniform_real_distribution<double> uniform(static_cast<double>(spec.lo), static_cast<double>(spec.hi));
  std::uniform_real_distribution<double> unit(0, 1);
  while (values.size() < n) {
    if (random() % 4 == 0) {
      long double magnitude = std::ldexp(1.0L + unit(random), static_cast<int>(random() % (2 * spec.exponent + 1)) - spec.exponent);
      values.push_back(random() % 2 ? magnitude : -magnitude);
    } else {
      values.push_back(uniform(random));
    }
  }
  values.resize(n);
  for (long double& v : values) {
    v = RoundTo<T>(v, half);
    if (spec.no_negative_fractions && v < 0 && v != floorl(v)) v = -v;
  }
  return values;
}

template <typename T>
Literal ToLiteral(const std::vector<long double>& values, ElementType type, const HalfFormat* half) {
  std::vector<T> raw;
  for (long double v : values) {
    if constexpr (std::is_same_v<T, uint16_t>) raw.push_back(half->Round(v));
    else raw.push_back(static_cast<T>(v));
  }
  return Literal::Raw<T>(type, raw, {static_cast<int64_t>(raw.size())});
}

// ---------------------------------------------------------------- fixture

struct Case {
  const char* type;
  ElementType element;
};
constexpr Case kTypes[] = {{"f32", ElementType::kF32}, {"f64", ElementType::kF64},
                           {"f16", ElementType::kF16}, {"bf16", ElementType::kBF16}};
constexpr size_t kSizes[] = {1, 17, 2053};

class ChloSpecialTest : public ElementwiseTest {
 protected:
  // Runs `op` on inputs of every type and size and checks each element
  // against `ref` within `f32` (f32, f16, bf16: in their own ulps) or
  // `f64` tolerances.
  void CheckUnary(const std::string& op, const InputSpec& spec, const Reference& ref,
                  Tolerance f32, Tolerance f64) {
    uint64_t seed = std::hash<std::string>()(op);
    for (const Case& c : kTypes) {
      for (size_t size : kSizes) {
        const HalfFormat* half = c.element == ElementType::kF16    ? &F16Format()
                                 : c.element == ElementType::kBF16 ? &Bf16Format()
                                                                   : nullptr;
        std::string what = op + " on " + std::to_string(size) + "x" + c.type;
        SCOPED_TRACE(what);
        std::vector<long double> x;
        Literal in;
        if (c.element == ElementType::kF32) {
          x = Inputs<float>(spec, size, seed, half);
          in = ToLiteral<float>(x, c.element, half);
        } else if (c.element == ElementType::kF64) {
          x = Inputs<double>(spec, size, seed, half);
          in = ToLiteral<double>(x, c.element, half);
        } else {
          x = Inputs<uint16_t>(spec, size, seed, half);
          in = ToLiteral<uint16_t>(x, c.element, half);
        }
        std::vector<long double> refs;
        for (long double v : x) refs.push_back(ref(v));
        Literal out = Op(op, {in}, c.type);
        if (c.element == ElementType::kF32) ExpectClose<float>(what, x, refs, out, f32);
        else if (c.element == ElementType::kF64) ExpectClose<double>(what, x, refs, out, f64);
        else ExpectClose<uint16_t>(what, x, refs, out, f32, half);
      }
    }
  }

  // The same for a binary op, the first operand from `first`.
  void CheckBinary(const std::string& op, const std::vector<long double>& first,
                   const InputSpec& spec, const Reference2& ref, Tolerance f32, Tolerance f64) {
    uint64_t seed = std::hash<std::string>()(op);
    for (const Case& c : kTypes) {
      const HalfFormat* half = c.element == ElementType::kF16    ? &F16Format()
                               : c.element == ElementType::kBF16 ? &Bf16Format()
                                                                 : nullptr;
      const size_t size = 4 * first.size() + 3;
      std::string what = op + " on " + std::to_string(size) + "x" + c.type;
      SCOPED_TRACE(what);
      std::vector<long double> a, b;
      for (size_t i = 0; i < size; ++i) a.push_back(first[i % first.size()]);
      Literal la, lb;
      if (c.element == ElementType::kF32) {
        for (long double& v : a) v = RoundTo<float>(v, half);
        b = Inputs<float>(spec, size, seed, half);
        la = ToLiteral<float>(a, c.element, half);
        lb = ToLiteral<float>(b, c.element, half);
      } else if (c.element == ElementType::kF64) {
        b = Inputs<double>(spec, size, seed, half);
        la = ToLiteral<double>(a, c.element, half);
        lb = ToLiteral<double>(b, c.element, half);
      } else {
        for (long double& v : a) v = RoundTo<uint16_t>(v, half);
        b = Inputs<uint16_t>(spec, size, seed, half);
        la = ToLiteral<uint16_t>(a, c.element, half);
        lb = ToLiteral<uint16_t>(b, c.element, half);
      }
      std::vector<long double> refs;
      for (size_t i = 0; i < size; ++i) refs.push_back(ref(a[i], b[i]));
      Literal out = Op(op, {la, lb}, c.type);
      if (c.element == ElementType::kF32) ExpectClose<float>(what, b, refs, out, f32);
      else if (c.element == ElementType::kF64) ExpectClose<double>(what, b, refs, out, f64);
      else ExpectClose<uint16_t>(what, b, refs, out, f32, half);
    }
  }
};
INSTANTIATE_TEST_SUITE_P(Plan, ChloSpecialTest, ::testing::Bool(), FusionName);

// The ops the plugin takes from the C library in the element type's own
// precision (float for f32, f16 and bf16): within a few ulps.
constexpr Tolerance kLibmF32{3, 0};
constexpr Tolerance kLibmF64{4, 0};
// The special functions computed in double / long double and rounded once.
constexpr Tolerance kWideF32{1, 0};
constexpr Tolerance kWideF64{2, 0};

TEST_P(ChloSpecialTest, ErfAndErfc) {
  CheckUnary("chlo.erf", {-6, 6, 10, {}}, [](long double x) { return erfl(x); }, kLibmF32, kLibmF64);
  CheckUnary("chlo.erfc", {-6, 30, 10, {27.0L, 9.0L}}, [](long double x) { return erfcl(x); },
             kLibmF32, {5, 0});
}

TEST_P(ChloSpecialTest, ErfInvNearOneAndZero) {
  InputSpec spec{-1, 1, 1, {1 - 0x1p-24L, -(1 - 0x1p-24L), 1 - 0x1p-53L, 1 - 0x1p-12L, 0x1p-100L,
                           0.999L, -0.9999L, 0.25L, 1e-45L, 1 - 0x1p-11L, 1 - 0x1p-8L}};
  CheckUnary("chlo.erf_inv", spec, reference::ErfInv, kWideF32, kWideF64);
}

TEST_P(ChloSpecialTest, LgammaAtPolesZerosAndHugeArguments) {
  InputSpec spec{-40, 40, 60, {-1, -2, -3, -100, -2.5L, -2.4570247L, -2.4570248L, 1.0000001L,
                               2.0000002L, 0.99999994L, -1.0000001L, 1e-38L, 2.5e305L}};
  // Near the zeros of lgamma (1, 2, -2.457...) the error is measured
  // against the terms' size: a few ulps of 1.
  CheckUnary("chlo.lgamma", spec, reference::Lgamma, {1, 0x1p-23L}, {2, 0x1p-51L});
}

TEST_P(ChloSpecialTest, DigammaAtPolesRootAndHugeArguments) {
  InputSpec spec{-30, 30, 60, {-1, -2, -50, -0.5L, -1.5L, 1.4616321L, 1.4616322L,
                               1.4616321449683622L, -1.0000001L, 1e-38L, 1e300L}};
  // Near its positive root (1.4616...) digamma is the difference of terms
  // of size 2: absolute error a few ulps of 1.
  CheckUnary("chlo.digamma", spec, reference::Digamma, {1, 0x1p-23L}, {2, 0x1p-50L});
}

TEST_P(ChloSpecialTest, BesselI1eSmallLargeAndHuge) {
  InputSpec spec{-600, 600, 9, {29.999L, 30.0L, 30.001L, -30.5L, 1e6L, 1e10L, 700.0L}};
  CheckUnary("chlo.bessel_i1e", spec, reference::BesselI1e, kWideF32, kWideF64);
}

TEST_P(ChloSpecialTest, InverseTrigonometricAndHyperbolic) {
  CheckUnary("chlo.asin", {-1.1L, 1.1L, 10, {}}, [](long double x) { return asinl(x); }, kLibmF32, kLibmF64);
  CheckUnary("chlo.acos", {-1.1L, 1.1L, 10, {}}, [](long double x) { return acosl(x); }, kLibmF32, kLibmF64);
  CheckUnary("chlo.atan", {-10, 10, 60, {}}, [](long double x) { return atanl(x); }, kLibmF32, kLibmF64);
  CheckUnary("chlo.sinh", {-90, 90, 8, {710.0L, 89.5L}}, [](long double x) { return sinhl(x); },
             kLibmF32, kLibmF64);
  CheckUnary("chlo.cosh", {-90, 90, 8, {710.0L, 89.5L}}, [](long double x) { return coshl(x); },
             kLibmF32, kLibmF64);
  CheckUnary("chlo.tan", {-10, 10, 30, {1.5707964L, 1.5707963267948966L}},
             [](long double x) { return tanl(x); }, kLibmF32, kLibmF64);
  CheckUnary("chlo.asinh", {-100, 100, 120, {}}, [](long double x) { return asinhl(x); }, kLibmF32, kLibmF64);
  CheckUnary("chlo.acosh", {0.5L, 100, 120, {1.0000001L}}, [](long double x) { return acoshl(x); },
             kLibmF32, kLibmF64);
  CheckUnary("chlo.atanh", {-1.1L, 1.1L, 10, {0.99999994L}}, [](long double x) { return atanhl(x); },
             kLibmF32, kLibmF64);
}

TEST_P(ChloSpecialTest, SquareRoundsOnce) {
  CheckUnary("chlo.square", {-1e3L, 1e3L, 70, {1.8e19L, 1e-23L}}, [](long double x) { return x * x; },
             {0, 0}, {0, 0});
}

TEST_P(ChloSpecialTest, ZetaOverItsDomain) {
  // s = 1 (inf), below 1 (NaN), integers (poles at q <= 0), non-integers.
  std::vector<long double> s = {1, 0.5L, 2, 3, 4, 2.5L, 1.25L, 7, 10, 30.5L, 100, 1e30L, 6, 8};
  InputSpec q{0.01L, 20, 12, {0, -1, -3, 1e-30L, 1e20L, 0.5L, 1.5L}, true};
  CheckBinary("chlo.zeta", s, q, reference::Zeta, {1, 0}, {3, 0});
  // Negative non-integer q, even s: every term is positive.
  std::vector<long double> even = {2, 4, 6, 10, 20};
  InputSpec negative{-40, -0.01L, 3, {-0.25L, -2.5L, -10.5L, -33.3L}};
  CheckBinary("chlo.zeta", even, negative, reference::Zeta, {1, 0}, {3, 0});
}

TEST_P(ChloSpecialTest, PolygammaOfNaturalOrders) {
  std::vector<long double> n = {0, 1, 2, 3, 4, 5, 10, 1.5L, -1, 20};
  InputSpec x{0.05L, 15, 6, {-3, 0, 0.5L, 2.5L}, true};
  CheckBinary("chlo.polygamma", n, x, reference::Polygamma, {1, 0x1p-23L}, {3, 0x1p-50L});
  // Odd n (even zeta order) at negative non-integers: positive terms only.
  std::vector<long double> odd = {1, 3, 5};
  InputSpec negative{-20, -0.01L, 2, {-0.25L, -2.5L, -10.5L}};
  CheckBinary("chlo.polygamma", odd, negative, reference::Polygamma, {1, 0x1p-23L}, {3, 0x1p-50L});
}

// For odd s the terms of zeta(s, q < 0) cancel: zeta(s, -k - 1/2) is
// exactly zeta(s, k + 3/2) (the terms down to -1/2 cancel zeta(s, 1/2)'s
// first ones), and polygamma(n, -k - 1/2) = polygamma(n, k + 3/2) for even n.
TEST_P(ChloSpecialTest, OddOrdersAtNegativeHalfIntegersMatchTheirReflection) {
  std::vector<double> s, negative, positive;
  for (double order : {3.0, 5.0, 11.0, 21.0}) {
    for (double k : {0.0, 1.0, 10.0, 100.0}) {
      s.push_back(order);
      negative.push_back(-k - 0.5);
      positive.push_back(k + 1.5);
    }
  }
  std::vector<double> at_negative = Values<double>("chlo.zeta", {Vec(s), Vec(negative)}, "f64");
  std::vector<double> at_positive = Values<double>("chlo.zeta", {Vec(s), Vec(positive)}, "f64");
  EXPECT_EQ(BitsOf(at_negative), BitsOf(at_positive));
  for (size_t i = 0; i < s.size(); ++i) {
    long double expected = reference::Zeta(s[i], positive[i]);
    EXPECT_NEAR(at_positive[i], static_cast<double>(expected), 4e-16 * std::fabs(static_cast<double>(expected))) << i;
  }
  std::vector<double> n;
  for (double order : s) n.push_back(order - 1);
  EXPECT_EQ(BitsOf(Values<double>("chlo.polygamma", {Vec(n), Vec(negative)}, "f64")),
            BitsOf(Values<double>("chlo.polygamma", {Vec(n), Vec(positive)}, "f64")));
  std::vector<float> sf(s.begin(), s.end()), nf(negative.begin(), negative.end()), pf(positive.begin(), positive.end());
  EXPECT_EQ(BitsOf(Values<float>("chlo.zeta", {Vec(sf), Vec(nf)}, "f32")),
            BitsOf(Values<float>("chlo.zeta", {Vec(sf), Vec(pf)}, "f32")));
}

}  // namespace
}  // namespace berth::testing
