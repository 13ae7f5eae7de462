// ?potrf: x = L * L^T (uplo 'L') or U^T * U ('U'). Only that triangle of the
// factor is written; the other keeps x's values, and JAX's cholesky
// lowering masks it. A matrix that is not positive definite gets info = k,
// the order of the first leading minor that is not.
#include <vector>

#include "column_major.hpp"
#include "routines.hpp"

namespace berth::ext::lapack {

template <typename T>
Status Cholesky(const LapackCall& call) {
  constexpr ElementType kType = ElementTypeOf<T>();
  BERTH_ASSIGN_OR_RETURN(const SymmetricBatch x, call.SymmetricMatrixOperand(0, "x", kType));
  BERTH_RETURN_IF_ERROR(call.ExpectResult(0, "factor", kType, x.With({x.rows, x.cols})));
  BERTH_RETURN_IF_ERROR(call.ExpectResult(1, "info", ElementType::kS32, x.batch_dims));
  if (call.preparing()) return OkStatus();

  const T* in = call.operand<T>(0);
  T* factor = call.result<T>(0);
  lapack_int* info = call.result<lapack_int>(1);
  lapack_int n = static_cast<lapack_int>(x.rows);
  lapack_int lda = LeadingDim(x.rows);
  InColumnMajor(in, factor, x.batch, x.rows, x.cols,
                [&](T* a, int64_t i) { Routines<T>::potrf(&x.uplo, &n, a, &lda, &info[i], 1); });
  return OkStatus();
}

template Status Cholesky<float>(const LapackCall&);
template Status Cholesky<double>(const LapackCall&);
template Status Cholesky<c64>(const LapackCall&);
template Status Cholesky<c128>(const LapackCall&);

}  // namespace berth::ext::lapack
