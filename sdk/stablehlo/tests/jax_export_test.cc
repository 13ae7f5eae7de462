// What real JAX exports carry besides ops: #loc aliases and loc(...) forms,
// jax.* / mhlo.* / sdy.* attributes, custom calls with layouts, aliases and
// backend configs, the generic module form, and the test-data layout with
// check custom calls.
#include "tests/test_util.hpp"

namespace berth::stablehlo {
namespace {

using testing::ExpectRoundTrip;
using testing::FirstOp;
using testing::MustParse;
using testing::ParseStatus;

TEST(JaxExportTest, LocationsEverywhere) {
  Module m = MustParse(R"(#loc1 = loc("x")
#loc2 = loc("/tmp/model.py":12:7 to :21)
module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32> {mhlo.layout_mode = "default"} loc("x"), %arg1: tensor<3xf32> loc(unknown)) -> (tensor<3xf32> {jax.result_info = "result", mhlo.layout_mode = "default"}) {
    %0 = stablehlo.sine %arg0 : tensor<3xf32> loc(#loc7)
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32> loc(#loc)
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32> loc(callsite(#loc3 at #loc4))
    %2 = stablehlo.add %0, %1 : tensor<3xf32> loc(fused[#loc5, "name"("file.py":3:4)])
    %3 = call @helper(%2) : (tensor<3xf32>) -> tensor<3xf32> loc("jit(f)/jit(main)/pjit"(#loc2))
    return %3 : tensor<3xf32> loc(#loc)
  } loc(#loc)
  func.func private @helper(%arg0: tensor<3xf32> loc("jit(f)/x")) -> tensor<3xf32> {
    %0 = stablehlo.cosine %arg0 : tensor<3xf32> loc(#loc8)
    return %0 : tensor<3xf32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc3 = loc("jit(f)/jit(main)/add"(#loc2))
#loc4 = loc(fused<"x">[#loc1, #loc2])
#loc5 = loc("f.py":1:1 to 2:3)
#loc7 = loc("jit(f)/jit(main)/sin"(#loc3))
#loc8 = loc(callsite("g"("g.py":9:2) at callsite("h"("h.py":1:1) at #loc2)))
)");
  EXPECT_EQ(m.name(), "jit_f");
  EXPECT_EQ(m.functions().size(), 2u);
  ExpectRoundTrip(m);
}

TEST(JaxExportTest, ShardyMeshAndShardingAttributes) {
  Module m = MustParse(R"(
module @jit_f attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=1]>
  func.func public @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<8x8xf32> {jax.result_info = "", sdy.sharding = #sdy.sharding<@mesh, [{"x", ?}, {?}]>}) {
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{}, {"x"}]> : tensor<8x8xf32>
    %1 = stablehlo.negate %0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : tensor<8x8xf32>
    return %1 : tensor<8x8xf32>
  }
}
)");
  ASSERT_EQ(m.top_level_ops().size(), 1u);
  EXPECT_EQ(m.top_level_ops()[0]->kind(), OpKind::kSdyMesh);
  const Attribute* sharding = m.entry_function()->argument_attrs(0)->Get("sdy.sharding");
  ASSERT_NE(sharding, nullptr);
  ASSERT_TRUE(sharding->isa<OpaqueAttr>());
  EXPECT_EQ(sharding->dyn_cast<OpaqueAttr>()->text(), R"(#sdy.sharding<@mesh, [{"x"}, {}]>)");
  EXPECT_EQ(FirstOp(m).kind(), OpKind::kSdyShardingConstraint);
  ExpectRoundTrip(m);
}

// shard_map as JAX writes it with Shardy: the pretty form keeps its
// shardings and axes under the generic form's names, and the two forms
// read alike.
TEST(JaxExportTest, ShardyManualComputationInBothForms) {
  const char* pretty = R"(
module @jit_f attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @main(%arg0: tensor<8x4xf32>, %arg1: tensor<4xf32>) -> (tensor<8x4xf32>, tensor<4xf32>) {
    %0:2 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"x"}, {"y"}]>, <@mesh, [{}]>] out_shardings=[<@mesh, [{"x"}, {"y"}]>, <@mesh, [{"y"}]>] manual_axes={"x", "y"} (%arg2: tensor<4x2xf32>, %arg3: tensor<4xf32>) {
      %1 = stablehlo.negate %arg2 : tensor<4x2xf32>
      %2 = stablehlo.slice %arg3 [0:2] : (tensor<4xf32>) -> tensor<2xf32>
      sdy.return %1, %2 : tensor<4x2xf32>, tensor<2xf32>
    } : (tensor<8x4xf32>, tensor<4xf32>) -> (tensor<8x4xf32>, tensor<4xf32>)
    return %0#0, %0#1 : tensor<8x4xf32>, tensor<4xf32>
  }
}
)";
  Module m = MustParse(pretty);
  const Operation& op = FirstOp(m);
  ASSERT_EQ(op.kind(), OpKind::kSdyManualComputation);
  EXPECT_EQ(op.attr_as<OpaqueAttr>("in_shardings")->text(),
            R"(#sdy.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>, <@mesh, [{}]>]>)");
  EXPECT_EQ(op.attr_as<OpaqueAttr>("out_shardings")->text(),
            R"(#sdy.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>, <@mesh, [{"y"}]>]>)");
  EXPECT_EQ(op.attr_as<OpaqueAttr>("manual_axes")->text(), R"(#sdy<manual_axes{"x", "y"}>)");
  ASSERT_EQ(op.num_regions(), 1u);
  EXPECT_EQ(op.region(0).entry_block().terminator()->kind(), OpKind::kSdyReturn);
  ExpectRoundTrip(m);
  // The generic form, as MLIR prints it.
  Module generic = MustParse(R"(
module @jit_f attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @main(%arg0: tensor<8x4xf32>, %arg1: tensor<4xf32>) -> (tensor<8x4xf32>, tensor<4xf32>) {
    %0:2 = "sdy.manual_computation"(%arg0, %arg1) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>, <@mesh, [{}]>]>, manual_axes = #sdy<manual_axes{"x", "y"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>, <@mesh, [{"y"}]>]>}> ({
    ^bb0(%arg2: tensor<4x2xf32>, %arg3: tensor<4xf32>):
      %1 = "stablehlo.negate"(%arg2) : (tensor<4x2xf32>) -> tensor<4x2xf32>
      %2 = "stablehlo.slice"(%arg3) <{limit_indices = array<i64: 2>, start_indices = array<i64: 0>, strides = array<i64: 1>}> : (tensor<4xf32>) -> tensor<2xf32>
      "sdy.return"(%1, %2) : (tensor<4x2xf32>, tensor<2xf32>) -> ()
    }) : (tensor<8x4xf32>, tensor<4xf32>) -> (tensor<8x4xf32>, tensor<4xf32>)
    return %0#0, %0#1 : tensor<8x4xf32>, tensor<4xf32>
  }
}
)");
  std::string diff;
  EXPECT_TRUE(StructurallyEqual(m, generic, &diff)) << diff;
}

TEST(JaxExportTest, MalformedManualComputationsAreRejectedNamingWhat) {
  auto status_of = [](const std::string& region_args, const std::string& body, const std::string& axes) {
    return ParseStatus(R"(
sdy.mesh @mesh = <["x"=2]>
func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] )" +
                       axes + " (" + region_args + ") {\n" + body + R"(
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
)");
  };
  const std::string axes = R"(manual_axes={"x"})";
  EXPECT_TRUE(status_of("%a: tensor<4xf32>", "sdy.return %a : tensor<4xf32>", axes).ok());
  Status no_arg = status_of("", "%c = stablehlo.constant dense<1.0> : tensor<4xf32>\nsdy.return %c : tensor<4xf32>", axes);
  EXPECT_NE(no_arg.message().find("its body takes 0"), std::string::npos) << no_arg.ToString();
  Status wrong_type = status_of("%a: tensor<4xi32>", "sdy.return %a : tensor<4xi32>", axes);
  EXPECT_NE(wrong_type.message().find("is no shard of tensor<8xf32>"), std::string::npos) << wrong_type.ToString();
  Status wrong_end = status_of("%a: tensor<4xf32>", "stablehlo.return %a : tensor<4xf32>", axes);
  EXPECT_NE(wrong_end.message().find("sdy.return"), std::string::npos) << wrong_end.ToString();
  Status no_axes = status_of("%a: tensor<4xf32>", "sdy.return %a : tensor<4xf32>", "");
  EXPECT_NE(no_axes.message().find("manual_axes"), std::string::npos) << no_axes.ToString();
}

// Found by the fuzzer: a mesh named by blanks parsed with an empty name
// and printed as @"", which did not parse back. Names follow '@' at once,
// bare or quoted, as function names and symbol references do.
TEST(JaxExportTest, MeshNamesAreBareOrQuotedSymbols) {
  Status blank = ParseStatus("sdy.mesh @\t = <[\"x\"=2]>\nfunc.func @main() {\n  return\n}\n");
  EXPECT_NE(blank.message().find("expected a mesh name after '@'"), std::string::npos) << blank.ToString();
  Module quoted = MustParse("sdy.mesh @\"my mesh\" = <[\"x\"=2]>\nfunc.func @main() {\n  return\n}\n");
  EXPECT_EQ(quoted.top_level_ops()[0]->GetString("sym_name"), "my mesh");
  ExpectRoundTrip(quoted);
  Module empty = MustParse(
      "\"sdy.mesh\"() {mesh = #sdy.mesh<[\"x\"=2]>, sym_name = \"\"} : () -> ()\nfunc.func @main() {\n  return\n}\n");
  ExpectRoundTrip(empty);
}

TEST(JaxExportTest, MhloAttributesAndFrontendAttributes) {
  Module m = MustParse(R"(
module @jit_g attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32, mhlo.frontend_attributes = {xla.sdy.meshes = "{}"}} {
  func.func public @main(%arg0: tensor<4xf32> {mhlo.sharding = "{devices=[2]<=[2]}", mhlo.layout_mode = "{0}"}) -> (tensor<4xf32> {jax.result_info = "[0]"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<4xf32>) -> tensor<4xf32>
    %1 = stablehlo.custom_call @annotate_device_placement(%0) {has_side_effect = true, mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<4xf32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}
)");
  EXPECT_NE(m.attr("mhlo.frontend_attributes"), nullptr);
  ExpectRoundTrip(m);
}

TEST(JaxExportTest, CustomCallLayoutsAliasesAndBackendConfigs) {
  Module m = MustParse(R"(
func.func public @main(%arg0: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi32>, tensor<i32>) {
  %0:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%arg0) {mhlo.backend_config = {}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi32>, tensor<i32>)
  %1 = stablehlo.custom_call @cu_op(%arg0) {api_version = 4 : i32, backend_config = {mode = 1 : i64, name = "q"}, called_computations = [@helper]} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %2 = stablehlo.custom_call @blob(%arg0) {backend_config = "\00\01\FFtext\0A"} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  return %0#0, %0#1, %0#2 : tensor<3x3xf32>, tensor<3xi32>, tensor<i32>
}
func.func private @helper(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
)");
  const Block& body = m.entry_function()->entry_block();
  const Operation& lu = *body.operations()[0];
  EXPECT_EQ(lu.call_target_name(), "lapack_sgetrf_ffi");
  auto* aliases = lu.attr_as<ArrayAttr>("output_operand_aliases");
  ASSERT_NE(aliases, nullptr);
  EXPECT_EQ((*aliases)[0]->dyn_cast<OutputOperandAliasAttr>()->value().output_tuple_indices,
            std::vector<int64_t>{0});
  const Operation& ffi = *body.operations()[1];
  EXPECT_NE(ffi.attr_as<DictionaryAttr>("backend_config"), nullptr);
  const Operation& blob = *body.operations()[2];
  EXPECT_EQ(blob.GetString("backend_config"), std::string("\x00\x01\xFFtext\n", 8));
  ExpectRoundTrip(m);
}

TEST(JaxExportTest, GenericModuleAndFunctionForms) {
  Module m = MustParse(R"("builtin.module"() <{sym_name = "jit_main"}> ({
  "func.func"() <{function_type = () -> tensor<2xf32>, res_attrs = [{jax.result_info = ""}], sym_name = "main", sym_visibility = "public"}> ({
    %0 = "func.call"() <{callee = @inputs}> : () -> tensor<2xf32>
    %1 = "stablehlo.abs"(%0) : (tensor<2xf32>) -> tensor<2xf32>
    "stablehlo.custom_call"(%1, %0) <{call_target_name = "check.expect_close", has_side_effect = true}> : (tensor<2xf32>, tensor<2xf32>) -> ()
    "func.return"(%1) : (tensor<2xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "inputs_with_arg", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<2xf32>):
    "func.return"(%arg0) : (tensor<2xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = () -> tensor<2xf32>, sym_name = "inputs", sym_visibility = "private"}> ({
    %0 = "stablehlo.constant"() <{value = dense<[-1.0, 2.5]> : tensor<2xf32>}> : () -> tensor<2xf32>
    "func.return"(%0) : (tensor<2xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
)");
  EXPECT_EQ(m.name(), "jit_main");
  EXPECT_EQ(m.num_replicas(), 1);
  EXPECT_EQ(m.function("inputs")->visibility(), Visibility::kPrivate);
  EXPECT_NE(m.function("main")->result_attrs(0), nullptr);
  EXPECT_EQ(m.function("inputs_with_arg")->num_arguments(), 1u);
  ExpectRoundTrip(m);
}

TEST(JaxExportTest, TestDataLayoutWithCheckCustomCalls) {
  Module m = MustParse(R"(
module @jit_testcase {
  func.func public @main() -> tensor<i1> {
    %0:2 = call @inputs() : () -> (tensor<2x3xf32>, tensor<2x3xf32>)
    %1 = call @expected() : () -> tensor<2x3xf32>
    %2 = stablehlo.add %0#0, %0#1 : tensor<2x3xf32>
    stablehlo.custom_call @check.expect_eq(%2, %1) {has_side_effect = true} : (tensor<2x3xf32>, tensor<2x3xf32>) -> ()
    stablehlo.custom_call @check.expect_close(%2, %1) {has_side_effect = true} : (tensor<2x3xf32>, tensor<2x3xf32>) -> ()
    stablehlo.custom_call @check.expect_almost_eq(%2, %1) {has_side_effect = true} : (tensor<2x3xf32>, tensor<2x3xf32>) -> ()
    %3 = stablehlo.custom_call @check.eq(%2, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<i1>
    return %3 : tensor<i1>
  }
  func.func private @inputs() -> (tensor<2x3xf32> {mhlo.layout_mode = "default"}, tensor<2x3xf32> {mhlo.layout_mode = "default"}) {
    %cst = stablehlo.constant dense<"0x0000803F000000400000404000008040000000000000C0BF"> : tensor<2x3xf32>
    %cst_0 = stablehlo.constant dense<[[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 0.000000e+00, -1.500000e+00]]> : tensor<2x3xf32>
    return %cst, %cst_0 : tensor<2x3xf32>, tensor<2x3xf32>
  }
  func.func private @expected() -> (tensor<2x3xf32> {mhlo.layout_mode = "default"}) {
    %cst = stablehlo.constant dense<[[2.000000e+00, 4.000000e+00, 6.000000e+00], [8.000000e+00, 0.000000e+00, -3.000000e+00]]> : tensor<2x3xf32>
    return %cst : tensor<2x3xf32>
  }
}
)");
  const Function* inputs = m.function("inputs");
  const Operation& blob = *inputs->entry_block().operations()[0];
  const Operation& list = *inputs->entry_block().operations()[1];
  EXPECT_TRUE(blob.GetDense("value")->Equals(*list.GetDense("value")));
  ExpectRoundTrip(m);
}

TEST(JaxExportTest, CheckEqCustomCallMustReturnBool) {
  Status s = ParseStatus(R"(
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.custom_call @check.eq(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
)");
  EXPECT_NE(s.message().find("'check.eq' returns tensor<i1>"), std::string::npos) << s.message();
}

TEST(JaxExportTest, ShapePolymorphicExport) {
  Module m = MustParse(R"(
module @jit_f attributes {jax.uses_shape_polymorphism = true, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<?x4xf32> {mhlo.sharding = "{replicated}"}) -> (tensor<?x4xf32> {jax.result_info = ""}) {
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
    %1 = stablehlo.reshape %0 : (tensor<i32>) -> tensor<1xi32>
    %c = stablehlo.constant dense<4> : tensor<1xi32>
    %2 = stablehlo.concatenate %1, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %cst = stablehlo.constant dense<1.0> : tensor<f32>
    %3 = stablehlo.dynamic_broadcast_in_dim %cst, %2, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x4xf32>
    %4 = stablehlo.add %arg0, %3 : tensor<?x4xf32>
    %5 = stablehlo.dynamic_iota %2, dim = 1 : (tensor<2xi32>) -> tensor<?x4xf32>
    %6 = stablehlo.dynamic_reshape %4, %2 : (tensor<?x4xf32>, tensor<2xi32>) -> tensor<?x4xf32>
    return %6 : tensor<?x4xf32>
  }
}
)");
  ExpectRoundTrip(m);
}

TEST(JaxExportTest, TopKCompositeAndChloLeftovers) {
  Module m = MustParse(R"(
module @jit_f {
  func.func public @main(%arg0: tensor<5x16xf32>) -> (tensor<5x4xf32>, tensor<5x4xi32>) {
    %0:2 = stablehlo.composite "chlo.top_k" %arg0 {composite_attributes = {k = 4 : i64, largest = true}, decomposition = @chlo.top_k.impl, version = 1 : i32} : (tensor<5x16xf32>) -> (tensor<5x4xf32>, tensor<5x4xi32>)
    %1 = chlo.lgamma %0#0 : tensor<5x4xf32> -> tensor<5x4xf32>
    %2 = chlo.erf %1 : tensor<5x4xf32> -> tensor<5x4xf32>
    %3 = chlo.is_inf %2 : tensor<5x4xf32> -> tensor<5x4xi1>
    return %2, %0#1 : tensor<5x4xf32>, tensor<5x4xi32>
  }
  func.func private @chlo.top_k.impl(%arg0: tensor<5x16xf32>) -> (tensor<5x4xf32>, tensor<5x4xi32>) {
    %0:2 = chlo.top_k(%arg0, k = 4) : tensor<5x16xf32> -> (tensor<5x4xf32>, tensor<5x4xi32>)
    return %0#0, %0#1 : tensor<5x4xf32>, tensor<5x4xi32>
  }
}
)");
  EXPECT_EQ(FirstOp(m).callee(), "chlo.top_k.impl");
  ExpectRoundTrip(m);
}

TEST(JaxExportTest, SortScatterGatherAsJaxPrintsThem) {
  Module m = MustParse(R"(
func.func public @main(%arg0: tensor<5xf32>, %arg1: tensor<5x3xf32>, %arg2: tensor<2x1xi32>) -> tensor<2x3xf32> {
  %0:2 = "stablehlo.sort"(%arg0, %arg0) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>, %d: tensor<f32>):
    %r = stablehlo.compare  LT, %a, %b,  TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %r : tensor<i1>
  }) : (tensor<5xf32>, tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>)
  %1 = "stablehlo.gather"(%arg1, %arg2) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 3>}> : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  %2 = "stablehlo.scatter"(%arg1, %arg2, %1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    stablehlo.return %y : tensor<f32>
  }) : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<5x3xf32>
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %3 = "stablehlo.reduce_window"(%arg1, %cst) <{padding = dense<[[4, 0], [0, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 5, 1>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<5x3xf32>, tensor<f32>) -> tensor<5x3xf32>
  return %1 : tensor<2x3xf32>
}
)");
  const Operation& gather = *m.entry_function()->entry_block().operations()[1];
  ASSERT_NE(gather.gather_dimension_numbers(), nullptr);
  EXPECT_EQ(gather.gather_dimension_numbers()->index_vector_dim, 1);
  const Operation& scatter = *m.entry_function()->entry_block().operations()[2];
  ASSERT_NE(scatter.scatter_dimension_numbers(), nullptr);
  EXPECT_EQ(scatter.scatter_dimension_numbers()->update_window_dims, std::vector<int64_t>{1});
  const Operation& window = *m.entry_function()->entry_block().operations()[4];
  EXPECT_EQ(window.GetPairs("padding")[0], std::make_pair(int64_t{4}, int64_t{0}));
  ExpectRoundTrip(m);
}

TEST(JaxExportTest, ResultAccuracyAndOtherDialectAttributes) {
  Module m = MustParse(R"(
func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.exponential %arg0 {result_accuracy = #stablehlo.result_accuracy<atol = 1.000000e-05, rtol = 0.000000e+00, ulps = 1, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<4xf32>
  %1 = stablehlo.log %0, accuracy = <mode = DEFAULT> : tensor<4xf32>
  %2 = stablehlo.custom_call @f(%1) {a = #mhlo<precision HIGH>, b = #tpu.core_type<tc>, c = affine_map<(d0) -> (d0)>} : (tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
)");
  EXPECT_TRUE(FirstOp(m).attr("result_accuracy")->isa<OpaqueAttr>());
  ExpectRoundTrip(m);
}

TEST(JaxExportTest, TokenArgumentsAndControlFlow) {
  Module m = MustParse(R"(
func.func public @main(%arg0: !stablehlo.token {jax.token = true}, %arg1: tensor<i32>, %arg2: tensor<f32>) -> (!stablehlo.token, tensor<f32>) {
  %0 = "stablehlo.case"(%arg1) ({
    stablehlo.return %arg2 : tensor<f32>
  }, {
    %n = stablehlo.negate %arg2 : tensor<f32>
    stablehlo.return %n : tensor<f32>
  }) : (tensor<i32>) -> tensor<f32>
  return %arg0, %0 : !stablehlo.token, tensor<f32>
}
)");
  EXPECT_TRUE(m.entry_function()->argument_types()[0].IsToken());
  ExpectRoundTrip(m);
}

}  // namespace
}  // namespace berth::stablehlo
