// ?trsm (BLAS): solves op(a) * x = alpha * b (side 'L') or x * op(a) =
// alpha * b ('R') for x, a triangular (uplo 'L'/'U', diag 'N', or 'U' for a
// unit diagonal that is not read), op(a) = a ('N') or a^T ('T', and 'C',
// the same for real types). JAX's triangular_solve lowering emits it as
// lapack_?trsm_ffi (blas_?trsm_ffi in older jaxlib releases).
#include <vector>

#include "column_major.hpp"
#include "routines.hpp"

namespace berth::ext::lapack {

template <typename T>
Status TriangularSolve(const LapackCall& call) {
  constexpr ElementType kType = ElementTypeOf<T>();
  BERTH_ASSIGN_OR_RETURN(const MatrixBatch b, call.MatrixOperand(1, "b", kType));
  BERTH_ASSIGN_OR_RETURN(char side, call.CharAttribute("side", "LR"));
  BERTH_ASSIGN_OR_RETURN(char uplo, call.CharAttribute("uplo", "LU"));
  BERTH_ASSIGN_OR_RETURN(char trans, call.CharAttribute("trans_x", "NTC"));
  BERTH_ASSIGN_OR_RETURN(char diag, call.CharAttribute("diag", "NU"));
  const int64_t order = side == 'L' ? b.rows : b.cols;
  BERTH_RETURN_IF_ERROR(call.ExpectOperand(0, "a", kType, b.With({order, order})));
  BERTH_RETURN_IF_ERROR(call.ExpectOperand(2, "alpha", kType, {}));
  BERTH_RETURN_IF_ERROR(call.ExpectResult(0, "x", kType, b.With({b.rows, b.cols})));
  if (call.preparing()) return OkStatus();

  const T* a_in = call.operand<T>(0);
  const T* b_in = call.operand<T>(1);
  const T* alpha = call.operand<T>(2);
  T* x = call.result<T>(0);
  lapack_int m = static_cast<lapack_int>(b.rows);
  lapack_int n = static_cast<lapack_int>(b.cols);
  lapack_int lda = LeadingDim(order);
  lapack_int ldb = LeadingDim(b.rows);
  const int64_t a_size = order * order;
  std::vector<T> a(a_size);
  InColumnMajor(b_in, x, b.batch, b.rows, b.cols, [&](T* solution, int64_t i) {
    ToColumnMajor(a_in + i * a_size, order, order, a.data());
    Routines<T>::trsm(&side, &uplo, &trans, &diag, &m, &n, alpha, a.data(), &lda, solution, &ldb, 1,
                      1, 1, 1);
  });
  return OkStatus();
}

template Status TriangularSolve<float>(const LapackCall&);
template Status TriangularSolve<double>(const LapackCall&);
template Status TriangularSolve<c64>(const LapackCall&);
template Status TriangularSolve<c128>(const LapackCall&);

}  // namespace berth::ext::lapack
