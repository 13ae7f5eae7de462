// Moving a value between layouts: each move the planner picks (an
// all_to_all, a collective_permute, all-gathers along some dimensions, a
// reduce_scatter in place of an all-reduce) is checked by the collectives
// the partitioned program holds and, on seeded random inputs, against the
// unpartitioned run (integers exactly).
#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "partitioned_run.hpp"

namespace berth {
namespace {

using spmd_testing::CollectivesIn;
using spmd_testing::ExpectPartitionedRunMatches;
using spmd_testing::LineOf;
using spmd_testing::PartitionedText;
using spmd_testing::RandomLiteral;

// The dimensions of a tensor type's text ("tensor<16x8xi32>").
std::vector<int64_t> DimsOf(const std::string& type) {
  std::vector<int64_t> dims;
  for (size_t at = type.find('<') + 1; std::isdigit(static_cast<unsigned char>(type[at]));) {
    size_t end = 0;
    dims.push_back(std::stoll(type.substr(at), &end));
    at += end + 1;  // past the 'x'
  }
  return dims;
}

// An argument laid out as `from`, negated, then constrained to `to` (and
// returned so): the constraint moves the value, and nothing else does.
TEST(ReshardTest, EachMoveUsesTheCollectiveThatSendsLeast) {
  struct Case {
    const char* name;
    const char* from;
    const char* to;
    std::map<std::string, int> collectives;
    bool slices;  // whether a dynamic_slice follows the collectives
  };
  const Case cases[] = {
      // A cut moving between dimensions: each device keeps a quarter of
      // its rows and receives three quarters of a column part.
      {"rows_to_columns", "{devices=[4,1]<=[4]}", "{devices=[1,4]<=[4]}", {{"all_to_all", 1}}, false},
      {"columns_to_rows", "{devices=[1,4]<=[4]}", "{devices=[4,1]<=[4]}", {{"all_to_all", 1}}, false},
      // The column cut of a 2x2 mesh moved onto the rows.
      {"mesh_to_rows", "{devices=[2,2]<=[4]}", "{devices=[4,1]<=[4]}", {{"all_to_all", 1}}, false},
      // Rows over x, replicated over y, to columns over x: within each
      // replica group.
      {"replicated_rows_to_columns", "{devices=[2,1,2]<=[4] last_tile_dim_replicate}",
       "{devices=[1,2,2]<=[4] last_tile_dim_replicate}", {{"all_to_all", 1}}, false},
      // The same parts on other devices: one shard moves.
      {"reversed_devices", "{devices=[4,1]0,1,2,3}", "{devices=[4,1]3,2,1,0}", {{"collective_permute", 1}}, false},
      {"transposed_mesh", "{devices=[2,2]<=[4]}", "{devices=[2,2]<=[2,2]T(1,0)}", {{"collective_permute", 1}},
       false},
      // A mesh axis dropped: one all_gather along it, no slice.
      {"drop_columns", "{devices=[2,2]<=[4]}", "{devices=[2,1,2]<=[4] last_tile_dim_replicate}",
       {{"all_gather", 1}}, false},
      {"drop_rows", "{devices=[2,2]<=[4]}", "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}",
       {{"all_gather", 1}}, false},
      // Quarters to halves held by other devices: one gather, then each
      // device slices its half.
      {"quarters_to_halves", "{devices=[4,1]<=[4]}", "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}",
       {{"all_gather", 1}}, true},
      // Nothing cheaper holds: gathered along both cut dimensions, sliced.
      {"mesh_to_columns", "{devices=[2,2]<=[4]}", "{devices=[1,4]<=[4]}", {{"all_gather", 2}}, true},
      // A local slice: no collective.
      {"halves_to_quarters", "{devices=[2,1,2]<=[4] last_tile_dim_replicate}", "{devices=[4,1]<=[4]}", {}, true},
  };
  std::mt19937_64 rng(160);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string t = "tensor<16x12xi32>";
    const std::string text = std::string("module @") + c.name +
                             " attributes {mhlo.num_partitions = 4 : i32} {\n"
                             "  func.func public @main(%a: " + t + " {mhlo.sharding = \"" + c.from +
                             "\"}) -> (" + t + " {mhlo.sharding = \"" + c.to +
                             "\"}) {\n"
                             "    %0 = stablehlo.negate %a : " + t +
                             "\n"
                             "    %1 = stablehlo.custom_call @Sharding(%0) {mhlo.sharding = \"" + c.to +
                             "\"} : (" + t + ") -> " + t +
                             "\n"
                             "    return %1 : " + t + "\n  }\n}\n";
    const std::string partitioned = PartitionedText(text);
    SCOPED_TRACE(partitioned);
    EXPECT_EQ(CollectivesIn(partitioned), c.collectives);
    EXPECT_EQ(!LineOf(partitioned, "stablehlo.dynamic_slice").empty(), c.slices);
    ExpectPartitionedRunMatches(text, {RandomLiteral(ElementType::kS32, {16, 12}, rng)});
  }
}

// Layouts that do not cut evenly take the general move (gather whole, cut
// the new part, padded) and still match the unpartitioned run.
TEST(ReshardTest, UnevenLayoutsGatherWholeAndMatch) {
  const char* moves[][2] = {
      {"{devices=[4,1]<=[4]}", "{devices=[1,4]<=[4]}"},
      {"{devices=[1,4]<=[4]}", "{devices=[4,1]3,2,1,0}"},
      {"{devices=[4,1]0,1,2,3}", "{devices=[4,1]3,2,1,0}"},
  };
  std::mt19937_64 rng(161);
  for (const auto& [from, to] : moves) {
    SCOPED_TRACE(std::string(from) + " -> " + to);
    const std::string t = "tensor<10x6xi32>";
    const std::string text = std::string("module @uneven attributes {mhlo.num_partitions = 4 : i32} {\n"
                                         "  func.func public @main(%a: ") +
                             t + " {mhlo.sharding = \"" + from + "\"}) -> (" + t + " {mhlo.sharding = \"" + to +
                             "\"}) {\n    %0 = stablehlo.negate %a : " + t + "\n    return %0 : " + t + "\n  }\n}\n";
    const std::string partitioned = PartitionedText(text);
    SCOPED_TRACE(partitioned);
    EXPECT_EQ(CollectivesIn(partitioned).count("all_to_all"), 0u);
    EXPECT_EQ(CollectivesIn(partitioned).count("collective_permute"), 0u);
    ExpectPartitionedRunMatches(text, {RandomLiteral(ElementType::kS32, {10, 6}, rng)});
  }
}

// A split contracting (or reduced) dimension whose result a later use
// wants cut: one reduce_scatter leaves each device its part of the sum,
// and no all_reduce is written.
TEST(ReshardTest, PartialSumsWantedCutAreReduceScattered) {
  struct Case {
    const char* name;
    int partitions;
    const char* body;  // computes %r from %a and %b
    const char* a_type;
    const char* a_sharding;
    const char* b_type;
    const char* b_sharding;
    const char* result_type;
    const char* result_sharding;
    std::map<std::string, int> collectives;
  };
  // The contracting dimension over 4 devices on both sides; the result
  // wanted cut by rows or by columns.
  const char* dot =
      "    %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<16x32xi32>, "
      "tensor<32x8xi32>) -> tensor<16x8xi32>\n";
  const Case cases[] = {
      {"dot_rows", 4, dot, "tensor<16x32xi32>", "{devices=[1,4]<=[4]}", "tensor<32x8xi32>", "{devices=[4,1]<=[4]}",
       "tensor<16x8xi32>", "{devices=[4,1]<=[4]}", {{"reduce_scatter", 1}}},
      {"dot_columns", 4, dot, "tensor<16x32xi32>", "{devices=[1,4]<=[4]}", "tensor<32x8xi32>",
       "{devices=[4,1]<=[4]}", "tensor<16x8xi32>", "{devices=[1,4]<=[4]}", {{"reduce_scatter", 1}}},
      // A 2x2 mesh: rows over x, the contracting dimension over y; the
      // result's columns over y.
      {"dot_mesh", 4,
       "    %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<16x16xi32>, "
       "tensor<16x8xi32>) -> tensor<16x8xi32>\n",
       "tensor<16x16xi32>", "{devices=[2,2]<=[4]}", "tensor<16x8xi32>",
       "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}", "tensor<16x8xi32>", "{devices=[2,2]<=[4]}",
       {{"reduce_scatter", 1}}},
      // The sum's part kept rather than replicated, then used.
      {"reduce_max", 4,
       "    %i = stablehlo.constant dense<-2147483648> : tensor<i32>\n"
       "    %m = stablehlo.reduce(%a init: %i) applies stablehlo.maximum across dimensions = [1] : "
       "(tensor<16x12xi32>, tensor<i32>) -> tensor<16xi32>\n"
       "    %r = stablehlo.add %m, %b : tensor<16xi32>\n",
       "tensor<16x12xi32>", "{devices=[1,4]<=[4]}", "tensor<16xi32>", "{devices=[4]<=[4]}", "tensor<16xi32>",
       "{devices=[4]<=[4]}", {{"reduce_scatter", 1}}},
      {"reduce_add_two_devices", 2,
       "    %i = stablehlo.constant dense<0> : tensor<i32>\n"
       "    %r = stablehlo.reduce(%a init: %i) applies stablehlo.add across dimensions = [0] : "
       "(tensor<16x12xi32>, tensor<i32>) -> tensor<12xi32>\n",
       "tensor<16x12xi32>", "{devices=[2,1]<=[2]}", "tensor<12xi32>", "{replicated}", "tensor<12xi32>",
       "{devices=[2]<=[2]}", {{"reduce_scatter", 1}}},
  };
  std::mt19937_64 rng(162);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string text = std::string("module @") + c.name + " attributes {mhlo.num_partitions = " +
                             std::to_string(c.partitions) + " : i32} {\n  func.func public @main(%a: " + c.a_type +
                             " {mhlo.sharding = \"" + c.a_sharding + "\"}, %b: " + c.b_type +
                             " {mhlo.sharding = \"" + c.b_sharding + "\"}) -> (" + c.result_type +
                             " {mhlo.sharding = \"" + c.result_sharding + "\"}) {\n" + c.body + "    return %r : " +
                             c.result_type + "\n  }\n}\n";
    const std::string partitioned = PartitionedText(text);
    SCOPED_TRACE(partitioned);
    EXPECT_EQ(CollectivesIn(partitioned), c.collectives);
    std::vector<testing::Literal> args;
    for (const char* type : {c.a_type, c.b_type}) args.push_back(RandomLiteral(ElementType::kS32, DimsOf(type), rng));
    ExpectPartitionedRunMatches(text, args);
  }
}

// A loop whose body uses a value from outside in another layout than it
// has (columns against the carried rows): the move is written once, before
// the loop, not on every iteration; inside a nested loop, before the
// outermost loop.
TEST(ReshardTest, LoopInvariantMovesAreWrittenBeforeTheLoop) {
  const std::string t = "tensor<16x8xi32>";
  // A loop of 3 steps carrying %v<tag> (from `carried`); `body` defines
  // %t<tag>, the next value, and %r<tag>#1 is the loop's result.
  auto loop = [&](const std::string& indent, const std::string& tag, const std::string& carried,
                  const std::string& body) {
    return indent + "%c" + tag + " = stablehlo.constant dense<0> : tensor<i32>\n" + indent + "%r" + tag +
           ":2 = stablehlo.while(%i" + tag + " = %c" + tag + ", %v" + tag + " = " + carried + ") : tensor<i32>, " + t +
           "\n" + indent + "cond {\n" + indent + "  %n" + tag + " = stablehlo.constant dense<3> : tensor<i32>\n" +
           indent + "  %p" + tag + " = stablehlo.compare LT, %i" + tag + ", %n" + tag +
           " : (tensor<i32>, tensor<i32>) -> tensor<i1>\n" + indent + "  stablehlo.return %p" + tag +
           " : tensor<i1>\n" + indent + "} do {\n" + indent + "  %one" + tag +
           " = stablehlo.constant dense<1> : tensor<i32>\n" + indent + "  %j" + tag + " = stablehlo.add %i" + tag +
           ", %one" + tag + " : tensor<i32>\n" + body + indent + "  stablehlo.return %j" + tag + ", %t" + tag +
           " : tensor<i32>, " + t + "\n" + indent + "}\n";
  };
  auto step = [&](const std::string& tag) {
    return "      %m" + tag + " = stablehlo.multiply %v" + tag + ", %w : " + t + "\n      %t" + tag +
           " = stablehlo.add %m" + tag + ", %v" + tag + " : " + t + "\n";
  };
  const std::string inner = loop("      ", "1", "%v0", step("1")) + "      %t0 = stablehlo.negate %r1#1 : " + t + "\n";
  const std::pair<const char*, std::string> cases[] = {{"loop", loop("    ", "0", "%x", step("0"))},
                                                       {"nested", loop("    ", "0", "%x", inner)}};
  std::mt19937_64 rng(166);
  for (const auto& [name, body] : cases) {
    SCOPED_TRACE(name);
    const std::string text =
        "module @loop attributes {mhlo.num_partitions = 4 : i32} {\n"
        "  func.func public @main(%x: " + t + " {mhlo.sharding = \"{devices=[4,1]<=[4]}\"}, %w: " + t +
        " {mhlo.sharding = \"{devices=[1,4]<=[4]}\"}) -> (" + t + " {mhlo.sharding = \"{devices=[4,1]<=[4]}\"}) {\n" +
        body + "    return %r0#1 : " + t + "\n  }\n}\n";
    const std::string partitioned = PartitionedText(text);
    SCOPED_TRACE(partitioned);
    EXPECT_EQ(CollectivesIn(partitioned), (std::map<std::string, int>{{"all_to_all", 1}}));
    EXPECT_LT(partitioned.find("\"stablehlo.all_to_all\""), partitioned.find("\"stablehlo.while\""));
    ExpectPartitionedRunMatches(text, {RandomLiteral(ElementType::kS32, {16, 8}, rng),
                                       RandomLiteral(ElementType::kS32, {16, 8}, rng)});
  }
}

}  // namespace
}  // namespace berth
