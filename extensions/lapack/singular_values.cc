// ?gesdd: x = U * diag(s) * V^T (V^H for complex x; s real either way) by
// divide and conquer; s descending. Mode
// 'A' gives all of U (m x m) and V^T (n x n), 'S' the first min(m, n)
// columns of U and rows of V^T, 'N' the singular values only (u and vt are
// then left zero, whatever their dims). Mode 'O' (U written over x) is
// UNIMPLEMENTED, as in jaxlib. info > 0: no convergence.
#include <algorithm>
#include <vector>

#include "column_major.hpp"
#include "routines.hpp"

namespace berth::ext::lapack {
namespace {

// A rows x cols column-major identity (ones on the leading diagonal).
template <typename T>
void SetIdentity(std::vector<T>& matrix, int64_t rows, int64_t cols) {
  std::fill(matrix.begin(), matrix.end(), T{0});
  for (int64_t d = 0; d < std::min(rows, cols); ++d) matrix[d * rows + d] = T{1};
}

}  // namespace

template <typename T>
Status SingularValueDecomposition(const LapackCall& call) {
  constexpr ElementType kType = ElementTypeOf<T>();
  BERTH_ASSIGN_OR_RETURN(const MatrixBatch x, call.MatrixOperand(0, "x", kType));
  BERTH_ASSIGN_OR_RETURN(char mode, call.CharAttribute("mode", "ASNO"));
  if (mode == 'O') {
    return call.Error(StatusCode::kUnimplemented,
                      "mode 'O' (U written over x) is not implemented (jaxlib does not emit it)");
  }
  const int64_t k = std::min(x.rows, x.cols);
  BERTH_RETURN_IF_ERROR(call.ExpectResult(0, "x_out", kType, x.With({x.rows, x.cols})));
  BERTH_RETURN_IF_ERROR(call.ExpectResult(1, "s", ElementTypeOf<Real<T>>(), x.With({k})));
  const bool vectors = mode != 'N';
  const int64_t u_cols = mode == 'A' ? x.rows : k;
  const int64_t vt_rows = mode == 'A' ? x.cols : k;
  BERTH_ASSIGN_OR_RETURN(MatrixBatch u, call.MatrixResult(2, "u", kType, x));
  BERTH_ASSIGN_OR_RETURN(MatrixBatch vt, call.MatrixResult(3, "vt", kType, x));
  if (vectors) {
    BERTH_RETURN_IF_ERROR(call.ExpectResult(2, "u", kType, x.With({x.rows, u_cols})));
    BERTH_RETURN_IF_ERROR(call.ExpectResult(3, "vt", kType, x.With({vt_rows, x.cols})));
  }
  BERTH_RETURN_IF_ERROR(call.ExpectResult(4, "info", ElementType::kS32, x.batch_dims));
  if (call.preparing()) return OkStatus();

  auto [m, n, lda] = FortranShapeOf(x.rows, x.cols);
  lapack_int ldu = vectors ? LeadingDim(x.rows) : 1;
  lapack_int ldvt = vectors ? LeadingDim(vt_rows) : 1;
  lapack_int info = 0;
  std::vector<lapack_int> iwork(std::max<int64_t>(8 * k, 1));
  // The complex gesdd also takes real workspace, of the size LAPACK's
  // documentation gives (the larger of its formulas across releases).
  const int64_t longer = std::max(x.rows, x.cols);
  std::vector<Real<T>> rwork(
      !kIsComplex<T> ? 0
                     : std::max<int64_t>(
                           vectors ? k * std::max(5 * k + 7, 2 * longer + 2 * k + 1) : 7 * k, 1));
  auto gesdd = [&](T* a, Real<T>* s_out, T* u_data, T* vt_data, T* work_data,
                   const lapack_int* lwork, lapack_int* info_out) {
    if constexpr (kIsComplex<T>) {
      Routines<T>::gesdd(&mode, &m, &n, a, &lda, s_out, u_data, &ldu, vt_data, &ldvt, work_data,
                         lwork, rwork.data(), iwork.data(), info_out, 1);
    } else {
      Routines<T>::gesdd(&mode, &m, &n, a, &lda, s_out, u_data, &ldu, vt_data, &ldvt, work_data,
                         lwork, iwork.data(), info_out, 1);
    }
  };
  lapack_int lwork = QueryWorkspace<T>([&](T* optimal, const lapack_int* query) {
    gesdd(nullptr, nullptr, nullptr, nullptr, optimal, query, &info);
  });
  std::vector<T> work(lwork);

  const T* in = call.operand<T>(0);
  T* x_out = call.result<T>(0);
  Real<T>* s = call.result<Real<T>>(1);
  T* u_out = call.result<T>(2);
  T* vt_out = call.result<T>(3);
  lapack_int* infos = call.result<lapack_int>(4);
  std::fill(u_out, u_out + u.batch * u.matrix_size(), T{0});
  std::fill(vt_out, vt_out + vt.batch * vt.matrix_size(), T{0});
  std::vector<T> u_work(vectors ? x.rows * u_cols : 1);
  std::vector<T> vt_work(vectors ? vt_rows * x.cols : 1);
  if (vectors && k == 0) {
    // LAPACK returns at once for an empty x; any orthogonal U and V^T
    // reconstruct it, and identities are what numpy gives.
    SetIdentity(u_work, x.rows, u_cols);
    SetIdentity(vt_work, vt_rows, x.cols);
  }
  InColumnMajor(in, x_out, x.batch, x.rows, x.cols, [&](T* a, int64_t i) {
    gesdd(a, s + i * k, u_work.data(), vt_work.data(), work.data(), &lwork, &infos[i]);
    if (vectors) {
      FromColumnMajor(u_work.data(), x.rows, u_cols, u_out + i * u.matrix_size());
      FromColumnMajor(vt_work.data(), vt_rows, x.cols, vt_out + i * vt.matrix_size());
    }
  });
  return OkStatus();
}

template Status SingularValueDecomposition<float>(const LapackCall&);
template Status SingularValueDecomposition<double>(const LapackCall&);
template Status SingularValueDecomposition<c64>(const LapackCall&);
template Status SingularValueDecomposition<c128>(const LapackCall&);

}  // namespace berth::ext::lapack
