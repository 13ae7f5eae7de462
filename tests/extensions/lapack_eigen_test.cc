// The LAPACK module's spectral routines end to end on the cpu plugin:
// symmetric eigendecomposition (lapack_?syevd_ffi), SVD (lapack_?gesdd_ffi,
// modes 'A', 'S', 'N'), Hessenberg and tridiagonal reduction
// (lapack_?gehrd_ffi, lapack_?sytrd_ffi) and Schur decomposition
// (lapack_?gees_ffi), checked by V diag(w) V^T = x, U diag(s) V^T = x,
// Q H Q^T = x, Q T Q^T = x, Z T Z^T = x and orthonormal factors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lapack_test_util.hpp"

namespace berth::testing {
namespace {

template <typename T>
class LapackEigenTest : public ::testing::Test {};
TYPED_TEST_SUITE(LapackEigenTest, RealTypes);

// `count` random symmetric n x n matrices.
template <typename T>
std::vector<T> RandomSymmetric(int64_t n, int64_t count, uint32_t seed) {
  std::vector<T> x = RandomValues<T>(count * n * n, seed);
  for (int64_t b = 0; b < count; ++b) {
    for (int64_t r = 0; r < n; ++r) {
      for (int64_t c = 0; c < r; ++c) x[b * n * n + c * n + r] = x[b * n * n + r * n + c];
    }
  }
  return x;
}

// a * diag(d) * b, a: m x k, b: k x n.
template <typename T>
std::vector<double> ScaledProduct(const T* a, const T* d, const T* b, int64_t m, int64_t k,
                                  int64_t n) {
  std::vector<T> scaled(a, a + m * k);
  for (int64_t r = 0; r < m; ++r) {
    for (int64_t c = 0; c < k; ++c) scaled[r * k + c] *= d[c];
  }
  return MatMul(scaled.data(), b, m, k, n);
}

template <typename T>
void CheckSyevd(int64_t n, const std::vector<int64_t>& batch, char uplo, uint32_t seed) {
  const std::string what =
      std::to_string(n) + "x" + std::to_string(n) + " uplo " + uplo + " batch " + DimsText(batch);
  const std::vector<int64_t> dims = Concat(batch, {n, n});
  const std::string program =
      JaxProgram(std::string("lapack_") + Prefix<T>() + "syevd_ffi", {{dims, MlirType<T>(), true}},
                 {{dims, MlirType<T>(), true}, {Concat(batch, {n}), MlirType<T>()}, {batch, "i32"}},
                 "mode = 86 : ui8, uplo = " + std::to_string(int{uplo}) + " : ui8");
  const int64_t count = Product(batch);
  std::vector<T> x = RandomSymmetric<T>(n, count, seed);
  std::vector<Literal> out = MustRun(program, {Literal::Of<T>(x, dims)});
  ASSERT_EQ(out.size(), 3u) << what;
  std::vector<T> v = out[0].Values<T>();
  std::vector<T> w = out[1].Values<T>();
  std::vector<int32_t> info = out[2].Values<int32_t>();
  for (int64_t b = 0; b < count; ++b) {
    EXPECT_EQ(info[b], 0) << what << " matrix " << b;
    const T* v_b = v.data() + b * n * n;
    const T* w_b = w.data() + b * n;
    EXPECT_TRUE(std::is_sorted(w_b, w_b + n)) << what << ": eigenvalues not ascending";
    std::vector<T> vt = Transpose(v_b, n, n);
    std::vector<double> product = ScaledProduct(v_b, w_b, vt.data(), n, n, n);
    const std::string matrix = what + " matrix " + std::to_string(b);
    ExpectRebuilds(product, x.data() + b * n * n, n, matrix, "V diag(w) V^T");
    ExpectOrthonormalColumns(v_b, n, n, matrix);
  }
}

TYPED_TEST(LapackEigenTest, SymmetricEigenRebuildsTheInputFromEitherTriangle) {
  ForEverySizeAndTriangle(600, CheckSyevd<TypeParam>);
}

TYPED_TEST(LapackEigenTest, SymmetricEigenvaluesOnlyMatchTheFullDecomposition) {
  using T = TypeParam;
  const int64_t n = 9;
  const std::string type = MlirType<T>();
  auto program = [&](char mode) {
    return JaxProgram(std::string("lapack_") + Prefix<T>() + "syevd_ffi", {{{n, n}, type, true}},
                      {{{n, n}, type, true}, {{n}, type}, {{}, "i32"}},
                      "mode = " + std::to_string(int{mode}) + " : ui8, uplo = 76 : ui8");
  };
  std::vector<T> x = RandomSymmetric<T>(n, 1, 650);
  std::vector<Literal> with_vectors = MustRun(program('V'), {Literal::Of<T>(x, {n, n})});
  std::vector<Literal> values_only = MustRun(program('N'), {Literal::Of<T>(x, {n, n})});
  ASSERT_EQ(with_vectors.size(), 3u);
  ASSERT_EQ(values_only.size(), 3u);
  std::vector<T> full = with_vectors[1].Values<T>();
  std::vector<T> only = values_only[1].Values<T>();
  EXPECT_LE(MaxDifference(full.data(), only.data(), n),
            Tolerance<T>(n, FrobeniusNorm(x.data(), n * n)));
  EXPECT_THAT(values_only[2].Values<int32_t>(), ::testing::ElementsAre(0));
}

template <typename T>
void CheckGesdd(int64_t m, int64_t n, const std::vector<int64_t>& batch, char mode, uint32_t seed) {
  const std::string what =
      std::to_string(m) + "x" + std::to_string(n) + " mode " + mode + " batch " + DimsText(batch);
  const int64_t k = std::min(m, n);
  const int64_t u_cols = mode == 'A' ? m : k;
  const int64_t vt_rows = mode == 'A' ? n : k;
  const std::string type = MlirType<T>();
  const std::string program = JaxProgram(std::string("lapack_") + Prefix<T>() + "gesdd_ffi",
                                         {{Concat(batch, {m, n}), type, true}},
                                         {{Concat(batch, {m, n}), type, true},
                                          {Concat(batch, {k}), type},
                                          {Concat(batch, {m, u_cols}), type, true},
                                          {Concat(batch, {vt_rows, n}), type, true},
                                          {batch, "i32"}},
                                         "mode = " + std::to_string(int{mode}) + " : ui8");
  const int64_t count = Product(batch);
  std::vector<T> x = RandomValues<T>(count * m * n, seed);
  std::vector<Literal> out = MustRun(program, {Literal::Of<T>(x, Concat(batch, {m, n}))});
  ASSERT_EQ(out.size(), 5u) << what;
  std::vector<T> s = out[1].Values<T>();
  std::vector<T> u = out[2].Values<T>();
  std::vector<T> vt = out[3].Values<T>();
  std::vector<int32_t> info = out[4].Values<int32_t>();
  for (int64_t b = 0; b < count; ++b) {
    EXPECT_EQ(info[b], 0) << what << " matrix " << b;
    const T* s_b = s.data() + b * k;
    const T* x_b = x.data() + b * m * n;
    EXPECT_TRUE(std::is_sorted(s_b, s_b + k, std::greater<T>())) << what << ": not descending";
    EXPECT_TRUE(std::all_of(s_b, s_b + k, [](T value) { return value >= 0; })) << what;
    // sum s^2 = |x|_F^2 in every mode.
    const double norm = FrobeniusNorm(x_b, m * n);
    EXPECT_NEAR(FrobeniusNorm(s_b, k), norm, Tolerance<T>(std::max(m, n), norm)) << what;
    if (mode == 'N') continue;
    const T* u_b = u.data() + b * m * u_cols;
    const T* vt_b = vt.data() + b * vt_rows * n;
    // U[:, :k] diag(s) V^T[:k, :].
    std::vector<T> u_k(m * k);
    for (int64_t r = 0; r < m; ++r) std::copy_n(u_b + r * u_cols, k, u_k.data() + r * k);
    std::vector<double> product = ScaledProduct(u_k.data(), s_b, vt_b, m, k, n);
    EXPECT_LE(MaxDifference(product.data(), x_b, m * n), Tolerance<T>(std::max(m, n), norm))
        << what << " matrix " << b << ": U diag(s) V^T differs from x";
    ExpectOrthonormalColumns(u_b, m, u_cols, what + " U of matrix " + std::to_string(b));
    std::vector<T> v = Transpose(vt_b, vt_rows, n);
    ExpectOrthonormalColumns(v.data(), n, vt_rows, what + " V of matrix " + std::to_string(b));
  }
}

TYPED_TEST(LapackEigenTest, SvdRebuildsTheInputWithOrthonormalFactorsInEveryMode) {
  uint32_t seed = 700;
  for (const auto& [n, batch] : SizesAndBatches()) {
    for (char mode : {'A', 'S', 'N'}) CheckGesdd<TypeParam>(n, n, batch, mode, seed++);
  }
  for (auto [m, n] : std::vector<std::pair<int64_t, int64_t>>{
           {3, 7}, {9, 2}, {17, 8}, {1, 33}, {33, 1}, {0, 3}, {4, 0}}) {
    for (char mode : {'A', 'S', 'N'}) CheckGesdd<TypeParam>(m, n, {2}, mode, seed++);
  }
}

// Q = H(0) H(1) ... H(n-2) from gehrd's reflectors: H(i) = I - tau[i] v v^T,
// v[0..i] = 0, v[i+1] = 1, v[i+2..] below h's subdiagonal in column i.
template <typename T>
std::vector<T> HessenbergQ(const T* h, const T* tau, int64_t n) {
  std::vector<double> q(n * n, 0.0);
  for (int64_t d = 0; d < n; ++d) q[d * n + d] = 1.0;
  for (int64_t i = 0; i + 1 < n; ++i) {
    std::vector<double> v(n, 0.0);
    v[i + 1] = 1.0;
    for (int64_t j = i + 2; j < n; ++j) v[j] = h[j * n + i];
    for (int64_t r = 0; r < n; ++r) {
      double qv = 0;
      for (int64_t j = 0; j < n; ++j) qv += q[r * n + j] * v[j];
      for (int64_t j = 0; j < n; ++j) q[r * n + j] -= static_cast<double>(tau[i]) * qv * v[j];
    }
  }
  return std::vector<T>(q.begin(), q.end());
}

// Q from sytrd's reflectors: uplo 'L' stores them as gehrd does (Q =
// H(0) ... H(n-2), v[i+1] = 1, v[i+2..] below the subdiagonal in column i);
// uplo 'U' as Q = H(n-2) ... H(0), v[i] = 1, v[0..i-1] above the
// superdiagonal in column i + 1.
template <typename T>
std::vector<T> TridiagonalQ(const T* a, const T* tau, int64_t n, char uplo) {
  if (uplo == 'L') return HessenbergQ(a, tau, n);
  std::vector<double> q(n * n, 0.0);
  for (int64_t d = 0; d < n; ++d) q[d * n + d] = 1.0;
  for (int64_t i = 0; i + 1 < n; ++i) {
    std::vector<double> v(n, 0.0);
    v[i] = 1.0;
    for (int64_t j = 0; j < i; ++j) v[j] = a[j * n + i + 1];
    // q = H(i) * q: q - tau v (v^T q), so q ends as H(n-2) ... H(0).
    for (int64_t c = 0; c < n; ++c) {
      double vq = 0;
      for (int64_t j = 0; j < n; ++j) vq += v[j] * q[j * n + c];
      for (int64_t j = 0; j < n; ++j) q[j * n + c] -= static_cast<double>(tau[i]) * v[j] * vq;
    }
  }
  return std::vector<T>(q.begin(), q.end());
}

template <typename T>
void CheckSytrd(int64_t n, const std::vector<int64_t>& batch, char uplo, uint32_t seed) {
  const std::string what =
      std::to_string(n) + "x" + std::to_string(n) + " uplo " + uplo + " batch " + DimsText(batch);
  const int64_t off = std::max<int64_t>(n - 1, 0);
  const std::string type = MlirType<T>();
  const std::vector<int64_t> dims = Concat(batch, {n, n});
  const std::string program =
      JaxProgram(std::string("lapack_") + Prefix<T>() + "sytrd_ffi", {{dims, type, true}},
                 {{dims, type, true},
                  {Concat(batch, {n}), type},
                  {Concat(batch, {off}), type},
                  {Concat(batch, {off}), type},
                  {batch, "i32"}},
                 "uplo = " + std::to_string(int{uplo}) + " : ui8");
  const int64_t count = Product(batch);
  std::vector<T> x = RandomSymmetric<T>(n, count, seed);
  std::vector<Literal> out = MustRun(program, {Literal::Of<T>(x, dims)});
  ASSERT_EQ(out.size(), 5u) << what;
  std::vector<T> reduced = out[0].Values<T>();
  std::vector<T> d = out[1].Values<T>();
  std::vector<T> e = out[2].Values<T>();
  std::vector<T> tau = out[3].Values<T>();
  std::vector<int32_t> info = out[4].Values<int32_t>();
  for (int64_t b = 0; b < count; ++b) {
    EXPECT_EQ(info[b], 0) << what << " matrix " << b;
    std::vector<T> q = TridiagonalQ(reduced.data() + b * n * n, tau.data() + b * off, n, uplo);
    std::vector<T> t(n * n, T{0});
    for (int64_t i = 0; i < n; ++i) t[i * n + i] = d[b * n + i];
    for (int64_t i = 0; i < off; ++i) t[(i + 1) * n + i] = t[i * n + i + 1] = e[b * off + i];
    ExpectOrthogonalSimilarity(q.data(), t.data(), x.data() + b * n * n, n,
                               what + " matrix " + std::to_string(b), "Q T");
  }
}

TYPED_TEST(LapackEigenTest, TridiagonalReductionRebuildsTheInputFromEitherTriangle) {
  ForEverySizeAndTriangle(850, CheckSytrd<TypeParam>);
}

template <typename T>
void CheckGehrd(int64_t n, const std::vector<int64_t>& batch, uint32_t seed) {
  const std::string what =
      std::to_string(n) + "x" + std::to_string(n) + " batch " + DimsText(batch);
  const std::vector<int64_t> dims = Concat(batch, {n, n});
  const int64_t reflectors = std::max<int64_t>(n - 1, 0);
  const std::string program = JaxProgram(
      std::string("lapack_") + Prefix<T>() + "gehrd_ffi", {{dims, MlirType<T>(), true}},
      {{dims, MlirType<T>(), true}, {Concat(batch, {reflectors}), MlirType<T>()}, {batch, "i32"}},
      "high = " + std::to_string(n) + " : i32, low = 1 : i32");
  const int64_t count = Product(batch);
  std::vector<T> x = RandomValues<T>(count * n * n, seed);
  std::vector<Literal> out = MustRun(program, {Literal::Of<T>(x, dims)});
  ASSERT_EQ(out.size(), 3u) << what;
  std::vector<T> h = out[0].Values<T>();
  std::vector<T> tau = out[1].Values<T>();
  std::vector<int32_t> info = out[2].Values<int32_t>();
  for (int64_t b = 0; b < count; ++b) {
    EXPECT_EQ(info[b], 0) << what << " matrix " << b;
    const T* h_b = h.data() + b * n * n;
    std::vector<T> q = HessenbergQ(h_b, tau.data() + b * reflectors, n);
    std::vector<T> upper(h_b, h_b + n * n);
    for (int64_t r = 0; r < n; ++r) {
      for (int64_t c = 0; c + 1 < r; ++c) upper[r * n + c] = T{0};
    }
    ExpectOrthogonalSimilarity(q.data(), upper.data(), x.data() + b * n * n, n,
                               what + " matrix " + std::to_string(b), "Q H");
  }
}

TYPED_TEST(LapackEigenTest, HessenbergReductionRebuildsTheInput) {
  uint32_t seed = 800;
  for (const auto& [n, batch] : SizesAndBatches()) CheckGehrd<TypeParam>(n, batch, seed++);
}

template <typename T>
void CheckGees(int64_t n, const std::vector<int64_t>& batch, uint32_t seed) {
  const std::string what =
      std::to_string(n) + "x" + std::to_string(n) + " batch " + DimsText(batch);
  const std::string type = MlirType<T>();
  const CallValue matrix{Concat(batch, {n, n}), type, true};
  const CallValue values{Concat(batch, {n}), type};
  const std::string program =
      JaxProgram(std::string("lapack_") + Prefix<T>() + "gees_ffi", {matrix},
                 {matrix, matrix, values, values, {batch, "i32"}, {batch, "i32"}},
                 "mode = 86 : ui8, sort = 78 : ui8");
  const int64_t count = Product(batch);
  std::vector<T> x = RandomValues<T>(count * n * n, seed);
  std::vector<Literal> out = MustRun(program, {Literal::Of<T>(x, matrix.dims)});
  ASSERT_EQ(out.size(), 6u) << what;
  std::vector<T> t = out[0].Values<T>();
  std::vector<T> z = out[1].Values<T>();
  std::vector<T> real = out[2].Values<T>();
  std::vector<T> imag = out[3].Values<T>();
  EXPECT_THAT(out[4].Values<int32_t>(), ::testing::Each(0)) << what;
  std::vector<int32_t> info = out[5].Values<int32_t>();
  for (int64_t b = 0; b < count; ++b) {
    EXPECT_EQ(info[b], 0) << what << " matrix " << b;
    const T* t_b = t.data() + b * n * n;
    const T* z_b = z.data() + b * n * n;
    const T* x_b = x.data() + b * n * n;
    for (int64_t r = 0; r < n; ++r) {
      for (int64_t c = 0; c + 1 < r; ++c) EXPECT_EQ(t_b[r * n + c], T{0}) << what;
    }
    ExpectOrthogonalSimilarity(z_b, t_b, x_b, n, what + " matrix " + std::to_string(b), "Z T");
    const double norm = FrobeniusNorm(x_b, n * n);
    // The eigenvalues sum to the trace; the imaginary parts to zero.
    double trace = 0, real_sum = 0, imag_sum = 0;
    for (int64_t d = 0; d < n; ++d) {
      trace += x_b[d * n + d];
      real_sum += real[b * n + d];
      imag_sum += imag[b * n + d];
    }
    EXPECT_NEAR(real_sum, trace, Tolerance<T>(n, norm)) << what;
    EXPECT_NEAR(imag_sum, 0.0, Tolerance<T>(n, norm)) << what;
  }
}

TYPED_TEST(LapackEigenTest, SchurDecompositionRebuildsTheInputWithOrthogonalVectors) {
  uint32_t seed = 900;
  for (const auto& [n, batch] : SizesAndBatches()) CheckGees<TypeParam>(n, batch, seed++);
}

}  // namespace
}  // namespace berth::testing
