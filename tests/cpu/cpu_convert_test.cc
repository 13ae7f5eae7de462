// Conversions, iota and floating-point math on the CPU plugin: convert
// between every pair of supported types (truncation, saturation, NaN,
// rounding once to nearest even), bitcast_convert at equal and different
// widths (i1 bit packing), reduce_precision, iota / dynamic_iota, rounding
// ops, transcendental functions and their special values.
#include <cstring>

#include "elementwise_test_util.hpp"

namespace berth::testing {
namespace {

class ConvertTest : public ElementwiseTest {
 protected:
  template <typename T>
  std::vector<T> Convert(const Literal& from, const std::string& to) const {
    return Values<T>("stablehlo.convert", {from}, to);
  }
};
INSTANTIATE_TEST_SUITE_P(Plan, ConvertTest, ::testing::Bool(), FusionName);

TEST_P(ConvertTest, FloatToIntegerTruncatesSaturatesAndMapsNaNToZero) {
  EXPECT_THAT(Convert<int32_t>(Vec<float>({1.9f, -1.9f, 3e9f, -3e9f, kNaNF, kInfF, -kInfF, -0.5f,
                                           2147483520.0f}), "i32"),
              ElementsAre(1, -1, kMax32, kMin32, 0, kMax32, kMin32, 0, 2147483520));
  EXPECT_THAT(Convert<uint8_t>(Vec<float>({-1.0f, 255.9f, 256.0f, 300.0f, kNaNF, 0.99f}), "ui8"),
              ElementsAre(0, 255, 255, 255, 0, 0));
  EXPECT_THAT(Convert<int64_t>(Vec<double>({9.3e18, -9.3e18, 9223372036854775808.0,
                                            -9223372036854775808.0, 4611686018427387904.0}), "i64"),
              ElementsAre(kMax64, kMin64, kMax64, kMin64, int64_t{1} << 62));
  EXPECT_THAT(Convert<uint64_t>(Vec<double>({1.8e19, 2e19, -5.0}), "ui64"),
              ElementsAre(18000000000000000000u, ~uint64_t{0}, 0u));
  // f16 250, -5, NaN, -inf to i8.
  EXPECT_THAT(Convert<int8_t>(F16({0x5BD0, 0xC500, 0x7E00, 0xFC00}), "i8"), ElementsAre(127, -5, 0, -128));
  // bf16 65536 and 1.5 to ui16.
  EXPECT_THAT(Convert<uint16_t>(BF16({0x4780, 0x3FC0}), "ui16"), ElementsAre(65535, 1));
}

TEST_P(ConvertTest, IntegerToIntegerWraps) {
  EXPECT_THAT(Convert<int8_t>(Vec<int32_t>({300, -1, 128, -129}), "i8"), ElementsAre(44, -1, -128, 127));
  EXPECT_THAT(Convert<uint32_t>(Vec<int32_t>({-1}), "ui32"), ElementsAre(4294967295u));
  EXPECT_THAT(Convert<int64_t>(Vec<uint32_t>({4294967295u}), "i64"), ElementsAre(4294967295));
  EXPECT_THAT(Convert<uint64_t>(Vec<int8_t>({-1}), "ui64"), ElementsAre(~uint64_t{0}));
  EXPECT_THAT(Convert<int16_t>(Vec<uint64_t>({65537, 0xFFFFFFFFFFFF8000u}), "i16"), ElementsAre(1, -32768));
}

TEST_P(ConvertTest, IntegerToFloatRoundsOnceToNearestEven) {
  EXPECT_THAT(Convert<float>(Vec<int32_t>({16777217, 16777219, -16777217}), "f32"),
              ElementsAre(16777216.0f, 16777220.0f, -16777216.0f));
  EXPECT_THAT(Convert<double>(Vec<int64_t>({(int64_t{1} << 53) + 1, (int64_t{1} << 53) + 3}), "f64"),
              ElementsAre(9007199254740992.0, 9007199254740996.0));
  EXPECT_THAT(Convert<float>(Vec<uint64_t>({~uint64_t{0}}), "f32"), ElementsAre(18446744073709551616.0f));
  // f16: 2049 and 2051 are ties; 65519 rounds down to the largest finite,
  // 65520 (a tie with 65536) overflows.
  EXPECT_THAT(Convert<uint16_t>(Vec<int32_t>({2049, 2051, 65519, 65520, -65520, 1}), "f16"),
              ElementsAre(0x6800, 0x6802, 0x7BFF, 0x7C00, 0xFC00, 0x3C00));
  // bf16: 2^30 + 2^22 is a tie (even: 2^30); one more is above it. Rounding
  // through f32 first would lose that one.
  EXPECT_THAT(Convert<uint16_t>(Vec<int64_t>({(1LL << 30) + (1LL << 22) + 1, (1LL << 30) + (1LL << 22), 3}),
                                "bf16"),
              ElementsAre(0x4E81, 0x4E80, 0x4040));
  EXPECT_THAT(Convert<uint16_t>(Vec<uint64_t>({~uint64_t{0}}), "bf16"), ElementsAre(0x5F80));
  EXPECT_THAT(Convert<uint16_t>(Vec<int8_t>({-128}), "f16"), ElementsAre(0xD800));
}

TEST_P(ConvertTest, FloatToFloatRoundsOnceToNearestEven) {
  const double tie32 = 1.0 + std::ldexp(1.0, -24);
  std::vector<float> f32 = Convert<float>(
      Vec<double>({tie32, tie32 + std::ldexp(1.0, -52), 1e39, kNaND}), "f32");
  ASSERT_EQ(f32.size(), 4u);
  EXPECT_EQ(f32[0], 1.0f);
  EXPECT_EQ(f32[1], 1.0f + std::ldexp(1.0f, -23));
  EXPECT_EQ(f32[2], kInfF);
  EXPECT_TRUE(std::isnan(f32[3]));
  // f64 -> f16 / bf16 just above a tie must round up, which rounding to f32
  // first would turn into a tie rounded down.
  const double tiny_tie = std::ldexp(1.0, -25);
  EXPECT_THAT(Convert<uint16_t>(Vec<double>({tiny_tie + std::ldexp(1.0, -77), tiny_tie,
                                             -tiny_tie - std::ldexp(1.0, -77), 65520.0,
                                             1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)}),
                                "f16"),
              ElementsAre(0x0001, 0x0000, 0x8001, 0x7C00, 0x3C01));
  EXPECT_THAT(Convert<uint16_t>(Vec<double>({1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30)}), "bf16"),
              ElementsAre(0x3F81));
  // f32 -> bf16: ties to even, NaN payload kept (quieted).
  EXPECT_THAT(Convert<uint16_t>(Vec<float>({1.00390625f, 1.01171875f, F32Bits(0x7FC12345), -0.0f}),
                                "bf16"),
              ElementsAre(0x3F80, 0x3F82, 0x7FC1, 0x8000));
  EXPECT_THAT(Convert<uint16_t>(Vec<float>({1e5f, 6e-8f, -0.0f}), "f16"), ElementsAre(0x7C00, 0x0001, 0x8000));
  EXPECT_THAT(Convert<float>(F16({0x0001, 0x7BFF, 0xFC00}), "f32"),
              ElementsAre(std::ldexp(1.0f, -24), 65504.0f, -kInfF));
  EXPECT_THAT(Convert<uint16_t>(BF16({0x4780, 0x3F80}), "f16"), ElementsAre(0x7C00, 0x3C00));
  EXPECT_THAT(Convert<uint16_t>(F16({0x3C01}), "bf16"), ElementsAre(0x3F80));
  EXPECT_THAT(Convert<double>(Vec<float>({0.1f}), "f64"), ElementsAre(static_cast<double>(0.1f)));
}

TEST_P(ConvertTest, BooleansAreZeroAndOne) {
  EXPECT_THAT(Convert<bool>(Vec<float>({0.0f, -0.0f, 0.5f, kNaNF, -kInfF}), "i1"),
              ElementsAre(false, false, true, true, true));
  EXPECT_THAT(Convert<bool>(Vec<int32_t>({-1, 0, 2}), "i1"), ElementsAre(true, false, true));
  EXPECT_THAT(Convert<bool>(F16({0x8000, 0x0001}), "i1"), ElementsAre(false, true));
  EXPECT_THAT(Convert<uint16_t>(Vec<bool>({true, false}), "f16"), ElementsAre(0x3C00, 0x0000));
  EXPECT_THAT(Convert<uint16_t>(Vec<bool>({true}), "bf16"), ElementsAre(0x3F80));
  EXPECT_THAT(Convert<int32_t>(Vec<bool>({true, false}), "i32"), ElementsAre(1, 0));
  EXPECT_THAT(Convert<double>(Vec<bool>({true}), "f64"), ElementsAre(1.0));
  EXPECT_THAT(Convert<bool>(Vec<bool>({true, false}), "i1"), ElementsAre(true, false));
}

// The bytes of values 1 and 100 (true, true for i1) in `type`.
std::vector<std::byte> OneAndHundred(ElementType type) {
  auto bytes_of = [](auto a, auto b) {
    std::vector<std::byte> out(2 * sizeof(a));
    std::memcpy(out.data(), &a, sizeof(a));
    std::memcpy(out.data() + sizeof(a), &b, sizeof(b));
    return out;
  };
  switch (type) {
    case ElementType::kPred: return {std::byte{1}, std::byte{1}};
    case ElementType::kS8: return bytes_of(int8_t{1}, int8_t{100});
    case ElementType::kS16: return bytes_of(int16_t{1}, int16_t{100});
    case ElementType::kS32: return bytes_of(int32_t{1}, int32_t{100});
    case ElementType::kS64: return bytes_of(int64_t{1}, int64_t{100});
    case ElementType::kU8: return bytes_of(uint8_t{1}, uint8_t{100});
    case ElementType::kU16: return bytes_of(uint16_t{1}, uint16_t{100});
    case ElementType::kU32: return bytes_of(uint32_t{1}, uint32_t{100});
    case ElementType::kU64: return bytes_of(uint64_t{1}, uint64_t{100});
    case ElementType::kF16: return bytes_of(uint16_t{0x3C00}, uint16_t{0x5640});
    case ElementType::kBF16: return bytes_of(uint16_t{0x3F80}, uint16_t{0x42C8});
    case ElementType::kF32: return bytes_of(1.0f, 100.0f);
    default: return bytes_of(1.0, 100.0);
  }
}

TEST_P(ConvertTest, EveryPairOfSupportedTypes) {
  const ElementType types[] = {ElementType::kPred, ElementType::kS8,  ElementType::kS16,
                               ElementType::kS32,  ElementType::kS64, ElementType::kU8,
                               ElementType::kU16,  ElementType::kU32, ElementType::kU64,
                               ElementType::kF16,  ElementType::kBF16, ElementType::kF32,
                               ElementType::kF64};
  for (ElementType from : types) {
    Literal input;
    input.type = from;
    input.dims = {2};
    input.bytes = OneAndHundred(from);
    for (ElementType to : types) {
      Literal out = Op("stablehlo.convert", {input}, MlirType(to));
      std::vector<std::byte> expected = OneAndHundred(to);
      if (from == ElementType::kPred && to != ElementType::kPred) {
        // true, true -> 1, 1.
        std::vector<std::byte> one = OneAndHundred(to);
        std::memcpy(expected.data() + one.size() / 2, one.data(), one.size() / 2);
      }
      EXPECT_EQ(out.bytes, expected) << MlirType(from) << " -> " << MlirType(to);
    }
  }
}

class BitcastTest : public ElementwiseTest {};
INSTANTIATE_TEST_SUITE_P(Plan, BitcastTest, ::testing::Bool(), FusionName);

TEST_P(BitcastTest, SameWidthKeepsTheBits) {
  EXPECT_THAT(Values<int32_t>("stablehlo.bitcast_convert", {Vec<float>({1.0f, -0.0f})}, "i32"),
              ElementsAre(0x3F800000, kMin32));
  EXPECT_THAT(Values<uint16_t>("stablehlo.bitcast_convert", {Vec<int16_t>({0x3C00, -1})}, "f16"),
              ElementsAre(0x3C00, 0xFFFF));
  EXPECT_THAT(Values<uint64_t>("stablehlo.bitcast_convert", {Vec<double>({-2.0})}, "ui64"),
              ElementsAre(0xC000000000000000u));
  EXPECT_THAT(Values<uint16_t>("stablehlo.bitcast_convert", {F16({0x7E01})}, "bf16"), ElementsAre(0x7E01));
}

TEST_P(BitcastTest, NarrowerTypeAddsATrailingDimension) {
  Literal out = Op("stablehlo.bitcast_convert", {Vec<float>({0.0f, 1.0f})}, "i8", "", std::vector<int64_t>{2, 4});
  EXPECT_EQ(out.dims, (std::vector<int64_t>{2, 4}));
  EXPECT_THAT(out.Values<int8_t>(), ElementsAre(0, 0, 0, 0, 0, 0, -128, 63));
  EXPECT_THAT(Values<int16_t>("stablehlo.bitcast_convert", {Scalar<int32_t>(0x00020001)}, "i16", "", std::vector<int64_t>{2}),
              ElementsAre(1, 2));
}

TEST_P(BitcastTest, WiderTypeRemovesTheTrailingDimension) {
  Literal bytes = Literal::Of<int8_t>({0, 0, 0, 0, 0, 0, -128, 63}, {2, 4});
  Literal out = Op("stablehlo.bitcast_convert", {bytes}, "f32", "", std::vector<int64_t>{2});
  EXPECT_EQ(out.dims, (std::vector<int64_t>{2}));
  EXPECT_THAT(out.Values<float>(), ElementsAre(0.0f, 1.0f));
}

TEST_P(BitcastTest, I1PacksAndUnpacksBitsLeastSignificantFirst) {
  std::vector<bool> bits(16, false);
  bits[0] = bits[15] = true;
  EXPECT_THAT(Values<int16_t>("stablehlo.bitcast_convert", {Vec<bool>(bits)}, "i16", "", std::vector<int64_t>{}),
              ElementsAre(static_cast<int16_t>(0x8001)));
  Literal rows = Literal::Of<bool>({true, true, false, false, false, false, false, false,
                                    false, false, false, false, false, false, false, true}, {2, 8});
  EXPECT_THAT(Values<uint8_t>("stablehlo.bitcast_convert", {rows}, "ui8", "", std::vector<int64_t>{2}), ElementsAre(3, 128));
  // 1.0 is 0x3FF0000000000000: bits 52..61 set.
  std::vector<bool> unpacked =
      Values<bool>("stablehlo.bitcast_convert", {Scalar<double>(1.0)}, "i1", "", std::vector<int64_t>{64});
  ASSERT_EQ(unpacked.size(), 64u);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(unpacked[i], i >= 52 && i <= 61) << "bit " << i;
}

TEST_P(BitcastTest, FusesWithArithmetic) {
  const std::string program = R"(
func.func @main(%x: tensor<3xi32>, %y: tensor<3xf32>) -> tensor<3xi32> {
  %0 = stablehlo.bitcast_convert %x : (tensor<3xi32>) -> tensor<3xf32>
  %1 = stablehlo.add %0, %y : tensor<3xf32>
  %2 = stablehlo.bitcast_convert %1 : (tensor<3xf32>) -> tensor<3xi32>
  return %2 : tensor<3xi32>
}
)";
  Result<std::vector<Literal>> out =
      Compute(program, {Vec<int32_t>({0x3F800000, 0x40000000, 0}), Vec<float>({1.0f, 2.0f, -0.0f})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_THAT(out->at(0).Values<int32_t>(), ElementsAre(0x40000000, 0x40800000, 0));
}

class ReducePrecisionTest : public ElementwiseTest {
 protected:
  template <typename T>
  std::vector<T> Reduce(const Literal& operand, const std::string& type, int exponent, int mantissa) {
    return Values<T>("stablehlo.reduce_precision", {operand}, type,
                     "exponent_bits = " + std::to_string(exponent) + " : i32, mantissa_bits = " +
                         std::to_string(mantissa) + " : i32");
  }
};
INSTANTIATE_TEST_SUITE_P(Plan, ReducePrecisionTest, ::testing::Bool(), FusionName);

TEST_P(ReducePrecisionTest, ToE5M2KeepsInfinitiesAndNaN) {
  EXPECT_THAT(BitsOf(Reduce<float>(Vec<float>({-kInfF, kInfF, F32Bits(0x7FFFFFFF), 0.0f, 1000.0f, 1e6f}),
                                   "f32", 5, 2)),
              ElementsAre(0xFF800000u, 0x7F800000u, 0x7FFFFFFFu, 0u, Bits(1024.0f), 0x7F800000u));
}

TEST_P(ReducePrecisionTest, RoundsMantissaToNearestEven) {
  EXPECT_THAT(Reduce<float>(Vec<float>({1.0f + std::ldexp(1.0f, -8), 1.0f + 3 * std::ldexp(1.0f, -8),
                                        1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)}),
                            "f32", 8, 7),
              ElementsAre(1.0f, 1.0f + std::ldexp(1.0f, -6), 1.0f + std::ldexp(1.0f, -7)));
  // f16 to two mantissa bits: 1.125 ties to 1.0, 1.375 ties to 1.5.
  EXPECT_THAT(Reduce<uint16_t>(F16({0x3C00, 0x3D00, 0x3C80, 0x3D80}), "f16", 5, 2),
              ElementsAre(0x3C00, 0x3D00, 0x3C00, 0x3E00));
  EXPECT_THAT(Reduce<double>(Vec<double>({1.0 / 3.0}), "f64", 8, 23),
              ElementsAre(static_cast<double>(1.0f / 3.0f)));
}

TEST_P(ReducePrecisionTest, OverflowsToInfinityAndUnderflowsToSignedZero) {
  EXPECT_THAT(BitsOf(Reduce<float>(Vec<float>({65504.0f, 65520.0f, 1e-10f, -1e-10f, std::ldexp(1.0f, -14),
                                               std::ldexp(1.0f, -15), -1e6f}),
                                   "f32", 5, 10)),
              ElementsAre(Bits(65504.0f), Bits(kInfF), 0u, 0x80000000u, Bits(std::ldexp(1.0f, -14)), 0u,
                          Bits(-kInfF)));
  EXPECT_THAT(Reduce<uint16_t>(BF16({0x7F80, 0x4780}), "bf16", 5, 2), ElementsAre(0x7F80, 0x7F80));
}

TEST_P(ReducePrecisionTest, WithoutMantissaBitsNaNBecomesInfinity) {
  EXPECT_THAT(BitsOf(Reduce<float>(Vec<float>({F32Bits(0x7FC00000), F32Bits(0xFFC00001), 3.0f, 6.0f}),
                                   "f32", 8, 0)),
              ElementsAre(0x7F800000u, 0xFF800000u, Bits(2.0f), Bits(8.0f)));
}

class IotaTest : public ElementwiseTest {
 protected:
  Literal Iota(const std::vector<int64_t>& dims, const std::string& type, int64_t dimension) const {
    return Op("stablehlo.iota", {}, type, "iota_dimension = " + std::to_string(dimension) + " : i64", dims);
  }
};
INSTANTIATE_TEST_SUITE_P(Plan, IotaTest, ::testing::Bool(), FusionName);

TEST_P(IotaTest, CountsAlongTheGivenDimension) {
  EXPECT_THAT(Iota({2, 3}, "i32", 0).Values<int32_t>(), ElementsAre(0, 0, 0, 1, 1, 1));
  EXPECT_THAT(Iota({2, 3}, "i32", 1).Values<int32_t>(), ElementsAre(0, 1, 2, 0, 1, 2));
  EXPECT_THAT(Iota({2, 3, 2}, "ui64", 1).Values<uint64_t>(),
              ElementsAre(0u, 0u, 1u, 1u, 2u, 2u, 0u, 0u, 1u, 1u, 2u, 2u));
  EXPECT_THAT(Iota({2, 3, 2}, "f64", 2).Values<double>(),
              ElementsAre(0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1));
}

TEST_P(IotaTest, ConvertsToEveryElementType) {
  EXPECT_THAT(Iota({4}, "f16", 0).Values<uint16_t>(), ElementsAre(0x0000, 0x3C00, 0x4000, 0x4200));
  EXPECT_THAT(Iota({3}, "bf16", 0).Values<uint16_t>(), ElementsAre(0x0000, 0x3F80, 0x4000));
  std::vector<int8_t> wrapped = Iota({300}, "i8", 0).Values<int8_t>();
  ASSERT_EQ(wrapped.size(), 300u);
  EXPECT_EQ(wrapped[127], 127);
  EXPECT_EQ(wrapped[200], -56);
  EXPECT_EQ(wrapped[299], 43);
  Literal empty = Iota({0, 3}, "f32", 1);
  EXPECT_EQ(empty.dims, (std::vector<int64_t>{0, 3}));
  EXPECT_TRUE(empty.bytes.empty());
}

TEST_P(IotaTest, DynamicIotaTakesItsShapeAtRunTime) {
  const std::string program = R"(
func.func @main(%shape: tensor<2xi32>) -> tensor<3x4xi64> {
  %0 = stablehlo.dynamic_iota %shape, dim = 1 : (tensor<2xi32>) -> tensor<3x4xi64>
  return %0 : tensor<3x4xi64>
}
)";
  Result<std::vector<Literal>> out = Compute(program, {Vec<int32_t>({3, 4})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_THAT(out->at(0).Values<int64_t>(), ElementsAre(0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3));
  Result<std::vector<Literal>> bad = Compute(program, {Vec<int32_t>({3, 5})});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("does not fit tensor<3x4xi64>"));
}

class MathTest : public ElementwiseTest {
 protected:
  template <typename T>
  std::vector<T> Unary(const std::string& op, const Literal& operand, const std::string& type) const {
    return Values<T>("stablehlo." + op, {operand}, type);
  }
};
INSTANTIATE_TEST_SUITE_P(Plan, MathTest, ::testing::Bool(), FusionName);

TEST_P(MathTest, RoundingOpsHandleHalfwayCasesAndSignedZeros) {
  Literal x = Vec<float>({-2.5f, -0.5f, 0.5f, 1.5f, 2.5f, -0.4f, 0.4f});
  EXPECT_THAT(BitsOf(Unary<float>("round_nearest_afz", x, "f32")),
              ElementsAre(Bits(-3.0f), Bits(-1.0f), Bits(1.0f), Bits(2.0f), Bits(3.0f), Bits(-0.0f), Bits(0.0f)));
  EXPECT_THAT(BitsOf(Unary<float>("round_nearest_even", x, "f32")),
              ElementsAre(Bits(-2.0f), Bits(-0.0f), Bits(0.0f), Bits(2.0f), Bits(2.0f), Bits(-0.0f), Bits(0.0f)));
  EXPECT_THAT(BitsOf(Unary<float>("ceil", x, "f32")),
              ElementsAre(Bits(-2.0f), Bits(-0.0f), Bits(1.0f), Bits(2.0f), Bits(3.0f), Bits(-0.0f), Bits(1.0f)));
  EXPECT_THAT(BitsOf(Unary<float>("floor", x, "f32")),
              ElementsAre(Bits(-3.0f), Bits(-1.0f), Bits(0.0f), Bits(1.0f), Bits(2.0f), Bits(-1.0f), Bits(0.0f)));
  // f16 2.5 and -0.5.
  EXPECT_THAT(Unary<uint16_t>("round_nearest_afz", F16({0x4100, 0xB800}), "f16"), ElementsAre(0x4200, 0xBC00));
  EXPECT_THAT(Unary<uint16_t>("round_nearest_even", F16({0x4100, 0xB800}), "f16"), ElementsAre(0x4000, 0x8000));
  std::vector<double> big = Unary<double>("round_nearest_even", Vec<double>({4503599627370497.0, kNaND}), "f64");
  ASSERT_EQ(big.size(), 2u);
  EXPECT_EQ(big[0], 4503599627370497.0);
  EXPECT_TRUE(std::isnan(big[1]));
}

TEST_P(MathTest, TranscendentalsMatchTheCLibrary) {
  const std::vector<double> xs = {0.3, 1.7, 5.0};
  struct Case {
    const char* op;
    double (*f)(double);
  };
  const Case cases[] = {
      {"exponential", [](double x) { return std::exp(x); }},
      {"exponential_minus_one", [](double x) { return std::expm1(x); }},
      {"log", [](double x) { return std::log(x); }},
      {"log_plus_one", [](double x) { return std::log1p(x); }},
      {"sine", [](double x) { return std::sin(x); }},
      {"cosine", [](double x) { return std::cos(x); }},
      {"tan", [](double x) { return std::tan(x); }},
      {"tanh", [](double x) { return std::tanh(x); }},
      {"sqrt", [](double x) { return std::sqrt(x); }},
      {"rsqrt", [](double x) { return 1.0 / std::sqrt(x); }},
      {"cbrt", [](double x) { return std::cbrt(x); }},
      {"logistic", [](double x) { return 1.0 / (1.0 + std::exp(-x)); }},
  };
  for (const Case& c : cases) {
    std::vector<double> f64 = Unary<double>(c.op, Vec<double>(xs), "f64");
    std::vector<float> f32 = Unary<float>(c.op, Vec<float>({0.3f, 1.7f, 5.0f}), "f32");
    ASSERT_EQ(f64.size(), 3u) << c.op;
    ASSERT_EQ(f32.size(), 3u) << c.op;
    for (size_t i = 0; i < xs.size(); ++i) {
      EXPECT_DOUBLE_EQ(f64[i], c.f(xs[i])) << c.op << "(" << xs[i] << ")";
      EXPECT_NEAR(f32[i], c.f(static_cast<float>(xs[i])), 2e-7 * std::fabs(c.f(xs[i])))
          << c.op << "(" << xs[i] << ") in f32";
    }
  }
}

TEST_P(MathTest, SpecialValuesFollowIeee) {
  auto bits = [&](const std::string& op, std::vector<float> x) {
    return BitsOf(Unary<float>(op, Vec<float>(x), "f32"));
  };
  const uint32_t nan = Bits(kNaNF);
  auto is_nan = [](uint32_t b) { return (b & 0x7FFFFFFFu) > 0x7F800000u; };
  std::vector<uint32_t> sqrt = bits("sqrt", {-1.0f, -0.0f, kInfF});
  EXPECT_TRUE(is_nan(sqrt[0]));
  EXPECT_EQ(sqrt[1], Bits(-0.0f));
  EXPECT_EQ(sqrt[2], Bits(kInfF));
  EXPECT_THAT(bits("rsqrt", {0.0f, -0.0f, 4.0f}), ElementsAre(Bits(kInfF), Bits(-kInfF), Bits(0.5f)));
  std::vector<uint32_t> log = bits("log", {0.0f, -1.0f, 1.0f});
  EXPECT_EQ(log[0], Bits(-kInfF));
  EXPECT_TRUE(is_nan(log[1]));
  EXPECT_EQ(log[2], 0u);
  EXPECT_THAT(bits("log_plus_one", {-1.0f, -0.0f}), ElementsAre(Bits(-kInfF), Bits(-0.0f)));
  EXPECT_THAT(bits("exponential", {-kInfF, kInfF, 0.0f}), ElementsAre(0u, Bits(kInfF), Bits(1.0f)));
  EXPECT_THAT(bits("exponential_minus_one", {-kInfF, -0.0f}), ElementsAre(Bits(-1.0f), Bits(-0.0f)));
  EXPECT_THAT(bits("cbrt", {-8.0f, -0.0f}), ElementsAre(Bits(-2.0f), Bits(-0.0f)));
  EXPECT_THAT(bits("tanh", {kInfF, -kInfF, -0.0f}), ElementsAre(Bits(1.0f), Bits(-1.0f), Bits(-0.0f)));
  for (const char* op : {"sine", "cosine", "tan"}) {
    std::vector<uint32_t> out = bits(op, {kInfF, kNaNF});
    EXPECT_TRUE(is_nan(out[0])) << op;
    EXPECT_TRUE(is_nan(out[1])) << op;
  }
  EXPECT_THAT(bits("sine", {-0.0f}), ElementsAre(Bits(-0.0f)));
  (void)nan;
}

TEST_P(MathTest, LogisticKeepsTinyResultsAndSaturates) {
  std::vector<float> out = Unary<float>("logistic", Vec<float>({-1000.0f, -100.0f, 0.0f, 100.0f, 1000.0f,
                                                                kNaNF, -kInfF}), "f32");
  ASSERT_EQ(out.size(), 7u);
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_GT(out[1], 0.0f);  // ~3.7e-44, a subnormal
  EXPECT_LT(out[1], 1e-43f);
  EXPECT_EQ(out[2], 0.5f);
  EXPECT_EQ(out[3], 1.0f);
  EXPECT_EQ(out[4], 1.0f);
  EXPECT_TRUE(std::isnan(out[5]));
  EXPECT_EQ(out[6], 0.0f);
  std::vector<double> f64 = Unary<double>("logistic", Vec<double>({-700.0}), "f64");
  ASSERT_EQ(f64.size(), 1u);
  EXPECT_DOUBLE_EQ(f64[0], std::exp(-700.0));
  EXPECT_THAT(Unary<uint16_t>("logistic", F16({0xFC00, 0x0000, 0x7C00}), "f16"),
              ElementsAre(0x0000, 0x3800, 0x3C00));
}

TEST_P(MathTest, IsFiniteOfEveryFloatType) {
  EXPECT_THAT(Values<bool>("stablehlo.is_finite",
                           {Vec<float>({kInfF, -kInfF, kNaNF, 0.0f, -0.0f, 3.4e38f, 1e-45f})}, "i1"),
              ElementsAre(false, false, false, true, true, true, true));
  EXPECT_THAT(Values<bool>("stablehlo.is_finite", {Vec<double>({kInfD, 1e308})}, "i1"), ElementsAre(false, true));
  EXPECT_THAT(Values<bool>("stablehlo.is_finite", {F16({0x7C00, 0x7E00, 0x3C00, 0x0001})}, "i1"),
              ElementsAre(false, false, true, true));
  EXPECT_THAT(Values<bool>("stablehlo.is_finite", {BF16({0xFF80, 0x7F7F})}, "i1"), ElementsAre(false, true));
}

TEST_P(MathTest, HalfPrecisionResultsAreRoundedFromFloat) {
  // sin(1) = 0.84147...: f16 0x3ABB, bf16 0x3F57; exp(1) in f16 is 0x4170.
  EXPECT_THAT(Unary<uint16_t>("sine", F16({0x3C00}), "f16"), ElementsAre(0x3ABB));
  EXPECT_THAT(Unary<uint16_t>("sine", BF16({0x3F80}), "bf16"), ElementsAre(0x3F57));
  EXPECT_THAT(Unary<uint16_t>("exponential", F16({0x3C00, 0x4C00}), "f16"), ElementsAre(0x4170, 0x7C00));
  // NaN payloads survive the trip through float.
  EXPECT_THAT(Unary<uint16_t>("sqrt", F16({0x7E05}), "f16"), ElementsAre(0x7E05));
  EXPECT_THAT(Unary<uint16_t>("sqrt", BF16({0xFFC3}), "bf16"), ElementsAre(0xFFC3));
}

}  // namespace
}  // namespace berth::testing
