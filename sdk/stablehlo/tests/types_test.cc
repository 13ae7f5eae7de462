// Element type facts and the bit-exact small float conversions executors use.
#include <cmath>

#include "tests/test_util.hpp"

namespace berth::stablehlo {
namespace {

TEST(TypesTest, ElementTypeNamesAndWidths) {
  EXPECT_EQ(ElementTypeName(ElementType::kSI32), "i32");
  EXPECT_EQ(ElementTypeName(ElementType::kUI4), "ui4");
  EXPECT_EQ(ElementTypeName(ElementType::kF8E4M3B11FNUZ), "f8E4M3B11FNUZ");
  EXPECT_EQ(ElementTypeName(ElementType::kComplex128), "complex<f64>");
  EXPECT_EQ(BitWidth(ElementType::kI1), 1);
  EXPECT_EQ(BitWidth(ElementType::kF6E3M2FN), 6);
  EXPECT_EQ(StorageBytes(ElementType::kI1), 1u);
  EXPECT_EQ(StorageBytes(ElementType::kSI4), 1u);
  EXPECT_EQ(StorageBytes(ElementType::kBF16), 2u);
  EXPECT_EQ(StorageBytes(ElementType::kComplex64), 8u);
  EXPECT_TRUE(IsSignedInteger(ElementType::kSI2));
  EXPECT_FALSE(IsInteger(ElementType::kI1));
  EXPECT_TRUE(IsFloat(ElementType::kF8E8M0FNU));
  EXPECT_EQ(ComplexComponentType(ElementType::kComplex64), ElementType::kF32);
}

struct FloatCase {
  ElementType type;
  uint64_t bits;
  double value;
};

TEST(TypesTest, DecodesSmallFloats) {
  const FloatCase cases[] = {
      {ElementType::kF16, 0x3C00, 1.0},
      {ElementType::kF16, 0x0001, 5.9604644775390625e-08},
      {ElementType::kBF16, 0xC000, -2.0},
      {ElementType::kF8E4M3FN, 0x7E, 448.0},
      {ElementType::kF8E4M3FNUZ, 0x7F, 240.0},
      {ElementType::kF8E4M3FNUZ, 0x01, 0.0009765625},
      {ElementType::kF8E5M2FNUZ, 0x7F, 57344.0},
      {ElementType::kF8E4M3B11FNUZ, 0x7F, 30.0},
      {ElementType::kF8E3M4, 0x01, 0.015625},
      {ElementType::kF8E5M2, 0x01, 1.52587890625e-05},
      {ElementType::kF6E2M3FN, 0x1F, 7.5},
      {ElementType::kF6E3M2FN, 0x1F, 28.0},
      {ElementType::kF4E2M1FN, 0x07, 6.0},
      {ElementType::kF4E2M1FN, 0x09, -0.5},
      {ElementType::kF8E8M0FNU, 127, 1.0},
  };
  for (const FloatCase& c : cases) {
    EXPECT_EQ(DecodeFloat(c.type, c.bits), c.value) << ElementTypeName(c.type) << " " << c.bits;
    EXPECT_EQ(EncodeFloat(c.type, c.value), c.bits) << ElementTypeName(c.type) << " " << c.value;
  }
}

TEST(TypesTest, NanAndInfinityEncodings) {
  EXPECT_TRUE(std::isnan(DecodeFloat(ElementType::kF8E4M3FN, 0x7F)));
  EXPECT_TRUE(std::isnan(DecodeFloat(ElementType::kF8E4M3FNUZ, 0x80)));
  EXPECT_TRUE(std::isinf(DecodeFloat(ElementType::kF8E5M2, 0x7C)));
  EXPECT_TRUE(std::isinf(DecodeFloat(ElementType::kF16, 0xFC00)));
  // Overflow: infinity where there is one, else NaN, else saturation.
  EXPECT_EQ(EncodeFloat(ElementType::kF16, 1e6), 0x7C00u);
  EXPECT_EQ(EncodeFloat(ElementType::kF8E4M3FN, 1000.0), 0x7Fu);
  EXPECT_EQ(EncodeFloat(ElementType::kF4E2M1FN, 100.0), 0x07u);
  EXPECT_EQ(EncodeFloat(ElementType::kF8E4M3FNUZ, -0.0), 0x00u);
}

TEST(TypesTest, RoundsToNearestEven) {
  // Halfway between 1.0 (0x3C00) and the next f16 (0x3C01): ties to even.
  EXPECT_EQ(EncodeFloat(ElementType::kF16, 1.0 + std::ldexp(1.0, -11)), 0x3C00u);
  EXPECT_EQ(EncodeFloat(ElementType::kF16, 1.0 + 3 * std::ldexp(1.0, -11)), 0x3C02u);
  // Rounding up into the next binade.
  EXPECT_EQ(EncodeFloat(ElementType::kBF16, 1.99999), 0x4000u);
  // Subnormal rounding.
  EXPECT_EQ(EncodeFloat(ElementType::kF16, 4e-8), 0x0001u);
  EXPECT_EQ(EncodeFloat(ElementType::kF16, 2e-8), 0x0000u);
}

TEST(TypesTest, TypeEqualityIsStructuralAcrossModules) {
  Module a = testing::MustParse("func.func @main(%a: tensor<2x?xf32>) { return }");
  Module b = testing::MustParse("func.func @main(%a: tensor<2x?xf32>) { return }");
  Type ta = a.entry_function()->argument_types()[0];
  Type tb = b.entry_function()->argument_types()[0];
  EXPECT_NE(ta.impl(), tb.impl());
  EXPECT_EQ(ta, tb);
  EXPECT_EQ(ta.ToString(), "tensor<2x?xf32>");
}

}  // namespace
}  // namespace berth::stablehlo
