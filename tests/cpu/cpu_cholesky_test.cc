// stablehlo.cholesky on the CPU plugin: lower and upper factors of seeded
// random positive-definite batches in f32, f64, f16 and bf16, checked by
// reconstruction in long double and against a factorization computed here
// column by column (Cholesky-Crout, unlike the plugin's row order); only
// the named triangle is read; matrices that are not positive definite give
// NaN.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "elementwise_test_util.hpp"
#include "kernel_test_util.hpp"

namespace berth::testing {
namespace {

std::string CholeskyProgram(const std::vector<int64_t>& dims, const std::string& type, bool lower) {
  std::string t = testing::TensorType(dims, type);
  return "func.func @main(%a: " + t + ") -> " + t + " {\n  %0 = stablehlo.cholesky %a, lower = " +
         (lower ? "true" : "false") + " : " + t + "\n  return %0 : " + t + "\n}\n";
}

// A = B B^T + n I for random B: symmetric positive definite.
std::vector<long double> RandomSpd(int64_t n, std::mt19937_64& random) {
  std::uniform_real_distribution<double> value(-1, 1);
  std::vector<long double> b(static_cast<size_t>(n * n)), a(static_cast<size_t>(n * n));
  for (long double& v : b) v = value(random);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      long double s = i == j ? n : 0;
      for (int64_t k = 0; k < n; ++k) s += b[static_cast<size_t>(i * n + k)] * b[static_cast<size_t>(j * n + k)];
      a[static_cast<size_t>(i * n + j)] = s;
    }
  }
  return a;
}

// Cholesky-Crout in long double: column j of L from the columns before it.
std::vector<long double> ReferenceLower(const std::vector<long double>& a, int64_t n) {
  std::vector<long double> l(static_cast<size_t>(n * n), 0);
  for (int64_t j = 0; j < n; ++j) {
    long double d = a[static_cast<size_t>(j * n + j)];
    for (int64_t k = 0; k < j; ++k) d -= l[static_cast<size_t>(j * n + k)] * l[static_cast<size_t>(j * n + k)];
    l[static_cast<size_t>(j * n + j)] = sqrtl(d);
    for (int64_t i = j + 1; i < n; ++i) {
      long double s = a[static_cast<size_t>(i * n + j)];
      for (int64_t k = 0; k < j; ++k) s -= l[static_cast<size_t>(i * n + k)] * l[static_cast<size_t>(j * n + k)];
      l[static_cast<size_t>(i * n + j)] = s / l[static_cast<size_t>(j * n + j)];
    }
  }
  return l;
}

struct TypeCase {
  const char* name;
  ElementType type;
  double tolerance;  // relative to the factor's largest element
};

// Values of a literal of any float type as long double, and back.
std::vector<long double> Decode(const Literal& l) {
  std::vector<long double> out;
  if (l.type == ElementType::kF32) for (float v : l.Values<float>()) out.push_back(v);
  else if (l.type == ElementType::kF64) for (double v : l.Values<double>()) out.push_back(v);
  else if (l.type == ElementType::kBF16) for (uint16_t v : l.Values<uint16_t>()) out.push_back(testing::FromBf16(v));
  else for (uint16_t v : l.Values<uint16_t>()) {
    uint32_t s = (v & 0x8000u) << 16, e = (v >> 10) & 0x1F, m = v & 0x3FF;
    float f = e == 0x1F ? testing::F32Bits(s | 0x7F800000u | (m << 13))
              : e == 0 ? std::copysign(std::ldexp(static_cast<float>(m), -24), s ? -1.0f : 1.0f)
                       : testing::F32Bits(s | ((e + 112) << 23) | (m << 13));
    out.push_back(f);
  }
  return out;
}

uint16_t ToF16(float f) {
  // Rounded to nearest even (the default rounding mode); values here are
  // in range.
  uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  float a = std::fabs(f);
  if (a < 0x1p-14f) return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::nearbyint(a * 0x1p24f)));
  int exponent;
  float mantissa = std::frexp(a, &exponent);  // a = mantissa 2^exponent, mantissa in [0.5, 1)
  uint32_t significand = static_cast<uint32_t>(std::nearbyint(std::ldexp(mantissa, 11)));  // 11 bits
  if (significand == 2048) {
    significand = 1024;
    ++exponent;
  }
  return static_cast<uint16_t>(sign | (static_cast<uint32_t>(exponent + 14) << 10) | (significand & 0x3FF));
}

Literal Encode(const std::vector<long double>& values, ElementType type, std::vector<int64_t> dims) {
  if (type == ElementType::kF32) {
    std::vector<float> v(values.begin(), values.end());
    return Literal::Of<float>(v, dims);
  }
  if (type == ElementType::kF64) {
    std::vector<double> v(values.begin(), values.end());
    return Literal::Of<double>(v, dims);
  }
  std::vector<uint16_t> raw;
  for (long double x : values) raw.push_back(type == ElementType::kBF16 ? testing::ToBf16(static_cast<float>(x)) : ToF16(static_cast<float>(x)));
  return Literal::Raw<uint16_t>(type, raw, dims);
}

TEST(CpuCholeskyTest, LowerAndUpperFactorsOfRandomBatches) {
  const TypeCase types[] = {{"f32", ElementType::kF32, 1e-5}, {"f64", ElementType::kF64, 1e-13},
                            {"f16", ElementType::kF16, 4e-3}, {"bf16", ElementType::kBF16, 3e-2}};
  std::mt19937_64 random(3);
  for (const TypeCase& c : types) {
    for (int64_t n : {1, 2, 7, 17, 40}) {
      for (bool lower : {true, false}) {
        const int64_t batch = 3;
        std::vector<long double> all;
        std::vector<std::vector<long double>> matrices;
        for (int64_t b = 0; b < batch; ++b) {
          std::vector<long double> a = RandomSpd(n, random);
          // What the element type holds; the factor of that is the reference.
          Literal held = Encode(a, c.type, {n, n});
          a = Decode(held);
          // The other triangle is garbage the op must not read.
          for (int64_t i = 0; i < n; ++i) {
            for (int64_t j = 0; j < n; ++j) {
              bool unread = lower ? j > i : j < i;
              if (unread) a[static_cast<size_t>(i * n + j)] = -100.0L - i;
            }
          }
          a = Decode(Encode(a, c.type, {n, n}));
          matrices.push_back(a);
          all.insert(all.end(), a.begin(), a.end());
        }
        SCOPED_TRACE(std::string(c.name) + " n = " + std::to_string(n) + (lower ? " lower" : " upper"));
        auto out = testing::CpuRunner::Get().Run(CholeskyProgram({batch, n, n}, c.name, lower),
                                                  {Encode(all, c.type, {batch, n, n})});
        ASSERT_TRUE(out.ok()) << out.status().ToString();
        std::vector<long double> got = Decode(out->at(0));
        for (int64_t b = 0; b < batch; ++b) {
          std::vector<long double> a = matrices[static_cast<size_t>(b)];
          // The symmetric matrix the named triangle describes.
          for (int64_t i = 0; i < n; ++i) {
            for (int64_t j = 0; j < n; ++j) {
              bool unread = lower ? j > i : j < i;
              if (unread) a[static_cast<size_t>(i * n + j)] = a[static_cast<size_t>(j * n + i)];
            }
          }
          std::vector<long double> l = ReferenceLower(a, n);
          long double scale = 0;
          for (long double v : l) scale = std::max(scale, fabsl(v));
          for (int64_t i = 0; i < n; ++i) {
            for (int64_t j = 0; j < n; ++j) {
              long double expected = lower ? l[static_cast<size_t>(i * n + j)] : l[static_cast<size_t>(j * n + i)];
              long double value = got[static_cast<size_t>(b * n * n + i * n + j)];
              bool zero_side = lower ? j > i : j < i;
              if (zero_side) {
                ASSERT_EQ(value, 0) << "batch " << b << " (" << i << ", " << j << ")";
              } else {
                ASSERT_NEAR(static_cast<double>(value), static_cast<double>(expected),
                            c.tolerance * static_cast<double>(scale))
                    << "batch " << b << " (" << i << ", " << j << ")";
              }
            }
          }
        }
      }
    }
  }
}

TEST(CpuCholeskyTest, F64FactorRebuildsTheMatrix) {
  std::mt19937_64 random(4);
  const int64_t n = 64;
  std::vector<long double> a = RandomSpd(n, random);
  std::vector<double> ad(a.begin(), a.end());
  auto out = testing::CpuRunner::Get().Run(CholeskyProgram({n, n}, "f64", true), {Literal::Of<double>(ad, {n, n})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  std::vector<double> l = out->at(0).Values<double>();
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j <= i; ++j) {
      long double s = 0;
      for (int64_t k = 0; k <= j; ++k) s += static_cast<long double>(l[static_cast<size_t>(i * n + k)]) * l[static_cast<size_t>(j * n + k)];
      ASSERT_NEAR(static_cast<double>(s), ad[static_cast<size_t>(i * n + j)], 1e-12 * n) << i << ", " << j;
    }
  }
}

TEST(CpuCholeskyTest, NotPositiveDefiniteGivesNaN) {
  // The second matrix has a negative pivot, the third a NaN; the first is fine.
  std::vector<float> a = {4, 2, 2, 5, 1, 2, 2, 1, 1, 0, std::nanf(""), 1};
  auto out = testing::CpuRunner::Get().Run(CholeskyProgram({3, 2, 2}, "f32", true),
                                           {Literal::Of<float>(a, {3, 2, 2})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  std::vector<float> l = out->at(0).Values<float>();
  EXPECT_EQ(l[0], 2.0f);
  EXPECT_EQ(l[1], 0.0f);
  EXPECT_EQ(l[2], 1.0f);
  EXPECT_EQ(l[3], 2.0f);
  for (size_t i = 4; i < 12; ++i) EXPECT_TRUE(std::isnan(l[i])) << i;
}

TEST(CpuCholeskyTest, SpecExampleAndDefaultIsUpper) {
  std::vector<double> a = {1, 2, 3, 2, 20, 26, 3, 26, 70};
  auto lower = testing::CpuRunner::Get().Run(CholeskyProgram({3, 3}, "f64", true), {Literal::Of<double>(a, {3, 3})});
  ASSERT_TRUE(lower.ok()) << lower.status().ToString();
  EXPECT_EQ(lower->at(0).Values<double>(), (std::vector<double>{1, 0, 0, 2, 4, 0, 3, 5, 6}));
  auto upper = testing::CpuRunner::Get().Run(R"(
func.func @main(%a: tensor<3x3xf64>) -> tensor<3x3xf64> {
  %0 = "stablehlo.cholesky"(%a) : (tensor<3x3xf64>) -> tensor<3x3xf64>
  return %0 : tensor<3x3xf64>
}
)", {Literal::Of<double>(a, {3, 3})});
  ASSERT_TRUE(upper.ok()) << upper.status().ToString();
  EXPECT_EQ(upper->at(0).Values<double>(), (std::vector<double>{1, 2, 3, 0, 4, 5, 0, 0, 6}));
}

}  // namespace
}  // namespace berth::testing
