// ?gtsv: solves A * x = b for a tridiagonal A given by its three diagonals,
// each of length m as JAX passes them: dl[0] and du[m-1] lie outside A and
// are not read. Gaussian elimination with partial pivoting; dl, d and du
// come back holding the factorization, as LAPACK leaves them. info = i > 0:
// U(i, i) is exactly zero and x was not computed.
#include <algorithm>
#include <vector>

#include "column_major.hpp"
#include "routines.hpp"

namespace berth::ext::lapack {

template <typename T>
Status TridiagonalSolve(const LapackCall& call) {
  constexpr ElementType kType = ElementTypeOf<T>();
  BERTH_ASSIGN_OR_RETURN(const MatrixBatch b, call.MatrixOperand(3, "b", kType));
  const std::vector<int64_t> diagonal = b.With({b.rows});
  BERTH_RETURN_IF_ERROR(call.ExpectOperand(0, "dl", kType, diagonal));
  BERTH_RETURN_IF_ERROR(call.ExpectOperand(1, "d", kType, diagonal));
  BERTH_RETURN_IF_ERROR(call.ExpectOperand(2, "du", kType, diagonal));
  BERTH_RETURN_IF_ERROR(call.ExpectResult(0, "dl", kType, diagonal));
  BERTH_RETURN_IF_ERROR(call.ExpectResult(1, "d", kType, diagonal));
  BERTH_RETURN_IF_ERROR(call.ExpectResult(2, "du", kType, diagonal));
  BERTH_RETURN_IF_ERROR(call.ExpectResult(3, "x", kType, b.With({b.rows, b.cols})));
  BERTH_RETURN_IF_ERROR(call.ExpectResult(4, "info", ElementType::kS32, b.batch_dims));
  if (call.preparing()) return OkStatus();

  for (size_t diag = 0; diag < 3; ++diag) {
    std::copy_n(call.operand<T>(diag), b.batch * b.rows, call.result<T>(diag));
  }
  T* dl = call.result<T>(0);
  T* d = call.result<T>(1);
  T* du = call.result<T>(2);
  const T* b_in = call.operand<T>(3);
  T* x = call.result<T>(3);
  lapack_int* infos = call.result<lapack_int>(4);
  lapack_int n = static_cast<lapack_int>(b.rows);
  lapack_int nrhs = static_cast<lapack_int>(b.cols);
  lapack_int ldb = LeadingDim(b.rows);
  InColumnMajor(b_in, x, b.batch, b.rows, b.cols, [&](T* solution, int64_t i) {
    T* dl_i = dl + i * b.rows;
    // LAPACK's subdiagonal has m - 1 entries: dl[1..m-1] here.
    Routines<T>::gtsv(&n, &nrhs, b.rows > 0 ? dl_i + 1 : dl_i, d + i * b.rows, du + i * b.rows,
                      solution, &ldb, &infos[i]);
  });
  return OkStatus();
}

template Status TridiagonalSolve<float>(const LapackCall&);
template Status TridiagonalSolve<double>(const LapackCall&);
template Status TridiagonalSolve<c64>(const LapackCall&);
template Status TridiagonalSolve<c128>(const LapackCall&);

}  // namespace berth::ext::lapack
