// ?geev: the eigenvalues w of a general square x and, on request, its right
// eigenvectors (x v_j = w_j v_j) and left ones (u_j^H x = w_j u_j^H), each
// a column of unit 2-norm with its largest component real (LAPACK's
// normalization). Attributes compute_left / compute_right: 'V' computes
// those vectors, 'N' leaves their result zero. A real x gives its
// eigenvalues as real and imaginary parts and its eigenvectors as complex
// matrices: LAPACK packs a conjugate pair into two real columns (v_j =
// col_j + i col_{j+1}, v_{j+1} its conjugate), unpacked here as jaxlib
// does. x holding a NaN or an infinity is not handed to LAPACK: its info
// is -4 (as in jaxlib) and its eigenvalues NaN. info > 0: the QR algorithm
// did not converge (eigenvectors then zero).
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "column_major.hpp"
#include "routines.hpp"

namespace berth::ext::lapack {
namespace {

template <typename T>
bool AllFinite(const T* data, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    if (!std::isfinite(std::real(data[i])) || !std::isfinite(std::imag(data[i]))) return false;
  }
  return true;
}

// The n x n column-major eigenvectors of a real x as complex columns, from
// LAPACK's packed form and the eigenvalues' imaginary parts.
template <typename R>
void UnpackRealEigenvectors(const R* packed, const R* imag, int64_t n, std::complex<R>* out) {
  for (int64_t j = 0; j < n;) {
    if (imag[j] == 0 || std::isnan(imag[j]) || j + 1 == n) {
      for (int64_t r = 0; r < n; ++r) out[j * n + r] = {packed[j * n + r], 0};
      j += 1;
    } else {
      for (int64_t r = 0; r < n; ++r) {
        out[j * n + r] = {packed[j * n + r], packed[(j + 1) * n + r]};
        out[(j + 1) * n + r] = std::conj(out[j * n + r]);
      }
      j += 2;
    }
  }
}

}  // namespace

template <typename T>
Status GeneralEigen(const LapackCall& call) {
  using C = std::complex<Real<T>>;
  constexpr ElementType kType = ElementTypeOf<T>();
  BERTH_ASSIGN_OR_RETURN(const MatrixBatch x, call.SquareMatrixOperand(0, "x", kType));
  BERTH_ASSIGN_OR_RETURN(char left, call.CharAttribute("compute_left", "VN"));
  BERTH_ASSIGN_OR_RETURN(char right, call.CharAttribute("compute_right", "VN"));
  const int64_t n = x.rows;
  // Real: eigvals_real, eigvals_imag; complex: one complex eigvals.
  const size_t values_results = kIsComplex<T> ? 1 : 2;
  if constexpr (kIsComplex<T>) {
    BERTH_RETURN_IF_ERROR(call.ExpectResult(0, "eigvals", kType, x.With({n})));
  } else {
    BERTH_RETURN_IF_ERROR(call.ExpectResult(0, "eigvals_real", kType, x.With({n})));
    BERTH_RETURN_IF_ERROR(call.ExpectResult(1, "eigvals_imag", kType, x.With({n})));
  }
  BERTH_RETURN_IF_ERROR(
      call.ExpectResult(values_results, "eigvecs_left", ElementTypeOf<C>(), x.With({n, n})));
  BERTH_RETURN_IF_ERROR(
      call.ExpectResult(values_results + 1, "eigvecs_right", ElementTypeOf<C>(), x.With({n, n})));
  BERTH_RETURN_IF_ERROR(
      call.ExpectResult(values_results + 2, "info", ElementType::kS32, x.batch_dims));
  if (call.preparing()) return OkStatus();

  lapack_int order = static_cast<lapack_int>(n);
  lapack_int lda = LeadingDim(n);
  lapack_int ldvl = left == 'V' ? LeadingDim(n) : 1;
  lapack_int ldvr = right == 'V' ? LeadingDim(n) : 1;
  const int64_t size = x.matrix_size();
  std::vector<T> vl(left == 'V' ? std::max<int64_t>(size, 1) : 1);
  std::vector<T> vr(right == 'V' ? std::max<int64_t>(size, 1) : 1);
  std::vector<T> values(2 *
                        std::max<int64_t>(n, 1));  // real: the real parts, then the imaginary ones
  std::vector<Real<T>> rwork(kIsComplex<T> ? std::max<int64_t>(2 * n, 1) : 0);
  auto geev = [&](T* a, T* work_data, const lapack_int* lwork, lapack_int* info) {
    if constexpr (kIsComplex<T>) {
      Routines<T>::geev(&left, &right, &order, a, &lda, values.data(), vl.data(), &ldvl, vr.data(),
                        &ldvr, work_data, lwork, rwork.data(), info, 1, 1);
    } else {
      Routines<T>::geev(&left, &right, &order, a, &lda, values.data(), values.data() + n, vl.data(),
                        &ldvl, vr.data(), &ldvr, work_data, lwork, info, 1, 1);
    }
  };
  lapack_int info = 0;
  lapack_int lwork = QueryWorkspace<T>(
      [&](T* optimal, const lapack_int* query) { geev(nullptr, optimal, query, &info); });
  std::vector<T> work(lwork);

  const T* in = call.operand<T>(0);
  C* left_out = call.result<C>(values_results);
  C* right_out = call.result<C>(values_results + 1);
  lapack_int* infos = call.result<lapack_int>(values_results + 2);
  std::fill(left_out, left_out + x.batch * size, C{0});
  std::fill(right_out, right_out + x.batch * size, C{0});
  std::vector<T> a(std::max<int64_t>(size, 1));
  std::vector<C> unpacked(std::max<int64_t>(size, 1));
  // A computed set of vectors (column-major in `packed`) into matrix i of `out`.
  auto store_vectors = [&](const std::vector<T>& packed, C* out, int64_t i) {
    if constexpr (kIsComplex<T>) {
      FromColumnMajor(packed.data(), n, n, out + i * size);
    } else {
      UnpackRealEigenvectors(packed.data(), values.data() + n, n, unpacked.data());
      FromColumnMajor(unpacked.data(), n, n, out + i * size);
    }
  };
  for (int64_t i = 0; i < x.batch; ++i) {
    ToColumnMajor(in + i * size, n, n, a.data());
    if (AllFinite(a.data(), size)) {
      geev(a.data(), work.data(), &lwork, &infos[i]);
    } else {
      infos[i] = -4;
      std::fill(values.begin(), values.end(), T{std::numeric_limits<Real<T>>::quiet_NaN()});
    }
    for (size_t part = 0; part < values_results; ++part) {
      std::copy_n(values.data() + part * n, n, call.result<T>(part) + i * n);
    }
    if (infos[i] != 0) continue;
    if (left == 'V') store_vectors(vl, left_out, i);
    if (right == 'V') store_vectors(vr, right_out, i);
  }
  return OkStatus();
}

template Status GeneralEigen<float>(const LapackCall&);
template Status GeneralEigen<double>(const LapackCall&);
template Status GeneralEigen<c64>(const LapackCall&);
template Status GeneralEigen<c128>(const LapackCall&);

}  // namespace berth::ext::lapack
