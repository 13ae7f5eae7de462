// The LAPACK module's spectral routines end to end on the cpu plugin:
// symmetric / Hermitian eigendecomposition (lapack_?syevd_ffi / heevd), SVD
// (lapack_?gesdd_ffi, modes 'A', 'S', 'N'), Hessenberg and tridiagonal
// reduction (lapack_?gehrd_ffi, lapack_?sytrd_ffi / hetrd), Schur
// decomposition (lapack_?gees_ffi) and the general eigensolver
// (lapack_?geev_ffi), for f32, f64, complex<f32> and complex<f64>, checked
// by V diag(w) V^H = x, U diag(s) V^H = x, Q H Q^H = x, Q T Q^H = x,
// Z T Z^H = x, x v = w v, u^H x = w u^H and orthonormal factors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lapack_test_util.hpp"

namespace berth::testing {
namespace {

template <typename T>
class LapackEigenTest : public ::testing::Test {};
TYPED_TEST_SUITE(LapackEigenTest, LapackTypes);

// `count` random symmetric (complex: Hermitian) n x n matrices.
template <typename T>
std::vector<T> RandomSymmetric(int64_t n, int64_t count, uint32_t seed) {
  std::vector<T> x = RandomValues<T>(count * n * n, seed);
  for (int64_t b = 0; b < count; ++b) {
    for (int64_t r = 0; r < n; ++r) {
      for (int64_t c = 0; c < r; ++c) x[b * n * n + c * n + r] = Conj(x[b * n * n + r * n + c]);
      x[b * n * n + r * n + r] = T{std::real(x[b * n * n + r * n + r])};
    }
  }
  return x;
}

// a * diag(d) * b, a: m x k, b: k x n (d real or of a's type).
template <typename T, typename D>
std::vector<Wide<T>> ScaledProduct(const T* a, const D* d, const T* b, int64_t m, int64_t k,
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
  const std::string program = JaxProgram(
      Target<T>("syevd", "heevd"), {{dims, MlirType<T>(), true}},
      {{dims, MlirType<T>(), true}, {Concat(batch, {n}), MlirType<Real<T>>()}, {batch, "i32"}},
      "mode = 86 : ui8, uplo = " + std::to_string(int{uplo}) + " : ui8");
  const int64_t count = Product(batch);
  std::vector<T> x = RandomSymmetric<T>(n, count, seed);
  std::vector<Literal> out = MustRun(program, {Literal::Of<T>(x, dims)});
  ASSERT_EQ(out.size(), 3u) << what;
  std::vector<T> v = out[0].Values<T>();
  std::vector<Real<T>> w = out[1].Values<Real<T>>();
  std::vector<int32_t> info = out[2].Values<int32_t>();
  for (int64_t b = 0; b < count; ++b) {
    EXPECT_EQ(info[b], 0) << what << " matrix " << b;
    const T* v_b = v.data() + b * n * n;
    const Real<T>* w_b = w.data() + b * n;
    EXPECT_TRUE(std::is_sorted(w_b, w_b + n)) << what << ": eigenvalues not ascending";
    std::vector<T> vh = Adjoint(v_b, n, n);
    std::vector<Wide<T>> product = ScaledProduct(v_b, w_b, vh.data(), n, n, n);
    const std::string matrix = what + " matrix " + std::to_string(b);
    ExpectRebuilds(product, x.data() + b * n * n, n, matrix, "V diag(w) V^H");
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
    return JaxProgram(Target<T>("syevd", "heevd"), {{{n, n}, type, true}},
                      {{{n, n}, type, true}, {{n}, MlirType<Real<T>>()}, {{}, "i32"}},
                      "mode = " + std::to_string(int{mode}) + " : ui8, uplo = 76 : ui8");
  };
  std::vector<T> x = RandomSymmetric<T>(n, 1, 650);
  std::vector<Literal> with_vectors = MustRun(program('V'), {Literal::Of<T>(x, {n, n})});
  std::vector<Literal> values_only = MustRun(program('N'), {Literal::Of<T>(x, {n, n})});
  ASSERT_EQ(with_vectors.size(), 3u);
  ASSERT_EQ(values_only.size(), 3u);
  std::vector<Real<T>> full = with_vectors[1].Values<Real<T>>();
  std::vector<Real<T>> only = values_only[1].Values<Real<T>>();
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
                                          {Concat(batch, {k}), MlirType<Real<T>>()},
                                          {Concat(batch, {m, u_cols}), type, true},
                                          {Concat(batch, {vt_rows, n}), type, true},
                                          {batch, "i32"}},
                                         "mode = " + std::to_string(int{mode}) + " : ui8");
  const int64_t count = Product(batch);
  std::vector<T> x = RandomValues<T>(count * m * n, seed);
  std::vector<Literal> out = MustRun(program, {Literal::Of<T>(x, Concat(batch, {m, n}))});
  ASSERT_EQ(out.size(), 5u) << what;
  std::vector<Real<T>> s = out[1].Values<Real<T>>();
  std::vector<T> u = out[2].Values<T>();
  std::vector<T> vt = out[3].Values<T>();
  std::vector<int32_t> info = out[4].Values<int32_t>();
  for (int64_t b = 0; b < count; ++b) {
    EXPECT_EQ(info[b], 0) << what << " matrix " << b;
    const Real<T>* s_b = s.data() + b * k;
    const T* x_b = x.data() + b * m * n;
    EXPECT_TRUE(std::is_sorted(s_b, s_b + k, std::greater<Real<T>>()))
        << what << ": not descending";
    EXPECT_TRUE(std::all_of(s_b, s_b + k, [](Real<T> value) { return value >= 0; })) << what;
    // sum s^2 = |x|_F^2 in every mode.
    const double norm = FrobeniusNorm(x_b, m * n);
    EXPECT_NEAR(FrobeniusNorm(s_b, k), norm, Tolerance<T>(std::max(m, n), norm)) << what;
    if (mode == 'N') continue;
    const T* u_b = u.data() + b * m * u_cols;
    const T* vt_b = vt.data() + b * vt_rows * n;
    // U[:, :k] diag(s) V^T[:k, :].
    std::vector<T> u_k(m * k);
    for (int64_t r = 0; r < m; ++r) std::copy_n(u_b + r * u_cols, k, u_k.data() + r * k);
    std::vector<Wide<T>> product = ScaledProduct(u_k.data(), s_b, vt_b, m, k, n);
    EXPECT_LE(MaxDifference(product.data(), x_b, m * n), Tolerance<T>(std::max(m, n), norm))
        << what << " matrix " << b << ": U diag(s) V^H differs from x";
    ExpectOrthonormalColumns(u_b, m, u_cols, what + " U of matrix " + std::to_string(b));
    std::vector<T> v = Adjoint(vt_b, vt_rows, n);
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

// Q = H(0) H(1) ... H(n-2) from gehrd's reflectors: H(i) = I - tau[i] v v^H,
// v[0..i] = 0, v[i+1] = 1, v[i+2..] below h's subdiagonal in column i.
template <typename T>
std::vector<T> HessenbergQ(const T* h, const T* tau, int64_t n) {
  std::vector<Wide<T>> q(n * n, Wide<T>{0});
  for (int64_t d = 0; d < n; ++d) q[d * n + d] = Wide<T>{1};
  for (int64_t i = 0; i + 1 < n; ++i) {
    std::vector<Wide<T>> v(n, Wide<T>{0});
    v[i + 1] = Wide<T>{1};
    for (int64_t j = i + 2; j < n; ++j) v[j] = ToWide(h[j * n + i]);
    // q = q H(i): q - tau (q v) v^H.
    for (int64_t r = 0; r < n; ++r) {
      Wide<T> qv{0};
      for (int64_t j = 0; j < n; ++j) qv += q[r * n + j] * v[j];
      for (int64_t j = 0; j < n; ++j) q[r * n + j] -= ToWide(tau[i]) * qv * Conj(v[j]);
    }
  }
  return std::vector<T>(q.begin(), q.end());
}

// Q from sytrd's / hetrd's reflectors: uplo 'L' stores them as gehrd does (Q =
// H(0) ... H(n-2), v[i+1] = 1, v[i+2..] below the subdiagonal in column i);
// uplo 'U' as Q = H(n-2) ... H(0), v[i] = 1, v[0..i-1] above the
// superdiagonal in column i + 1.
template <typename T>
std::vector<T> TridiagonalQ(const T* a, const T* tau, int64_t n, char uplo) {
  if (uplo == 'L') return HessenbergQ(a, tau, n);
  std::vector<Wide<T>> q(n * n, Wide<T>{0});
  for (int64_t d = 0; d < n; ++d) q[d * n + d] = Wide<T>{1};
  for (int64_t i = 0; i + 1 < n; ++i) {
    std::vector<Wide<T>> v(n, Wide<T>{0});
    v[i] = Wide<T>{1};
    for (int64_t j = 0; j < i; ++j) v[j] = ToWide(a[j * n + i + 1]);
    // q = H(i) * q: q - tau v (v^H q), so q ends as H(n-2) ... H(0).
    for (int64_t c = 0; c < n; ++c) {
      Wide<T> vq{0};
      for (int64_t j = 0; j < n; ++j) vq += Conj(v[j]) * q[j * n + c];
      for (int64_t j = 0; j < n; ++j) q[j * n + c] -= ToWide(tau[i]) * v[j] * vq;
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
  const std::string program = JaxProgram(Target<T>("sytrd", "hetrd"), {{dims, type, true}},
                                         {{dims, type, true},
                                          {Concat(batch, {n}), MlirType<Real<T>>()},
                                          {Concat(batch, {off}), MlirType<Real<T>>()},
                                          {Concat(batch, {off}), type},
                                          {batch, "i32"}},
                                         "uplo = " + std::to_string(int{uplo}) + " : ui8");
  const int64_t count = Product(batch);
  std::vector<T> x = RandomSymmetric<T>(n, count, seed);
  std::vector<Literal> out = MustRun(program, {Literal::Of<T>(x, dims)});
  ASSERT_EQ(out.size(), 5u) << what;
  std::vector<T> reduced = out[0].Values<T>();
  std::vector<Real<T>> d = out[1].Values<Real<T>>();
  std::vector<Real<T>> e = out[2].Values<Real<T>>();
  std::vector<T> tau = out[3].Values<T>();
  std::vector<int32_t> info = out[4].Values<int32_t>();
  for (int64_t b = 0; b < count; ++b) {
    EXPECT_EQ(info[b], 0) << what << " matrix " << b;
    std::vector<T> q = TridiagonalQ(reduced.data() + b * n * n, tau.data() + b * off, n, uplo);
    std::vector<T> t(n * n, T{0});
    for (int64_t i = 0; i < n; ++i) t[i * n + i] = T{d[b * n + i]};
    for (int64_t i = 0; i < off; ++i) t[(i + 1) * n + i] = t[i * n + i + 1] = T{e[b * off + i]};
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
  // Real: eigvals_real, eigvals_imag; complex: one eigvals.
  std::vector<CallValue> results = {matrix, matrix, values};
  if (!kIsComplex<T>) results.push_back(values);
  results.push_back({batch, "i32"});
  results.push_back({batch, "i32"});
  const std::string program = JaxProgram(std::string("lapack_") + Prefix<T>() + "gees_ffi",
                                         {matrix}, results, "mode = 86 : ui8, sort = 78 : ui8");
  const int64_t count = Product(batch);
  std::vector<T> x = RandomValues<T>(count * n * n, seed);
  std::vector<Literal> out = MustRun(program, {Literal::Of<T>(x, matrix.dims)});
  ASSERT_EQ(out.size(), results.size()) << what;
  std::vector<T> t = out[0].Values<T>();
  std::vector<T> z = out[1].Values<T>();
  std::vector<T> first = out[2].Values<T>();
  std::vector<T> imag = kIsComplex<T> ? std::vector<T>(first.size(), T{0}) : out[3].Values<T>();
  EXPECT_THAT(out[out.size() - 2].Values<int32_t>(), ::testing::Each(0)) << what;
  std::vector<int32_t> info = out.back().Values<int32_t>();
  for (int64_t b = 0; b < count; ++b) {
    EXPECT_EQ(info[b], 0) << what << " matrix " << b;
    const T* t_b = t.data() + b * n * n;
    const T* z_b = z.data() + b * n * n;
    const T* x_b = x.data() + b * n * n;
    // Quasi upper triangular (real), upper triangular (complex).
    for (int64_t r = 0; r < n; ++r) {
      for (int64_t c = 0; c + (kIsComplex<T> ? 0 : 1) < r; ++c)
        EXPECT_EQ(t_b[r * n + c], T{0}) << what;
    }
    ExpectOrthogonalSimilarity(z_b, t_b, x_b, n, what + " matrix " + std::to_string(b), "Z T");
    const double norm = FrobeniusNorm(x_b, n * n);
    // The eigenvalues sum to the trace (a real trace: imaginary parts to zero).
    Wide<T> trace{0}, sum{0};
    double imag_sum = 0;
    for (int64_t d = 0; d < n; ++d) {
      trace += ToWide(x_b[d * n + d]);
      sum += ToWide(first[b * n + d]);
      imag_sum += std::real(ToWide(imag[b * n + d]));
    }
    EXPECT_NEAR(std::abs(sum - trace), 0.0, Tolerance<T>(n, norm)) << what;
    EXPECT_NEAR(imag_sum, 0.0, Tolerance<T>(n, norm)) << what;
  }
}

TYPED_TEST(LapackEigenTest, SchurDecompositionRebuildsTheInputWithOrthogonalVectors) {
  uint32_t seed = 900;
  for (const auto& [n, batch] : SizesAndBatches()) CheckGees<TypeParam>(n, batch, seed++);
}

}  // namespace
}  // namespace berth::testing

namespace berth::testing {
namespace {

// geev: x v_j = w_j v_j for the right eigenvectors, u_j^H x = w_j u_j^H for
// the left ones, each of unit norm; a real x's eigenvalues as real and
// imaginary parts, its vectors complex (conjugate pairs unpacked).
template <typename T>
void CheckGeev(int64_t n, const std::vector<int64_t>& batch, uint32_t seed) {
  using C = std::complex<Real<T>>;
  const std::string what =
      std::to_string(n) + "x" + std::to_string(n) + " batch " + DimsText(batch);
  const CallValue matrix{Concat(batch, {n, n}), MlirType<T>(), true};
  const CallValue values{Concat(batch, {n}), MlirType<T>()};
  const CallValue vectors{Concat(batch, {n, n}), MlirType<C>(), true};
  std::vector<CallValue> results = {values};
  if (!kIsComplex<T>) results.push_back(values);
  results.insert(results.end(), {vectors, vectors, {batch, "i32"}});
  const std::string program =
      JaxProgram(std::string("lapack_") + Prefix<T>() + "geev_ffi", {matrix}, results,
                 "compute_left = 86 : ui8, compute_right = 86 : ui8", std::nullopt);
  const int64_t count = Product(batch);
  std::vector<T> x = RandomValues<T>(count * n * n, seed);
  std::vector<Literal> out = MustRun(program, {Literal::Of<T>(x, matrix.dims)});
  ASSERT_EQ(out.size(), results.size()) << what;
  const size_t parts = kIsComplex<T> ? 1 : 2;
  std::vector<T> first = out[0].Values<T>();
  std::vector<T> second = kIsComplex<T> ? std::vector<T>() : out[1].Values<T>();
  std::vector<C> left = out[parts].Values<C>();
  std::vector<C> right = out[parts + 1].Values<C>();
  std::vector<int32_t> info = out[parts + 2].Values<int32_t>();
  for (int64_t b = 0; b < count; ++b) {
    EXPECT_EQ(info[b], 0) << what << " matrix " << b;
    const T* x_b = x.data() + b * n * n;
    const double norm = FrobeniusNorm(x_b, n * n);
    for (int64_t j = 0; j < n; ++j) {
      c128 w = ToWide(first[b * n + j]);
      if constexpr (!kIsComplex<T>) w = c128(w.real(), static_cast<double>(second[b * n + j]));
      double right_norm = 0, left_norm = 0, right_residual = 0, left_residual = 0;
      for (int64_t r = 0; r < n; ++r) {
        c128 xv{0}, ux{0};
        for (int64_t c = 0; c < n; ++c) {
          xv += c128(ToWide(x_b[r * n + c])) * c128(right[b * n * n + c * n + j]);
          // (u^H x)_r = sum_c conj(u_c) x[c][r]
          ux += std::conj(c128(left[b * n * n + c * n + j])) * c128(ToWide(x_b[c * n + r]));
        }
        right_residual =
            std::max(right_residual, std::abs(xv - w * c128(right[b * n * n + r * n + j])));
        left_residual = std::max(left_residual,
                                 std::abs(ux - w * std::conj(c128(left[b * n * n + r * n + j]))));
        right_norm += std::norm(c128(right[b * n * n + r * n + j]));
        left_norm += std::norm(c128(left[b * n * n + r * n + j]));
      }
      EXPECT_LE(right_residual, Tolerance<T>(n, norm))
          << what << " matrix " << b << ": x v != w v, j " << j;
      EXPECT_LE(left_residual, Tolerance<T>(n, norm))
          << what << " matrix " << b << ": u^H x != w u^H, j " << j;
      EXPECT_NEAR(right_norm, 1.0, Tolerance<T>(n, 1.0)) << what << " j " << j;
      EXPECT_NEAR(left_norm, 1.0, Tolerance<T>(n, 1.0)) << what << " j " << j;
    }
  }
}

TYPED_TEST(LapackEigenTest, GeneralEigenSatisfiesBothEigenEquations) {
  uint32_t seed = 950;
  for (const auto& [n, batch] : SizesAndBatches()) CheckGeev<TypeParam>(n, batch, seed++);
}

// x with a NaN is not handed to LAPACK: info -4, eigenvalues NaN, vectors zero.
TYPED_TEST(LapackEigenTest, GeneralEigenOfANonFiniteMatrixReportsMinusFour) {
  using T = TypeParam;
  using C = std::complex<Real<T>>;
  const CallValue matrix{{2, 2}, MlirType<T>(), true};
  const CallValue values{{2}, MlirType<T>()};
  const CallValue vectors{{2, 2}, MlirType<C>(), true};
  std::vector<CallValue> results = {values};
  if (!kIsComplex<T>) results.push_back(values);
  results.insert(results.end(), {vectors, vectors, {{}, "i32"}});
  const std::string program =
      JaxProgram(std::string("lapack_") + Prefix<T>() + "geev_ffi", {matrix}, results,
                 "compute_left = 78 : ui8, compute_right = 86 : ui8", std::nullopt);
  const T nan{std::numeric_limits<Real<T>>::quiet_NaN()};
  std::vector<Literal> out = MustRun(program, {Literal::Of<T>({T{1}, nan, T{0}, T{2}}, {2, 2})});
  ASSERT_EQ(out.size(), results.size());
  EXPECT_THAT(out.back().Values<int32_t>(), ::testing::ElementsAre(-4));
  EXPECT_TRUE(std::isnan(std::real(out[0].Values<T>()[0])));
  for (const C& v : out[out.size() - 2].Values<C>()) EXPECT_EQ(v, C{0});
}

}  // namespace
}  // namespace berth::testing
