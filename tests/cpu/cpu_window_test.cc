// stablehlo.reduce_window and stablehlo.select_and_scatter on the CPU plugin.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "kernel_test_util.hpp"

namespace berth::testing {
namespace {

TEST(CpuReduceWindowTest, SpecExampleWithDilationsAndPadding) {
  const char* program = R"(
func.func @main(%x: tensor<3x2xi64>) -> (tensor<2x2xi64>, tensor<1x2xi64>) {
  %init = stablehlo.constant dense<0> : tensor<i64>
  %a = "stablehlo.reduce_window"(%x, %init) ({
    ^bb0(%p: tensor<i64>, %q: tensor<i64>):
      %0 = stablehlo.add %p, %q : tensor<i64>
      stablehlo.return %0 : tensor<i64>
  }) {
    window_dimensions = array<i64: 2, 1>,
    window_strides = array<i64: 4, 1>,
    base_dilations = array<i64: 2, 1>,
    window_dilations = array<i64: 3, 1>,
    padding = dense<[[2, 1], [0, 0]]> : tensor<2x2xi64>
  } : (tensor<3x2xi64>, tensor<i64>) -> tensor<2x2xi64>
  %b = "stablehlo.reduce_window"(%x, %init) ({
    ^bb0(%p: tensor<i64>, %q: tensor<i64>):
      %0 = stablehlo.add %p, %q : tensor<i64>
      stablehlo.return %0 : tensor<i64>
  }) {
    window_dimensions = array<i64: 3, 1>,
    window_strides = array<i64: 4, 1>,
    base_dilations = array<i64: 2, 1>,
    window_dilations = array<i64: 3, 1>,
    padding = dense<[[2, 1], [0, 0]]> : tensor<2x2xi64>
  } : (tensor<3x2xi64>, tensor<i64>) -> tensor<1x2xi64>
  return %a, %b : tensor<2x2xi64>, tensor<1x2xi64>
}
)";
  BERTH_RUN(out, program, {Literal::Of<int64_t>({1, 2, 3, 4, 5, 6}, {3, 2})});
  EXPECT_THAT(out[0].Values<int64_t>(), ElementsAre(0, 0, 3, 4));
  EXPECT_THAT(out[1].Values<int64_t>(), ElementsAre(5, 6));
}

TEST(CpuReduceWindowTest, SumPoolingWithStrides) {
  const char* program = R"(
func.func @main(%x: tensor<4x4xf32>) -> tensor<2x2xf32> {
  %init = stablehlo.constant dense<0.0> : tensor<f32>
  %r = "stablehlo.reduce_window"(%x, %init) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %0 = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %0 : tensor<f32>
  }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}
      : (tensor<4x4xf32>, tensor<f32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
)";
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[i] = static_cast<float>(i);
  BERTH_RUN(out, program, {Literal::Of<float>(x, {4, 4})});
  EXPECT_THAT(out[0].Values<float>(), ElementsAre(0 + 1 + 4 + 5, 2 + 3 + 6 + 7, 8 + 9 + 12 + 13,
                                                  10 + 11 + 14 + 15));
}

TEST(CpuReduceWindowTest, PaddingHoldsTheInitValue) {
  // Padded input [1 | 1, 2, 3 | 1] with init 1: each window adds the init
  // once more for the fold's start.
  const char* program = R"(
func.func @main(%x: tensor<3xi32>) -> tensor<4xi32> {
  %init = stablehlo.constant dense<1> : tensor<i32>
  %r = "stablehlo.reduce_window"(%x, %init) ({
    ^bb0(%p: tensor<i32>, %q: tensor<i32>):
      %0 = stablehlo.add %p, %q : tensor<i32>
      stablehlo.return %0 : tensor<i32>
  }) {window_dimensions = array<i64: 2>, padding = dense<[[1, 1]]> : tensor<1x2xi64>}
      : (tensor<3xi32>, tensor<i32>) -> tensor<4xi32>
  return %r : tensor<4xi32>
}
)";
  BERTH_RUN(out, program, {Literal::Of<int32_t>({1, 2, 3}, {3})});
  EXPECT_THAT(out[0].Values<int32_t>(), ElementsAre(3, 4, 6, 5));
}

TEST(CpuReduceWindowTest, NegativePaddingTrimsTheInput) {
  const char* program = R"(
func.func @main(%x: tensor<5xi32>) -> tensor<2xi32> {
  %init = stablehlo.constant dense<0> : tensor<i32>
  %r = "stablehlo.reduce_window"(%x, %init) ({
    ^bb0(%p: tensor<i32>, %q: tensor<i32>):
      %0 = stablehlo.add %p, %q : tensor<i32>
      stablehlo.return %0 : tensor<i32>
  }) {window_dimensions = array<i64: 2>, padding = dense<[[-1, -1]]> : tensor<1x2xi64>}
      : (tensor<5xi32>, tensor<i32>) -> tensor<2xi32>
  return %r : tensor<2xi32>
}
)";
  BERTH_RUN(out, program, {Literal::Of<int32_t>({1, 2, 3, 4, 5}, {5})});
  EXPECT_THAT(out[0].Values<int32_t>(), ElementsAre(5, 7));
}

TEST(CpuReduceWindowTest, WindowLargerThanInputGivesAnEmptyResult) {
  const char* program = R"(
func.func @main(%x: tensor<2x3xf32>) -> tensor<0x3xf32> {
  %init = stablehlo.constant dense<0.0> : tensor<f32>
  %r = "stablehlo.reduce_window"(%x, %init) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %0 = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %0 : tensor<f32>
  }) {window_dimensions = array<i64: 3, 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<0x3xf32>
  return %r : tensor<0x3xf32>
}
)";
  BERTH_RUN(out, program, {Literal::Of<float>({1, 2, 3, 4, 5, 6}, {2, 3})});
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{0, 3}));
}

TEST(CpuReduceWindowTest, GeneralBodySeesWindowElementsInOrder) {
  // acc * 10 + x over windows of 3 with stride 1: [1,2,3] -> 123, [2,3,4] -> 234.
  const char* program = R"(
func.func @main(%x: tensor<4xi32>) -> tensor<2xi32> {
  %init = stablehlo.constant dense<0> : tensor<i32>
  %r = "stablehlo.reduce_window"(%x, %init) ({
    ^bb0(%acc: tensor<i32>, %e: tensor<i32>):
      %ten = stablehlo.constant dense<10> : tensor<i32>
      %m = stablehlo.multiply %acc, %ten : tensor<i32>
      %s = stablehlo.add %m, %e : tensor<i32>
      stablehlo.return %s : tensor<i32>
  }) {window_dimensions = array<i64: 3>} : (tensor<4xi32>, tensor<i32>) -> tensor<2xi32>
  return %r : tensor<2xi32>
}
)";
  BERTH_RUN(out, program, {Literal::Of<int32_t>({1, 2, 3, 4}, {4})});
  EXPECT_THAT(out[0].Values<int32_t>(), ElementsAre(123, 234));
}

TEST(CpuReduceWindowTest, MultipleInputsWithWindowDilation) {
  // Windows of 2 with dilation 2 over [1..5]: (1,3), (2,4), (3,5).
  const char* program = R"(
func.func @main(%x: tensor<5xi32>, %y: tensor<5xf32>) -> (tensor<3xi32>, tensor<3xf32>) {
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %f1 = stablehlo.constant dense<1.0> : tensor<f32>
  %s, %p = "stablehlo.reduce_window"(%x, %y, %i0, %f1) ({
    ^bb0(%a: tensor<i32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<f32>):
      %0 = stablehlo.add %a, %c : tensor<i32>
      %1 = stablehlo.multiply %b, %d : tensor<f32>
      stablehlo.return %0, %1 : tensor<i32>, tensor<f32>
  }) {window_dimensions = array<i64: 2>, window_dilations = array<i64: 2>}
      : (tensor<5xi32>, tensor<5xf32>, tensor<i32>, tensor<f32>) -> (tensor<3xi32>, tensor<3xf32>)
  return %s, %p : tensor<3xi32>, tensor<3xf32>
}
)";
  BERTH_RUN(out, program,
            {Literal::Of<int32_t>({1, 2, 3, 4, 5}, {5}), Literal::Of<float>({1, 2, 3, 4, 5}, {5})});
  EXPECT_THAT(out[0].Values<int32_t>(), ElementsAre(4, 6, 8));
  EXPECT_THAT(out[1].Values<float>(), ElementsAre(3, 8, 15));
}

// Typed loops (body `add`) and the body region (an equivalent two-op body)
// agree on every window attribute at once.
TEST(CpuReduceWindowTest, TypedLoopsAndRegionBodiesAgree) {
  const char* program = R"(
func.func @main(%x: tensor<5x6xi32>) -> (tensor<4x2xi32>, tensor<4x2xi32>) {
  %init = stablehlo.constant dense<3> : tensor<i32>
  %fast = "stablehlo.reduce_window"(%x, %init) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %s = stablehlo.add %a, %b : tensor<i32>
      stablehlo.return %s : tensor<i32>
  }) {window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 3, 1>,
      base_dilations = array<i64: 2, 1>, window_dilations = array<i64: 1, 2>,
      padding = dense<[[1, 2], [-1, 1]]> : tensor<2x2xi64>}
      : (tensor<5x6xi32>, tensor<i32>) -> tensor<4x2xi32>
  %slow = "stablehlo.reduce_window"(%x, %init) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %one = stablehlo.constant dense<1> : tensor<i32>
      %s = stablehlo.add %a, %b : tensor<i32>
      %m = stablehlo.multiply %s, %one : tensor<i32>
      stablehlo.return %m : tensor<i32>
  }) {window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 3, 1>,
      base_dilations = array<i64: 2, 1>, window_dilations = array<i64: 1, 2>,
      padding = dense<[[1, 2], [-1, 1]]> : tensor<2x2xi64>}
      : (tensor<5x6xi32>, tensor<i32>) -> tensor<4x2xi32>
  return %fast, %slow : tensor<4x2xi32>, tensor<4x2xi32>
}
)";
  std::vector<int32_t> x(30);
  for (int i = 0; i < 30; ++i) x[i] = (i * 37) % 11 - 5;
  BERTH_RUN(out, program, {Literal::Of<int32_t>(x, {5, 6})});
  std::vector<int32_t> fast = out[0].Values<int32_t>();
  EXPECT_EQ(fast, out[1].Values<int32_t>());
  // Reference: padded, dilated rows p = 3*o + w - 1 hold x[p / 2] when p is
  // even and in range; columns q = o + 2*w + 1 hold x[.][q].
  for (int o0 = 0; o0 < 4; ++o0) {
    for (int o1 = 0; o1 < 2; ++o1) {
      int32_t acc = 3;
      for (int w0 = 0; w0 < 2; ++w0) {
        for (int w1 = 0; w1 < 3; ++w1) {
          int p = 3 * o0 + w0 - 1, q = o1 + 2 * w1 + 1;
          bool in = p >= 0 && p <= 8 && p % 2 == 0 && q < 6;
          acc += in ? x[(p / 2) * 6 + q] : 3;
        }
      }
      EXPECT_EQ(fast[o0 * 2 + o1], acc) << o0 << "," << o1;
    }
  }
}

TEST(CpuReduceWindowTest, LargeSumPoolingMatchesAReference) {
  // 3x3 windows, stride 2, padding 1 on a 64x96 image (parallel fast path).
  const char* program = R"(
func.func @main(%x: tensor<64x96xf32>) -> tensor<32x48xf32> {
  %init = stablehlo.constant dense<0.0> : tensor<f32>
  %r = "stablehlo.reduce_window"(%x, %init) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %0 = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %0 : tensor<f32>
  }) {window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 2, 2>,
      padding = dense<[[1, 1], [1, 1]]> : tensor<2x2xi64>}
      : (tensor<64x96xf32>, tensor<f32>) -> tensor<32x48xf32>
  return %r : tensor<32x48xf32>
}
)";
  std::mt19937 random(5);
  std::uniform_int_distribution<int> dist(-8, 8);
  std::vector<float> x(64 * 96);
  for (float& v : x) v = static_cast<float>(dist(random));
  BERTH_RUN(out, program, {Literal::Of<float>(x, {64, 96})});
  std::vector<float> got = out[0].Values<float>();
  for (int i = 0; i < 32; ++i) {
    for (int j = 0; j < 48; ++j) {
      float sum = 0;
      for (int a = 0; a < 3; ++a) {
        for (int b = 0; b < 3; ++b) {
          int r = 2 * i + a - 1, c = 2 * j + b - 1;
          if (r >= 0 && r < 64 && c >= 0 && c < 96) sum += x[r * 96 + c];
        }
      }
      ASSERT_EQ(got[i * 48 + j], sum) << i << "," << j;
    }
  }
}

TEST(CpuReduceWindowTest, MaxPoolingWithPadding) {
  const char* program = R"(
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %r = "stablehlo.reduce_window"(%x, %ninf) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %0 = stablehlo.maximum %p, %q : tensor<f32>
      stablehlo.return %0 : tensor<f32>
  }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 2>,
      padding = dense<[[0, 1], [0, 1]]> : tensor<2x2xi64>}
      : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
)";
  BERTH_RUN(out, program, {Literal::Of<float>({1, -5, 2, -3, 4, -9}, {2, 3})});
  EXPECT_THAT(out[0].Values<float>(), ElementsAre(4, 2, 4, -9));
}

TEST(CpuSelectAndScatterTest, SpecExample) {
  const char* program = R"(
func.func @main(%operand: tensor<4x2xi32>, %source: tensor<2x2xi32>) -> tensor<4x2xi32> {
  %init = stablehlo.constant dense<0> : tensor<i32>
  %r = "stablehlo.select_and_scatter"(%operand, %source, %init) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %0 = stablehlo.compare GE, %a, %b : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %0 : tensor<i1>
  }, {
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %0 = stablehlo.add %a, %b : tensor<i32>
      stablehlo.return %0 : tensor<i32>
  }) {
    window_dimensions = array<i64: 3, 1>,
    window_strides = array<i64: 2, 1>,
    padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>
  } : (tensor<4x2xi32>, tensor<2x2xi32>, tensor<i32>) -> tensor<4x2xi32>
  return %r : tensor<4x2xi32>
}
)";
  BERTH_RUN(out, program,
                    {Literal::Of<int32_t>({1, 5, 2, 5, 3, 6, 4, 4}, {4, 2}),
                     Literal::Of<int32_t>({5, 6, 7, 8}, {2, 2})});
  EXPECT_THAT(out[0].Values<int32_t>(), ElementsAre(0, 0, 0, 0, 5, 14, 7, 0));
}

// Overlapping windows pick the same element twice; their sources add up.
// The second select is the same comparison written with two ops (so it runs
// the regions instead of the typed loop); both must agree.
TEST(CpuSelectAndScatterTest, OverlappingWindowsAccumulate) {
  const char* program = R"(
func.func @main(%operand: tensor<5xf32>, %source: tensor<3xf32>) -> (tensor<5xf32>, tensor<5xf32>) {
  %init = stablehlo.constant dense<0.5> : tensor<f32>
  %fast = "stablehlo.select_and_scatter"(%operand, %source, %init) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %0 = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %0 : tensor<i1>
  }, {
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %0 = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %0 : tensor<f32>
  }) {window_dimensions = array<i64: 3>, window_strides = array<i64: 1>}
      : (tensor<5xf32>, tensor<3xf32>, tensor<f32>) -> tensor<5xf32>
  %slow = "stablehlo.select_and_scatter"(%operand, %source, %init) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %na = stablehlo.negate %a : tensor<f32>
      %nb = stablehlo.negate %b : tensor<f32>
      %0 = stablehlo.compare LT, %na, %nb : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %0 : tensor<i1>
  }, {
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %0 = stablehlo.add %a, %b : tensor<f32>
      %1 = stablehlo.multiply %0, %0 : tensor<f32>
      %2 = stablehlo.subtract %1, %1 : tensor<f32>
      %3 = stablehlo.add %2, %0 : tensor<f32>
      stablehlo.return %3 : tensor<f32>
  }) {window_dimensions = array<i64: 3>, window_strides = array<i64: 1>}
      : (tensor<5xf32>, tensor<3xf32>, tensor<f32>) -> tensor<5xf32>
  return %fast, %slow : tensor<5xf32>, tensor<5xf32>
}
)";
  BERTH_RUN(out, program,
                    {Literal::Of<float>({1, 3, 2, 5, 4}, {5}), Literal::Of<float>({10, 20, 30}, {3})});
  EXPECT_THAT(out[0].Values<float>(), ElementsAre(0.5, 10.5, 0.5, 50.5, 0.5));
  EXPECT_THAT(out[1].Values<float>(), ElementsAre(0.5, 10.5, 0.5, 50.5, 0.5));
}

TEST(CpuSelectAndScatterTest, TiesKeepTheFirstElementWithGe) {
  const char* program = R"(
func.func @main(%operand: tensor<4xi32>, %source: tensor<2xi32>) -> tensor<4xi32> {
  %init = stablehlo.constant dense<0> : tensor<i32>
  %r = "stablehlo.select_and_scatter"(%operand, %source, %init) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %0 = stablehlo.compare GE, %a, %b : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %0 : tensor<i1>
  }, {
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %0 = stablehlo.add %a, %b : tensor<i32>
      stablehlo.return %0 : tensor<i32>
  }) {window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}
      : (tensor<4xi32>, tensor<2xi32>, tensor<i32>) -> tensor<4xi32>
  return %r : tensor<4xi32>
}
)";
  BERTH_RUN(out, program,
                    {Literal::Of<int32_t>({7, 7, 2, 9}, {4}), Literal::Of<int32_t>({1, 2}, {2})});
  EXPECT_THAT(out[0].Values<int32_t>(), ElementsAre(1, 0, 0, 2));
}

// Runs with the kernels of this family alone: on i1, add is or, so the select
// keeps the current element unless both are false. Windows of 2 over
// [F, T, F, F, T] select 0, 1, 3, 3; sources (all true) or into init false.
TEST(CpuSelectAndScatterTest, RunsSelectAndScatterRegions) {
  const char* program = R"(
func.func @main(%operand: tensor<5xi1>, %source: tensor<4xi1>) -> tensor<5xi1> {
  %init = stablehlo.constant dense<false> : tensor<i1>
  %r = "stablehlo.select_and_scatter"(%operand, %source, %init) ({
    ^bb0(%a: tensor<i1>, %b: tensor<i1>):
      %0 = stablehlo.add %a, %b : tensor<i1>
      stablehlo.return %0 : tensor<i1>
  }, {
    ^bb0(%a: tensor<i1>, %b: tensor<i1>):
      %0 = stablehlo.add %a, %b : tensor<i1>
      stablehlo.return %0 : tensor<i1>
  }) {window_dimensions = array<i64: 2>, window_strides = array<i64: 1>}
      : (tensor<5xi1>, tensor<4xi1>, tensor<i1>) -> tensor<5xi1>
  return %r : tensor<5xi1>
}
)";
  BERTH_RUN(out, program,
            {Literal::Of<bool>({false, true, false, false, true}, {5}),
             Literal::Of<bool>({true, true, true, true}, {4})});
  EXPECT_THAT(out[0].Values<bool>(), ElementsAre(true, true, false, true, false));
}

TEST(CpuSelectAndScatterTest, AllPaddingWindowsScatterNothing) {
  // Padding 2 on the left with windows of 2, stride 2: the first window is
  // all padding, so its source value goes nowhere.
  const char* program = R"(
func.func @main(%operand: tensor<2xi1>, %source: tensor<2xi1>) -> tensor<2xi1> {
  %init = stablehlo.constant dense<false> : tensor<i1>
  %r = "stablehlo.select_and_scatter"(%operand, %source, %init) ({
    ^bb0(%a: tensor<i1>, %b: tensor<i1>):
      %0 = stablehlo.multiply %a, %b : tensor<i1>
      stablehlo.return %0 : tensor<i1>
  }, {
    ^bb0(%a: tensor<i1>, %b: tensor<i1>):
      %0 = stablehlo.add %a, %b : tensor<i1>
      stablehlo.return %0 : tensor<i1>
  }) {window_dimensions = array<i64: 2>, window_strides = array<i64: 2>,
      padding = dense<[[2, 0]]> : tensor<1x2xi64>}
      : (tensor<2xi1>, tensor<2xi1>, tensor<i1>) -> tensor<2xi1>
  return %r : tensor<2xi1>
}
)";
  BERTH_RUN(out, program,
            {Literal::Of<bool>({true, true}, {2}), Literal::Of<bool>({true, false}, {2})});
  EXPECT_THAT(out[0].Values<bool>(), ElementsAre(false, false));
}

}  // namespace
}  // namespace berth::testing
