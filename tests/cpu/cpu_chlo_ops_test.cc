// CHLO's other ops on the CPU plugin: the broadcasting binary ops (numpy
// and broadcast_dimensions broadcasting, against an index-by-index
// reference), top_k (against a sort of the row), constant_like, next_after
// (against the ordered list of values for f16 and bf16), the is_*inf
// tests, mulhi, and a JAX-style program in CHLO's pretty forms; fused and
// alone.
#include <algorithm>
#include <bit>
#include <complex>
#include <numeric>
#include <random>

#include "elementwise_test_util.hpp"

namespace berth::testing {
namespace {

class ChloOpsTest : public ElementwiseTest {
 public:
  // Values(), for the helpers below.
  template <typename T>
  std::vector<T> Compute(const std::string& op, const std::vector<Literal>& args, const std::string& out,
                         const std::string& attrs, std::vector<int64_t> out_dims) const {
    return Values<T>(op, args, out, attrs, std::move(out_dims));
  }
  using ElementwiseTest::Compute;
};
INSTANTIATE_TEST_SUITE_P(Plan, ChloOpsTest, ::testing::Bool(), FusionName);

// Row-major index of `index` in `dims`.
int64_t Flatten(const std::vector<int64_t>& index, const std::vector<int64_t>& dims) {
  int64_t flat = 0;
  for (size_t d = 0; d < dims.size(); ++d) flat = flat * dims[d] + index[d];
  return flat;
}

// The element of an operand with `dims` (mapped to result dims `map`) that
// result element `index` reads (size-1 dims repeat).
int64_t SourceIndex(const std::vector<int64_t>& index, const std::vector<int64_t>& dims,
                    const std::vector<int64_t>& map) {
  std::vector<int64_t> at(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) at[d] = dims[d] == 1 ? 0 : index[static_cast<size_t>(map[d])];
  return Flatten(at, dims);
}

template <typename T>
std::vector<T> RandomValues(size_t n, uint64_t seed, int64_t lo, int64_t hi) {
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<int64_t> value(lo, hi);
  std::vector<T> out(n);
  for (T& v : out) v = static_cast<T>(value(random));
  return out;
}

// `op` of operands with dims `a_dims`, `b_dims` (broadcast_dimensions
// `attrs`) computed by the plugin and, element by element, by `f`.
template <typename T, typename R, typename F>
void ExpectBroadcast(const ChloOpsTest& test, const std::string& op, const std::vector<int64_t>& a_dims,
                     const std::vector<int64_t>& b_dims, const std::vector<int64_t>& out_dims,
                     const std::vector<int64_t>& a_map, const std::vector<int64_t>& b_map,
                     const std::string& attrs, const std::string& out_type, F f, uint64_t seed) {
  int64_t a_n = 1, b_n = 1, out_n = 1;
  for (int64_t d : a_dims) a_n *= d;
  for (int64_t d : b_dims) b_n *= d;
  for (int64_t d : out_dims) out_n *= d;
  std::vector<T> a = RandomValues<T>(static_cast<size_t>(a_n), seed, -50, 50);
  std::vector<T> b = RandomValues<T>(static_cast<size_t>(b_n), seed + 1, 1, 7);
  Literal la = Literal::Of<T>(a, a_dims), lb = Literal::Of<T>(b, b_dims);
  std::vector<R> got = test.template Compute<R>(op, {la, lb}, out_type, attrs, out_dims);
  ASSERT_EQ(got.size(), static_cast<size_t>(out_n)) << op;
  std::vector<int64_t> index(out_dims.size(), 0);
  for (int64_t i = 0; i < out_n; ++i) {
    int64_t rest = i;
    for (size_t d = out_dims.size(); d-- > 0;) {
      index[d] = rest % out_dims[d];
      rest /= out_dims[d];
    }
    R expected = f(a[static_cast<size_t>(SourceIndex(index, a_dims, a_map))],
                   b[static_cast<size_t>(SourceIndex(index, b_dims, b_map))]);
    ASSERT_EQ(got[static_cast<size_t>(i)], expected) << op << " at element " << i;
  }
}

TEST_P(ChloOpsTest, BroadcastingArithmeticFollowsNumpyAndBroadcastDimensions) {
  // numpy: trailing dims align; size-1 dims repeat. 2x1x17 with 5x1.
  ExpectBroadcast<float, float>(*this, "chlo.broadcast_add", {2, 1, 17}, {5, 1}, {2, 5, 17},
                                {0, 1, 2}, {1, 2}, "", "f32",
                                [](float x, float y) { return x + y; }, 1);
  // broadcast_dimensions maps the lower-rank operand: [33] onto dim 0 of 33x9.
  ExpectBroadcast<float, float>(*this, "chlo.broadcast_multiply", {33, 9}, {33}, {33, 9}, {0, 1},
                                {0}, "broadcast_dimensions = array<i64: 0>", "f32",
                                [](float x, float y) { return x * y; }, 2);
  // The lower-rank operand first, and a rank-0 operand.
  ExpectBroadcast<int32_t, int32_t>(*this, "chlo.broadcast_subtract", {9}, {4, 9}, {4, 9}, {1},
                                    {0, 1}, "", "i32",
                                    [](int32_t x, int32_t y) { return x - y; }, 3);
  ExpectBroadcast<int64_t, int64_t>(*this, "chlo.broadcast_maximum", {}, {3, 65}, {3, 65}, {},
                                    {0, 1}, "", "i64",
                                    [](int64_t x, int64_t y) { return std::max(x, y); }, 4);
  // Integer division and remainder as stablehlo's (truncation; y > 0 here).
  ExpectBroadcast<int32_t, int32_t>(*this, "chlo.broadcast_divide", {7, 1}, {1, 11}, {7, 11},
                                    {0, 1}, {0, 1}, "", "i32",
                                    [](int32_t x, int32_t y) { return x / y; }, 5);
  ExpectBroadcast<int32_t, int32_t>(*this, "chlo.broadcast_remainder", {7, 1}, {11}, {7, 11},
                                    {0, 1}, {1}, "", "i32",
                                    [](int32_t x, int32_t y) { return x % y; }, 6);
  ExpectBroadcast<uint8_t, uint8_t>(*this, "chlo.broadcast_shift_left", {3, 17}, {17}, {3, 17},
                                    {0, 1}, {1}, "", "ui8",
                                    [](uint8_t x, uint8_t y) { return static_cast<uint8_t>(x << y); }, 7);
  ExpectBroadcast<int16_t, int16_t>(*this, "chlo.broadcast_shift_right_arithmetic", {3, 17}, {3, 1},
                                    {3, 17}, {0, 1}, {0, 1}, "", "i16",
                                    [](int16_t x, int16_t y) { return static_cast<int16_t>(x >> y); }, 8);
  ExpectBroadcast<int8_t, int8_t>(*this, "chlo.broadcast_xor", {2, 3, 4}, {3, 1}, {2, 3, 4},
                                  {0, 1, 2}, {1, 2}, "", "i8",
                                  [](int8_t x, int8_t y) { return static_cast<int8_t>(x ^ y); }, 9);
  ExpectBroadcast<double, double>(*this, "chlo.broadcast_power", {5, 2}, {5}, {5, 2}, {0, 1}, {0},
                                  "broadcast_dimensions = array<i64: 0>", "f64",
                                  [](double x, double y) { return std::pow(x, y); }, 10);
  ExpectBroadcast<float, float>(*this, "chlo.broadcast_atan2", {4, 1}, {4}, {4, 4}, {0, 1}, {1}, "",
                                "f32", [](float x, float y) { return std::atan2(x, y); }, 11);
}

TEST_P(ChloOpsTest, BroadcastCompareTakesItsDirectionAndType) {
  ExpectBroadcast<int32_t, bool>(*this, "chlo.broadcast_compare", {6, 1}, {5}, {6, 5}, {0, 1}, {1},
                                 "comparison_direction = #chlo<comparison_direction GT>", "i1",
                                 [](int32_t x, int32_t y) { return x > y; }, 12);
  ExpectBroadcast<uint32_t, bool>(*this, "chlo.broadcast_compare", {6}, {3, 6}, {3, 6}, {1}, {0, 1},
                                  "comparison_direction = #chlo<comparison_direction LE>, "
                                  "compare_type = #chlo<comparison_type UNSIGNED>",
                                  "i1", [](uint32_t x, uint32_t y) { return x <= y; }, 13);
  // Floats: NaN compares unordered, -0 == +0.
  EXPECT_THAT(Values<bool>("chlo.broadcast_compare", {Vec<float>({kNaNF, -0.0f, 1.0f}), Scalar(0.0f)},
                           "i1", "comparison_direction = #chlo<comparison_direction EQ>"),
              ElementsAre(false, true, false));
}

TEST_P(ChloOpsTest, BroadcastSelectTakesAScalarOrBroadcastPredicate) {
  Literal on_true = Literal::Of<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Literal on_false = Vec<float>({-1, -2, -3});
  EXPECT_THAT(Values<float>("chlo.broadcast_select", {Literal::Of<bool>({true, false}, {2, 1}), on_true,
                                                      on_false}, "f32", "", std::vector<int64_t>{2, 3}),
              ElementsAre(1, 2, 3, -1, -2, -3));
  EXPECT_THAT(Values<float>("chlo.broadcast_select", {Scalar(false), on_true, on_false}, "f32", "",
                            std::vector<int64_t>{2, 3}),
              ElementsAre(-1, -2, -3, -1, -2, -3));
}

TEST_P(ChloOpsTest, BroadcastOpsOfEqualShapesFuseWithTheirNeighbours) {
  const std::string program = R"(
func.func @main(%a: tensor<1000xf32>, %b: tensor<1000xf32>) -> tensor<1000xf32> {
  %0 = chlo.broadcast_add %a, %b : (tensor<1000xf32>, tensor<1000xf32>) -> tensor<1000xf32>
  %1 = chlo.erf %0 : tensor<1000xf32> -> tensor<1000xf32>
  %2 = chlo.broadcast_multiply %1, %a : (tensor<1000xf32>, tensor<1000xf32>) -> tensor<1000xf32>
  return %2 : tensor<1000xf32>
}
)";
  std::vector<float> a(1000), b(1000);
  for (int i = 0; i < 1000; ++i) {
    a[static_cast<size_t>(i)] = static_cast<float>(i) / 300 - 1.5f;
    b[static_cast<size_t>(i)] = static_cast<float>(i % 7) / 7;
  }
  Result<std::vector<Literal>> out = Compute(program, {Vec(a), Vec(b)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  std::vector<float> got = out->at(0).Values<float>();
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(Bits(got[i]), Bits(std::erf(a[i] + b[i]) * a[i])) << i;
  }
}

TEST_P(ChloOpsTest, BroadcastComplexMakesComplexNumbersOfBroadcastParts) {
  Result<std::vector<Literal>> out =
      Compute(R"(
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xcomplex<f32>> {
  %0 = "chlo.broadcast_complex"(%a, %b) {broadcast_dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xcomplex<f32>>
  return %0 : tensor<2x3xcomplex<f32>>
}
)",
              {Literal::Of<float>({1, 2, 3, 4, 5, 6}, {2, 3}), Vec<float>({-1, -2, -3})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  using c64 = std::complex<float>;
  EXPECT_EQ(out->at(0).Values<c64>(),
            (std::vector<c64>{{1, -1}, {2, -2}, {3, -3}, {4, -1}, {5, -2}, {6, -3}}));
}

// totalOrder of float keys: -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN.
bool TotalOrderLess(float x, float y) {
  auto key = [](float f) {
    int32_t bits = std::bit_cast<int32_t>(f);
    return bits < 0 ? std::numeric_limits<int32_t>::min() - bits - 1 : bits;
  };
  return key(x) < key(y);
}

TEST_P(ChloOpsTest, TopKOrdersRowsDescendingWithTiesByIndex) {
  std::mt19937_64 random(21);
  for (int64_t n : {1, 5, 16, 33}) {
    for (int64_t k : {int64_t{0}, int64_t{1}, n / 2, n}) {
      const int64_t rows = 3;
      std::vector<float> x(static_cast<size_t>(rows * n));
      const float specials[] = {kNaNF, -kNaNF, kInfF, -kInfF, 0.0f, -0.0f, 1.0f, 1.0f};
      for (float& v : x) {
        v = random() % 4 == 0 ? specials[random() % 8] : static_cast<float>(random() % 9) - 4;
      }
      std::string type = "tensor<" + std::to_string(rows) + "x" + std::to_string(n) + "xf32>";
      std::string out_t = "tensor<" + std::to_string(rows) + "x" + std::to_string(k);
      std::string program = "func.func @main(%x: " + type + ") -> (" + out_t + "xf32>, " + out_t +
                            "xi32>) {\n  %0:2 = chlo.top_k(%x, k = " + std::to_string(k) + ") : " +
                            type + " -> (" + out_t + "xf32>, " + out_t + "xi32>)\n  return %0#0, %0#1 : " +
                            out_t + "xf32>, " + out_t + "xi32>\n}\n";
      Result<std::vector<Literal>> out = Compute(program, {Literal::Of<float>(x, {rows, n})});
      ASSERT_TRUE(out.ok()) << out.status().ToString() << "\n" << program;
      std::vector<float> values = out->at(0).Values<float>();
      std::vector<int32_t> indices = out->at(1).Values<int32_t>();
      for (int64_t r = 0; r < rows; ++r) {
        std::vector<int32_t> order(static_cast<size_t>(n));
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
          return TotalOrderLess(x[static_cast<size_t>(r * n + b)], x[static_cast<size_t>(r * n + a)]);
        });
        for (int64_t j = 0; j < k; ++j) {
          size_t at = static_cast<size_t>(r * k + j);
          ASSERT_EQ(indices[at], order[static_cast<size_t>(j)]) << "n " << n << " k " << k << " row " << r;
          ASSERT_EQ(Bits(values[at]), Bits(x[static_cast<size_t>(r * n + order[static_cast<size_t>(j)])]));
        }
      }
    }
  }
}

TEST_P(ChloOpsTest, TopKOfIntegersAndHalves) {
  Result<std::vector<Literal>> out = Compute(R"(
func.func @main(%x: tensor<6xi8>, %h: tensor<4xbf16>) -> (tensor<3xi8>, tensor<3xi64>, tensor<2xbf16>, tensor<2xi32>) {
  %0:2 = chlo.top_k(%x, k = 3) : tensor<6xi8> -> (tensor<3xi8>, tensor<3xi64>)
  %1:2 = chlo.top_k(%h, k = 2) : tensor<4xbf16> -> (tensor<2xbf16>, tensor<2xi32>)
  return %0#0, %0#1, %1#0, %1#1 : tensor<3xi8>, tensor<3xi64>, tensor<2xbf16>, tensor<2xi32>
}
)", {Vec<int8_t>({-128, 7, 127, 7, 0, -1}), BF16({0x3F80, 0xC000, 0x4000, 0x3F80})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_THAT(out->at(0).Values<int8_t>(), ElementsAre(127, 7, 7));
  EXPECT_THAT(out->at(1).Values<int64_t>(), ElementsAre(2, 1, 3));
  EXPECT_THAT(out->at(2).Values<uint16_t>(), ElementsAre(0x4000, 0x3F80));
  EXPECT_THAT(out->at(3).Values<int32_t>(), ElementsAre(2, 0));
}

TEST_P(ChloOpsTest, ConstantLikeConvertsItsValueToTheResultType) {
  auto run = [&](const std::string& value, const std::string& type) {
    return Compute("func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3x" + type + "> {\n"
                   "  %0 = \"chlo.constant_like\"(%x) {value = " + value + "} : (tensor<2x3xf32>) -> tensor<2x3x" + type + ">\n"
                   "  return %0 : tensor<2x3x" + type + ">\n}\n",
                   {Literal::Of<float>({1, 2, 3, 4, 5, 6}, {2, 3})});
  };
  auto f16 = run("1.000000e-01 : f16", "f16");
  ASSERT_TRUE(f16.ok()) << f16.status().ToString();
  EXPECT_EQ(f16->at(0).dims, (std::vector<int64_t>{2, 3}));
  EXPECT_THAT(f16->at(0).Values<uint16_t>(), ::testing::Each(0x2E66));  // 0.1 rounded once
  auto i8 = run("-3 : i8", "i8");
  ASSERT_TRUE(i8.ok()) << i8.status().ToString();
  EXPECT_THAT(i8->at(0).Values<int8_t>(), ::testing::Each(-3));
  auto u64 = run("18446744073709551615 : ui64", "ui64");
  ASSERT_TRUE(u64.ok()) << u64.status().ToString();
  EXPECT_THAT(u64->at(0).Values<uint64_t>(), ::testing::Each(~uint64_t{0}));
  auto pred = run("true", "i1");
  ASSERT_TRUE(pred.ok()) << pred.status().ToString();
  EXPECT_THAT(pred->at(0).Values<bool>(), ::testing::Each(true));
  auto inf = run("0x7F800000 : f32", "f32");
  ASSERT_TRUE(inf.ok()) << inf.status().ToString();
  EXPECT_THAT(BitsOf(inf->at(0).Values<float>()), ::testing::Each(0x7F800000u));
  // A complex result: its value is a complex splat.
  auto complex_splat =
      run("dense<(1.500000e+00,-2.000000e+00)> : tensor<complex<f32>>", "complex<f32>");
  ASSERT_TRUE(complex_splat.ok()) << complex_splat.status().ToString();
  EXPECT_THAT(complex_splat->at(0).Values<std::complex<float>>(),
              ::testing::Each(std::complex<float>(1.5f, -2.0f)));
}

TEST_P(ChloOpsTest, NextAfterStepsOneValueExactly) {
  const float min_sub = F32Bits(1);
  EXPECT_THAT(BitsOf(Values<float>("chlo.next_after",
                                   {Vec<float>({0.0f, -0.0f, 0.0f, 1.0f, 1.0f, -1.0f, kInfF, F32Bits(0x7F7FFFFF), kNaNF, 2.0f, -0.0f, min_sub}),
                                    Vec<float>({1.0f, -1.0f, -0.0f, 2.0f, 0.0f, 0.0f, 0.0f, kInfF, 1.0f, kNaNF, 0.0f, 0.0f})},
                                   "f32")),
              ElementsAre(0x00000001u, 0x80000001u, 0x80000000u, 0x3F800001u, 0x3F7FFFFFu, 0xBF7FFFFFu,
                          0x7F7FFFFFu, 0x7F800000u, 0x7FC00000u, 0x7FC00000u, 0x00000000u, 0u));
  EXPECT_THAT(BitsOf(Values<double>("chlo.next_after", {Vec<double>({1.0, -0.0}), Vec<double>({-5.0, -1.0})}, "f64")),
              ElementsAre(0x3FEFFFFFFFFFFFFFull, 0x8000000000000001ull));
  // f16 and bf16: every value towards +inf and -inf is its neighbour in
  // the sorted list of all values (bf16 has no subnormal rounding issue:
  // the list holds every bit pattern).
  for (bool bf16 : {false, true}) {
    std::vector<std::pair<float, uint16_t>> all;
    for (uint32_t bits = 0; bits < 0x10000; ++bits) {
      uint16_t h = static_cast<uint16_t>(bits);
      uint32_t exponent = bf16 ? 0x7F80 : 0x7C00;
      if ((h & exponent) == exponent && (h & ~(exponent | 0x8000)) != 0) continue;  // NaN
      if (h == 0x8000) continue;
      float f = bf16 ? F32Bits(static_cast<uint32_t>(h) << 16)
                     : [&] {
                         uint32_t s = (h & 0x8000u) << 16, e = (h >> 10) & 0x1F, m = h & 0x3FF;
                         if (e == 0x1F) return F32Bits(s | 0x7F800000u);
                         if (e == 0) return std::copysign(std::ldexp(static_cast<float>(m), -24), s ? -1.0f : 1.0f);
                         return F32Bits(s | ((e + 112) << 23) | (m << 13));
                       }();
      all.push_back({f, h});
    }
    std::sort(all.begin(), all.end());
    std::vector<uint16_t> x, up, down;
    for (size_t i = 1; i + 1 < all.size(); i += 37) {
      x.push_back(all[i].second);
      // From the negative value next to zero, one step up is -0.
      up.push_back(all[i].first == 0 ? 0x0001 : all[i + 1].first == 0 ? 0x8000 : all[i + 1].second);
      down.push_back(all[i].first == 0 ? 0x8001 : all[i - 1].second);
    }
    Literal lx = bf16 ? BF16(x) : F16(x);
    std::vector<uint16_t> pos(x.size(), bf16 ? 0x7F80 : 0x7C00), neg(x.size(), bf16 ? 0xFF80 : 0xFC00);
    EXPECT_EQ(Values<uint16_t>("chlo.next_after", {lx, bf16 ? BF16(pos) : F16(pos)}, bf16 ? "bf16" : "f16"), up);
    EXPECT_EQ(Values<uint16_t>("chlo.next_after", {lx, bf16 ? BF16(neg) : F16(neg)}, bf16 ? "bf16" : "f16"), down);
  }
}

TEST_P(ChloOpsTest, IsInfDistinguishesTheInfinities) {
  Literal x = Vec<float>({kInfF, -kInfF, kNaNF, F32Bits(0x7F7FFFFF), 0.0f, -1.0f});
  EXPECT_THAT(Values<bool>("chlo.is_inf", {x}, "i1"), ElementsAre(true, true, false, false, false, false));
  EXPECT_THAT(Values<bool>("chlo.is_pos_inf", {x}, "i1"), ElementsAre(true, false, false, false, false, false));
  EXPECT_THAT(Values<bool>("chlo.is_neg_inf", {x}, "i1"), ElementsAre(false, true, false, false, false, false));
  EXPECT_THAT(Values<bool>("chlo.is_inf", {F16({0x7C00, 0xFC00, 0x7E00, 0x7BFF})}, "i1"),
              ElementsAre(true, true, false, false));
  EXPECT_THAT(Values<bool>("chlo.is_neg_inf", {BF16({0x7F80, 0xFF80, 0xFFC0})}, "i1"),
              ElementsAre(false, true, false));
  EXPECT_THAT(Values<bool>("chlo.is_pos_inf", {Vec<double>({kInfD, -kInfD, 1e308})}, "i1"),
              ElementsAre(true, false, false));
}

TEST_P(ChloOpsTest, MulhiIsTheHighHalfOfTheFullProduct) {
  std::mt19937_64 random(5);
  std::vector<int64_t> a(67), b(67);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<int64_t>(random());
    b[i] = static_cast<int64_t>(random());
  }
  a[0] = kMin64;
  b[0] = kMin64;
  std::vector<int64_t> expected;
  for (size_t i = 0; i < a.size(); ++i) {
    expected.push_back(static_cast<int64_t>((static_cast<__int128>(a[i]) * b[i]) >> 64));
  }
  EXPECT_EQ(Values<int64_t>("chlo.mulhi", {Vec(a), Vec(b)}, "i64"), expected);
  std::vector<uint64_t> ua(a.begin(), a.end()), ub(b.begin(), b.end()), uexpected;
  for (size_t i = 0; i < ua.size(); ++i) {
    uexpected.push_back(static_cast<uint64_t>((static_cast<unsigned __int128>(ua[i]) * ub[i]) >> 64));
  }
  EXPECT_EQ(Values<uint64_t>("chlo.mulhi", {Vec(ua), Vec(ub)}, "ui64"), uexpected);
  EXPECT_THAT(Values<int8_t>("chlo.mulhi", {Vec<int8_t>({64, -64, -128, 127}), Vec<int8_t>({4, 4, -128, 127})}, "i8"),
              ElementsAre(1, -1, 64, 63));
  EXPECT_THAT(Values<uint16_t>("chlo.mulhi", {Vec<uint16_t>({61440, 65535}), Vec<uint16_t>({16, 65535})}, "ui16"),
              ElementsAre(15, 65534));
}

// A program as JAX exports it (GELU with erf, a lgamma and a top_k),
// written in CHLO's pretty forms.
TEST_P(ChloOpsTest, RunsAJaxStyleProgram) {
  const std::string program = R"(
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x8xf32> {jax.result_info = ""}) -> (tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x8xf32>) {
    %cst = stablehlo.constant dense<0.707106769> : tensor<f32>
    %cst_0 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = chlo.broadcast_multiply %arg0, %cst : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    %1 = chlo.erf %0 : tensor<2x8xf32> -> tensor<2x8xf32>
    %2 = chlo.broadcast_add %1, %cst_1 : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    %3 = stablehlo.multiply %arg0, %2 : tensor<2x8xf32>
    %4 = chlo.broadcast_multiply %3, %cst_0 : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    %5:2 = chlo.top_k(%4, k = 3) : tensor<2x8xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)
    %6 = chlo.lgamma %arg0 : tensor<2x8xf32> -> tensor<2x8xf32>
    %7 = chlo.next_after %6, %arg0 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
    return %5#0, %5#1, %7 : tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x8xf32>
  }
}
)";
  std::vector<float> x = {-3, -1, -0.5f, 0, 0.5f, 1, 2, 3, 4, 3.5f, -2, 2.5f, 1.5f, -0.25f, 0.25f, 5};
  Result<std::vector<Literal>> out = Compute(program, {Literal::Of<float>(x, {2, 8})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  std::vector<float> gelu;
  for (float v : x) gelu.push_back(v * (std::erf(v * 0.707106769f) + 1.0f) * 0.5f);
  EXPECT_THAT(out->at(0).Values<float>(), ElementsAre(gelu[7], gelu[6], gelu[5], gelu[15], gelu[8], gelu[9]));
  EXPECT_THAT(out->at(1).Values<int32_t>(), ElementsAre(7, 6, 5, 7, 0, 1));
  std::vector<float> lgamma = out->at(2).Values<float>();
  EXPECT_EQ(Bits(lgamma[0]), 0x7F7FFFFFu);  // lgamma(-3) is a pole (+inf); one step towards -3
  EXPECT_EQ(lgamma[2], std::nextafter(static_cast<float>(std::lgamma(-0.5)), -0.5f));
  EXPECT_EQ(lgamma[5], std::nextafter(0.0f, 1.0f));  // lgamma(1) = 0, towards 1
}

}  // namespace
}  // namespace berth::testing
