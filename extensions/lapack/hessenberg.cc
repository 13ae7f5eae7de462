// ?gehrd: x = Q * H * Q^T with H upper Hessenberg, rows and columns low..high
// (1-based) reduced; Q is kept as the reflectors below H's first
// subdiagonal and their scalars in tau (n - 1 of them). JAX's hessenberg
// lowering passes low = 1, high = n.
#include <algorithm>
#include <string>
#include <vector>

#include "column_major.hpp"
#include "routines.hpp"

namespace berth::ext::lapack {

template <typename T>
Status Hessenberg(const LapackCall& call) {
  constexpr ElementType kType = ElementTypeOf<T>();
  BERTH_ASSIGN_OR_RETURN(const MatrixBatch x, call.SquareMatrixOperand(0, "x", kType));
  BERTH_ASSIGN_OR_RETURN(const int64_t low, call.IntAttribute("low"));
  BERTH_ASSIGN_OR_RETURN(const int64_t high, call.IntAttribute("high"));
  const int64_t n = x.rows;
  // LAPACK's bounds: 1 <= low <= max(1, n), min(low, n) <= high <= n.
  if (low < 1 || low > std::max<int64_t>(n, 1) || high < std::min(low, n) || high > n) {
    return call.Invalid("attributes low = " + std::to_string(low) +
                        ", high = " + std::to_string(high) +
                        " are outside 1 <= low <= high <= " + std::to_string(n));
  }
  const int64_t reflectors = std::max<int64_t>(n - 1, 0);
  BERTH_RETURN_IF_ERROR(call.ExpectResult(0, "hessenberg", kType, x.With({n, n})));
  BERTH_RETURN_IF_ERROR(call.ExpectResult(1, "tau", kType, x.With({reflectors})));
  BERTH_RETURN_IF_ERROR(call.ExpectResult(2, "info", ElementType::kS32, x.batch_dims));
  if (call.preparing()) return OkStatus();

  lapack_int order = static_cast<lapack_int>(n);
  lapack_int ilo = static_cast<lapack_int>(low);
  lapack_int ihi = static_cast<lapack_int>(high);
  lapack_int lda = LeadingDim(n);
  lapack_int info = 0;
  lapack_int lwork = QueryWorkspace<T>([&](T* optimal, const lapack_int* query) {
    Routines<T>::gehrd(&order, &ilo, &ihi, nullptr, &lda, nullptr, optimal, query, &info);
  });
  std::vector<T> work(lwork);
  // gehrd writes tau[0..low-2] and tau[high-1..n-2] as zero, and needs n - 1
  // entries even for n = 0.
  std::vector<T> tau(std::max<int64_t>(reflectors, 1));

  const T* in = call.operand<T>(0);
  T* hessenberg = call.result<T>(0);
  T* tau_out = call.result<T>(1);
  lapack_int* infos = call.result<lapack_int>(2);
  InColumnMajor(in, hessenberg, x.batch, n, n, [&](T* a, int64_t i) {
    Routines<T>::gehrd(&order, &ilo, &ihi, a, &lda, tau.data(), work.data(), &lwork, &infos[i]);
    std::copy_n(tau.data(), reflectors, tau_out + i * reflectors);
  });
  return OkStatus();
}

template Status Hessenberg<float>(const LapackCall&);
template Status Hessenberg<double>(const LapackCall&);
template Status Hessenberg<c64>(const LapackCall&);
template Status Hessenberg<c128>(const LapackCall&);

}  // namespace berth::ext::lapack
