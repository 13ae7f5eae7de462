// ?sytrd: x = Q * T * Q^T for symmetric x read from its uplo triangle, T
// symmetric tridiagonal (diagonal d, off-diagonal e) and Q kept as n - 1
// Householder reflectors in the rest of that triangle with their scalars in
// tau. The result order (x, d, e, tau, info) is jaxlib's FFI kernel's, which
// JAX's exports of lax.linalg.tridiagonal show too.
#include <algorithm>
#include <vector>

#include "column_major.hpp"
#include "routines.hpp"

namespace berth::ext::lapack {

template <typename T>
Status TridiagonalReduction(const LapackCall& call) {
  constexpr ElementType kType = ElementTypeOf<T>();
  BERTH_ASSIGN_OR_RETURN(const SymmetricBatch x, call.SymmetricMatrixOperand(0, "x", kType));
  const int64_t n = x.rows;
  const int64_t off = std::max<int64_t>(n - 1, 0);
  BERTH_RETURN_IF_ERROR(call.ExpectResult(0, "x_out", kType, x.With({n, n})));
  // Hermitian x (hetrd) reduces to a real tridiagonal matrix.
  BERTH_RETURN_IF_ERROR(call.ExpectResult(1, "diagonal", ElementTypeOf<Real<T>>(), x.With({n})));
  BERTH_RETURN_IF_ERROR(
      call.ExpectResult(2, "off_diagonal", ElementTypeOf<Real<T>>(), x.With({off})));
  BERTH_RETURN_IF_ERROR(call.ExpectResult(3, "tau", kType, x.With({off})));
  BERTH_RETURN_IF_ERROR(call.ExpectResult(4, "info", ElementType::kS32, x.batch_dims));
  if (call.preparing()) return OkStatus();

  lapack_int order = static_cast<lapack_int>(n);
  lapack_int lda = LeadingDim(n);
  lapack_int info = 0;
  lapack_int lwork = QueryWorkspace<T>([&](T* optimal, const lapack_int* query) {
    Routines<T>::tridiagonal_reduction(&x.uplo, &order, nullptr, &lda, nullptr, nullptr, nullptr,
                                       optimal, query, &info, 1);
  });
  std::vector<T> work(lwork);

  Real<T>* diagonal = call.result<Real<T>>(1);
  Real<T>* off_diagonal = call.result<Real<T>>(2);
  T* tau = call.result<T>(3);
  lapack_int* infos = call.result<lapack_int>(4);
  InColumnMajor(call.operand<T>(0), call.result<T>(0), x.batch, n, n, [&](T* a, int64_t i) {
    Routines<T>::tridiagonal_reduction(&x.uplo, &order, a, &lda, diagonal + i * n,
                                       off_diagonal + i * off, tau + i * off, work.data(), &lwork,
                                       &infos[i], 1);
  });
  return OkStatus();
}

template Status TridiagonalReduction<float>(const LapackCall&);
template Status TridiagonalReduction<double>(const LapackCall&);
template Status TridiagonalReduction<c64>(const LapackCall&);
template Status TridiagonalReduction<c128>(const LapackCall&);

}  // namespace berth::ext::lapack
