// gather from a table cut along the dimensions its indices pick (an
// embedding table cut by vocabulary): each device gathers the rows it holds
// and the parts are summed, with no gathering of the table. Indices are
// seeded random values in [-50, 50] for a table of 16 rows, so many fall
// outside it and must clamp as the unpartitioned gather clamps them; each
// program runs against the unpartitioned run.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "partitioned_run.hpp"

namespace berth {
namespace {

using spmd_testing::CollectivesIn;
using spmd_testing::ExpectPartitionedRunMatches;
using spmd_testing::PartitionedText;
using spmd_testing::RandomLiteral;

// A row-picking gather of [16, 8] f32 rows (`indices` [6, 1]), its table
// and indices laid out as given.
std::string RowGather(const std::string& table, const std::string& indices, const std::string& result) {
  return "module @embed attributes {mhlo.num_partitions = 4 : i32} {\n"
         "  func.func public @main(%t: tensor<16x8xf32> {mhlo.sharding = \"" + table +
         "\"}, %i: tensor<6x1xi32> {mhlo.sharding = \"" + indices + "\"}) -> (tensor<6x8xf32> {mhlo.sharding = \"" +
         result +
         "\"}) {\n"
         "    %r = \"stablehlo.gather\"(%t, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], "
         "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 8>} "
         ": (tensor<16x8xf32>, tensor<6x1xi32>) -> tensor<6x8xf32>\n"
         "    return %r : tensor<6x8xf32>\n  }\n}\n";
}

TEST(CutTableGatherTest, EachDeviceGathersItsRowsAndThePartsAreSummed) {
  struct Case {
    const char* name;
    std::string text;
    std::vector<std::pair<ElementType, std::vector<int64_t>>> arguments;
    std::map<std::string, int> collectives;
  };
  const Case cases[] = {
      // Vocabulary over 4 devices, the indices whole.
      {"vocabulary", RowGather("{devices=[4,1]<=[4]}", "{replicated}", "{replicated}"),
       {{ElementType::kF32, {16, 8}}, {ElementType::kS32, {6, 1}}}, {{"all_reduce", 1}}},
      // A 2x2 mesh: the batch over x, the vocabulary over y; the result
      // keeps the batch cut.
      {"batch_and_vocabulary",
       RowGather("{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}",
                 "{devices=[2,1,2]<=[4] last_tile_dim_replicate}", "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"),
       {{ElementType::kF32, {16, 8}}, {ElementType::kS32, {6, 1}}}, {{"all_reduce", 1}}},
      // The result wanted cut by columns: a reduce_scatter.
      {"result_by_columns", RowGather("{devices=[4,1]<=[4]}", "{replicated}", "{devices=[1,4]<=[4]}"),
       {{ElementType::kF32, {16, 8}}, {ElementType::kS32, {6, 1}}}, {{"reduce_scatter", 1}}},
      // Single elements: both components index, only the first dimension
      // is cut (the second component clamps as it would whole).
      {"elements",
       "module @pick attributes {mhlo.num_partitions = 4 : i32} {\n"
       "  func.func public @main(%t: tensor<16x8xi32> {mhlo.sharding = \"{devices=[4,1]<=[4]}\"}, "
       "%i: tensor<5x2xi32>) -> tensor<5xi32> {\n"
       "    %r = \"stablehlo.gather\"(%t, %i) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], "
       "start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>} "
       ": (tensor<16x8xi32>, tensor<5x2xi32>) -> tensor<5xi32>\n"
       "    return %r : tensor<5xi32>\n  }\n}\n",
       {{ElementType::kS32, {16, 8}}, {ElementType::kS32, {5, 2}}}, {{"all_reduce", 1}}},
      // The index vector implicit (index_vector_dim = rank), columns cut.
      {"implicit_vector_columns",
       "module @columns attributes {mhlo.num_partitions = 4 : i32} {\n"
       "  func.func public @main(%t: tensor<6x16xi32> {mhlo.sharding = \"{devices=[1,4]<=[4]}\"}, "
       "%i: tensor<3xi32>) -> tensor<6x3xi32> {\n"
       "    %r = \"stablehlo.gather\"(%t, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [0], "
       "collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 6, 1>} "
       ": (tensor<6x16xi32>, tensor<3xi32>) -> tensor<6x3xi32>\n"
       "    return %r : tensor<6x3xi32>\n  }\n}\n",
       {{ElementType::kS32, {6, 16}}, {ElementType::kS32, {3}}}, {{"all_reduce", 1}}},
  };
  std::mt19937_64 rng(164);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string partitioned = PartitionedText(c.text);
    SCOPED_TRACE(partitioned);
    EXPECT_EQ(CollectivesIn(partitioned), c.collectives);
    for (int trial = 0; trial < 3; ++trial) {
      std::vector<testing::Literal> args;
      for (const auto& [type, dims] : c.arguments) args.push_back(RandomLiteral(type, dims, rng));
      ExpectPartitionedRunMatches(c.text, args);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// A table smaller than the rows asked of it is gathered whole instead
// (one all_gather, no sum).
TEST(CutTableGatherTest, ASmallTableIsGatheredWholeInstead) {
  const std::string text =
      "module @small attributes {mhlo.num_partitions = 4 : i32} {\n"
      "  func.func public @main(%t: tensor<4x2xf32> {mhlo.sharding = \"{devices=[4,1]<=[4]}\"}, "
      "%i: tensor<32x1xi32>) -> tensor<32x2xf32> {\n"
      "    %r = \"stablehlo.gather\"(%t, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], "
      "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 2>} "
      ": (tensor<4x2xf32>, tensor<32x1xi32>) -> tensor<32x2xf32>\n"
      "    return %r : tensor<32x2xf32>\n  }\n}\n";
  const std::string partitioned = PartitionedText(text);
  EXPECT_EQ(CollectivesIn(partitioned), (std::map<std::string, int>{{"all_gather", 1}})) << partitioned;
  std::mt19937_64 rng(165);
  ExpectPartitionedRunMatches(text, {RandomLiteral(ElementType::kF32, {4, 2}, rng),
                                     RandomLiteral(ElementType::kS32, {32, 1}, rng)});
}

}  // namespace
}  // namespace berth
