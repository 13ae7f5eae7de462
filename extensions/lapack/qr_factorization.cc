// For complex types Q is unitary (ungqr), Q^H Q = I.
// ?geqrf: x = Q * R, Q kept as Householder reflectors below R's diagonal
// and their scalars in tau; ?geqp3: the same with column pivoting, x * P =
// Q * R, P given by 1-based pivots (|R|'s diagonal non-increasing); ?orgqr:
// the first n columns of Q from the reflectors. JAX's qr lowering calls
// geqrf or geqp3, then orgqr (padding x to m x m first for full_matrices).
#include <algorithm>
#include <string>
#include <vector>

#include "column_major.hpp"
#include "routines.hpp"

namespace berth::ext::lapack {

template <typename T>
Status QrFactorization(const LapackCall& call) {
  constexpr ElementType kType = ElementTypeOf<T>();
  BERTH_ASSIGN_OR_RETURN(const MatrixBatch x, call.MatrixOperand(0, "x", kType));
  const int64_t reflectors = std::min(x.rows, x.cols);
  BERTH_RETURN_IF_ERROR(call.ExpectResult(0, "qr", kType, x.With({x.rows, x.cols})));
  BERTH_RETURN_IF_ERROR(call.ExpectResult(1, "tau", kType, x.With({reflectors})));
  if (call.preparing()) return OkStatus();

  auto [m, n, lda] = FortranShapeOf(x.rows, x.cols);
  lapack_int info = 0;
  lapack_int lwork = QueryWorkspace<T>([&](T* optimal, const lapack_int* query) {
    Routines<T>::geqrf(&m, &n, nullptr, &lda, nullptr, optimal, query, &info);
  });
  std::vector<T> work(lwork);

  const T* in = call.operand<T>(0);
  T* qr = call.result<T>(0);
  T* tau = call.result<T>(1);
  InColumnMajor(in, qr, x.batch, x.rows, x.cols, [&](T* a, int64_t i) {
    Routines<T>::geqrf(&m, &n, a, &lda, tau + i * reflectors, work.data(), &lwork, &info);
  });
  return OkStatus();
}

template <typename T>
Status OrthogonalQr(const LapackCall& call) {
  constexpr ElementType kType = ElementTypeOf<T>();
  BERTH_ASSIGN_OR_RETURN(const MatrixBatch x, call.MatrixOperand(0, "qr", kType));
  BERTH_ASSIGN_OR_RETURN(const int64_t reflectors, call.VectorOperand(1, "tau", kType, x));
  if (!(x.rows >= x.cols && x.cols >= reflectors)) {
    return call.Invalid("needs rows >= columns >= reflectors; qr is " + std::to_string(x.rows) +
                        " x " + std::to_string(x.cols) + " and tau has " +
                        std::to_string(reflectors) + " reflectors");
  }
  BERTH_RETURN_IF_ERROR(call.ExpectResult(0, "q", kType, x.With({x.rows, x.cols})));
  if (call.preparing()) return OkStatus();

  auto [m, n, lda] = FortranShapeOf(x.rows, x.cols);
  lapack_int k = static_cast<lapack_int>(reflectors);
  lapack_int info = 0;
  lapack_int lwork = QueryWorkspace<T>([&](T* optimal, const lapack_int* query) {
    Routines<T>::orthogonal_qr(&m, &n, &k, nullptr, &lda, nullptr, optimal, query, &info);
  });
  std::vector<T> work(lwork);

  const T* in = call.operand<T>(0);
  const T* tau = call.operand<T>(1);
  T* q = call.result<T>(0);
  InColumnMajor(in, q, x.batch, x.rows, x.cols, [&](T* a, int64_t i) {
    Routines<T>::orthogonal_qr(&m, &n, &k, a, &lda, tau + i * reflectors, work.data(), &lwork,
                               &info);
  });
  return OkStatus();
}

template <typename T>
Status PivotedQrFactorization(const LapackCall& call) {
  constexpr ElementType kType = ElementTypeOf<T>();
  BERTH_ASSIGN_OR_RETURN(const MatrixBatch x, call.MatrixOperand(0, "x", kType));
  const int64_t reflectors = std::min(x.rows, x.cols);
  BERTH_RETURN_IF_ERROR(call.ExpectOperand(1, "pivots", ElementType::kS32, x.With({x.cols})));
  BERTH_RETURN_IF_ERROR(call.ExpectResult(0, "qr", kType, x.With({x.rows, x.cols})));
  BERTH_RETURN_IF_ERROR(call.ExpectResult(1, "pivots", ElementType::kS32, x.With({x.cols})));
  BERTH_RETURN_IF_ERROR(call.ExpectResult(2, "tau", kType, x.With({reflectors})));
  if (call.preparing()) return OkStatus();

  auto [m, n, lda] = FortranShapeOf(x.rows, x.cols);
  lapack_int info = 0;
  // The complex geqp3 also takes 2 n reals of workspace.
  std::vector<Real<T>> rwork(kIsComplex<T> ? std::max<int64_t>(2 * x.cols, 1) : 0);
  auto geqp3 = [&](T* a, lapack_int* jpvt, T* tau, T* work_data, const lapack_int* lwork) {
    if constexpr (kIsComplex<T>) {
      Routines<T>::pivoted_qr(&m, &n, a, &lda, jpvt, tau, work_data, lwork, rwork.data(), &info);
    } else {
      Routines<T>::pivoted_qr(&m, &n, a, &lda, jpvt, tau, work_data, lwork, &info);
    }
  };
  lapack_int lwork = QueryWorkspace<T>([&](T* optimal, const lapack_int* query) {
    geqp3(nullptr, nullptr, nullptr, optimal, query);
  });
  std::vector<T> work(lwork);

  // geqp3 reads the pivots (non-zero: a column to move first) and writes
  // the permutation over them.
  lapack_int* pivots = call.result<lapack_int>(1);
  std::copy_n(call.operand<lapack_int>(1), x.batch * x.cols, pivots);
  T* tau = call.result<T>(2);
  InColumnMajor(call.operand<T>(0), call.result<T>(0), x.batch, x.rows, x.cols,
                [&](T* a, int64_t i) {
                  geqp3(a, pivots + i * x.cols, tau + i * reflectors, work.data(), &lwork);
                });
  return OkStatus();
}

template Status QrFactorization<float>(const LapackCall&);
template Status QrFactorization<double>(const LapackCall&);
template Status QrFactorization<c64>(const LapackCall&);
template Status QrFactorization<c128>(const LapackCall&);
template Status OrthogonalQr<float>(const LapackCall&);
template Status OrthogonalQr<double>(const LapackCall&);
template Status OrthogonalQr<c64>(const LapackCall&);
template Status OrthogonalQr<c128>(const LapackCall&);
template Status PivotedQrFactorization<float>(const LapackCall&);
template Status PivotedQrFactorization<double>(const LapackCall&);
template Status PivotedQrFactorization<c64>(const LapackCall&);
template Status PivotedQrFactorization<c128>(const LapackCall&);

}  // namespace berth::ext::lapack
