// The LAPACK module's factorizations end to end on the cpu plugin: LU
// (lapack_?getrf_ffi), QR (lapack_?geqrf_ffi, or lapack_?geqp3_ffi with
// column pivoting, then lapack_?orgqr_ffi / ungqr, as JAX's qr lowering chains them)
// and Cholesky (lapack_?potrf_ffi), at every size
// of kSizes and several batch shapes, for f32, f64, complex<f32> and
// complex<f64>, each checked by rebuilding the input from the factors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lapack_test_util.hpp"

namespace berth::testing {
namespace {

template <typename T>
class LapackFactorizationTest : public ::testing::Test {};
TYPED_TEST_SUITE(LapackFactorizationTest, LapackTypes);

// lu = P * L * U after getrf's row swaps; returns the swapped rows of x.
template <typename T>
std::vector<T> SwapRows(const T* x, const int32_t* pivots, int64_t m, int64_t n, int64_t steps) {
  std::vector<T> swapped(x, x + m * n);
  for (int64_t i = 0; i < steps; ++i) {
    const int64_t other = pivots[i] - 1;  // LAPACK's pivots are 1-based
    EXPECT_GE(other, i);
    EXPECT_LT(other, m);
    if (other < i || other >= m) return swapped;
    for (int64_t c = 0; c < n; ++c) std::swap(swapped[i * n + c], swapped[other * n + c]);
  }
  return swapped;
}

template <typename T>
void CheckLu(int64_t m, int64_t n, const std::vector<int64_t>& batch, uint32_t seed) {
  const std::string what =
      std::to_string(m) + "x" + std::to_string(n) + " batch " + DimsText(batch);
  const int64_t k = std::min(m, n);
  const std::string program = JaxProgram(
      std::string("lapack_") + Prefix<T>() + "getrf_ffi",
      {{Concat(batch, {m, n}), MlirType<T>(), true}},
      {{Concat(batch, {m, n}), MlirType<T>(), true}, {Concat(batch, {k}), "i32"}, {batch, "i32"}},
      "");
  const int64_t count = Product(batch);
  std::vector<T> x = RandomValues<T>(count * m * n, seed);
  std::vector<Literal> out = MustRun(program, {Literal::Of<T>(x, Concat(batch, {m, n}))});
  ASSERT_EQ(out.size(), 3u) << what;
  std::vector<T> lu = out[0].Values<T>();
  std::vector<int32_t> pivots = out[1].Values<int32_t>();
  std::vector<int32_t> info = out[2].Values<int32_t>();
  ASSERT_EQ(lu.size(), x.size()) << what;
  for (int64_t b = 0; b < count; ++b) {
    EXPECT_EQ(info[b], 0) << what << " matrix " << b;
    std::vector<T> l(m * k, T{0});
    std::vector<T> u(k * n, T{0});
    const T* f = lu.data() + b * m * n;
    for (int64_t r = 0; r < m; ++r) {
      for (int64_t c = 0; c < n; ++c) {
        if (r > c && c < k) l[r * k + c] = f[r * n + c];
        if (r <= c && r < k) u[r * n + c] = f[r * n + c];
      }
      if (r < k) l[r * k + r] = T{1};
    }
    std::vector<Wide<T>> product = MatMul(l.data(), u.data(), m, k, n);
    std::vector<T> swapped = SwapRows(x.data() + b * m * n, pivots.data() + b * k, m, n, k);
    EXPECT_LE(MaxDifference(product.data(), swapped.data(), m * n),
              Tolerance<T>(std::max(m, n), FrobeniusNorm(swapped.data(), m * n)))
        << what << " matrix " << b << ": L * U differs from P^T * x";
  }
}

TYPED_TEST(LapackFactorizationTest, LuRebuildsTheInputAtEverySizeAndBatch) {
  uint32_t seed = 1;
  for (const auto& [n, batch] : SizesAndBatches()) CheckLu<TypeParam>(n, n, batch, seed++);
  CheckLu<TypeParam>(3, 7, {2}, seed++);
  CheckLu<TypeParam>(17, 9, {}, seed++);
  CheckLu<TypeParam>(0, 5, {2}, seed++);
}

TYPED_TEST(LapackFactorizationTest, LuOfASingularMatrixReportsTheZeroPivotInInfo) {
  using T = TypeParam;
  // Matrix 0 has a zero first column (U(1,1) = 0); matrix 1 is regular.
  const std::vector<T> x = {0, 1, 2, 0, 3, 4, 0, 5, 7, 2, 1, 0, 1, 3, 1, 0, 1, 4};
  const std::string program = JaxProgram(
      std::string("lapack_") + Prefix<T>() + "getrf_ffi", {{{2, 3, 3}, MlirType<T>(), true}},
      {{{2, 3, 3}, MlirType<T>(), true}, {{2, 3}, "i32"}, {{2}, "i32"}}, "");
  std::vector<Literal> out = MustRun(program, {Literal::Of<T>(x, {2, 3, 3})});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_THAT(out[2].Values<int32_t>(), ::testing::ElementsAre(1, 0));
}

// geqrf (or geqp3 with zero pivots: every column free), the reflectors of
// qr[..., :, :k] through orgqr: Q (m x k), and R = the upper triangle of qr
// (k x n); Q * R is x, its columns permuted by the pivots for geqp3.
template <typename T>
void CheckQr(int64_t m, int64_t n, const std::vector<int64_t>& batch, bool pivoted, uint32_t seed) {
  const std::string what = std::string(pivoted ? "geqp3 " : "geqrf ") + std::to_string(m) + "x" +
                           std::to_string(n) + " batch " + DimsText(batch);
  const int64_t k = std::min(m, n);
  const std::string type = MlirType<T>();
  const CallValue x_value{Concat(batch, {m, n}), type, true};
  const CallValue pivots_value{Concat(batch, {n}), "i32"};
  const CallValue tau_value{Concat(batch, {k}), type};
  const CallValue q_value{Concat(batch, {m, k}), type, true};
  std::string slice_bounds;
  for (int64_t dim : batch) slice_bounds += "0:" + std::to_string(dim) + ", ";
  slice_bounds += "0:" + std::to_string(m) + ", 0:" + std::to_string(k);
  std::string program = "func.func public @main(%x: " + TensorType(x_value) + ") -> (" +
                        TypeList({x_value, pivots_value, q_value}) + ") {\n";
  std::string tau = "qr#1";
  std::string pivots = "pivots";
  program += "  %pivots = stablehlo.constant dense<0> : " + TensorType(pivots_value) + "\n";
  if (pivoted) {
    program +=
        JaxCustomCall("qr", std::string("lapack_") + Prefix<T>() + "geqp3_ffi", {"x", "pivots"},
                      {x_value, pivots_value}, {x_value, pivots_value, tau_value}, "");
    tau = "qr#2";
    pivots = "qr#1";
  } else {
    program += JaxCustomCall("qr", std::string("lapack_") + Prefix<T>() + "geqrf_ffi", {"x"},
                             {x_value}, {x_value, tau_value}, "");
  }
  program += "  %reflectors = stablehlo.slice %qr#0 [" + slice_bounds + "] : (" +
             TensorType(x_value) + ") -> " + TensorType(q_value) + "\n";
  program += JaxCustomCall("q", Target<T>("orgqr", "ungqr"), {"reflectors", tau},
                           {q_value, tau_value}, {q_value}, "");
  program += "  return %qr#0, %" + pivots + ", %q : " + TypeList({x_value, pivots_value, q_value}) +
             "\n}\n";

  const int64_t count = Product(batch);
  std::vector<T> x = RandomValues<T>(count * m * n, seed);
  std::vector<Literal> out = MustRun(program, {Literal::Of<T>(x, x_value.dims)});
  ASSERT_EQ(out.size(), 3u) << what;
  std::vector<T> qr = out[0].Values<T>();
  std::vector<int32_t> permutation = out[1].Values<int32_t>();
  std::vector<T> q = out[2].Values<T>();
  ASSERT_EQ(q.size(), static_cast<size_t>(count * m * k)) << what;
  for (int64_t b = 0; b < count; ++b) {
    std::vector<T> r(k * n, T{0});
    for (int64_t i = 0; i < k; ++i) {
      for (int64_t j = i; j < n; ++j) r[i * n + j] = qr[b * m * n + i * n + j];
    }
    // Column j of x * P is column pivots[j] - 1 of x (the identity for geqrf).
    std::vector<T> permuted(m * n);
    for (int64_t j = 0; j < n; ++j) {
      const int64_t from = pivoted ? permutation[b * n + j] - 1 : j;
      ASSERT_TRUE(from >= 0 && from < n) << what << ": pivot " << from + 1;
      for (int64_t i = 0; i < m; ++i) permuted[i * n + j] = x[b * m * n + i * n + from];
    }
    if (pivoted) {
      for (int64_t i = 0; i + 1 < k; ++i) {
        EXPECT_GE(std::abs(r[i * n + i]), std::abs(r[(i + 1) * n + i + 1]))
            << what << ": |R|'s diagonal increases at " << i;
      }
    }
    const T* q_b = q.data() + b * m * k;
    std::vector<Wide<T>> product = MatMul(q_b, r.data(), m, k, n);
    EXPECT_LE(MaxDifference(product.data(), permuted.data(), m * n),
              Tolerance<T>(std::max(m, n), FrobeniusNorm(permuted.data(), m * n)))
        << what << " matrix " << b << ": Q * R differs from x * P";
    ExpectOrthonormalColumns(q_b, m, k, what + " matrix " + std::to_string(b));
  }
}

TYPED_TEST(LapackFactorizationTest, QrRebuildsTheInputWithOrthonormalQ) {
  for (bool pivoted : {false, true}) {
    uint32_t seed = pivoted ? 150 : 100;
    for (const auto& [n, batch] : SizesAndBatches()) {
      CheckQr<TypeParam>(n, n, batch, pivoted, seed++);
    }
    CheckQr<TypeParam>(9, 3, {2}, pivoted, seed++);
    CheckQr<TypeParam>(4, 17, {}, pivoted, seed++);
    CheckQr<TypeParam>(33, 8, {3}, pivoted, seed++);
  }
}

// x = a * a^H + n * I, positive definite (Hermitian for complex T).
template <typename T>
std::vector<T> PositiveDefinite(int64_t n, int64_t count, uint32_t seed) {
  std::vector<T> a = RandomValues<T>(count * n * n, seed);
  std::vector<T> x(count * n * n);
  for (int64_t b = 0; b < count; ++b) {
    std::vector<T> ah = Adjoint(a.data() + b * n * n, n, n);
    std::vector<Wide<T>> product = MatMul(a.data() + b * n * n, ah.data(), n, n, n);
    for (int64_t i = 0; i < n * n; ++i) x[b * n * n + i] = static_cast<T>(product[i]);
    for (int64_t d = 0; d < n; ++d) x[b * n * n + d * n + d] += static_cast<T>(n);
  }
  return x;
}

template <typename T>
void CheckCholesky(int64_t n, const std::vector<int64_t>& batch, char uplo, uint32_t seed) {
  const std::string what =
      std::to_string(n) + "x" + std::to_string(n) + " uplo " + uplo + " batch " + DimsText(batch);
  const std::vector<int64_t> dims = Concat(batch, {n, n});
  const std::string program =
      JaxProgram(std::string("lapack_") + Prefix<T>() + "potrf_ffi", {{dims, MlirType<T>(), true}},
                 {{dims, MlirType<T>(), true}, {batch, "i32"}},
                 "uplo = " + std::to_string(int{uplo}) + " : ui8");
  const int64_t count = Product(batch);
  std::vector<T> x = PositiveDefinite<T>(n, count, seed);
  std::vector<Literal> out = MustRun(program, {Literal::Of<T>(x, dims)});
  ASSERT_EQ(out.size(), 2u) << what;
  std::vector<T> factor = out[0].Values<T>();
  std::vector<int32_t> info = out[1].Values<int32_t>();
  for (int64_t b = 0; b < count; ++b) {
    EXPECT_EQ(info[b], 0) << what << " matrix " << b;
    // The triangle LAPACK wrote; the other one still holds x.
    std::vector<T> l(n * n, T{0});
    for (int64_t r = 0; r < n; ++r) {
      for (int64_t c = 0; c <= r; ++c) {
        // uplo 'U': x = U^H U, so L = U^H.
        l[r * n + c] =
            uplo == 'L' ? factor[b * n * n + r * n + c] : Conj(factor[b * n * n + c * n + r]);
      }
    }
    for (int64_t r = 0; r < n; ++r) {
      for (int64_t c = r + 1; c < n; ++c) {
        const int64_t untouched = uplo == 'L' ? r * n + c : c * n + r;
        EXPECT_EQ(factor[b * n * n + untouched], x[b * n * n + untouched]) << what;
      }
    }
    std::vector<T> lh = Adjoint(l.data(), n, n);
    std::vector<Wide<T>> product = MatMul(l.data(), lh.data(), n, n, n);
    ExpectRebuilds(product, x.data() + b * n * n, n, what + " matrix " + std::to_string(b),
                   "L * L^H");
  }
}

TYPED_TEST(LapackFactorizationTest, CholeskyRebuildsTheInputFromEitherTriangle) {
  ForEverySizeAndTriangle(200, CheckCholesky<TypeParam>);
}

TYPED_TEST(LapackFactorizationTest, CholeskyOfANonPositiveDefiniteMatrixReportsTheMinorInInfo) {
  using T = TypeParam;
  // Matrix 0: the leading 2 x 2 minor has determinant 1 - 4 < 0; matrix 1:
  // positive definite; matrix 2: -I.
  const std::vector<T> x = {1, 2, 0, 2, 1,  0, 0, 0, 1,  4, 1, 0, 1, 3,
                            1, 0, 1, 2, -1, 0, 0, 0, -1, 0, 0, 0, -1};
  const std::string program = JaxProgram(
      std::string("lapack_") + Prefix<T>() + "potrf_ffi", {{{3, 3, 3}, MlirType<T>(), true}},
      {{{3, 3, 3}, MlirType<T>(), true}, {{3}, "i32"}}, "uplo = 76 : ui8");
  std::vector<Literal> out = MustRun(program, {Literal::Of<T>(x, {3, 3, 3})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_THAT(out[1].Values<int32_t>(), ::testing::ElementsAre(2, 0, 1));
}

}  // namespace
}  // namespace berth::testing
