// Dense literals: every spelling, stored as contiguous little-endian bytes in
// the element type's natural layout.
#include <cmath>
#include <cstring>

#include "tests/test_util.hpp"

namespace berth::stablehlo {
namespace {

using testing::FirstOp;
using testing::MustParse;
using testing::ParseStatus;

// The dense value of `stablehlo.constant <literal>`.
const DenseElementsAttr& Constant(const Module& m) {
  return *FirstOp(m).GetDense("value");
}

Module ParseConstant(std::string_view literal) {
  std::string text = "func.func @main() {\n  %0 = stablehlo.constant ";
  text += literal;
  text += "\n  return\n}\n";
  return MustParse(text);
}

Status ConstantStatus(std::string_view literal) {
  std::string text = "func.func @main() {\n  %0 = stablehlo.constant ";
  text += literal;
  text += "\n  return\n}\n";
  return ParseStatus(text);
}

template <typename T>
std::vector<T> As(const DenseElementsAttr& d) {
  std::vector<uint8_t> bytes = d.ExpandedData();
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

TEST(DenseTest, IntegersInNaturalLayout) {
  Module m = ParseConstant("dense<[[1, -2], [3, 2147483647]]> : tensor<2x2xi32>");
  const DenseElementsAttr& d = Constant(m);
  EXPECT_FALSE(d.is_splat());
  EXPECT_EQ(As<int32_t>(d), (std::vector<int32_t>{1, -2, 3, 2147483647}));
  EXPECT_EQ(d.raw_data().size(), 16u);
}

TEST(DenseTest, UnsignedAndWideIntegers) {
  Module m = ParseConstant("dense<[0, 18446744073709551615]> : tensor<2xui64>");
  EXPECT_EQ(As<uint64_t>(Constant(m)), (std::vector<uint64_t>{0, UINT64_MAX}));
  Module s = ParseConstant("dense<[-9223372036854775808, 9223372036854775807]> : tensor<2xi64>");
  EXPECT_EQ(As<int64_t>(Constant(s)), (std::vector<int64_t>{INT64_MIN, INT64_MAX}));
}

TEST(DenseTest, SubByteIntegersOneBytePerElementSignExtended) {
  Module s4 = ParseConstant("dense<[-8, -1, 7]> : tensor<3xi4>");
  EXPECT_EQ(As<int8_t>(Constant(s4)), (std::vector<int8_t>{-8, -1, 7}));
  Module s2 = ParseConstant("dense<[-2, 1]> : tensor<2xi2>");
  EXPECT_EQ(As<int8_t>(Constant(s2)), (std::vector<int8_t>{-2, 1}));
  Module u4 = ParseConstant("dense<[0, 15]> : tensor<2xui4>");
  EXPECT_EQ(As<uint8_t>(Constant(u4)), (std::vector<uint8_t>{0, 15}));
}

TEST(DenseTest, BooleansAsOneBytePerElement) {
  Module m = ParseConstant("dense<[true, false, true]> : tensor<3xi1>");
  EXPECT_EQ(As<uint8_t>(Constant(m)), (std::vector<uint8_t>{1, 0, 1}));
  Module ints = ParseConstant("dense<[[0], [1]]> : tensor<2x1xi1>");
  EXPECT_EQ(As<uint8_t>(Constant(ints)), (std::vector<uint8_t>{0, 1}));
}

TEST(DenseTest, SplatIsStoredOnceAndExpands) {
  Module m = ParseConstant("dense<2.5> : tensor<1000x1000xf32>");
  const DenseElementsAttr& d = Constant(m);
  EXPECT_TRUE(d.is_splat());
  EXPECT_EQ(d.raw_data().size(), 4u);
  EXPECT_EQ(d.num_elements(), 1000000);
  std::vector<float> all(1000000);
  ASSERT_TRUE(d.CopyTo(all.data(), all.size() * sizeof(float)));
  EXPECT_EQ(all[999999], 2.5f);
  EXPECT_FALSE(d.CopyTo(all.data(), 12));
}

TEST(DenseTest, HexBitPatternsForFloats) {
  Module m = ParseConstant(
      "dense<[0x7FC00000, 0xFF800000, 0x00000001, 1.0]> : tensor<4xf32>");
  std::vector<uint32_t> bits = As<uint32_t>(Constant(m));
  EXPECT_EQ(bits[0], 0x7FC00000u);
  EXPECT_EQ(bits[1], 0xFF800000u);
  EXPECT_EQ(bits[2], 0x00000001u);
  EXPECT_EQ(bits[3], 0x3F800000u);
  Module h = ParseConstant("dense<[0x7C00, 0x3C00]> : tensor<2xf16>");
  EXPECT_EQ(As<uint16_t>(Constant(h)), (std::vector<uint16_t>{0x7C00, 0x3C00}));
}

TEST(DenseTest, HexIntegerLiteralIsAValue) {
  Module m = ParseConstant("dense<0x0123456789ABCDEF> : tensor<i64>");
  EXPECT_EQ(As<int64_t>(Constant(m))[0], 0x0123456789ABCDEF);
}

TEST(DenseTest, RejectsHexFloatWiderThanType) {
  Status s = ConstantStatus("dense<0x7FC000000> : tensor<f32>");
  EXPECT_NE(s.message().find("hexadecimal float constant is out of range"), std::string::npos)
      << s.message();
}

TEST(DenseTest, HalfAndBfloatStoredAsBits) {
  Module m = ParseConstant("dense<[1.0, -2.0, 0.1]> : tensor<3xbf16>");
  EXPECT_EQ(As<uint16_t>(Constant(m)), (std::vector<uint16_t>{0x3F80, 0xC000, 0x3DCD}));
  Module h = ParseConstant("dense<[1.0, 65504.0, 1.0e6]> : tensor<3xf16>");
  EXPECT_EQ(As<uint16_t>(Constant(h)), (std::vector<uint16_t>{0x3C00, 0x7BFF, 0x7C00}));
}

TEST(DenseTest, SmallFloatsOneBytePerElement) {
  Module m = ParseConstant("dense<[1.0, 448.0, -0.0]> : tensor<3xf8E4M3FN>");
  EXPECT_EQ(As<uint8_t>(Constant(m)), (std::vector<uint8_t>{0x38, 0x7E, 0x80}));
  Module f4 = ParseConstant("dense<[0.5, 6.0, 0x0F]> : tensor<3xf4E2M1FN>");
  EXPECT_EQ(As<uint8_t>(Constant(f4)), (std::vector<uint8_t>{0x01, 0x07, 0x0F}));
  Module fnuz = ParseConstant("dense<-0.0> : tensor<f8E4M3FNUZ>");
  EXPECT_EQ(As<uint8_t>(Constant(fnuz))[0], 0x00);
}

TEST(DenseTest, ComplexPairs) {
  Module m = ParseConstant("dense<[(1.5, -2.5), (0.0, 1.0)]> : tensor<2xcomplex<f32>>");
  EXPECT_EQ(As<float>(Constant(m)), (std::vector<float>{1.5f, -2.5f, 0.0f, 1.0f}));
  Module splat = ParseConstant("dense<(1.000000e+00,0.000000e+00)> : tensor<2x2xcomplex<f64>>");
  EXPECT_TRUE(Constant(splat).is_splat());
  EXPECT_EQ(As<double>(Constant(splat)).size(), 8u);
  Module hex = ParseConstant("dense<(0x7FF0000000000000, 1.0)> : tensor<complex<f64>>");
  EXPECT_TRUE(std::isinf(As<double>(Constant(hex))[0]));
}

TEST(DenseTest, EmptyLiteral) {
  Module m = ParseConstant("dense<> : tensor<0xf32>");
  EXPECT_EQ(Constant(m).num_elements(), 0);
  Module nested = ParseConstant("dense<[[], []]> : tensor<2x0xi32>");
  EXPECT_EQ(Constant(nested).num_elements(), 0);
  Status s = ConstantStatus("dense<> : tensor<2xf32>");
  EXPECT_NE(s.message().find("dense<> needs a tensor type without elements"), std::string::npos);
}

TEST(DenseTest, QuotedHexBlobHoldsLittleEndianBytes) {
  Module m = ParseConstant(R"(dense<"0x0000803F00000040"> : tensor<2xf32>)");
  EXPECT_EQ(As<float>(Constant(m)), (std::vector<float>{1.0f, 2.0f}));
  Module splat = ParseConstant(R"(dense<"0x0000803F"> : tensor<3xf32>)");
  EXPECT_TRUE(Constant(splat).is_splat());
  Module i4 = ParseConstant(R"(dense<"0x0F01"> : tensor<2xi4>)");
  EXPECT_EQ(As<int8_t>(Constant(i4)), (std::vector<int8_t>{-1, 1}));
  Status s = ConstantStatus(R"(dense<"0x0000803F00"> : tensor<2xf32>)");
  EXPECT_NE(s.message().find("hexadecimal dense literal has 5 bytes; the type needs 8"),
            std::string::npos)
      << s.message();
}

TEST(DenseTest, PackedBooleanHexBlob) {
  // Ten booleans bit-packed into two bytes, as MLIR may print them.
  Module m = ParseConstant(R"(dense<"0x0502"> : tensor<10xi1>)");
  EXPECT_EQ(As<uint8_t>(Constant(m)), (std::vector<uint8_t>{1, 0, 1, 0, 0, 0, 0, 0, 0, 1}));
}

TEST(DenseTest, RejectsWrongElementCounts) {
  Status fewer = ConstantStatus("dense<[[1, 2], [3]]> : tensor<2x2xi32>");
  EXPECT_EQ(fewer.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(fewer.message().find("differ in length"), std::string::npos) << fewer.message();
  Status more = ConstantStatus("dense<[1, 2, 3]> : tensor<2xi32>");
  EXPECT_NE(more.message().find("more values"), std::string::npos) << more.message();
  Status ragged = ConstantStatus("dense<[1, [2]]> : tensor<2xi32>");
  EXPECT_NE(ragged.message().find("ranks are not consistent"), std::string::npos)
      << ragged.message();
}

TEST(DenseTest, AcceptsSameCountInAnotherShape) {
  Module m = ParseConstant("dense<[[1, 2, 3], [4, 5, 6]]> : tensor<3x2xi32>");
  EXPECT_EQ(As<int32_t>(Constant(m)), (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
}

TEST(DenseTest, RejectsOutOfRangeIntegers) {
  Status s = ConstantStatus("dense<256> : tensor<i8>");
  EXPECT_NE(s.message().find("integer value is out of range for i8"), std::string::npos)
      << s.message();
  EXPECT_FALSE(ConstantStatus("dense<-1> : tensor<ui8>").ok());
  EXPECT_FALSE(ConstantStatus("dense<2> : tensor<i1>").ok());
  EXPECT_TRUE(ConstantStatus("dense<255> : tensor<i8>").ok());  // signless i8 bit pattern
}

TEST(DenseTest, RejectsFloatForIntegerType) {
  Status s = ConstantStatus("dense<1.5> : tensor<i32>");
  EXPECT_NE(s.message().find("expected an integer value for i32, found a float"),
            std::string::npos)
      << s.message();
}

TEST(DenseTest, RejectsDynamicShape) {
  Status s = ConstantStatus("dense<1.0> : tensor<?xf32>");
  EXPECT_NE(s.message().find("a dense literal needs a static shape"), std::string::npos);
}

TEST(DenseTest, IntAtAndFloatAtReadElements) {
  Module m = ParseConstant("dense<[3, -4]> : tensor<2xi16>");
  EXPECT_EQ(Constant(m).IntAt(1), -4);
  Module f = ParseConstant("dense<[0.5, 0.25]> : tensor<2xbf16>");
  EXPECT_EQ(Constant(f).FloatAt(1), 0.25);
  EXPECT_EQ(Constant(m).ToInt64Vector(), (std::vector<int64_t>{3, -4}));
}

TEST(DenseTest, FloatDecimalRoundingIsCorrect) {
  Module m = ParseConstant("dense<[0.1, 3.14159274, 1.0e-45, 3.5e38]> : tensor<4xf32>");
  std::vector<float> v = As<float>(Constant(m));
  EXPECT_EQ(v[0], 0.1f);
  EXPECT_EQ(v[1], 3.14159274f);
  EXPECT_EQ(v[2], 1.0e-45f);
  EXPECT_TRUE(std::isinf(v[3]));
  Module d = ParseConstant("dense<[2.1000000000000014, 4.940660e-324]> : tensor<2xf64>");
  EXPECT_EQ(As<double>(Constant(d))[0], 2.1000000000000014);
  EXPECT_EQ(As<double>(Constant(d))[1], 4.940660e-324);
}

}  // namespace
}  // namespace berth::stablehlo
