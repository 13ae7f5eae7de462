// stablehlo.while, stablehlo.if and stablehlo.case on the CPU plugin.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "kernel_test_util.hpp"

namespace berth::testing {
namespace {

// Counts %n down to 0, adding 2 per iteration. The condition is a case on
// the counter (branch 0: stop; any other index runs the last branch: go on),
// so the loop needs no kernel outside this family; the body reads values
// defined outside the loop.
constexpr char kCountDown[] = R"(
func.func @main(%n: tensor<i32>) -> (tensor<i32>, tensor<f32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %two = stablehlo.constant dense<2.0> : tensor<f32>
  %c, %acc = stablehlo.while(%i = %n, %a = %zero) : tensor<i32>, tensor<f32>
  cond {
    %go = "stablehlo.case"(%i) ({
      %f = stablehlo.constant dense<false> : tensor<i1>
      stablehlo.return %f : tensor<i1>
    }, {
      %t = stablehlo.constant dense<true> : tensor<i1>
      stablehlo.return %t : tensor<i1>
    }) : (tensor<i32>) -> tensor<i1>
    stablehlo.return %go : tensor<i1>
  } do {
    %i2 = stablehlo.subtract %i, %one : tensor<i32>
    %a2 = stablehlo.add %a, %two : tensor<f32>
    stablehlo.return %i2, %a2 : tensor<i32>, tensor<f32>
  }
  return %c, %acc : tensor<i32>, tensor<f32>
}
)";

TEST(CpuWhileTest, CounterLoopRunsTheBodyNTimes) {
  BERTH_RUN(out, kCountDown, {Literal::Of<int32_t>({5}, {})});
  EXPECT_THAT(out[0].Values<int32_t>(), ElementsAre(0));
  EXPECT_THAT(out[1].Values<float>(), ElementsAre(10.0f));
}

TEST(CpuWhileTest, FalseConditionRunsZeroIterations) {
  BERTH_RUN(out, kCountDown, {Literal::Of<int32_t>({0}, {})});
  EXPECT_THAT(out[0].Values<int32_t>(), ElementsAre(0));
  EXPECT_THAT(out[1].Values<float>(), ElementsAre(0.0f));
}

TEST(CpuWhileTest, ConstantFalseConditionReturnsTheOperands) {
  const char* program = R"(
func.func @main(%x: tensor<3xf32>, %y: tensor<i64>) -> (tensor<3xf32>, tensor<i64>) {
  %r0, %r1 = stablehlo.while(%a = %x, %b = %y) : tensor<3xf32>, tensor<i64>
  cond {
    %f = stablehlo.constant dense<false> : tensor<i1>
    stablehlo.return %f : tensor<i1>
  } do {
    %n = stablehlo.negate %a : tensor<3xf32>
    stablehlo.return %n, %b : tensor<3xf32>, tensor<i64>
  }
  return %r0, %r1 : tensor<3xf32>, tensor<i64>
}
)";
  BERTH_RUN(out, program, {Literal::Of<float>({1, 2, 3}, {3}), Literal::Of<int64_t>({-4}, {})});
  EXPECT_THAT(out[0].Values<float>(), ElementsAre(1, 2, 3));
  EXPECT_THAT(out[1].Values<int64_t>(), ElementsAre(-4));
}

TEST(CpuWhileTest, NestedLoopsCarryTensors) {
  // Outer loop 3 times; inner loop 4 times doubling a vector: 2^12.
  const char* program = R"(
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %three = stablehlo.constant dense<3> : tensor<i32>
  %four = stablehlo.constant dense<4> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %done, %r = stablehlo.while(%i = %three, %v = %x) : tensor<i32>, tensor<2xf32>
  cond {
    %go = "stablehlo.case"(%i) ({
      %f = stablehlo.constant dense<false> : tensor<i1>
      stablehlo.return %f : tensor<i1>
    }, {
      %t = stablehlo.constant dense<true> : tensor<i1>
      stablehlo.return %t : tensor<i1>
    }) : (tensor<i32>) -> tensor<i1>
    stablehlo.return %go : tensor<i1>
  } do {
    %j_end, %w = stablehlo.while(%j = %four, %u = %v) : tensor<i32>, tensor<2xf32>
    cond {
      %go2 = "stablehlo.case"(%j) ({
        %f = stablehlo.constant dense<false> : tensor<i1>
        stablehlo.return %f : tensor<i1>
      }, {
        %t = stablehlo.constant dense<true> : tensor<i1>
        stablehlo.return %t : tensor<i1>
      }) : (tensor<i32>) -> tensor<i1>
      stablehlo.return %go2 : tensor<i1>
    } do {
      %j2 = stablehlo.subtract %j, %one : tensor<i32>
      %u2 = stablehlo.add %u, %u : tensor<2xf32>
      stablehlo.return %j2, %u2 : tensor<i32>, tensor<2xf32>
    }
    %i2 = stablehlo.subtract %i, %one : tensor<i32>
    stablehlo.return %i2, %w : tensor<i32>, tensor<2xf32>
  }
  return %r : tensor<2xf32>
}
)";
  BERTH_RUN(out, program, {Literal::Of<float>({1, -0.5f}, {2})});
  EXPECT_THAT(out[0].Values<float>(), ElementsAre(4096.0f, -2048.0f));
}

TEST(CpuWhileTest, CompareConditionCountsToTen) {
  const char* program = R"(
func.func @main() -> (tensor<i64>, tensor<i64>) {
  %init_i = stablehlo.constant dense<0> : tensor<i64>
  %init_sum = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %ten = stablehlo.constant dense<10> : tensor<i64>
  %r0, %r1 = stablehlo.while(%i = %init_i, %s = %init_sum) : tensor<i64>, tensor<i64>
  cond {
    %c = stablehlo.compare LT, %i, %ten : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %s2 = stablehlo.add %s, %i : tensor<i64>
    %i2 = stablehlo.add %i, %one : tensor<i64>
    stablehlo.return %i2, %s2 : tensor<i64>, tensor<i64>
  }
  return %r0, %r1 : tensor<i64>, tensor<i64>
}
)";
  BERTH_RUN(out, program, {});
  EXPECT_THAT(out[0].Values<int64_t>(), ElementsAre(10));
  EXPECT_THAT(out[1].Values<int64_t>(), ElementsAre(45));
}

constexpr char kIf[] = R"(
func.func @main(%p: tensor<i1>, %x: tensor<2xf32>) -> (tensor<2xf32>, tensor<i32>) {
  %r0, %r1 = "stablehlo.if"(%p) ({
    %d = stablehlo.add %x, %x : tensor<2xf32>
    %c = stablehlo.constant dense<1> : tensor<i32>
    stablehlo.return %d, %c : tensor<2xf32>, tensor<i32>
  }, {
    %n = stablehlo.negate %x : tensor<2xf32>
    %c = stablehlo.constant dense<2> : tensor<i32>
    stablehlo.return %n, %c : tensor<2xf32>, tensor<i32>
  }) : (tensor<i1>) -> (tensor<2xf32>, tensor<i32>)
  return %r0, %r1 : tensor<2xf32>, tensor<i32>
}
)";

TEST(CpuIfTest, TrueRunsTheFirstBranch) {
  BERTH_RUN(out, kIf, {Literal::Of<bool>({true}, {}), Literal::Of<float>({1.5f, -2}, {2})});
  EXPECT_THAT(out[0].Values<float>(), ElementsAre(3.0f, -4.0f));
  EXPECT_THAT(out[1].Values<int32_t>(), ElementsAre(1));
}

TEST(CpuIfTest, FalseRunsTheSecondBranch) {
  BERTH_RUN(out, kIf, {Literal::Of<bool>({false}, {}), Literal::Of<float>({1.5f, -2}, {2})});
  EXPECT_THAT(out[0].Values<float>(), ElementsAre(-1.5f, 2.0f));
  EXPECT_THAT(out[1].Values<int32_t>(), ElementsAre(2));
}

TEST(CpuIfTest, BranchesWithoutResults) {
  const char* program = R"(
func.func @main(%p: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {
  "stablehlo.if"(%p) ({
    stablehlo.return
  }, {
    stablehlo.return
  }) : (tensor<i1>) -> ()
  return %x : tensor<f32>
}
)";
  BERTH_RUN(out, program, {Literal::Of<bool>({true}, {}), Literal::Of<float>({4}, {})});
  EXPECT_THAT(out[0].Values<float>(), ElementsAre(4.0f));
}

constexpr char kCase[] = R"(
func.func @main(%i: tensor<i32>, %x: tensor<i32>) -> tensor<i32> {
  %r = "stablehlo.case"(%i) ({
    %c = stablehlo.constant dense<10> : tensor<i32>
    %s = stablehlo.add %x, %c : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }, {
    %c = stablehlo.constant dense<20> : tensor<i32>
    %s = stablehlo.add %x, %c : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }, {
    %c = stablehlo.constant dense<30> : tensor<i32>
    %s = stablehlo.add %x, %c : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }) : (tensor<i32>) -> tensor<i32>
  return %r : tensor<i32>
}
)";

int32_t RunCase(int32_t index) {
  Result<std::vector<Literal>> out = testing::CpuRunner::Get().Run(
      kCase, {Literal::Of<int32_t>({index}, {}), Literal::Of<int32_t>({1}, {})});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? out->at(0).Values<int32_t>()[0] : -1;
}

TEST(CpuCaseTest, RunsTheIndexedBranch) {
  EXPECT_EQ(RunCase(0), 11);
  EXPECT_EQ(RunCase(1), 21);
  EXPECT_EQ(RunCase(2), 31);
}

TEST(CpuCaseTest, OutOfRangeIndexRunsTheLastBranch) {
  EXPECT_EQ(RunCase(3), 31);
  EXPECT_EQ(RunCase(-1), 31);
  EXPECT_EQ(RunCase(std::numeric_limits<int32_t>::max()), 31);
  EXPECT_EQ(RunCase(std::numeric_limits<int32_t>::min()), 31);
}

TEST(CpuCaseTest, SingleBranchRunsForAnyIndex) {
  const char* program = R"(
func.func @main(%i: tensor<i32>) -> tensor<2xi64> {
  %r = "stablehlo.case"(%i) ({
    %c = stablehlo.constant dense<[7, 8]> : tensor<2xi64>
    stablehlo.return %c : tensor<2xi64>
  }) : (tensor<i32>) -> tensor<2xi64>
  return %r : tensor<2xi64>
}
)";
  for (int32_t index : {0, 5, -5}) {
    BERTH_RUN(out, program, {Literal::Of<int32_t>({index}, {})});
    EXPECT_THAT(out[0].Values<int64_t>(), ElementsAre(7, 8)) << index;
  }
}

}  // namespace
}  // namespace berth::testing
