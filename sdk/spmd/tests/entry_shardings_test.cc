// What a module's entry function declares: GSPMD and Shardy shardings on
// arguments and results, meshes, the partition count, and errors naming the
// argument or result.
#include "berth/spmd/entry_shardings.hpp"

#include <gtest/gtest.h>

#include "berth/spmd/gspmd.hpp"
#include "berth/stablehlo/parser.hpp"

namespace berth::spmd {
namespace {

namespace shlo = berth::stablehlo;

Result<EntryShardings> Read(const std::string& text) {
  Result<shlo::Module> module = shlo::ParseModule(text, "test.mlir", shlo::ParseOptions{.verify = true});
  if (!module.ok()) return module.status();
  return ReadEntryShardings(*module);
}

std::string Gspmd(const std::optional<Sharding>& sharding) {
  return sharding ? PrintGspmdSharding(*sharding) : "none";
}

// `entry` was read, with `num_partitions` partitions and, as Gspmd prints
// them, these shardings of every argument and every result.
void ExpectShardings(const Result<EntryShardings>& entry, int num_partitions,
                     const std::vector<std::string>& arguments,
                     const std::vector<std::string>& results) {
  ASSERT_TRUE(entry.ok()) << entry.status().ToString();
  EXPECT_EQ(entry->num_partitions, num_partitions);
  ASSERT_EQ(entry->arguments.size(), arguments.size());
  for (size_t i = 0; i < arguments.size(); ++i) {
    EXPECT_EQ(Gspmd(entry->arguments[i]), arguments[i]) << "argument " << i;
  }
  ASSERT_EQ(entry->results.size(), results.size());
  for (size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(Gspmd(entry->results[i]), results[i]) << "result " << i;
  }
}

TEST(EntryShardingsTest, ReadsGspmdShardings) {
  Result<EntryShardings> entry = Read(R"(
module @jit_f attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x4xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}, %arg1: tensor<4xf32>)
      -> (tensor<8x4xf32> {jax.result_info = "", mhlo.sharding = "{replicated}"}) {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<4xf32>) -> tensor<8x4xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<8x4xf32>
    return %1 : tensor<8x4xf32>
  }
})");
  ASSERT_NO_FATAL_FAILURE(
      ExpectShardings(entry, 4, {"{devices=[4,1]<=[4]}", "none"}, {"{replicated}"}));
  EXPECT_TRUE(entry->IsPartitioned());
}

TEST(EntryShardingsTest, ReadsShardyShardingsThroughTheModulesMesh) {
  Result<EntryShardings> entry = Read(R"(
module @jit_f {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {"x"}]>})
      -> (tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", "y"}, {}]>}) {
    return %arg0 : tensor<8x4xf32>
  }
})");
  // 4 partitions: the mesh's device count.
  ASSERT_NO_FATAL_FAILURE(
      ExpectShardings(entry, 4, {"{devices=[2,2]0,2,1,3}"}, {"{devices=[4,1]<=[4]}"}));
  EXPECT_EQ(entry->meshes.count("mesh"), 1u);
}

// XLA's round-trip form: meshes in the module's xla.sdy.meshes, an
// argument's sharding in its xla.sdy.sharding, a result's on the
// FuncResultSharding call that returns it.
TEST(EntryShardingsTest, ReadsXlaSdyRoundTripShardings) {
  Result<EntryShardings> entry = Read(R"(
module attributes {mhlo.frontend_attributes = {xla.sdy.meshes = "{a = #sdy.mesh<[\"x\"=2, \"y\"=4]>, b = #sdy.mesh<[\"z\"=2]>}"}} {
  func.func @main(%arg0: tensor<4x8xf32> {mhlo.frontend_attributes = {xla.sdy.sharding = "#sdy.sharding<@a, [{\"x\"}, {\"y\"}]>"}},
                  %arg1: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
    %0 = stablehlo.custom_call @local_xla.sdy.FuncResultSharding(%arg1) {mhlo.frontend_attributes = {xla.sdy.sharding = "#sdy.sharding_per_value<[<@b, [{}, {\"z\"}]>]>"}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %arg0, %0 : tensor<4x8xf32>, tensor<4x8xf32>
  }
})");
  ASSERT_NO_FATAL_FAILURE(ExpectShardings(entry, 8, {"{devices=[2,4]<=[8]}", "none"},
                                          {"none", "{devices=[1,2]<=[2]}"}));
  EXPECT_EQ(entry->meshes.size(), 2u);
}

// Exports of early 2025 escaped the quotes inside these strings once more
// (the string holds \"x\"): read alike.
TEST(EntryShardingsTest, ReadsDoublyEscapedRoundTripShardings) {
  Result<EntryShardings> entry = Read(R"(
module attributes {mhlo.frontend_attributes = {xla.sdy.meshes = "{a = #sdy.mesh<[\\\22x\\\22=2, \\\22y\\\22=2]>}"}} {
  func.func @main(%arg0: tensor<4x8xf32> {mhlo.frontend_attributes = {xla.sdy.sharding = "#sdy.sharding<@a, [{\\\22y\\\22}, {}]>"}}) -> tensor<4x8xf32> {
    return %arg0 : tensor<4x8xf32>
  }
})");
  ExpectShardings(entry, 4, {"{devices=[2,1,2]0,2,1,3 last_tile_dim_replicate}"}, {"none"});
}

TEST(EntryShardingsTest, AnUnshardedModuleIsNotPartitioned) {
  Result<EntryShardings> entry = Read(R"(
func.func @main(%arg0: tensor<4xi32>) -> tensor<4xi32> {
  return %arg0 : tensor<4xi32>
})");
  ASSERT_TRUE(entry.ok()) << entry.status().ToString();
  EXPECT_EQ(entry->num_partitions, 1);
  EXPECT_FALSE(entry->IsPartitioned());
}

// Older JAX exports state no mhlo.num_partitions: the partition count is
// the most devices a GSPMD sharding names, on an entry value or on an op in
// a called function (a shard_map inside a jitted function), tuples too.
TEST(EntryShardingsTest, WithoutAPartitionCountTheShardingsDevicesGiveIt) {
  Result<EntryShardings> entry = Read(R"(
module @jit_wrapped {
  func.func public @main(%arg0: tensor<2x4xf32> {mhlo.sharding = "{replicated}"}) -> tensor<2x4xf32> {
    %0 = call @wrapped(%arg0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    return %0 : tensor<2x4xf32>
  }
  func.func private @wrapped(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> {
    %0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{devices=[2,1]0,1}"} : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %1 = stablehlo.custom_call @Sharding(%0) {mhlo.sharding = "{{replicated}, {devices=[1,3]0,2,1}}"} : (tensor<2x4xf32>) -> tensor<2x4xf32>
    return %1 : tensor<2x4xf32>
  }
})");
  ASSERT_TRUE(entry.ok()) << entry.status().ToString();
  EXPECT_EQ(entry->num_partitions, 3);

  // A stated count wins.
  entry = Read(R"(
module @stated attributes {mhlo.num_partitions = 8 : i32} {
  func.func public @main(%arg0: tensor<2x4xf32> {mhlo.sharding = "{devices=[2,1]0,1}"}) -> tensor<2x4xf32> {
    return %arg0 : tensor<2x4xf32>
  }
})");
  ASSERT_TRUE(entry.ok()) << entry.status().ToString();
  EXPECT_EQ(entry->num_partitions, 8);
}

TEST(EntryShardingsTest, ErrorsNameTheValue) {
  struct Case {
    const char* attrs;  // module attributes
    const char* arg;    // argument attributes
    const char* message;
  };
  const Case cases[] = {
      {"{mhlo.num_partitions = 2 : i32}", "{mhlo.sharding = \"{devices=[2]<=[2]}\"}",
       "@main argument 0: a sharding tiling 1 dimension(s) cannot lay out an array of rank 2"},
      {"{mhlo.num_partitions = 2 : i32}", "{mhlo.sharding = \"{devices=[4,1]<=[4]}\"}",
       "@main argument 0: device 3 is beyond the 2 partition(s)"},
      {"{mhlo.num_partitions = 2 : i32}", "{mhlo.sharding = \"{maximal device=2}\"}",
       "@main argument 0: device 2 is beyond the 2 partition(s)"},
      {"{mhlo.num_partitions = 2 : i32}", "{mhlo.sharding = \"{devices=[2,1]0,1\"}",
       "@main argument 0: GSPMD sharding at offset"},
      {"{mhlo.num_partitions = 2 : i32}", "{mhlo.sharding = 3 : i32}", "mhlo.sharding is not a string"},
      {"{mhlo.num_partitions = 2 : i32}", "{sdy.sharding = #sdy.sharding<@nowhere, [{}, {}]>}",
       "names mesh @nowhere, which the module lacks"},
      {"{mhlo.num_partitions = 0 : i32}", "{}", "num_partitions = 0 is out of range"},
      {"{}", "{sdy.sharding = #sdy.sharding<mesh<[\"x\"=2]>, [{\"x\"}]>}",
       "@main argument 0: sdy.sharding lists 1 dimension(s) for a value of type tensor<4x4xf32>"},
      // XLA's round-trip form.
      {"{mhlo.frontend_attributes = {xla.sdy.meshes = \"mesh = #sdy.mesh<[]>\"}}", "{}",
       "xla.sdy.meshes is not a {name = #sdy.mesh<...>, ...} dictionary"},
      {"{mhlo.frontend_attributes = {xla.sdy.meshes = \"{mesh #sdy.mesh<[]>}\"}}", "{}",
       "xla.sdy.meshes: expected name = #sdy.mesh<...>"},
      {"{mhlo.frontend_attributes = {xla.sdy.meshes = \"{m = #sdy.mesh<[\\\"x\\\"=0]>}\"}}", "{}",
       "xla.sdy.meshes: mesh m"},
      {"{mhlo.frontend_attributes = {xla.sdy.meshes = 3 : i32}}", "{}", "xla.sdy.meshes is not a string"},
      {"{mhlo.frontend_attributes = {xla.sdy.meshes = \"{m = #sdy.mesh<[\\\"x\\\"=2]>}\"}}",
       "{mhlo.frontend_attributes = {xla.sdy.sharding = \"#sdy.sharding<@other, [{}, {}]>\"}}",
       "@main argument 0: xla.sdy.sharding names mesh @other, which the module lacks"},
      {"{}", "{mhlo.frontend_attributes = {xla.sdy.sharding = \"#sdy.sharding_per_value<[]>\"}}",
       "@main argument 0: xla.sdy.sharding lists 0 sharding(s) for one value"},
  };
  for (const Case& c : cases) {
    std::string text = std::string("module attributes ") + c.attrs + " {\n  func.func @main(%arg0: tensor<4x4xf32> " +
                       c.arg + ") -> tensor<4x4xf32> {\n    return %arg0 : tensor<4x4xf32>\n  }\n}\n";
    Result<EntryShardings> entry = Read(text);
    ASSERT_FALSE(entry.ok()) << text;
    EXPECT_NE(entry.status().message().find(c.message), std::string::npos) << entry.status().message();
  }
}

}  // namespace
}  // namespace berth::spmd
