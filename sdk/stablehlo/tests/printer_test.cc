// The printer: generic op form, literal spellings (lists, splats, hex blobs,
// special floats), and exact round trips of values.
#include <cmath>
#include <cstring>

#include "tests/test_util.hpp"

namespace berth::stablehlo {
namespace {

using testing::ExpectRoundTrip;
using testing::FirstOp;
using testing::Func;
using testing::MustParse;

TEST(PrinterTest, PrintsOpsInGenericForm) {
  Module m = MustParse(Func("%a: tensor<2xf32>", "tensor<2xf32>",
                            "  %0 = stablehlo.add %a, %a : tensor<2xf32>\n  return %0 : tensor<2xf32>"));
  std::string text = Print(m);
  EXPECT_NE(text.find("%0 = \"stablehlo.add\"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\"func.return\"(%0) : (tensor<2xf32>) -> ()"), std::string::npos) << text;
}

TEST(PrinterTest, PrintsOneOp) {
  Module m = MustParse(Func("%a: tensor<2xi32>", "tensor<2xi1>",
                            "  %0 = stablehlo.compare LT, %a, %a, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>\n  return %0 : tensor<2xi1>"));
  EXPECT_EQ(Print(FirstOp(m)),
            "%0 = \"stablehlo.compare\"(%a, %a) {compare_type = #stablehlo<comparison_type SIGNED>, "
            "comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<2xi32>, "
            "tensor<2xi32>) -> tensor<2xi1>");
}

TEST(PrinterTest, LargeLiteralsPrintAsHexBlobs) {
  std::string values;
  for (int i = 0; i < 300; ++i) values += (i ? ", " : "") + std::to_string(i);
  Module m = MustParse(Func("", "tensor<300xi32>", "  %0 = stablehlo.constant dense<[" + values +
                                                        "]> : tensor<300xi32>\n  return %0 : tensor<300xi32>"));
  std::string text = Print(m);
  EXPECT_NE(text.find("dense<\"0x00000000010000000200"), std::string::npos);
  ExpectRoundTrip(m);
}

TEST(PrinterTest, SpecialFloatsRoundTripBitExactly) {
  Module m = MustParse(Func("", "", R"(  %0 = stablehlo.constant dense<[0x7FC00001, 0xFF800000, -0.0, 1.401300e-45, 3.40282347E+38, 0.1]> : tensor<6xf32>
  %1 = stablehlo.constant dense<[0x7FF8000000000001, 4.940660e-324, -1.0, 0.30000000000000004]> : tensor<4xf64>
  %2 = stablehlo.constant dense<[0x7E01, 0xFC00, 65504.0, 6.0e-8]> : tensor<4xf16>
  %3 = stablehlo.constant dense<[0x7FC1, 3.0e38, -1.5]> : tensor<3xbf16>
  %4 = stablehlo.constant dense<[0x7F, 448.0, 0.001953125]> : tensor<3xf8E4M3FN>
  %5 = stablehlo.constant dense<[(1.0, 0x7FC00000), (-0.0, 2.5)]> : tensor<2xcomplex<f32>>
  return)"));
  ExpectRoundTrip(m);
  std::string text = Print(m);
  EXPECT_NE(text.find("0x7FC00001"), std::string::npos) << text;
  EXPECT_NE(text.find("-0.0"), std::string::npos) << text;
}

TEST(PrinterTest, IntegersOfEveryWidthRoundTrip) {
  Module m = MustParse(Func("", "", R"(  %0 = stablehlo.constant dense<[-2, 1]> : tensor<2xi2>
  %1 = stablehlo.constant dense<[0, 3]> : tensor<2xui2>
  %2 = stablehlo.constant dense<[-8, 7]> : tensor<2xi4>
  %3 = stablehlo.constant dense<[0, 15]> : tensor<2xui4>
  %4 = stablehlo.constant dense<[-128, 127]> : tensor<2xi8>
  %5 = stablehlo.constant dense<[65535, 0]> : tensor<2xui16>
  %6 = stablehlo.constant dense<[4294967295, 7]> : tensor<2xui32>
  %7 = stablehlo.constant dense<[18446744073709551615, 1]> : tensor<2xui64>
  %8 = stablehlo.constant dense<[-9223372036854775808, 1]> : tensor<2xi64>
  %9 = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  return)"));
  ExpectRoundTrip(m);
}

TEST(PrinterTest, AttributesRoundTrip) {
  Module m = MustParse(Func("%a: tensor<2xf32>", "", R"(  stablehlo.custom_call @t(%a) {a = 1 : i32, b = 2.5 : f32, c = "s\"q", d = [1, "x", @f], e = {k = unit}, f = array<i64: 1, 2>, g = array<i1: true>, h = array<f32: 1.5>, i = tensor<2xf32>, j = (tensor<f32>) -> tensor<i32>, k = #stablehlo<precision HIGH>, l = #stablehlo.channel_handle<handle = 3, type = 1>, m = #foo.bar<{x = [1, 2]}>, n = 7 : ui64, o = -1 : i8, p = true, q, r = 0x7FC00000 : f32, s = #stablehlo.gather<offset_dims = [0], index_vector_dim = 1>, t = #stablehlo.scatter<update_window_dims = [1]>, u = #stablehlo.dot_algorithm<lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 6, allow_imprecise_accumulation = true>} : (tensor<2xf32>) -> ()
  return)"),
                       /*verify=*/true);
  ExpectRoundTrip(m);
}

TEST(PrinterTest, PrintsTypes) {
  Module m = MustParse(Func("%a: tensor<?x2x!quant.uniform<i8:f32, 2.0>>, %b: tuple<tensor<f32>, !stablehlo.token>, %c: tensor<4xcomplex<f64>>, %d: tensor<?xf32, #stablehlo.bounds<4>>", "", "  return"),
                       /*verify=*/false);
  std::span<const Type> types = m.entry_function()->argument_types();
  EXPECT_EQ(Print(types[0]), "tensor<?x2x!quant.uniform<i8:f32, 2.0>>");
  EXPECT_EQ(Print(types[1]), "tuple<tensor<f32>, !stablehlo.token>");
  EXPECT_EQ(Print(types[2]), "tensor<4xcomplex<f64>>");
  EXPECT_EQ(Print(types[3]), "tensor<?xf32, #stablehlo.bounds<4>>");
}

}  // namespace
}  // namespace berth::stablehlo
