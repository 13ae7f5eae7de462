// The verifier reports wrong types, shapes and attributes per op family as
// "FILE:LINE:COL: error: 'op' op ...".
#include "tests/test_util.hpp"

namespace berth::stablehlo {
namespace {

using testing::Func;
using testing::MustParse;
using testing::ParseStatus;

// Verifies `body` in a function with `args` and returns the status.
Status VerifyBody(std::string_view args, std::string_view body) {
  return ParseStatus(Func(args, "", std::string(body) + "\n  return"));
}

void ExpectError(const Status& s, std::string_view op, std::string_view fragment) {
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("error: '" + std::string(op) + "' op"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find(fragment), std::string::npos) << s.message();
}

TEST(VerifierTest, ReportsFileLineColumnOfTheOp) {
  Status s = VerifyBody("%a: tensor<2xf32>, %b: tensor<3xf32>",
                        "  %0 = stablehlo.add %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>");
  EXPECT_EQ(s.message().rfind("test.mlir:2:8: error: 'stablehlo.add' op", 0), 0u) << s.message();
}

TEST(VerifierTest, BinaryOpsNeedMatchingShapesAndTypes) {
  ExpectError(VerifyBody("%a: tensor<2xf32>, %b: tensor<3xf32>",
                         "  %0 = stablehlo.add %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>"),
              "stablehlo.add", "same shape");
  ExpectError(VerifyBody("%a: tensor<2xf32>, %b: tensor<2xi32>",
                         "  %0 = stablehlo.multiply %a, %b : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>"),
              "stablehlo.multiply", "same element type");
  ExpectError(VerifyBody("%a: tensor<2xf32>", "  %0 = stablehlo.and %a, %a : tensor<2xf32>"),
              "stablehlo.and", "boolean, integer");
  ExpectError(VerifyBody("%a: tensor<2xi1>", "  %0 = stablehlo.subtract %a, %a : tensor<2xi1>"),
              "stablehlo.subtract", "integer, floating-point, complex");
}

TEST(VerifierTest, UnaryOpsCheckElementTypes) {
  ExpectError(VerifyBody("%a: tensor<2xi32>", "  %0 = stablehlo.sine %a : tensor<2xi32>"),
              "stablehlo.sine", "floating-point, complex");
  ExpectError(VerifyBody("%a: tensor<2xf32>", "  %0 = stablehlo.popcnt %a : tensor<2xf32>"),
              "stablehlo.popcnt", "integer");
  ExpectError(VerifyBody("%a: tensor<2xcomplex<f32>>",
                         "  %0 = stablehlo.abs %a : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>"),
              "stablehlo.abs", "result element type must be f32");
  ExpectError(VerifyBody("%a: tensor<2xf32>",
                         "  %0 = stablehlo.is_finite %a : (tensor<2xf32>) -> tensor<2xf32>"),
              "stablehlo.is_finite", "must be i1");
}

TEST(VerifierTest, CompareTypeMustFitElements) {
  ExpectError(VerifyBody("%a: tensor<2xf32>",
                         "  %0 = stablehlo.compare LT, %a, %a, SIGNED : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>"),
              "stablehlo.compare", "compare_type SIGNED does not fit element type f32");
  ExpectError(VerifyBody("%a: tensor<2xf32>",
                         "  %0 = stablehlo.compare LT, %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>"),
              "stablehlo.compare", "result element type must be i1");
}

TEST(VerifierTest, SelectPredicateShape) {
  ExpectError(VerifyBody("%p: tensor<3xi1>, %a: tensor<2xf32>",
                         "  %0 = stablehlo.select %p, %a, %a : (tensor<3xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>"),
              "stablehlo.select", "pred must be rank 0 or have the shape of on_true");
}

TEST(VerifierTest, BroadcastInDimDimensions) {
  ExpectError(VerifyBody("%a: tensor<3xf32>",
                         "  %0 = stablehlo.broadcast_in_dim %a, dims = [2] : (tensor<3xf32>) -> tensor<2x3xf32>"),
              "stablehlo.broadcast_in_dim", "outside [0, 2)");
  ExpectError(VerifyBody("%a: tensor<3xf32>",
                         "  %0 = stablehlo.broadcast_in_dim %a, dims = [0] : (tensor<3xf32>) -> tensor<2x3xf32>"),
              "stablehlo.broadcast_in_dim", "must be 1 or equal result dimension 0");
  ExpectError(VerifyBody("%a: tensor<3xf32>",
                         "  %0 = stablehlo.broadcast_in_dim %a, dims = [0, 1] : (tensor<3xf32>) -> tensor<3x3xf32>"),
              "stablehlo.broadcast_in_dim", "one entry per operand dimension");
}

TEST(VerifierTest, ReshapeAndTranspose) {
  ExpectError(VerifyBody("%a: tensor<2x3xf32>", "  %0 = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<5xf32>"),
              "stablehlo.reshape", "operand has 6 elements");
  ExpectError(VerifyBody("%a: tensor<2x3xf32>",
                         "  %0 = stablehlo.transpose %a, dims = [0, 0] : (tensor<2x3xf32>) -> tensor<2x2xf32>"),
              "stablehlo.transpose", "repeats 0");
  ExpectError(VerifyBody("%a: tensor<2x3xf32>",
                         "  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<2x3xf32>"),
              "stablehlo.transpose", "expected [3, 2]");
}

TEST(VerifierTest, SliceBoundsAndResultShape) {
  ExpectError(VerifyBody("%a: tensor<4xf32>", "  %0 = stablehlo.slice %a [1:6] : (tensor<4xf32>) -> tensor<5xf32>"),
              "stablehlo.slice", "outside [0, 4]");
  ExpectError(VerifyBody("%a: tensor<8xf32>", "  %0 = stablehlo.slice %a [0:8:3] : (tensor<8xf32>) -> tensor<2xf32>"),
              "stablehlo.slice", "expected [3]");
  ExpectError(VerifyBody("%a: tensor<8xf32>", "  %0 = stablehlo.slice %a [0:8:0] : (tensor<8xf32>) -> tensor<0xf32>"),
              "stablehlo.slice", "strides must be positive");
}

TEST(VerifierTest, DynamicSliceIndices) {
  ExpectError(VerifyBody("%a: tensor<4x4xf32>, %i: tensor<i32>",
                         "  %0 = stablehlo.dynamic_slice %a, %i, sizes = [1, 1] : (tensor<4x4xf32>, tensor<i32>) -> tensor<1x1xf32>"),
              "stablehlo.dynamic_slice", "needs 2 start indices, has 1");
  ExpectError(VerifyBody("%a: tensor<4xf32>, %i: tensor<f32>",
                         "  %0 = stablehlo.dynamic_slice %a, %i, sizes = [1] : (tensor<4xf32>, tensor<f32>) -> tensor<1xf32>"),
              "stablehlo.dynamic_slice", "rank-0 integer tensor");
  ExpectError(VerifyBody("%a: tensor<4xf32>, %i: tensor<i32>",
                         "  %0 = stablehlo.dynamic_slice %a, %i, sizes = [5] : (tensor<4xf32>, tensor<i32>) -> tensor<5xf32>"),
              "stablehlo.dynamic_slice", "exceed the operand shape");
}

TEST(VerifierTest, ConcatenateAndPad) {
  ExpectError(VerifyBody("%a: tensor<2x3xf32>, %b: tensor<2x4xf32>",
                         "  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>"),
              "stablehlo.concatenate", "differs from operand #0 outside dimension 0");
  ExpectError(VerifyBody("%a: tensor<2xf32>, %v: tensor<f32>",
                         "  %0 = stablehlo.pad %a, %v, low = [1], high = [1], interior = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<3xf32>"),
              "stablehlo.pad", "expected [4]");
}

TEST(VerifierTest, IotaDimensionInRange) {
  ExpectError(VerifyBody("", "  %0 = stablehlo.iota dim = 2 : tensor<4x4xf32>"), "stablehlo.iota",
              "iota_dimension 2 is outside [0, 2)");
}

TEST(VerifierTest, DotGeneralShapes) {
  ExpectError(VerifyBody("%a: tensor<2x3xf32>, %b: tensor<4x5xf32>",
                         "  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>"),
              "stablehlo.dot_general", "contracting dimension sizes differ");
  ExpectError(VerifyBody("%a: tensor<2x3xf32>, %b: tensor<3x5xf32>",
                         "  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<5x2xf32>"),
              "stablehlo.dot_general", "expected [2, 5]");
  ExpectError(VerifyBody("%a: tensor<2x3xf32>, %b: tensor<3x5xf32>",
                         "  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [DEFAULT] : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>"),
              "stablehlo.dot_general", "precision_config must have 0 or 2 entries");
}

TEST(VerifierTest, ConvolutionOutputShape) {
  ExpectError(VerifyBody("%l: tensor<1x8x8x3xf32>, %k: tensor<3x3x3x16xf32>",
                         "  %0 = stablehlo.convolution(%l, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) -> tensor<1x8x8x16xf32>"),
              "stablehlo.convolution", "expected [1, 6, 6, 16]");
  ExpectError(VerifyBody("%l: tensor<1x8x8x3xf32>, %k: tensor<3x3x4x16xf32>",
                         "  %0 = stablehlo.convolution(%l, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x4x16xf32>) -> tensor<1x6x6x16xf32>"),
              "stablehlo.convolution", "kernel input feature size 4 must be 3");
  // An empty padded input has no windows, even for a window of size 0.
  ExpectError(VerifyBody("%l: tensor<1x0x3xf32>, %k: tensor<0x3x4xf32>",
                         "  %0 = stablehlo.convolution(%l, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {} : (tensor<1x0x3xf32>, tensor<0x3x4xf32>) -> tensor<1x1x4xf32>"),
              "stablehlo.convolution", "expected [1, 0, 4]");
}

TEST(VerifierTest, ReduceBodyAndDimensions) {
  ExpectError(VerifyBody("%a: tensor<2x3xf32>, %z: tensor<f32>",
                         "  %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [2] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>"),
              "stablehlo.reduce", "outside [0, 2)");
  ExpectError(VerifyBody("%a: tensor<2x3xf32>, %z: tensor<f32>",
                         "  %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>"),
              "stablehlo.reduce", "expected [2]");
  ExpectError(VerifyBody("%a: tensor<2x3xf32>, %z: tensor<f32>", R"(  %0 = "stablehlo.reduce"(%a, %z) ({
  ^bb0(%x: tensor<f32>):
    stablehlo.return %x : tensor<f32>
  }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>)"),
              "stablehlo.reduce", "must take 2 argument(s)");
}

TEST(VerifierTest, RegionsMustEndWithStablehloReturn) {
  ExpectError(VerifyBody("%p: tensor<i1>, %a: tensor<f32>", R"(  %0 = "stablehlo.if"(%p) ({
    %n = stablehlo.negate %a : tensor<f32>
  }, {
    stablehlo.return %a : tensor<f32>
  }) : (tensor<i1>) -> tensor<f32>)"),
              "stablehlo.if", "must end with 'stablehlo.return'");
  ExpectError(VerifyBody("%p: tensor<i1>, %a: tensor<f32>", R"(  %0 = "stablehlo.if"(%p) ({
    func.return %a : tensor<f32>
  }, {
    stablehlo.return %a : tensor<f32>
  }) : (tensor<i1>) -> tensor<f32>)"),
              "func.return", "is not allowed here");
}

TEST(VerifierTest, IfBranchesMustReturnResultTypes) {
  ExpectError(VerifyBody("%p: tensor<i1>, %a: tensor<f32>, %b: tensor<i32>", R"(  %0 = "stablehlo.if"(%p) ({
    stablehlo.return %a : tensor<f32>
  }, {
    stablehlo.return %b : tensor<i32>
  }) : (tensor<i1>) -> tensor<f32>)"),
              "stablehlo.if", "false_branch returns tensor<i32>");
}

TEST(VerifierTest, WhileConditionAndBodyTypes) {
  ExpectError(VerifyBody("%a: tensor<i64>", R"(  %0 = stablehlo.while(%i = %a) : tensor<i64>
   cond {
    stablehlo.return %i : tensor<i64>
  } do {
    stablehlo.return %i : tensor<i64>
  })"),
              "stablehlo.while", "cond must return a single tensor<i1>");
}

TEST(VerifierTest, SortComparatorReturnsBool) {
  ExpectError(VerifyBody("%a: tensor<4xf32>", R"(  %0 = "stablehlo.sort"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    stablehlo.return %x : tensor<f32>
  }) {dimension = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>)"),
              "stablehlo.sort", "comparator must return tensor<i1>");
}

// A scatter of `updates` into `input` at `indices` that keeps the update
// (its body returns the second argument), verified in a function.
Status ScatterReplacing(const std::string& input, const std::string& indices,
                        const std::string& updates, const std::string& dimension_numbers) {
  return VerifyBody("%o: " + input + ", %i: " + indices + ", %u: " + updates,
                    "  %0 = \"stablehlo.scatter\"(%o, %i, %u) ({\n"
                    "  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
                    "    stablehlo.return %y : tensor<f32>\n"
                    "  }) {scatter_dimension_numbers = #stablehlo.scatter<" +
                        dimension_numbers + ">} : (" + input + ", " + indices + ", " + updates +
                        ") -> " + input);
}

TEST(VerifierTest, GatherAndScatterShapes) {
  ExpectError(VerifyBody("%o: tensor<5x3xf32>, %i: tensor<2x1xi32>",
                         R"(  %0 = "stablehlo.gather"(%o, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>} : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x2xf32>)"),
              "stablehlo.gather", "expected [2, 3]");
  ExpectError(VerifyBody("%o: tensor<5x3xf32>, %i: tensor<2x1xi32>",
                         R"(  %0 = "stablehlo.gather"(%o, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 2, 3>} : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>)"),
              "stablehlo.gather", "must be 0 or 1");
  ExpectError(ScatterReplacing("tensor<5x3xf32>", "tensor<2x1xi32>", "tensor<2x4xf32>",
                               "update_window_dims = [1], inserted_window_dims = [0], "
                               "scatter_dims_to_operand_dims = [0], index_vector_dim = 1"),
              "stablehlo.scatter", "exceeds the input's 3");
}

TEST(VerifierTest, GatherAndScatterBatchingDimensionSizesMustAgree) {
  ExpectError(VerifyBody("%o: tensor<2x5xf32>, %i: tensor<3x1xi32>",
                         R"(  %0 = "stablehlo.gather"(%o, %i) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>} : (tensor<2x5xf32>, tensor<3x1xi32>) -> tensor<3xf32>)"),
              "stablehlo.gather", "batching dimension sizes of operand and start_indices differ");
  ExpectError(ScatterReplacing("tensor<2x5xf32>", "tensor<3x1xi32>", "tensor<3xf32>",
                               "inserted_window_dims = [1], input_batching_dims = [0], "
                               "scatter_indices_batching_dims = [0], "
                               "scatter_dims_to_operand_dims = [1], index_vector_dim = 1"),
              "stablehlo.scatter", "batching dimension sizes of input and scatter_indices differ");
}

TEST(VerifierTest, ReduceWindowResultShape) {
  ExpectError(VerifyBody("%a: tensor<4x4xf32>, %z: tensor<f32>", R"(  %0 = "stablehlo.reduce_window"(%a, %z) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>} : (tensor<4x4xf32>, tensor<f32>) -> tensor<3x3xf32>)"),
              "stablehlo.reduce_window", "expected [2, 2]");
}

TEST(VerifierTest, CallsMustMatchCallee) {
  Status missing = ParseStatus(Func("%a: tensor<f32>", "", "  %0 = call @nope(%a) : (tensor<f32>) -> tensor<f32>\n  return"));
  ExpectError(missing, "func.call", "calls '@nope', which is not defined");
  Status types = ParseStatus(R"(
func.func @g(%x: tensor<i32>) -> tensor<i32> { return %x : tensor<i32> }
func.func @main(%a: tensor<f32>) {
  %0 = call @g(%a) : (tensor<f32>) -> tensor<i32>
  return
}
)");
  ExpectError(types, "func.call", "operand #0 has type tensor<f32> but @g takes tensor<i32>");
}

TEST(VerifierTest, ReturnMustMatchFunctionResults) {
  Status s = ParseStatus(Func("%a: tensor<f32>", "tensor<i32>", "  return %a : tensor<f32>"));
  ExpectError(s, "func.return", "doesn't match function result type (tensor<i32>)");
}

TEST(VerifierTest, CollectiveAttributes) {
  ExpectError(VerifyBody("%a: tensor<4xf32>",
                         R"(  %0 = "stablehlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>)"),
              "stablehlo.all_gather", "expected [8]");
  ExpectError(VerifyBody("%a: tensor<4xf32>",
                         R"(  %0 = "stablehlo.collective_permute"(%a) {source_target_pairs = dense<[[0, 1], [0, 2]]> : tensor<2x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>)"),
              "stablehlo.collective_permute", "repeats a source");
  ExpectError(VerifyBody("%a: tensor<4xf32>",
                         R"(  %0 = "stablehlo.all_to_all"(%a) {split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 3 : i64, replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<4xf32>) -> tensor<4xf32>)"),
              "stablehlo.all_to_all", "not divisible by split_count 3");
}

TEST(VerifierTest, TokensAndTuples) {
  ExpectError(VerifyBody("%a: tensor<f32>", "  %0 = \"stablehlo.after_all\"(%a) : (tensor<f32>) -> !stablehlo.token"),
              "stablehlo.after_all", "must be !stablehlo.token");
  ExpectError(VerifyBody("%t: tuple<tensor<f32>>",
                         "  %0 = stablehlo.get_tuple_element %t[1] : (tuple<tensor<f32>>) -> tensor<f32>"),
              "stablehlo.get_tuple_element", "index 1 is out of range");
}

TEST(VerifierTest, CheckOpsCompareLikeTypes) {
  ExpectError(VerifyBody("%a: tensor<2xf32>", "  check.expect_eq_const %a, dense<[1, 2]> : tensor<2xi32>"),
              "check.expect_eq_const", "expected value type tensor<2xi32> differs");
}

TEST(VerifierTest, RunParallelProgramsMustExist) {
  Status s = ParseStatus(R"(
func.func @main() {
  %r:2 = "interpreter.run_parallel"() {programs = [[@missing], [@missing]]} : () -> (tensor<ui32>, tensor<ui32>)
  return
}
)");
  ExpectError(s, "interpreter.run_parallel", "runs '@missing', which is not defined");
}

TEST(VerifierTest, ChloBroadcastShapesAndTypes) {
  ExpectError(VerifyBody("%a: tensor<20x20xf32>, %r: tensor<3xf32>",
                         "  %0 = chlo.broadcast_add %a, %r : (tensor<20x20xf32>, tensor<3xf32>) -> tensor<20x20xf32>"),
              "chlo.broadcast_add", "operands do not broadcast: dimension 0 of operand #1");
  ExpectError(VerifyBody("%a: tensor<20x1xf32>, %r: tensor<3xf32>",
                         "  %0 = chlo.broadcast_add %a, %r : (tensor<20x1xf32>, tensor<3xf32>) -> tensor<20x20xf32>"),
              "chlo.broadcast_add", "result shape [20, 20] must be the broadcast shape [20, 3]");
  ExpectError(VerifyBody("%a: tensor<2x3xf32>, %r: tensor<3xf32>",
                         "  %0 = chlo.broadcast_add %a, %r {broadcast_dimensions = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>"),
              "chlo.broadcast_add", "one entry per dimension of the lower-rank operand (1)");
  ExpectError(VerifyBody("%a: tensor<2x3xf32>, %r: tensor<3xf32>",
                         "  %0 = chlo.broadcast_add %a, %r {broadcast_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>"),
              "chlo.broadcast_add", "dimension 0 of operand #1 tensor<3xf32> is 3 where another operand has 2");
  ExpectError(VerifyBody("%a: tensor<2xf32>, %b: tensor<2xf64>",
                         "  %0 = chlo.broadcast_maximum %a, %b : (tensor<2xf32>, tensor<2xf64>) -> tensor<2xf32>"),
              "chlo.broadcast_maximum", "same element type");
  ExpectError(VerifyBody("%a: tensor<2xf32>",
                         "  %0 = chlo.broadcast_and %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>"),
              "chlo.broadcast_and", "boolean, integer");
  ExpectError(VerifyBody("%a: tensor<2xf32>",
                         "  %0 = chlo.broadcast_compare %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>"),
              "chlo.broadcast_compare", "requires a comparison_direction");
  ExpectError(VerifyBody("%a: tensor<2xf32>",
                         "  %0 = chlo.broadcast_compare %a, %a {comparison_direction = #chlo<comparison_direction LT>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>"),
              "chlo.broadcast_compare", "result element type must be i1");
  ExpectError(VerifyBody("%p: tensor<2xf32>, %a: tensor<2xf32>",
                         "  %0 = chlo.broadcast_select %p, %a, %a : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>"),
              "chlo.broadcast_select", "pred must be a tensor of i1");
  ExpectError(VerifyBody("%a: tensor<2x3xf32>",
                         "  %0 = chlo.broadcast_add %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<1x2x3xf32>"),
              "chlo.broadcast_add", "result rank 3 must be the highest operand rank, 2");
  MustParse(Func("%a: tensor<2x1x3xf32>, %b: tensor<4x1xf32>, %p: tensor<i1>", "tensor<2x4x3xf32>",
                 R"(  %0 = chlo.broadcast_atan2 %a, %b : (tensor<2x1x3xf32>, tensor<4x1xf32>) -> tensor<2x4x3xf32>
  %1 = chlo.broadcast_select %p, %0, %b : (tensor<i1>, tensor<2x4x3xf32>, tensor<4x1xf32>) -> tensor<2x4x3xf32>
  %2 = chlo.broadcast_power %1, %b {broadcast_dimensions = array<i64: 1, 2>} : (tensor<2x4x3xf32>, tensor<4x1xf32>) -> tensor<2x4x3xf32>
  return %2 : tensor<2x4x3xf32>)"));
}

TEST(VerifierTest, ChloUnaryAndBinaryOps) {
  ExpectError(VerifyBody("%a: tensor<4xi32>", "  %0 = chlo.erf %a : tensor<4xi32> -> tensor<4xi32>"),
              "chlo.erf", "must be a tensor of floating-point type");
  ExpectError(VerifyBody("%a: tensor<4xf32>", "  %0 = chlo.lgamma %a : tensor<4xf32> -> tensor<5xf32>"),
              "chlo.lgamma", "result shape [5] differs from operand shape [4]");
  ExpectError(VerifyBody("%a: tensor<4xf32>", "  %0 = chlo.is_pos_inf %a : tensor<4xf32> -> tensor<4xf32>"),
              "chlo.is_pos_inf", "result element type must be i1");
  ExpectError(VerifyBody("%a: tensor<4xf32>, %b: tensor<5xf32>",
                         "  %0 = chlo.next_after %a, %b : tensor<4xf32>, tensor<5xf32> -> tensor<4xf32>"),
              "chlo.next_after", "same shape");
  ExpectError(VerifyBody("%a: tensor<4xi32>",
                         "  %0 = chlo.zeta %a, %a : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>"),
              "chlo.zeta", "floating-point");
  ExpectError(VerifyBody("%a: tensor<8xf32>",
                         "  %0:2 = chlo.top_k(%a, k = 9) : tensor<8xf32> -> (tensor<9xf32>, tensor<9xi32>)"),
              "chlo.top_k", "k = 9 is outside [0, 8]");
}

TEST(VerifierTest, ChloConstantLikeTakesATypedValue) {
  ExpectError(VerifyBody("%a: tensor<3xf32>",
                         "  %0 = \"chlo.constant_like\"(%a) {value = 1 : i32} : (tensor<3xf32>) -> tensor<3xf32>"),
              "chlo.constant_like", "value's type i32 differs from the result element type f32");
  ExpectError(VerifyBody("%a: tensor<3xf32>",
                         "  %0 = \"chlo.constant_like\"(%a) {value = 1.0 : f32} : (tensor<3xf32>) -> tensor<4xf32>"),
              "chlo.constant_like", "result shape [4] differs from operand shape [3]");
  ExpectError(VerifyBody("%a: tensor<3xf32>",
                         "  %0 = \"chlo.constant_like\"(%a) : (tensor<3xf32>) -> tensor<3xf32>"),
              "chlo.constant_like", "requires a 'value' attribute");
  MustParse(Func("%a: tensor<3xf32>", "tensor<3xi8>",
                 "  %0 = \"chlo.constant_like\"(%a) {value = -3 : i8} : (tensor<3xf32>) -> tensor<3xi8>\n"
                 "  return %0 : tensor<3xi8>"));
}

TEST(VerifierTest, ChloRaggedDotModesAndShapes) {
  auto body = [](const std::string& dims, const std::string& types) {
    return "  %0 = \"chlo.ragged_dot\"(%l, %r, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<" +
           dims + ">} : " + types;
  };
  const std::string mode1 = "lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]";
  const std::string args = "%l: tensor<11x5xf32>, %r: tensor<3x5x7xf32>, %g: tensor<3xi64>";
  ExpectError(VerifyBody(args, body(mode1, "(tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<3xi64>) -> tensor<11x8xf32>")),
              "chlo.ragged_dot", "result #0 has shape [11, 8]; expected [11, 7]");
  ExpectError(VerifyBody("%l: tensor<11x5xf32>, %r: tensor<3x5x7xf32>, %g: tensor<4xi64>",
                         body(mode1, "(tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<4xi64>) -> tensor<11x7xf32>")),
              "chlo.ragged_dot", "must have one entry per group (3)");
  const std::string no_group = "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = []";
  ExpectError(VerifyBody(args, body(no_group, "(tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<3xi64>) -> tensor<11x7xf32>")),
              "chlo.ragged_dot", "(mode 1) needs an rhs group dimension");
  const std::string mode2 = "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [1], rhs_group_dimensions = []";
  MustParse(Func("%l: tensor<4x10xf32>, %r: tensor<10x3xf32>, %g: tensor<2xi32>", "",
                 body(mode2, "(tensor<4x10xf32>, tensor<10x3xf32>, tensor<2xi32>) -> tensor<2x4x3xf32>") + "\n  return"));
  ExpectError(VerifyBody("%l: tensor<4x10xf32>, %r: tensor<10x3xf32>, %g: tensor<2xf32>",
                         body(mode2, "(tensor<4x10xf32>, tensor<10x3xf32>, tensor<2xf32>) -> tensor<2x4x3xf32>")),
              "chlo.ragged_dot", "group_sizes must be integers");
}

TEST(VerifierTest, ChloScanBodyMatchesItsOperands) {
  ExpectError(VerifyBody("%x: tensor<4xi32>, %i: tensor<i32>", R"(  %0:2 = chlo.scan(%x) inits(%i) dimension=1 {
  ^bb0(%a: tensor<i32>, %c: tensor<i32>):
    stablehlo.return %a, %c : tensor<i32>, tensor<i32>
  } : (tensor<4xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<i32>))"),
              "chlo.scan", "dimension 1 is not a dimension of tensor<4xi32>");
  ExpectError(VerifyBody("%x: tensor<4xi32>, %i: tensor<i32>", R"(  %0:2 = chlo.scan(%x) inits(%i) dimension=0 {
  ^bb0(%a: tensor<i32>, %c: tensor<i32>):
    stablehlo.return %a : tensor<i32>
  } : (tensor<4xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<i32>))"),
              "chlo.scan", "body returns 1 values; expected one per output and carry (2)");
  ExpectError(VerifyBody("%x: tensor<4xi32>, %i: tensor<i32>", R"(  %0:2 = chlo.scan(%x) inits(%i) dimension=0 {
  ^bb0(%a: tensor<i32>, %c: tensor<i32>):
    %f = stablehlo.convert %c : (tensor<i32>) -> tensor<f32>
    stablehlo.return %a, %f : tensor<i32>, tensor<f32>
  } : (tensor<4xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<i32>))"),
              "chlo.scan", "carry #0 must keep the init's type tensor<i32>");
}

TEST(VerifierTest, PrintTakesOneValueAndGivesNone) {
  ExpectError(VerifyBody("%a: tensor<2xi32>",
                         "  %0 = \"interpreter.print\"(%a) : (tensor<2xi32>) -> tensor<2xi32>"),
              "interpreter.print", "expects 0 result(s), has 1");
}

TEST(VerifierTest, ValidProgramsVerify) {
  MustParse(Func("%a: tensor<2x3xf32>, %b: tensor<3x4xf32>", "tensor<2x4xf32>", R"(  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = stablehlo.dot %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %2 = stablehlo.add %0, %1 : tensor<2x4xf32>
  return %2 : tensor<2x4xf32>)"));
}

}  // namespace
}  // namespace berth::stablehlo
