// The LAPACK module's solvers end to end on the cpu plugin: triangular
// (lapack_?trsm_ffi, every side / uplo / trans_x / diag, and the older
// blas_?trsm_ffi name) and tridiagonal (lapack_?gtsv_ffi), each checked by
// multiplying the solution back, for f32, f64, complex<f32> and complex<f64>.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lapack_test_util.hpp"

namespace berth::testing {
namespace {

template <typename T>
class LapackSolveTest : public ::testing::Test {};
TYPED_TEST_SUITE(LapackSolveTest, LapackTypes);

struct TrsmOptions {
  char side;
  char uplo;
  char trans;
  char diag;
};

// op(a) as the routine reads it: the uplo triangle, a unit diagonal for
// diag 'U', transposed for trans 'T', conjugate transposed for 'C'.
template <typename T>
std::vector<T> EffectiveTriangle(const T* a, int64_t k, const TrsmOptions& o) {
  std::vector<T> t(k * k, T{0});
  for (int64_t r = 0; r < k; ++r) {
    for (int64_t c = 0; c < k; ++c) {
      const bool inside = o.uplo == 'L' ? c <= r : c >= r;
      if (r == c)
        t[r * k + c] = o.diag == 'U' ? T{1} : a[r * k + c];
      else if (inside)
        t[r * k + c] = a[r * k + c];
    }
  }
  if (o.trans == 'N') return t;
  return o.trans == 'T' ? Transpose(t.data(), k, k) : Adjoint(t.data(), k, k);
}

template <typename T>
void CheckTrsm(const std::string& target, int64_t m, int64_t n, const std::vector<int64_t>& batch,
               const TrsmOptions& o, uint32_t seed) {
  const std::string what = target + " " + std::to_string(m) + "x" + std::to_string(n) + " " +
                           o.side + o.uplo + o.trans + o.diag + " batch " + DimsText(batch);
  const int64_t k = o.side == 'L' ? m : n;
  const std::string type = MlirType<T>();
  const std::string config = "diag = " + std::to_string(int{o.diag}) +
                             " : ui8, side = " + std::to_string(int{o.side}) +
                             " : ui8, trans_x = " + std::to_string(int{o.trans}) +
                             " : ui8, uplo = " + std::to_string(int{o.uplo}) + " : ui8";
  const std::string program = JaxProgram(
      target,
      {{Concat(batch, {k, k}), type, true}, {Concat(batch, {m, n}), type, true}, {{}, type}},
      {{Concat(batch, {m, n}), type, true}}, config, 1);
  const int64_t count = Product(batch);
  std::vector<T> a = RandomValues<T>(count * k * k, seed);
  // A diagonal well away from zero (unread for diag 'U', so any value).
  for (int64_t b = 0; b < count; ++b) {
    for (int64_t d = 0; d < k; ++d) a[b * k * k + d * k + d] = o.diag == 'U' ? T{1000} : T{4};
  }
  std::vector<T> rhs = RandomValues<T>(count * m * n, seed + 7919);
  T alpha = T{1.5};
  if constexpr (kIsComplex<T>) alpha = T(1.5, -0.5);
  std::vector<Literal> out =
      MustRun(program, {Literal::Of<T>(a, Concat(batch, {k, k})),
                        Literal::Of<T>(rhs, Concat(batch, {m, n})), Literal::Of<T>({alpha}, {})});
  ASSERT_EQ(out.size(), 1u) << what;
  std::vector<T> x = out[0].Values<T>();
  for (int64_t b = 0; b < count; ++b) {
    std::vector<T> op = EffectiveTriangle(a.data() + b * k * k, k, o);
    const T* x_b = x.data() + b * m * n;
    std::vector<Wide<T>> product =
        o.side == 'L' ? MatMul(op.data(), x_b, m, m, n) : MatMul(x_b, op.data(), m, n, n);
    std::vector<Wide<T>> scaled(m * n);
    for (int64_t i = 0; i < m * n; ++i) scaled[i] = ToWide(alpha) * ToWide(rhs[b * m * n + i]);
    // Backward error: a unit triangle of random entries can be badly
    // conditioned, so the residual is measured against |op(a)| |x|.
    const double scale = FrobeniusNorm(op.data(), k * k) * FrobeniusNorm(x_b, m * n);
    EXPECT_LE(MaxDifference(product.data(), scaled.data(), m * n), Tolerance<T>(k, scale))
        << what << " matrix " << b << ": op(a) x differs from alpha b";
  }
}

TYPED_TEST(LapackSolveTest, TriangularSolveSatisfiesTheSystemForEveryOption) {
  using T = TypeParam;
  const std::string target = std::string("lapack_") + Prefix<T>() + "trsm_ffi";
  uint32_t seed = 300;
  for (char side : {'L', 'R'}) {
    for (char uplo : {'L', 'U'}) {
      for (char trans : {'N', 'T', 'C'}) {
        for (char diag : {'N', 'U'}) {
          const TrsmOptions options{side, uplo, trans, diag};
          CheckTrsm<T>(target, 7, 3, {2}, options, seed++);
          CheckTrsm<T>(target, 9, 17, {}, options, seed++);
        }
      }
    }
  }
  for (const auto& [n, batch] : SizesAndBatches()) {
    CheckTrsm<T>(target, n, n, batch, {'L', 'L', 'N', 'N'}, seed++);
    CheckTrsm<T>(target, n, 2, batch, {'L', 'U', 'T', 'N'}, seed++);
  }
}

TYPED_TEST(LapackSolveTest, OlderBlasTrsmTargetNameSolvesToo) {
  using T = TypeParam;
  CheckTrsm<T>(std::string("blas_") + Prefix<T>() + "trsm_ffi", 8, 5, {3}, {'R', 'L', 'T', 'N'},
               400);
}

template <typename T>
void CheckGtsv(int64_t m, int64_t nrhs, const std::vector<int64_t>& batch, uint32_t seed) {
  const std::string what = std::to_string(m) + " rows, " + std::to_string(nrhs) +
                           " right-hand sides, batch " + DimsText(batch);
  const std::string type = MlirType<T>();
  const CallValue diagonal{Concat(batch, {m}), type};
  const CallValue b_value{Concat(batch, {m, nrhs}), type, true};
  const std::string program = JaxProgram(
      std::string("lapack_") + Prefix<T>() + "gtsv_ffi", {diagonal, diagonal, diagonal, b_value},
      {diagonal, diagonal, diagonal, b_value, {batch, "i32"}}, "", std::nullopt);
  const int64_t count = Product(batch);
  std::vector<T> dl = RandomValues<T>(count * m, seed);
  std::vector<T> d = RandomValues<T>(count * m, seed + 1);
  std::vector<T> du = RandomValues<T>(count * m, seed + 2);
  // Diagonally dominant, so well conditioned (dl[0] and du[m-1] are outside A).
  for (T& value : d) value += std::real(value) < 0 ? T{-3} : T{3};
  std::vector<T> b = RandomValues<T>(count * m * nrhs, seed + 3);
  std::vector<Literal> out =
      MustRun(program, {Literal::Of<T>(dl, diagonal.dims), Literal::Of<T>(d, diagonal.dims),
                        Literal::Of<T>(du, diagonal.dims), Literal::Of<T>(b, b_value.dims)});
  ASSERT_EQ(out.size(), 5u) << what;
  std::vector<T> x = out[3].Values<T>();
  std::vector<int32_t> info = out[4].Values<int32_t>();
  for (int64_t i = 0; i < count; ++i) {
    EXPECT_EQ(info[i], 0) << what << " system " << i;
    std::vector<T> a(m * m, T{0});
    for (int64_t r = 0; r < m; ++r) {
      a[r * m + r] = d[i * m + r];
      if (r > 0) a[r * m + r - 1] = dl[i * m + r];
      if (r + 1 < m) a[r * m + r + 1] = du[i * m + r];
    }
    std::vector<Wide<T>> product = MatMul(a.data(), x.data() + i * m * nrhs, m, m, nrhs);
    const T* b_i = b.data() + i * m * nrhs;
    EXPECT_LE(MaxDifference(product.data(), b_i, m * nrhs),
              Tolerance<T>(m, FrobeniusNorm(b_i, m * nrhs)))
        << what << " system " << i << ": A x differs from b";
  }
}

TYPED_TEST(LapackSolveTest, TridiagonalSolveSatisfiesTheSystemAtEverySizeAndBatch) {
  uint32_t seed = 500;
  for (const auto& [n, batch] : SizesAndBatches()) {
    CheckGtsv<TypeParam>(n, 1, batch, seed);
    CheckGtsv<TypeParam>(n, 3, batch, seed + 10);
    seed += 20;
  }
}

TYPED_TEST(LapackSolveTest, TridiagonalSolveOfASingularSystemReportsItInInfo) {
  using T = TypeParam;
  const std::string type = MlirType<T>();
  const CallValue diagonal{{3}, type};
  const CallValue b_value{{3, 1}, type, true};
  const std::string program = JaxProgram(
      std::string("lapack_") + Prefix<T>() + "gtsv_ffi", {diagonal, diagonal, diagonal, b_value},
      {diagonal, diagonal, diagonal, b_value, {{}, "i32"}}, "", std::nullopt);
  // A = 0: the first pivot is exactly zero.
  std::vector<Literal> out =
      MustRun(program, {Literal::Of<T>({0, 0, 0}, {3}), Literal::Of<T>({0, 0, 0}, {3}),
                        Literal::Of<T>({0, 0, 0}, {3}), Literal::Of<T>({1, 2, 3}, {3, 1})});
  ASSERT_EQ(out.size(), 5u);
  EXPECT_THAT(out[4].Values<int32_t>(), ::testing::ElementsAre(1));
}

}  // namespace
}  // namespace berth::testing
