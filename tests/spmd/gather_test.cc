// gather from a table cut along the dimensions its indices pick (an
// embedding table cut by vocabulary), and dynamic_slice of one element
// along a cut dimension: each device takes the rows it holds and the parts
// are summed, with no gathering of the table. Indices are
// seeded random values in [-50, 50] for a table of 16 rows, so many fall
// outside it and must clamp as the unpartitioned gather clamps them; each
// program runs against the unpartitioned run.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "partitioned_run.hpp"

// In the harness's namespace: its helpers need no using-declarations.
namespace berth::spmd_testing {
namespace {

// `text` partitions with `collectives`, and its runs on `trials` sets of
// arguments from `arguments` match the unpartitioned runs.
void ExpectCollectivesAndRunsMatch(const std::string& text, const std::map<std::string, int>& collectives,
                                   int trials, const std::function<std::vector<testing::Literal>()>& arguments) {
  const std::string partitioned = PartitionedText(text);
  SCOPED_TRACE(partitioned);
  EXPECT_EQ(CollectivesIn(partitioned), collectives);
  for (int trial = 0; trial < trials; ++trial) {
    ExpectPartitionedRunMatches(text, arguments());
    if (::testing::Test::HasFatalFailure()) return;
  }
}

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
    ExpectCollectivesAndRunsMatch(c.text, c.collectives, 3, [&] {
      std::vector<testing::Literal> args;
      for (const auto& [type, dims] : c.arguments) args.push_back(RandomLiteral(type, dims, rng));
      return args;
    });
    if (::testing::Test::HasFatalFailure()) return;
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

// x[i] of an array cut along the picked dimension (dynamic_slice of size 1
// there): each device slices where the element lies and the parts are
// summed; starts are random in [-50, 50], so most clamp.
TEST(CutTableGatherTest, AnElementAlongACutDimensionIsSlicedWhereItLies) {
  auto slice_module = [](const std::string& x_type, const std::string& x_sharding, const std::string& sizes,
                         const std::string& result_type, const std::string& result_sharding) {
    return "module @pick attributes {mhlo.num_partitions = 4 : i32} {\n"
           "  func.func public @main(%x: " + x_type + " {mhlo.sharding = \"" + x_sharding +
           "\"}, %i: tensor<i32>, %j: tensor<i32>) -> (" + result_type + " {mhlo.sharding = \"" + result_sharding +
           "\"}) {\n"
           "    %r = stablehlo.dynamic_slice %x, %i, %j, sizes = [" + sizes + "] : (" + x_type + ", tensor<i32>, "
           "tensor<i32>) -> " + result_type + "\n    return %r : " + result_type + "\n  }\n}\n";
  };
  struct Case {
    const char* name;
    std::string text;
    std::vector<int64_t> dims;
    std::map<std::string, int> collectives;
  };
  const Case cases[] = {
      {"row", slice_module("tensor<16x8xi32>", "{devices=[4,1]<=[4]}", "1, 8", "tensor<1x8xi32>", "{replicated}"),
       {16, 8}, {{"all_reduce", 1}}},
      // Rows over x, columns over y: the columns stay cut over y.
      {"row_of_a_mesh", slice_module("tensor<8x6xi32>", "{devices=[2,2]<=[4]}", "1, 6", "tensor<1x6xi32>",
                                     "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}"),
       {8, 6}, {{"all_reduce", 1}}},
      {"row_wanted_by_columns",
       slice_module("tensor<16x8xi32>", "{devices=[4,1]<=[4]}", "1, 8", "tensor<1x8xi32>", "{devices=[1,4]<=[4]}"),
       {16, 8}, {{"reduce_scatter", 1}}},
      {"element", slice_module("tensor<16x8xi32>", "{devices=[4,1]<=[4]}", "1, 3", "tensor<1x3xi32>", "{replicated}"),
       {16, 8}, {{"all_reduce", 1}}},
  };
  std::mt19937_64 rng(167);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ExpectCollectivesAndRunsMatch(c.text, c.collectives, 4, [&] {
      return std::vector<testing::Literal>{RandomLiteral(ElementType::kS32, c.dims, rng),
                                           RandomLiteral(ElementType::kS32, {}, rng),
                                           RandomLiteral(ElementType::kS32, {}, rng)};
    });
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// The same inside a loop (acc += x[i] for i < 5, x cut by rows): one
// all_reduce per step, and x is never gathered.
TEST(CutTableGatherTest, RowsPickedInALoopStayWhereTheyLie) {
  const std::string text = R"(module @rows attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%x: tensor<16x8xi32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}, %i0: tensor<i32>) -> tensor<1x8xi32> {
    %z = stablehlo.constant dense<0> : tensor<1x8xi32>
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %r:3 = stablehlo.while(%n = %c0, %i = %i0, %acc = %z) : tensor<i32>, tensor<i32>, tensor<1x8xi32>
    cond {
      %five = stablehlo.constant dense<5> : tensor<i32>
      %p = stablehlo.compare LT, %n, %five : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %three = stablehlo.constant dense<3> : tensor<i32>
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %row = stablehlo.dynamic_slice %x, %i, %zero, sizes = [1, 8] : (tensor<16x8xi32>, tensor<i32>, tensor<i32>) -> tensor<1x8xi32>
      %sum = stablehlo.add %acc, %row : tensor<1x8xi32>
      %m = stablehlo.add %n, %one : tensor<i32>
      %j = stablehlo.add %i, %three : tensor<i32>
      stablehlo.return %m, %j, %sum : tensor<i32>, tensor<i32>, tensor<1x8xi32>
    }
    return %r#2 : tensor<1x8xi32>
  }
})";
  std::mt19937_64 rng(168);
  ExpectCollectivesAndRunsMatch(text, {{"all_reduce", 1}}, 4, [&] {
    return std::vector<testing::Literal>{RandomLiteral(ElementType::kS32, {16, 8}, rng),
                                         RandomLiteral(ElementType::kS32, {}, rng)};
  });
}

}  // namespace
}  // namespace berth::spmd_testing
