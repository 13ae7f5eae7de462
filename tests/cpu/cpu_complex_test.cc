// Complex numbers on the cpu plugin: every elementwise op the spec defines
// on complex<f32> and complex<f64>, against references computed here in
// long double (explicit formulas for arithmetic, the long double library
// functions for the rest) on seeded random inputs whose lengths straddle
// vector widths and the fused block size; edge values (NaN, infinities,
// signed zeros); compare, select, convert, real/imag/complex, dot_general,
// reduce, iota, data movement and bitcast_convert. Each test runs with the
// plan fusing elementwise chains and with every op alone.
#include <complex>
#include <random>

#include "elementwise_test_util.hpp"

namespace berth::testing {
namespace {

using c64 = std::complex<float>;
using c128 = std::complex<double>;
using cld = std::complex<long double>;

// Lengths around vector widths and the 2048-element fusion block.
constexpr size_t kLengths[] = {1, 7, 17, 2049};

template <typename C>
std::vector<C> RandomComplex(size_t n, uint32_t seed, double lo, double hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<C> out(n);
  for (C& v : out) {
    using R = typename C::value_type;
    R re = static_cast<R>(dist(rng));
    v = C(re, static_cast<R>(dist(rng)));
  }
  return out;
}

template <typename C>
std::string ComplexName() {
  return std::is_same_v<C, c64> ? "complex<f32>" : "complex<f64>";
}

template <typename C>
std::string PartName() {
  return std::is_same_v<C, c64> ? "f32" : "f64";
}

// Relative tolerance of a part's precision (a few dozen ULPs: the library's
// complex functions are not correctly rounded).
template <typename C>
long double Tolerance() {
  return std::is_same_v<C, c64> ? 2e-5L : 1e-12L;
}

// Whether `got` is within tolerance of `want`, relative to |want| (and at
// least to 1, for results near 0).
template <typename C>
::testing::AssertionResult Near(C got, cld want, long double tolerance) {
  long double scale = std::max<long double>(1, std::abs(want));
  long double dr = std::fabs(static_cast<long double>(got.real()) - want.real());
  long double di = std::fabs(static_cast<long double>(got.imag()) - want.imag());
  if (dr <= tolerance * scale && di <= tolerance * scale) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "got (" << got.real() << ", " << got.imag() << "), want ("
         << static_cast<double>(want.real()) << ", " << static_cast<double>(want.imag()) << ")";
}

cld Wide(c64 v) { return cld(v.real(), v.imag()); }
cld Wide(c128 v) { return cld(v.real(), v.imag()); }

class CpuComplexTest : public ElementwiseTest {
 protected:
  // Runs unary op `name` on random values of C in [lo, hi]^2 and checks
  // every element against `reference`.
  template <typename C, typename F>
  void CheckUnary(const std::string& name, double lo, double hi, F reference) {
    for (size_t n : kLengths) {
      std::vector<C> in = RandomComplex<C>(n, static_cast<uint32_t>(n * 31 + name.size()), lo, hi);
      std::vector<C> out = Values<C>(name, {Vec(in)}, ComplexName<C>());
      ASSERT_EQ(out.size(), n) << name;
      for (size_t i = 0; i < n; ++i) {
        EXPECT_TRUE(Near(out[i], reference(Wide(in[i])), Tolerance<C>()))
            << name << " of (" << in[i].real() << ", " << in[i].imag() << "), n = " << n;
      }
    }
  }

  template <typename C, typename F>
  void CheckBinary(const std::string& name, double lo, double hi, F reference) {
    for (size_t n : kLengths) {
      std::vector<C> a = RandomComplex<C>(n, static_cast<uint32_t>(n * 7 + 1), lo, hi);
      std::vector<C> b = RandomComplex<C>(n, static_cast<uint32_t>(n * 7 + 2), lo, hi);
      std::vector<C> out = Values<C>(name, {Vec(a), Vec(b)}, ComplexName<C>());
      ASSERT_EQ(out.size(), n) << name;
      for (size_t i = 0; i < n; ++i) {
        EXPECT_TRUE(Near(out[i], reference(Wide(a[i]), Wide(b[i])), Tolerance<C>()))
            << name << " of (" << a[i].real() << ", " << a[i].imag() << ") and (" << b[i].real()
            << ", " << b[i].imag() << ")";
      }
    }
  }

  template <typename C>
  void CheckAllOps() {
    // Arithmetic from the definitions, in long double.
    CheckBinary<C>("stablehlo.add", -4, 4,
                   [](cld a, cld b) { return cld(a.real() + b.real(), a.imag() + b.imag()); });
    CheckBinary<C>("stablehlo.subtract", -4, 4,
                   [](cld a, cld b) { return cld(a.real() - b.real(), a.imag() - b.imag()); });
    CheckBinary<C>("stablehlo.multiply", -4, 4, [](cld a, cld b) {
      return cld(a.real() * b.real() - a.imag() * b.imag(),
                 a.real() * b.imag() + a.imag() * b.real());
    });
    CheckBinary<C>("stablehlo.divide", 0.5, 4, [](cld a, cld b) {
      long double d = b.real() * b.real() + b.imag() * b.imag();
      return cld((a.real() * b.real() + a.imag() * b.imag()) / d,
                 (a.imag() * b.real() - a.real() * b.imag()) / d);
    });
    CheckBinary<C>("stablehlo.power", 0.25, 2,
                   [](cld a, cld b) { return std::exp(b * std::log(a)); });
    CheckBinary<C>("stablehlo.atan2", 0.25, 2, [](cld y, cld x) {
      const cld i(0, 1);
      return -i * std::log((x + i * y) / std::sqrt(x * x + y * y));
    });
    CheckUnary<C>("stablehlo.negate", -4, 4, [](cld z) { return cld(-z.real(), -z.imag()); });
    CheckUnary<C>("chlo.conj", -4, 4, [](cld z) { return cld(z.real(), -z.imag()); });
    CheckUnary<C>("chlo.square", -4, 4, [](cld z) { return z * z; });
    CheckUnary<C>("stablehlo.sign", -4, 4, [](cld z) { return z / std::abs(z); });
    CheckUnary<C>("stablehlo.sqrt", -4, 4, [](cld z) { return std::sqrt(z); });
    CheckUnary<C>("stablehlo.rsqrt", -4, 4, [](cld z) { return cld(1) / std::sqrt(z); });
    CheckUnary<C>("stablehlo.cbrt", -4, 4, [](cld z) { return std::exp(std::log(z) / 3.0L); });
    CheckUnary<C>("stablehlo.exponential", -3, 3, [](cld z) { return std::exp(z); });
    CheckUnary<C>("stablehlo.exponential_minus_one", -3, 3,
                  [](cld z) { return std::exp(z) - 1.0L; });
    // Near 0, where e^z - 1 and log(1 + z) cancel: the written formulas
    // must keep the small result's digits.
    CheckUnary<C>("stablehlo.exponential_minus_one", -1e-3, 1e-3, [](cld z) {
      return z + z * z / 2.0L + z * z * z / 6.0L + z * z * z * z / 24.0L;
    });
    CheckUnary<C>("stablehlo.log", -4, 4, [](cld z) { return std::log(z); });
    CheckUnary<C>("stablehlo.log_plus_one", -3, 3, [](cld z) { return std::log(1.0L + z); });
    CheckUnary<C>("stablehlo.log_plus_one", -1e-3, 1e-3,
                  [](cld z) { return z - z * z / 2.0L + z * z * z / 3.0L - z * z * z * z / 4.0L; });
    CheckUnary<C>("stablehlo.logistic", -3, 3, [](cld z) { return 1.0L / (1.0L + std::exp(-z)); });
    CheckUnary<C>("stablehlo.sine", -3, 3, [](cld z) { return std::sin(z); });
    CheckUnary<C>("stablehlo.cosine", -3, 3, [](cld z) { return std::cos(z); });
    CheckUnary<C>("stablehlo.tan", -1, 1, [](cld z) { return std::tan(z); });
    CheckUnary<C>("stablehlo.tanh", -1, 1, [](cld z) { return std::tanh(z); });
    CheckUnary<C>("chlo.asin", -2, 2, [](cld z) { return std::asin(z); });
    CheckUnary<C>("chlo.acos", -2, 2, [](cld z) { return std::acos(z); });
    CheckUnary<C>("chlo.atan", -2, 2, [](cld z) { return std::atan(z); });
    CheckUnary<C>("chlo.sinh", -3, 3, [](cld z) { return std::sinh(z); });
    CheckUnary<C>("chlo.cosh", -3, 3, [](cld z) { return std::cosh(z); });
    CheckUnary<C>("chlo.tan", -1, 1, [](cld z) { return std::tan(z); });
    CheckUnary<C>("chlo.asinh", -2, 2, [](cld z) { return std::asinh(z); });
    CheckUnary<C>("chlo.acosh", -2, 2, [](cld z) { return std::acosh(z); });
    CheckUnary<C>("chlo.atanh", -2, 2, [](cld z) { return std::atanh(z); });
  }
};

TEST_P(CpuComplexTest, OpsOfComplexF32MatchLongDoubleReferences) { CheckAllOps<c64>(); }

TEST_P(CpuComplexTest, OpsOfComplexF64MatchLongDoubleReferences) { CheckAllOps<c128>(); }

TEST_P(CpuComplexTest, AbsRealImagTakeParts) {
  for (size_t n : kLengths) {
    std::vector<c128> in = RandomComplex<c128>(n, 5, -1e3, 1e3);
    std::vector<double> abs = Values<double>("stablehlo.abs", {Vec(in)}, "f64");
    std::vector<double> re = Values<double>("stablehlo.real", {Vec(in)}, "f64");
    std::vector<double> im = Values<double>("stablehlo.imag", {Vec(in)}, "f64");
    for (size_t i = 0; i < n; ++i) {
      long double want = std::sqrt(static_cast<long double>(in[i].real()) * in[i].real() +
                                   static_cast<long double>(in[i].imag()) * in[i].imag());
      EXPECT_NEAR(abs[i], static_cast<double>(want), 1e-15 * static_cast<double>(want));
      EXPECT_EQ(Bits(re[i]), Bits(in[i].real()));
      EXPECT_EQ(Bits(im[i]), Bits(in[i].imag()));
    }
  }
  // |z| does not overflow where x^2 + y^2 would.
  EXPECT_EQ(Values<float>("stablehlo.abs", {Vec<c64>({{3e30f, 4e30f}})}, "f32"),
            (std::vector<float>{5e30f}));
}

TEST_P(CpuComplexTest, RealImagConjOfFloatsAreTheValueAndZero) {
  std::vector<float> in = {1.5f, -0.0f, kInfF, -3.0f};
  EXPECT_EQ(BitsOf(Values<float>("stablehlo.real", {Vec(in)}, "f32")), BitsOf(in));
  EXPECT_EQ(BitsOf(Values<float>("chlo.conj", {Vec(in)}, "f32")), BitsOf(in));
  EXPECT_EQ(BitsOf(Values<float>("stablehlo.imag", {Vec(in)}, "f32")),
            BitsOf(std::vector<float>(4, 0.0f)));
}

TEST_P(CpuComplexTest, ComplexOfPartsRoundTrips) {
  std::vector<float> re = {1.0f, -0.0f, kNaNF, kInfF, 2.5f};
  std::vector<float> im = {-2.0f, 0.0f, 3.0f, -kInfF, -0.0f};
  std::vector<c64> z = Values<c64>("stablehlo.complex", {Vec(re), Vec(im)}, "complex<f32>");
  ASSERT_EQ(z.size(), re.size());
  for (size_t i = 0; i < z.size(); ++i) {
    EXPECT_EQ(Bits(z[i].real()), Bits(re[i]));
    EXPECT_EQ(Bits(z[i].imag()), Bits(im[i]));
  }
  // The chain complex -> real / imag fuses and gives the parts back.
  std::string program = R"(
func.func @main(%re: tensor<5xf32>, %im: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>) {
  %z = stablehlo.complex %re, %im : tensor<5xcomplex<f32>>
  %w = stablehlo.multiply %z, %z : tensor<5xcomplex<f32>>
  %a = stablehlo.real %z : (tensor<5xcomplex<f32>>) -> tensor<5xf32>
  %b = stablehlo.imag %w : (tensor<5xcomplex<f32>>) -> tensor<5xf32>
  return %a, %b : tensor<5xf32>, tensor<5xf32>
}
)";
  Result<std::vector<Literal>> out = Compute(program, {Vec(re), Vec(im)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(BitsOf(out->at(0).Values<float>()), BitsOf(re));
  std::vector<float> b = out->at(1).Values<float>();
  EXPECT_EQ(b[0], 2 * 1.0f * -2.0f);
  EXPECT_EQ(b[4], 0.0f);
}

TEST_P(CpuComplexTest, EdgeValuesFollowTheSpec) {
  const float nan = kNaNF, inf = kInfF;
  // sign: NaN in either part makes both NaN; 0 stays 0.
  std::vector<c64> sign = Values<c64>(
      "stablehlo.sign", {Vec<c64>({{nan, 0}, {0, nan}, {0, 0}, {0, 2}, {-3, 4}})}, "complex<f32>");
  EXPECT_TRUE(std::isnan(sign[0].real()) && std::isnan(sign[0].imag()));
  EXPECT_TRUE(std::isnan(sign[1].real()) && std::isnan(sign[1].imag()));
  EXPECT_EQ(sign[2], c64(0, 0));
  EXPECT_EQ(sign[3], c64(0, 1));
  EXPECT_NEAR(sign[4].real(), -0.6f, 1e-7f);
  EXPECT_NEAR(sign[4].imag(), 0.8f, 1e-7f);
  // |inf + NaN i| is inf (hypot), Annex G: an infinite operand of * stays infinite.
  EXPECT_EQ(Values<float>("stablehlo.abs", {Vec<c64>({{inf, nan}})}, "f32"),
            (std::vector<float>{inf}));
  std::vector<c64> product = Values<c64>(
      "stablehlo.multiply", {Vec<c64>({{inf, inf}}), Vec<c64>({{nan, 1}})}, "complex<f32>");
  EXPECT_TRUE(std::isinf(product[0].real()) || std::isinf(product[0].imag()));
  // Division by zero gives an infinity, not NaN (Annex G).
  std::vector<c64> quotient =
      Values<c64>("stablehlo.divide", {Vec<c64>({{1, 1}}), Vec<c64>({{0, 0}})}, "complex<f32>");
  EXPECT_TRUE(std::isinf(quotient[0].real()));
  // power: z^0 = 1 (0^0 included), 0^w = 0 for Re w > 0.
  EXPECT_EQ(
      Values<c128>("stablehlo.power",
                   {Vec<c128>({{0, 0}, {2, 3}, {0, 0}}), Vec<c128>({{0, 0}, {0, 0}, {2.5, 0}})},
                   "complex<f64>"),
      (std::vector<c128>{{1, 0}, {1, 0}, {0, 0}}));
  // maximum/minimum: lexicographic, -0 == +0 in the real part.
  std::vector<c64> a = {{1.5f, 2.5f}, {1.5f, 7.5f}, {0.0f, 1.5f}, {nan, 0}};
  std::vector<c64> b = {{7.5f, 1.5f}, {1.5f, 2.5f}, {-0.0f, 2.5f}, {1, 1}};
  std::vector<c64> max = Values<c64>("stablehlo.maximum", {Vec(a), Vec(b)}, "complex<f32>");
  std::vector<c64> min = Values<c64>("stablehlo.minimum", {Vec(a), Vec(b)}, "complex<f32>");
  EXPECT_EQ(max[0], b[0]);
  EXPECT_EQ(max[1], a[1]);
  EXPECT_EQ(Bits(max[2].real()), Bits(-0.0f));
  EXPECT_EQ(max[2].imag(), 2.5f);
  EXPECT_TRUE(std::isnan(max[3].real()));
  EXPECT_EQ(min[0], a[0]);
  EXPECT_EQ(min[1], b[1]);
  EXPECT_EQ(min[2], a[2]);
  EXPECT_TRUE(std::isnan(min[3].real()));
  // sqrt keeps the sign of a zero imaginary part on the branch cut.
  std::vector<c64> roots =
      Values<c64>("stablehlo.sqrt", {Vec<c64>({{-4, 0.0f}, {-4, -0.0f}})}, "complex<f32>");
  EXPECT_EQ(roots[0], c64(0, 2));
  EXPECT_EQ(roots[1], c64(0, -2));
}

TEST_P(CpuComplexTest, CompareIsLexicographicAndNaNIsUnequal) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> small(-2, 2);
  const size_t n = 2049;
  std::vector<c64> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    // Few distinct parts, so equal real parts (and equal values) are common.
    a[i] = c64(static_cast<float>(small(rng)), static_cast<float>(small(rng)));
    b[i] = c64(static_cast<float>(small(rng)), static_cast<float>(small(rng)));
  }
  a[0] = c64(kNaNF, 0);
  b[0] = c64(kNaNF, 0);
  a[1] = c64(-0.0f, 1);
  b[1] = c64(0.0f, 1);
  auto lexicographic_less = [](c64 x, c64 y) {
    return x.real() < y.real() || (x.real() == y.real() && x.imag() < y.imag());
  };
  for (std::string dir : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
    std::vector<bool> got =
        Values<bool>("stablehlo.compare", {Vec(a), Vec(b)}, "i1",
                     "comparison_direction = #stablehlo<comparison_direction " + dir +
                         ">, compare_type = #stablehlo<comparison_type FLOAT>");
    ASSERT_EQ(got.size(), n) << dir;
    for (size_t i = 0; i < n; ++i) {
      bool eq = a[i] == b[i];
      bool want = dir == "EQ"   ? eq
                  : dir == "NE" ? !eq
                  : dir == "LT" ? lexicographic_less(a[i], b[i])
                  : dir == "LE" ? lexicographic_less(a[i], b[i]) || eq
                  : dir == "GT" ? lexicographic_less(b[i], a[i])
                                : lexicographic_less(b[i], a[i]) || eq;
      EXPECT_EQ(got[i], want) << dir << " at " << i;
    }
  }
}

TEST_P(CpuComplexTest, SelectPicksWholeComplexValues) {
  for (size_t n : kLengths) {
    std::vector<c128> a = RandomComplex<c128>(n, 3, -1, 1);
    std::vector<c128> b = RandomComplex<c128>(n, 4, -1, 1);
    std::vector<bool> pred(n);
    for (size_t i = 0; i < n; ++i) pred[i] = (i * 2654435761u) % 3 == 0;
    std::vector<c128> got =
        Values<c128>("stablehlo.select", {Vec(pred), Vec(a), Vec(b)}, "complex<f64>");
    ASSERT_EQ(got.size(), n);
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(got[i], pred[i] ? a[i] : b[i]) << i;
  }
}

TEST_P(CpuComplexTest, ConvertMovesBetweenRealAndComplex) {
  std::vector<c128> wide = RandomComplex<c128>(17, 9, -1e10, 1e10);
  std::vector<c64> narrow = Values<c64>("stablehlo.convert", {Vec(wide)}, "complex<f32>");
  ASSERT_EQ(narrow.size(), wide.size());
  for (size_t i = 0; i < wide.size(); ++i) {
    EXPECT_EQ(narrow[i],
              c64(static_cast<float>(wide[i].real()), static_cast<float>(wide[i].imag())));
  }
  std::vector<c128> back = Values<c128>("stablehlo.convert", {Vec(narrow)}, "complex<f64>");
  for (size_t i = 0; i < wide.size(); ++i)
    EXPECT_EQ(back[i], c128(narrow[i].real(), narrow[i].imag()));
  // Real to complex: the imaginary part is +0.
  EXPECT_EQ(Values<c64>("stablehlo.convert", {Vec<int32_t>({-3, 0, 16777217})}, "complex<f32>"),
            (std::vector<c64>{{-3, 0}, {0, 0}, {16777216, 0}}));
  EXPECT_EQ(Values<c128>("stablehlo.convert", {Vec<bool>({true, false})}, "complex<f64>"),
            (std::vector<c128>{{1, 0}, {0, 0}}));
  // Complex to real: the real part, converted as a float is.
  EXPECT_EQ(Values<float>("stablehlo.convert", {Vec<c64>({{1.5f, 9}, {-2, -7}})}, "f32"),
            (std::vector<float>{1.5f, -2}));
  EXPECT_EQ(Values<int32_t>("stablehlo.convert", {Vec<c64>({{-2.75f, 1}, {1e20f, 0}, {kNaNF, 1}})},
                            "i32"),
            (std::vector<int32_t>{-2, kMax32, 0}));
}

INSTANTIATE_TEST_SUITE_P(Fusion, CpuComplexTest, ::testing::Bool(), FusionName);

// dot_general of complex matrices (batched, one operand real) against a
// long double reference.
TEST(CpuComplexKernelsTest, DotGeneralMatchesReference) {
  for (int64_t k : {1, 5, 33}) {
    const int64_t batch = 2, m = 3, n = 4;
    std::vector<c64> a = RandomComplex<c64>(static_cast<size_t>(batch * m * k), 21, -1, 1);
    std::vector<c64> b = RandomComplex<c64>(static_cast<size_t>(batch * k * n), 22, -1, 1);
    std::string ks = std::to_string(k);
    std::string program = "func.func @main(%a: tensor<2x3x" + ks + "xcomplex<f32>>, %b: tensor<2x" +
                          ks +
                          "x4xcomplex<f32>>) -> tensor<2x3x4xcomplex<f32>> {\n"
                          "  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], "
                          "contracting_dims = [2] x [1] : (tensor<2x3x" +
                          ks + "xcomplex<f32>>, tensor<2x" + ks +
                          "x4xcomplex<f32>>) -> tensor<2x3x4xcomplex<f32>>\n"
                          "  return %0 : tensor<2x3x4xcomplex<f32>>\n}\n";
    std::vector<Literal> out =
        RunProgram(program, {Literal::Of(a, {batch, m, k}), Literal::Of(b, {batch, k, n})});
    ASSERT_EQ(out.size(), 1u);
    std::vector<c64> got = out[0].Values<c64>();
    for (int64_t p = 0; p < batch; ++p) {
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          cld want = 0;
          for (int64_t q = 0; q < k; ++q)
            want += Wide(a[(p * m + i) * k + q]) * Wide(b[(p * k + q) * n + j]);
          EXPECT_TRUE(Near(got[(p * m + i) * n + j], want, 1e-5L)) << p << "," << i << "," << j;
        }
      }
    }
  }
  // A real rhs is converted to complex first.
  std::vector<Literal> out =
      RunProgram(R"(
func.func @main(%a: tensor<2xcomplex<f64>>, %b: tensor<2xf64>) -> tensor<complex<f64>> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [0] x [0] : (tensor<2xcomplex<f64>>, tensor<2xf64>) -> tensor<complex<f64>>
  return %0 : tensor<complex<f64>>
}
)",
                 {Literal::Of<c128>({{1, 2}, {3, -4}}, {2}), Literal::Of<double>({10, 100}, {2})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].Values<c128>(), (std::vector<c128>{{310, -380}}));
}

TEST(CpuComplexKernelsTest, ReduceSumsInOrderOfTheBody) {
  const int64_t rows = 3, cols = 1000;
  std::vector<c128> in = RandomComplex<c128>(static_cast<size_t>(rows * cols), 31, -1, 1);
  std::vector<Literal> out = RunProgram(R"(
func.func @main(%a: tensor<3x1000xcomplex<f64>>) -> tensor<3xcomplex<f64>> {
  %zero = stablehlo.constant dense<(0.0, 0.0)> : tensor<complex<f64>>
  %0 = stablehlo.reduce(%a init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<3x1000xcomplex<f64>>, tensor<complex<f64>>) -> tensor<3xcomplex<f64>>
  return %0 : tensor<3xcomplex<f64>>
}
)",
                                        {Literal::Of(in, {rows, cols})});
  ASSERT_EQ(out.size(), 1u);
  std::vector<c128> got = out[0].Values<c128>();
  for (int64_t r = 0; r < rows; ++r) {
    cld want = 0;
    for (int64_t c = 0; c < cols; ++c) want += Wide(in[static_cast<size_t>(r * cols + c)]);
    EXPECT_TRUE(Near(got[static_cast<size_t>(r)], want, 1e-13L)) << r;
  }
}

// Sums of complex numbers run part by part on the float loops: over
// several dimensions, from a non-zero init, keeping -0.
TEST(CpuComplexKernelsTest, ReduceSumsPartsOverAnyDimensionsFromTheInit) {
  std::vector<c64> in = RandomComplex<c64>(3 * 5 * 37, 33, -1, 1);
  std::vector<Literal> out = RunProgram(R"(
func.func @main(%a: tensor<3x5x37xcomplex<f32>>) -> (tensor<5xcomplex<f32>>, tensor<complex<f32>>) {
  %init = stablehlo.constant dense<(1.0, -2.0)> : tensor<complex<f32>>
  %0 = stablehlo.reduce(%a init: %init) applies stablehlo.add across dimensions = [0, 2] : (tensor<3x5x37xcomplex<f32>>, tensor<complex<f32>>) -> tensor<5xcomplex<f32>>
  %nz = stablehlo.constant dense<(-0.0, -0.0)> : tensor<2xcomplex<f32>>
  %z = stablehlo.constant dense<(-0.0, 0.0)> : tensor<complex<f32>>
  %1 = stablehlo.reduce(%nz init: %z) applies stablehlo.add across dimensions = [0] : (tensor<2xcomplex<f32>>, tensor<complex<f32>>) -> tensor<complex<f32>>
  return %0, %1 : tensor<5xcomplex<f32>>, tensor<complex<f32>>
}
)",
                                        {Literal::Of(in, {3, 5, 37})});
  ASSERT_EQ(out.size(), 2u);
  std::vector<c64> got = out[0].Values<c64>();
  ASSERT_EQ(got.size(), 5u);
  for (int64_t j = 0; j < 5; ++j) {
    cld want(1, -2);
    for (int64_t i = 0; i < 3; ++i) {
      for (int64_t k = 0; k < 37; ++k) want += Wide(in[static_cast<size_t>((i * 5 + j) * 37 + k)]);
    }
    EXPECT_TRUE(Near(got[static_cast<size_t>(j)], want, 1e-5L)) << j;
  }
  c64 zero = out[1].Values<c64>().at(0);
  EXPECT_EQ(Bits(zero.real()), Bits(-0.0f));  // -0 + -0 + -0
  EXPECT_EQ(Bits(zero.imag()), Bits(0.0f));   // +0 + -0 + -0
}

TEST(CpuComplexKernelsTest, IotaConstantsAndDataMovementKeepBothParts) {
  std::vector<Literal> out =
      RunProgram(R"(
func.func @main(%a: tensor<2x3xcomplex<f32>>) -> (tensor<3xcomplex<f64>>, tensor<3x2xcomplex<f32>>, tensor<2xcomplex<f32>>, tensor<2x3xi64>) {
  %i = stablehlo.iota dim = 0 : tensor<3xcomplex<f64>>
  %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xcomplex<f32>>) -> tensor<3x2xcomplex<f32>>
  %c = stablehlo.constant dense<[(1.5, -2.0), (0.0, 3.25)]> : tensor<2xcomplex<f32>>
  %b = stablehlo.bitcast_convert %a : (tensor<2x3xcomplex<f32>>) -> tensor<2x3xi64>
  return %i, %t, %c, %b : tensor<3xcomplex<f64>>, tensor<3x2xcomplex<f32>>, tensor<2xcomplex<f32>>, tensor<2x3xi64>
}
)",
                 {Literal::Of<c64>({{1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}, {11, 12}}, {2, 3})});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].Values<c128>(), (std::vector<c128>{{0, 0}, {1, 0}, {2, 0}}));
  EXPECT_EQ(out[1].Values<c64>(),
            (std::vector<c64>{{1, 2}, {7, 8}, {3, 4}, {9, 10}, {5, 6}, {11, 12}}));
  EXPECT_EQ(out[2].Values<c64>(), (std::vector<c64>{{1.5f, -2}, {0, 3.25f}}));
  std::vector<int64_t> bits = out[3].Values<int64_t>();
  ASSERT_EQ(bits.size(), 6u);
  EXPECT_EQ(static_cast<uint64_t>(bits[0]), (uint64_t{Bits(2.0f)} << 32) | Bits(1.0f));
}

// triangular_solve of complex matrices: op(a) x = b checked by multiplying
// back in long double, for each transpose_a (ADJOINT conjugates).
TEST(CpuComplexKernelsTest, TriangularSolveSatisfiesTheSystem) {
  const int64_t m = 9, cols = 3;
  std::vector<c128> a = RandomComplex<c128>(static_cast<size_t>(m * m), 41, -1, 1);
  for (int64_t i = 0; i < m; ++i)
    a[static_cast<size_t>(i * m + i)] += c128(4, 0);  // well conditioned
  std::vector<c128> b = RandomComplex<c128>(static_cast<size_t>(m * cols), 42, -1, 1);
  for (std::string transpose : {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}) {
    std::string program = "func.func @main(%a: tensor<9x9xcomplex<f64>>, %b: "
                          "tensor<9x3xcomplex<f64>>) -> tensor<9x3xcomplex<f64>> {\n"
                          "  %0 = \"stablehlo.triangular_solve\"(%a, %b) {left_side = true, lower "
                          "= true, unit_diagonal = false, "
                          "transpose_a = #stablehlo<transpose " +
                          transpose +
                          ">} : (tensor<9x9xcomplex<f64>>, "
                          "tensor<9x3xcomplex<f64>>) -> tensor<9x3xcomplex<f64>>\n"
                          "  return %0 : tensor<9x3xcomplex<f64>>\n}\n";
    std::vector<Literal> out =
        RunProgram(program, {Literal::Of(a, {m, m}), Literal::Of(b, {m, cols})});
    ASSERT_EQ(out.size(), 1u) << transpose;
    std::vector<c128> x = out[0].Values<c128>();
    // op(a)[i][k] from the lower triangle only.
    auto op_a = [&](int64_t i, int64_t k) -> cld {
      int64_t r = transpose == "NO_TRANSPOSE" ? i : k, c = transpose == "NO_TRANSPOSE" ? k : i;
      if (c > r) return 0;
      cld v = Wide(a[static_cast<size_t>(r * m + c)]);
      return transpose == "ADJOINT" ? std::conj(v) : v;
    };
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < cols; ++j) {
        cld sum = 0;
        for (int64_t k = 0; k < m; ++k)
          sum += op_a(i, k) * Wide(x[static_cast<size_t>(k * cols + j)]);
        EXPECT_TRUE(Near(c128(static_cast<double>(sum.real()), static_cast<double>(sum.imag())),
                         Wide(b[static_cast<size_t>(i * cols + j)]), 1e-13L))
            << transpose << " row " << i << " column " << j;
      }
    }
  }
}

// cholesky of Hermitian positive definite matrices: L L^H (lower) and
// U^H U (upper) give the matrix back, computed here in long double; the
// other triangle is zero; a matrix that is not positive definite is NaN.
TEST(CpuComplexKernelsTest, CholeskyFactorsHermitianMatrices) {
  const int64_t n = 7;
  std::vector<c128> b = RandomComplex<c128>(static_cast<size_t>(n * n), 51, -1, 1);
  std::vector<c128> a(static_cast<size_t>(n * n));
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      c128 sum = i == j ? c128(n, 0) : c128(0, 0);
      for (int64_t k = 0; k < n; ++k)
        sum += b[static_cast<size_t>(i * n + k)] * std::conj(b[static_cast<size_t>(j * n + k)]);
      a[static_cast<size_t>(i * n + j)] = sum;
    }
  }
  for (bool lower : {true, false}) {
    std::string program =
        std::string(
            "func.func @main(%a: tensor<7x7xcomplex<f64>>) -> tensor<7x7xcomplex<f64>> {\n") +
        "  %0 = stablehlo.cholesky %a, lower = " + (lower ? "true" : "false") +
        " : tensor<7x7xcomplex<f64>>\n  return %0 : tensor<7x7xcomplex<f64>>\n}\n";
    std::vector<Literal> out = RunProgram(program, {Literal::Of(a, {n, n})});
    ASSERT_EQ(out.size(), 1u);
    std::vector<c128> f = out[0].Values<c128>();
    // L[i][j] (lower) or conj(U[j][i]) (upper), zero above the diagonal.
    auto l = [&](int64_t i, int64_t j) -> cld {
      c128 v =
          lower ? f[static_cast<size_t>(i * n + j)] : std::conj(f[static_cast<size_t>(j * n + i)]);
      return Wide(v);
    };
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        if (j > i) {
          EXPECT_EQ(lower ? f[static_cast<size_t>(i * n + j)] : f[static_cast<size_t>(j * n + i)],
                    c128(0, 0));
        }
        cld sum = 0;
        for (int64_t k = 0; k < n; ++k) sum += l(i, k) * std::conj(l(j, k));
        EXPECT_TRUE(Near(c128(static_cast<double>(sum.real()), static_cast<double>(sum.imag())),
                         Wide(a[static_cast<size_t>(i * n + j)]), 1e-13L))
            << (lower ? "lower" : "upper") << " " << i << ", " << j;
      }
    }
  }
  std::vector<Literal> bad =
      RunProgram(R"(
func.func @main(%a: tensor<2x2xcomplex<f32>>) -> tensor<2x2xcomplex<f32>> {
  %0 = stablehlo.cholesky %a, lower = true : tensor<2x2xcomplex<f32>>
  return %0 : tensor<2x2xcomplex<f32>>
}
)",
                 {Literal::Of<c64>({{-1, 0}, {0, 0}, {0, 0}, {4, 0}}, {2, 2})});
  ASSERT_EQ(bad.size(), 1u);
  for (c64 v : bad[0].Values<c64>()) EXPECT_TRUE(std::isnan(v.real()) && std::isnan(v.imag()));
}

// Kernels with a body run it for complex numbers: reduce_window sums,
// sort orders by a comparator on complex keys.
TEST(CpuComplexKernelsTest, WindowsAndSortRunTheirBodies) {
  std::vector<Literal> out = RunProgram(R"(
func.func @main(%a: tensor<4xcomplex<f32>>) -> (tensor<2xcomplex<f32>>, tensor<4xcomplex<f32>>) {
  %z = stablehlo.constant dense<(0.0, 0.0)> : tensor<complex<f32>>
  %0 = "stablehlo.reduce_window"(%a, %z) ({
    ^bb0(%x: tensor<complex<f32>>, %y: tensor<complex<f32>>):
      %s = stablehlo.add %x, %y : tensor<complex<f32>>
      stablehlo.return %s : tensor<complex<f32>>
  }) {window_dimensions = array<i64: 2>, window_strides = array<i64: 2>} : (tensor<4xcomplex<f32>>, tensor<complex<f32>>) -> tensor<2xcomplex<f32>>
  %1 = "stablehlo.sort"(%a) ({
    ^bb0(%x: tensor<complex<f32>>, %y: tensor<complex<f32>>):
      %c = stablehlo.compare GT, %x, %y : (tensor<complex<f32>>, tensor<complex<f32>>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return %0, %1 : tensor<2xcomplex<f32>>, tensor<4xcomplex<f32>>
}
)",
                                        {Literal::Of<c64>({{1, 5}, {2, 0}, {1, -1}, {4, 2}}, {4})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].Values<c64>(), (std::vector<c64>{{3, 5}, {5, 1}}));
  // Descending, lexicographic on (real, imaginary).
  EXPECT_EQ(out[1].Values<c64>(), (std::vector<c64>{{4, 2}, {2, 0}, {1, 5}, {1, -1}}));
}

// A window of two ones over complex values: neighbouring sums, imaginary
// parts included (the random cases are in cpu_convolution_test).
TEST(CpuComplexKernelsTest, ConvolutionSumsComplexWindows) {
  std::vector<Literal> out =
      RunProgram(R"(
func.func @main(%a: tensor<1x4x1xcomplex<f32>>, %w: tensor<2x1x1xcomplex<f32>>) -> tensor<1x3x1xcomplex<f32>> {
  %0 = stablehlo.convolution(%a, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x1xcomplex<f32>>, tensor<2x1x1xcomplex<f32>>) -> tensor<1x3x1xcomplex<f32>>
  return %0 : tensor<1x3x1xcomplex<f32>>
}
)",
                 {Literal::Of<c64>({{1, 1}, {2, 0}, {3, -1}, {4, 2}}, {1, 4, 1}),
                  Literal::Of<c64>({{1, 0}, {0, 1}}, {2, 1, 1})});
  ASSERT_EQ(out.size(), 1u);
  // out[i] = a[i] * 1 + a[i + 1] * i.
  EXPECT_THAT(out[0].Values<c64>(), ElementsAre(c64(1, 3), c64(3, 3), c64(1, 3)));
}

}  // namespace
}  // namespace berth::testing
