// The SPMD partitioner, differentially: each program runs once unpartitioned
// on one device, and once partitioned over 2 or 4 devices with each argument
// split by its sharding; the shards the devices return, put together by
// their result shardings, must equal the unpartitioned results (integers
// exactly, floats within rounding: a split contracting dimension sums in
// another order). Inputs are seeded random values; shapes are chosen so
// that some shardings divide and some do not (10 rows over 4 devices).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <numeric>
#include <random>
#include <sstream>

#include "berth/spmd/partitioner.hpp"
#include "berth/stablehlo/parser.hpp"
#include "partitioned_run.hpp"
#include "program_runner.hpp"
#include "test_util.hpp"
#include "layer_stack_module.hpp"
#include "temp_dir.hpp"

namespace berth {
namespace {

using spmd_testing::CollectivesIn;
using spmd_testing::ExpectPartitionedRunGives;
using spmd_testing::ExpectPartitionedRunMatches;
using spmd_testing::LineOf;
using spmd_testing::RandomLiteral;
using spmd_testing::ShardingsFor;
using testing::Literal;
namespace shlo = berth::stablehlo;

struct Value {
  ElementType type;
  std::vector<int64_t> dims;
};

std::string TypeText(const Value& value) {
  std::string text = "tensor<";
  for (int64_t d : value.dims) text += std::to_string(d) + "x";
  return text + (value.type == ElementType::kF32 ? "f32>" : "i32>");
}

struct Program {
  const char* name;
  std::vector<Value> args;
  std::vector<Value> results;
  const char* body;  // uses %a0, %a1, ...; ends with a return
};

const Program kPrograms[] = {
    {"add", {{ElementType::kF32, {10, 6}}, {ElementType::kF32, {10, 6}}}, {{ElementType::kF32, {10, 6}}},
     "%0 = stablehlo.add %a0, %a1 : tensor<10x6xf32>\n return %0 : tensor<10x6xf32>"},
    {"dot", {{ElementType::kF32, {10, 8}}, {ElementType::kF32, {8, 6}}}, {{ElementType::kF32, {10, 6}}},
     "%0 = stablehlo.dot_general %a0, %a1, contracting_dims = [1] x [0] : (tensor<10x8xf32>, tensor<8x6xf32>) -> "
     "tensor<10x6xf32>\n return %0 : tensor<10x6xf32>"},
    {"reduce_rows", {{ElementType::kS32, {10, 8}}}, {{ElementType::kS32, {10}}},
     "%z = stablehlo.constant dense<0> : tensor<i32>\n"
     " %0 = stablehlo.reduce(%a0 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<10x8xi32>, "
     "tensor<i32>) -> tensor<10xi32>\n return %0 : tensor<10xi32>"},
    {"transpose_broadcast", {{ElementType::kS32, {6, 10}}, {ElementType::kS32, {6}}},
     {{ElementType::kS32, {10, 6}}, {ElementType::kS32, {6}}},
     "%t = stablehlo.transpose %a0, dims = [1, 0] : (tensor<6x10xi32>) -> tensor<10x6xi32>\n"
     " %b = stablehlo.broadcast_in_dim %a1, dims = [1] : (tensor<6xi32>) -> tensor<10x6xi32>\n"
     " %0 = stablehlo.multiply %t, %b : tensor<10x6xi32>\n"
     " %1 = stablehlo.negate %a1 : tensor<6xi32>\n return %0, %1 : tensor<10x6xi32>, tensor<6xi32>"},
    {"mlp", {{ElementType::kF32, {10, 8}}, {ElementType::kF32, {8, 6}}, {ElementType::kF32, {6}}},
     {{ElementType::kF32, {10, 6}}},
     "%0 = stablehlo.dot_general %a0, %a1, contracting_dims = [1] x [0] : (tensor<10x8xf32>, tensor<8x6xf32>) -> "
     "tensor<10x6xf32>\n"
     " %1 = stablehlo.broadcast_in_dim %a2, dims = [1] : (tensor<6xf32>) -> tensor<10x6xf32>\n"
     " %2 = stablehlo.add %0, %1 : tensor<10x6xf32>\n"
     " %3 = stablehlo.tanh %2 : tensor<10x6xf32>\n return %3 : tensor<10x6xf32>"},
    {"concatenate_slice", {{ElementType::kS32, {4, 6}}, {ElementType::kS32, {6, 6}}}, {{ElementType::kS32, {8, 6}}},
     "%0 = stablehlo.concatenate %a0, %a1, dim = 0 : (tensor<4x6xi32>, tensor<6x6xi32>) -> tensor<10x6xi32>\n"
     " %1 = stablehlo.slice %0 [1:9, 0:6] : (tensor<10x6xi32>) -> tensor<8x6xi32>\n return %1 : tensor<8x6xi32>"},
    // Reshapes that split, merge and flatten dimensions, and one that
    // drops a leading 1.
    {"reshapes", {{ElementType::kS32, {8, 6}}, {ElementType::kS32, {1, 8, 6}}},
     {{ElementType::kS32, {4, 12}}, {ElementType::kS32, {48}}, {ElementType::kS32, {8, 6}}},
     "%0 = stablehlo.reshape %a0 : (tensor<8x6xi32>) -> tensor<2x4x6xi32>\n"
     " %1 = stablehlo.negate %0 : tensor<2x4x6xi32>\n"
     " %2 = stablehlo.reshape %1 : (tensor<2x4x6xi32>) -> tensor<4x12xi32>\n"
     " %3 = stablehlo.reshape %a0 : (tensor<8x6xi32>) -> tensor<48xi32>\n"
     " %4 = stablehlo.reshape %a1 : (tensor<1x8x6xi32>) -> tensor<8x6xi32>\n"
     " %5 = stablehlo.add %4, %a0 : tensor<8x6xi32>\n"
     " return %2, %3, %5 : tensor<4x12xi32>, tensor<48xi32>, tensor<8x6xi32>"},
    // Slices and pads that leave some dimensions whole (those keep their
    // cuts) and change others.
    {"slice_pad", {{ElementType::kS32, {8, 6}}}, {{ElementType::kS32, {8, 10}}, {ElementType::kS32, {4, 6}},
                                                   {ElementType::kS32, {10, 6}}},
     "%0 = stablehlo.slice %a0 [0:8, 1:5] : (tensor<8x6xi32>) -> tensor<8x4xi32>\n"
     " %z = stablehlo.constant dense<7> : tensor<i32>\n"
     " %1 = stablehlo.pad %0, %z, low = [0, 1], high = [0, 2], interior = [0, 1] : (tensor<8x4xi32>, tensor<i32>) "
     "-> tensor<8x10xi32>\n"
     " %2 = stablehlo.slice %a0 [0:8:2, 0:6] : (tensor<8x6xi32>) -> tensor<4x6xi32>\n"
     " %3 = stablehlo.pad %a0, %z, low = [2, 0], high = [0, 0], interior = [0, 0] : (tensor<8x6xi32>, tensor<i32>) "
     "-> tensor<10x6xi32>\n"
     " return %1, %2, %3 : tensor<8x10xi32>, tensor<4x6xi32>, tensor<10x6xi32>"},
    {"concatenate_columns", {{ElementType::kF32, {8, 4}}, {ElementType::kF32, {8, 2}}, {ElementType::kF32, {8, 6}}},
     {{ElementType::kF32, {8, 6}}},
     "%0 = stablehlo.concatenate %a0, %a1, dim = 1 : (tensor<8x4xf32>, tensor<8x2xf32>) -> tensor<8x6xf32>\n"
     " %1 = stablehlo.multiply %0, %a2 : tensor<8x6xf32>\n return %1 : tensor<8x6xf32>"},
    {"elementwise_chain", {{ElementType::kS32, {8, 6}}, {ElementType::kS32, {8, 6}}}, {{ElementType::kS32, {8, 6}}},
     "%c = stablehlo.compare GT, %a0, %a1 : (tensor<8x6xi32>, tensor<8x6xi32>) -> tensor<8x6xi1>\n"
     " %m = stablehlo.select %c, %a0, %a1 : tensor<8x6xi1>, tensor<8x6xi32>\n"
     " %s = stablehlo.multiply %m, %a1 : tensor<8x6xi32>\n"
     " %k = stablehlo.constant dense<3> : tensor<i32>\n"
     " %b = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<i32>) -> tensor<8x6xi32>\n"
     " %r = stablehlo.subtract %s, %b : tensor<8x6xi32>\n"
     " %lo = stablehlo.constant dense<-400> : tensor<i32>\n"
     " %hi = stablehlo.constant dense<900> : tensor<i32>\n"
     " %0 = \"stablehlo.clamp\"(%lo, %r, %hi) : (tensor<i32>, tensor<8x6xi32>, tensor<i32>) -> tensor<8x6xi32>\n"
     " return %0 : tensor<8x6xi32>"},
    {"batch_dot", {{ElementType::kF32, {4, 6, 8}}, {ElementType::kF32, {4, 8, 6}}}, {{ElementType::kF32, {4, 6, 6}}},
     "%0 = stablehlo.dot_general %a0, %a1, batching_dims = [0] x [0], contracting_dims = [2] x [1] : "
     "(tensor<4x6x8xf32>, tensor<4x8x6xf32>) -> tensor<4x6x6xf32>\n return %0 : tensor<4x6x6xf32>"},
    {"integer_dot_then_reduce", {{ElementType::kS32, {8, 12}}, {ElementType::kS32, {12, 4}}},
     {{ElementType::kS32, {8, 4}}, {ElementType::kS32, {4}}},
     "%0 = stablehlo.dot_general %a0, %a1, contracting_dims = [1] x [0] : (tensor<8x12xi32>, tensor<12x4xi32>) -> "
     "tensor<8x4xi32>\n"
     " %z = stablehlo.constant dense<0> : tensor<i32>\n"
     " %1 = stablehlo.reduce(%0 init: %z) applies stablehlo.add across dimensions = [0] : (tensor<8x4xi32>, "
     "tensor<i32>) -> tensor<4xi32>\n return %0, %1 : tensor<8x4xi32>, tensor<4xi32>"},
    {"square", {{ElementType::kF32, {8, 8}}}, {{ElementType::kF32, {8, 8}}},
     "%0 = stablehlo.dot_general %a0, %a0, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> "
     "tensor<8x8xf32>\n %1 = stablehlo.add %0, %a0 : tensor<8x8xf32>\n return %1 : tensor<8x8xf32>"},
    // A maximum from -inf combines across devices; a sum from 5 must not
    // (5 would be added once per device).
    {"reduce_identities", {{ElementType::kF32, {8, 6}}}, {{ElementType::kF32, {6}}, {ElementType::kF32, {8}}},
     "%ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
     " %m = stablehlo.reduce(%a0 init: %ninf) applies stablehlo.maximum across dimensions = [0] : "
     "(tensor<8x6xf32>, tensor<f32>) -> tensor<6xf32>\n"
     " %five = stablehlo.constant dense<5.0> : tensor<f32>\n"
     " %s = stablehlo.reduce(%a0 init: %five) applies stablehlo.add across dimensions = [0, 1] : "
     "(tensor<8x6xf32>, tensor<f32>) -> tensor<f32>\n"
     " %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<6xf32>\n"
     " %r = stablehlo.add %m, %b : tensor<6xf32>\n"
     " %zero = stablehlo.constant dense<0.0> : tensor<f32>\n"
     " %rows = stablehlo.reduce(%a0 init: %zero) applies stablehlo.add across dimensions = [1] : "
     "(tensor<8x6xf32>, tensor<f32>) -> tensor<8xf32>\n"
     " return %r, %rows : tensor<6xf32>, tensor<8xf32>"},
    {"argmax_rows", {{ElementType::kS32, {10, 6}}}, {{ElementType::kS32, {10}}, {ElementType::kS32, {10}}},
     "%iota = stablehlo.iota dim = 1 : tensor<10x6xi32>\n"
     " %iv = stablehlo.constant dense<-2147483648> : tensor<i32>\n"
     " %ii = stablehlo.constant dense<0> : tensor<i32>\n"
     " %r:2 = \"stablehlo.reduce\"(%a0, %iota, %iv, %ii) ({\n"
     " ^bb0(%av: tensor<i32>, %ai: tensor<i32>, %bv: tensor<i32>, %bi: tensor<i32>):\n"
     "  %gt = stablehlo.compare GT, %av, %bv : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
     "  %eq = stablehlo.compare EQ, %av, %bv : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
     "  %lt = stablehlo.compare LT, %ai, %bi : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
     "  %tie = stablehlo.and %eq, %lt : tensor<i1>\n"
     "  %take = stablehlo.or %gt, %tie : tensor<i1>\n"
     "  %v = stablehlo.select %take, %av, %bv : tensor<i1>, tensor<i32>\n"
     "  %i = stablehlo.select %take, %ai, %bi : tensor<i1>, tensor<i32>\n"
     "  stablehlo.return %v, %i : tensor<i32>, tensor<i32>\n"
     " }) {dimensions = array<i64: 1>} : (tensor<10x6xi32>, tensor<10x6xi32>, tensor<i32>, tensor<i32>) -> "
     "(tensor<10xi32>, tensor<10xi32>)\n"
     " return %r#0, %r#1 : tensor<10xi32>, tensor<10xi32>"},
    {"sort_rows", {{ElementType::kS32, {10, 6}}, {ElementType::kS32, {10, 6}}},
     {{ElementType::kS32, {10, 6}}, {ElementType::kS32, {10, 6}}},
     "%s:2 = \"stablehlo.sort\"(%a0, %a1) ({\n"
     " ^bb0(%x: tensor<i32>, %y: tensor<i32>, %p: tensor<i32>, %q: tensor<i32>):\n"
     "  %lt = stablehlo.compare LT, %x, %y : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
     "  stablehlo.return %lt : tensor<i1>\n"
     " }) {dimension = 1 : i64, is_stable = true} : (tensor<10x6xi32>, tensor<10x6xi32>) -> "
     "(tensor<10x6xi32>, tensor<10x6xi32>)\n"
     " return %s#0, %s#1 : tensor<10x6xi32>, tensor<10x6xi32>"},
    {"convolution", {{ElementType::kS32, {4, 6, 6, 3}}, {ElementType::kS32, {3, 3, 3, 4}}},
     {{ElementType::kS32, {4, 6, 6, 4}}},
     "%0 = stablehlo.convolution(%a0, %a1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
     "window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} "
     ": (tensor<4x6x6x3xi32>, tensor<3x3x3x4xi32>) -> tensor<4x6x6x4xi32>\n"
     " return %0 : tensor<4x6x6x4xi32>"},
    {"grouped_strided_convolution", {{ElementType::kS32, {4, 5, 5, 4}}, {ElementType::kS32, {2, 2, 2, 6}}},
     {{ElementType::kS32, {4, 2, 2, 6}}},
     "%0 = stablehlo.convolution(%a0, %a1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
     "window = {stride = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} "
     ": (tensor<4x5x5x4xi32>, tensor<2x2x2x6xi32>) -> tensor<4x2x2x6xi32>\n"
     " return %0 : tensor<4x2x2x6xi32>"},
    {"dynamic_slice_update", {{ElementType::kS32, {10, 6}}, {ElementType::kS32, {10, 2}}},
     {{ElementType::kS32, {10, 6}}, {ElementType::kS32, {10, 2}}},
     "%r = stablehlo.constant dense<7> : tensor<i32>\n"
     " %c = stablehlo.constant dense<5> : tensor<i32>\n"
     " %s = stablehlo.dynamic_slice %a0, %r, %c, sizes = [10, 2] : (tensor<10x6xi32>, tensor<i32>, tensor<i32>) -> "
     "tensor<10x2xi32>\n"
     " %t = stablehlo.add %s, %a1 : tensor<10x2xi32>\n"
     " %u = stablehlo.dynamic_update_slice %a0, %t, %r, %c : (tensor<10x6xi32>, tensor<10x2xi32>, tensor<i32>, "
     "tensor<i32>) -> tensor<10x6xi32>\n"
     " %v = stablehlo.reverse %u, dims = [1] : tensor<10x6xi32>\n"
     " return %v, %s : tensor<10x6xi32>, tensor<10x2xi32>"},
    {"gather_rows", {{ElementType::kS32, {10, 6}}, {ElementType::kS32, {4, 6, 1}}}, {{ElementType::kS32, {4, 6, 6}}},
     "%0 = \"stablehlo.gather\"(%a0, %a1) {dimension_numbers = #stablehlo.gather<offset_dims = [2], "
     "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 6>} "
     ": (tensor<10x6xi32>, tensor<4x6x1xi32>) -> tensor<4x6x6xi32>\n"
     " return %0 : tensor<4x6x6xi32>"},
    {"batched_gather", {{ElementType::kS32, {4, 10, 3}}, {ElementType::kS32, {4, 6, 1}}},
     {{ElementType::kS32, {4, 6, 3}}},
     "%0 = \"stablehlo.gather\"(%a0, %a1) {dimension_numbers = #stablehlo.gather<offset_dims = [2], "
     "collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], "
     "start_index_map = [1], index_vector_dim = 2>, slice_sizes = array<i64: 1, 1, 3>} "
     ": (tensor<4x10x3xi32>, tensor<4x6x1xi32>) -> tensor<4x6x3xi32>\n"
     " return %0 : tensor<4x6x3xi32>"},
    {"while_uses_a_sharded_value", {{ElementType::kS32, {8, 4}}, {ElementType::kS32, {8, 4}}},
     {{ElementType::kS32, {8, 4}}},
     "%s = stablehlo.add %a0, %a1 : tensor<8x4xi32>\n"
     " %zero = stablehlo.constant dense<0> : tensor<i32>\n"
     " %one = stablehlo.constant dense<1> : tensor<i32>\n"
     " %three = stablehlo.constant dense<3> : tensor<i32>\n"
     " %w0, %w1 = stablehlo.while(%i = %zero, %acc = %a0) : tensor<i32>, tensor<8x4xi32>\n"
     " cond {\n"
     "  %c = stablehlo.compare LT, %i, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
     "  stablehlo.return %c : tensor<i1>\n"
     " } do {\n"
     "  %n = stablehlo.add %i, %one : tensor<i32>\n"
     "  %x = stablehlo.add %acc, %s : tensor<8x4xi32>\n"
     "  stablehlo.return %n, %x : tensor<i32>, tensor<8x4xi32>\n"
     " }\n"
     " return %w1 : tensor<8x4xi32>"},
    {"while_power_iteration", {{ElementType::kF32, {8, 8}}, {ElementType::kF32, {8, 4}}},
     {{ElementType::kF32, {8, 4}}},
     "%zero = stablehlo.constant dense<0> : tensor<i32>\n"
     " %one = stablehlo.constant dense<1> : tensor<i32>\n"
     " %three = stablehlo.constant dense<3> : tensor<i32>\n"
     " %w0, %w1 = stablehlo.while(%i = %zero, %x = %a1) : tensor<i32>, tensor<8x4xf32>\n"
     " cond {\n"
     "  %c = stablehlo.compare LT, %i, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
     "  stablehlo.return %c : tensor<i1>\n"
     " } do {\n"
     "  %n = stablehlo.add %i, %one : tensor<i32>\n"
     "  %d = stablehlo.dot_general %a0, %x, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x4xf32>) -> "
     "tensor<8x4xf32>\n"
     "  %t = stablehlo.tanh %d : tensor<8x4xf32>\n"
     "  stablehlo.return %n, %t : tensor<i32>, tensor<8x4xf32>\n"
     " }\n"
     " return %w1 : tensor<8x4xf32>"},
    {"if_and_case_branches", {{ElementType::kS32, {8, 4}}, {ElementType::kS32, {8, 4}}},
     {{ElementType::kS32, {8, 4}}, {ElementType::kS32, {8, 4}}},
     "%z = stablehlo.constant dense<0> : tensor<i32>\n"
     " %three = stablehlo.constant dense<3> : tensor<i32>\n"
     " %s = stablehlo.reduce(%a0 init: %z) applies stablehlo.add across dimensions = [0, 1] : "
     "(tensor<8x4xi32>, tensor<i32>) -> tensor<i32>\n"
     " %p = stablehlo.compare GT, %s, %z : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
     " %r = \"stablehlo.if\"(%p) ({\n"
     "  %x = stablehlo.add %a0, %a1 : tensor<8x4xi32>\n"
     "  stablehlo.return %x : tensor<8x4xi32>\n"
     " }, {\n"
     "  %y = stablehlo.multiply %a0, %a1 : tensor<8x4xi32>\n"
     "  %yt = stablehlo.transpose %y, dims = [1, 0] : (tensor<8x4xi32>) -> tensor<4x8xi32>\n"
     "  %yr = stablehlo.reshape %yt : (tensor<4x8xi32>) -> tensor<8x4xi32>\n"
     "  stablehlo.return %yr : tensor<8x4xi32>\n"
     " }) : (tensor<i1>) -> tensor<8x4xi32>\n"
     " %k = stablehlo.remainder %s, %three : tensor<i32>\n"
     " %c = \"stablehlo.case\"(%k) ({\n"
     "  stablehlo.return %a1 : tensor<8x4xi32>\n"
     " }, {\n"
     "  %u = stablehlo.subtract %r, %a1 : tensor<8x4xi32>\n"
     "  stablehlo.return %u : tensor<8x4xi32>\n"
     " }, {\n"
     "  %v = stablehlo.negate %r : tensor<8x4xi32>\n"
     "  stablehlo.return %v : tensor<8x4xi32>\n"
     " }) : (tensor<i32>) -> tensor<8x4xi32>\n"
     " return %r, %c : tensor<8x4xi32>, tensor<8x4xi32>"},
    {"scatter_add", {{ElementType::kF32, {10, 6}}, {ElementType::kS32, {4, 6, 1}}, {ElementType::kF32, {4, 6, 6}}},
     {{ElementType::kF32, {10, 6}}},
     "%lo = stablehlo.constant dense<0> : tensor<i32>\n"
     " %hi = stablehlo.constant dense<9> : tensor<i32>\n"
     " %i = stablehlo.clamp %lo, %a1, %hi : (tensor<i32>, tensor<4x6x1xi32>, tensor<i32>) -> tensor<4x6x1xi32>\n"
     " %0 = \"stablehlo.scatter\"(%a0, %i, %a2) ({\n"
     "  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
     "   %s = stablehlo.add %x, %y : tensor<f32>\n"
     "   stablehlo.return %s : tensor<f32>\n"
     " }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2], inserted_window_dims = [0], "
     "scatter_dims_to_operand_dims = [0], index_vector_dim = 2>} : (tensor<10x6xf32>, tensor<4x6x1xi32>, "
     "tensor<4x6x6xf32>) -> tensor<10x6xf32>\n"
     " return %0 : tensor<10x6xf32>"},
};

std::string ModuleText(const Program& program, int64_t n, const std::vector<std::string>& arg_shardings,
                       const std::vector<std::string>& result_shardings) {
  std::string text = "module @" + std::string(program.name) + " attributes {mhlo.num_partitions = " +
                     std::to_string(n) + " : i32} {\n func.func public @main(";
  for (size_t i = 0; i < program.args.size(); ++i) {
    text += (i ? ", %a" : "%a") + std::to_string(i) + ": " + TypeText(program.args[i]) + " {mhlo.sharding = \"" +
            arg_shardings[i] + "\"}";
  }
  text += ") -> (";
  for (size_t i = 0; i < program.results.size(); ++i) {
    text += (i ? ", " : "") + TypeText(program.results[i]) + " {mhlo.sharding = \"" + result_shardings[i] + "\"}";
  }
  return text + ") {\n " + program.body + "\n }\n}\n";
}

TEST(PartitionTest, EveryProgramAndShardingMatchesTheUnpartitionedRun) {
  std::mt19937_64 rng(20261205);
  int runs = 0;
  for (const Program& program : kPrograms) {
    for (int64_t n : {2, 4}) {
      // Each argument and result takes each of its shardings in turn, the
      // others the one after theirs (so combinations vary without a product).
      size_t widest = 0;
      for (const Value& v : program.args) widest = std::max(widest, ShardingsFor(v.dims.size(), n).size());
      for (size_t choice = 0; choice < widest; ++choice) {
        std::vector<std::string> arg_shardings, result_shardings;
        for (size_t i = 0; i < program.args.size(); ++i) {
          std::vector<std::string> options = ShardingsFor(program.args[i].dims.size(), n);
          arg_shardings.push_back(options[(choice + i) % options.size()]);
        }
        for (size_t i = 0; i < program.results.size(); ++i) {
          std::vector<std::string> options = ShardingsFor(program.results[i].dims.size(), n);
          result_shardings.push_back(options[(choice + 2 * i + 1) % options.size()]);
        }
        std::vector<Literal> args;
        for (const Value& v : program.args) args.push_back(RandomLiteral(v.type, v.dims, rng));
        ExpectPartitionedRunMatches(ModuleText(program, n, arg_shardings, result_shardings), args);
        if (::testing::Test::HasFatalFailure()) return;
        ++runs;
      }
    }
  }
  EXPECT_GE(runs, 80);
}

TEST(PartitionTest, ShardyShardingsPartitionLikeTheirGspmdLayouts) {
  const std::string text = R"(module @shardy {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @main(%a0: tensor<10x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>},
                         %a1: tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>})
      -> (tensor<10x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y", "x"}, {}]>}) {
    %0 = stablehlo.dot_general %a0, %a1, contracting_dims = [1] x [0] : (tensor<10x8xf32>, tensor<8x6xf32>) -> tensor<10x6xf32>
    %1 = stablehlo.custom_call @Sharding(%0) {mhlo.sharding = "{devices=[4,1]<=[4]}"} : (tensor<10x6xf32>) -> tensor<10x6xf32>
    return %1 : tensor<10x6xf32>
  }
})";
  std::mt19937_64 rng(5);
  ExpectPartitionedRunMatches(text, {RandomLiteral(ElementType::kF32, {10, 8}, rng),
                                     RandomLiteral(ElementType::kF32, {8, 6}, rng)});
}

// XLA's round-trip form of the same Shardy module (what XLA writes when it
// serializes Shardy as plain StableHLO: meshes and shardings as strings in
// frontend attributes, the result's on a FuncResultSharding call) reads as
// the same layouts and runs alike; its shard_map form is refused by name.
TEST(PartitionTest, XlaSdyRoundTripFormReadsAsItsShardyModule) {
  const std::string shardy = R"(module @shardy {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @main(%a0: tensor<10x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>},
                         %a1: tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>})
      -> (tensor<10x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y", "x"}, {}]>}) {
    %0 = stablehlo.dot_general %a0, %a1, contracting_dims = [1] x [0] : (tensor<10x8xf32>, tensor<8x6xf32>) -> tensor<10x6xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {"x"}]> : tensor<10x6xf32>
    return %1 : tensor<10x6xf32>
  }
})";
  const std::string round_trip = R"(module @round_trip attributes {mhlo.frontend_attributes = {xla.sdy.meshes =
    "{mesh = #sdy.mesh<[\"x\"=2, \"y\"=2]>}"}} {
  func.func public @main(
      %a0: tensor<10x8xf32> {mhlo.frontend_attributes = {xla.sdy.sharding = "#sdy.sharding<@mesh, [{\"x\"}, {\"y\"}]>"}},
      %a1: tensor<8x6xf32> {mhlo.frontend_attributes = {xla.sdy.sharding = "#sdy.sharding<@mesh, [{\22y\22}, {}]>"}})
      -> tensor<10x6xf32> {
    %0 = stablehlo.dot_general %a0, %a1, contracting_dims = [1] x [0] : (tensor<10x8xf32>, tensor<8x6xf32>) -> tensor<10x6xf32>
    %1 = stablehlo.custom_call @Sharding(%0) {mhlo.frontend_attributes = {xla.sdy.sharding = "#sdy.sharding_per_value<[<@mesh, [{}, {\"x\"}]>]>"}} : (tensor<10x6xf32>) -> tensor<10x6xf32>
    %2 = stablehlo.custom_call @local_xla.sdy.FuncResultSharding(%1) {has_side_effect = true, mhlo.frontend_attributes = {xla.sdy.sharding = "#sdy.sharding_per_value<[<@mesh, [{\"y\", \"x\"}, {}]>]>"}} : (tensor<10x6xf32>) -> tensor<10x6xf32>
    return %2 : tensor<10x6xf32>
  }
})";
  Result<shlo::Module> a = shlo::ParseModule(shardy, "shardy.mlir");
  Result<shlo::Module> b = shlo::ParseModule(round_trip, "round_trip.mlir");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  Result<spmd::PartitionedProgram> pa = spmd::Partition(*a);
  Result<spmd::PartitionedProgram> pb = spmd::Partition(*b);
  ASSERT_TRUE(pa.ok()) << pa.status().ToString();
  ASSERT_TRUE(pb.ok()) << pb.status().ToString();
  EXPECT_EQ(pb->argument_shardings, pa->argument_shardings);
  EXPECT_EQ(pb->result_shardings, pa->result_shardings);
  EXPECT_EQ(pb->local_argument_shapes, pa->local_argument_shapes);
  EXPECT_EQ(pb->local_result_shapes, pa->local_result_shapes);
  std::mt19937_64 rng(9);
  ExpectPartitionedRunMatches(round_trip, {RandomLiteral(ElementType::kF32, {10, 8}, rng),
                                           RandomLiteral(ElementType::kF32, {8, 6}, rng)});

  const std::string shard_map = R"(module @round_trip_shard_map attributes {mhlo.frontend_attributes = {xla.sdy.meshes =
    "{mesh = #sdy.mesh<[\"x\"=2]>}"}} {
  func.func public @main(%a0: tensor<8xf32>) -> tensor<8xf32> {
    %0 = stablehlo.custom_call @xla.sdy.GlobalToLocalShape(%a0) : (tensor<8xf32>) -> tensor<4xf32>
    %1 = stablehlo.custom_call @xla.sdy.LocalToGlobalShape(%0) : (tensor<4xf32>) -> tensor<8xf32>
    return %1 : tensor<8xf32>
  }
})";
  Result<shlo::Module> c = shlo::ParseModule(shard_map, "shard_map.mlir");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  Result<spmd::PartitionedProgram> pc = spmd::Partition(*c);
  // A round-trip shard_map without its frontend attributes is refused,
  // naming the op and the attribute.
  ASSERT_FALSE(pc.ok());
  EXPECT_EQ(pc.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(pc.status().message().find("xla.sdy.GlobalToLocalShape"), std::string::npos) << pc.status().ToString();
  EXPECT_NE(pc.status().message().find("xla.sdy.manual_axes"), std::string::npos) << pc.status().ToString();
}

TEST(PartitionTest, TheEntryKeepsItsNameAndTakesLocalShapes) {
  const std::string text = R"(module @rows attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%a0: tensor<16x8xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}, %a1: tensor<8x8xf32>)
      -> (tensor<16x8xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) {
    %0 = stablehlo.dot_general %a0, %a1, contracting_dims = [1] x [0] : (tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
    return %0 : tensor<16x8xf32>
  }
})";
  Result<shlo::Module> module = shlo::ParseModule(text, "rows.mlir");
  ASSERT_TRUE(module.ok());
  Result<spmd::PartitionedProgram> program = spmd::Partition(*module);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  EXPECT_EQ(program->local_argument_shapes[0], (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(program->local_argument_shapes[1], (std::vector<int64_t>{8, 8}));
  EXPECT_EQ(program->local_result_shapes[0], (std::vector<int64_t>{4, 8}));
  Result<shlo::Module> partitioned = shlo::ParseModule(program->text, "partitioned.mlir",
                                                       shlo::ParseOptions{.verify = true});
  ASSERT_TRUE(partitioned.ok()) << partitioned.status().ToString() << "\n" << program->text;
  const shlo::Function* main = partitioned->entry_function();
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(main->name(), "main");
  EXPECT_EQ(main->argument_types()[0].ToString(), "tensor<4x8xf32>");
  EXPECT_EQ(main->result_types()[0].ToString(), "tensor<4x8xf32>");
  EXPECT_EQ(partitioned->num_partitions(), 4);
}

// `berth compile --partitioned` writes the partitioner's text: the entry's
// arguments and results in per-device shapes, a module of 4 partitions that
// the StableHLO library parses and verifies; --partitions overrides.
TEST(PartitionTest, BerthCompilePartitionedWritesThePerDeviceProgram) {
  testing::TempDir dir;
  std::filesystem::path in = dir.Write("mesh.mlir", R"(module @mesh attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%a0: tensor<8x6xf32> {mhlo.sharding = "{devices=[2,2]<=[4]}"},
                         %a1: tensor<6x4xf32> {mhlo.sharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"})
      -> (tensor<8x4xf32> {mhlo.sharding = "{devices=[2,2]<=[4]}"}) {
    %0 = stablehlo.dot_general %a0, %a1, contracting_dims = [1] x [0] : (tensor<8x6xf32>, tensor<6x4xf32>) -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
})");
  std::filesystem::path out = dir.path() / "mesh.part.mlir";
  testing::CommandResult run = testing::RunCommand(std::string(BERTH_EXE) + " compile " + in.string() +
                                                   " --partitioned -o " + out.string() + " 2>&1");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_NE(run.out.find("of 4 partitions"), std::string::npos) << run.out;
  std::ifstream file(out);
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  Result<shlo::Module> module = shlo::ParseModule(text, out.string(), shlo::ParseOptions{.verify = true});
  ASSERT_TRUE(module.ok()) << module.status().ToString() << "\n" << text;
  const shlo::Function* main = module->entry_function();
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(main->name(), "main");
  EXPECT_EQ(main->argument_types()[0].ToString(), "tensor<4x3xf32>");
  EXPECT_EQ(main->argument_types()[1].ToString(), "tensor<3x4xf32>");
  EXPECT_EQ(main->result_types()[0].ToString(), "tensor<4x2xf32>");
  EXPECT_EQ(module->num_partitions(), 4);

  testing::CommandResult too_few = testing::RunCommand(std::string(BERTH_EXE) + " compile " + in.string() +
                                                       " --partitioned --partitions 2 -o " + out.string() + " 2>&1");
  EXPECT_EQ(too_few.exit_code, 1) << too_few.out;
  EXPECT_NE(too_few.out.find("device 3 is beyond the 2 partition(s)"), std::string::npos) << too_few.out;
}

// The dot_generals the issue names, written out by `berth compile
// --partitioned`: each device's arguments are its parts only, and the
// program holds exactly the collectives the rules call for.
TEST(PartitionTest, ShardedDotsHoldLocalShapesAndOnlyTheCollectivesTheirRulesNeed) {
  struct Case {
    const char* name;
    const char* lhs;
    const char* rhs;
    const char* result;
    const char* local_lhs;
    const char* local_rhs;
    std::map<std::string, int> collectives;
  };
  const Case cases[] = {
      // Rows over 4 devices, the right side whole: no communication.
      {"rows", "{devices=[4,1]<=[4]}", "{replicated}", "{devices=[4,1]<=[4]}", "tensor<4x8xf32>",
       "tensor<8x8xf32>", {}},
      // A 2x2 mesh: rows over x, columns over y: no communication.
      {"mesh_free", "{devices=[2,1,2]<=[4] last_tile_dim_replicate}",
       "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}", "{devices=[2,2]<=[4]}", "tensor<8x8xf32>",
       "tensor<8x4xf32>", {}},
      // A 2x2 mesh: rows over x, the contracting dim over y on both sides:
      // one all-reduce over y.
      {"mesh_contracting", "{devices=[2,2]<=[4]}", "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}",
       "{devices=[2,1,2]<=[4] last_tile_dim_replicate}", "tensor<8x4xf32>", "tensor<4x8xf32>",
       {{"all_reduce", 1}}},
  };
  testing::TempDir dir;
  std::mt19937_64 rng(16);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string global = std::string("module @") + c.name +
                               " attributes {mhlo.num_partitions = 4 : i32} {\n"
                               "  func.func public @main(%a0: tensor<16x8xf32> {mhlo.sharding = \"" + c.lhs +
                               "\"}, %a1: tensor<8x8xf32> {mhlo.sharding = \"" + c.rhs +
                               "\"}) -> (tensor<16x8xf32> {mhlo.sharding = \"" + c.result +
                               "\"}) {\n"
                               "    %0 = stablehlo.dot_general %a0, %a1, contracting_dims = [1] x [0] : "
                               "(tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>\n"
                               "    return %0 : tensor<16x8xf32>\n  }\n}\n";
    std::filesystem::path in = dir.Write(std::string(c.name) + ".mlir", global);
    std::filesystem::path out = dir.path() / (std::string(c.name) + ".part.mlir");
    testing::CommandResult run = testing::RunCommand(std::string(BERTH_EXE) + " compile " + in.string() +
                                                     " --partitioned -o " + out.string() + " 2>&1");
    ASSERT_EQ(run.exit_code, 0) << run.out;
    std::ifstream file(out);
    std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    SCOPED_TRACE(text);
    Result<shlo::Module> module = shlo::ParseModule(text, out.string(), shlo::ParseOptions{.verify = true});
    ASSERT_TRUE(module.ok()) << module.status().ToString();
    EXPECT_EQ(module->entry_function()->argument_types()[0].ToString(), c.local_lhs);
    EXPECT_EQ(module->entry_function()->argument_types()[1].ToString(), c.local_rhs);
    EXPECT_EQ(CollectivesIn(text), c.collectives);
    EXPECT_EQ(module->function("main.global"), nullptr) << "the per-op rules need no global copy";
    ExpectPartitionedRunMatches(global, {RandomLiteral(ElementType::kF32, {16, 8}, rng),
                                         RandomLiteral(ElementType::kF32, {8, 8}, rng)});
  }
}

// Three layers of BM_Partition's generated program (dot, bias, tanh, a row
// sum broadcast back, elementwise arithmetic) on a 2x4 mesh: the layer
// input is cut both ways, the weight's contracting dimension over the
// mesh's minor axis; one all-reduce per layer, and only the first layer's
// input is gathered.
// Rows over 4 devices through a reshape that merges columns into rows'
// runs, a column slice, a column pad and a column concatenate: every op
// keeps the row cut, so the program holds no collective but the results'
// gathers, each device working on its quarter, and still matches the
// unpartitioned run.
TEST(PartitionTest, ReshapesSlicesPadsAndConcatenatesKeepCutsOnTheDimensionsTheyLeaveWhole) {
  const std::string text = R"(module @keep attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%a0: tensor<8x6xi32> {mhlo.sharding = "{devices=[4,1]<=[4]}"},
                         %a1: tensor<4x3xi32> {mhlo.sharding = "{devices=[4,1]<=[4]}"})
      -> (tensor<4x17xi32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) {
    %0 = stablehlo.reshape %a0 : (tensor<8x6xi32>) -> tensor<4x12xi32>
    %1 = stablehlo.slice %0 [0:4, 2:10] : (tensor<4x12xi32>) -> tensor<4x8xi32>
    %z = stablehlo.constant dense<-1> : tensor<i32>
    %2 = stablehlo.pad %1, %z, low = [0, 1], high = [0, 0], interior = [0, 1] : (tensor<4x8xi32>, tensor<i32>) -> tensor<4x16xi32>
    %3 = stablehlo.slice %a1 [0:4, 1:2] : (tensor<4x3xi32>) -> tensor<4x1xi32>
    %4 = stablehlo.concatenate %2, %3, dim = 1 : (tensor<4x16xi32>, tensor<4x1xi32>) -> tensor<4x17xi32>
    return %4 : tensor<4x17xi32>
  }
})";
  Result<shlo::Module> module = shlo::ParseModule(text, "keep.mlir");
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  Result<spmd::PartitionedProgram> program = spmd::Partition(*module);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  EXPECT_TRUE(CollectivesIn(program->text).empty()) << program->text;
  for (const char* local : {"-> tensor<1x12xi32>", "-> tensor<1x8xi32>", "-> tensor<1x16xi32>", "-> tensor<1x17xi32>"}) {
    EXPECT_NE(program->text.find(local), std::string::npos) << local << "\n" << program->text;
  }
  std::mt19937_64 rng(44);
  ExpectPartitionedRunMatches(text, {RandomLiteral(ElementType::kS32, {8, 6}, rng),
                                     RandomLiteral(ElementType::kS32, {4, 3}, rng)});
}

// Ops each device can run on its own part: a variadic reduce (argmax), a
// sort, and a dynamic slice and update along the columns of a row-sharded
// array, gathers of batch-sharded indices, a while loop carrying a
// row-sharded array, a convolution of a
// batch-sharded input (data parallel) and one of a kernel cut along its
// output features (model parallel). No collective is written, and each
// works on local blocks.
TEST(PartitionTest, OpsOnTheirParallelDimensionsNeedNoCollective) {
  struct Case {
    const char* program;
    std::vector<std::string> args, results;
    const char* local;
  };
  const std::string rows = "{devices=[2,1]<=[2]}";
  const std::vector<Case> cases = {
      {"argmax_rows", {rows}, {"{devices=[2]<=[2]}", "{devices=[2]<=[2]}"}, "tensor<5x6xi32>"},
      {"sort_rows", {rows, rows}, {rows, rows}, "tensor<5x6xi32>"},
      {"dynamic_slice_update", {rows, rows}, {rows, rows}, "-> tensor<5x2xi32>"},
      {"while_uses_a_sharded_value", {rows, rows}, {rows}, "tensor<4x4xi32>"},
      {"gather_rows", {"{replicated}", "{devices=[2,1,1]<=[2]}"}, {"{devices=[2,1,1]<=[2]}"},
       "-> tensor<2x6x6xi32>"},
      {"batched_gather", {"{replicated}", "{devices=[1,2,1]<=[2]}"}, {"{devices=[1,2,1]<=[2]}"},
       "-> tensor<4x3x3xi32>"},
      {"convolution", {"{devices=[2,1,1,1]<=[2]}", "{replicated}"}, {"{devices=[2,1,1,1]<=[2]}"},
       "-> tensor<2x6x6x4xi32>"},
      {"convolution", {"{replicated}", "{devices=[1,1,1,2]<=[2]}"}, {"{devices=[1,1,1,2]<=[2]}"},
       "-> tensor<4x6x6x2xi32>"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.program) + " " + c.args[0]);
    const Program* program = nullptr;
    for (const Program& p : kPrograms) {
      if (std::string(p.name) == c.program) program = &p;
    }
    ASSERT_NE(program, nullptr);
    const std::string text = ModuleText(*program, 2, c.args, c.results);
    Result<shlo::Module> module = shlo::ParseModule(text, "parallel.mlir");
    ASSERT_TRUE(module.ok()) << module.status().ToString();
    Result<spmd::PartitionedProgram> partitioned = spmd::Partition(*module);
    ASSERT_TRUE(partitioned.ok()) << partitioned.status().ToString();
    EXPECT_TRUE(CollectivesIn(partitioned->text).empty()) << partitioned->text;
    EXPECT_NE(partitioned->text.find(c.local), std::string::npos) << partitioned->text;
  }
}

// Backward propagation: whole arguments and a result cut by columns (of
// the transposed array), or a constraint in the middle: the ops before
// them take the cut as soon as their operands are defined (each device
// slicing its own part; a broadcast of a whole operand writes each
// device's part directly) and work on parts, not on whole arrays; no
// collective is written, and the results match the unpartitioned run.
TEST(PartitionTest, ResultShardingsAndConstraintsPullLayoutsBackwards) {
  struct Case {
    const char* name;
    const char* result;      // the result's sharding
    const char* constraint;  // an @Sharding on the sum, or none
    std::map<std::string, std::string> local;  // op -> its local result type
  };
  const Case cases[] = {
      {"result", "{devices=[1,4]<=[4]}", nullptr,
       {{"stablehlo.dot_general", "tensor<4x8xf32>"},
        {"stablehlo.broadcast_in_dim", "tensor<4x8xf32>"},
        {"stablehlo.add", "tensor<4x8xf32>"},
        {"stablehlo.exponential", "tensor<4x8xf32>"},
        {"stablehlo.transpose", "tensor<8x4xf32>"}}},
      {"constraint", "{replicated}", "{devices=[2,2]<=[4]}",
       {{"stablehlo.dot_general", "tensor<8x4xf32>"},
        {"stablehlo.broadcast_in_dim", "tensor<8x4xf32>"},
        {"stablehlo.add", "tensor<8x4xf32>"}}},
  };
  std::mt19937_64 rng(61);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string sum =
        c.constraint == nullptr
            ? "    %c = stablehlo.add %d, %b : tensor<16x8xf32>\n"
            : std::string("    %s = stablehlo.add %d, %b : tensor<16x8xf32>\n"
                          "    %c = stablehlo.custom_call @Sharding(%s) {mhlo.sharding = \"") +
                  c.constraint + "\"} : (tensor<16x8xf32>) -> tensor<16x8xf32>\n";
    const std::string text =
        std::string("module @pull attributes {mhlo.num_partitions = 4 : i32} {\n"
                    "  func.func public @main(%a0: tensor<16x8xf32>, %a1: tensor<8x8xf32>, %a2: tensor<8xf32>)\n"
                    "      -> (tensor<8x16xf32> {mhlo.sharding = \"") +
        c.result +
        "\"}) {\n"
        "    %d = stablehlo.dot_general %a0, %a1, contracting_dims = [1] x [0] : (tensor<16x8xf32>, "
        "tensor<8x8xf32>) -> tensor<16x8xf32>\n"
        "    %b = stablehlo.broadcast_in_dim %a2, dims = [1] : (tensor<8xf32>) -> tensor<16x8xf32>\n" +
        sum +
        "    %e = stablehlo.exponential %c : tensor<16x8xf32>\n"
        "    %t = stablehlo.transpose %e, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>\n"
        "    return %t : tensor<8x16xf32>\n  }\n}\n";
    Result<shlo::Module> module = shlo::ParseModule(text, "pull.mlir");
    ASSERT_TRUE(module.ok()) << module.status().ToString();
    Result<spmd::PartitionedProgram> program = spmd::Partition(*module);
    ASSERT_TRUE(program.ok()) << program.status().ToString();
    SCOPED_TRACE(program->text);
    if (c.constraint == nullptr) {
      EXPECT_TRUE(CollectivesIn(program->text).empty());
    }
    for (const auto& [op, type] : c.local) {
      const std::string line = LineOf(program->text, op);
      ASSERT_FALSE(line.empty()) << op;
      EXPECT_NE(line.find("-> " + type), std::string::npos) << line;
    }
    ExpectPartitionedRunMatches(text, {RandomLiteral(ElementType::kF32, {16, 8}, rng),
                                       RandomLiteral(ElementType::kF32, {8, 8}, rng),
                                       RandomLiteral(ElementType::kF32, {8}, rng)});
  }
}

// A scatter-add of batch-sharded indices and updates (an embedding's
// gradient): each device scatters its own updates (local blocks), one
// all-reduce adds the partial sums.
TEST(PartitionTest, ScatterAddOfShardedIndicesNeedsOneAllReduce) {
  const Program* program = nullptr;
  for (const Program& p : kPrograms) {
    if (std::string(p.name) == "scatter_add") program = &p;
  }
  ASSERT_NE(program, nullptr);
  const std::string text = ModuleText(*program, 2, {"{replicated}", "{devices=[2,1,1]<=[2]}", "{devices=[2,1,1]<=[2]}"},
                                      {"{replicated}"});
  Result<shlo::Module> module = shlo::ParseModule(text, "scatter.mlir");
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  Result<spmd::PartitionedProgram> partitioned = spmd::Partition(*module);
  ASSERT_TRUE(partitioned.ok()) << partitioned.status().ToString();
  std::map<std::string, int> expected = {{"all_reduce", 1}};
  EXPECT_EQ(CollectivesIn(partitioned->text), expected) << partitioned->text;
  EXPECT_NE(partitioned->text.find("(tensor<10x6xf32>, tensor<2x6x1xi32>, tensor<2x6x6xf32>) -> tensor<10x6xf32>"),
            std::string::npos)
      << partitioned->text;
  std::mt19937_64 rng(71);
  ExpectPartitionedRunMatches(text, {RandomLiteral(ElementType::kF32, {10, 6}, rng),
                                     RandomLiteral(ElementType::kS32, {4, 6, 1}, rng),
                                     RandomLiteral(ElementType::kF32, {4, 6, 6}, rng)});
}

TEST(PartitionTest, LayersOnA2x4MeshMatchAndNeedOneAllReduceEach) {
  const std::string text = testing::LayerStackModule({"layers", 16, 8, 3, ""});
  Result<shlo::Module> module = shlo::ParseModule(text, "layers.mlir");
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  Result<spmd::PartitionedProgram> program = spmd::Partition(*module);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  // The first layer's input, cut over both mesh axes, is subtracted from a
  // value cut by rows only: one all_gather along its columns (its rows stay
  // cut); each layer's reduce and dot then need one all_reduce.
  std::map<std::string, int> expected = {{"all_gather", 1}, {"all_reduce", 3}};
  EXPECT_EQ(CollectivesIn(program->text), expected) << program->text;
  std::mt19937_64 rng(24);
  ExpectPartitionedRunMatches(text, {RandomLiteral(ElementType::kF32, {16, 8}, rng),
                                     RandomLiteral(ElementType::kF32, {8, 8}, rng),
                                     RandomLiteral(ElementType::kF32, {8}, rng)});
}

// A random i32 matrix as a quoted MLIR literal for `--arg`.
std::string QuotedI32Literal(int64_t rows, int64_t cols, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> value(-9, 9);
  return "'" +
         testing::DenseMatrixText(rows, cols, "i32", [&](int64_t, int64_t) { return value(rng); }) +
         "'";
}

// `berth run` of a sharded module takes global arguments and prints the
// global results: the same text as `berth run` of the module without its
// shardings on one device (10 rows over 4 devices: uneven). Wrong shapes,
// --partitions without shardings and --entry are refused, naming what.
TEST(PartitionTest, BerthRunOfAShardedModulePrintsTheUnpartitionedResults) {
  const std::string body =
      "    %0 = stablehlo.dot_general %a0, %a1, contracting_dims = [1] x [0] : (tensor<10x4xi32>, tensor<4x6xi32>) "
      "-> tensor<10x6xi32>\n"
      "    %1 = stablehlo.multiply %0, %0 : tensor<10x6xi32>\n"
      "    %z = stablehlo.constant dense<0> : tensor<i32>\n"
      "    %2 = stablehlo.reduce(%1 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<10x6xi32>, "
      "tensor<i32>) -> tensor<10xi32>\n"
      "    return %1, %2 : tensor<10x6xi32>, tensor<10xi32>\n  }\n}\n";
  const std::string sharded =
      "module attributes {mhlo.num_partitions = 4 : i32} {\n"
      "  func.func public @main(%a0: tensor<10x4xi32> {mhlo.sharding = \"{devices=[4,1]<=[4]}\"},\n"
      "      %a1: tensor<4x6xi32> {mhlo.sharding = \"{devices=[2,2]<=[4]}\"})\n"
      "      -> (tensor<10x6xi32> {mhlo.sharding = \"{devices=[2,2]0,2,1,3}\"}, tensor<10xi32>) {\n" + body;
  const std::string plain =
      "module {\n  func.func public @main(%a0: tensor<10x4xi32>, %a1: tensor<4x6xi32>) -> (tensor<10x6xi32>, "
      "tensor<10xi32>) {\n" + body;
  testing::TempDir dir;
  const std::string sharded_path = dir.Write("sharded.mlir", sharded).string();
  const std::string plain_path = dir.Write("plain.mlir", plain).string();
  std::mt19937_64 rng(7);
  auto literal = [&](int64_t rows, int64_t cols) { return QuotedI32Literal(rows, cols, rng); };
  const std::string berth = std::string(BERTH_EXE) + " run ";
  for (int trial = 0; trial < 3; ++trial) {
    const std::string args = " --arg " + literal(10, 4) + " --arg " + literal(4, 6);
    testing::CommandResult want = testing::RunCommand(berth + plain_path + args + " 2>&1");
    testing::CommandResult got = testing::RunCommand(berth + sharded_path + args + " 2>&1");
    ASSERT_EQ(want.exit_code, 0) << want.out;
    ASSERT_EQ(got.exit_code, 0) << got.out;
    EXPECT_EQ(got.out, want.out);
  }

  testing::CommandResult wrong = testing::RunCommand(berth + sharded_path + " --arg " + literal(8, 4) + " --arg " +
                                                     literal(4, 6) + " 2>&1");
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_NE(wrong.out.find("argument 0: the program takes a global array of shape [10x4], given [8x4]"),
            std::string::npos) << wrong.out;
  testing::CommandResult unsharded = testing::RunCommand(berth + plain_path + " --partitions 2 --arg " +
                                                         literal(10, 4) + " --arg " + literal(4, 6) + " 2>&1");
  EXPECT_EQ(unsharded.exit_code, 1);
  EXPECT_NE(unsharded.out.find("--partitions applies to a sharded module"), std::string::npos) << unsharded.out;
  testing::CommandResult entry = testing::RunCommand(berth + sharded_path + " --entry main --arg " + literal(10, 4) +
                                                     " --arg " + literal(4, 6) + " 2>&1");
  EXPECT_EQ(entry.exit_code, 1);
  EXPECT_NE(entry.out.find("UNIMPLEMENTED: --entry with a sharded module"), std::string::npos) << entry.out;
}

// `--mesh x=A,y=B` gives a Shardy module's mesh other sizes: every size
// that the devices allow (even and not dividing) prints what the module
// without shardings prints; the per-device program `berth compile
// --partitioned --mesh` writes has the new local shapes; a mesh naming other
// axes, a malformed one, and one for a module without sdy.mesh are refused.
TEST(PartitionTest, BerthRunWithAnotherMeshPrintsTheUnpartitionedResults) {
  const std::string body =
      "    %0 = stablehlo.dot_general %a0, %a1, contracting_dims = [1] x [0] : (tensor<8x6xi32>, tensor<6x4xi32>) "
      "-> tensor<8x4xi32>\n"
      "    %1 = stablehlo.add %0, %0 : tensor<8x4xi32>\n"
      "    return %1 : tensor<8x4xi32>\n  }\n}\n";
  const std::string sharded =
      "module {\n  sdy.mesh @mesh = <[\"x\"=2, \"y\"=2]>\n"
      "  func.func public @main(%a0: tensor<8x6xi32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {}]>},\n"
      "      %a1: tensor<6x4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {\"y\"}]>})\n"
      "      -> (tensor<8x4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {\"y\"}]>}) {\n" + body;
  const std::string plain =
      "module {\n  func.func public @main(%a0: tensor<8x6xi32>, %a1: tensor<6x4xi32>) -> tensor<8x4xi32> {\n" + body;
  testing::TempDir dir;
  const std::string sharded_path = dir.Write("sharded.mlir", sharded).string();
  const std::string plain_path = dir.Write("plain.mlir", plain).string();
  std::mt19937_64 rng(11);
  auto literal = [&](int64_t rows, int64_t cols) { return QuotedI32Literal(rows, cols, rng); };
  const std::string berth = std::string(BERTH_EXE) + " run ";
  for (const char* mesh : {"x=2,y=2", "x=4,y=1", "x=1,y=4", "y=2,x=4", "x=3,y=1", "x=2,y=3"}) {
    SCOPED_TRACE(mesh);
    const std::string args = " --arg " + literal(8, 6) + " --arg " + literal(6, 4);
    testing::CommandResult want = testing::RunCommand(berth + plain_path + args + " 2>&1");
    testing::CommandResult got = testing::RunCommand(berth + sharded_path + " --mesh " + mesh + args + " 2>&1");
    ASSERT_EQ(want.exit_code, 0) << want.out;
    ASSERT_EQ(got.exit_code, 0) << got.out;
    EXPECT_EQ(got.out, want.out);
  }

  const std::string out = (dir.path() / "part.mlir").string();
  testing::CommandResult compiled = testing::RunCommand(std::string(BERTH_EXE) + " compile " + sharded_path +
                                                        " --partitioned --mesh x=4,y=2 -o " + out + " 2>&1");
  ASSERT_EQ(compiled.exit_code, 0) << compiled.out;
  EXPECT_NE(compiled.out.find("of 8 partitions"), std::string::npos) << compiled.out;
  std::ifstream written(out);
  std::stringstream text;
  text << written.rdbuf();
  EXPECT_NE(text.str().find("@main(%arg0: tensor<2x6xi32>, %arg1: tensor<6x2xi32>) -> (tensor<2x2xi32>)"),
            std::string::npos) << text.str();

  const std::string args = " --arg " + literal(8, 6) + " --arg " + literal(6, 4) + " 2>&1";
  testing::CommandResult other_axes = testing::RunCommand(berth + sharded_path + " --mesh a=2,b=2" + args);
  EXPECT_EQ(other_axes.exit_code, 1);
  EXPECT_NE(other_axes.out.find("the mesh given names axes a,b; mesh @mesh of the module has x,y"), std::string::npos)
      << other_axes.out;
  testing::CommandResult malformed = testing::RunCommand(berth + sharded_path + " --mesh x=two,y=2" + args);
  EXPECT_EQ(malformed.exit_code, 1);
  EXPECT_NE(malformed.out.find("--mesh: mesh 'x=two,y=2': the size of 'x' is not a number"), std::string::npos)
      << malformed.out;
  testing::CommandResult no_mesh = testing::RunCommand(berth + plain_path + " --mesh x=2" + args);
  EXPECT_EQ(no_mesh.exit_code, 1);
  EXPECT_NE(no_mesh.out.find("--mesh applies to a sharded module"), std::string::npos) << no_mesh.out;
}

// Elementwise ops keep their operands' layout: a row-sharded chain needs no
// communication; a program whose ops see the device (partition_id) runs
// whole on every device instead.
TEST(PartitionTest, ElementwiseChainsStayLocalAndDeviceDependentProgramsRunWhole) {
  const std::string chain = R"(module attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%a0: tensor<8x6xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"},
                         %a1: tensor<8x6xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"})
      -> (tensor<8x6xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) {
    %0 = stablehlo.multiply %a0, %a1 : tensor<8x6xf32>
    %1 = stablehlo.tanh %0 : tensor<8x6xf32>
    %2 = stablehlo.add %1, %a0 : tensor<8x6xf32>
    return %2 : tensor<8x6xf32>
  }
})";
  Result<shlo::Module> module = shlo::ParseModule(chain, "chain.mlir");
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  Result<spmd::PartitionedProgram> program = spmd::Partition(*module);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  EXPECT_TRUE(CollectivesIn(program->text).empty()) << program->text;
  EXPECT_EQ(program->text.find("partition_id"), std::string::npos) << program->text;

  const std::string device_dependent = R"(module attributes {mhlo.num_partitions = 2 : i32} {
  func.func public @main(%a0: tensor<4xui32> {mhlo.sharding = "{devices=[2]<=[2]}"}) -> tensor<4xui32> {
    %id = stablehlo.partition_id : tensor<ui32>
    %b = stablehlo.broadcast_in_dim %id, dims = [] : (tensor<ui32>) -> tensor<4xui32>
    %0 = stablehlo.add %a0, %b : tensor<4xui32>
    return %0 : tensor<4xui32>
  }
})";
  module = shlo::ParseModule(device_dependent, "device_dependent.mlir");
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  program = spmd::Partition(*module);
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  EXPECT_NE(program->text.find("func.func private @main.global"), std::string::npos) << program->text;
  EXPECT_NE(program->text.find("call @main.global"), std::string::npos) << program->text;
}

// A shard_map as JAX exports it with GSPMD: rows over 4 devices, a body
// that sums its rows and psums the sums over every device, then adds that
// to twice its rows. The region runs as written on each device's rows; the
// result is checked against a scalar loop.
TEST(PartitionTest, ShardMapRegionsRunAsWrittenOnEachDevicesShard) {
  const std::string text = R"(module @shmap attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%a0: tensor<16x8xi32> {mhlo.sharding = "{devices=[4,1]<=[4]}"})
      -> (tensor<16x8xi32> {mhlo.sharding = "{devices=[2,2]<=[4]}"}) {
    %0 = stablehlo.custom_call @Sharding(%a0) {mhlo.sharding = "{devices=[4,1]<=[4]}"} : (tensor<16x8xi32>) -> tensor<16x8xi32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = "{manual}"} : (tensor<16x8xi32>) -> tensor<4x8xi32>
    %2 = call @shmap_body(%1) : (tensor<4x8xi32>) -> tensor<4x8xi32>
    %3 = stablehlo.custom_call @Sharding(%2) {mhlo.sharding = "{manual}"} : (tensor<4x8xi32>) -> tensor<4x8xi32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {mhlo.sharding = "{devices=[4,1]<=[4]}"} : (tensor<4x8xi32>) -> tensor<16x8xi32>
    %5 = stablehlo.negate %4 : tensor<16x8xi32>
    return %5 : tensor<16x8xi32>
  }
  func.func private @shmap_body(%x: tensor<4x8xi32>) -> tensor<4x8xi32> {
    %z = stablehlo.constant dense<0> : tensor<i32>
    %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4x8xi32>, tensor<i32>) -> tensor<8xi32>
    %p = "stablehlo.all_reduce"(%s) ({
    ^bb0(%l: tensor<i32>, %r: tensor<i32>):
      %t = stablehlo.add %l, %r : tensor<i32>
      stablehlo.return %t : tensor<i32>
    }) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids} : (tensor<8xi32>) -> tensor<8xi32>
    %b = stablehlo.broadcast_in_dim %p, dims = [1] : (tensor<8xi32>) -> tensor<4x8xi32>
    %two = stablehlo.constant dense<2> : tensor<4x8xi32>
    %m = stablehlo.multiply %x, %two : tensor<4x8xi32>
    %r = stablehlo.add %m, %b : tensor<4x8xi32>
    return %r : tensor<4x8xi32>
  }
})";
  std::mt19937_64 rng(9);
  for (int trial = 0; trial < 3; ++trial) {
    Literal x = RandomLiteral(ElementType::kS32, {16, 8}, rng);
    std::vector<int32_t> in(16 * 8), out(16 * 8);
    std::memcpy(in.data(), x.bytes.data(), x.bytes.size());
    for (int c = 0; c < 8; ++c) {
      int32_t column = 0;
      for (int r = 0; r < 16; ++r) column += in[static_cast<size_t>(r * 8 + c)];
      for (int r = 0; r < 16; ++r) out[static_cast<size_t>(r * 8 + c)] = -(2 * in[static_cast<size_t>(r * 8 + c)] + column);
    }
    ExpectPartitionedRunGives(text, {x}, {Literal::Of(out, {16, 8})});
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// JAX wraps a jitted function in a private one: the entry calls @wrapped,
// whose shard_map swaps the two devices' rows with a collective_permute,
// then calls @scale. Calls are partitioned in place; the swap is checked
// against the rows swapped by hand.
TEST(PartitionTest, CalledFunctionsArePartitionedInPlace) {
  const std::string text = R"(module @wrapped_swap attributes {mhlo.num_partitions = 2 : i32} {
  func.func public @main(%arg0: tensor<2x6xi32> {mhlo.sharding = "{replicated}"}) -> tensor<2x6xi32> {
    %0 = call @wrapped(%arg0) : (tensor<2x6xi32>) -> tensor<2x6xi32>
    return %0 : tensor<2x6xi32>
  }
  func.func private @wrapped(%x: tensor<2x6xi32>) -> tensor<2x6xi32> {
    %0 = stablehlo.custom_call @Sharding(%x) {mhlo.sharding = "{devices=[2,1]0,1}"} : (tensor<2x6xi32>) -> tensor<2x6xi32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = "{manual}"} : (tensor<2x6xi32>) -> tensor<1x6xi32>
    %2 = "stablehlo.collective_permute"(%1) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<1x6xi32>) -> tensor<1x6xi32>
    %3 = stablehlo.custom_call @Sharding(%2) {mhlo.sharding = "{manual}"} : (tensor<1x6xi32>) -> tensor<1x6xi32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {mhlo.sharding = "{devices=[2,1]0,1}"} : (tensor<1x6xi32>) -> tensor<2x6xi32>
    %5 = call @scale(%4) : (tensor<2x6xi32>) -> tensor<2x6xi32>
    return %5 : tensor<2x6xi32>
  }
  func.func private @scale(%y: tensor<2x6xi32>) -> tensor<2x6xi32> {
    %three = stablehlo.constant dense<3> : tensor<2x6xi32>
    %0 = stablehlo.multiply %y, %three : tensor<2x6xi32>
    return %0 : tensor<2x6xi32>
  }
})";
  std::mt19937_64 rng(3);
  Literal x = RandomLiteral(ElementType::kS32, {2, 6}, rng);
  std::vector<int32_t> in(12), out(12);
  std::memcpy(in.data(), x.bytes.data(), x.bytes.size());
  for (size_t c = 0; c < 6; ++c) {
    out[c] = 3 * in[6 + c];
    out[6 + c] = 3 * in[c];
  }
  ExpectPartitionedRunGives(text, {x}, {Literal::Of(out, {2, 6})});
}

TEST(PartitionTest, WhatTheFallbackCannotDoIsUnimplemented) {
  struct Case {
    const char* arg_attrs;
    const char* body;
    const char* message;
  };
  const Case cases[] = {
      {"{mhlo.sharding = \"{maximal device=1}\"}", "return %a0 : tensor<4x4xf32>",
       "maximal shardings of entry values are not partitioned yet"},
      {"{mhlo.sharding = \"{devices=[2,1]0,1}\"}", "return %a0 : tensor<4x4xf32>",
       "the sharding covers 2 of the 4 partitions"},
      {"{}",
       "%0 = stablehlo.custom_call @SPMDFullToShardShape(%a0) {mhlo.sharding = \"{manual}\"} : (tensor<4x4xf32>) -> "
       "tensor<4x4xf32>\n return %0 : tensor<4x4xf32>",
       "is a shard_map region's (manual) value"},
      {"{mhlo.sharding = \"{devices=[4,1]<=[4]}\"}",
       "%0 = stablehlo.custom_call @SPMDFullToShardShape(%a0) {mhlo.sharding = \"{manual}\"} : (tensor<4x4xf32>) -> "
       "tensor<1x4xf32>\n"
       " %1 = stablehlo.custom_call @SPMDShardToFullShape(%0) {mhlo.sharding = \"{devices=[4,1]<=[4]}\"} : "
       "(tensor<1x4xf32>) -> tensor<4x4xf32>\n"
       " %i = stablehlo.partition_id : tensor<ui32>\n"
       " %f = stablehlo.convert %i : (tensor<ui32>) -> tensor<f32>\n"
       " %b = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) -> tensor<4x4xf32>\n"
       " %2 = stablehlo.add %1, %b : tensor<4x4xf32>\n return %2 : tensor<4x4xf32>",
       "outside the shard_map regions of a module with such regions"},
  };
  for (const Case& c : cases) {
    std::string text = std::string("module attributes {mhlo.num_partitions = 4 : i32} {\n func.func @main(%a0: "
                                   "tensor<4x4xf32> ") +
                       c.arg_attrs + ") -> tensor<4x4xf32> {\n " + c.body + "\n }\n}\n";
    Result<shlo::Module> module = shlo::ParseModule(text, "bad.mlir");
    ASSERT_TRUE(module.ok()) << module.status().ToString();
    Result<spmd::PartitionedProgram> program = spmd::Partition(*module);
    ASSERT_FALSE(program.ok()) << text;
    EXPECT_EQ(program.status().code(), StatusCode::kUnimplemented) << program.status().ToString();
    EXPECT_NE(program.status().message().find(c.message), std::string::npos) << program.status().message();
  }
}

}  // namespace
}  // namespace berth
