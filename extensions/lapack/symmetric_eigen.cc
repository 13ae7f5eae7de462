// ?syevd: x = V * diag(w) * V^T for symmetric x, read from its uplo
// triangle; eigenvalues ascending, eigenvectors (mode 'V') in V's columns.
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
  BERTH_RETURN_IF_ERROR(call.ExpectResult(1, "values", kType, x.With({x.rows})));
  BERTH_RETURN_IF_ERROR(call.ExpectResult(2, "info", ElementType::kS32, x.batch_dims));
  if (call.preparing()) return OkStatus();

  lapack_int n = static_cast<lapack_int>(x.rows);
  lapack_int lda = LeadingDim(x.rows);
  lapack_int info = 0;
  T optimal{};
  lapack_int optimal_int = 0;
  lapack_int query = -1;
  Routines<T>::hermitian_eigen(&mode, &x.uplo, &n, nullptr, &lda, nullptr, &optimal, &query,
                               &optimal_int, &query, &info, 1, 1);
  lapack_int lwork = WorkspaceSize(optimal);
  lapack_int liwork = WorkspaceSize(optimal_int);
  std::vector<T> work(lwork);
  std::vector<lapack_int> iwork(liwork);

  const T* in = call.operand<T>(0);
  T* vectors = call.result<T>(0);
  T* values = call.result<T>(1);
  lapack_int* infos = call.result<lapack_int>(2);
  InColumnMajor(in, vectors, x.batch, x.rows, x.cols, [&](T* a, int64_t i) {
    Routines<T>::hermitian_eigen(&mode, &x.uplo, &n, a, &lda, values + i * x.rows, work.data(),
                                 &lwork, iwork.data(), &liwork, &infos[i], 1, 1);
  });
  return OkStatus();
}

template Status SymmetricEigen<float>(const LapackCall&);
template Status SymmetricEigen<double>(const LapackCall&);

}  // namespace berth::ext::lapack
