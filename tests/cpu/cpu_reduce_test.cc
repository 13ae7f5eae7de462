// stablehlo.reduce and stablehlo.map on the CPU plugin.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "kernel_test_util.hpp"

namespace berth::testing {
namespace {

TEST(CpuReduceTest, SumsRowsAndColumns) {
  const char* program = R"(
func.func @main(%x: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<3xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %rows = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1]
      : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  %cols = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0]
      : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
  return %rows, %cols : tensor<2xf32>, tensor<3xf32>
}
)";
  BERTH_RUN(out, program, {Literal::Of<float>({1, 2, 3, 4, 5, 6}, {2, 3})});
  EXPECT_THAT(out[0].Values<float>(), ElementsAre(6, 15));
  EXPECT_THAT(out[1].Values<float>(), ElementsAre(5, 7, 9));
}

TEST(CpuReduceTest, ReducesAllDimsAndNonAdjacentDims) {
  const char* program = R"(
func.func @main(%x: tensor<2x3x4xi32>) -> (tensor<i32>, tensor<3xi32>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %all = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0, 1, 2]
      : (tensor<2x3x4xi32>, tensor<i32>) -> tensor<i32>
  %outer = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0, 2]
      : (tensor<2x3x4xi32>, tensor<i32>) -> tensor<3xi32>
  return %all, %outer : tensor<i32>, tensor<3xi32>
}
)";
  std::vector<int32_t> x(24);
  for (int i = 0; i < 24; ++i) x[i] = i + 1;
  BERTH_RUN(out, program, {Literal::Of<int32_t>(x, {2, 3, 4})});
  EXPECT_THAT(out[0].Values<int32_t>(), ElementsAre(300));
  EXPECT_THAT(out[1].Values<int32_t>(), ElementsAre(68, 100, 132));
}

TEST(CpuReduceTest, NoDimsCombinesTheInitWithEachElementOnce) {
  const char* program = R"(
func.func @main(%x: tensor<3xi32>) -> tensor<3xi32> {
  %init = stablehlo.constant dense<10> : tensor<i32>
  %r = stablehlo.reduce(%x init: %init) applies stablehlo.add across dimensions = []
      : (tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
  return %r : tensor<3xi32>
}
)";
  BERTH_RUN(out, program, {Literal::Of<int32_t>({1, 2, 3}, {3})});
  EXPECT_THAT(out[0].Values<int32_t>(), ElementsAre(11, 12, 13));
}

TEST(CpuReduceTest, SizeZeroDimsGiveTheInitValue) {
  const char* program = R"(
func.func @main() -> (tensor<3xf32>, tensor<3xf32>, tensor<0xf32>, tensor<2xi32>) {
  %x = stablehlo.constant dense<> : tensor<3x0xf32>
  %y = stablehlo.constant dense<> : tensor<0x3xf32>
  %z = stablehlo.constant dense<> : tensor<2x0xi32>
  %init = stablehlo.constant dense<7.0> : tensor<f32>
  %iinit = stablehlo.constant dense<5> : tensor<i32>
  %a = stablehlo.reduce(%x init: %init) applies stablehlo.add across dimensions = [1]
      : (tensor<3x0xf32>, tensor<f32>) -> tensor<3xf32>
  %b = stablehlo.reduce(%y init: %init) applies stablehlo.multiply across dimensions = [0]
      : (tensor<0x3xf32>, tensor<f32>) -> tensor<3xf32>
  %c = stablehlo.reduce(%x init: %init) applies stablehlo.add across dimensions = [0]
      : (tensor<3x0xf32>, tensor<f32>) -> tensor<0xf32>
  %d = "stablehlo.reduce"(%z, %iinit) ({
    ^bb0(%acc: tensor<i32>, %e: tensor<i32>):
      %t = stablehlo.multiply %acc, %e : tensor<i32>
      %s = stablehlo.subtract %t, %e : tensor<i32>
      stablehlo.return %s : tensor<i32>
  }) {dimensions = array<i64: 1>} : (tensor<2x0xi32>, tensor<i32>) -> tensor<2xi32>
  return %a, %b, %c, %d : tensor<3xf32>, tensor<3xf32>, tensor<0xf32>, tensor<2xi32>
}
)";
  BERTH_RUN(out, program, {});
  EXPECT_THAT(out[0].Values<float>(), ElementsAre(7, 7, 7));
  EXPECT_THAT(out[1].Values<float>(), ElementsAre(7, 7, 7));
  EXPECT_TRUE(out[2].Values<float>().empty());
  EXPECT_EQ(out[2].dims, (std::vector<int64_t>{0}));
  EXPECT_THAT(out[3].Values<int32_t>(), ElementsAre(5, 5));
}

TEST(CpuReduceTest, RankZeroInputReducesToInitCombinedWithIt) {
  const char* program = R"(
func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %init = stablehlo.constant dense<0.5> : tensor<f32>
  %r = stablehlo.reduce(%x init: %init) applies stablehlo.add across dimensions = []
      : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
)";
  BERTH_RUN(out, program, {Literal::Of<float>({2}, {})});
  EXPECT_THAT(out[0].Values<float>(), ElementsAre(2.5f));
}

TEST(CpuReduceTest, IntegerSumsWrapExactly) {
  const char* program = R"(
func.func @main(%a: tensor<3xi32>, %b: tensor<2xui8>, %c: tensor<4xi64>)
    -> (tensor<i32>, tensor<ui8>, tensor<i64>, tensor<i32>) {
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %u0 = stablehlo.constant dense<0> : tensor<ui8>
  %l0 = stablehlo.constant dense<0> : tensor<i64>
  %i1 = stablehlo.constant dense<1> : tensor<i32>
  %sa = stablehlo.reduce(%a init: %i0) applies stablehlo.add across dimensions = [0]
      : (tensor<3xi32>, tensor<i32>) -> tensor<i32>
  %sb = stablehlo.reduce(%b init: %u0) applies stablehlo.add across dimensions = [0]
      : (tensor<2xui8>, tensor<ui8>) -> tensor<ui8>
  %sc = stablehlo.reduce(%c init: %l0) applies stablehlo.add across dimensions = [0]
      : (tensor<4xi64>, tensor<i64>) -> tensor<i64>
  %pa = stablehlo.reduce(%a init: %i1) applies stablehlo.multiply across dimensions = [0]
      : (tensor<3xi32>, tensor<i32>) -> tensor<i32>
  return %sa, %sb, %sc, %pa : tensor<i32>, tensor<ui8>, tensor<i64>, tensor<i32>
}
)";
  const int32_t max32 = std::numeric_limits<int32_t>::max();
  const int64_t max64 = std::numeric_limits<int64_t>::max();
  BERTH_RUN(out, program,
            {Literal::Of<int32_t>({max32, 1, 5}, {3}), Literal::Of<uint8_t>({200, 100}, {2}),
             Literal::Of<int64_t>({max64, 1, max64, 3}, {4})});
  EXPECT_THAT(out[0].Values<int32_t>(), ElementsAre(std::numeric_limits<int32_t>::min() + 5));
  EXPECT_THAT(out[1].Values<uint8_t>(), ElementsAre(44));
  EXPECT_THAT(out[2].Values<int64_t>(), ElementsAre(2));  // 2^64 + 2 wraps to 2
  EXPECT_THAT(out[3].Values<int32_t>(), ElementsAre(static_cast<int32_t>(
                                           static_cast<uint32_t>(max32) * 5u)));
}

TEST(CpuReduceTest, LargeIntegerSumsAreExactAcrossThreads) {
  const char* program = R"(
func.func @main(%x: tensor<512x1024xi64>) -> (tensor<i64>, tensor<1024xi64>, tensor<512xi64>) {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %all = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0, 1]
      : (tensor<512x1024xi64>, tensor<i64>) -> tensor<i64>
  %cols = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0]
      : (tensor<512x1024xi64>, tensor<i64>) -> tensor<1024xi64>
  %rows = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1]
      : (tensor<512x1024xi64>, tensor<i64>) -> tensor<512xi64>
  return %all, %cols, %rows : tensor<i64>, tensor<1024xi64>, tensor<512xi64>
}
)";
  std::mt19937_64 random(7);
  std::vector<int64_t> x(512 * 1024);
  for (int64_t& v : x) v = static_cast<int64_t>(random());
  uint64_t all = 0;
  std::vector<uint64_t> cols(1024, 0), rows(512, 0);
  for (size_t r = 0; r < 512; ++r) {
    for (size_t c = 0; c < 1024; ++c) {
      uint64_t v = static_cast<uint64_t>(x[r * 1024 + c]);
      all += v;
      cols[c] += v;
      rows[r] += v;
    }
  }
  BERTH_RUN(out, program, {Literal::Of<int64_t>(x, {512, 1024})});
  EXPECT_EQ(static_cast<uint64_t>(out[0].Values<int64_t>()[0]), all);
  std::vector<int64_t> got_cols = out[1].Values<int64_t>();
  std::vector<int64_t> got_rows = out[2].Values<int64_t>();
  for (size_t c = 0; c < 1024; ++c) ASSERT_EQ(static_cast<uint64_t>(got_cols[c]), cols[c]) << c;
  for (size_t r = 0; r < 512; ++r) ASSERT_EQ(static_cast<uint64_t>(got_rows[r]), rows[r]) << r;
}

TEST(CpuReduceTest, LargeFloatSumsMatchADoubleReference) {
  const char* program = R"(
func.func @main(%x: tensor<300x2000xf32>) -> (tensor<300xf32>, tensor<2000xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %rows = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1]
      : (tensor<300x2000xf32>, tensor<f32>) -> tensor<300xf32>
  %cols = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0]
      : (tensor<300x2000xf32>, tensor<f32>) -> tensor<2000xf32>
  return %rows, %cols : tensor<300xf32>, tensor<2000xf32>
}
)";
  std::mt19937 random(3);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> x(300 * 2000);
  for (float& v : x) v = dist(random);
  std::vector<double> rows(300, 0), cols(2000, 0);
  for (size_t r = 0; r < 300; ++r) {
    for (size_t c = 0; c < 2000; ++c) {
      rows[r] += x[r * 2000 + c];
      cols[c] += x[r * 2000 + c];
    }
  }
  BERTH_RUN(out, program, {Literal::Of<float>(x, {300, 2000})});
  std::vector<float> got_rows = out[0].Values<float>();
  std::vector<float> got_cols = out[1].Values<float>();
  for (size_t r = 0; r < 300; ++r) ASSERT_NEAR(got_rows[r], rows[r], 1e-3) << r;
  for (size_t c = 0; c < 2000; ++c) ASSERT_NEAR(got_cols[c], cols[c], 1e-3) << c;
}

// The documented order of a float row (plugins/cpu/isa/reduce_loops.cc):
// rows of 32768 or more fold in blocks of 16384 (the last taking the rest),
// each block in eight lanes then its tail, the blocks in order; shorter rows
// of 16 or more in eight lanes then the tail. Computed here in plain scalar
// code, for comparison bit for bit.
template <typename T>
T LaneFold(const T* p, int64_t n) {
  T lanes[8];
  for (int j = 0; j < 8; ++j) lanes[j] = p[j];
  int64_t i = 8;
  for (; i + 8 <= n; i += 8) {
    for (int j = 0; j < 8; ++j) lanes[j] = lanes[j] + p[i + j];
  }
  T part = lanes[0];
  for (int j = 1; j < 8; ++j) part = part + lanes[j];
  for (; i < n; ++i) part = part + p[i];
  return part;
}

template <typename T>
T RowSum(const T* p, int64_t n, T acc) {
  constexpr int64_t kBlock = 16384;
  if (n < 2 * kBlock) return acc + LaneFold(p, n);
  const int64_t blocks = n / kBlock;
  T part = LaneFold(p, kBlock);
  for (int64_t b = 1; b < blocks; ++b) {
    part = part + LaneFold(p + b * kBlock, b == blocks - 1 ? n - b * kBlock : kBlock);
  }
  return acc + part;
}

TEST(CpuReduceTest, LongFloatRowsFoldInBlocksOfEightLaneFoldsInOrder) {
  // Rows of 40000 (two blocks and a longer last one), two rows per result
  // (a kept dimension between the reduced ones), and one f64 row of 70001:
  // few results, so the blocks run on several threads; 70 rows of 33000:
  // enough results for a thread each. The bits must be those of the order
  // above all the same.
  const char* program = R"(
func.func @main(%x: tensor<3x40000xf32>, %y: tensor<2x3x40000xf32>, %z: tensor<70001xf64>, %w: tensor<70x33000xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<f64>, tensor<70xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %one = stablehlo.constant dense<1.0> : tensor<f64>
  %a = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1]
      : (tensor<3x40000xf32>, tensor<f32>) -> tensor<3xf32>
  %b = stablehlo.reduce(%y init: %zero) applies stablehlo.add across dimensions = [0, 2]
      : (tensor<2x3x40000xf32>, tensor<f32>) -> tensor<3xf32>
  %c = stablehlo.reduce(%z init: %one) applies stablehlo.add across dimensions = [0]
      : (tensor<70001xf64>, tensor<f64>) -> tensor<f64>
  %d = stablehlo.reduce(%w init: %zero) applies stablehlo.add across dimensions = [1]
      : (tensor<70x33000xf32>, tensor<f32>) -> tensor<70xf32>
  return %a, %b, %c, %d : tensor<3xf32>, tensor<3xf32>, tensor<f64>, tensor<70xf32>
}
)";
  std::mt19937 random(11);
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-12, 12);
  auto value = [&] { return std::ldexp(mantissa(random), exponent(random)); };
  std::vector<float> x(3 * 40000), y(2 * 3 * 40000);
  std::vector<double> z(70001);
  std::vector<float> w(70 * 33000);
  for (float& v : w) v = static_cast<float>(value());
  for (float& v : x) v = static_cast<float>(value());
  for (float& v : y) v = static_cast<float>(value());
  for (double& v : z) v = value();
  BERTH_RUN(out, program,
            {Literal::Of<float>(x, {3, 40000}), Literal::Of<float>(y, {2, 3, 40000}),
             Literal::Of<double>(z, {70001}), Literal::Of<float>(w, {70, 33000})});
  const std::vector<float> a = out[0].Values<float>(), b = out[1].Values<float>();
  for (int64_t r = 0; r < 3; ++r) {
    EXPECT_EQ(a[r], RowSum(x.data() + r * 40000, 40000, 0.0f)) << "row " << r;
    // Result r folds rows (0, r) and (1, r) of y, in that order.
    float acc = RowSum(y.data() + r * 40000, 40000, 0.0f);
    acc = RowSum(y.data() + (3 + r) * 40000, 40000, acc);
    EXPECT_EQ(b[r], acc) << "result " << r;
  }
  EXPECT_EQ(out[2].Values<double>()[0], RowSum(z.data(), 70001, 1.0));
  const std::vector<float> d = out[3].Values<float>();
  for (int64_t r = 0; r < 70; ++r) EXPECT_EQ(d[r], RowSum(w.data() + r * 33000, 33000, 0.0f)) << r;
}

TEST(CpuReduceTest, NanPropagatesThroughSums) {
  const char* program = R"(
func.func @main(%x: tensor<2x40xf32>) -> tensor<2xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1]
      : (tensor<2x40xf32>, tensor<f32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
)";
  std::vector<float> x(80, 1.0f);
  x[17] = std::numeric_limits<float>::quiet_NaN();
  x[40] = std::numeric_limits<float>::infinity();
  BERTH_RUN(out, program, {Literal::Of<float>(x, {2, 40})});
  std::vector<float> got = out[0].Values<float>();
  EXPECT_TRUE(std::isnan(got[0]));
  EXPECT_EQ(got[1], std::numeric_limits<float>::infinity());
}

// The same reduction through the typed loops (body `add`) and through the
// body region (an equivalent two-op body) must agree exactly on integers.
TEST(CpuReduceTest, TypedLoopsAndRegionBodiesAgree) {
  const char* program = R"(
func.func @main(%x: tensor<3x4x5x2xi32>) -> (tensor<4x2xi32>, tensor<4x2xi32>, tensor<3x5xi32>, tensor<3x5xi32>) {
  %init = stablehlo.constant dense<7> : tensor<i32>
  %fast = stablehlo.reduce(%x init: %init) applies stablehlo.add across dimensions = [0, 2]
      : (tensor<3x4x5x2xi32>, tensor<i32>) -> tensor<4x2xi32>
  %slow = "stablehlo.reduce"(%x, %init) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %one = stablehlo.constant dense<1> : tensor<i32>
      %s = stablehlo.add %a, %b : tensor<i32>
      %m = stablehlo.multiply %s, %one : tensor<i32>
      stablehlo.return %m : tensor<i32>
  }) {dimensions = array<i64: 0, 2>} : (tensor<3x4x5x2xi32>, tensor<i32>) -> tensor<4x2xi32>
  %fast2 = stablehlo.reduce(%x init: %init) applies stablehlo.multiply across dimensions = [1, 3]
      : (tensor<3x4x5x2xi32>, tensor<i32>) -> tensor<3x5xi32>
  %slow2 = "stablehlo.reduce"(%x, %init) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %s = stablehlo.multiply %a, %b : tensor<i32>
      %m = stablehlo.add %s, %zero : tensor<i32>
      stablehlo.return %m : tensor<i32>
  }) {dimensions = array<i64: 1, 3>} : (tensor<3x4x5x2xi32>, tensor<i32>) -> tensor<3x5xi32>
  return %fast, %slow, %fast2, %slow2 : tensor<4x2xi32>, tensor<4x2xi32>, tensor<3x5xi32>, tensor<3x5xi32>
}
)";
  std::mt19937 random(1);
  std::vector<int32_t> x(3 * 4 * 5 * 2);
  for (int32_t& v : x) v = static_cast<int32_t>(random());
  BERTH_RUN(out, program, {Literal::Of<int32_t>(x, {3, 4, 5, 2})});
  EXPECT_EQ(out[0].Values<int32_t>(), out[1].Values<int32_t>());
  EXPECT_EQ(out[2].Values<int32_t>(), out[3].Values<int32_t>());
  int32_t first = 7;  // result [0][0]: init plus x[i][0][k][0] over i, k
  for (int i = 0; i < 3; ++i) {
    for (int k = 0; k < 5; ++k) {
      first = static_cast<int32_t>(static_cast<uint32_t>(first) +
                                   static_cast<uint32_t>(x[((i * 4) * 5 + k) * 2]));
    }
  }
  EXPECT_EQ(out[0].Values<int32_t>()[0], first);
}

TEST(CpuReduceTest, I1AddIsOrAndMultiplyIsAnd) {
  const char* program = R"(
func.func @main(%x: tensor<3x2xi1>) -> (tensor<2xi1>, tensor<2xi1>) {
  %f = stablehlo.constant dense<false> : tensor<i1>
  %t = stablehlo.constant dense<true> : tensor<i1>
  %any = stablehlo.reduce(%x init: %f) applies stablehlo.add across dimensions = [0]
      : (tensor<3x2xi1>, tensor<i1>) -> tensor<2xi1>
  %all = stablehlo.reduce(%x init: %t) applies stablehlo.multiply across dimensions = [0]
      : (tensor<3x2xi1>, tensor<i1>) -> tensor<2xi1>
  return %any, %all : tensor<2xi1>, tensor<2xi1>
}
)";
  BERTH_RUN(out, program, {Literal::Of<bool>({false, true, false, true, false, true}, {3, 2})});
  EXPECT_THAT(out[0].Values<bool>(), ElementsAre(false, true));
  EXPECT_THAT(out[1].Values<bool>(), ElementsAre(false, true));
}

TEST(CpuReduceTest, NonCommutativeBodyFoldsWithTheAccumulatorOnTheLeft) {
  // acc = body(acc, x) starting from the init value: ((100 - 1) - 2) - 3.
  const char* program = R"(
func.func @main(%x: tensor<3xi32>) -> tensor<i32> {
  %init = stablehlo.constant dense<100> : tensor<i32>
  %r = "stablehlo.reduce"(%x, %init) ({
    ^bb0(%acc: tensor<i32>, %e: tensor<i32>):
      %d = stablehlo.subtract %acc, %e : tensor<i32>
      stablehlo.return %d : tensor<i32>
  }) {dimensions = array<i64: 0>} : (tensor<3xi32>, tensor<i32>) -> tensor<i32>
  return %r : tensor<i32>
}
)";
  BERTH_RUN(out, program, {Literal::Of<int32_t>({1, 2, 3}, {3})});
  EXPECT_THAT(out[0].Values<int32_t>(), ElementsAre(94));
}

TEST(CpuReduceTest, NonCommutativeBodySeesElementsInLexicographicOrder) {
  // acc * 10 + x over all dims of [[1, 2], [3, 4]] and over dim 0 only.
  const char* program = R"(
func.func @main(%x: tensor<2x2xi32>) -> (tensor<i32>, tensor<2xi32>) {
  %init = stablehlo.constant dense<0> : tensor<i32>
  %all = "stablehlo.reduce"(%x, %init) ({
    ^bb0(%acc: tensor<i32>, %e: tensor<i32>):
      %ten = stablehlo.constant dense<10> : tensor<i32>
      %m = stablehlo.multiply %acc, %ten : tensor<i32>
      %s = stablehlo.add %m, %e : tensor<i32>
      stablehlo.return %s : tensor<i32>
  }) {dimensions = array<i64: 0, 1>} : (tensor<2x2xi32>, tensor<i32>) -> tensor<i32>
  %cols = "stablehlo.reduce"(%x, %init) ({
    ^bb0(%acc: tensor<i32>, %e: tensor<i32>):
      %ten = stablehlo.constant dense<10> : tensor<i32>
      %m = stablehlo.multiply %acc, %ten : tensor<i32>
      %s = stablehlo.add %m, %e : tensor<i32>
      stablehlo.return %s : tensor<i32>
  }) {dimensions = array<i64: 0>} : (tensor<2x2xi32>, tensor<i32>) -> tensor<2xi32>
  return %all, %cols : tensor<i32>, tensor<2xi32>
}
)";
  BERTH_RUN(out, program, {Literal::Of<int32_t>({1, 2, 3, 4}, {2, 2})});
  EXPECT_THAT(out[0].Values<int32_t>(), ElementsAre(1234));
  EXPECT_THAT(out[1].Values<int32_t>(), ElementsAre(13, 24));
}

TEST(CpuReduceTest, MultipleInputsReduceTogether) {
  // (sum of x, product of y) in one variadic reduce.
  const char* program = R"(
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xi64>) -> (tensor<2xf32>, tensor<2xi64>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %s, %p = stablehlo.reduce(%x init: %zero), (%y init: %one) across dimensions = [1]
      : (tensor<2x3xf32>, tensor<2x3xi64>, tensor<f32>, tensor<i64>) -> (tensor<2xf32>, tensor<2xi64>)
    reducer(%a: tensor<f32>, %b: tensor<f32>) (%c: tensor<i64>, %d: tensor<i64>) {
      %0 = stablehlo.add %a, %b : tensor<f32>
      %1 = stablehlo.multiply %c, %d : tensor<i64>
      stablehlo.return %0, %1 : tensor<f32>, tensor<i64>
    }
  return %s, %p : tensor<2xf32>, tensor<2xi64>
}
)";
  BERTH_RUN(out, program,
            {Literal::Of<float>({1, 2, 3, 4, 5, 6}, {2, 3}),
             Literal::Of<int64_t>({1, 2, 3, 4, 5, 6}, {2, 3})});
  EXPECT_THAT(out[0].Values<float>(), ElementsAre(6, 15));
  EXPECT_THAT(out[1].Values<int64_t>(), ElementsAre(6, 120));
}

TEST(CpuReduceTest, ArgmaxPatternReturnsValueAndFirstIndex) {
  const char* program = R"(
func.func @main(%x: tensor<2x4xf32>) -> (tensor<2xf32>, tensor<2xi32>) {
  %idx = stablehlo.iota dim = 1 : tensor<2x4xi32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %v, %i = stablehlo.reduce(%x init: %ninf), (%idx init: %zero) across dimensions = [1]
      : (tensor<2x4xf32>, tensor<2x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
    reducer(%a: tensor<f32>, %b: tensor<f32>) (%ai: tensor<i32>, %bi: tensor<i32>) {
      %gt = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %eq = stablehlo.compare EQ, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %lt = stablehlo.compare LT, %ai, %bi : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %tie = stablehlo.and %eq, %lt : tensor<i1>
      %keep = stablehlo.or %gt, %tie : tensor<i1>
      %mv = stablehlo.select %keep, %a, %b : tensor<i1>, tensor<f32>
      %mi = stablehlo.select %keep, %ai, %bi : tensor<i1>, tensor<i32>
      stablehlo.return %mv, %mi : tensor<f32>, tensor<i32>
    }
  return %v, %i : tensor<2xf32>, tensor<2xi32>
}
)";
  BERTH_RUN(out, program, {Literal::Of<float>({1, 5, 3, 5, -2, -1, -7, -3}, {2, 4})});
  EXPECT_THAT(out[0].Values<float>(), ElementsAre(5, -1));
  EXPECT_THAT(out[1].Values<int32_t>(), ElementsAre(1, 1));
}

TEST(CpuReduceTest, MaximumAndMinimumPropagateNanAndOrderSignedZeros) {
  const char* program = R"(
func.func @main(%x: tensor<4x3xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %pinf = stablehlo.constant dense<0x7F800000> : tensor<f32>
  %max = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1]
      : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
  %min = stablehlo.reduce(%x init: %pinf) applies stablehlo.minimum across dimensions = [1]
      : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
  return %max, %min : tensor<4xf32>, tensor<4xf32>
}
)";
  const float nan = std::numeric_limits<float>::quiet_NaN();
  BERTH_RUN(out, program,
                    {Literal::Of<float>({1, 7, -3,  //
                                         2, nan, 9,  //
                                         -0.0f, 0.0f, -0.0f,  //
                                         0.0f, -0.0f, 0.0f},
                                        {4, 3})});
  std::vector<float> max = out[0].Values<float>();
  std::vector<float> min = out[1].Values<float>();
  EXPECT_EQ(max[0], 7);
  EXPECT_EQ(min[0], -3);
  EXPECT_TRUE(std::isnan(max[1]));
  EXPECT_TRUE(std::isnan(min[1]));
  EXPECT_FALSE(std::signbit(max[2]));
  EXPECT_TRUE(std::signbit(min[3]));
}

TEST(CpuReduceTest, IntegerMaxMinAndBitwiseReducers) {
  const char* program = R"(
func.func @main(%x: tensor<2x3xi8>) -> (tensor<2xi8>, tensor<2xi8>, tensor<2xi8>, tensor<2xi8>, tensor<2xi8>) {
  %lo = stablehlo.constant dense<-128> : tensor<i8>
  %hi = stablehlo.constant dense<127> : tensor<i8>
  %ones = stablehlo.constant dense<-1> : tensor<i8>
  %zero = stablehlo.constant dense<0> : tensor<i8>
  %max = stablehlo.reduce(%x init: %lo) applies stablehlo.maximum across dimensions = [1]
      : (tensor<2x3xi8>, tensor<i8>) -> tensor<2xi8>
  %min = stablehlo.reduce(%x init: %hi) applies stablehlo.minimum across dimensions = [1]
      : (tensor<2x3xi8>, tensor<i8>) -> tensor<2xi8>
  %and = stablehlo.reduce(%x init: %ones) applies stablehlo.and across dimensions = [1]
      : (tensor<2x3xi8>, tensor<i8>) -> tensor<2xi8>
  %or = stablehlo.reduce(%x init: %zero) applies stablehlo.or across dimensions = [1]
      : (tensor<2x3xi8>, tensor<i8>) -> tensor<2xi8>
  %xor = stablehlo.reduce(%x init: %zero) applies stablehlo.xor across dimensions = [1]
      : (tensor<2x3xi8>, tensor<i8>) -> tensor<2xi8>
  return %max, %min, %and, %or, %xor : tensor<2xi8>, tensor<2xi8>, tensor<2xi8>, tensor<2xi8>, tensor<2xi8>
}
)";
  BERTH_RUN(out, program, {Literal::Of<int8_t>({3, -7, 12, 6, 5, 7}, {2, 3})});
  EXPECT_THAT(out[0].Values<int8_t>(), ElementsAre(12, 7));
  EXPECT_THAT(out[1].Values<int8_t>(), ElementsAre(-7, 5));
  EXPECT_THAT(out[2].Values<int8_t>(), ElementsAre(3 & -7 & 12, 6 & 5 & 7));
  EXPECT_THAT(out[3].Values<int8_t>(), ElementsAre(3 | -7 | 12, 6 | 5 | 7));
  EXPECT_THAT(out[4].Values<int8_t>(), ElementsAre(3 ^ -7 ^ 12, 6 ^ 5 ^ 7));
}

TEST(CpuReduceTest, NarrowInputsPromoteToTheBodyType) {
  const char* program = R"(
func.func @main(%x: tensor<3xi8>) -> tensor<i32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %r = "stablehlo.reduce"(%x, %zero) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %s = stablehlo.add %a, %b : tensor<i32>
      stablehlo.return %s : tensor<i32>
  }) {dimensions = array<i64: 0>} : (tensor<3xi8>, tensor<i32>) -> tensor<i32>
  return %r : tensor<i32>
}
)";
  BERTH_RUN(out, program, {Literal::Of<int8_t>({100, 100, -50}, {3})});
  EXPECT_THAT(out[0].Values<int32_t>(), ElementsAre(150));
}

TEST(CpuReduceTest, HalfAndBfloat16SumsRoundLikeTheBody) {
  const char* program = R"(
func.func @main(%x: tensor<3xf16>, %y: tensor<3xbf16>) -> (tensor<f16>, tensor<bf16>) {
  %h0 = stablehlo.constant dense<0.0> : tensor<f16>
  %b0 = stablehlo.constant dense<0.0> : tensor<bf16>
  %sx = stablehlo.reduce(%x init: %h0) applies stablehlo.add across dimensions = [0]
      : (tensor<3xf16>, tensor<f16>) -> tensor<f16>
  %sy = stablehlo.reduce(%y init: %b0) applies stablehlo.add across dimensions = [0]
      : (tensor<3xbf16>, tensor<bf16>) -> tensor<bf16>
  return %sx, %sy : tensor<f16>, tensor<bf16>
}
)";
  // f16 1, 2, 3 (0x3C00, 0x4000, 0x4200) sum to 6 (0x4600); bf16 256 + 1 + 1
  // rounds to 256 at each step.
  BERTH_RUN(out, program,
            {Literal::Raw<uint16_t>(ElementType::kF16, {0x3C00, 0x4000, 0x4200}, {3}),
             Literal::Raw<uint16_t>(ElementType::kBF16,
                                    {testing::ToBf16(256), testing::ToBf16(1), testing::ToBf16(1)},
                                    {3})});
  EXPECT_THAT(out[0].Values<uint16_t>(), ElementsAre(0x4600));
  EXPECT_EQ(testing::FromBf16(out[1].Values<uint16_t>()[0]), 256.0f);
}

TEST(CpuMapTest, AppliesTheComputationPerElement) {
  const char* program = R"(
func.func @main(%x: tensor<2x2xf32>, %y: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %r = "stablehlo.map"(%x, %y) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.multiply %a, %b : tensor<f32>
      %s = stablehlo.add %m, %a : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) {dimensions = array<i64: 0, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
)";
  BERTH_RUN(out, program,
            {Literal::Of<float>({1, 2, 3, 4}, {2, 2}), Literal::Of<float>({10, 20, 30, 40}, {2, 2})});
  EXPECT_THAT(out[0].Values<float>(), ElementsAre(11, 42, 93, 164));
}

TEST(CpuMapTest, RankZeroAndEmptyInputs) {
  const char* program = R"(
func.func @main(%x: tensor<i32>) -> (tensor<i32>, tensor<0x3xi32>) {
  %e = stablehlo.constant dense<> : tensor<0x3xi32>
  %r = "stablehlo.map"(%x) ({
    ^bb0(%a: tensor<i32>):
      %n = stablehlo.negate %a : tensor<i32>
      stablehlo.return %n : tensor<i32>
  }) {dimensions = array<i64>} : (tensor<i32>) -> tensor<i32>
  %s = "stablehlo.map"(%e) ({
    ^bb0(%a: tensor<i32>):
      %n = stablehlo.negate %a : tensor<i32>
      stablehlo.return %n : tensor<i32>
  }) {dimensions = array<i64: 0, 1>} : (tensor<0x3xi32>) -> tensor<0x3xi32>
  return %r, %s : tensor<i32>, tensor<0x3xi32>
}
)";
  BERTH_RUN(out, program, {Literal::Of<int32_t>({std::numeric_limits<int32_t>::min()}, {})});
  EXPECT_THAT(out[0].Values<int32_t>(), ElementsAre(std::numeric_limits<int32_t>::min()));
  EXPECT_EQ(out[1].dims, (std::vector<int64_t>{0, 3}));
}

}  // namespace
}  // namespace berth::testing
