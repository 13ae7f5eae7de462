// The LAPACK FFI module: the custom-call targets jaxlib's CPU lowering of
// jnp.linalg / lax.linalg emits (lapack_<p><routine>_ffi), served by the
// system's LAPACK and BLAS, exported through BERTH_Ffi_GetModule. The
// targets of complex types and the real geev are registered too, so a
// program calling them fails its compile with UNIMPLEMENTED naming the
// target and the reason, rather than with "not registered".
#include <exception>
#include <string>

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

// The C handler of a routine: checks the frame, runs the routine, and turns
// its status (or an exception, such as bad_alloc for a workspace) into the
// code and message the caller gets.
template <Routine kRoutine>
BERTH_Error_Code Run(BERTH_Ffi_CallFrame* frame) {
  if (frame == nullptr || frame->struct_size < BERTH_Ffi_CallFrame_STRUCT_SIZE) {
    return BERTH_Error_Code_INVALID_ARGUMENT;
  }
  try {
    const LapackCall call(*frame);
    if (frame->stage != BERTH_Ffi_Stage_Prepare && frame->stage != BERTH_Ffi_Stage_Execute) {
      return Report(frame, call.Invalid("unknown stage " + std::to_string(frame->stage)));
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

// A target the module knows and cannot serve, for the reason given.
template <const char* kReason>
Status Unavailable(const LapackCall& call) {
  return call.Error(StatusCode::kUnimplemented, kReason);
}

constexpr char kComplex[] =
    "complex element types (c64, c128) are not supported: Berth has no complex tensors yet";
constexpr char kComplexVectors[] =
    "the real nonsymmetric eigensolver returns complex eigenvectors, and Berth has no complex "
    "tensors yet";

// clang-format off
#define BERTH_LAPACK_REAL_TARGETS(P, T)                                      \
  {"lapack_" #P "getrf_ffi", Run<LuFactorization<T>>, nullptr},              \
  {"lapack_" #P "geqrf_ffi", Run<QrFactorization<T>>, nullptr},              \
  {"lapack_" #P "geqp3_ffi", Run<PivotedQrFactorization<T>>, nullptr},       \
  {"lapack_" #P "orgqr_ffi", Run<OrthogonalQr<T>>, nullptr},                 \
  {"lapack_" #P "potrf_ffi", Run<Cholesky<T>>, nullptr},                     \
  {"lapack_" #P "trsm_ffi", Run<TriangularSolve<T>>, nullptr},               \
  {"blas_" #P "trsm_ffi", Run<TriangularSolve<T>>, nullptr},                 \
  {"lapack_" #P "syevd_ffi", Run<SymmetricEigen<T>>, nullptr},               \
  {"lapack_" #P "gesdd_ffi", Run<SingularValueDecomposition<T>>, nullptr},   \
  {"lapack_" #P "gehrd_ffi", Run<Hessenberg<T>>, nullptr},                   \
  {"lapack_" #P "gees_ffi", Run<Schur<T>>, nullptr},                         \
  {"lapack_" #P "gtsv_ffi", Run<TridiagonalSolve<T>>, nullptr},              \
  {"lapack_" #P "sytrd_ffi", Run<TridiagonalReduction<T>>, nullptr},        \
  {"lapack_" #P "geev_ffi", Run<Unavailable<kComplexVectors>>, nullptr}

#define BERTH_LAPACK_COMPLEX_TARGETS(P)                                      \
  {"lapack_" #P "getrf_ffi", Run<Unavailable<kComplex>>, nullptr},           \
  {"lapack_" #P "geqrf_ffi", Run<Unavailable<kComplex>>, nullptr},           \
  {"lapack_" #P "ungqr_ffi", Run<Unavailable<kComplex>>, nullptr},           \
  {"lapack_" #P "potrf_ffi", Run<Unavailable<kComplex>>, nullptr},           \
  {"lapack_" #P "trsm_ffi", Run<Unavailable<kComplex>>, nullptr},            \
  {"blas_" #P "trsm_ffi", Run<Unavailable<kComplex>>, nullptr},              \
  {"lapack_" #P "heevd_ffi", Run<Unavailable<kComplex>>, nullptr},           \
  {"lapack_" #P "gesdd_ffi", Run<Unavailable<kComplex>>, nullptr},           \
  {"lapack_" #P "gehrd_ffi", Run<Unavailable<kComplex>>, nullptr},           \
  {"lapack_" #P "gees_ffi", Run<Unavailable<kComplex>>, nullptr},            \
  {"lapack_" #P "gtsv_ffi", Run<Unavailable<kComplex>>, nullptr},            \
  {"lapack_" #P "geev_ffi", Run<Unavailable<kComplex>>, nullptr},            \
  {"lapack_" #P "hetrd_ffi", Run<Unavailable<kComplex>>, nullptr},           \
  {"lapack_" #P "geqp3_ffi", Run<Unavailable<kComplex>>, nullptr}
// clang-format on

const BERTH_Ffi_ModuleHandler kHandlers[] = {
    BERTH_LAPACK_REAL_TARGETS(s, float),
    BERTH_LAPACK_REAL_TARGETS(d, double),
    BERTH_LAPACK_COMPLEX_TARGETS(c),
    BERTH_LAPACK_COMPLEX_TARGETS(z),
};

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
