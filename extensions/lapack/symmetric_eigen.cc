// ?syevd / ?heevd: x = V * diag(w) * V^T (V^H for complex Hermitian x,
// whose eigenvalues are real), x read from its uplo triangle; eigenvalues ascending, eigenvectors (mode 'V') in V's columns.
// With mode 'N' only the eigenvalues are computed and the vectors result
// holds what LAPACK left in x. info > 0: the algorithm did not converge.
#include <vector>

#include "column_major.hpp"
#include "routines.hpp"

namespace berth::ext::lapack {

template <typename T>
Status SymmetricEigen(const LapackCall& call) {
  constexpr ElementType kType = ElementTypeOf<T>();
  BERTH_ASSIGN_OR_RETURN(const SymmetricBatch x, call.SymmetricMatrixOperand(0, "x", kType));
  BERTH_ASSIGN_OR_RETURN(char mode, call.CharAttribute("mode", "VN"));
  BERTH_RETURN_IF_ERROR(call.ExpectResult(0, "vectors", kType, x.With({x.rows, x.cols})));
  BERTH_RETURN_IF_ERROR(call.ExpectResult(1, "values", ElementTypeOf<Real<T>>(), x.With({x.rows})));
  BERTH_RETURN_IF_ERROR(call.ExpectResult(2, "info", ElementType::kS32, x.batch_dims));
  if (call.preparing()) return OkStatus();

  lapack_int n = static_cast<lapack_int>(x.rows);
  lapack_int lda = LeadingDim(x.rows);
  lapack_int lwork = -1, lrwork = -1, liwork = -1;
  std::vector<T> work(1);
  std::vector<Real<T>> rwork(1);
  std::vector<lapack_int> iwork(1);
  // syevd, or heevd with its real workspace; first a query (sizes -1).
  auto eigen = [&](T* a, Real<T>* values, lapack_int* info) {
    if constexpr (kIsComplex<T>) {
      Routines<T>::hermitian_eigen(&mode, &x.uplo, &n, a, &lda, values, work.data(), &lwork,
                                   rwork.data(), &lrwork, iwork.data(), &liwork, info, 1, 1);
    } else {
      Routines<T>::hermitian_eigen(&mode, &x.uplo, &n, a, &lda, values, work.data(), &lwork,
                                   iwork.data(), &liwork, info, 1, 1);
    }
  };
  lapack_int info = 0;
  eigen(nullptr, nullptr, &info);
  lwork = WorkspaceSize(work[0]);
  lrwork = WorkspaceSize(rwork[0]);
  liwork = WorkspaceSize(iwork[0]);
  work.resize(lwork);
  rwork.resize(lrwork);
  iwork.resize(liwork);

  const T* in = call.operand<T>(0);
  T* vectors = call.result<T>(0);
  Real<T>* values = call.result<Real<T>>(1);
  lapack_int* infos = call.result<lapack_int>(2);
  InColumnMajor(in, vectors, x.batch, x.rows, x.cols,
                [&](T* a, int64_t i) { eigen(a, values + i * x.rows, &infos[i]); });
  return OkStatus();
}

template Status SymmetricEigen<float>(const LapackCall&);
template Status SymmetricEigen<double>(const LapackCall&);
template Status SymmetricEigen<c64>(const LapackCall&);
template Status SymmetricEigen<c128>(const LapackCall&);

}  // namespace berth::ext::lapack
