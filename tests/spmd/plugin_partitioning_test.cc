// Sharded programs compiled as they are: the cpu plugin partitions them at
// compile (through the SDK) and reports each parameter's and output's
// layout (BERTH_Executable_Shardings, ABI 1.2); each device's shards, cut as
// reported, must give the unpartitioned run's results. Programs on one
// partition, or without shardings, compile as written.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "partitioned_run.hpp"
#include "program_runner.hpp"

namespace berth {
namespace {

using spmd_testing::ExpectPluginPartitionedRunGives;
using spmd_testing::ExpectPluginPartitionedRunMatches;
using spmd_testing::RandomLiteral;
using testing::CpuRunner;
using testing::Literal;

TEST(PluginPartitioningTest, ThePluginPartitionsShardedProgramsAndReportsTheirLayouts) {
  struct Case {
    const char* name;
    std::string text;
    std::vector<std::vector<int64_t>> args;
  };
  const Case cases[] = {
      // GSPMD: a 2x2 mesh, the contracting dimension split (one all-reduce),
      // the result laid out by rows.
      {"gspmd_dot", R"(module @gspmd_dot attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%a: tensor<8x6xi32> {mhlo.sharding = "{devices=[2,2]<=[4]}"},
                         %b: tensor<6x4xi32> {mhlo.sharding = "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}"})
      -> (tensor<8x4xi32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) {
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x6xi32>, tensor<6x4xi32>) -> tensor<8x4xi32>
    return %0 : tensor<8x4xi32>
  }
})",
       {{8, 6}, {6, 4}}},
      // Shardy: 10 rows over 4 devices (padded shards), a reduction over
      // the cut rows.
      {"shardy_uneven", R"(module @shardy_uneven attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%a: tensor<10x3xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>})
      -> (tensor<10x3xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, tensor<3xi32>) {
    %0 = stablehlo.negate %a : tensor<10x3xi32>
    %z = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : (tensor<10x3xi32>, tensor<i32>) -> tensor<3xi32>
    return %0, %1 : tensor<10x3xi32>, tensor<3xi32>
  }
})",
       {{10, 3}}},
  };
  std::mt19937_64 rng(1204);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    for (int trial = 0; trial < 2; ++trial) {
      std::vector<Literal> args;
      for (const std::vector<int64_t>& dims : c.args) args.push_back(RandomLiteral(ElementType::kS32, dims, rng));
      ExpectPluginPartitionedRunMatches(c.text, args);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// A shard_map with no sharding on its entry: rows over 2 devices, each
// adding the other's rows (a collective_permute); against a scalar loop.
TEST(PluginPartitioningTest, AShardMapModuleIsPartitionedAtCompile) {
  const std::string text = R"(module @shard_map {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @main(%a: tensor<4x5xi32>) -> tensor<4x5xi32> {
    %0 = sdy.manual_computation(%a) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%s: tensor<2x5xi32>) {
      %1 = "stablehlo.collective_permute"(%s) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<2x5xi32>) -> tensor<2x5xi32>
      %2 = stablehlo.add %s, %1 : tensor<2x5xi32>
      sdy.return %2 : tensor<2x5xi32>
    } : (tensor<4x5xi32>) -> tensor<4x5xi32>
    return %0 : tensor<4x5xi32>
  }
})";
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 2; ++trial) {
    Literal a = RandomLiteral(ElementType::kS32, {4, 5}, rng);
    std::vector<int32_t> in(20), out(20);
    std::memcpy(in.data(), a.bytes.data(), a.bytes.size());
    for (size_t r = 0; r < 4; ++r) {
      for (size_t c = 0; c < 5; ++c) out[r * 5 + c] = in[r * 5 + c] + in[((r + 2) % 4) * 5 + c];
    }
    ExpectPluginPartitionedRunGives(text, {a}, {Literal::Of(out, {4, 5})});
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(PluginPartitioningTest, TheReportedLayoutsAreGspmdTextWithGlobalDims) {
  Result<Executable> executable = CpuRunner::Get().client().Compile(R"(module attributes {mhlo.num_partitions = 2 : i32} {
  func.func public @main(%a: tensor<6x4xf32> {mhlo.sharding = "{devices=[1,2]<=[2]}"}, %b: tensor<4xf32>)
      -> (tensor<6x4xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}) {
    %0 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<4xf32>) -> tensor<6x4xf32>
    %1 = stablehlo.add %a, %0 : tensor<6x4xf32>
    return %1 : tensor<6x4xf32>
  }
})");
  ASSERT_TRUE(executable.ok()) << executable.status().ToString();
  EXPECT_EQ(executable->num_partitions(), 2);
  ASSERT_EQ(executable->parameter_shardings().size(), 2u);
  EXPECT_EQ(executable->parameter_shardings()[0].sharding, "{devices=[1,2]<=[2]}");
  EXPECT_EQ(executable->parameter_shardings()[0].global_dims, (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(executable->parameter_shardings()[1].sharding, "{replicated}");
  EXPECT_EQ(executable->parameter_shardings()[1].global_dims, (std::vector<int64_t>{4}));
  ASSERT_EQ(executable->output_shardings().size(), 1u);
  EXPECT_EQ(executable->output_shardings()[0].sharding, "{devices=[2,1]<=[2]}");
  EXPECT_EQ(executable->output_dims()[0], (std::vector<int64_t>{3, 4}));  // each device's rows
}

// One partition (named by the options or the module), or no sharding:
// nothing to partition, no layouts reported. JAX writes shardings over
// devices into single-device exports; those compile as before.
TEST(PluginPartitioningTest, OnePartitionOrNoShardingCompilesAsWritten) {
  const std::string sharded_over_two = R"(module attributes {mhlo.num_partitions = 1 : i32} {
  func.func public @main(%a: tensor<4xf32> {mhlo.sharding = "{devices=[2]<=[2]}"}) -> tensor<4xf32> {
    %0 = stablehlo.negate %a : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
})";
  const std::string unsharded = R"(module attributes {mhlo.num_partitions = 2 : i32} {
  func.func public @main(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.negate %a : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
})";
  for (const std::string* text : {&sharded_over_two, &unsharded}) {
    Result<Executable> executable = CpuRunner::Get().client().Compile(*text);
    ASSERT_TRUE(executable.ok()) << executable.status().ToString();
    EXPECT_TRUE(executable->parameter_shardings().empty());
    EXPECT_TRUE(executable->output_shardings().empty());
    EXPECT_EQ(executable->output_dims()[0], (std::vector<int64_t>{4}));
  }
}

TEST(PluginPartitioningTest, AShardingThePartitionerCannotTakeFailsTheCompileNamingIt) {
  CompileOptions options;
  options.options["source_name"] = std::string("maximal.mlir");
  Result<Executable> executable = CpuRunner::Get().client().Compile(R"(module attributes {mhlo.num_partitions = 2 : i32} {
  func.func public @main(%a: tensor<4xf32> {mhlo.sharding = "{maximal device=1}"}) -> tensor<4xf32> {
    return %a : tensor<4xf32>
  }
})",
                                                                    options);
  ASSERT_FALSE(executable.ok());
  EXPECT_EQ(executable.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(executable.status().message().find("maximal.mlir: @main argument 0"), std::string::npos)
      << executable.status().ToString();
}

}  // namespace
}  // namespace berth
