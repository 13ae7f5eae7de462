// The LAPACK FFI module: the custom-call targets jaxlib's CPU lowering of
// jnp.linalg / lax.linalg emits (lapack_<p><routine>_ffi), served by the
// system's LAPACK and BLAS, exported through BERTH_Ffi_GetModule, for the
// four LAPACK types (s, d, c, z).
#include <algorithm>
#include <cstddef>
#include <exception>
#include <string>
#include <string_view>

#include "berth/ext/ffi.h"
#include "lapack_call.hpp"
#include "routines.hpp"

namespace berth::ext::lapack {
namespace {

using Routine = Status (*)(const LapackCall&);

// Reports `status` through the frame; returns its code.
BERTH_Error_Code Report(BERTH_Ffi_CallFrame* frame, const Status& status) {
  if (status.ok()) return BERTH_Error_Code_OK;
  frame->report_error(frame->error_context, status.message().data(), status.message().size());
  return static_cast<BERTH_Error_Code>(status.code());
}

// What a routine takes and returns, as a template argument: "(x) -> (lu,
// pivots, info)". The table below is where each target's operands and
// results are named; an empty one is not checked.
template <size_t N>
struct Signature {
  constexpr Signature(const char (&literal)[N]) { std::copy_n(literal, N, text); }  // NOLINT
  std::string_view view() const { return {text, N - 1}; }
  char text[N];
};

// The C handler of a routine: checks the frame and the call's arity, runs
// the routine, and turns its status (or an exception, such as bad_alloc for
// a workspace) into the code and message the caller gets.
template <Routine kRoutine, Signature kSignature>
BERTH_Error_Code Run(BERTH_Ffi_CallFrame* frame) {
  if (frame == nullptr || frame->struct_size < BERTH_Ffi_CallFrame_STRUCT_SIZE) {
    return BERTH_Error_Code_INVALID_ARGUMENT;
  }
  try {
    const LapackCall call(*frame);
    if (frame->stage != BERTH_Ffi_Stage_Prepare && frame->stage != BERTH_Ffi_Stage_Execute) {
      return Report(frame, call.Invalid("unknown stage " + std::to_string(frame->stage)));
    }
    if (!kSignature.view().empty()) {
      const Status arity = call.ExpectSignature(kSignature.view());
      if (!arity.ok()) return Report(frame, arity);
    }
    return Report(frame, kRoutine(call));
  } catch (const std::exception& e) {
    return Report(frame,
                  InternalError(std::string(frame->target, frame->target_size) + ": " + e.what()));
  } catch (...) {
    return Report(frame, InternalError(std::string(frame->target, frame->target_size) +
                                       ": unknown exception"));
  }
}

// clang-format off
// The targets every type has (P its LAPACK prefix, T its element type).
#define BERTH_LAPACK_COMMON_TARGETS(P, T)                                                       \
  {"lapack_" #P "getrf_ffi", Run<LuFactorization<T>,                                            \
      "(x) -> (lu, pivots, info)">, nullptr},                                                   \
  {"lapack_" #P "geqrf_ffi", Run<QrFactorization<T>,                                            \
      "(x) -> (qr, tau)">, nullptr},                                                            \
  {"lapack_" #P "geqp3_ffi", Run<PivotedQrFactorization<T>,                                     \
      "(x, pivots) -> (qr, pivots, tau)">, nullptr},                                            \
  {"lapack_" #P "potrf_ffi", Run<Cholesky<T>,                                                   \
      "(x) -> (factor, info)">, nullptr},                                                       \
  {"lapack_" #P "trsm_ffi", Run<TriangularSolve<T>,                                             \
      "(a, b, alpha) -> (x)">, nullptr},                                                        \
  {"blas_" #P "trsm_ffi", Run<TriangularSolve<T>,                                               \
      "(a, b, alpha) -> (x)">, nullptr},                                                        \
  {"lapack_" #P "gesdd_ffi", Run<SingularValueDecomposition<T>,                                 \
      "(x) -> (x_out, s, u, vt, info)">, nullptr},                                              \
  {"lapack_" #P "gehrd_ffi", Run<Hessenberg<T>,                                                 \
      "(x) -> (hessenberg, tau, info)">, nullptr},                                              \
  {"lapack_" #P "gtsv_ffi", Run<TridiagonalSolve<T>,                                            \
      "(dl, d, du, b) -> (dl, d, du, x, info)">, nullptr}

// The real types' targets (orgqr, syevd, sytrd; eigenvalues in two parts).
#define BERTH_LAPACK_REAL_TARGETS(P, T)                                                         \
  BERTH_LAPACK_COMMON_TARGETS(P, T),                                                            \
  {"lapack_" #P "orgqr_ffi", Run<OrthogonalQr<T>,                                               \
      "(qr, tau) -> (q)">, nullptr},                                                            \
  {"lapack_" #P "syevd_ffi", Run<SymmetricEigen<T>,                                             \
      "(x) -> (vectors, values, info)">, nullptr},                                              \
  {"lapack_" #P "sytrd_ffi", Run<TridiagonalReduction<T>,                                       \
      "(x) -> (x_out, diagonal, off_diagonal, tau, info)">, nullptr},                           \
  {"lapack_" #P "gees_ffi", Run<Schur<T>,                                                       \
      "(x) -> (schur_form, schur_vectors, eigvals_real, eigvals_imag, selected, info)">, nullptr},\
  {"lapack_" #P "geev_ffi", Run<GeneralEigen<T>,                                                \
      "(x) -> (eigvals_real, eigvals_imag, eigvecs_left, eigvecs_right, info)">, nullptr}

// The complex types' targets (ungqr, heevd, hetrd; one complex eigvals).
#define BERTH_LAPACK_COMPLEX_TARGETS(P, T)                                                      \
  BERTH_LAPACK_COMMON_TARGETS(P, T),                                                            \
  {"lapack_" #P "ungqr_ffi", Run<OrthogonalQr<T>,                                               \
      "(qr, tau) -> (q)">, nullptr},                                                            \
  {"lapack_" #P "heevd_ffi", Run<SymmetricEigen<T>,                                             \
      "(x) -> (vectors, values, info)">, nullptr},                                              \
  {"lapack_" #P "hetrd_ffi", Run<TridiagonalReduction<T>,                                       \
      "(x) -> (x_out, diagonal, off_diagonal, tau, info)">, nullptr},                           \
  {"lapack_" #P "gees_ffi", Run<Schur<T>,                                                       \
      "(x) -> (schur_form, schur_vectors, eigvals, selected, info)">, nullptr},                 \
  {"lapack_" #P "geev_ffi", Run<GeneralEigen<T>,                                                \
      "(x) -> (eigvals, eigvecs_left, eigvecs_right, info)">, nullptr}
// clang-format on

const BERTH_Ffi_ModuleHandler kHandlers[] = {
    BERTH_LAPACK_REAL_TARGETS(s, float),
    BERTH_LAPACK_REAL_TARGETS(d, double),
    BERTH_LAPACK_COMPLEX_TARGETS(c, c64),
    BERTH_LAPACK_COMPLEX_TARGETS(z, c128),
};

#undef BERTH_LAPACK_COMMON_TARGETS
#undef BERTH_LAPACK_REAL_TARGETS
#undef BERTH_LAPACK_COMPLEX_TARGETS

const BERTH_Ffi_Module kModule = {
    BERTH_Ffi_Module_STRUCT_SIZE,
    BERTH_FFI_EXTENSION_VERSION,
    kHandlers,
    sizeof(kHandlers) / sizeof(kHandlers[0]),
};

}  // namespace
}  // namespace berth::ext::lapack

extern "C" __attribute__((visibility("default"))) const BERTH_Ffi_Module* BERTH_Ffi_GetModule() {
  return &berth::ext::lapack::kModule;
}
