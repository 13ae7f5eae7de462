// Narrow element types on the cpu plugin: i2, i4, ui2, ui4 (every op on
// every pair of values against exact integer arithmetic modulo 2^bits) and
// the f8/f6/f4 formats (every bit pattern decoded against a decoder written
// here from the formats' definitions; conversions from f32 against the
// nearest representable value found by search, ties to even; sums and
// products of every pair of f8E4M3FN and f8E5M2 values rounded once), plus
// the kernels that convert them: dot_general, iota, reduce, the checks.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>

#include "elementwise_test_util.hpp"

namespace berth::testing {
namespace {

// ------------------------------------------------------------ integers

struct IntType {
  ElementType type;
  int bits;
  bool is_signed;
};

constexpr IntType kIntTypes[] = {
    {ElementType::kS2, 2, true},
    {ElementType::kS4, 4, true},
    {ElementType::kU2, 2, false},
    {ElementType::kU4, 4, false},
};

int64_t Lo(const IntType& t) { return t.is_signed ? -(int64_t{1} << (t.bits - 1)) : 0; }
int64_t Hi(const IntType& t) {
  return t.is_signed ? (int64_t{1} << (t.bits - 1)) - 1 : (int64_t{1} << t.bits) - 1;
}

// `v` modulo 2^bits, as the type's value.
int64_t Wrap(const IntType& t, int64_t v) {
  const int64_t mod = int64_t{1} << t.bits;
  int64_t r = ((v % mod) + mod) % mod;
  return t.is_signed && r > Hi(t) ? r - mod : r;
}

uint64_t Pattern(const IntType& t, int64_t v) {
  return static_cast<uint64_t>(v) & ((uint64_t{1} << t.bits) - 1);
}

// The op's value per the spec, on the type's values.
int64_t IntReference(const std::string& op, const IntType& t, int64_t a, int64_t b) {
  const int64_t bits = t.bits;
  if (op == "add") return Wrap(t, a + b);
  if (op == "subtract") return Wrap(t, a - b);
  if (op == "multiply") return Wrap(t, a * b);
  if (op == "divide") return b == 0 ? 0 : Wrap(t, a / b);
  if (op == "remainder") return b == 0 ? 0 : Wrap(t, a % b);
  if (op == "maximum") return std::max(a, b);
  if (op == "minimum") return std::min(a, b);
  if (op == "and") return Wrap(t, a & b);
  if (op == "or") return Wrap(t, a | b);
  if (op == "xor") return Wrap(t, a ^ b);
  if (op == "shift_left") return b < 0 || b >= bits ? 0 : Wrap(t, a << b);
  if (op == "shift_right_logical") {
    return b < 0 || b >= bits ? 0 : Wrap(t, static_cast<int64_t>(Pattern(t, a) >> b));
  }
  if (op == "shift_right_arithmetic") return b < 0 || b >= bits ? (a < 0 ? -1 : 0) : a >> b;
  if (op == "negate") return Wrap(t, -a);
  if (op == "abs") return Wrap(t, a < 0 ? -a : a);
  if (op == "not") return Wrap(t, ~a);
  if (op == "sign") return (a > 0) - (a < 0);
  // Counts are values of the type too (i2's count 2 wraps to -2).
  if (op == "popcnt") return Wrap(t, std::popcount(Pattern(t, a)));
  if (op == "count_leading_zeros") return Wrap(t, std::countl_zero(Pattern(t, a)) - (64 - bits));
  ADD_FAILURE() << "no reference for " << op;
  return 0;
}

// Narrow integer values (one byte each), 1-D or with `dims`.
Literal NarrowLiteral(ElementType type, const std::vector<int64_t>& values,
                      std::vector<int64_t> dims = {}) {
  std::vector<uint8_t> bytes;
  for (int64_t v : values) bytes.push_back(static_cast<uint8_t>(v));
  if (dims.empty()) dims = {static_cast<int64_t>(bytes.size())};
  return Literal::Raw<uint8_t>(type, bytes, std::move(dims));
}

// A narrow integer result's values (stored sign- or zero-extended).
std::vector<int64_t> NarrowValues(const Literal& literal, const IntType& t) {
  std::vector<int64_t> out;
  for (uint8_t b : literal.Values<uint8_t>())
    out.push_back(t.is_signed ? static_cast<int8_t>(b) : b);
  return out;
}

class CpuNarrowIntegerTest : public ElementwiseTest {};

TEST_P(CpuNarrowIntegerTest, EveryOpOnEveryPairMatchesModularArithmetic) {
  for (const IntType& t : kIntTypes) {
    std::vector<int64_t> as, bs;
    for (int64_t a = Lo(t); a <= Hi(t); ++a) {
      for (int64_t b = Lo(t); b <= Hi(t); ++b) {
        as.push_back(a);
        bs.push_back(b);
      }
    }
    const std::string name = MlirType(t.type);
    Literal a = NarrowLiteral(t.type, as), b = NarrowLiteral(t.type, bs);
    for (std::string op :
         {"add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "and", "or",
          "xor", "shift_left", "shift_right_logical", "shift_right_arithmetic"}) {
      std::vector<int64_t> got = NarrowValues(Op("stablehlo." + op, {a, b}, name), t);
      ASSERT_EQ(got.size(), as.size()) << op << " " << name;
      for (size_t i = 0; i < as.size(); ++i) {
        EXPECT_EQ(got[i], IntReference(op, t, as[i], bs[i]))
            << op << " " << name << " of " << as[i] << ", " << bs[i];
      }
    }
    for (std::string op : {"negate", "abs", "not", "sign", "popcnt", "count_leading_zeros"}) {
      if (!t.is_signed && (op == "negate" || op == "abs" || op == "sign")) continue;
      std::vector<int64_t> got = NarrowValues(Op("stablehlo." + op, {a}, name), t);
      ASSERT_EQ(got.size(), as.size()) << op << " " << name;
      for (size_t i = 0; i < as.size(); ++i) {
        EXPECT_EQ(got[i], IntReference(op, t, as[i], 0)) << op << " " << name << " of " << as[i];
      }
    }
    std::vector<bool> less =
        Values<bool>("stablehlo.compare", {a, b}, "i1",
                     "comparison_direction = #stablehlo<comparison_direction LT>");
    ASSERT_EQ(less.size(), as.size()) << name;
    for (size_t i = 0; i < as.size(); ++i) EXPECT_EQ(less[i], as[i] < bs[i]) << name << " " << i;
  }
}

TEST_P(CpuNarrowIntegerTest, ConvertWrapsFromIntegersAndSaturatesFromFloats) {
  const IntType i4 = kIntTypes[1], ui2 = kIntTypes[2];
  EXPECT_EQ(
      NarrowValues(Op("stablehlo.convert", {Vec<int32_t>({-9, -8, 7, 8, 100, 16})}, "i4"), i4),
      (std::vector<int64_t>{7, -8, 7, -8, 4, 0}));
  EXPECT_EQ(NarrowValues(Op("stablehlo.convert",
                            {Vec<float>({-9.5f, -0.9f, 6.99f, 100, kNaNF, -kInfF})}, "i4"),
                         i4),
            (std::vector<int64_t>{-8, 0, 6, 7, 0, -8}));
  EXPECT_EQ(
      NarrowValues(
          Op("stablehlo.convert", {NarrowLiteral(ElementType::kS4, {-1, -8, 7, 5})}, "ui2"), ui2),
      (std::vector<int64_t>{3, 0, 3, 1}));
  EXPECT_EQ(
      Values<float>("stablehlo.convert", {NarrowLiteral(ElementType::kS4, {-8, -1, 0, 7})}, "f32"),
      (std::vector<float>{-8, -1, 0, 7}));
  EXPECT_EQ(
      Values<uint32_t>("stablehlo.convert", {NarrowLiteral(ElementType::kS4, {-1, 3})}, "ui32"),
      (std::vector<uint32_t>{0xFFFFFFFFu, 3}));
  EXPECT_EQ(Values<int64_t>("stablehlo.convert", {NarrowLiteral(ElementType::kU4, {15, 8})}, "i64"),
            (std::vector<int64_t>{15, 8}));
  // bitcast_convert between i4 and ui4: the same four bits.
  EXPECT_EQ(NarrowValues(Op("stablehlo.bitcast_convert",
                            {NarrowLiteral(ElementType::kS4, {-1, -8, 3})}, "ui4"),
                         kIntTypes[3]),
            (std::vector<int64_t>{15, 8, 3}));
}

INSTANTIATE_TEST_SUITE_P(Fusion, CpuNarrowIntegerTest, ::testing::Bool(), FusionName);

// ------------------------------------------------------------ float formats

enum class Special { kIeee, kAllOnesNan, kNegZeroNan, kNone, kExponentOnly };

struct FloatFormat {
  ElementType type;
  int exponent_bits;
  int mantissa_bits;
  int bias;
  Special special;
};

constexpr FloatFormat kFormats[] = {
    {ElementType::kF8E5M2, 5, 2, 15, Special::kIeee},
    {ElementType::kF8E4M3, 4, 3, 7, Special::kIeee},
    {ElementType::kF8E3M4, 3, 4, 3, Special::kIeee},
    {ElementType::kF8E4M3FN, 4, 3, 7, Special::kAllOnesNan},
    {ElementType::kF8E4M3FNUZ, 4, 3, 8, Special::kNegZeroNan},
    {ElementType::kF8E5M2FNUZ, 5, 2, 16, Special::kNegZeroNan},
    {ElementType::kF8E4M3B11FNUZ, 4, 3, 11, Special::kNegZeroNan},
    {ElementType::kF6E2M3FN, 2, 3, 1, Special::kNone},
    {ElementType::kF6E3M2FN, 3, 2, 3, Special::kNone},
    {ElementType::kF4E2M1FN, 2, 1, 1, Special::kNone},
    {ElementType::kF8E8M0FNU, 8, 0, 127, Special::kExponentOnly},
};

int Width(const FloatFormat& f) {
  return f.special == Special::kExponentOnly ? 8 : 1 + f.exponent_bits + f.mantissa_bits;
}

// The value of bit pattern `bits` of format `f`, from the definition.
double Decode(const FloatFormat& f, uint32_t bits) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (f.special == Special::kExponentOnly)
    return bits == 0xFF ? nan : std::ldexp(1.0, int(bits) - 127);
  const int width = Width(f);
  const bool negative = (bits >> (width - 1)) & 1;
  const uint32_t exponent = (bits >> f.mantissa_bits) & ((1u << f.exponent_bits) - 1);
  const uint32_t mantissa = bits & ((1u << f.mantissa_bits) - 1);
  const uint32_t max_exponent = (1u << f.exponent_bits) - 1;
  const uint32_t max_mantissa = (1u << f.mantissa_bits) - 1;
  if (f.special == Special::kIeee && exponent == max_exponent) {
    return mantissa != 0 ? nan : (negative ? -INFINITY : INFINITY);
  }
  if (f.special == Special::kAllOnesNan && exponent == max_exponent && mantissa == max_mantissa)
    return nan;
  if (f.special == Special::kNegZeroNan && negative && exponent == 0 && mantissa == 0) return nan;
  double magnitude = exponent == 0 ? std::ldexp(mantissa, 1 - f.bias - f.mantissa_bits)
                                   : std::ldexp(mantissa + (1u << f.mantissa_bits),
                                                int(exponent) - f.bias - f.mantissa_bits);
  return negative ? -magnitude : magnitude;
}

// The pattern a finite `value` below the overflow threshold rounds to: the
// nearest finite value, found by search over every pattern; of two equally
// near, the even pattern (ties to even), and of +0 and -0 the one of the
// value's sign (formats without -0 have only +0).
uint32_t Encode(const FloatFormat& f, double value) {
  uint32_t best = 0;
  double best_error = INFINITY;
  for (uint32_t b = 0; b < (1u << Width(f)); ++b) {
    double v = Decode(f, b);
    if (std::isnan(v) || std::isinf(v)) continue;
    double error = std::fabs(v - value);
    if (error < best_error) {
      best = b;
      best_error = error;
    } else if (error == best_error) {
      double kept = Decode(f, best);
      if (v == kept) {
        if (std::signbit(v) == std::signbit(value)) best = b;
      } else if ((b & 1) == 0) {
        best = b;
      }
    }
  }
  return best;
}

class CpuNarrowFloatTest : public ElementwiseTest {};

TEST_P(CpuNarrowFloatTest, EveryBitPatternDecodesAsItsFormatDefines) {
  for (const FloatFormat& f : kFormats) {
    std::vector<uint8_t> patterns;
    for (uint32_t b = 0; b < (1u << Width(f)); ++b) patterns.push_back(static_cast<uint8_t>(b));
    std::vector<double> got = Values<double>(
        "stablehlo.convert",
        {Literal::Raw<uint8_t>(f.type, patterns, {static_cast<int64_t>(patterns.size())})}, "f64");
    ASSERT_EQ(got.size(), patterns.size()) << MlirType(f.type);
    for (size_t i = 0; i < patterns.size(); ++i) {
      double want = Decode(f, patterns[i]);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got[i])) << MlirType(f.type) << " pattern " << i;
      } else {
        EXPECT_EQ(Bits(got[i]), Bits(want))
            << MlirType(f.type) << " pattern " << i << ": " << got[i] << " vs " << want;
      }
    }
  }
}

// The largest finite value of `f` and whether `magnitude` rounds past it:
// beyond the largest value plus half the step below it, or exactly there
// when the largest value's pattern is odd (ties to even).
struct Overflow {
  double max = 0;
  double threshold = 0;
  bool max_is_odd = false;
  bool Past(double magnitude) const {
    return magnitude > threshold || (magnitude == threshold && max_is_odd);
  }
};

Overflow OverflowOf(const FloatFormat& f) {
  Overflow o;
  double below = 0;
  for (uint32_t b = 0; b < (1u << Width(f)); ++b) {
    double v = Decode(f, b);
    if (std::isnan(v) || std::isinf(v)) continue;
    if (v > o.max) {
      below = o.max;
      o.max = v;
      o.max_is_odd = (b & 1) != 0;
    } else if (v > below) {
      below = v;
    }
  }
  o.threshold = o.max + (o.max - below) / 2;
  return o;
}

// The value a finite (non-NaN) `value` becomes in `f`: past the overflow
// threshold infinity (IEEE formats), the largest finite value (f6, f4, which
// have neither) or NaN (FN, FNUZ); else the nearest value (Encode).
double Rounded(const FloatFormat& f, const Overflow& overflow, double value) {
  if (overflow.Past(std::fabs(value))) {
    if (f.special == Special::kIeee) return value > 0 ? INFINITY : -INFINITY;
    if (f.special == Special::kNone) return value > 0 ? overflow.max : -overflow.max;
    return std::numeric_limits<double>::quiet_NaN();
  }
  return Decode(f, Encode(f, value));
}

TEST_P(CpuNarrowFloatTest, ConvertFromF32RoundsToNearestEven) {
  std::mt19937 rng(17);
  for (const FloatFormat& f : kFormats) {
    if (f.special == Special::kExponentOnly) continue;  // below
    const Overflow overflow = OverflowOf(f);
    const double threshold = overflow.threshold;
    std::vector<float> in;
    // Every value and every midpoint between neighbours, both signs, and
    // random values over the whole range and past it.
    std::vector<double> finite;
    for (uint32_t b = 0; b < (1u << Width(f)); ++b) {
      double v = Decode(f, b);
      if (!std::isnan(v) && !std::isinf(v)) finite.push_back(v);
    }
    std::sort(finite.begin(), finite.end());
    for (size_t i = 0; i < finite.size(); ++i) {
      in.push_back(static_cast<float>(finite[i]));
      if (i + 1 < finite.size()) in.push_back(static_cast<float>((finite[i] + finite[i + 1]) / 2));
    }
    std::uniform_real_distribution<double> dist(-2 * threshold, 2 * threshold);
    for (int i = 0; i < 2000; ++i) in.push_back(static_cast<float>(dist(rng)));
    in.push_back(static_cast<float>(threshold));
    in.push_back(std::nextafter(static_cast<float>(threshold), 0.0f));
    in.push_back(std::nextafter(static_cast<float>(threshold), kInfF));
    in.push_back(kInfF);
    in.push_back(-kInfF);
    in.push_back(kNaNF);
    in.push_back(-0.0f);
    std::vector<uint8_t> got =
        Op("stablehlo.convert", {Vec(in)}, MlirType(f.type)).Values<uint8_t>();
    ASSERT_EQ(got.size(), in.size()) << MlirType(f.type);
    for (size_t i = 0; i < in.size(); ++i) {
      const double x = in[i];
      double got_value = Decode(f, got[i]);
      std::string where = MlirType(f.type) + " of " + std::to_string(x);
      if (std::isnan(x)) {
        if (f.special == Special::kNone)
          EXPECT_EQ(got_value, 0.0) << where;
        else
          EXPECT_TRUE(std::isnan(got_value)) << where;
        continue;
      }
      const double want = Rounded(f, overflow, x);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got_value)) << where;
      } else {
        EXPECT_EQ(Bits(got_value), Bits(want))
            << where << ": got " << got_value << ", want " << want;
      }
    }
  }
}

TEST_P(CpuNarrowFloatTest, E8M0HoldsPowersOfTwo) {
  const FloatFormat& f = kFormats[10];
  std::vector<float> in = {1.0f, 0.25f, 3.0f, 5.0f, 1e30f, 0.0f, -2.0f, kNaNF};
  std::vector<uint8_t> got = Op("stablehlo.convert", {Vec(in)}, "f8E8M0FNU").Values<uint8_t>();
  ASSERT_EQ(got.size(), in.size());
  EXPECT_EQ(Decode(f, got[0]), 1.0);
  EXPECT_EQ(Decode(f, got[1]), 0.25);
  EXPECT_EQ(Decode(f, got[2]), 4.0);                   // 3 = 1.5 * 2: halfway, up
  EXPECT_EQ(Decode(f, got[3]), 4.0);                   // 5 is nearer 4 than 8
  EXPECT_EQ(Decode(f, got[4]), std::ldexp(1.0, 100));  // 1e30 ~ 2^99.66
  // No zero, no sign: 0, negatives and NaN give the NaN pattern.
  EXPECT_TRUE(std::isnan(Decode(f, got[5])));
  EXPECT_TRUE(std::isnan(Decode(f, got[6])));
  EXPECT_TRUE(std::isnan(Decode(f, got[7])));
}

TEST_P(CpuNarrowFloatTest, SumsAndProductsOfEveryPairRoundOnce) {
  for (const FloatFormat& f : {kFormats[0], kFormats[3], kFormats[9]}) {
    const uint32_t count = 1u << Width(f);
    std::vector<uint8_t> as, bs;
    for (uint32_t a = 0; a < count; ++a) {
      for (uint32_t b = 0; b < count; ++b) {
        as.push_back(static_cast<uint8_t>(a));
        bs.push_back(static_cast<uint8_t>(b));
      }
    }
    const int64_t n = static_cast<int64_t>(as.size());
    Literal a = Literal::Raw<uint8_t>(f.type, as, {n}), b = Literal::Raw<uint8_t>(f.type, bs, {n});
    const Overflow overflow = OverflowOf(f);
    for (std::string op : {"add", "multiply"}) {
      std::vector<uint8_t> got = Op("stablehlo." + op, {a, b}, MlirType(f.type)).Values<uint8_t>();
      ASSERT_EQ(got.size(), as.size());
      for (size_t i = 0; i < as.size(); ++i) {
        double x = Decode(f, as[i]), y = Decode(f, bs[i]);
        double exact = op == "add" ? x + y : x * y;  // exact in double
        double got_value = Decode(f, got[i]);
        std::string where =
            op + " " + MlirType(f.type) + " of " + std::to_string(x) + ", " + std::to_string(y);
        if (std::isnan(exact)) {
          if (f.special != Special::kNone) {
            ASSERT_TRUE(std::isnan(got_value)) << where;
          }
          continue;
        }
        double want = Rounded(f, overflow, exact);
        if (std::isnan(want)) {
          ASSERT_TRUE(std::isnan(got_value)) << where;
        } else {
          ASSERT_EQ(Bits(got_value), Bits(want)) << where;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fusion, CpuNarrowFloatTest, ::testing::Bool(), FusionName);

// ------------------------------------------------------------ other kernels

TEST(CpuNarrowKernelsTest, IotaReduceDotAndChecksUseTheValues) {
  std::vector<Literal> out =
      RunProgram(R"(
func.func @main(%a: tensor<2x3xi4>, %b: tensor<3x2xi4>, %f: tensor<4xf8E4M3FN>) -> (tensor<20xi4>, tensor<2xi4>, tensor<2x2xi4>, tensor<f32>, tensor<4xf8E5M2>) {
  %i = stablehlo.iota dim = 0 : tensor<20xi4>
  %zero = stablehlo.constant dense<0> : tensor<i4>
  %r = stablehlo.reduce(%a init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<2x3xi4>, tensor<i4>) -> tensor<2xi4>
  %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xi4>, tensor<3x2xi4>) -> tensor<2x2xi4>
  %g = stablehlo.dot_general %f, %f, contracting_dims = [0] x [0] : (tensor<4xf8E4M3FN>, tensor<4xf8E4M3FN>) -> tensor<f32>
  %c = stablehlo.convert %f : (tensor<4xf8E4M3FN>) -> tensor<4xf8E5M2>
  check.expect_eq_const %r, dense<[-1, 1]> : tensor<2xi4>
  return %i, %r, %d, %g, %c : tensor<20xi4>, tensor<2xi4>, tensor<2x2xi4>, tensor<f32>, tensor<4xf8E5M2>
}
)",
                 {NarrowLiteral(ElementType::kS4, {7, 7, 1, -8, 5, 4}, {2, 3}),
                  NarrowLiteral(ElementType::kS4, {1, 2, 3, 4, 5, 6}, {3, 2}),
                  Literal::Raw<uint8_t>(ElementType::kF8E4M3FN, {0x38, 0x40, 0xB8, 0x7E}, {4})});
  ASSERT_EQ(out.size(), 5u);
  const IntType i4 = kIntTypes[1];
  std::vector<int64_t> iota;
  for (int64_t k = 0; k < 20; ++k) iota.push_back(Wrap(i4, k));
  EXPECT_EQ(NarrowValues(out[0], i4), iota);
  // 7 + 7 + 1 = 15 -> -1; -8 + 5 + 4 = 1.
  EXPECT_EQ(NarrowValues(out[1], i4), (std::vector<int64_t>{-1, 1}));
  int64_t a[2][3] = {{7, 7, 1}, {-8, 5, 4}}, b[3][2] = {{1, 2}, {3, 4}, {5, 6}};
  std::vector<int64_t> dot;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      int64_t sum = 0;
      for (int k = 0; k < 3; ++k) sum += a[i][k] * b[k][j];
      dot.push_back(Wrap(i4, sum));
    }
  }
  EXPECT_EQ(NarrowValues(out[2], i4), dot);
  // f8E4M3FN 0x38 = 1, 0x40 = 2, 0xB8 = -1, 0x7E = 448: 1 + 4 + 1 + 448^2.
  EXPECT_EQ(out[3].Values<float>(), (std::vector<float>{6.0f + 448.0f * 448.0f}));
  // To f8E5M2: 1, 2, -1 exactly; 448 = 1.75 * 2^8 is exact too.
  EXPECT_EQ(out[4].Values<uint8_t>(), (std::vector<uint8_t>{0x3C, 0x40, 0xBC, 0x5F}));
  // A check on narrow values fails naming them.
  Status failed = RunExpectingError(R"(
func.func @main() {
  %a = stablehlo.constant dense<[1, -2]> : tensor<2xi4>
  check.expect_eq_const %a, dense<[1, 2]> : tensor<2xi4>
  func.return
}
)",
                                    {});
  EXPECT_THAT(failed.message(), HasSubstr("is -2, expected 2"));
}

}  // namespace
}  // namespace berth::testing
