// Uniform quantized types on the cpu plugin (lowered by the SDK,
// berth/stablehlo/quantization.hpp): uniform_quantize, uniform_dequantize,
// requantization, dequantize-op-quantize arithmetic and ops that move
// storage integers, per tensor and per axis, on seeded random inputs of
// sizes around the vector widths, against scalar references written here
// from the specification's formulas.
#include <algorithm>
#include <cmath>
#include <random>

#include "kernel_test_util.hpp"

namespace berth::testing {
namespace {

struct Params {
  double scale;
  int64_t zero_point;
};

struct Storage {
  const char* name;  // in the quantized type
  ElementType type;  // of the buffer
  int64_t min, max;
};

constexpr Storage kI8{"i8", ElementType::kS8, -128, 127};
constexpr Storage kU8{"ui8", ElementType::kU8, 0, 255};
constexpr Storage kI16{"i16", ElementType::kS16, -32768, 32767};
constexpr Storage kI4{"i4", ElementType::kS4, -8, 7};

std::string Scale(double scale) {
  char text[40];
  std::snprintf(text, sizeof(text), "%.17g", scale);
  return text;
}

// `!quant.uniform<i8:f32, 0.5:3>` or, per axis, `<i8:f32:1, {0.5:3, 0.25:-1}>`.
std::string QuantType(const Storage& storage, const std::vector<Params>& params, int axis = -1) {
  std::string text = std::string("!quant.uniform<") + storage.name + ":f32";
  if (axis >= 0)
    text += ":" + std::to_string(axis) + ", {";
  else
    text += ", ";
  for (size_t i = 0; i < params.size(); ++i) {
    if (i) text += ", ";
    text += Scale(params[i].scale) + ":" + std::to_string(params[i].zero_point);
  }
  return text + (axis >= 0 ? "}>" : ">");
}

std::string Shape(const std::vector<int64_t>& dims) {
  std::string text;
  for (int64_t d : dims) text += std::to_string(d) + "x";
  return text;
}

// The specification's quantize, in f32: round_nearest_even(clamp(min, x /
// scale + zp, max)).
int64_t QuantizeReference(float x, const Params& p, const Storage& s) {
  float v = x / static_cast<float>(p.scale) + static_cast<float>(p.zero_point);
  v = std::min(std::max(v, static_cast<float>(s.min)), static_cast<float>(s.max));
  return static_cast<int64_t>(std::nearbyint(v));  // the default mode: to nearest even
}

float DequantizeReference(int64_t q, const Params& p) {
  return static_cast<float>(q - p.zero_point) * static_cast<float>(p.scale);
}

// Storage values of a buffer of storage type `s`.
std::vector<int64_t> StorageValues(const Literal& literal, const Storage& s) {
  std::vector<int64_t> out;
  if (s.type == ElementType::kS16) {
    for (int16_t v : literal.Values<int16_t>()) out.push_back(v);
  } else if (s.type == ElementType::kU8) {
    for (uint8_t v : literal.Values<uint8_t>()) out.push_back(v);
  } else {
    for (int8_t v : literal.Values<int8_t>()) out.push_back(v);  // i8, and i4 one per byte
  }
  return out;
}

Literal StorageLiteral(const std::vector<int64_t>& values, const Storage& s,
                       std::vector<int64_t> dims) {
  if (s.type == ElementType::kS16) {
    return Literal::Of<int16_t>(std::vector<int16_t>(values.begin(), values.end()),
                                std::move(dims));
  }
  if (s.type == ElementType::kU8) {
    return Literal::Of<uint8_t>(std::vector<uint8_t>(values.begin(), values.end()),
                                std::move(dims));
  }
  return Literal::Raw<int8_t>(s.type, std::vector<int8_t>(values.begin(), values.end()),
                              std::move(dims));
}

// Random inputs: mostly inside the representable range, some beyond it,
// and some exactly halfway between two steps (ties to even).
std::vector<float> RandomInputs(std::mt19937& rng, size_t n, const Params& p, const Storage& s) {
  const double low = (static_cast<double>(s.min - p.zero_point) - 4) * p.scale;
  const double high = (static_cast<double>(s.max - p.zero_point) + 4) * p.scale;
  std::uniform_real_distribution<double> value(low, high);
  std::uniform_int_distribution<int64_t> step(s.min, s.max);
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) {
    if (i % 5 == 4) {
      x[i] = static_cast<float>((static_cast<double>(step(rng) - p.zero_point) + 0.5) * p.scale);
    } else {
      x[i] = static_cast<float>(value(rng));
    }
  }
  return x;
}

Params RandomParams(std::mt19937& rng, const Storage& s) {
  std::uniform_real_distribution<double> scale(0.01, 2.0);
  std::uniform_int_distribution<int64_t> zero_point(s.min, s.max);
  return {scale(rng), zero_point(rng)};
}

constexpr size_t kSizes[] = {1, 7, 17, 2049};

TEST(CpuQuantized, UniformQuantizePerTensorMatchesTheSpecificationsFormula) {
  std::mt19937 rng(1234);
  for (const Storage& s : {kI8, kU8, kI16, kI4}) {
    for (size_t n : kSizes) {
      const Params p = RandomParams(rng, s);
      const std::vector<float> x = RandomInputs(rng, n, p, s);
      const std::string q = "tensor<" + Shape({static_cast<int64_t>(n)}) + QuantType(s, {p}) + ">";
      const std::string program = "func.func @main(%x: tensor<" + std::to_string(n) + "xf32>) -> " +
                                  q + " {\n  %q = stablehlo.uniform_quantize %x : (tensor<" +
                                  std::to_string(n) + "xf32>) -> " + q + "\n  return %q : " + q +
                                  "\n}\n";
      std::vector<Literal> out =
          RunProgram(program, {Literal::Of<float>(x, {static_cast<int64_t>(n)})});
      ASSERT_EQ(out.size(), 1u);
      EXPECT_EQ(out[0].type, s.type);
      const std::vector<int64_t> got = StorageValues(out[0], s);
      ASSERT_EQ(got.size(), n);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(got[i], QuantizeReference(x[i], p, s))
            << s.name << " n=" << n << " x[" << i << "]=" << x[i] << " scale " << p.scale << " zp "
            << p.zero_point;
      }
    }
  }
}

// Per axis, along either dimension of a matrix: each index of the axis
// with its own parameters.
TEST(CpuQuantized, UniformQuantizeAndDequantizePerAxisUseEachIndexsParameters) {
  std::mt19937 rng(99);
  for (int axis : {0, 1}) {
    for (size_t n : kSizes) {
      const int64_t channels = 3;
      std::vector<int64_t> dims = axis == 0
                                      ? std::vector<int64_t>{channels, static_cast<int64_t>(n)}
                                      : std::vector<int64_t>{static_cast<int64_t>(n), channels};
      std::vector<Params> params;
      for (int c = 0; c < channels; ++c) params.push_back(RandomParams(rng, kI8));
      std::vector<float> x(n * channels);
      std::uniform_real_distribution<float> value(-300.f, 300.f);
      for (float& v : x) v = value(rng);
      const std::string f32 = "tensor<" + Shape(dims) + "f32>";
      const std::string q = "tensor<" + Shape(dims) + QuantType(kI8, params, axis) + ">";
      const std::string i8 = "tensor<" + Shape(dims) + "i8>";
      const std::string program = "func.func @main(%x: " + f32 + ") -> (" + i8 + ", " + f32 +
                                  ") {\n"
                                  "  %q = stablehlo.uniform_quantize %x : (" +
                                  f32 + ") -> " + q +
                                  "\n"
                                  "  %s = stablehlo.bitcast_convert %q : (" +
                                  q + ") -> " + i8 +
                                  "\n"
                                  "  %d = stablehlo.uniform_dequantize %q : (" +
                                  q + ") -> " + f32 +
                                  "\n"
                                  "  return %s, %d : " +
                                  i8 + ", " + f32 + "\n}\n";
      std::vector<Literal> out = RunProgram(program, {Literal::Of<float>(x, dims)});
      ASSERT_EQ(out.size(), 2u);
      const std::vector<int8_t> stored = out[0].Values<int8_t>();
      const std::vector<float> restored = out[1].Values<float>();
      ASSERT_EQ(stored.size(), x.size());
      for (size_t i = 0; i < x.size(); ++i) {
        const size_t channel = axis == 0 ? i / n : i % channels;
        const int64_t want = QuantizeReference(x[i], params[channel], kI8);
        ASSERT_EQ(stored[i], want) << "axis " << axis << " n=" << n << " element " << i;
        ASSERT_EQ(restored[i], DequantizeReference(want, params[channel])) << "element " << i;
      }
    }
  }
}

TEST(CpuQuantized, UniformDequantizeMatchesTheSpecificationsFormula) {
  std::mt19937 rng(7);
  for (const Storage& s : {kI8, kU8, kI16, kI4}) {
    for (size_t n : kSizes) {
      const Params p = RandomParams(rng, s);
      std::uniform_int_distribution<int64_t> value(s.min, s.max);
      std::vector<int64_t> q(n);
      for (int64_t& v : q) v = value(rng);
      const std::string type =
          "tensor<" + Shape({static_cast<int64_t>(n)}) + QuantType(s, {p}) + ">";
      const std::string f32 = "tensor<" + std::to_string(n) + "xf32>";
      const std::string program = "func.func @main(%q: " + type + ") -> " + f32 +
                                  " {\n  %d = stablehlo.uniform_dequantize %q : (" + type +
                                  ") -> " + f32 + "\n  return %d : " + f32 + "\n}\n";
      std::vector<Literal> out =
          RunProgram(program, {StorageLiteral(q, s, {static_cast<int64_t>(n)})});
      ASSERT_EQ(out.size(), 1u);
      const std::vector<float> got = out[0].Values<float>();
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(got[i], DequantizeReference(q[i], p)) << s.name << " q=" << q[i];
      }
    }
  }
}

// uniform_quantize of a quantized tensor: dequantized, then quantized with
// the result's parameters; and an add of two differently quantized
// tensors: both dequantized, added in f32, quantized to the result's.
TEST(CpuQuantized, RequantizeAndQuantizedAddDequantizeComputeAndQuantize) {
  std::mt19937 rng(2024);
  for (size_t n : kSizes) {
    const Params pa = RandomParams(rng, kI8), pb = RandomParams(rng, kI8),
                 pr = RandomParams(rng, kI8);
    std::uniform_int_distribution<int64_t> value(-128, 127);
    std::vector<int64_t> a(n), b(n);
    for (size_t i = 0; i < n; ++i) a[i] = value(rng), b[i] = value(rng);
    const std::string shape = Shape({static_cast<int64_t>(n)});
    const std::string ta = "tensor<" + shape + QuantType(kI8, {pa}) + ">";
    const std::string tb = "tensor<" + shape + QuantType(kI8, {pb}) + ">";
    const std::string tr = "tensor<" + shape + QuantType(kI8, {pr}) + ">";
    const std::string program = "func.func @main(%a: " + ta + ", %b: " + tb + ") -> (" + tr + ", " +
                                tr + ") {\n" + "  %r = stablehlo.uniform_quantize %a : (" + ta +
                                ") -> " + tr + "\n" + "  %s = stablehlo.add %a, %b : (" + ta +
                                ", " + tb + ") -> " + tr + "\n" + "  return %r, %s : " + tr + ", " +
                                tr + "\n}\n";
    std::vector<Literal> out =
        RunProgram(program, {StorageLiteral(a, kI8, {static_cast<int64_t>(n)}),
                             StorageLiteral(b, kI8, {static_cast<int64_t>(n)})});
    ASSERT_EQ(out.size(), 2u);
    const std::vector<int8_t> requantized = out[0].Values<int8_t>();
    const std::vector<int8_t> sum = out[1].Values<int8_t>();
    for (size_t i = 0; i < n; ++i) {
      const float da = DequantizeReference(a[i], pa);
      ASSERT_EQ(requantized[i], QuantizeReference(da, pr, kI8)) << "n=" << n << " element " << i;
      ASSERT_EQ(sum[i], QuantizeReference(da + DequantizeReference(b[i], pb), pr, kI8))
          << "n=" << n << " element " << i;
    }
  }
}

// A float activation times per-channel quantized weights (the usual
// weight-only quantized layer): the weights dequantized, the product in f32.
TEST(CpuQuantized, DotGeneralWithPerChannelQuantizedWeightsDequantizesThem) {
  std::mt19937 rng(5);
  const int64_t m = 5, k = 33, n = 17;
  std::vector<Params> channels;
  for (int64_t j = 0; j < n; ++j) channels.push_back(RandomParams(rng, kI8));
  std::uniform_real_distribution<float> value(-1.f, 1.f);
  std::uniform_int_distribution<int64_t> weight(-128, 127);
  std::vector<float> x(static_cast<size_t>(m * k));
  for (float& v : x) v = value(rng);
  std::vector<int64_t> w(static_cast<size_t>(k * n));
  for (int64_t& v : w) v = weight(rng);
  const std::string tw = "tensor<" + Shape({k, n}) + QuantType(kI8, channels, 1) + ">";
  const std::string program =
      "func.func @main(%x: tensor<5x33xf32>, %w: " + tw + ") -> tensor<5x17xf32> {\n" +
      "  %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<5x33xf32>, " +
      tw + ") -> tensor<5x17xf32>\n  return %y : tensor<5x17xf32>\n}\n";
  std::vector<Literal> out =
      RunProgram(program, {Literal::Of<float>(x, {m, k}), StorageLiteral(w, kI8, {k, n})});
  ASSERT_EQ(out.size(), 1u);
  const std::vector<float> got = out[0].Values<float>();
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double want = 0;
      double magnitude = 0;  // of the terms: what f32 rounding errors scale with
      for (int64_t t = 0; t < k; ++t) {
        const double term = static_cast<double>(x[static_cast<size_t>(i * k + t)]) *
                            DequantizeReference(w[static_cast<size_t>(t * n + j)],
                                                channels[static_cast<size_t>(j)]);
        want += term;
        magnitude += std::abs(term);
      }
      EXPECT_NEAR(got[static_cast<size_t>(i * n + j)], want, 1e-5 * magnitude + 1e-6)
          << i << "," << j;
    }
  }
}

// Ops that only move elements run on the storage integers: a transpose
// carries per-axis parameters to the new position of their dimension, a
// reshape and a slice keep per-tensor ones; the bytes come out moved, not
// recomputed.
TEST(CpuQuantized, TransposeReshapeAndSliceMoveStorageIntegers) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int64_t> value(-128, 127);
  std::vector<int64_t> a(2 * 3);
  for (int64_t& v : a) v = value(rng);
  const std::vector<Params> per_row = {{0.5, 1}, {0.25, -3}};
  const std::string in = "tensor<2x3x" + QuantType(kI8, per_row, 0) + ">";
  const std::string out_t = "tensor<3x2x" + QuantType(kI8, per_row, 1) + ">";
  const std::string flat = "tensor<6x" + QuantType(kI8, {{0.5, 1}}) + ">";
  const std::string same = "tensor<2x3x" + QuantType(kI8, {{0.5, 1}}) + ">";
  const std::string part = "tensor<4x" + QuantType(kI8, {{0.5, 1}}) + ">";
  const std::string program = "func.func @main(%a: " + in + ", %b: " + same + ") -> (" + out_t +
                              ", " + part + ") {\n" +
                              "  %t = stablehlo.transpose %a, dims = [1, 0] : (" + in + ") -> " +
                              out_t + "\n" + "  %r = stablehlo.reshape %b : (" + same + ") -> " +
                              flat + "\n" + "  %s = stablehlo.slice %r [1:5] : (" + flat + ") -> " +
                              part + "\n" + "  return %t, %s : " + out_t + ", " + part + "\n}\n";
  std::vector<Literal> out =
      RunProgram(program, {StorageLiteral(a, kI8, {2, 3}), StorageLiteral(a, kI8, {2, 3})});
  ASSERT_EQ(out.size(), 2u);
  const std::vector<int8_t> transposed = out[0].Values<int8_t>();
  const std::vector<int8_t> sliced = out[1].Values<int8_t>();
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 2; ++j)
      EXPECT_EQ(transposed[static_cast<size_t>(i * 2 + j)], a[static_cast<size_t>(j * 3 + i)]);
  }
  EXPECT_THAT(sliced, ElementsAre(a[1], a[2], a[3], a[4]));
}

TEST(CpuQuantized, MalformedQuantizedTypesAreRefusedNamingTheOp) {
  const std::string bad_scale = "!quant.uniform<i8:f32, -0.5:3>";
  Status status = RunExpectingError(
      "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %q = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x" +
          bad_scale + ">\n" + "  %d = stablehlo.uniform_dequantize %q : (tensor<2x" + bad_scale +
          ">) -> tensor<2xf32>\n  return %d : tensor<2xf32>\n}\n",
      {Literal::Of<float>({1, 2}, {2})});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr(":2:"));
  EXPECT_THAT(status.message(), HasSubstr("scales must be positive"));

  const std::string three = "!quant.uniform<i8:f32:0, {0.5:1, 0.5:2, 0.5:3}>";
  status =
      RunExpectingError("func.func @main(%x: tensor<2xf32>) -> tensor<2xi8> {\n"
                        "  %q = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x" +
                            three + ">\n" + "  %s = stablehlo.bitcast_convert %q : (tensor<2x" +
                            three + ">) -> tensor<2xi8>\n  return %s : tensor<2xi8>\n}\n",
                        {Literal::Of<float>({1, 2}, {2})});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("3 scales for dimension 0 of size 2"));

  // Shapes of uniform_quantize must agree.
  status = RunExpectingError("func.func @main(%x: tensor<2xf32>) -> tensor<3xi8> {\n"
                             "  %q = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> "
                             "tensor<3x!quant.uniform<i8:f32, 0.5>>\n"
                             "  %s = stablehlo.bitcast_convert %q : "
                             "(tensor<3x!quant.uniform<i8:f32, 0.5>>) -> tensor<3xi8>\n"
                             "  return %s : tensor<3xi8>\n}\n",
                             {Literal::Of<float>({1, 2}, {2})});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("the shapes must be the same"));
}

// A reduce over quantized values: its body's add is dequantize - add -
// quantize at each step. Values chosen so that no step rounds or clamps
// (scale 0.5, small sums), so any reduction order gives the reference's
// exact sum; a sort by a comparator that compares quantized keys (lowered
// to a dequantized compare) orders them by value.
TEST(CpuQuantized, ReduceAndSortComputeOnQuantizedValues) {
  const std::string q = "!quant.uniform<i8:f32, 0.5:-10>";
  std::mt19937 rng(31);
  std::uniform_int_distribution<int64_t> value(-14, -6);  // real values -2 .. 2
  for (int64_t n : {1, 7, 17, 33}) {
    std::vector<int64_t> x(static_cast<size_t>(2 * n));
    for (int64_t& v : x) v = value(rng);
    const std::string in = "tensor<2x" + std::to_string(n) + "x" + q + ">";
    const std::string program =
        "func.func @main(%x: " + in + ", %init: tensor<" + q + ">) -> tensor<2x" + q + "> {\n" +
        "  %r = stablehlo.reduce(%x init: %init) applies stablehlo.add across dimensions = [1] : "
        "(" +
        in + ", tensor<" + q + ">) -> tensor<2x" + q + ">\n  return %r : tensor<2x" + q + ">\n}\n";
    std::vector<Literal> out =
        RunProgram(program, {StorageLiteral(x, kI8, {2, n}), StorageLiteral({-10}, kI8, {})});
    ASSERT_EQ(out.size(), 1u);
    const std::vector<int8_t> got = out[0].Values<int8_t>();
    for (int64_t row = 0; row < 2; ++row) {
      double sum = 0;  // real values, exact in binary
      for (int64_t i = 0; i < n; ++i) sum += (x[static_cast<size_t>(row * n + i)] + 10) * 0.5;
      ASSERT_EQ(got[static_cast<size_t>(row)],
                std::clamp<int64_t>(std::llround(sum / 0.5) - 10, -128, 127))
          << "n=" << n << " row " << row;
    }
  }
  // Sort: keys stored as ui8 with zero point 128 (storage order = value order
  // here) sorted descending by a comparator on quantized values.
  const std::string k = "!quant.uniform<ui8:f32, 0.25:128>";
  const std::vector<int64_t> keys = {130, 1, 255, 128, 0, 200, 127};
  std::vector<Literal> sorted = RunProgram(
      "func.func @main(%k: tensor<7x" + k + ">) -> tensor<7x" + k + "> {\n" +
          "  %s = \"stablehlo.sort\"(%k) ({\n  ^bb0(%a: tensor<" + k + ">, %b: tensor<" + k +
          ">):\n" + "    %gt = stablehlo.compare GT, %a, %b : (tensor<" + k + ">, tensor<" + k +
          ">) -> tensor<i1>\n" +
          "    stablehlo.return %gt : tensor<i1>\n  }) {dimension = 0 : i64} : (tensor<7x" + k +
          ">) -> tensor<7x" + k + ">\n  return %s : tensor<7x" + k + ">\n}\n",
      {StorageLiteral(keys, kU8, {7})});
  ASSERT_EQ(sorted.size(), 1u);
  EXPECT_THAT(sorted[0].Values<uint8_t>(), ElementsAre(255, 200, 130, 128, 127, 1, 0));
}

}  // namespace
}  // namespace berth::testing
