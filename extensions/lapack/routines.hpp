// The handlers of the module's targets, one per LAPACK routine, for T =
// float (the `s` targets), double (`d`), c64 (`c`) and c128 (`z`). The module's table names each
// routine's operands and results and checks their count; the routine checks
// their types and dims and its attributes (at both stages; README.md lists
// them) and, at EXECUTE, runs the routine on every matrix of the batch. A routine
// that fails on one matrix (singular, not positive definite, no convergence)
// reports it in that matrix's `info` result, as LAPACK does; the call itself
// succeeds.
#ifndef BERTH_EXTENSIONS_LAPACK_ROUTINES_HPP_
#define BERTH_EXTENSIONS_LAPACK_ROUTINES_HPP_

#include "berth/status.hpp"
#include "lapack_call.hpp"

namespace berth::ext::lapack {

// ?getrf: (x) -> (lu, pivots, info). lu_factorization.cc
template <typename T>
Status LuFactorization(const LapackCall& call);

// ?geqrf: (x) -> (qr, tau); ?geqp3: (x, pivots) -> (qr, pivots, tau);
// ?orgqr: (qr, tau) -> (q). qr_factorization.cc
template <typename T>
Status QrFactorization(const LapackCall& call);
template <typename T>
Status PivotedQrFactorization(const LapackCall& call);
template <typename T>
Status OrthogonalQr(const LapackCall& call);

// ?potrf {uplo}: (x) -> (factor, info). cholesky.cc
template <typename T>
Status Cholesky(const LapackCall& call);

// ?trsm {side, uplo, trans_x, diag}: (a, b, alpha) -> (x). triangular_solve.cc
template <typename T>
Status TriangularSolve(const LapackCall& call);

// ?syevd / ?heevd {uplo, mode}: (x) -> (vectors, values (real), info).
// symmetric_eigen.cc
template <typename T>
Status SymmetricEigen(const LapackCall& call);

// ?gesdd {mode}: (x) -> (x_out, s, u, vt, info). singular_values.cc
template <typename T>
Status SingularValueDecomposition(const LapackCall& call);

// ?gehrd {low, high}: (x) -> (hessenberg, tau, info). hessenberg.cc
template <typename T>
Status Hessenberg(const LapackCall& call);

// ?gees {mode, sort}: (x) -> (schur_form, schur_vectors, eigvals_real,
// eigvals_imag, selected, info); complex: one eigvals. schur.cc
template <typename T>
Status Schur(const LapackCall& call);

// ?sytrd {uplo}: (x) -> (x_out, diagonal, off_diagonal, tau, info).
// tridiagonal_reduction.cc
template <typename T>
Status TridiagonalReduction(const LapackCall& call);

// ?geev {compute_left, compute_right}: real (x) -> (eigvals_real,
// eigvals_imag, eigvecs_left, eigvecs_right, info), the vectors complex;
// complex (x) -> (eigvals, eigvecs_left, eigvecs_right, info).
// general_eigen.cc
template <typename T>
Status GeneralEigen(const LapackCall& call);

// ?gtsv: (dl, d, du, b) -> (dl, d, du, x, info). tridiagonal_solve.cc
template <typename T>
Status TridiagonalSolve(const LapackCall& call);

}  // namespace berth::ext::lapack

#endif  // BERTH_EXTENSIONS_LAPACK_ROUTINES_HPP_
