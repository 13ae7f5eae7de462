// stablehlo.sort on the cpu plugin: comparators recognized as one compare
// (computed natively) and general comparator regions, stability, NaN
// ordering, several operands, every dimension.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "kernel_test_util.hpp"

namespace berth::testing {
namespace {

// A sort of `types` (one per operand, same shape `shape`) along `dimension`
// whose comparator body is `body` over arguments %a0, %b0, %a1, %b1 ...
std::string SortProgram(const std::vector<std::string>& types, const std::string& shape,
                        int64_t dimension, const std::string& body, bool stable = true) {
  std::string params, results, operands, args, returns;
  for (size_t i = 0; i < types.size(); ++i) {
    std::string t = "tensor<" + shape + types[i] + ">";
    std::string s = "tensor<" + types[i] + ">";
    params += (i ? ", " : "") + std::string("%x") + std::to_string(i) + ": " + t;
    results += (i ? ", " : "") + t;
    operands += (i ? ", " : "") + std::string("%x") + std::to_string(i);
    args += (i ? ", " : "") + std::string("%a") + std::to_string(i) + ": " + s + ", %b" + std::to_string(i) + ": " + s;
    returns += (i ? ", " : "") + std::string("%0#") + std::to_string(i);
  }
  std::string lhs = "%0:" + std::to_string(types.size());
  if (types.size() == 1) {
    lhs = "%0";
    returns = "%0";
  }
  std::string p = "func.func @main(" + params + ") -> (" + results + ") {\n";
  p += "  " + lhs + " = \"stablehlo.sort\"(" + operands + ") ({\n  ^bb0(" + args + "):\n";
  p += body + "\n  }) {dimension = " + std::to_string(dimension) + " : i64, is_stable = " +
       (stable ? "true" : "false") + "} : (" + results + ") -> (" + results + ")\n";
  p += "  return " + returns + " : " + results + "\n}\n";
  return p;
}

std::string Compare(const std::string& dir, const std::string& lhs, const std::string& rhs,
                    const std::string& type, const std::string& element) {
  return "    %c = stablehlo.compare " + dir + ", " + lhs + ", " + rhs + ", " + type + " : (tensor<" + element +
         ">, tensor<" + element + ">) -> tensor<i1>\n    stablehlo.return %c : tensor<i1>";
}

TEST(SortKernelTest, StableSortKeepsTiesInOrderAndCarriesPayload) {
  BERTH_RUN(out, SortProgram({"i32", "i64"}, "6x", 0, Compare("LT", "%a0", "%b0", "SIGNED", "i32")),
                    (std::vector<Literal>{Literal::Of<int32_t>({3, -1, 3, -1, 2, INT32_MIN}, {6}),
                                          Literal::Of<int64_t>(Iota<int64_t>(6), {6})}));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_THAT(out[0].Values<int32_t>(), ElementsAre(INT32_MIN, -1, -1, 2, 3, 3));
  EXPECT_THAT(out[1].Values<int64_t>(), ElementsAre(5, 1, 3, 4, 0, 2));
}

TEST(SortKernelTest, SortsAlongEachDimensionIncludingNegative) {
  const std::vector<int64_t> in = {1, 2, 3, 3, 2, 1};
  for (int64_t dim : {0, 1, -1, -2}) {
    BERTH_RUN(out, SortProgram({"i64"}, "2x3x", dim, Compare("GT", "%a0", "%b0", "SIGNED", "i64")),
                      (std::vector<Literal>{Literal::Of<int64_t>(in, {2, 3})}));
    ASSERT_EQ(out.size(), 1u);
    if (dim == 0 || dim == -2) {
      EXPECT_THAT(out[0].Values<int64_t>(), ElementsAre(3, 2, 3, 1, 2, 1)) << dim;
    } else {
      EXPECT_THAT(out[0].Values<int64_t>(), ElementsAre(3, 2, 1, 3, 2, 1)) << dim;
    }
  }
}

TEST(SortKernelTest, ComparatorOnTheSecondOperandWithSwappedArguments) {
  // compare LT %b1, %a1 sorts operand 1 in descending order.
  BERTH_RUN(out, SortProgram({"f32", "ui8"}, "4x", 0, Compare("LT", "%b1", "%a1", "UNSIGNED", "ui8")),
                    (std::vector<Literal>{Literal::Of<float>({0.5f, 1.5f, 2.5f, 3.5f}, {4}),
                                          Literal::Of<uint8_t>({7, 255, 0, 7}, {4})}));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_THAT(out[1].Values<uint8_t>(), ElementsAre(255, 7, 7, 0));
  EXPECT_THAT(out[0].Values<float>(), ElementsAre(1.5f, 0.5f, 3.5f, 2.5f));
}

TEST(SortKernelTest, TotalOrderPlacesNegativeNaNFirstAndNaNLast) {
  float nan = std::nanf(""), neg_nan = -std::nanf("");
  float inf = INFINITY;
  BERTH_RUN(out, SortProgram({"f32"}, "8x", 0, Compare("LT", "%a0", "%b0", "TOTALORDER", "f32")),
                    (std::vector<Literal>{Literal::Of<float>({nan, 1, -0.0f, neg_nan, -inf, 0.0f, inf, -1}, {8})}));
  ASSERT_EQ(out.size(), 1u);
  std::vector<float> v = out[0].Values<float>();
  EXPECT_TRUE(std::isnan(v[0]) && std::signbit(v[0]));
  EXPECT_EQ(v[1], -inf);
  EXPECT_EQ(v[2], -1);
  EXPECT_TRUE(v[3] == 0 && std::signbit(v[3]));
  EXPECT_TRUE(v[4] == 0 && !std::signbit(v[4]));
  EXPECT_EQ(v[5], 1);
  EXPECT_EQ(v[6], inf);
  EXPECT_TRUE(std::isnan(v[7]) && !std::signbit(v[7]));
}

TEST(SortKernelTest, TotalOrderOnHalfPrecisionBitPatterns) {
  // f16: 0x7E00 NaN, 0xFC00 -inf, 0x8000 -0, 0x0000 +0, 0x3C00 1, 0xBC00 -1.
  BERTH_RUN(out, SortProgram({"f16"}, "6x", 0, Compare("GT", "%a0", "%b0", "TOTALORDER", "f16")),
                    (std::vector<Literal>{Literal::Raw<uint16_t>(ElementType::kF16,
                                                                 {0x3C00, 0x8000, 0x7E00, 0xFC00, 0x0000, 0xBC00}, {6})}));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out[0].Values<uint16_t>(), ElementsAre(0x7E00, 0x3C00, 0x0000, 0x8000, 0xBC00, 0xFC00));
}

TEST(SortKernelTest, FloatComparatorGivesTheSameOrderNativelyAndThroughTheRegion) {
  // LT on FLOAT leaves NaN unordered; the native path must ask the same
  // questions as the region, so both agree even then.
  std::vector<float> in = {3, NAN, -1, 2, NAN, -1, 0, 5, -0.0f, 2};
  std::string native = Compare("LT", "%a0", "%b0", "FLOAT", "f32");
  std::string region =
      "    %c = stablehlo.compare LT, %a0, %b0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
      "    %t = stablehlo.constant dense<true> : tensor<i1>\n"
      "    %r = stablehlo.multiply %c, %t : tensor<i1>\n    stablehlo.return %r : tensor<i1>";
  std::vector<Literal> args = {Literal::Of<float>(in, {10}), Literal::Of<int32_t>(Iota<int32_t>(10), {10})};
  BERTH_RUN(a, SortProgram({"f32", "i32"}, "10x", 0, native), args);
  BERTH_RUN(b, SortProgram({"f32", "i32"}, "10x", 0, region), args);
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(a[1].Values<int32_t>(), b[1].Values<int32_t>());
  std::vector<int32_t> perm = a[1].Values<int32_t>();
  std::sort(perm.begin(), perm.end());
  EXPECT_EQ(perm, Iota<int32_t>(10));
}

TEST(SortKernelTest, GeneralComparatorRunsThroughTheRegion) {
  // Booleans ascending without a compare op: a < b is (not a) and b, with
  // `not a` supplied as a second operand and `and` as i1 multiply.
  std::string body =
      "    %r = stablehlo.multiply %a1, %b0 : tensor<i1>\n    stablehlo.return %r : tensor<i1>";
  auto result = testing::CpuRunner::Get().Run(
      SortProgram({"i1", "i1", "i32"}, "5x", 0, body),
      {Literal::Of<bool>({true, false, true, false, false}, {5}),
       Literal::Of<bool>({false, true, false, true, true}, {5}), Literal::Of<int32_t>(Iota<int32_t>(5), {5})});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->size(), 3u);
  EXPECT_THAT((*result)[0].Values<bool>(), ElementsAre(false, false, false, true, true));
  EXPECT_THAT((*result)[2].Values<int32_t>(), ElementsAre(1, 3, 4, 0, 2));
}

TEST(SortKernelTest, LargeRowsSortInParallelAndCarryPayload) {
  const int64_t rows = 64, cols = 4096;
  std::vector<double> keys(rows * cols);
  std::mt19937 rng(11);
  for (double& k : keys) k = static_cast<double>(rng() % 1000) - 500.0;
  BERTH_RUN(out, SortProgram({"f64", "i32"}, "64x4096x", 1, Compare("LT", "%a0", "%b0", "FLOAT", "f64")),
                    (std::vector<Literal>{Literal::Of<double>(keys, {rows, cols}),
                                          Literal::Of<int32_t>(Iota<int32_t>(rows * cols), {rows, cols})}));
  ASSERT_EQ(out.size(), 2u);
  std::vector<double> sorted = out[0].Values<double>();
  std::vector<int32_t> payload = out[1].Values<int32_t>();
  bool ok = true;
  for (int64_t r = 0; r < rows && ok; ++r) {
    for (int64_t c = 0; c < cols && ok; ++c) {
      int64_t i = r * cols + c;
      ok = keys[payload[i]] == sorted[i] && payload[i] / cols == r;
      // Stable: equal keys keep their original (payload) order.
      if (ok && c > 0) ok = sorted[i - 1] < sorted[i] || (sorted[i - 1] == sorted[i] && payload[i - 1] < payload[i]);
    }
  }
  EXPECT_TRUE(ok);
}

TEST(SortKernelTest, UnsignedAndNarrowIntegerKeys) {
  BERTH_RUN(out, SortProgram({"ui64", "i8"}, "4x", 0, Compare("LT", "%a0", "%b0", "UNSIGNED", "ui64")),
                    (std::vector<Literal>{Literal::Of<uint64_t>({1ull << 63, 5, ~0ull, 0}, {4}),
                                          Literal::Of<int8_t>({-128, 127, -1, 0}, {4})}));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_THAT(out[0].Values<uint64_t>(), ElementsAre(0, 5, 1ull << 63, ~0ull));
  EXPECT_THAT(out[1].Values<int8_t>(), ElementsAre(0, 127, -128, -1));
}

TEST(SortKernelTest, EmptyAndSingleElementDimensionsAreUnchanged) {
  BERTH_RUN(out, SortProgram({"bf16"}, "3x1x", 1, Compare("LT", "%a0", "%b0", "FLOAT", "bf16")),
                    (std::vector<Literal>{Literal::Raw<uint16_t>(ElementType::kBF16, {0x4000, 0x3F80, 0xC000}, {3, 1})}));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out[0].Values<uint16_t>(), ElementsAre(0x4000, 0x3F80, 0xC000));
  BERTH_RUN(empty, SortProgram({"f32"}, "0x4x", 1, Compare("LT", "%a0", "%b0", "FLOAT", "f32")),
                    (std::vector<Literal>{Literal::Of<float>({}, {0, 4})}));
  ASSERT_EQ(empty.size(), 1u);
  EXPECT_TRUE(empty[0].Values<float>().empty());
}

}  // namespace
}  // namespace berth::testing
