// Pretty and generic spellings of each op family give identical IR, with the
// attributes under their generic names and typed accessors filled in.
#include "tests/test_util.hpp"

namespace berth::stablehlo {
namespace {

using testing::ExpectSameIr;
using testing::FirstOp;
using testing::Func;
using testing::MustParse;

// Both bodies wrapped in the same function signature.
void Same(std::string_view args, std::string_view results, std::string_view pretty,
          std::string_view generic) {
  ExpectSameIr(Func(args, results, pretty), Func(args, results, generic));
}

TEST(PrettyGenericTest, ElementwiseUnaryAndBinary) {
  Same("%a: tensor<4xf32>, %b: tensor<4xf32>", "tensor<4xf32>",
       R"(  %0 = stablehlo.add %a, %b : tensor<4xf32>
  %1 = stablehlo.sine %0 : tensor<4xf32>
  %2 = stablehlo.maximum %1, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>)",
       R"(  %0 = "stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "stablehlo.sine"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "stablehlo.maximum"(%1, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%2) : (tensor<4xf32>) -> ())");
}

TEST(PrettyGenericTest, ConvertComplexRealImagIsFinite) {
  Same("%a: tensor<2xf32>, %b: tensor<2xf32>", "tensor<2xi1>",
       R"(  %0 = stablehlo.complex %a, %b : tensor<2xcomplex<f32>>
  %1 = stablehlo.real %0 : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %2 = stablehlo.convert %1 : (tensor<2xf32>) -> tensor<2xf64>
  %3 = stablehlo.is_finite %a : (tensor<2xf32>) -> tensor<2xi1>
  return %3 : tensor<2xi1>)",
       R"(  %0 = "stablehlo.complex"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xcomplex<f32>>
  %1 = "stablehlo.real"(%0) : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %2 = "stablehlo.convert"(%1) : (tensor<2xf32>) -> tensor<2xf64>
  %3 = "stablehlo.is_finite"(%a) : (tensor<2xf32>) -> tensor<2xi1>
  return %3 : tensor<2xi1>)");
}

TEST(PrettyGenericTest, CompareWithAndWithoutType) {
  Same("%a: tensor<3xi64>, %b: tensor<3xi64>", "tensor<3xi1>",
       R"(  %0 = stablehlo.compare  LT, %a, %b,  SIGNED : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
  %1 = stablehlo.compare EQ, %a, %b : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
  return %0 : tensor<3xi1>)",
       R"(  %0 = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
  %1 = "stablehlo.compare"(%a, %b) <{comparison_direction = #stablehlo<comparison_direction EQ>}> : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
  return %0 : tensor<3xi1>)");
  Module m = MustParse(Func("%a: tensor<3xi64>, %b: tensor<3xi64>", "tensor<3xi1>",
                            "  %0 = stablehlo.compare GE, %a, %b, SIGNED : (tensor<3xi64>, "
                            "tensor<3xi64>) -> tensor<3xi1>\n  return %0 : tensor<3xi1>"));
  EXPECT_EQ(FirstOp(m).comparison_direction(), ComparisonDirection::kGe);
  EXPECT_EQ(FirstOp(m).compare_type(), ComparisonType::kSigned);
}

TEST(PrettyGenericTest, SelectAndClamp) {
  Same("%p: tensor<2xi1>, %a: tensor<2xf32>, %b: tensor<2xf32>, %lo: tensor<f32>", "tensor<2xf32>",
       R"(  %0 = stablehlo.select %p, %a, %b : tensor<2xi1>, tensor<2xf32>
  %1 = stablehlo.clamp %lo, %0, %lo : (tensor<f32>, tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>)",
       R"(  %0 = "stablehlo.select"(%p, %a, %b) : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = "stablehlo.clamp"(%lo, %0, %lo) : (tensor<f32>, tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>)");
}

TEST(PrettyGenericTest, ConstantAndIota) {
  Same("", "tensor<4xi32>",
       R"(  %0 = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %1 = stablehlo.iota dim = 0 : tensor<4xi32>
  %2 = stablehlo.add %0, %1 : tensor<4xi32>
  return %2 : tensor<4xi32>)",
       R"(  %0 = "stablehlo.constant"() <{value = dense<[1, 2, 3, 4]> : tensor<4xi32>}> : () -> tensor<4xi32>
  %1 = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<4xi32>
  %2 = "stablehlo.add"(%0, %1) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %2 : tensor<4xi32>)");
}

TEST(PrettyGenericTest, BroadcastTransposeReshapeReverse) {
  Same("%a: tensor<2x3xf32>", "tensor<3x2xf32>",
       R"(  %0 = stablehlo.broadcast_in_dim %a, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %2 = stablehlo.reverse %1, dims = [0] : tensor<3x2xf32>
  %3 = stablehlo.reshape %2 : (tensor<3x2xf32>) -> tensor<6xf32>
  %4 = stablehlo.broadcast %3, sizes = [2] : (tensor<6xf32>) -> tensor<2x6xf32>
  return %2 : tensor<3x2xf32>)",
       R"(  %0 = "stablehlo.broadcast_in_dim"(%a) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "stablehlo.transpose"(%0) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %2 = "stablehlo.reverse"(%1) {dimensions = array<i64: 0>} : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %3 = "stablehlo.reshape"(%2) : (tensor<3x2xf32>) -> tensor<6xf32>
  %4 = "stablehlo.broadcast"(%3) {broadcast_sizes = array<i64: 2>} : (tensor<6xf32>) -> tensor<2x6xf32>
  return %2 : tensor<3x2xf32>)");
  Module m = MustParse(Func("%a: tensor<2x3xf32>", "tensor<3x2xf32>",
                            "  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> "
                            "tensor<3x2xf32>\n  return %0 : tensor<3x2xf32>"));
  EXPECT_EQ(std::vector<int64_t>(FirstOp(m).GetI64Array("permutation").begin(),
                                 FirstOp(m).GetI64Array("permutation").end()),
            (std::vector<int64_t>{1, 0}));
}

TEST(PrettyGenericTest, SliceWithAndWithoutStrides) {
  Same("%a: tensor<4x8xf32>", "tensor<2x2xf32>",
       R"(  %0 = stablehlo.slice %a [1:3, 4:8:2] : (tensor<4x8xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>)",
       R"(  %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 1, 4>, limit_indices = array<i64: 3, 8>, strides = array<i64: 1, 2>} : (tensor<4x8xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>)");
}

TEST(PrettyGenericTest, DynamicSliceAndUpdate) {
  Same("%a: tensor<4x4xf32>, %i: tensor<i32>, %u: tensor<1x2xf32>", "tensor<4x4xf32>",
       R"(  %0 = stablehlo.dynamic_slice %a, %i, %i, sizes = [1, 2] : (tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
  %1 = stablehlo.dynamic_update_slice %a, %0, %i, %i : (tensor<4x4xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
  return %1 : tensor<4x4xf32>)",
       R"(  %0 = "stablehlo.dynamic_slice"(%a, %i, %i) {slice_sizes = array<i64: 1, 2>} : (tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
  %1 = "stablehlo.dynamic_update_slice"(%a, %0, %i, %i) : (tensor<4x4xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
  return %1 : tensor<4x4xf32>)");
}

TEST(PrettyGenericTest, ConcatenatePadGetDimensionSize) {
  Same("%a: tensor<2xf32>, %v: tensor<f32>", "tensor<i32>",
       R"(  %0 = stablehlo.concatenate %a, %a, dim = 0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  %1 = stablehlo.pad %0, %v, low = [1], high = [2], interior = [1] : (tensor<4xf32>, tensor<f32>) -> tensor<10xf32>
  %2 = stablehlo.get_dimension_size %1, dim = 0 : (tensor<10xf32>) -> tensor<i32>
  return %2 : tensor<i32>)",
       R"(  %0 = "stablehlo.concatenate"(%a, %a) {dimension = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  %1 = "stablehlo.pad"(%0, %v) {edge_padding_low = array<i64: 1>, edge_padding_high = array<i64: 2>, interior_padding = array<i64: 1>} : (tensor<4xf32>, tensor<f32>) -> tensor<10xf32>
  %2 = "stablehlo.get_dimension_size"(%1) {dimension = 0 : i64} : (tensor<10xf32>) -> tensor<i32>
  return %2 : tensor<i32>)");
}

TEST(PrettyGenericTest, DotGeneralDimensionsPrecisionAlgorithm) {
  Same("%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>", "tensor<2x3x5xf32>",
       R"(  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, HIGHEST] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>)",
       R"(  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>]} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>)");
  Module m = MustParse(Func("%a: tensor<3x4xf32>, %b: tensor<4x5xf32>", "tensor<3x5xf32>", R"(  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 3, allow_imprecise_accumulation = false> : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>)"));
  const Operation& op = FirstOp(m);
  ASSERT_NE(op.dot_dimension_numbers(), nullptr);
  EXPECT_TRUE(op.dot_dimension_numbers()->lhs_batching_dimensions.empty());
  EXPECT_EQ(op.dot_dimension_numbers()->rhs_contracting_dimensions, std::vector<int64_t>{0});
  ASSERT_NE(op.dot_algorithm(), nullptr);
  EXPECT_EQ(op.dot_algorithm()->lhs_precision_type, ElementType::kTF32);
  EXPECT_EQ(op.dot_algorithm()->num_primitive_operations, 3);
}

TEST(PrettyGenericTest, ReduceAppliesMatchesRegionForm) {
  std::string generic = R"(  %0 = "stablehlo.reduce"(%a, %z) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = "stablehlo.add"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%s) : (tensor<f32>) -> ()
  }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>)";
  Same("%a: tensor<2x3xf32>, %z: tensor<f32>", "tensor<2xf32>",
       R"(  %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>)",
       generic);
  Same("%a: tensor<2x3xf32>, %z: tensor<f32>", "tensor<2xf32>",
       R"(  %0 = stablehlo.reduce(%a init: %z) across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
   reducer(%x: tensor<f32>, %y: tensor<f32>)  {
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }
  return %0 : tensor<2xf32>)",
       generic);
}

TEST(PrettyGenericTest, VariadicReduceReducerArgumentOrder) {
  Same("%a: tensor<4xf32>, %b: tensor<4xi32>, %z: tensor<f32>, %y: tensor<i32>",
       "(tensor<f32>, tensor<i32>)",
       R"(  %0:2 = stablehlo.reduce(%a init: %z), (%b init: %y) across dimensions = [0] : (tensor<4xf32>, tensor<4xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
   reducer(%p: tensor<f32>, %q: tensor<f32>) (%r: tensor<i32>, %s: tensor<i32>)  {
    %m = stablehlo.maximum %p, %q : tensor<f32>
    %n = stablehlo.maximum %r, %s : tensor<i32>
    stablehlo.return %m, %n : tensor<f32>, tensor<i32>
  }
  return %0#0, %0#1 : tensor<f32>, tensor<i32>)",
       R"(  %0:2 = "stablehlo.reduce"(%a, %b, %z, %y) ({
  ^bb0(%p: tensor<f32>, %r: tensor<i32>, %q: tensor<f32>, %s: tensor<i32>):
    %m = stablehlo.maximum %p, %q : tensor<f32>
    %n = stablehlo.maximum %r, %s : tensor<i32>
    stablehlo.return %m, %n : tensor<f32>, tensor<i32>
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<4xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
  return %0#0, %0#1 : tensor<f32>, tensor<i32>)");
}

TEST(PrettyGenericTest, WhileLoop) {
  Same("%n: tensor<i64>", "tensor<i64>",
       R"(  %c = stablehlo.constant dense<1> : tensor<i64>
  %0:2 = stablehlo.while(%i = %c, %acc = %n) : tensor<i64>, tensor<i64>
   cond {
    %p = stablehlo.compare  LT, %i, %n,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %s = stablehlo.add %i, %c : tensor<i64>
    stablehlo.return %s, %acc : tensor<i64>, tensor<i64>
  }
  return %0#1 : tensor<i64>)",
       R"(  %c = stablehlo.constant dense<1> : tensor<i64>
  %0:2 = "stablehlo.while"(%c, %n) ({
  ^bb0(%i: tensor<i64>, %acc: tensor<i64>):
    %p = "stablehlo.compare"(%i, %n) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<i64>, tensor<i64>) -> tensor<i1>
    "stablehlo.return"(%p) : (tensor<i1>) -> ()
  }, {
  ^bb0(%i: tensor<i64>, %acc: tensor<i64>):
    %s = "stablehlo.add"(%i, %c) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%s, %acc) : (tensor<i64>, tensor<i64>) -> ()
  }) : (tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>)
  return %0#1 : tensor<i64>)");
}

TEST(PrettyGenericTest, IfWithElse) {
  Same("%p: tensor<i1>, %a: tensor<f32>", "tensor<f32>",
       R"(  %0 = stablehlo.if %p -> (tensor<f32>) {
    stablehlo.return %a : tensor<f32>
  } else {
    %n = stablehlo.negate %a : tensor<f32>
    stablehlo.return %n : tensor<f32>
  }
  return %0 : tensor<f32>)",
       R"(  %0 = "stablehlo.if"(%p) ({
    stablehlo.return %a : tensor<f32>
  }, {
    %n = stablehlo.negate %a : tensor<f32>
    stablehlo.return %n : tensor<f32>
  }) : (tensor<i1>) -> tensor<f32>
  return %0 : tensor<f32>)");
}

TEST(PrettyGenericTest, Convolution) {
  Same("%lhs: tensor<1x4x4x1xf32>, %rhs: tensor<3x3x1x1xf32>", "tensor<1x2x2x1xf32>",
       R"(  %0 = stablehlo.convolution(%lhs, %rhs) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [4, 4], pad = [[1, 1], [1, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  return %0 : tensor<1x2x2x1xf32>)",
       R"(  %0 = "stablehlo.convolution"(%lhs, %rhs) {dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>, window_strides = array<i64: 4, 4>, padding = dense<1> : tensor<2x2xi64>, lhs_dilation = array<i64: 2, 2>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, true>, batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  return %0 : tensor<1x2x2x1xf32>)");
  Module m = MustParse(Func("%lhs: tensor<1x4x4x1xf32>, %rhs: tensor<3x3x1x1xf32>",
                            "tensor<1x2x2x1xf32>",
                            "  %0 = \"stablehlo.convolution\"(%lhs, %rhs) {dimension_numbers = "
                            "#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, "
                            "window_strides = array<i64: 2, 2>, feature_group_count = 1 : i64, "
                            "batch_group_count = 1 : i64} : (tensor<1x4x4x1xf32>, "
                            "tensor<3x3x1x1xf32>) -> tensor<1x1x1x1xf32>\n  return %0 : "
                            "tensor<1x1x1x1xf32>"),
                       /*verify=*/false);
  const ConvDimensionNumbers* dn = FirstOp(m).conv_dimension_numbers();
  ASSERT_NE(dn, nullptr);
  EXPECT_EQ(dn->input_feature_dimension, 3);
  EXPECT_EQ(dn->kernel_spatial_dimensions, (std::vector<int64_t>{0, 1}));
}

TEST(PrettyGenericTest, CustomCallTargetAndBackendConfig) {
  Same("%a: tensor<2xf32>", "tensor<2xf32>",
       R"(  %0 = stablehlo.custom_call @my_target(%a) {backend_config = "x\22y", api_version = 2 : i32} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>)",
       R"(  %0 = "stablehlo.custom_call"(%a) {call_target_name = "my_target", backend_config = "x\"y", api_version = 2 : i32} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>)");
  Module m = MustParse(Func("%a: tensor<2xf32>", "tensor<2xf32>",
                            "  %0 = stablehlo.custom_call @t(%a) {backend_config = \"a\\0Ab\"} : "
                            "(tensor<2xf32>) -> tensor<2xf32>\n  return %0 : tensor<2xf32>"));
  EXPECT_EQ(FirstOp(m).call_target_name(), "t");
  EXPECT_EQ(FirstOp(m).GetString("backend_config"), "a\nb");
}

TEST(PrettyGenericTest, GetTupleElementAndTuple) {
  Same("%a: tensor<f32>, %b: tensor<2xi32>", "tensor<2xi32>",
       R"(  %t = stablehlo.tuple %a, %b : tuple<tensor<f32>, tensor<2xi32>>
  %e = stablehlo.get_tuple_element %t[1] : (tuple<tensor<f32>, tensor<2xi32>>) -> tensor<2xi32>
  return %e : tensor<2xi32>)",
       R"(  %t = "stablehlo.tuple"(%a, %b) : (tensor<f32>, tensor<2xi32>) -> tuple<tensor<f32>, tensor<2xi32>>
  %e = "stablehlo.get_tuple_element"(%t) {index = 1 : i32} : (tuple<tensor<f32>, tensor<2xi32>>) -> tensor<2xi32>
  return %e : tensor<2xi32>)");
}

TEST(PrettyGenericTest, RngFftReducePrecisionCholesky) {
  Same("%a: tensor<f32>, %s: tensor<2xi64>, %st: tensor<2xui64>, %c: tensor<4xcomplex<f32>>, %m: tensor<3x3xf32>",
       "tensor<2x3xf32>",
       R"(  %0 = stablehlo.rng %a, %a, %s, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x3xf32>
  %1:2 = stablehlo.rng_bit_generator %st, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  %2 = stablehlo.fft %c, type = IFFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  %3 = stablehlo.reduce_precision %0, format = e5m10 : tensor<2x3xf32>
  %4 = stablehlo.cholesky %m, lower = true : tensor<3x3xf32>
  return %3 : tensor<2x3xf32>)",
       R"(  %0 = "stablehlo.rng"(%a, %a, %s) {rng_distribution = #stablehlo<rng_distribution NORMAL>} : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x3xf32>
  %1:2 = "stablehlo.rng_bit_generator"(%st) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  %2 = "stablehlo.fft"(%c) {fft_type = #stablehlo<fft_type IFFT>, fft_length = array<i64: 4>} : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  %3 = "stablehlo.reduce_precision"(%0) {exponent_bits = 5 : i32, mantissa_bits = 10 : i32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = "stablehlo.cholesky"(%m) {lower = true} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  return %3 : tensor<2x3xf32>)");
}

TEST(PrettyGenericTest, EinsumTorchIndexSelectDynamicIota) {
  Same("%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %i: tensor<2xi32>, %s: tensor<1xi64>",
       "tensor<2x4xf32>",
       R"(  %0 = stablehlo.einsum %a, %b, config = "ab,bc->ac" : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = stablehlo.torch_index_select %a, %i, dim = 0, batch_dims = 0 : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
  %2 = stablehlo.dynamic_iota %s, dim = 0 : (tensor<1xi64>) -> tensor<?xf32>
  return %0 : tensor<2x4xf32>)",
       R"(  %0 = "stablehlo.einsum"(%a, %b) {einsum_config = "ab,bc->ac"} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = "stablehlo.torch_index_select"(%a, %i) {dim = 0 : i64, batch_dims = 0 : i64} : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
  %2 = "stablehlo.dynamic_iota"(%s) {iota_dimension = 0 : i64} : (tensor<1xi64>) -> tensor<?xf32>
  return %0 : tensor<2x4xf32>)");
}

TEST(PrettyGenericTest, TokensReplicaIdAfterAll) {
  Same("%t: !stablehlo.token", "tensor<ui32>",
       R"(  %0 = stablehlo.after_all %t, %t : !stablehlo.token
  %1 = stablehlo.create_token : !stablehlo.token
  %2 = stablehlo.replica_id : tensor<ui32>
  %3 = stablehlo.partition_id : tensor<ui32>
  return %2 : tensor<ui32>)",
       R"(  %0 = "stablehlo.after_all"(%t, %t) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token
  %1 = "stablehlo.create_token"() : () -> !stablehlo.token
  %2 = "stablehlo.replica_id"() : () -> tensor<ui32>
  %3 = "stablehlo.partition_id"() : () -> tensor<ui32>
  return %2 : tensor<ui32>)");
}

TEST(PrettyGenericTest, CompositeAndCheckOps) {
  std::string helper = "func.func @impl(%x: tensor<i64>) -> tensor<i64> { return %x : tensor<i64> }\n";
  ExpectSameIr(helper + Func("%a: tensor<i64>", "", R"(  %0 = stablehlo.composite "my.op" %a {composite_attributes = {n = 2 : i64}, decomposition = @impl} : (tensor<i64>) -> tensor<i64>
  check.expect_eq_const %0, dense<3> : tensor<i64>
  check.expect_almost_eq_const %0, dense<3> : tensor<i64>, tolerance = 0.5
  check.expect_eq %0, %a : tensor<i64>
  check.expect_close %0, %a, max_ulp_difference = 3 : tensor<i64>, tensor<i64>
  return)"),
               helper + Func("%a: tensor<i64>", "", R"(  %0 = "stablehlo.composite"(%a) {name = "my.op", composite_attributes = {n = 2 : i64}, decomposition = @impl} : (tensor<i64>) -> tensor<i64>
  "check.expect_eq_const"(%0) {value = dense<3> : tensor<i64>} : (tensor<i64>) -> ()
  "check.expect_almost_eq_const"(%0) {value = dense<3> : tensor<i64>, tolerance = 5.000000e-01 : f64} : (tensor<i64>) -> ()
  "check.expect_eq"(%0, %a) : (tensor<i64>, tensor<i64>) -> ()
  "check.expect_close"(%0, %a) {max_ulp_difference = 3 : i64} : (tensor<i64>, tensor<i64>) -> ()
  return)"));
}

TEST(PrettyGenericTest, ChloOps) {
  Same("%a: tensor<4x8xf32>", "tensor<4x8xf32>",
       R"(  %0 = chlo.erf_inv %a : tensor<4x8xf32> -> tensor<4x8xf32>
  %1:2 = chlo.top_k(%0, k = 3) : tensor<4x8xf32> -> (tensor<4x3xf32>, tensor<4x3xi32>)
  %2 = chlo.broadcast_add %a, %0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>)",
       R"(  %0 = "chlo.erf_inv"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1:2 = "chlo.top_k"(%0) {k = 3 : i64} : (tensor<4x8xf32>) -> (tensor<4x3xf32>, tensor<4x3xi32>)
  %2 = "chlo.broadcast_add"(%a, %0) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>)");
}

// The assembly formats of CHLO's ops as JAX prints them (ChloOps.td):
// unary `op %x : T -> R`, the non-broadcasting binary ops `op %a, %b : A, B
// -> R`, the broadcasting ones `op %a, %b {attrs} : (A, B) -> R`.
TEST(PrettyGenericTest, ChloPrettyForms) {
  Same("%a: tensor<20x20xf32>, %b: tensor<20x20xf32>, %r: tensor<20xf32>, %p: tensor<20x20xi1>",
       "tensor<20x20xf32>",
       R"(  %0 = chlo.next_after %a, %b : tensor<20x20xf32>, tensor<20x20xf32> -> tensor<20x20xf32>
  %1 = chlo.polygamma %a, %0 : tensor<20x20xf32>, tensor<20x20xf32> -> tensor<20x20xf32>
  %2 = chlo.zeta %1, %b : tensor<20x20xf32>, tensor<20x20xf32> -> tensor<20x20xf32>
  %3 = chlo.erf %2 : tensor<20x20xf32> -> tensor<20x20xf32>
  %4 = chlo.is_inf %3 : tensor<20x20xf32> -> tensor<20x20xi1>
  %5 = chlo.broadcast_add %3, %r {broadcast_dimensions = array<i64: 1>} : (tensor<20x20xf32>, tensor<20xf32>) -> tensor<20x20xf32>
  %6 = chlo.broadcast_compare %5, %r {comparison_direction = #chlo<comparison_direction GT>} : (tensor<20x20xf32>, tensor<20xf32>) -> tensor<20x20xi1>
  %7 = chlo.broadcast_select %6, %5, %r : (tensor<20x20xi1>, tensor<20x20xf32>, tensor<20xf32>) -> tensor<20x20xf32>
  %8 = chlo.constant dense<2.0> : tensor<20x20xf32>
  %9 = chlo.square %8 : tensor<20x20xf32> -> tensor<20x20xf32>
  %10 = "chlo.constant_like"(%9) {value = 1.0 : f32} : (tensor<20x20xf32>) -> tensor<20x20xf32>
  return %10 : tensor<20x20xf32>)",
       R"(  %0 = "chlo.next_after"(%a, %b) : (tensor<20x20xf32>, tensor<20x20xf32>) -> tensor<20x20xf32>
  %1 = "chlo.polygamma"(%a, %0) : (tensor<20x20xf32>, tensor<20x20xf32>) -> tensor<20x20xf32>
  %2 = "chlo.zeta"(%1, %b) : (tensor<20x20xf32>, tensor<20x20xf32>) -> tensor<20x20xf32>
  %3 = "chlo.erf"(%2) : (tensor<20x20xf32>) -> tensor<20x20xf32>
  %4 = "chlo.is_inf"(%3) : (tensor<20x20xf32>) -> tensor<20x20xi1>
  %5 = "chlo.broadcast_add"(%3, %r) <{broadcast_dimensions = array<i64: 1>}> : (tensor<20x20xf32>, tensor<20xf32>) -> tensor<20x20xf32>
  %6 = "chlo.broadcast_compare"(%5, %r) {comparison_direction = #chlo<comparison_direction GT>} : (tensor<20x20xf32>, tensor<20xf32>) -> tensor<20x20xi1>
  %7 = "chlo.broadcast_select"(%6, %5, %r) : (tensor<20x20xi1>, tensor<20x20xf32>, tensor<20xf32>) -> tensor<20x20xf32>
  %8 = "chlo.constant"() {value = dense<2.0> : tensor<20x20xf32>} : () -> tensor<20x20xf32>
  %9 = "chlo.square"(%8) : (tensor<20x20xf32>) -> tensor<20x20xf32>
  %10 = "chlo.constant_like"(%9) {value = 1.0 : f32} : (tensor<20x20xf32>) -> tensor<20x20xf32>
  return %10 : tensor<20x20xf32>)");
  Module m = MustParse(Func("%a: tensor<3x4xf32>, %r: tensor<4xf32>, %c: tensor<3x1xf32>", "tensor<3x4xf32>",
                            R"(  %0 = chlo.broadcast_multiply %a, %r : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %1 = chlo.broadcast_subtract %c, %r {broadcast_dimensions = array<i64: 1>} : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %2 = chlo.broadcast_divide %r, %c : (tensor<4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>)"));
  const auto& ops = m.entry_function()->entry_block().operations();
  EXPECT_EQ(ops[0]->chlo_broadcast_dimensions(0), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(ops[0]->chlo_broadcast_dimensions(1), (std::vector<int64_t>{1}));
  EXPECT_EQ(ops[1]->chlo_broadcast_dimensions(0), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(ops[1]->chlo_broadcast_dimensions(1), (std::vector<int64_t>{1}));
  EXPECT_EQ(ops[2]->chlo_broadcast_dimensions(0), (std::vector<int64_t>{1}));
  EXPECT_EQ(ops[2]->chlo_broadcast_dimensions(1), (std::vector<int64_t>{0, 1}));
  testing::ExpectRoundTrip(m);
}

// chlo.scan's pretty form records how its operands split into inputs and
// inits as the generic form's operandSegmentSizes; #chlo.ragged_dot<...> is
// a structured attribute (a trailing comma too).
TEST(PrettyGenericTest, ChloScanAndRaggedDot) {
  Same("%x: tensor<4xi32>, %i: tensor<i32>", "tensor<4xi32>",
       R"(  %0:2 = chlo.scan(%x) inits(%i) dimension=0 attributes {is_reverse = true} {
  ^bb0(%a: tensor<i32>, %c: tensor<i32>):
    %s = stablehlo.add %a, %c : tensor<i32>
    stablehlo.return %s, %s : tensor<i32>, tensor<i32>
  } : (tensor<4xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<i32>)
  return %0#0 : tensor<4xi32>)",
       R"(  %0:2 = "chlo.scan"(%x, %i) <{dimension = 0 : i64, operandSegmentSizes = array<i32: 1, 1>}> ({
  ^bb0(%a: tensor<i32>, %c: tensor<i32>):
    %s = stablehlo.add %a, %c : tensor<i32>
    stablehlo.return %s, %s : tensor<i32>, tensor<i32>
  }) {is_reverse = true} : (tensor<4xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<i32>)
  return %0#0 : tensor<4xi32>)");
  const char* ragged = R"(  %0 = "chlo.ragged_dot"(%l, %r, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]%s>, precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>]} : (tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<3xi64>) -> tensor<11x7xf32>
  return %0 : tensor<11x7xf32>)";
  std::string plain = ragged, trailing = ragged;
  plain.replace(plain.find("%s"), 2, "");
  trailing.replace(trailing.find("%s"), 2, ",");
  const char* args = "%l: tensor<11x5xf32>, %r: tensor<3x5x7xf32>, %g: tensor<3xi64>";
  Same(args, "tensor<11x7xf32>", plain, trailing);
  Module m = MustParse(Func(args, "tensor<11x7xf32>", plain));
  const RaggedDotDimensionNumbers* dims = FirstOp(m).ragged_dot_dimension_numbers();
  ASSERT_NE(dims, nullptr);
  EXPECT_EQ(dims->lhs_ragged_dimensions, (std::vector<int64_t>{0}));
  EXPECT_EQ(dims->rhs_group_dimensions, (std::vector<int64_t>{0}));
  EXPECT_EQ(dims->dot.rhs_contracting_dimensions, (std::vector<int64_t>{1}));
  testing::ExpectRoundTrip(m);
}

// interpreter.print, interpreter.probe and check.expect_serialized_eq as the
// upstream interpreter tests write them (printing.mlir, probe.mlir).
TEST(PrettyGenericTest, PrintProbeAndSerializedEq) {
  Same("%a: tensor<3x1xi64>", "",
       R"(  interpreter.print %a : tensor<3x1xi64>
  %0 = interpreter.probe %a, probe_id = "probe/0" : tensor<3x1xi64>
  check.expect_serialized_eq %0, probe_id = "probe/0" : tensor<3x1xi64>
  check.expect_serialized_eq %0, probe_id = "probe/0", iter = 1 : tensor<3x1xi64>
  return)",
       R"(  "interpreter.print"(%a) : (tensor<3x1xi64>) -> ()
  %0 = "interpreter.probe"(%a) {probe_id = "probe/0"} : (tensor<3x1xi64>) -> tensor<3x1xi64>
  "check.expect_serialized_eq"(%0) {probe_id = "probe/0"} : (tensor<3x1xi64>) -> ()
  "check.expect_serialized_eq"(%0) {probe_id = "probe/0", iter = 1 : i64} : (tensor<3x1xi64>) -> ()
  return)");
}

// MLIR accepts a trailing comma after the last field of a structured
// attribute; every structured attribute Berth parses does too.
TEST(PrettyGenericTest, StructuredAttributesTakeATrailingComma) {
  Same("%a: tensor<2x3xf32>, %b: tensor<3x4xf32>", "tensor<2x4xf32>",
       R"(  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0],>, algorithm = #stablehlo.dot_algorithm<lhs_precision_type = f32, rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false,>} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>)",
       R"(  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, algorithm = #stablehlo.dot_algorithm<lhs_precision_type = f32, rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>)");
  Same("%x: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>", "tensor<4x3xf32>",
       R"(  %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1,>, slice_sizes = array<i64: 1, 3>} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  %1 = "stablehlo.scatter"(%x, %i, %0) ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    stablehlo.return %q : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1,>} : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %2 = "stablehlo.all_reduce"(%1) ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %s = stablehlo.add %p, %q : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1,>} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %2 : tensor<4x3xf32>)",
       R"(  %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>} : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
  %1 = "stablehlo.scatter"(%x, %i, %0) ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    stablehlo.return %q : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %2 = "stablehlo.all_reduce"(%1) ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %s = stablehlo.add %p, %q : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %2 : tensor<4x3xf32>)");
  Same("%x: tensor<1x4x4x1xf32>, %w: tensor<3x3x1x1xf32>, %d: tensor<?xf32, #stablehlo.type_extensions<bounds = [8],>>",
       "tensor<1x2x2x1xf32>",
       R"(  %0 = "stablehlo.convolution"(%x, %w) {dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2],>, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  %1 = stablehlo.custom_call @foo(%0) {output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = [],>]} : (tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  return %1 : tensor<1x2x2x1xf32>)",
       R"(  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {feature_group_count = 1 : i64, batch_group_count = 1 : i64} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  %1 = stablehlo.custom_call @foo(%0) {output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>]} : (tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  return %1 : tensor<1x2x2x1xf32>)");
}

TEST(PrettyGenericTest, OldAttributeSpellingsAreCanonicalized) {
  // dense<...> : tensor<Nxi64> lists, as older StableHLO printed them.
  Same("%a: tensor<2x3xf32>", "tensor<3x2xf32>",
       R"(  %0 = "stablehlo.transpose"(%a) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>)",
       R"(  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>)");
}

}  // namespace
}  // namespace berth::stablehlo
