// shard_maps that leave some mesh axes free (partially manual) or sit in
// one another (nested), in the three forms JAX exports: Shardy's
// sdy.manual_computation, XLA's round-trip @xla.sdy.GlobalToLocalShape /
// LocalToGlobalShape, and GSPMD's @SPMDFullToShardShape /
// @SPMDShardToFullShape. Each runs the column-sum body (ColumnSumBody) on a
// 2x2 mesh and is checked against scalar loops; what Shardy forbids is
// refused naming it.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>

#include "berth/spmd/partitioner.hpp"
#include "berth/stablehlo/parser.hpp"
#include "partitioned_run.hpp"
#include "test_util.hpp"

namespace berth {
namespace {

using spmd_testing::CollectivesIn;
using spmd_testing::ColumnSumBody;
using spmd_testing::ColumnSumExpected;
using spmd_testing::ExpectPartitionedRunGives;
using spmd_testing::PartitionedText;
using spmd_testing::RandomLiteral;
using testing::Literal;
namespace shlo = berth::stablehlo;

// Runs `text` on seeded 16x8 arguments against ColumnSumExpected(x, k).
void ExpectColumnSums(const std::string& text, int k, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 2; ++trial) {
    Literal x = RandomLiteral(ElementType::kS32, {16, 8}, rng);
    ExpectPartitionedRunGives(text, {x}, ColumnSumExpected(x, k));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

const char kModuleHead[] = R"(module @shmap attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
)";
const char kResults[] = "(tensor<16x8xi32>, tensor<8xi32>)";

// Partially manual: manual over "x" only, the argument's cut along "y"
// named but free. The body sees 8x8 blocks (rows over "x", every column),
// the devices along "y" computing alike.
TEST(NestedManualTest, PartiallyManualShardyComputationRunsOnManualBlocksWholeAlongFreeAxes) {
  const std::string text = std::string(kModuleHead) +
                           R"(  func.func public @main(%arg0: tensor<16x8xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}) -> )" +
                           kResults + R"( {
    %0:2 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {"y"}]>] out_shardings=[<@mesh, [{"x"}, {"y"}]>, <@mesh, [{}]>] manual_axes={"x"} (%x: tensor<8x8xi32>) {)" +
                           ColumnSumBody(8) + R"(      sdy.return %r, %p : tensor<8x8xi32>, tensor<8xi32>
    } : (tensor<16x8xi32>) -> )" + kResults + R"(
    %1 = stablehlo.negate %0#0 : tensor<16x8xi32>
    return %1, %0#1 : tensor<16x8xi32>, tensor<8xi32>
  }
})";
  const std::string partitioned = PartitionedText(text);
  EXPECT_NE(partitioned.find("(tensor<8x8xi32>, tensor<i32>) -> tensor<8xi32>"), std::string::npos) << partitioned;
  EXPECT_EQ(partitioned.find("manual_computation"), std::string::npos) << partitioned;
  ExpectColumnSums(text, 2, 31);
}

// A round-trip GlobalToLocalShape (or LocalToGlobalShape) over `axes`:
// the frontend attributes on the custom call, XLA's older spelling.
std::string RoundTripStep(const std::string& step, const std::string& operands, const std::string& shardings,
                          const std::string& axes, const std::string& types) {
  const std::string kind = step == "GlobalToLocalShape" ? "in" : "out";
  return "stablehlo.custom_call @xla.sdy." + step + "(" + operands +
         ") {mhlo.frontend_attributes = {xla.sdy." + kind + "_shardings = \"#sdy.sharding_per_value<[" + shardings +
         "]>\", xla.sdy.manual_axes = \"#sdy<manual_axes{" + axes + "}>\"}} : " + types;
}

const char kRoundTripHead[] =
    R"(module @round_trip attributes {mhlo.num_partitions = 4 : i32, mhlo.frontend_attributes = {xla.sdy.meshes = "{mesh = #sdy.mesh<[\22x\22=2, \22y\22=2]>}"}} {
)";

TEST(NestedManualTest, PartiallyManualRoundTripShardMapRunsLikeItsShardyTwin) {
  const std::string text =
      std::string(kRoundTripHead) + "  func.func public @main(%arg0: tensor<16x8xi32>) -> " + kResults + " {\n    %0 = " +
      RoundTripStep("GlobalToLocalShape", "%arg0", R"(<@mesh, [{\22x\22}, {\22y\22}]>)", R"(\22x\22)",
                    "(tensor<16x8xi32>) -> tensor<8x8xi32>") +
      "\n    %1:2 = call @xla.sdy.manual_computation_body(%0) : (tensor<8x8xi32>) -> (tensor<8x8xi32>, "
      "tensor<8xi32>)\n    %2:2 = " +
      RoundTripStep("LocalToGlobalShape", "%1#0, %1#1", R"(<@mesh, [{\22x\22}, {}]>, <@mesh, [{}]>)", R"(\22x\22)",
                    std::string("(tensor<8x8xi32>, tensor<8xi32>) -> ") + kResults) +
      R"(
    %3 = stablehlo.negate %2#0 : tensor<16x8xi32>
    return %3, %2#1 : tensor<16x8xi32>, tensor<8xi32>
  }
  func.func private @xla.sdy.manual_computation_body(%x: tensor<8x8xi32>) -> (tensor<8x8xi32>, tensor<8xi32>) {)" +
      ColumnSumBody(8) + "      return %r, %p : tensor<8x8xi32>, tensor<8xi32>\n  }\n}\n";
  ExpectColumnSums(text, 2, 37);
}

// GSPMD's partially manual region: the operand cut along the manual axis
// only, the region's shardings carrying a manual subgroup ("x") and a
// replicated one ("y").
TEST(NestedManualTest, PartiallyManualGspmdRegionRunsOnManualBlocks) {
  const std::string manual = R"({devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}})";
  const std::string rows = R"({devices=[2,1,2]<=[4] last_tile_dim_replicate})";
  const std::string text =
      R"(module @gspmd_partial attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%arg0: tensor<16x8xi32> {mhlo.sharding = "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}"}) -> )" +
      std::string(kResults) + R"( {
    %0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = ")" + rows +
      R"("} : (tensor<16x8xi32>) -> tensor<16x8xi32>
    %x = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = ")" + manual +
      R"("} : (tensor<16x8xi32>) -> tensor<8x8xi32>)" + ColumnSumBody(8) +
      R"(    %1 = stablehlo.custom_call @Sharding(%r) {mhlo.sharding = ")" + manual +
      R"("} : (tensor<8x8xi32>) -> tensor<8x8xi32>
    %2 = stablehlo.custom_call @SPMDShardToFullShape(%1) {mhlo.sharding = ")" + rows +
      R"("} : (tensor<8x8xi32>) -> tensor<16x8xi32>
    %3 = stablehlo.custom_call @Sharding(%p) {mhlo.sharding = "{devices=[1,2,2]<=[4] last_tile_dims={manual, replicated}}"} : (tensor<8xi32>) -> tensor<8xi32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {mhlo.sharding = "{replicated}"} : (tensor<8xi32>) -> tensor<8xi32>
    %5 = stablehlo.negate %2 : tensor<16x8xi32>
    return %5, %4 : tensor<16x8xi32>, tensor<8xi32>
  }
})";
  ExpectColumnSums(text, 2, 41);
}

// Manual over "y" only, "x" free, in the Shardy and GSPMD forms (the GSPMD
// manual subgroup is the mesh's minor axis: a transposed device order).
// Each device's block holds all 16 rows of its 4 columns, so the body's
// psum over "x" adds two equal sums: the program computes -(2 * x + 2 *
// sums) and 2 * sums, which a scalar loop gives here.
TEST(NestedManualTest, PartiallyManualOverTheMinorAxisInBothForms) {
  const std::string body = ColumnSumBody(4, 16);
  const std::string shardy = std::string(kModuleHead) +
                             R"(  func.func public @main(%arg0: tensor<16x8xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> )" +
                             kResults + R"( {
    %0:2 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {"y"}]>] out_shardings=[<@mesh, [{}, {"y"}]>, <@mesh, [{"y"}]>] manual_axes={"y"} (%x: tensor<16x4xi32>) {)" +
                             body + R"(      sdy.return %r, %p : tensor<16x4xi32>, tensor<4xi32>
    } : (tensor<16x8xi32>) -> )" + kResults + R"(
    %1 = stablehlo.negate %0#0 : tensor<16x8xi32>
    return %1, %0#1 : tensor<16x8xi32>, tensor<8xi32>
  }
})";
  const std::string manual = R"({devices=[1,1,2,2]<=[2,2]T(1,0) last_tile_dims={manual, replicated}})";
  const std::string columns = R"({devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate})";
  const std::string gspmd =
      R"(module @gspmd_minor attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%arg0: tensor<16x8xi32> {mhlo.sharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"}) -> )" +
      std::string(kResults) + R"( {
    %0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = ")" + columns +
      R"("} : (tensor<16x8xi32>) -> tensor<16x8xi32>
    %x = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = ")" + manual +
      R"("} : (tensor<16x8xi32>) -> tensor<16x4xi32>)" + body +
      R"(    %1 = stablehlo.custom_call @SPMDShardToFullShape(%r) {mhlo.sharding = ")" + columns +
      R"("} : (tensor<16x4xi32>) -> tensor<16x8xi32>
    %2 = stablehlo.custom_call @SPMDShardToFullShape(%p) {mhlo.sharding = "{devices=[2,2]<=[2,2]T(1,0) last_tile_dim_replicate}"} : (tensor<4xi32>) -> tensor<8xi32>
    %3 = stablehlo.negate %1 : tensor<16x8xi32>
    return %3, %2 : tensor<16x8xi32>, tensor<8xi32>
  }
})";
  std::mt19937_64 rng(61);
  for (const std::string* text : {&shardy, &gspmd}) {
    SCOPED_TRACE(text == &shardy ? "sdy.manual_computation" : "GSPMD");
    Literal x = RandomLiteral(ElementType::kS32, {16, 8}, rng);
    std::vector<int32_t> in(16 * 8), out(16 * 8), sums(8, 0);
    std::memcpy(in.data(), x.bytes.data(), x.bytes.size());
    for (size_t c = 0; c < 8; ++c) {
      for (size_t r = 0; r < 16; ++r) sums[c] += 2 * in[r * 8 + c];
      for (size_t r = 0; r < 16; ++r) out[r * 8 + c] = -(2 * in[r * 8 + c] + sums[c]);
    }
    ExpectPartitionedRunGives(*text, {x}, {Literal::Of(out, {16, 8}), Literal::Of(sums, {8})});
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Nested sdy.manual_computations on the 2x2 mesh: the outer region manual
// over `outer` ("x": 8x8 row blocks; "y": 16x4 column blocks), the inner
// over the other axis (8x4 blocks) running the column-sum body; the outer
// body then adds its block to what the inner returns, so each device must
// hold the inner results gathered back into its whole block: k = 3.
std::string NestedShardy(const std::string& outer) {
  const bool rows_first = outer == "x";
  const std::string block = rows_first ? "tensor<8x8xi32>" : "tensor<16x4xi32>";
  const std::string sums = rows_first ? "tensor<8xi32>" : "tensor<4xi32>";
  const std::string outer_cut = rows_first ? R"([{"x"}, {}])" : R"([{}, {"y"}])";
  const std::string outer_sums = rows_first ? "[{}]" : R"([{"y"}])";
  const std::string inner_cut = rows_first ? R"([{}, {"y"}])" : R"([{"x"}, {}])";
  const std::string inner_sums = rows_first ? R"([{"y"}])" : "[{}]";
  const std::string inner = rows_first ? "y" : "x";
  return std::string(kModuleHead) +
         R"(  func.func public @main(%arg0: tensor<16x8xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> )" +
         kResults + " {\n    %0:2 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, " + outer_cut +
         ">] out_shardings=[<@mesh, " + outer_cut + ">, <@mesh, " + outer_sums + ">] manual_axes={\"" + outer +
         "\"} (%a: " + block + ") {\n      %1:2 = sdy.manual_computation(%a) in_shardings=[<@mesh, " + inner_cut +
         ">] out_shardings=[<@mesh, " + inner_cut + ">, <@mesh, " + inner_sums + ">] manual_axes={\"" + inner +
         "\"} (%x: tensor<8x4xi32>) {" + ColumnSumBody(4) +
         "        sdy.return %r, %p : tensor<8x4xi32>, tensor<4xi32>\n      } : (" + block + ") -> (" + block + ", " +
         sums + ")\n      %2 = stablehlo.add %1#0, %a : " + block + "\n      sdy.return %2, %1#1 : " + block + ", " +
         sums + "\n    } : (tensor<16x8xi32>) -> " + kResults +
         "\n    %3 = stablehlo.negate %0#0 : tensor<16x8xi32>\n    return %3, %0#1 : tensor<16x8xi32>, "
         "tensor<8xi32>\n  }\n}\n";
}

TEST(NestedManualTest, NestedShardyComputationsCutTheOuterBlocksFurther) {
  const std::string text = NestedShardy("x");
  // The inner results are gathered along "y" within each "x" group: two
  // all_gathers over {0, 1} and {2, 3} (the third gathers the entry result
  // over "x"); the body's own psum is the only all_reduce.
  const std::string partitioned = PartitionedText(text);
  std::map<std::string, int> collectives = CollectivesIn(partitioned);
  EXPECT_EQ(collectives["all_gather"], 3) << partitioned;
  EXPECT_EQ(collectives["all_reduce"], 1) << partitioned;
  size_t within_x = 0;
  for (size_t at = partitioned.find("dense<[[0, 1], [2, 3]]>"); at != std::string::npos;
       at = partitioned.find("dense<[[0, 1], [2, 3]]>", at + 1)) {
    ++within_x;
  }
  EXPECT_EQ(within_x, 2u) << partitioned;
  // The gathers take channel ids other than the body's psum's (1).
  std::set<int64_t> channels;
  size_t collectives_with_channels = 0;
  for (size_t at = partitioned.find("channel_handle<handle = "); at != std::string::npos;
       at = partitioned.find("channel_handle<handle = ", at + 1)) {
    channels.insert(std::stoll(partitioned.substr(at + 24)));
    ++collectives_with_channels;
  }
  EXPECT_EQ(collectives_with_channels, 4u) << partitioned;
  EXPECT_EQ(channels.size(), collectives_with_channels) << partitioned;
  ExpectColumnSums(text, 3, 43);
}

// The other order: the inner results are gathered along "x" within each
// "y" group ({0, 2} and {1, 3}).
TEST(NestedManualTest, NestedShardyComputationsInTheOtherAxisOrder) { ExpectColumnSums(NestedShardy("y"), 3, 59); }

TEST(NestedManualTest, NestedRoundTripShardMapsRunLikeTheirShardyTwins) {
  const std::string x = R"(\22x\22)", y = R"(\22y\22)";
  const std::string text =
      std::string(kRoundTripHead) + "  func.func public @main(%arg0: tensor<16x8xi32>) -> " + kResults + " {\n    %0 = " +
      RoundTripStep("GlobalToLocalShape", "%arg0", "<@mesh, [{" + x + "}, {}]>", x,
                    "(tensor<16x8xi32>) -> tensor<8x8xi32>") +
      "\n    %1:2 = call @xla.sdy.manual_computation_body(%0) : (tensor<8x8xi32>) -> (tensor<8x8xi32>, "
      "tensor<8xi32>)\n    %2:2 = " +
      RoundTripStep("LocalToGlobalShape", "%1#0, %1#1", "<@mesh, [{" + x + "}, {}]>, <@mesh, [{}]>", x,
                    std::string("(tensor<8x8xi32>, tensor<8xi32>) -> ") + kResults) +
      R"(
    %3 = stablehlo.negate %2#0 : tensor<16x8xi32>
    return %3, %2#1 : tensor<16x8xi32>, tensor<8xi32>
  }
  func.func private @xla.sdy.manual_computation_body(%a: tensor<8x8xi32>) -> (tensor<8x8xi32>, tensor<8xi32>) {
    %0 = )" +
      RoundTripStep("GlobalToLocalShape", "%a", "<@mesh, [{}, {" + y + "}]>", y, "(tensor<8x8xi32>) -> tensor<8x4xi32>") +
      "\n    %1:2 = call @xla.sdy.manual_computation_body_0(%0) : (tensor<8x4xi32>) -> (tensor<8x4xi32>, "
      "tensor<4xi32>)\n    %2:2 = " +
      RoundTripStep("LocalToGlobalShape", "%1#0, %1#1", "<@mesh, [{}, {" + y + "}]>, <@mesh, [{" + y + "}]>", y,
                    "(tensor<8x4xi32>, tensor<4xi32>) -> (tensor<8x8xi32>, tensor<8xi32>)") +
      R"(
    %3 = stablehlo.add %2#0, %a : tensor<8x8xi32>
    return %3, %2#1 : tensor<8x8xi32>, tensor<8xi32>
  }
  func.func private @xla.sdy.manual_computation_body_0(%x: tensor<8x4xi32>) -> (tensor<8x4xi32>, tensor<4xi32>) {)" +
      ColumnSumBody(4) + "      return %r, %p : tensor<8x4xi32>, tensor<4xi32>\n  }\n}\n";
  const std::string partitioned = PartitionedText(text);
  EXPECT_EQ(partitioned.find("GlobalToLocalShape"), std::string::npos) << partitioned;
  EXPECT_EQ(partitioned.find("LocalToGlobalShape"), std::string::npos) << partitioned;
  EXPECT_NE(partitioned.find("@xla.sdy.manual_computation_body_0}"), std::string::npos) << partitioned;
  ExpectColumnSums(text, 3, 47);
}

// GSPMD nesting as XLA's exporter writes it: inside the "x" region the
// inner operand's @Sharding cuts columns over "y" with "x" as a manual
// subgroup, and the inner results leave through shardings that keep it.
TEST(NestedManualTest, NestedGspmdRegionsCutTheOuterBlocksFurther) {
  const std::string outer = R"({devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}})";
  const std::string rows = R"({devices=[2,1,2]<=[4] last_tile_dim_replicate})";
  const std::string columns = R"({devices=[1,2,2]<=[2,2]T(1,0) last_tile_dims={manual}})";
  const std::string text =
      R"(module @gspmd_nested attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%arg0: tensor<16x8xi32> {mhlo.sharding = "{devices=[2,2]<=[4]}"}) -> )" +
      std::string(kResults) + R"( {
    %0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = ")" + rows +
      R"("} : (tensor<16x8xi32>) -> tensor<16x8xi32>
    %a = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = ")" + outer +
      R"("} : (tensor<16x8xi32>) -> tensor<8x8xi32>
    %1 = stablehlo.custom_call @Sharding(%a) {mhlo.sharding = ")" + columns +
      R"("} : (tensor<8x8xi32>) -> tensor<8x8xi32>
    %x = stablehlo.custom_call @SPMDFullToShardShape(%1) {mhlo.sharding = "{manual}"} : (tensor<8x8xi32>) -> tensor<8x4xi32>)" +
      ColumnSumBody(4) + R"(    %2 = stablehlo.custom_call @Sharding(%r) {mhlo.sharding = "{manual}"} : (tensor<8x4xi32>) -> tensor<8x4xi32>
    %3 = stablehlo.custom_call @SPMDShardToFullShape(%2) {mhlo.sharding = ")" + columns +
      R"("} : (tensor<8x4xi32>) -> tensor<8x8xi32>
    %4 = stablehlo.custom_call @Sharding(%p) {mhlo.sharding = "{manual}"} : (tensor<4xi32>) -> tensor<4xi32>
    %5 = stablehlo.custom_call @SPMDShardToFullShape(%4) {mhlo.sharding = "{devices=[2,2]<=[2,2]T(1,0) last_tile_dims={manual}}"} : (tensor<4xi32>) -> tensor<8xi32>
    %6 = stablehlo.add %3, %a : tensor<8x8xi32>
    %7 = stablehlo.custom_call @Sharding(%6) {mhlo.sharding = ")" + outer +
      R"("} : (tensor<8x8xi32>) -> tensor<8x8xi32>
    %8 = stablehlo.custom_call @SPMDShardToFullShape(%7) {mhlo.sharding = ")" + rows +
      R"("} : (tensor<8x8xi32>) -> tensor<16x8xi32>
    %9 = stablehlo.custom_call @SPMDShardToFullShape(%5) {mhlo.sharding = "{replicated}"} : (tensor<8xi32>) -> tensor<8xi32>
    %10 = stablehlo.negate %8 : tensor<16x8xi32>
    return %10, %9 : tensor<16x8xi32>, tensor<8xi32>
  }
})";
  ExpectColumnSums(text, 3, 53);
}

TEST(NestedManualTest, WhatShardyForbidsInManualRegionsIsRefusedNamingIt) {
  struct Case {
    const char* name;
    std::string text;
    const char* message;
  };
  // Returns %r, which `body` defines.
  auto shard_map = [](const std::string& in, const std::string& axes, const std::string& local,
                      const std::string& body) {
    return std::string(kModuleHead) + "  func.func public @main(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {\n" +
           "    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, " + in + ">] out_shardings=[<@mesh, " + in +
           ">] manual_axes={" + axes + "} (%a: " + local + ") {\n" + body + "      sdy.return %r : " + local +
           "\n    } : (tensor<8x8xf32>) -> tensor<8x8xf32>\n    return %0 : tensor<8x8xf32>\n  }\n}\n";
  };
  const std::string negate = "      %r = stablehlo.negate %a : tensor<4x8xf32>\n";
  const std::string reuse = R"(      %r = sdy.manual_computation(%a) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%b: tensor<2x8xf32>) {
        sdy.return %b : tensor<2x8xf32>
      } : (tensor<4x8xf32>) -> tensor<4x8xf32>
)";
  const Case cases[] = {
      {"a free axis before a manual one", shard_map(R"([{"y", "x"}, {}])", R"("x")", "tensor<4x8xf32>", negate),
       R"(cuts dimension 0 along free axis "y" before manual axis "x"; manual axes come first)"},
      {"an axis an enclosing region made manual", shard_map(R"([{"x"}, {}])", R"("x")", "tensor<4x8xf32>", reuse),
       R"(axis "x" is already manual in an enclosing region)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Result<shlo::Module> module = shlo::ParseModule(c.text, "bad.mlir");
    ASSERT_TRUE(module.ok()) << module.status().ToString() << "\n" << c.text;
    Result<spmd::PartitionedProgram> program = spmd::Partition(*module);
    ASSERT_FALSE(program.ok()) << c.text;
    EXPECT_EQ(program.status().code(), StatusCode::kInvalidArgument) << program.status().ToString();
    EXPECT_NE(program.status().message().find(c.message), std::string::npos) << program.status().message();
    EXPECT_NE(program.status().message().find("bad.mlir:"), std::string::npos) << program.status().message();
  }
}

}  // namespace
}  // namespace berth
