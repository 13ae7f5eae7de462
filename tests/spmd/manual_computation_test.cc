// Shardy's shard_map (sdy.manual_computation) through the partitioner and
// the cpu plugin: bodies run as written on each device's shards, against
// scalar loops; bodies with no manual axes against the unpartitioned run;
// what is not partitioned yet, and bad regions, refused naming them.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "berth/spmd/partitioner.hpp"
#include "berth/stablehlo/parser.hpp"
#include "partitioned_run.hpp"
#include "temp_dir.hpp"
#include "test_util.hpp"

namespace berth {
namespace {

using spmd_testing::ColumnSumBody;
using spmd_testing::ColumnSumExpected;
using spmd_testing::ExpectPartitionedRunGives;
using spmd_testing::ExpectPartitionedRunMatches;
using spmd_testing::RandomLiteral;
using testing::CpuRunner;
using testing::Literal;
namespace shlo = berth::stablehlo;

// A 2x2 mesh, device x * 2 + y. The body (ColumnSumBody) gets an 8x4 block
// of the 16x8 argument (rows over "x", columns over "y") and returns
// 2 * block + column sums, and the column sums themselves, laid out over
// "y" only (replicated over "x": both devices of a group hold the same
// sums). The argument arrives cut along columns over "x", so it is
// resharded on the way in.
const std::string kTwoByTwoShardMap = std::string(R"(module @shmap attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @main(%arg0: tensor<16x8xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>})
      -> (tensor<16x8xi32>, tensor<8xi32>) {
    %0:2 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {"y"}]>] out_shardings=[<@mesh, [{"x"}, {"y"}]>, <@mesh, [{"y"}]>] manual_axes={"x", "y"} (%x: tensor<8x4xi32>) {)") +
                                      ColumnSumBody(4) + R"(      sdy.return %r, %p : tensor<8x4xi32>, tensor<4xi32>
    } : (tensor<16x8xi32>) -> (tensor<16x8xi32>, tensor<8xi32>)
    %1 = stablehlo.negate %0#0 : tensor<16x8xi32>
    return %1, %0#1 : tensor<16x8xi32>, tensor<8xi32>
  }
})";

TEST(ManualComputationTest, ShardyShardMapRunsItsBodyOnEachDevicesShard) {
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 3; ++trial) {
    Literal x = RandomLiteral(ElementType::kS32, {16, 8}, rng);
    ExpectPartitionedRunGives(kTwoByTwoShardMap, {x}, ColumnSumExpected(x, 2));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// The partitioned text holds the body once, on local shapes, with the
// psum as written and no manual_computation left.
TEST(ManualComputationTest, ThePerDeviceProgramHoldsTheBodyOnLocalShapes) {
  Result<shlo::Module> module = shlo::ParseModule(kTwoByTwoShardMap, "shmap.mlir");
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  EXPECT_TRUE(spmd::HasManualRegions(*module));
  Result<spmd::PartitionedProgram> program = spmd::Partition(*module);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  const std::string& text = program->text;
  EXPECT_EQ(text.find("manual_computation"), std::string::npos) << text;
  EXPECT_EQ(text.find("sdy.return"), std::string::npos) << text;
  EXPECT_NE(text.find("(tensor<8x4xi32>, tensor<i32>) -> tensor<4xi32>"), std::string::npos) << text;
  EXPECT_NE(text.find("dense<[[0, 2], [1, 3]]>"), std::string::npos) << text;
  EXPECT_EQ(program->local_argument_shapes.at(0), (std::vector<int64_t>{16, 4}));
}

// One sdy.manual_computation over a 1-D mesh of 4, with a
// collective_permute that rotates the shards (device d gets d - 1's), run
// on every dimension choice of a 2-D argument.
TEST(ManualComputationTest, ShardsRotateWithACollectivePermuteAlongEitherDimension) {
  for (int dim = 0; dim < 2; ++dim) {
    const std::string spec = dim == 0 ? R"([{"x"}, {}])" : R"([{}, {"x"}])";
    const std::string local = dim == 0 ? "tensor<2x8xi32>" : "tensor<8x2xi32>";
    const std::string text = R"(module {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%arg0: tensor<8x8xi32>) -> tensor<8x8xi32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, )" + spec + R"(>] out_shardings=[<@mesh, )" + spec +
                             R"(>] manual_axes={"x"} (%a: )" + local + R"() {
      %1 = "stablehlo.collective_permute"(%a) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>} : ()" +
                             local + ") -> " + local + R"(
      sdy.return %1 : )" + local + R"(
    } : (tensor<8x8xi32>) -> tensor<8x8xi32>
    return %0 : tensor<8x8xi32>
  }
})";
    std::mt19937_64 rng(static_cast<uint64_t>(dim) + 5);
    Literal x = RandomLiteral(ElementType::kS32, {8, 8}, rng);
    std::vector<int32_t> in(64), out(64);
    std::memcpy(in.data(), x.bytes.data(), x.bytes.size());
    for (size_t r = 0; r < 8; ++r) {
      for (size_t c = 0; c < 8; ++c) {
        size_t from_r = dim == 0 ? (r + 6) % 8 : r;  // the shard of the previous device: 2 rows back
        size_t from_c = dim == 1 ? (c + 6) % 8 : c;
        out[r * 8 + c] = in[from_r * 8 + from_c];
      }
    }
    SCOPED_TRACE("dimension " + std::to_string(dim));
    ExpectPartitionedRunGives(text, {x}, {Literal::Of(out, {8, 8})});
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// With no manual axes the body is ordinary code on global shapes: it is
// partitioned in place, and the result equals the unpartitioned run (where
// the cpu plugin runs the body as a call).
TEST(ManualComputationTest, NoManualAxesMeansTheBodyIsPartitionedInPlace) {
  const std::string text = R"(module {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%arg0: tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<8x6xf32>) -> tensor<6x8xf32> {
    %0 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{}, {}]>] out_shardings=[<@mesh, [{}, {"x"}]>] manual_axes={} (%a: tensor<8x6xf32>, %b: tensor<8x6xf32>) {
      %1 = stablehlo.multiply %a, %b : tensor<8x6xf32>
      %2 = stablehlo.transpose %1, dims = [1, 0] : (tensor<8x6xf32>) -> tensor<6x8xf32>
      sdy.return %2 : tensor<6x8xf32>
    } : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<6x8xf32>
    %3 = stablehlo.exponential %0 : tensor<6x8xf32>
    return %3 : tensor<6x8xf32>
  }
})";
  std::mt19937_64 rng(23);
  for (int trial = 0; trial < 3; ++trial) {
    ExpectPartitionedRunMatches(text, {RandomLiteral(ElementType::kF32, {8, 6}, rng),
                                       RandomLiteral(ElementType::kF32, {8, 6}, rng)});
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Compiled for one partition, a shard_map over 4 devices is refused with a
// pointer to partitioning, not run on the wrong shapes (over the mesh's 4
// partitions the plugin partitions it: plugin_partitioning_test.cc).
TEST(ManualComputationTest, OneDeviceRunOfAMultiDeviceShardMapIsRefused) {
  const std::string text = R"(module {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%a: tensor<2xf32>) {
      %1 = stablehlo.negate %a : tensor<2xf32>
      sdy.return %1 : tensor<2xf32>
    } : (tensor<8xf32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
})";
  std::mt19937_64 rng(1);
  CompileOptions one;
  one.num_partitions = 1;
  Result<std::vector<Literal>> run = CpuRunner::Get().Run(text, {RandomLiteral(ElementType::kF32, {8}, rng)}, one);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().code(), StatusCode::kUnimplemented) << run.status().ToString();
  EXPECT_NE(run.status().message().find("runs partitioned"), std::string::npos) << run.status().ToString();
}

// `berth run` partitions a module holding a shard_map even where its entry
// carries no sharding, and prints what the same computation written for
// one device prints.
TEST(ManualComputationTest, BerthRunOfAShardMapModulePrintsTheOneDeviceResult) {
  const std::string shard_map = R"(module {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%arg0: tensor<8x3xi32>) -> tensor<8x3xi32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%a: tensor<2x3xi32>) {
      %1 = stablehlo.multiply %a, %a : tensor<2x3xi32>
      %2 = stablehlo.negate %1 : tensor<2x3xi32>
      sdy.return %2 : tensor<2x3xi32>
    } : (tensor<8x3xi32>) -> tensor<8x3xi32>
    return %0 : tensor<8x3xi32>
  }
})";
  const std::string plain = R"(module {
  func.func public @main(%arg0: tensor<8x3xi32>) -> tensor<8x3xi32> {
    %1 = stablehlo.multiply %arg0, %arg0 : tensor<8x3xi32>
    %2 = stablehlo.negate %1 : tensor<8x3xi32>
    return %2 : tensor<8x3xi32>
  }
})";
  testing::TempDir dir;
  const std::string berth = std::string(BERTH_EXE) + " run ";
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> value(-99, 99);
  const std::string arg =
      " --arg '" +
      testing::DenseMatrixText(8, 3, "i32", [&](int64_t, int64_t) { return value(rng); }) + "'";
  testing::CommandResult want =
      testing::RunCommand(berth + dir.Write("plain.mlir", plain).string() + arg + " 2>&1");
  testing::CommandResult got =
      testing::RunCommand(berth + dir.Write("shard_map.mlir", shard_map).string() + arg + " 2>&1");
  ASSERT_EQ(want.exit_code, 0) << want.out;
  ASSERT_EQ(got.exit_code, 0) << got.out;
  EXPECT_EQ(got.out, want.out);
}

// kTwoByTwoShardMap in XLA's round-trip form: the shardings as strings
// among frontend attributes, the body a function called between
// @xla.sdy.GlobalToLocalShape and @xla.sdy.LocalToGlobalShape. `newer`:
// the @local_xla.sdy.* spelling, every attribute on the call.
std::string RoundTripTwoByTwo(bool newer, const std::string& manual_axes = R"(\22x\22, \22y\22)",
                              const std::string& out_shardings =
                                  R"(<@mesh, [{\22x\22}, {\22y\22}]>, <@mesh, [{\22y\22}]>)") {
  const std::string prefix = newer ? "local_xla.sdy." : "xla.sdy.";
  const std::string axes = "xla.sdy.manual_axes = \"#sdy<manual_axes{" + manual_axes + "}>\"";
  const std::string ins = R"(xla.sdy.in_shardings = "#sdy.sharding_per_value<[<@mesh, [{\22x\22}, {\22y\22}]>]>")";
  const std::string outs = "xla.sdy.out_shardings = \"#sdy.sharding_per_value<[" + out_shardings + "]>\"";
  auto frontend = [](const std::string& attrs) { return " {mhlo.frontend_attributes = {" + attrs + "}}"; };
  return R"(module @round_trip_shmap attributes {mhlo.num_partitions = 4 : i32, mhlo.frontend_attributes = {xla.sdy.meshes = "{mesh = #sdy.mesh<[\22x\22=2, \22y\22=2]>}"}} {
  func.func public @main(%arg0: tensor<16x8xi32> {mhlo.frontend_attributes = {xla.sdy.sharding = "#sdy.sharding<@mesh, [{}, {\22x\22}]>"}}) -> (tensor<16x8xi32>, tensor<8xi32>) {
    %0 = stablehlo.custom_call @)" +
         prefix + "GlobalToLocalShape(%arg0)" + (newer ? "" : frontend(ins + ", " + axes)) +
         " : (tensor<16x8xi32>) -> tensor<8x4xi32>\n    %1:2 = call @" + prefix + "manual_computation_body(%0)" +
         (newer ? frontend(ins + ", " + axes + ", " + outs) : "") +
         " : (tensor<8x4xi32>) -> (tensor<8x4xi32>, tensor<4xi32>)\n    %2:2 = stablehlo.custom_call @" + prefix +
         "LocalToGlobalShape(%1#0, %1#1)" + (newer ? "" : frontend(axes + ", " + outs)) +
         R"( : (tensor<8x4xi32>, tensor<4xi32>) -> (tensor<16x8xi32>, tensor<8xi32>)
    %3 = stablehlo.negate %2#0 : tensor<16x8xi32>
    return %3, %2#1 : tensor<16x8xi32>, tensor<8xi32>
  }
  func.func private @)" +
         prefix + "manual_computation_body(%x: tensor<8x4xi32>) -> (tensor<8x4xi32>, tensor<4xi32>) {" +
         ColumnSumBody(4) + "      return %r, %p : tensor<8x4xi32>, tensor<4xi32>\n  }\n}\n";
}

TEST(ManualComputationTest, XlaRoundTripShardMapRunsLikeItsShardyTwin) {
  std::mt19937_64 rng(19);
  for (bool newer : {false, true}) {
    SCOPED_TRACE(newer ? "local_xla.sdy.*, attributes on the call" : "xla.sdy.*, attributes on the custom calls");
    const std::string text = RoundTripTwoByTwo(newer);
    Result<shlo::Module> module = shlo::ParseModule(text, "round_trip.mlir");
    ASSERT_TRUE(module.ok()) << module.status().ToString() << "\n" << text;
    EXPECT_TRUE(spmd::HasManualRegions(*module));
    Result<spmd::PartitionedProgram> program = spmd::Partition(*module);
    ASSERT_TRUE(program.ok()) << program.status().ToString();
    // The body function is called as written on each device's 8x4 block;
    // no round-trip custom call is left.
    EXPECT_EQ(program->text.find("GlobalToLocalShape"), std::string::npos) << program->text;
    EXPECT_EQ(program->text.find("LocalToGlobalShape"), std::string::npos) << program->text;
    EXPECT_NE(program->text.find("manual_computation_body(%"), std::string::npos) << program->text;
    EXPECT_EQ(program->local_argument_shapes.at(0), (std::vector<int64_t>{16, 4}));
    for (int trial = 0; trial < 2; ++trial) {
      Literal x = RandomLiteral(ElementType::kS32, {16, 8}, rng);
      ExpectPartitionedRunGives(text, {x}, ColumnSumExpected(x, 2));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST(ManualComputationTest, MalformedOrPartialRoundTripShardMapsAreRefusedNamingThem) {
  struct Case {
    std::string text;
    StatusCode code;
    const char* message;
  };
  const Case cases[] = {
      // Manual over "x" only, "y" is free: each device holds an 8x8 block,
      // not the body's 8x4.
      {RoundTripTwoByTwo(false, R"(\22x\22)"), StatusCode::kInvalidArgument,
       "gives tensor<8x8xi32> per device, not the body's tensor<8x4xi32>"},
      {RoundTripTwoByTwo(true, R"(\22x\22, \22y\22)", R"(<@mesh, [{\22y\22}]>)"), StatusCode::kInvalidArgument,
       "xla.sdy.out_shardings lists 1 sharding(s) for 2 value(s)"},
      {RoundTripTwoByTwo(false, R"(\22x\22, \22y\22)", R"(<@mesh, [{\22y\22}, {}]>, <@mesh, [{\22y\22}]>)"),
       StatusCode::kInvalidArgument, "result 0: tensor<16x8xi32> laid out as {devices=[2,1,2]0,2,1,3 last_tile_dim_replicate} gives tensor<8x8xi32> per device, not the body's tensor<8x4xi32>"},
      {RoundTripTwoByTwo(false, R"(\22x\22, \22q)"), StatusCode::kInvalidArgument, "xla.sdy.manual_axes"},
  };
  for (const Case& c : cases) {
    Result<shlo::Module> module = shlo::ParseModule(c.text, "bad.mlir");
    ASSERT_TRUE(module.ok()) << module.status().ToString() << "\n" << c.text;
    Result<spmd::PartitionedProgram> program = spmd::Partition(*module);
    ASSERT_FALSE(program.ok()) << c.text;
    EXPECT_EQ(program.status().code(), c.code) << program.status().ToString();
    EXPECT_NE(program.status().message().find(c.message), std::string::npos) << program.status().message();
    EXPECT_NE(program.status().message().find("bad.mlir:"), std::string::npos) << program.status().message();
    EXPECT_NE(program.status().message().find("xla.sdy."), std::string::npos) << program.status().message();
  }
}

// A GSPMD shard_map as older JAX exports write it: no mhlo.num_partitions,
// the region inside a private jitted function, its body a
// collective_permute that swaps the two devices' halves. The partition
// count comes from the devices the shardings name.
TEST(ManualComputationTest, AnExportWithoutAPartitionCountRunsOnTheDevicesItsShardingsName) {
  const std::string text = R"(module @jit_swap {
  func.func public @main(%arg0: tensor<4x3xi32> {mhlo.sharding = "{replicated}"}) -> tensor<4x3xi32> {
    %0 = call @swap(%arg0) : (tensor<4x3xi32>) -> tensor<4x3xi32>
    return %0 : tensor<4x3xi32>
  }
  func.func private @swap(%arg0: tensor<4x3xi32>) -> tensor<4x3xi32> {
    %0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{devices=[2,1]0,1}"} : (tensor<4x3xi32>) -> tensor<4x3xi32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = "{manual}"} : (tensor<4x3xi32>) -> tensor<2x3xi32>
    %2 = "stablehlo.collective_permute"(%1) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<2x3xi32>) -> tensor<2x3xi32>
    %3 = stablehlo.custom_call @Sharding(%2) {mhlo.sharding = "{manual}"} : (tensor<2x3xi32>) -> tensor<2x3xi32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {mhlo.sharding = "{devices=[2,1]0,1}"} : (tensor<2x3xi32>) -> tensor<4x3xi32>
    return %4 : tensor<4x3xi32>
  }
})";
  std::mt19937_64 rng(23);
  Literal x = RandomLiteral(ElementType::kS32, {4, 3}, rng);
  std::vector<int32_t> in(12), out(12);
  std::memcpy(in.data(), x.bytes.data(), x.bytes.size());
  for (size_t r = 0; r < 4; ++r) {
    for (size_t c = 0; c < 3; ++c) out[r * 3 + c] = in[((r + 2) % 4) * 3 + c];
  }
  ExpectPartitionedRunGives(text, {x}, {Literal::Of(out, {4, 3})});
}

TEST(ManualComputationTest, WhatIsNotPartitionedYetOrMalformedIsRefusedNamingIt) {
  // %0 = sdy.manual_computation(%arg0: tensor<N x f32>) over `mesh`, the
  // body taking %a: tensor<local x f32> and returning %r (%a unless `body`
  // defines it).
  struct Case {
    const char* mesh;
    int global;
    const char* in_shardings;
    const char* manual_axes;
    int local;
    const char* body;
    StatusCode code;
    const char* message;
  };
  const Case cases[] = {
      {R"(<["x"=2, "y"=2]>)", 8, R"(<@mesh, [{"x", "y"}]>)", R"("x")", 2, "", StatusCode::kInvalidArgument,
       "gives tensor<4xf32> per device, not the body's tensor<2xf32>"},  // "y" is free
      {R"(<["x"=4]>)", 8, R"(<@mesh, [{"x"}]>)", R"("x")", 4, "", StatusCode::kInvalidArgument,
       "gives tensor<2xf32> per device, not the body's tensor<4xf32>"},
      {R"(<["x"=4]>)", 8, R"(<@mesh, [{"x"}]>, <@mesh, [{}]>)", R"("x")", 2, "", StatusCode::kInvalidArgument,
       "in_shardings lists 2 sharding(s) for 1 value(s)"},
      {R"(<["x"=4]>)", 8, R"(<@other, [{"x"}]>)", R"("x")", 2, "", StatusCode::kInvalidArgument,
       "names mesh @other, which the module lacks"},
      {R"(<["x"=4]>)", 10, R"(<@mesh, [{"x"}]>)", R"("x")", 3, "", StatusCode::kUnimplemented,
       "uneven manual computations"},  // 10 rows over 4 devices
  };
  for (const Case& c : cases) {
    const std::string global = "tensor<" + std::to_string(c.global) + "xf32>";
    const std::string local = "tensor<" + std::to_string(c.local) + "xf32>";
    const std::string body = *c.body ? std::string(c.body) + "\n    sdy.return %r : " : "sdy.return %a : ";
    const std::string text = std::string("module {\n  sdy.mesh @mesh = ") + c.mesh + "\n  func.func @main(%arg0: " +
                             global + ") -> " + global + " {\n  %0 = sdy.manual_computation(%arg0) in_shardings=[" +
                             c.in_shardings + "] out_shardings=[<@mesh, [{\"x\"}]>] manual_axes={" + c.manual_axes +
                             "} (%a: " + local + ") {\n    " + body + local + "\n  } : (" + global + ") -> " + global +
                             "\n  return %0 : " + global + "\n  }\n}\n";
    Result<shlo::Module> module = shlo::ParseModule(text, "bad.mlir");
    ASSERT_TRUE(module.ok()) << module.status().ToString() << "\n" << text;
    Result<spmd::PartitionedProgram> program = spmd::Partition(*module);
    ASSERT_FALSE(program.ok()) << text;
    EXPECT_EQ(program.status().code(), c.code) << program.status().ToString();
    EXPECT_NE(program.status().message().find(c.message), std::string::npos) << program.status().message();
    EXPECT_NE(program.status().message().find("bad.mlir:4:"), std::string::npos) << program.status().message();
  }
}

}  // namespace
}  // namespace berth
