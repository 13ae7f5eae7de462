// ?gees: x = Z * T * Z^T with T quasi upper triangular (1 x 1 and 2 x 2
// diagonal blocks, the latter for complex conjugate pairs) and Z orthogonal
// (mode 'V'; 'N' leaves the vectors result zero). The eigenvalues come back
// as real and imaginary parts (complex x: T upper triangular, Z unitary,
// x = Z T Z^H, one complex eigvals result). Ordering them (sort 'S') needs a selection
// function the custom call cannot carry: UNIMPLEMENTED, as in jaxlib, so
// `selected` (sdim) is always 0. info > 0: the QR algorithm did not
// converge.
#include <algorithm>
#include <vector>

#include "column_major.hpp"
#include "routines.hpp"

namespace berth::ext::lapack {

template <typename T>
Status Schur(const LapackCall& call) {
  constexpr ElementType kType = ElementTypeOf<T>();
  BERTH_ASSIGN_OR_RETURN(const MatrixBatch x, call.SquareMatrixOperand(0, "x", kType));
  BERTH_ASSIGN_OR_RETURN(char mode, call.CharAttribute("mode", "VN"));
  BERTH_ASSIGN_OR_RETURN(char sort, call.CharAttribute("sort", "NS"));
  if (sort == 'S') {
    return call.Error(StatusCode::kUnimplemented,
                      "sort = 'S' needs a selection function, which a custom call cannot pass");
  }
  const int64_t n = x.rows;
  // Real: eigvals_real, eigvals_imag; complex: one complex eigvals.
  const size_t values_results = kIsComplex<T> ? 1 : 2;
  BERTH_RETURN_IF_ERROR(call.ExpectResult(0, "schur_form", kType, x.With({n, n})));
  BERTH_RETURN_IF_ERROR(call.ExpectResult(1, "schur_vectors", kType, x.With({n, n})));
  if constexpr (kIsComplex<T>) {
    BERTH_RETURN_IF_ERROR(call.ExpectResult(2, "eigvals", kType, x.With({n})));
  } else {
    BERTH_RETURN_IF_ERROR(call.ExpectResult(2, "eigvals_real", kType, x.With({n})));
    BERTH_RETURN_IF_ERROR(call.ExpectResult(3, "eigvals_imag", kType, x.With({n})));
  }
  BERTH_RETURN_IF_ERROR(
      call.ExpectResult(2 + values_results, "selected", ElementType::kS32, x.batch_dims));
  BERTH_RETURN_IF_ERROR(
      call.ExpectResult(3 + values_results, "info", ElementType::kS32, x.batch_dims));
  if (call.preparing()) return OkStatus();

  lapack_int order = static_cast<lapack_int>(n);
  lapack_int lda = LeadingDim(n);
  lapack_int ldvs = mode == 'V' ? LeadingDim(n) : 1;
  std::vector<T> vectors(mode == 'V' ? std::max<int64_t>(x.matrix_size(), 1) : 1);
  std::vector<Real<T>> rwork(kIsComplex<T> ? std::max<int64_t>(n, 1) : 0);
  // gees on matrix a, its eigenvalues into values (the real parts, then
  // from values + n the imaginary ones, for real types).
  auto gees = [&](T* a, lapack_int* sdim, T* values, T* work_data, const lapack_int* lwork,
                  lapack_int* info) {
    if constexpr (kIsComplex<T>) {
      Routines<T>::gees(&mode, &sort, nullptr, &order, a, &lda, sdim, values, vectors.data(), &ldvs,
                        work_data, lwork, rwork.data(), nullptr, info, 1, 1);
    } else {
      Routines<T>::gees(&mode, &sort, nullptr, &order, a, &lda, sdim, values, values + n,
                        vectors.data(), &ldvs, work_data, lwork, nullptr, info, 1, 1);
    }
  };
  // The query passes real buffers: gees asks hseqr, which is handed them.
  std::vector<T> query_matrix(std::max<int64_t>(x.matrix_size(), 1));
  std::vector<T> query_values(2 * std::max<int64_t>(n, 1));
  lapack_int sdim = 0;
  lapack_int info = 0;
  lapack_int lwork = QueryWorkspace<T>([&](T* optimal, const lapack_int* query) {
    gees(query_matrix.data(), &sdim, query_values.data(), optimal, query, &info);
  });
  std::vector<T> work(lwork);
  std::vector<T> values(2 * std::max<int64_t>(n, 1));

  const T* in = call.operand<T>(0);
  T* schur_form = call.result<T>(0);
  T* vectors_out = call.result<T>(1);
  lapack_int* selected = call.result<lapack_int>(2 + values_results);
  lapack_int* infos = call.result<lapack_int>(3 + values_results);
  std::fill(vectors_out, vectors_out + x.batch * x.matrix_size(), T{0});
  InColumnMajor(in, schur_form, x.batch, n, n, [&](T* a, int64_t i) {
    gees(a, &selected[i], values.data(), work.data(), &lwork, &infos[i]);
    for (size_t part = 0; part < values_results; ++part) {
      std::copy_n(values.data() + part * n, n, call.result<T>(2 + part) + i * n);
    }
    if (mode == 'V') FromColumnMajor(vectors.data(), n, n, vectors_out + i * x.matrix_size());
  });
  return OkStatus();
}

template Status Schur<float>(const LapackCall&);
template Status Schur<double>(const LapackCall&);
template Status Schur<c64>(const LapackCall&);
template Status Schur<c128>(const LapackCall&);

}  // namespace berth::ext::lapack
