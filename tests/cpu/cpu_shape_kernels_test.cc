// The cpu plugin's data-movement kernels that rearrange whole tensors:
// reshape, transpose, broadcasts, reverse, concatenate, pad, slices and
// their dynamic forms, get_dimension_size. Expected values come from the
// StableHLO spec's formulas.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "kernel_test_util.hpp"

namespace berth::testing {
namespace {

// ------------------------------------------------------------------ reshape

TEST(ReshapeKernelTest, KeepsRowMajorOrder) {
  auto out = RunProgram(R"(func.func @main(%a: tensor<2x3xi32>) -> tensor<3x2xi32> {
    %0 = stablehlo.reshape %a : (tensor<2x3xi32>) -> tensor<3x2xi32>
    return %0 : tensor<3x2xi32> })", {Literal::Of<int32_t>(Iota<int32_t>(6), {2, 3})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{3, 2}));
  EXPECT_THAT(out[0].Values<int32_t>(), ElementsAre(0, 1, 2, 3, 4, 5));
}

TEST(ReshapeKernelTest, ScalarAndEmptyShapes) {
  auto out = RunProgram(R"(func.func @main(%a: tensor<f64>, %b: tensor<0x3xf32>) -> (tensor<1x1xf64>, tensor<3x0x5xf32>) {
    %0 = stablehlo.reshape %a : (tensor<f64>) -> tensor<1x1xf64>
    %1 = stablehlo.reshape %b : (tensor<0x3xf32>) -> tensor<3x0x5xf32>
    return %0, %1 : tensor<1x1xf64>, tensor<3x0x5xf32> })",
                 {Literal::Of<double>({-0.0}, {}), Literal::Of<float>({}, {0, 3})});
  ASSERT_EQ(out.size(), 2u);
  ASSERT_EQ(out[0].Values<double>().size(), 1u);
  EXPECT_TRUE(std::signbit(out[0].Values<double>()[0]));
  EXPECT_EQ(out[1].dims, (std::vector<int64_t>{3, 0, 5}));
}

TEST(ReshapeKernelTest, DynamicReshapeUsesTheShapeOperand) {
  auto out = RunProgram(R"(func.func @main(%a: tensor<1x6xui16>, %s: tensor<2xi64>) -> tensor<2x3xui16> {
    %0 = stablehlo.dynamic_reshape %a, %s : (tensor<1x6xui16>, tensor<2xi64>) -> tensor<2x3xui16>
    return %0 : tensor<2x3xui16> })",
                 {Literal::Of<uint16_t>({1, 2, 3, 4, 5, 65535}, {1, 6}),
                  Literal::Of<int64_t>({2, 3}, {2})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out[0].Values<uint16_t>(), ElementsAre(1, 2, 3, 4, 5, 65535));
}

TEST(ReshapeKernelTest, DynamicReshapeRejectsAShapeThatDisagreesWithTheType) {
  Status status = RunExpectingError(R"(func.func @main(%a: tensor<6xf32>, %s: tensor<2xi32>) -> tensor<2x3xf32> {
    %0 = stablehlo.dynamic_reshape %a, %s : (tensor<6xf32>, tensor<2xi32>) -> tensor<2x3xf32>
    return %0 : tensor<2x3xf32> })",
                           {Literal::Of<float>(Iota<float>(6), {6}), Literal::Of<int32_t>({3, 2}, {2})});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("would have shape [3, 2], but its type is tensor<2x3xf32>"));
}

TEST(ReshapeKernelTest, DynamicReshapeRejectsAnotherElementCount) {
  // The program returns static types only; the dynamic value is reshaped.
  Status status = RunExpectingError(R"(func.func @main(%a: tensor<6xf32>, %s: tensor<2xi32>) -> tensor<2x3xf32> {
    %0 = stablehlo.dynamic_reshape %a, %s : (tensor<6xf32>, tensor<2xi32>) -> tensor<?x3xf32>
    %1 = stablehlo.reshape %0 : (tensor<?x3xf32>) -> tensor<2x3xf32>
    return %1 : tensor<2x3xf32> })",
                           {Literal::Of<float>(Iota<float>(6), {6}), Literal::Of<int32_t>({4, 3}, {2})});
  EXPECT_THAT(status.message(), HasSubstr("element counts differ"));
}

// ---------------------------------------------------------------- transpose

// result[i] = operand[i permuted], by the spec's formula.
template <typename T>
std::vector<T> ReferenceTranspose(const std::vector<T>& in, const std::vector<int64_t>& dims,
                                  const std::vector<int64_t>& perm) {
  size_t rank = dims.size();
  std::vector<int64_t> out_dims(rank), in_strides(rank, 1);
  for (size_t i = rank; i-- > 1;) in_strides[i - 1] = in_strides[i] * dims[i];
  for (size_t i = 0; i < rank; ++i) out_dims[i] = dims[perm[i]];
  std::vector<T> out(in.size());
  std::vector<int64_t> idx(rank, 0);
  for (size_t o = 0; o < out.size(); ++o) {
    int64_t src = 0;
    for (size_t i = 0; i < rank; ++i) src += idx[i] * in_strides[perm[i]];
    out[o] = in[static_cast<size_t>(src)];
    for (size_t i = rank; i-- > 0;) {
      if (++idx[i] < out_dims[i]) break;
      idx[i] = 0;
    }
  }
  return out;
}

TEST(TransposeKernelTest, PermutesThreeDimensions) {
  std::vector<int32_t> in = Iota<int32_t>(24);
  auto out = RunProgram(R"(func.func @main(%a: tensor<2x3x4xi32>) -> tensor<4x2x3xi32> {
    %0 = stablehlo.transpose %a, dims = [2, 0, 1] : (tensor<2x3x4xi32>) -> tensor<4x2x3xi32>
    return %0 : tensor<4x2x3xi32> })", {Literal::Of<int32_t>(in, {2, 3, 4})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].Values<int32_t>(), ReferenceTranspose(in, {2, 3, 4}, {2, 0, 1}));
  std::vector<int32_t> values = out[0].Values<int32_t>();
  EXPECT_THAT(std::vector<int32_t>(values.begin(), values.begin() + 6), ElementsAre(0, 4, 8, 12, 16, 20));
}

TEST(TransposeKernelTest, LargeMatrixMatchesTheReference) {
  // Large enough for the tiled, parallel path; odd sizes leave partial tiles.
  std::vector<float> in(301 * 517);
  std::mt19937 rng(7);
  for (float& v : in) v = static_cast<float>(rng() % 100000);
  auto out = RunProgram(R"(func.func @main(%a: tensor<301x517xf32>) -> tensor<517x301xf32> {
    %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<301x517xf32>) -> tensor<517x301xf32>
    return %0 : tensor<517x301xf32> })", {Literal::Of<float>(in, {301, 517})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].Values<float>(), ReferenceTranspose(in, {301, 517}, {1, 0}));
}

TEST(TransposeKernelTest, BatchedTransposeOfInnerDimensionsMatchesTheReference) {
  std::vector<int64_t> in = Iota<int64_t>(3 * 40 * 7 * 5);
  auto out = RunProgram(R"(func.func @main(%a: tensor<3x40x7x5xi64>) -> tensor<3x5x7x40xi64> {
    %0 = stablehlo.transpose %a, dims = [0, 3, 2, 1] : (tensor<3x40x7x5xi64>) -> tensor<3x5x7x40xi64>
    return %0 : tensor<3x5x7x40xi64> })", {Literal::Of<int64_t>(in, {3, 40, 7, 5})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].Values<int64_t>(), ReferenceTranspose(in, {3, 40, 7, 5}, {0, 3, 2, 1}));
}

TEST(TransposeKernelTest, MovesEveryElementTypeBitExactly) {
  // f16 / bf16 bit patterns, including a NaN payload and -0.
  std::vector<uint16_t> halves = {0x7E01, 0x8000, 0x3C00, 0xFC00, 0x0001, 0x7BFF};
  const char* program = R"(func.func @main(%a: tensor<2x3xf16>, %b: tensor<2x3xbf16>, %c: tensor<2x3xi1>,
                                          %d: tensor<2x3xui64>, %e: tensor<2x3xi8>)
        -> (tensor<3x2xf16>, tensor<3x2xbf16>, tensor<3x2xi1>, tensor<3x2xui64>, tensor<3x2xi8>) {
    %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf16>) -> tensor<3x2xf16>
    %1 = stablehlo.transpose %b, dims = [1, 0] : (tensor<2x3xbf16>) -> tensor<3x2xbf16>
    %2 = stablehlo.transpose %c, dims = [1, 0] : (tensor<2x3xi1>) -> tensor<3x2xi1>
    %3 = stablehlo.transpose %d, dims = [1, 0] : (tensor<2x3xui64>) -> tensor<3x2xui64>
    %4 = stablehlo.transpose %e, dims = [1, 0] : (tensor<2x3xi8>) -> tensor<3x2xi8>
    return %0, %1, %2, %3, %4 : tensor<3x2xf16>, tensor<3x2xbf16>, tensor<3x2xi1>, tensor<3x2xui64>, tensor<3x2xi8> })";
  auto out = RunProgram(program, {Literal::Raw<uint16_t>(ElementType::kF16, halves, {2, 3}),
                           Literal::Raw<uint16_t>(ElementType::kBF16, halves, {2, 3}),
                           Literal::Of<bool>({true, false, false, true, true, false}, {2, 3}),
                           Literal::Of<uint64_t>({~0ull, 1, 2, 3, 4, 1ull << 63}, {2, 3}),
                           Literal::Of<int8_t>({-128, 127, -1, 0, 1, 2}, {2, 3})});
  ASSERT_EQ(out.size(), 5u);
  std::vector<uint16_t> expect = {0x7E01, 0xFC00, 0x8000, 0x0001, 0x3C00, 0x7BFF};
  EXPECT_EQ(out[0].Values<uint16_t>(), expect);
  EXPECT_EQ(out[1].Values<uint16_t>(), expect);
  EXPECT_THAT(out[2].Values<bool>(), ElementsAre(true, true, false, true, false, false));
  EXPECT_THAT(out[3].Values<uint64_t>(), ElementsAre(~0ull, 3, 1, 4, 2, 1ull << 63));
  EXPECT_THAT(out[4].Values<int8_t>(), ElementsAre(-128, 0, 127, 1, -1, 2));
}

TEST(TransposeKernelTest, RankZeroAndEmptyTensors) {
  auto out = RunProgram(R"(func.func @main(%a: tensor<ui8>, %b: tensor<0x4xf32>) -> (tensor<ui8>, tensor<4x0xf32>) {
    %0 = stablehlo.transpose %a, dims = [] : (tensor<ui8>) -> tensor<ui8>
    %1 = stablehlo.transpose %b, dims = [1, 0] : (tensor<0x4xf32>) -> tensor<4x0xf32>
    return %0, %1 : tensor<ui8>, tensor<4x0xf32> })",
                 {Literal::Of<uint8_t>({200}, {}), Literal::Of<float>({}, {0, 4})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_THAT(out[0].Values<uint8_t>(), ElementsAre(200));
  EXPECT_EQ(out[1].dims, (std::vector<int64_t>{4, 0}));
}

// ---------------------------------------------------------------- broadcast

TEST(BroadcastKernelTest, BroadcastInDimMapsAndExpandsDimensions) {
  auto out = RunProgram(R"(func.func @main(%a: tensor<3xi32>, %b: tensor<1x3xi32>, %c: tensor<i32>)
      -> (tensor<2x3xi32>, tensor<3x2xi32>, tensor<2x3xi32>, tensor<2x2xi32>) {
    %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xi32>) -> tensor<2x3xi32>
    %1 = stablehlo.broadcast_in_dim %a, dims = [0] : (tensor<3xi32>) -> tensor<3x2xi32>
    %2 = stablehlo.broadcast_in_dim %b, dims = [0, 1] : (tensor<1x3xi32>) -> tensor<2x3xi32>
    %3 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2x2xi32>
    return %0, %1, %2, %3 : tensor<2x3xi32>, tensor<3x2xi32>, tensor<2x3xi32>, tensor<2x2xi32> })",
                 {Literal::Of<int32_t>({1, 2, 3}, {3}), Literal::Of<int32_t>({4, 5, 6}, {1, 3}),
                  Literal::Of<int32_t>({-7}, {})});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_THAT(out[0].Values<int32_t>(), ElementsAre(1, 2, 3, 1, 2, 3));
  EXPECT_THAT(out[1].Values<int32_t>(), ElementsAre(1, 1, 2, 2, 3, 3));
  EXPECT_THAT(out[2].Values<int32_t>(), ElementsAre(4, 5, 6, 4, 5, 6));
  EXPECT_THAT(out[3].Values<int32_t>(), ElementsAre(-7, -7, -7, -7));
}

TEST(BroadcastKernelTest, BroadcastInDimTransposesWhenDimensionsAreOutOfOrder) {
  auto out = RunProgram(R"(func.func @main(%a: tensor<2x3xf64>) -> tensor<3x4x2xf64> {
    %0 = stablehlo.broadcast_in_dim %a, dims = [2, 0] : (tensor<2x3xf64>) -> tensor<3x4x2xf64>
    return %0 : tensor<3x4x2xf64> })", {Literal::Of<double>({0, 1, 2, 3, 4, 5}, {2, 3})});
  ASSERT_EQ(out.size(), 1u);
  std::vector<double> expect;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 2; ++k) expect.push_back(k * 3 + i);
  EXPECT_EQ(out[0].Values<double>(), expect);
}

TEST(BroadcastKernelTest, BroadcastToEmptyAndOfBooleans) {
  auto out = RunProgram(R"(func.func @main(%a: tensor<2xi1>) -> (tensor<0x2xi1>, tensor<2x2xi1>) {
    %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<2xi1>) -> tensor<0x2xi1>
    %1 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<2xi1>) -> tensor<2x2xi1>
    return %0, %1 : tensor<0x2xi1>, tensor<2x2xi1> })", {Literal::Of<bool>({true, false}, {2})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(out[0].Values<bool>().empty());
  EXPECT_THAT(out[1].Values<bool>(), ElementsAre(true, false, true, false));
}

TEST(BroadcastKernelTest, LargeBroadcastMatchesTheReference) {
  std::vector<float> row = Iota<float>(1000);
  auto out = RunProgram(R"(func.func @main(%a: tensor<1000xf32>) -> (tensor<300x1000xf32>, tensor<1000x300xf32>) {
    %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<1000xf32>) -> tensor<300x1000xf32>
    %1 = stablehlo.broadcast_in_dim %a, dims = [0] : (tensor<1000xf32>) -> tensor<1000x300xf32>
    return %0, %1 : tensor<300x1000xf32>, tensor<1000x300xf32> })", {Literal::Of<float>(row, {1000})});
  ASSERT_EQ(out.size(), 2u);
  std::vector<float> a = out[0].Values<float>(), b = out[1].Values<float>();
  bool ok = true;
  for (int i = 0; i < 300 && ok; ++i)
    for (int j = 0; j < 1000 && ok; ++j) ok = a[i * 1000 + j] == j && b[j * 300 + i] == j;
  EXPECT_TRUE(ok);
}

TEST(BroadcastKernelTest, DynamicBroadcastInDimReadsOutputDimensions) {
  auto out = RunProgram(R"(func.func @main(%a: tensor<1x3xi64>, %d: tensor<3xi64>) -> tensor<2x3x2xi64> {
    %0 = "stablehlo.dynamic_broadcast_in_dim"(%a, %d) {broadcast_dimensions = array<i64: 2, 1>}
        : (tensor<1x3xi64>, tensor<3xi64>) -> tensor<2x3x2xi64>
    return %0 : tensor<2x3x2xi64> })", {Literal::Of<int64_t>({7, 8, 9}, {1, 3}),
                                       Literal::Of<int64_t>({2, 3, 2}, {3})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out[0].Values<int64_t>(), ElementsAre(7, 7, 8, 8, 9, 9, 7, 7, 8, 8, 9, 9));
}

TEST(BroadcastKernelTest, DynamicBroadcastRejectsDimensionsThatDoNotFit) {
  Status status = RunExpectingError(R"(func.func @main(%a: tensor<2xi64>, %d: tensor<2xi64>) -> tensor<2x3xi64> {
    %0 = "stablehlo.dynamic_broadcast_in_dim"(%a, %d) {broadcast_dimensions = array<i64: 1>}
        : (tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xi64>
    %1 = stablehlo.reshape %0 : (tensor<?x?xi64>) -> tensor<2x3xi64>
    return %1 : tensor<2x3xi64> })", {Literal::Of<int64_t>({1, 2}, {2}), Literal::Of<int64_t>({2, 3}, {2})});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("cannot broadcast to result dimension 1"));
}

TEST(BroadcastKernelTest, LegacyBroadcastPrependsDimensions) {
  auto out = RunProgram(R"(func.func @main(%a: tensor<2xi16>) -> tensor<3x2xi16> {
    %0 = "stablehlo.broadcast"(%a) {broadcast_sizes = array<i64: 3>} : (tensor<2xi16>) -> tensor<3x2xi16>
    return %0 : tensor<3x2xi16> })", {Literal::Of<int16_t>({-5, 5}, {2})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out[0].Values<int16_t>(), ElementsAre(-5, 5, -5, 5, -5, 5));
}

TEST(GetDimensionSizeKernelTest, ReturnsTheSizeAsI32) {
  auto out = RunProgram(R"(func.func @main(%a: tensor<2x5x0xf32>) -> (tensor<i32>, tensor<i32>) {
    %0 = stablehlo.get_dimension_size %a, dim = 1 : (tensor<2x5x0xf32>) -> tensor<i32>
    %1 = stablehlo.get_dimension_size %a, dim = 2 : (tensor<2x5x0xf32>) -> tensor<i32>
    return %0, %1 : tensor<i32>, tensor<i32> })", {Literal::Of<float>({}, {2, 5, 0})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_THAT(out[0].Values<int32_t>(), ElementsAre(5));
  EXPECT_THAT(out[1].Values<int32_t>(), ElementsAre(0));
}

// ------------------------------------------------------------------ reverse

TEST(ReverseKernelTest, ReversesTheGivenDimensions) {
  auto out = RunProgram(R"(func.func @main(%a: tensor<2x3xi32>) -> (tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>) {
    %0 = stablehlo.reverse %a, dims = [0] : tensor<2x3xi32>
    %1 = stablehlo.reverse %a, dims = [1] : tensor<2x3xi32>
    %2 = stablehlo.reverse %a, dims = [0, 1] : tensor<2x3xi32>
    %3 = stablehlo.reverse %a, dims = [] : tensor<2x3xi32>
    return %0, %1, %2, %3 : tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32> })",
                 {Literal::Of<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3})});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_THAT(out[0].Values<int32_t>(), ElementsAre(4, 5, 6, 1, 2, 3));
  EXPECT_THAT(out[1].Values<int32_t>(), ElementsAre(3, 2, 1, 6, 5, 4));
  EXPECT_THAT(out[2].Values<int32_t>(), ElementsAre(6, 5, 4, 3, 2, 1));
  EXPECT_THAT(out[3].Values<int32_t>(), ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST(ReverseKernelTest, RankZeroEmptyAndLargeTensors) {
  std::vector<uint8_t> big(100000);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<uint8_t>(i * 7);
  auto out = RunProgram(R"(func.func @main(%a: tensor<f32>, %b: tensor<0x3xf32>, %c: tensor<100000xui8>)
      -> (tensor<f32>, tensor<0x3xf32>, tensor<100000xui8>) {
    %0 = stablehlo.reverse %a, dims = [] : tensor<f32>
    %1 = stablehlo.reverse %b, dims = [0, 1] : tensor<0x3xf32>
    %2 = stablehlo.reverse %c, dims = [0] : tensor<100000xui8>
    return %0, %1, %2 : tensor<f32>, tensor<0x3xf32>, tensor<100000xui8> })",
                 {Literal::Of<float>({1.5f}, {}), Literal::Of<float>({}, {0, 3}), Literal::Of<uint8_t>(big, {100000})});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_THAT(out[0].Values<float>(), ElementsAre(1.5f));
  EXPECT_TRUE(out[1].Values<float>().empty());
  std::vector<uint8_t> expect(big.rbegin(), big.rend());
  EXPECT_EQ(out[2].Values<uint8_t>(), expect);
}

// -------------------------------------------------------------- concatenate

TEST(ConcatenateKernelTest, JoinsAlongEitherDimension) {
  auto out = RunProgram(R"(func.func @main(%a: tensor<1x2xi64>, %b: tensor<2x2xi64>, %c: tensor<2x1xi64>)
      -> (tensor<3x2xi64>, tensor<2x3xi64>) {
    %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<1x2xi64>, tensor<2x2xi64>) -> tensor<3x2xi64>
    %1 = stablehlo.concatenate %b, %c, dim = 1 : (tensor<2x2xi64>, tensor<2x1xi64>) -> tensor<2x3xi64>
    return %0, %1 : tensor<3x2xi64>, tensor<2x3xi64> })",
                 {Literal::Of<int64_t>({1, 2}, {1, 2}), Literal::Of<int64_t>({3, 4, 5, 6}, {2, 2}),
                  Literal::Of<int64_t>({7, 8}, {2, 1})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_THAT(out[0].Values<int64_t>(), ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_THAT(out[1].Values<int64_t>(), ElementsAre(3, 4, 7, 5, 6, 8));
}

TEST(ConcatenateKernelTest, SkipsEmptyOperandsAndMovesBooleans) {
  auto out = RunProgram(R"(func.func @main(%a: tensor<0x2xi1>, %b: tensor<1x2xi1>, %c: tensor<2x2xi1>) -> tensor<3x2xi1> {
    %0 = stablehlo.concatenate %a, %b, %a, %c, dim = 0 : (tensor<0x2xi1>, tensor<1x2xi1>, tensor<0x2xi1>, tensor<2x2xi1>) -> tensor<3x2xi1>
    return %0 : tensor<3x2xi1> })",
                 {Literal::Of<bool>({}, {0, 2}), Literal::Of<bool>({true, false}, {1, 2}),
                  Literal::Of<bool>({false, true, true, true}, {2, 2})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out[0].Values<bool>(), ElementsAre(true, false, false, true, true, true));
}

// ---------------------------------------------------------------------- pad

TEST(PadKernelTest, NegativeEdgesCropAndInteriorPaddingSpreads) {
  // Spec semantics: operand index i lands at low + i * (interior + 1).
  auto out = RunProgram(R"(func.func @main(%a: tensor<5x4xi64>, %p: tensor<i64>) -> tensor<7x5xi64> {
    %0 = stablehlo.pad %a, %p, low = [1, -1], high = [1, -1], interior = [0, 1]
        : (tensor<5x4xi64>, tensor<i64>) -> tensor<7x5xi64>
    return %0 : tensor<7x5xi64> })",
                 {Literal::Of<int64_t>(Iota<int64_t>(20, 10), {5, 4}), Literal::Of<int64_t>({-1}, {})});
  ASSERT_EQ(out.size(), 1u);
  // Columns of the interior-padded row [a, p, b, p, c, p, d] minus one each side.
  std::vector<int64_t> expect = {-1, -1, -1, -1, -1};
  for (int r = 0; r < 5; ++r) {
    int64_t base = 10 + 4 * r;
    std::vector<int64_t> row = {-1, base + 1, -1, base + 2, -1};
    expect.insert(expect.end(), row.begin(), row.end());
  }
  expect.insert(expect.end(), {-1, -1, -1, -1, -1});
  EXPECT_EQ(out[0].Values<int64_t>(), expect);
}

TEST(PadKernelTest, PositiveEdgesOfAFloatVectorKeepSignedZero) {
  auto out = RunProgram(R"(func.func @main(%a: tensor<2xf32>, %p: tensor<f32>) -> tensor<7xf32> {
    %0 = stablehlo.pad %a, %p, low = [2], high = [1], interior = [2]
        : (tensor<2xf32>, tensor<f32>) -> tensor<7xf32>
    return %0 : tensor<7xf32> })", {Literal::Of<float>({1, 2}, {2}), Literal::Of<float>({-0.0f}, {})});
  ASSERT_EQ(out.size(), 1u);
  std::vector<float> v = out[0].Values<float>();
  EXPECT_THAT(v, ElementsAre(0, 0, 1, 0, 0, 2, 0));
  EXPECT_TRUE(std::signbit(v[0]) && std::signbit(v[6]));
}

TEST(PadKernelTest, CroppingEverythingLeavesAnEmptyResult) {
  auto out = RunProgram(R"(func.func @main(%a: tensor<3xi8>, %p: tensor<i8>) -> (tensor<0xi8>, tensor<1xi8>) {
    %0 = stablehlo.pad %a, %p, low = [-2], high = [-1], interior = [0] : (tensor<3xi8>, tensor<i8>) -> tensor<0xi8>
    %1 = stablehlo.pad %a, %p, low = [-2], high = [-2], interior = [1] : (tensor<3xi8>, tensor<i8>) -> tensor<1xi8>
    return %0, %1 : tensor<0xi8>, tensor<1xi8> })", {Literal::Of<int8_t>({1, 2, 3}, {3}), Literal::Of<int8_t>({9}, {})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(out[0].Values<int8_t>().empty());
  // [1, 9, 2, 9, 3] cropped by two on each side is [2].
  EXPECT_THAT(out[1].Values<int8_t>(), ElementsAre(2));
}

TEST(PadKernelTest, PadsEmptyAndRankZeroOperands) {
  auto out = RunProgram(R"(func.func @main(%a: tensor<0x2xui32>, %b: tensor<ui32>, %p: tensor<ui32>) -> (tensor<2x3xui32>, tensor<ui32>) {
    %0 = stablehlo.pad %a, %p, low = [1, 0], high = [1, 0], interior = [5, 1] : (tensor<0x2xui32>, tensor<ui32>) -> tensor<2x3xui32>
    %1 = stablehlo.pad %b, %p, low = [], high = [], interior = [] : (tensor<ui32>, tensor<ui32>) -> tensor<ui32>
    return %0, %1 : tensor<2x3xui32>, tensor<ui32> })",
                 {Literal::Of<uint32_t>({}, {0, 2}), Literal::Of<uint32_t>({42}, {}), Literal::Of<uint32_t>({7}, {})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_THAT(out[0].Values<uint32_t>(), ElementsAre(7, 7, 7, 7, 7, 7));
  EXPECT_THAT(out[1].Values<uint32_t>(), ElementsAre(42));
}

TEST(PadKernelTest, DynamicPadReadsPaddingOperands) {
  auto out = RunProgram(R"(func.func @main(%a: tensor<2xi32>, %p: tensor<i32>, %l: tensor<1xi32>, %h: tensor<1xi32>, %i: tensor<1xi32>) -> tensor<4xi32> {
    %0 = stablehlo.dynamic_pad %a, %p, %l, %h, %i : (tensor<2xi32>, tensor<i32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<4xi32>
    return %0 : tensor<4xi32> })",
                 {Literal::Of<int32_t>({5, 6}, {2}), Literal::Of<int32_t>({0}, {}), Literal::Of<int32_t>({-1}, {1}),
                  Literal::Of<int32_t>({1}, {1}), Literal::Of<int32_t>({2}, {1})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out[0].Values<int32_t>(), ElementsAre(0, 0, 6, 0));
}

TEST(PadKernelTest, DynamicPadRejectsNegativeInteriorPadding) {
  Status status = RunExpectingError(R"(func.func @main(%a: tensor<2xi32>, %p: tensor<i32>, %l: tensor<1xi32>, %i: tensor<1xi32>) -> tensor<1xi32> {
    %0 = stablehlo.dynamic_pad %a, %p, %l, %l, %i : (tensor<2xi32>, tensor<i32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xi32>
    %1 = stablehlo.reshape %0 : (tensor<?xi32>) -> tensor<1xi32>
    return %1 : tensor<1xi32> })",
                           {Literal::Of<int32_t>({5, 6}, {2}), Literal::Of<int32_t>({0}, {}),
                            Literal::Of<int32_t>({0}, {1}), Literal::Of<int32_t>({-1}, {1})});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("interior must be >= 0"));
}

}  // namespace
}  // namespace berth::testing
