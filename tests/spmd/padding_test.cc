// Dimensions that do not divide evenly (10 rows over 4 devices: 3, 3, 3 and
// 1 real rows, each shard holding 3): the shards are padded, elementwise
// ops, transposes, dot_generals and reduces work on them in place, and the
// padding is masked (a select on partition_id-indexed bounds) wherever an
// op would leave anything but zero there, or where a reduction must see
// its identity. Each program runs against the unpartitioned run on seeded
// random inputs; the harness also checks that every result's padding is
// zero.
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

// How many times `op` ("stablehlo.select") is written in `text`.
int Count(const std::string& text, const std::string& op) {
  int count = 0;
  const std::string quoted = "\"" + op + "\"";
  for (size_t at = text.find(quoted); at != std::string::npos; at = text.find(quoted, at + 1)) ++count;
  return count;
}

struct Argument {
  const char* type;  // "tensor<10x6xf32>"
  const char* sharding;
  ElementType element;
  std::vector<int64_t> dims;
};

std::string Module(const std::vector<Argument>& arguments, const std::string& result_type,
                   const std::string& result_sharding, const std::string& body) {
  std::string signature;
  for (size_t i = 0; i < arguments.size(); ++i) {
    signature += std::string(i ? ", " : "") + "%a" + std::to_string(i) + ": " + arguments[i].type +
                 " {mhlo.sharding = \"" + arguments[i].sharding + "\"}";
  }
  return "module @padded attributes {mhlo.num_partitions = 4 : i32} {\n  func.func public @main(" + signature +
         ") -> (" + result_type + " {mhlo.sharding = \"" + result_sharding + "\"}) {\n" + body +
         "    return %r : " + result_type + "\n  }\n}\n";
}

TEST(PaddingTest, UnevenShardsStayCutAndMatchTheUnpartitionedRun) {
  struct Case {
    const char* name;
    std::vector<Argument> arguments;
    const char* result_type;
    const char* result_sharding;
    const char* body;
    std::map<std::string, int> collectives;
    int selects;  // masks written
  };
  const Case cases[] = {
      // exp's padding is 1: masked; add keeps zeros; the dot's padding rows
      // (zeros times the other side) are masked; the max over whole rows
      // reduces padding rows to -inf: masked.
      {"rows_chain",
       {{"tensor<10x6xf32>", "{devices=[4,1]<=[4]}", ElementType::kF32, {10, 6}},
        {"tensor<6x5xf32>", "{replicated}", ElementType::kF32, {6, 5}}},
       "tensor<10xf32>", "{devices=[4]<=[4]}",
       "    %e = stablehlo.exponential %a0 : tensor<10x6xf32>\n"
       "    %s = stablehlo.add %e, %a0 : tensor<10x6xf32>\n"
       "    %d = stablehlo.dot_general %s, %a1, contracting_dims = [1] x [0] : (tensor<10x6xf32>, "
       "tensor<6x5xf32>) -> tensor<10x5xf32>\n"
       "    %i = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
       "    %r = stablehlo.reduce(%d init: %i) applies stablehlo.maximum across dimensions = [1] : "
       "(tensor<10x5xf32>, tensor<f32>) -> tensor<10xf32>\n",
       {}, 3},
      // A contracting dimension of 10 over 4 devices on both sides: zero
      // padding adds nothing; one all_reduce.
      {"contracting",
       {{"tensor<8x10xi32>", "{devices=[1,4]<=[4]}", ElementType::kS32, {8, 10}},
        {"tensor<10x6xi32>", "{devices=[4,1]<=[4]}", ElementType::kS32, {10, 6}}},
       "tensor<8x6xi32>", "{replicated}",
       "    %r = stablehlo.dot_general %a0, %a1, contracting_dims = [1] x [0] : (tensor<8x10xi32>, "
       "tensor<10x6xi32>) -> tensor<8x6xi32>\n",
       {{"all_reduce", 1}}, 0},
      // A max over a cut dimension of 10 of values all below zero: the
      // padding takes the init (the smallest i32) before the local reduce,
      // or zero padding would win.
      {"max_of_negatives",
       {{"tensor<6x10xi32>", "{devices=[1,4]<=[4]}", ElementType::kS32, {6, 10}}},
       "tensor<6xi32>", "{replicated}",
       "    %c = stablehlo.constant dense<100> : tensor<6x10xi32>\n"
       "    %n = stablehlo.subtract %a0, %c : tensor<6x10xi32>\n"
       "    %i = stablehlo.constant dense<-2147483648> : tensor<i32>\n"
       "    %r = stablehlo.reduce(%n init: %i) applies stablehlo.maximum across dimensions = [1] : "
       "(tensor<6x10xi32>, tensor<i32>) -> tensor<6xi32>\n",
       {{"all_reduce", 1}}, 1},
      // A transpose carries the cut and its padding to the other dimension.
      {"transpose",
       {{"tensor<10x6xi32>", "{devices=[4,1]<=[4]}", ElementType::kS32, {10, 6}}},
       "tensor<6x10xi32>", "{devices=[1,4]<=[4]}",
       "    %m = stablehlo.multiply %a0, %a0 : tensor<10x6xi32>\n"
       "    %r = stablehlo.transpose %m, dims = [1, 0] : (tensor<10x6xi32>) -> tensor<6x10xi32>\n",
       {}, 0},
      // 2 rows over 4 devices: two devices hold only padding.
      {"mostly_padding",
       {{"tensor<2x9xf32>", "{devices=[4,1]<=[4]}", ElementType::kF32, {2, 9}}},
       "tensor<2x9xf32>", "{devices=[4,1]<=[4]}",
       "    %l = stablehlo.logistic %a0 : tensor<2x9xf32>\n"
       "    %r = stablehlo.negate %l : tensor<2x9xf32>\n",
       {}, 2},
      // A padded vector broadcast along rows, then added: padding stays
      // zero, no mask.
      {"broadcast",
       {{"tensor<10xi32>", "{devices=[4]<=[4]}", ElementType::kS32, {10}},
        {"tensor<10x5xi32>", "{devices=[4,1]<=[4]}", ElementType::kS32, {10, 5}}},
       "tensor<10x5xi32>", "{devices=[4,1]<=[4]}",
       "    %b = stablehlo.broadcast_in_dim %a0, dims = [0] : (tensor<10xi32>) -> tensor<10x5xi32>\n"
       "    %r = stablehlo.add %b, %a1 : tensor<10x5xi32>\n",
       {}, 0},
      // A size-1 dimension cut over 4 devices (three hold only padding)
      // stretched by a broadcast: gathered first, never replicated padding.
      {"stretched",
       {{"tensor<1x6xi32>", "{devices=[4,1]<=[4]}", ElementType::kS32, {1, 6}}},
       "tensor<3x6xi32>", "{replicated}",
       "    %r = stablehlo.broadcast_in_dim %a0, dims = [0, 1] : (tensor<1x6xi32>) -> tensor<3x6xi32>\n",
       {{"all_gather", 1}}, 0},
      // Both dimensions uneven on a 2x2 mesh.
      {"mesh",
       {{"tensor<5x7xf32>", "{devices=[2,2]<=[4]}", ElementType::kF32, {5, 7}}},
       "tensor<5x7xf32>", "{devices=[2,2]<=[4]}",
       "    %r = stablehlo.cosine %a0 : tensor<5x7xf32>\n",
       {}, 1},
  };
  std::mt19937_64 rng(163);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string text = Module(c.arguments, c.result_type, c.result_sharding, c.body);
    const std::string partitioned = PartitionedText(text);
    SCOPED_TRACE(partitioned);
    EXPECT_EQ(CollectivesIn(partitioned), c.collectives);
    EXPECT_EQ(Count(partitioned, "stablehlo.select"), c.selects);
    std::vector<testing::Literal> args;
    for (const Argument& argument : c.arguments) args.push_back(RandomLiteral(argument.element, argument.dims, rng));
    ExpectPartitionedRunMatches(text, args);
  }
}

}  // namespace
}  // namespace berth
