// Elementwise arithmetic, bitwise, compare, select and clamp on the CPU
// plugin, from the StableHLO spec: integer wrapping and the
// implementation-defined integer cases, IEEE NaN / infinity / signed-zero
// rules, f16/bf16 rounding, i1 semantics, scalar operands, fusion.
#include <algorithm>

#include "elementwise_test_util.hpp"

namespace berth::testing {
namespace {

class ArithmeticTest : public ElementwiseTest {};
INSTANTIATE_TEST_SUITE_P(Plan, ArithmeticTest, ::testing::Bool(), FusionName);

TEST_P(ArithmeticTest, AddWrapsIntegersAndIsOrOnI1) {
  EXPECT_THAT(Values<int8_t>("stablehlo.add", {Vec<int8_t>({127, -128, 5}), Vec<int8_t>({1, -1, -7})}, "i8"),
              ElementsAre(-128, 127, -2));
  EXPECT_THAT(Values<uint8_t>("stablehlo.add", {Vec<uint8_t>({255, 16}), Vec<uint8_t>({1, 16})}, "ui8"),
              ElementsAre(0, 32));
  EXPECT_THAT(Values<int64_t>("stablehlo.add", {Vec<int64_t>({kMin64}), Vec<int64_t>({-1})}, "i64"),
              ElementsAre(std::numeric_limits<int64_t>::max()));
  EXPECT_THAT(Values<bool>("stablehlo.add", {Vec<bool>({false, false, true, true}),
                                             Vec<bool>({false, true, false, true})}, "i1"),
              ElementsAre(false, true, true, true));
}

TEST_P(ArithmeticTest, AddF32FollowsIeee) {
  std::vector<float> out = Values<float>(
      "stablehlo.add", {Vec<float>({1.5f, kInfF, -0.0f, -0.0f, kInfF, 1e38f}),
                        Vec<float>({2.25f, -kInfF, -0.0f, 0.0f, 1.0f, 3e38f})}, "f32");
  ASSERT_EQ(out.size(), 6u);
  EXPECT_EQ(out[0], 3.75f);
  EXPECT_TRUE(std::isnan(out[1]));
  EXPECT_EQ(Bits(out[2]), Bits(-0.0f));
  EXPECT_EQ(Bits(out[3]), Bits(0.0f));
  EXPECT_EQ(out[4], kInfF);
  EXPECT_EQ(out[5], kInfF);
}

TEST_P(ArithmeticTest, HalfPrecisionAddRoundsToNearestEven) {
  // f16: 1 + 2^-11 is halfway between 1 and its successor: ties to even (1).
  // 1+2^-10 plus 2^-11 ties between 0x3C01 and 0x3C02: even is 0x3C02.
  EXPECT_THAT(Values<uint16_t>("stablehlo.add", {F16({0x3C00, 0x3C01, 0x7BFF}),
                                                 F16({0x1000, 0x1000, 0x5000})}, "f16"),
              ElementsAre(0x3C00, 0x3C02, 0x7C00));
  // bf16: the same at 2^-8.
  EXPECT_THAT(Values<uint16_t>("stablehlo.add", {BF16({0x3F80, 0x3F81}), BF16({0x3B80, 0x3B80})},
                               "bf16"),
              ElementsAre(0x3F80, 0x3F82));
}

TEST_P(ArithmeticTest, SubtractAndMultiplyWrap) {
  EXPECT_THAT(Values<int32_t>("stablehlo.subtract", {Vec<int32_t>({kMin32, 5}), Vec<int32_t>({1, 7})},
                              "i32"),
              ElementsAre(kMax32, -2));
  EXPECT_THAT(Values<int16_t>("stablehlo.multiply", {Vec<int16_t>({300, -3}), Vec<int16_t>({300, 7})},
                              "i16"),
              ElementsAre(static_cast<int16_t>(90000 - 65536), -21));
  // 65535 * 65535 overflows int in C++ promotion; must wrap to 1.
  EXPECT_THAT(Values<uint16_t>("stablehlo.multiply", {Vec<uint16_t>({65535}), Vec<uint16_t>({65535})},
                               "ui16"),
              ElementsAre(1));
  EXPECT_THAT(Values<int64_t>("stablehlo.multiply", {Vec<int64_t>({kMin64, 1LL << 40}),
                                                     Vec<int64_t>({-1, 1LL << 30})}, "i64"),
              ElementsAre(kMin64, 0));
  EXPECT_THAT(Values<bool>("stablehlo.multiply", {Vec<bool>({false, true, true}),
                                                  Vec<bool>({true, false, true})}, "i1"),
              ElementsAre(false, false, true));
}

TEST_P(ArithmeticTest, DivideIntegersTruncatesTowardZero) {
  EXPECT_THAT(Values<int32_t>("stablehlo.divide", {Vec<int32_t>({7, -7, 7, -7, 17}),
                                                   Vec<int32_t>({2, 2, -2, -2, 3})}, "i32"),
              ElementsAre(3, -3, -3, 3, 5));
  EXPECT_THAT(Values<uint8_t>("stablehlo.divide", {Vec<uint8_t>({255, 7}), Vec<uint8_t>({2, 8})},
                              "ui8"),
              ElementsAre(127, 0));
}

TEST_P(ArithmeticTest, IntegerDivisionByZeroAndOverflowGiveZero) {
  // Implementation-defined by the spec; 0 like the reference interpreter.
  EXPECT_THAT(Values<int32_t>("stablehlo.divide", {Vec<int32_t>({5, -5, kMin32, kMin32}),
                                                   Vec<int32_t>({0, 0, -1, 1})}, "i32"),
              ElementsAre(0, 0, 0, kMin32));
  EXPECT_THAT(Values<uint64_t>("stablehlo.divide", {Vec<uint64_t>({5}), Vec<uint64_t>({0})}, "ui64"),
              ElementsAre(0u));
  EXPECT_THAT(Values<int8_t>("stablehlo.remainder", {Vec<int8_t>({5, -128, -128}),
                                                     Vec<int8_t>({0, -1, 3})}, "i8"),
              ElementsAre(0, 0, -2));
}

TEST_P(ArithmeticTest, DivideFloatsFollowsIeee) {
  std::vector<float> out = Values<float>(
      "stablehlo.divide", {Vec<float>({1.0f, -1.0f, 0.0f, 1.0f, 6.0f}),
                           Vec<float>({0.0f, 0.0f, 0.0f, -kInfF, 4.0f})}, "f32");
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0], kInfF);
  EXPECT_EQ(out[1], -kInfF);
  EXPECT_TRUE(std::isnan(out[2]));
  EXPECT_EQ(Bits(out[3]), Bits(-0.0f));
  EXPECT_EQ(out[4], 1.5f);
}

TEST_P(ArithmeticTest, RemainderTakesTheDividendsSign) {
  EXPECT_THAT(Values<int64_t>("stablehlo.remainder", {Vec<int64_t>({17, -17, 17, -17}),
                                                      Vec<int64_t>({3, 3, -3, -3})}, "i64"),
              ElementsAre(2, -2, 2, -2));
  std::vector<double> out = Values<double>(
      "stablehlo.remainder", {Vec<double>({5.5, -5.5, -0.0, 5.5, kInfD, 1.0}),
                              Vec<double>({2.0, 2.0, 1.0, kInfD, 2.0, 0.0})}, "f64");
  ASSERT_EQ(out.size(), 6u);
  EXPECT_EQ(out[0], 1.5);
  EXPECT_EQ(out[1], -1.5);
  EXPECT_EQ(Bits(out[2]), Bits(-0.0));
  EXPECT_EQ(out[3], 5.5);
  EXPECT_TRUE(std::isnan(out[4]));
  EXPECT_TRUE(std::isnan(out[5]));
  // Exact even where lhs / rhs is not: 0.1 - 0 * 3.
  EXPECT_THAT(Values<float>("stablehlo.remainder", {Vec<float>({0.1f, 7.25f}), Vec<float>({3.0f, -2.0f})},
                            "f32"),
              ElementsAre(0.1f, 1.25f));
}

TEST_P(ArithmeticTest, IntegerPowerHandlesNegativeExponentsAndWraps) {
  EXPECT_THAT(Values<int64_t>("stablehlo.power", {Vec<int64_t>({-1, -1, -3, 1, -3, 0, 2, 0, 2}),
                                                  Vec<int64_t>({1, 0, -3, -3, 3, 2, 10, 0, 64})},
                              "i64"),
              ElementsAre(-1, 1, 0, 1, -27, 0, 1024, 1, 0));
  EXPECT_THAT(Values<int32_t>("stablehlo.power", {Vec<int32_t>({-1, 2, 3}), Vec<int32_t>({-7, -1, 21})},
                              "i32"),
              ElementsAre(-1, 0, static_cast<int32_t>(10460353203LL - 2 * 4294967296LL)));
  EXPECT_THAT(Values<uint8_t>("stablehlo.power", {Vec<uint8_t>({2, 3, 0, 255}), Vec<uint8_t>({8, 5, 0, 2})},
                              "ui8"),
              ElementsAre(0, 243, 1, 1));
}

TEST_P(ArithmeticTest, FloatPowerFollowsPow) {
  std::vector<double> out = Values<double>(
      "stablehlo.power", {Vec<double>({-2.0, -0.0, -36.0, 5.0, 3.0, 0.0, 1.0}),
                          Vec<double>({2.0, 2.0, 1.1, 2.0, -1.0, -1.0, kNaND})}, "f64");
  ASSERT_EQ(out.size(), 7u);
  EXPECT_EQ(out[0], 4.0);
  EXPECT_EQ(Bits(out[1]), Bits(0.0));
  EXPECT_TRUE(std::isnan(out[2]));
  EXPECT_EQ(out[3], 25.0);
  EXPECT_DOUBLE_EQ(out[4], 1.0 / 3.0);
  EXPECT_EQ(out[5], kInfD);
  EXPECT_EQ(out[6], 1.0);  // pow(1, NaN) = 1
}

TEST_P(ArithmeticTest, MaximumPropagatesNaNAndPrefersPositiveZero) {
  std::vector<float> out = Values<float>(
      "stablehlo.maximum", {Vec<float>({-kInfF, -1.0f, 0.0f, -0.0f, kNaNF, 1.0f, 3.0f}),
                            Vec<float>({-1.0f, -kInfF, -0.0f, 0.0f, 1.0f, kNaNF, 2.0f})}, "f32");
  ASSERT_EQ(out.size(), 7u);
  EXPECT_EQ(out[0], -1.0f);
  EXPECT_EQ(out[1], -1.0f);
  EXPECT_EQ(Bits(out[2]), Bits(0.0f));
  EXPECT_EQ(Bits(out[3]), Bits(0.0f));
  EXPECT_TRUE(std::isnan(out[4]));
  EXPECT_TRUE(std::isnan(out[5]));
  EXPECT_EQ(out[6], 3.0f);
  // f16: NaN (0x7E01) kept bit for bit; +0 over -0.
  EXPECT_THAT(Values<uint16_t>("stablehlo.maximum", {F16({0x7E01, 0x8000, 0xBC00}),
                                                     F16({0x3C00, 0x0000, 0x3C00})}, "f16"),
              ElementsAre(0x7E01, 0x0000, 0x3C00));
}

TEST_P(ArithmeticTest, MinimumPropagatesNaNAndPrefersNegativeZero) {
  std::vector<double> out = Values<double>(
      "stablehlo.minimum", {Vec<double>({kInfD, 0.0, -0.0, kNaND, 2.0}),
                            Vec<double>({1.0, -0.0, 0.0, -kInfD, kNaND})}, "f64");
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0], 1.0);
  EXPECT_EQ(Bits(out[1]), Bits(-0.0));
  EXPECT_EQ(Bits(out[2]), Bits(-0.0));
  EXPECT_TRUE(std::isnan(out[3]));
  EXPECT_TRUE(std::isnan(out[4]));
  EXPECT_THAT(Values<uint16_t>("stablehlo.minimum", {BF16({0x0000, 0x7FC1}), BF16({0x8000, 0xFF80})},
                               "bf16"),
              ElementsAre(0x8000, 0x7FC1));
}

TEST_P(ArithmeticTest, MaximumAndMinimumOfIntegersAndI1) {
  EXPECT_THAT(Values<int32_t>("stablehlo.maximum", {Vec<int32_t>({kMin32, 3}), Vec<int32_t>({-1, 2})},
                              "i32"),
              ElementsAre(-1, 3));
  EXPECT_THAT(Values<uint32_t>("stablehlo.minimum", {Vec<uint32_t>({0xFFFFFFFFu, 3}),
                                                     Vec<uint32_t>({1, 4})}, "ui32"),
              ElementsAre(1u, 3u));
  EXPECT_THAT(Values<bool>("stablehlo.maximum", {Vec<bool>({false, true, false}),
                                                 Vec<bool>({false, false, true})}, "i1"),
              ElementsAre(false, true, true));
  EXPECT_THAT(Values<bool>("stablehlo.minimum", {Vec<bool>({true, true, false}),
                                                 Vec<bool>({true, false, true})}, "i1"),
              ElementsAre(true, false, false));
}

TEST_P(ArithmeticTest, NegateWrapsIntegersAndFlipsFloatSigns) {
  EXPECT_THAT(Values<int32_t>("stablehlo.negate", {Vec<int32_t>({kMin32, 5, 0})}, "i32"),
              ElementsAre(kMin32, -5, 0));
  EXPECT_THAT(Values<uint8_t>("stablehlo.negate", {Vec<uint8_t>({1, 0, 128})}, "ui8"),
              ElementsAre(255, 0, 128));
  EXPECT_THAT(BitsOf(Values<float>("stablehlo.negate", {Vec<float>({0.0f, 1.5f, F32Bits(0x7FC00001)})},
                                   "f32")),
              ElementsAre(Bits(-0.0f), Bits(-1.5f), 0xFFC00001u));
  EXPECT_THAT(Values<uint16_t>("stablehlo.negate", {F16({0x0000, 0x7E01, 0xBC00})}, "f16"),
              ElementsAre(0x8000, 0xFE01, 0x3C00));
}

TEST_P(ArithmeticTest, AbsOfIntMinWrapsAndClearsFloatSigns) {
  EXPECT_THAT(Values<int8_t>("stablehlo.abs", {Vec<int8_t>({-128, -5, 7, 0})}, "i8"),
              ElementsAre(-128, 5, 7, 0));
  EXPECT_THAT(Values<int64_t>("stablehlo.abs", {Vec<int64_t>({kMin64, -2})}, "i64"),
              ElementsAre(kMin64, 2));
  EXPECT_THAT(BitsOf(Values<float>("stablehlo.abs", {Vec<float>({-0.0f, -kInfF, F32Bits(0xFFC00001)})},
                                   "f32")),
              ElementsAre(Bits(0.0f), Bits(kInfF), 0x7FC00001u));
  EXPECT_THAT(Values<uint16_t>("stablehlo.abs", {BF16({0x8000, 0xBF80, 0xFFC1})}, "bf16"),
              ElementsAre(0x0000, 0x3F80, 0x7FC1));
}

TEST_P(ArithmeticTest, SignKeepsZerosAndNaN) {
  EXPECT_THAT(Values<int32_t>("stablehlo.sign", {Vec<int32_t>({kMin32, -5, 0, 7})}, "i32"),
              ElementsAre(-1, -1, 0, 1));
  EXPECT_THAT(BitsOf(Values<double>("stablehlo.sign", {Vec<double>({F64Bits(0x7FF0000000000001), -2.5,
                                                                    -0.0, 0.0, 1e-310, -kInfD})},
                                    "f64")),
              ElementsAre(0x7FF0000000000001u, Bits(-1.0), Bits(-0.0), Bits(0.0), Bits(1.0),
                          Bits(-1.0)));
  EXPECT_THAT(Values<uint16_t>("stablehlo.sign", {F16({0x7E05, 0x8000, 0x0001, 0xC500})}, "f16"),
              ElementsAre(0x7E05, 0x8000, 0x3C00, 0xBC00));
}

TEST_P(ArithmeticTest, Atan2CoversEveryQuadrantAndSignedZeros) {
  const double pi = 3.14159265358979323846;
  std::vector<double> out = Values<double>(
      "stablehlo.atan2", {Vec<double>({0.0, 1.0, -1.0, 0.0, -0.0, 1.0}),
                          Vec<double>({0.0, 0.0, 0.0, -1.0, -1.0, 1.0})}, "f64");
  ASSERT_EQ(out.size(), 6u);
  EXPECT_EQ(Bits(out[0]), Bits(0.0));
  EXPECT_DOUBLE_EQ(out[1], pi / 2);
  EXPECT_DOUBLE_EQ(out[2], -pi / 2);
  EXPECT_DOUBLE_EQ(out[3], pi);
  EXPECT_DOUBLE_EQ(out[4], -pi);
  EXPECT_DOUBLE_EQ(out[5], pi / 4);
}

class BitwiseTest : public ElementwiseTest {};
INSTANTIATE_TEST_SUITE_P(Plan, BitwiseTest, ::testing::Bool(), FusionName);

TEST_P(BitwiseTest, AndOrXorOnIntegersAndI1) {
  Literal a = Vec<int32_t>({0x0F0F, -1, 0}), b = Vec<int32_t>({0x00FF, 0x1234, -1});
  EXPECT_THAT(Values<int32_t>("stablehlo.and", {a, b}, "i32"), ElementsAre(0x000F, 0x1234, 0));
  EXPECT_THAT(Values<int32_t>("stablehlo.or", {a, b}, "i32"), ElementsAre(0x0FFF, -1, -1));
  EXPECT_THAT(Values<int32_t>("stablehlo.xor", {a, b}, "i32"), ElementsAre(0x0FF0, ~0x1234, -1));
  Literal p = Vec<bool>({false, false, true, true}), q = Vec<bool>({false, true, false, true});
  EXPECT_THAT(Values<bool>("stablehlo.and", {p, q}, "i1"), ElementsAre(false, false, false, true));
  EXPECT_THAT(Values<bool>("stablehlo.or", {p, q}, "i1"), ElementsAre(false, true, true, true));
  EXPECT_THAT(Values<bool>("stablehlo.xor", {p, q}, "i1"), ElementsAre(false, true, true, false));
}

TEST_P(BitwiseTest, NotIsBitwiseOnIntegersAndLogicalOnI1) {
  EXPECT_THAT(Values<int8_t>("stablehlo.not", {Vec<int8_t>({0, -1, 5})}, "i8"), ElementsAre(-1, 0, -6));
  EXPECT_THAT(Values<uint16_t>("stablehlo.not", {Vec<uint16_t>({0, 0xFF00})}, "ui16"),
              ElementsAre(0xFFFF, 0x00FF));
  EXPECT_THAT(Values<bool>("stablehlo.not", {Vec<bool>({true, false})}, "i1"), ElementsAre(false, true));
}

TEST_P(BitwiseTest, ShiftLeftByTheWidthOrMoreGivesZero) {
  EXPECT_THAT(Values<int32_t>("stablehlo.shift_left", {Vec<int32_t>({1, 1, -1, 5, 1, 3}),
                                                       Vec<int32_t>({31, 32, 4, -1, 100, 0})}, "i32"),
              ElementsAre(kMin32, 0, -16, 0, 0, 3));
  EXPECT_THAT(Values<int8_t>("stablehlo.shift_left", {Vec<int8_t>({1, 3}), Vec<int8_t>({7, 8})}, "i8"),
              ElementsAre(-128, 0));
  EXPECT_THAT(Values<uint64_t>("stablehlo.shift_left", {Vec<uint64_t>({1, 1}), Vec<uint64_t>({63, 64})},
                               "ui64"),
              ElementsAre(uint64_t{1} << 63, 0u));
}

TEST_P(BitwiseTest, ShiftRightLogicalFillsWithZeros) {
  EXPECT_THAT(Values<int32_t>("stablehlo.shift_right_logical", {Vec<int32_t>({-1, -1, 8, -8}),
                                                                Vec<int32_t>({1, 32, 3, -1})}, "i32"),
              ElementsAre(kMax32, 0, 1, 0));
  EXPECT_THAT(Values<uint8_t>("stablehlo.shift_right_logical", {Vec<uint8_t>({255, 255}),
                                                                Vec<uint8_t>({4, 200})}, "ui8"),
              ElementsAre(15, 0));
}

TEST_P(BitwiseTest, ShiftRightArithmeticFillsWithTheSign) {
  EXPECT_THAT(Values<int32_t>("stablehlo.shift_right_arithmetic", {Vec<int32_t>({-1, -8, 8, -8, 8}),
                                                                   Vec<int32_t>({1, 1, 3, 40, 40})},
                              "i32"),
              ElementsAre(-1, -4, 1, -1, 0));
  EXPECT_THAT(Values<int16_t>("stablehlo.shift_right_arithmetic", {Vec<int16_t>({-32768, 100}),
                                                                   Vec<int16_t>({-3, 2})}, "i16"),
              ElementsAre(-1, 25));
  // Unsigned: the top bit acts as the sign.
  EXPECT_THAT(Values<uint8_t>("stablehlo.shift_right_arithmetic", {Vec<uint8_t>({0x80, 0x80, 0x40}),
                                                                   Vec<uint8_t>({1, 9, 1})}, "ui8"),
              ElementsAre(0xC0, 0xFF, 0x20));
}

TEST_P(BitwiseTest, PopcntCountsSetBitsOfEveryWidth) {
  EXPECT_THAT(Values<int8_t>("stablehlo.popcnt", {Vec<int8_t>({-1, 0, 5, -128})}, "i8"),
              ElementsAre(8, 0, 2, 1));
  EXPECT_THAT(Values<int16_t>("stablehlo.popcnt", {Vec<int16_t>({-1, 0x0F0F})}, "i16"), ElementsAre(16, 8));
  EXPECT_THAT(Values<int32_t>("stablehlo.popcnt", {Vec<int32_t>({kMax32, -1})}, "i32"), ElementsAre(31, 32));
  EXPECT_THAT(Values<int64_t>("stablehlo.popcnt", {Vec<int64_t>({0, 1, 2, 127, -1})}, "i64"),
              ElementsAre(0, 1, 1, 7, 64));
  EXPECT_THAT(Values<uint64_t>("stablehlo.popcnt", {Vec<uint64_t>({~uint64_t{0}})}, "ui64"), ElementsAre(64u));
}

TEST_P(BitwiseTest, CountLeadingZerosOfEveryWidth) {
  EXPECT_THAT(Values<int64_t>("stablehlo.count_leading_zeros", {Vec<int64_t>({0, 1, 128, -1})}, "i64"),
              ElementsAre(64, 63, 56, 0));
  EXPECT_THAT(Values<int8_t>("stablehlo.count_leading_zeros", {Vec<int8_t>({0, 1, -1, 64})}, "i8"),
              ElementsAre(8, 7, 0, 1));
  EXPECT_THAT(Values<uint16_t>("stablehlo.count_leading_zeros", {Vec<uint16_t>({0, 1, 0x8000})}, "ui16"),
              ElementsAre(16, 15, 0));
  EXPECT_THAT(Values<uint32_t>("stablehlo.count_leading_zeros", {Vec<uint32_t>({1, 0})}, "ui32"),
              ElementsAre(31u, 32u));
}

class CompareTest : public ElementwiseTest {
 protected:
  std::vector<bool> Compare(const Literal& a, const Literal& b, const std::string& direction,
                            const std::string& type = "") const {
    std::string attrs = "comparison_direction = #stablehlo<comparison_direction " + direction + ">";
    if (!type.empty()) attrs += ", compare_type = #stablehlo<comparison_type " + type + ">";
    return Values<bool>("stablehlo.compare", {a, b}, "i1", attrs);
  }
};
INSTANTIATE_TEST_SUITE_P(Plan, CompareTest, ::testing::Bool(), FusionName);

TEST_P(CompareTest, FloatComparisonsAreQuietIeee) {
  // NaN vs 1, 1 vs NaN, NaN vs NaN, -0 vs +0, -inf vs 1, 2 vs 1.
  Literal a = Vec<float>({kNaNF, 1.0f, kNaNF, -0.0f, -kInfF, 2.0f});
  Literal b = Vec<float>({1.0f, kNaNF, kNaNF, 0.0f, 1.0f, 1.0f});
  for (std::string type : {"", "FLOAT"}) {
    EXPECT_THAT(Compare(a, b, "EQ", type), ElementsAre(false, false, false, true, false, false));
    EXPECT_THAT(Compare(a, b, "NE", type), ElementsAre(true, true, true, false, true, true));
    EXPECT_THAT(Compare(a, b, "LT", type), ElementsAre(false, false, false, false, true, false));
    EXPECT_THAT(Compare(a, b, "LE", type), ElementsAre(false, false, false, true, true, false));
    EXPECT_THAT(Compare(a, b, "GT", type), ElementsAre(false, false, false, false, false, true));
    EXPECT_THAT(Compare(a, b, "GE", type), ElementsAre(false, false, false, true, false, true));
  }
}

TEST_P(CompareTest, TotalOrderSortsNaNsAndSignedZeros) {
  float neg_nan = F32Bits(0xFFC00000), nan1 = F32Bits(0x7FC00001), nan2 = F32Bits(0x7FC00002);
  // -NaN < -inf, -0 < +0, inf < NaN, NaN payload 1 < payload 2, NaN == NaN, -1 < -0.5.
  Literal a = Vec<float>({neg_nan, -0.0f, kInfF, nan1, nan1, -1.0f});
  Literal b = Vec<float>({-kInfF, 0.0f, nan1, nan2, nan1, -0.5f});
  EXPECT_THAT(Compare(a, b, "LT", "TOTALORDER"), ElementsAre(true, true, true, true, false, true));
  EXPECT_THAT(Compare(a, b, "EQ", "TOTALORDER"), ElementsAre(false, false, false, false, true, false));
  EXPECT_THAT(Compare(a, b, "GE", "TOTALORDER"), ElementsAre(false, false, false, false, true, false));
  EXPECT_THAT(Compare(F16({0x8000, 0xFE00}), F16({0x0000, 0xFC00}), "LT", "TOTALORDER"),
              ElementsAre(true, true));
  EXPECT_THAT(Compare(Vec<double>({-0.0}), Vec<double>({0.0}), "NE", "TOTALORDER"), ElementsAre(true));
}

TEST_P(CompareTest, SignedAndUnsignedIntegers) {
  Literal a = Vec<int32_t>({-1, 1, 5}), b = Vec<int32_t>({1, -1, 5});
  EXPECT_THAT(Compare(a, b, "LT", "SIGNED"), ElementsAre(true, false, false));
  EXPECT_THAT(Compare(a, b, "LT"), ElementsAre(true, false, false));
  EXPECT_THAT(Compare(a, b, "GE", "SIGNED"), ElementsAre(false, true, true));
  Literal u = Vec<uint32_t>({0xFFFFFFFFu, 1, 5}), v = Vec<uint32_t>({1, 0xFFFFFFFFu, 5});
  EXPECT_THAT(Compare(u, v, "LT", "UNSIGNED"), ElementsAre(false, true, false));
  EXPECT_THAT(Compare(u, v, "GT"), ElementsAre(true, false, false));
  EXPECT_THAT(Compare(u, v, "NE", "UNSIGNED"), ElementsAre(true, true, false));
  EXPECT_THAT(Compare(Vec<int8_t>({-128}), Vec<int8_t>({127}), "LE", "SIGNED"), ElementsAre(true));
  EXPECT_THAT(Compare(Vec<uint64_t>({~uint64_t{0}}), Vec<uint64_t>({0}), "GT", "UNSIGNED"),
              ElementsAre(true));
}

TEST_P(CompareTest, I1OrdersFalseBeforeTrue) {
  Literal a = Vec<bool>({true, true, false, false}), b = Vec<bool>({true, false, true, false});
  EXPECT_THAT(Compare(a, b, "GT", "UNSIGNED"), ElementsAre(false, true, false, false));
  EXPECT_THAT(Compare(a, b, "LE"), ElementsAre(true, false, true, true));
  EXPECT_THAT(Compare(a, b, "EQ"), ElementsAre(true, false, false, true));
}

TEST_P(CompareTest, HalfPrecisionComparesValues) {
  // bf16 NaN, -0 vs +0, 1 vs 2.
  EXPECT_THAT(Compare(BF16({0x7FC0, 0x8000, 0x3F80}), BF16({0x7FC0, 0x0000, 0x4000}), "EQ"),
              ElementsAre(false, true, false));
  EXPECT_THAT(Compare(F16({0x3C00, 0xFC00}), F16({0x4000, 0x7C00}), "LT", "FLOAT"),
              ElementsAre(true, true));
}

class SelectClampTest : public ElementwiseTest {};
INSTANTIATE_TEST_SUITE_P(Plan, SelectClampTest, ::testing::Bool(), FusionName);

TEST_P(SelectClampTest, SelectPicksPerElement) {
  EXPECT_THAT(Values<int64_t>("stablehlo.select", {Vec<bool>({true, false, true}), Vec<int64_t>({2, 3, -1}),
                                                   Vec<int64_t>({3, 7, -3})}, "i64"),
              ElementsAre(2, 7, -1));
  EXPECT_THAT(Values<uint16_t>("stablehlo.select", {Vec<bool>({false, true}), F16({0x3C00, 0x4000}),
                                                    F16({0x7E00, 0x8000})}, "f16"),
              ElementsAre(0x7E00, 0x4000));
  EXPECT_THAT(Values<bool>("stablehlo.select", {Vec<bool>({false, true}), Vec<bool>({true, true}),
                                                Vec<bool>({false, false})}, "i1"),
              ElementsAre(false, true));
}

TEST_P(SelectClampTest, SelectWithScalarPredPicksAWholeOperand) {
  Literal on_true = Vec<float>({1, 2, 3}), on_false = Vec<float>({4, 5, 6});
  EXPECT_THAT(Values<float>("stablehlo.select", {Scalar<bool>(true), on_true, on_false}, "f32"),
              ElementsAre(1, 2, 3));
  EXPECT_THAT(Values<float>("stablehlo.select", {Scalar<bool>(false), on_true, on_false}, "f32"),
              ElementsAre(4, 5, 6));
}

TEST_P(SelectClampTest, ClampWithTensorAndScalarBounds) {
  Literal x = Vec<int64_t>({2, 3, -1});
  EXPECT_THAT(Values<int64_t>("stablehlo.clamp", {Vec<int64_t>({1, 5, -5}), x, Vec<int64_t>({3, 7, -3})},
                              "i64"),
              ElementsAre(2, 5, -3));
  EXPECT_THAT(Values<int64_t>("stablehlo.clamp", {Vec<int64_t>({0, 0, -2}), x, Scalar<int64_t>(1)}, "i64"),
              ElementsAre(1, 1, -1));
  EXPECT_THAT(Values<int64_t>("stablehlo.clamp", {Scalar<int64_t>(0), x, Vec<int64_t>({1, 1, 4})}, "i64"),
              ElementsAre(1, 1, 0));
  EXPECT_THAT(Values<int64_t>("stablehlo.clamp", {Scalar<int64_t>(0), x, Scalar<int64_t>(1)}, "i64"),
              ElementsAre(1, 1, 0));
  EXPECT_THAT(Values<uint8_t>("stablehlo.clamp", {Scalar<uint8_t>(10), Vec<uint8_t>({0, 200, 15}),
                                                  Scalar<uint8_t>(100)}, "ui8"),
              ElementsAre(10, 100, 15));
}

TEST_P(SelectClampTest, ClampOfFloatsPropagatesNaNAndOrdersZeros) {
  std::vector<float> out = Values<float>(
      "stablehlo.clamp", {Vec<float>({0.0f, kNaNF, 0.0f, -0.0f, -1.0f}),
                          Vec<float>({kNaNF, 0.5f, -0.0f, 0.0f, 5.0f}),
                          Vec<float>({1.0f, 1.0f, 1.0f, -0.0f, kInfF})}, "f32");
  ASSERT_EQ(out.size(), 5u);
  EXPECT_TRUE(std::isnan(out[0]));
  EXPECT_TRUE(std::isnan(out[1]));
  EXPECT_EQ(Bits(out[2]), Bits(0.0f));   // max(-0, +0) = +0
  EXPECT_EQ(Bits(out[3]), Bits(-0.0f));  // min(+0, -0) = -0
  EXPECT_EQ(out[4], 5.0f);
  // f16 with rank-0 bounds [0, 1]: 2 -> 1, -0.5 -> 0, NaN stays.
  Literal lo = Literal::Raw<uint16_t>(ElementType::kF16, {0x0000}, {});
  Literal hi = Literal::Raw<uint16_t>(ElementType::kF16, {0x3C00}, {});
  EXPECT_THAT(Values<uint16_t>("stablehlo.clamp", {lo, F16({0x4000, 0xB800, 0x7E03}), hi}, "f16"),
              ElementsAre(0x3C00, 0x0000, 0x7E03));
}

TEST_P(SelectClampTest, ClampOnI1IsOrThenAnd) {
  EXPECT_THAT(Values<bool>("stablehlo.clamp", {Scalar<bool>(true), Vec<bool>({false, true}), Scalar<bool>(true)},
                           "i1"),
              ElementsAre(true, true));
  EXPECT_THAT(Values<bool>("stablehlo.clamp", {Scalar<bool>(false), Vec<bool>({false, true}),
                                               Scalar<bool>(false)}, "i1"),
              ElementsAre(false, false));
}

class ElementwiseShapeTest : public ElementwiseTest {};
INSTANTIATE_TEST_SUITE_P(Plan, ElementwiseShapeTest, ::testing::Bool(), FusionName);

TEST_P(ElementwiseShapeTest, EmptyAndRankZeroTensors) {
  Literal empty = Literal::Of<int32_t>({}, {2, 0, 3});
  Literal out = Op("stablehlo.add", {empty, empty}, "i32");
  EXPECT_EQ(out.dims, (std::vector<int64_t>{2, 0, 3}));
  EXPECT_TRUE(out.bytes.empty());
  EXPECT_THAT(Values<float>("stablehlo.multiply", {Scalar<float>(3), Scalar<float>(-2)}, "f32"),
              ElementsAre(-6.0f));
  EXPECT_THAT(Values<float>("stablehlo.clamp", {Scalar<float>(0), Scalar<float>(7), Scalar<float>(5)}, "f32"),
              ElementsAre(5.0f));
}

TEST_P(ElementwiseShapeTest, LongMixedChainMatchesAScalarLoop) {
  // convert, multiply, compare, select, clamp with rank-0 bounds, negate,
  // over enough elements to split across threads.
  const int64_t n = 100003;
  std::vector<int32_t> xs(n);
  std::vector<float> ys(n);
  for (int64_t i = 0; i < n; ++i) {
    xs[i] = static_cast<int32_t>(i % 2001) - 1000;
    ys[i] = static_cast<float>(i % 7) * 0.25f;
  }
  const std::string t = "tensor<" + std::to_string(n) + "x";
  const std::string program = R"(
func.func @main(%x: TI32>, %y: TF32>, %lo: tensor<f32>, %hi: tensor<f32>) -> TF32> {
  %0 = stablehlo.convert %x : (TI32>) -> TF32>
  %1 = stablehlo.multiply %0, %y : TF32>
  %2 = stablehlo.compare GT, %1, %y : (TF32>, TF32>) -> Ti1>
  %3 = stablehlo.negate %1 : TF32>
  %4 = stablehlo.select %2, %1, %3 : Ti1>, TF32>
  %5 = stablehlo.clamp %lo, %4, %hi : (tensor<f32>, TF32>, tensor<f32>) -> TF32>
  return %5 : TF32>
}
)";
  std::string text = program;
  for (auto [from, to] : {std::pair<std::string, std::string>{"TI32>", t + "i32>"},
                          {"TF32>", t + "f32>"}, {"Ti1>", t + "i1>"}}) {
    for (size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size())) {
      text.replace(pos, from.size(), to);
    }
  }
  Result<std::vector<Literal>> out =
      Compute(text, {Vec<int32_t>(xs), Vec<float>(ys), Scalar<float>(-50.0f), Scalar<float>(120.0f)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  std::vector<float> values = out->at(0).Values<float>();
  ASSERT_EQ(values.size(), static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    float product = static_cast<float>(xs[i]) * ys[i];
    float chosen = product > ys[i] ? product : -product;
    float expected = std::min(std::max(chosen, -50.0f), 120.0f);
    ASSERT_EQ(values[i], expected) << "at " << i;
  }
}

}  // namespace
}  // namespace berth::testing
