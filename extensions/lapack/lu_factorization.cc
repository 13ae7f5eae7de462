// ?getrf: P * L * U = x, with partial pivoting. JAX's lu lowering
// (lapack_?getrf_ffi) turns the 1-based pivots into a permutation itself.
#include <algorithm>
#include <vector>

#include "column_major.hpp"
#include "routines.hpp"

namespace berth::ext::lapack {

template <typename T>
Status LuFactorization(const LapackCall& call) {
  constexpr ElementType kType = ElementTypeOf<T>();
  BERTH_ASSIGN_OR_RETURN(const MatrixBatch x, call.MatrixOperand(0, "x", kType));
  const int64_t steps = std::min(x.rows, x.cols);
  BERTH_RETURN_IF_ERROR(call.ExpectResult(0, "lu", kType, x.With({x.rows, x.cols})));
  BERTH_RETURN_IF_ERROR(call.ExpectResult(1, "pivots", ElementType::kS32, x.With({steps})));
  BERTH_RETURN_IF_ERROR(call.ExpectResult(2, "info", ElementType::kS32, x.batch_dims));
  if (call.preparing()) return OkStatus();

  const T* in = call.operand<T>(0);
  T* lu = call.result<T>(0);
  lapack_int* pivots = call.result<lapack_int>(1);
  lapack_int* info = call.result<lapack_int>(2);
  auto [m, n, lda] = FortranShapeOf(x.rows, x.cols);
  InColumnMajor(in, lu, x.batch, x.rows, x.cols, [&](T* a, int64_t i) {
    Routines<T>::getrf(&m, &n, a, &lda, pivots + i * steps, &info[i]);
  });
  return OkStatus();
}

template Status LuFactorization<float>(const LapackCall&);
template Status LuFactorization<double>(const LapackCall&);
template Status LuFactorization<c64>(const LapackCall&);
template Status LuFactorization<c128>(const LapackCall&);

}  // namespace berth::ext::lapack
