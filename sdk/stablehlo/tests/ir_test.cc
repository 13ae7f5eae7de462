// The IR API executors use: op kinds, navigation, typed accessors.
#include "tests/test_util.hpp"

namespace berth::stablehlo {
namespace {

using testing::FirstOp;
using testing::Func;
using testing::MustParse;

TEST(IrTest, EveryOpKindHasAUniqueName) {
  for (int i = 0; i < kNumOpKinds; ++i) {
    OpKind kind = static_cast<OpKind>(i);
    std::string_view name = OpKindName(kind);
    ASSERT_FALSE(name.empty());
    EXPECT_EQ(LookupOpKind(name), kind) << name;
  }
  EXPECT_EQ(LookupOpKind("return"), OpKind::kFuncReturn);
  EXPECT_EQ(LookupOpKind("call"), OpKind::kFuncCall);
  EXPECT_EQ(LookupOpKind("stablehlo.nope"), std::nullopt);
  EXPECT_TRUE(IsTerminator(OpKind::kReturn));
  EXPECT_FALSE(IsTerminator(OpKind::kAdd));
}

TEST(IrTest, NavigatesFromOpsToBlocksRegionsAndFunctions) {
  Module m = MustParse(Func("%x: tensor<4xf32>, %z: tensor<f32>", "tensor<f32>", R"(  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.maximum across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>)"));
  const Function* f = m.entry_function();
  const Operation& reduce = FirstOp(m);
  EXPECT_EQ(reduce.parent_function(), f);
  EXPECT_EQ(reduce.parent_op(), nullptr);
  const Block& body = reduce.region(0).entry_block();
  EXPECT_EQ(body.num_arguments(), 2u);
  const Operation& inner = *body.operations()[0];
  EXPECT_EQ(inner.kind(), OpKind::kMaximum);
  EXPECT_EQ(inner.parent_op(), &reduce);
  EXPECT_EQ(inner.parent_function(), f);
  EXPECT_EQ(body.terminator()->kind(), OpKind::kReturn);
  EXPECT_EQ(body.terminator()->operand(0), inner.result(0));
  EXPECT_EQ(body.argument(0)->owner_block(), &body);
  EXPECT_EQ(reduce.location().line, 2u);
  EXPECT_EQ(reduce.location().column, 8u);
}

TEST(IrTest, TypedAccessorsForCollectivesAndPairs) {
  Module m = MustParse(Func("%a: tensor<4xf32>", "tensor<4xf32>", R"(  %0 = "stablehlo.collective_permute"(%a) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "stablehlo.all_reduce"(%0) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, use_global_device_ids} : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>)"));
  const Operation& permute = FirstOp(m);
  auto pairs = permute.GetPairs("source_target_pairs");
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[1], std::make_pair(int64_t{1}, int64_t{0}));
  EXPECT_EQ(permute.channel_handle()->handle, 5);
  const Operation& all_reduce = *m.entry_function()->entry_block().operations()[1];
  auto groups = all_reduce.replica_groups();
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[1], (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(all_reduce.GetBool("use_global_device_ids"));
  EXPECT_FALSE(all_reduce.GetBool("missing"));
}

TEST(IrTest, TypedAccessorsForEnums) {
  Module m = MustParse(Func("%a: tensor<3x3xf32>, %b: tensor<3x1xf32>, %c: tensor<4xcomplex<f32>>, %s: tensor<2xui64>",
                            "tensor<3x1xf32>", R"(  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose ADJOINT>} : (tensor<3x3xf32>, tensor<3x1xf32>) -> tensor<3x1xf32>
  %1 = stablehlo.fft %c, type = FFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  %2:2 = stablehlo.rng_bit_generator %s, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<8xui32>)
  return %0 : tensor<3x1xf32>)"));
  const Block& body = m.entry_function()->entry_block();
  EXPECT_EQ(body.operations()[0]->transpose_a(), Transpose::kAdjoint);
  EXPECT_TRUE(body.operations()[0]->GetBool("left_side"));
  EXPECT_EQ(body.operations()[1]->fft_type(), FftType::kFft);
  EXPECT_EQ(body.operations()[2]->rng_algorithm(), RngAlgorithm::kPhilox);
}

TEST(IrTest, AttributesAreSortedAndSearchable) {
  Module m = MustParse(Func("%a: tensor<2xf32>", "", R"(  stablehlo.custom_call @t(%a) {z = 1 : i64, a = 2 : i64, m = "x"} : (tensor<2xf32>) -> ()
  return)"));
  const Operation& op = FirstOp(m);
  std::vector<std::string_view> names;
  for (const NamedAttribute& a : op.attributes()) names.push_back(a.name);
  EXPECT_EQ(names, (std::vector<std::string_view>{"a", "call_target_name", "m", "z"}));
  EXPECT_EQ(op.GetInt("z"), 1);
  EXPECT_EQ(op.GetInt("m"), std::nullopt);
  EXPECT_EQ(op.GetString("m"), "x");
}

TEST(IrTest, ModulesMoveWithoutInvalidatingPointers) {
  Module a = MustParse(Func("%x: tensor<f32>", "tensor<f32>", "  return %x : tensor<f32>"));
  const Function* f = a.entry_function();
  Module b = std::move(a);
  EXPECT_EQ(b.entry_function(), f);
  EXPECT_EQ(f->location().file, "test.mlir");
}

TEST(IrTest, StructuralEqualityReportsDifferences) {
  Module a = MustParse(Func("%x: tensor<f32>", "tensor<f32>", "  %0 = stablehlo.abs %x : tensor<f32>\n  return %0 : tensor<f32>"));
  Module b = MustParse(Func("%x: tensor<f32>", "tensor<f32>", "  %0 = stablehlo.negate %x : tensor<f32>\n  return %0 : tensor<f32>"));
  std::string diff;
  EXPECT_FALSE(StructurallyEqual(a, b, &diff));
  EXPECT_NE(diff.find("op kind differs"), std::string::npos) << diff;
}

}  // namespace
}  // namespace berth::stablehlo
