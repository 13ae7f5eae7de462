// The LAPACK and BLAS routines the module calls, through their Fortran
// interface (Debian's liblapack3 / libblas3, or any library with the same
// symbols: OpenBLAS, BLIS+libflame), and `Routines<T>`, which gives them one
// name per routine for the four element types.
//
// Fortran conventions, as gfortran compiles the reference LAPACK: every
// argument by pointer; INTEGER is 32-bit (`lapack_int`; an ILP64 build would
// need another module); LOGICAL is a 4-byte integer; COMPLEX and COMPLEX*16
// are laid out as std::complex<float> / std::complex<double>; each CHARACTER
// argument adds a hidden length argument (size_t since gfortran 8) after all
// the others, in the same order. Routines here take only one-character
// options, so every hidden length is 1.
#ifndef BERTH_EXTENSIONS_LAPACK_FORTRAN_HPP_
#define BERTH_EXTENSIONS_LAPACK_FORTRAN_HPP_

#include "lapack_types.hpp"

extern "C" {
using berth::ext::lapack::c128;
using berth::ext::lapack::c64;
using berth::ext::lapack::fortran_length;
using berth::ext::lapack::fortran_logical;
using berth::ext::lapack::lapack_int;

// Declarations shared by the four types: P the LAPACK prefix, T the element
// type, R its real type.
#define BERTH_LAPACK_DECLARE_COMMON(P, T, R)                                                    \
  void P##getrf_(const lapack_int* m, const lapack_int* n, T* a, const lapack_int* lda,         \
                 lapack_int* ipiv, lapack_int* info);                                           \
  void P##geqrf_(const lapack_int* m, const lapack_int* n, T* a, const lapack_int* lda, T* tau, \
                 T* work, const lapack_int* lwork, lapack_int* info);                           \
  void P##potrf_(const char* uplo, const lapack_int* n, T* a, const lapack_int* lda,            \
                 lapack_int* info, fortran_length uplo_length);                                 \
  void P##gehrd_(const lapack_int* n, const lapack_int* ilo, const lapack_int* ihi, T* a,       \
                 const lapack_int* lda, T* tau, T* work, const lapack_int* lwork,               \
                 lapack_int* info);                                                             \
  void P##trsm_(const char* side, const char* uplo, const char* transa, const char* diag,       \
                const lapack_int* m, const lapack_int* n, const T* alpha, const T* a,           \
                const lapack_int* lda, T* b, const lapack_int* ldb, fortran_length side_length, \
                fortran_length uplo_length, fortran_length transa_length,                       \
                fortran_length diag_length);                                                    \
  void P##gtsv_(const lapack_int* n, const lapack_int* nrhs, T* dl, T* d, T* du, T* b,          \
                const lapack_int* ldb, lapack_int* info);

#define BERTH_LAPACK_DECLARE_REAL(P, T)                                                            \
  BERTH_LAPACK_DECLARE_COMMON(P, T, T)                                                             \
  void P##geqp3_(const lapack_int* m, const lapack_int* n, T* a, const lapack_int* lda,            \
                 lapack_int* jpvt, T* tau, T* work, const lapack_int* lwork, lapack_int* info);    \
  void P##orgqr_(const lapack_int* m, const lapack_int* n, const lapack_int* k, T* a,              \
                 const lapack_int* lda, const T* tau, T* work, const lapack_int* lwork,            \
                 lapack_int* info);                                                                \
  void P##syevd_(const char* jobz, const char* uplo, const lapack_int* n, T* a,                    \
                 const lapack_int* lda, T* w, T* work, const lapack_int* lwork, lapack_int* iwork, \
                 const lapack_int* liwork, lapack_int* info, fortran_length jobz_length,           \
                 fortran_length uplo_length);                                                      \
  void P##gesdd_(const char* jobz, const lapack_int* m, const lapack_int* n, T* a,                 \
                 const lapack_int* lda, T* s, T* u, const lapack_int* ldu, T* vt,                  \
                 const lapack_int* ldvt, T* work, const lapack_int* lwork, lapack_int* iwork,      \
                 lapack_int* info, fortran_length jobz_length);                                    \
  void P##geev_(const char* jobvl, const char* jobvr, const lapack_int* n, T* a,                   \
                const lapack_int* lda, T* wr, T* wi, T* vl, const lapack_int* ldvl, T* vr,         \
                const lapack_int* ldvr, T* work, const lapack_int* lwork, lapack_int* info,        \
                fortran_length jobvl_length, fortran_length jobvr_length);                         \
  void P##gees_(const char* jobvs, const char* sort, void* select, const lapack_int* n, T* a,      \
                const lapack_int* lda, lapack_int* sdim, T* wr, T* wi, T* vs,                      \
                const lapack_int* ldvs, T* work, const lapack_int* lwork, fortran_logical* bwork,  \
                lapack_int* info, fortran_length jobvs_length, fortran_length sort_length);        \
  void P##sytrd_(const char* uplo, const lapack_int* n, T* a, const lapack_int* lda, T* d, T* e,   \
                 T* tau, T* work, const lapack_int* lwork, lapack_int* info,                       \
                 fortran_length uplo_length);

#define BERTH_LAPACK_DECLARE_COMPLEX(P, T, R)                                                    \
  BERTH_LAPACK_DECLARE_COMMON(P, T, R)                                                           \
  void P##ungqr_(const lapack_int* m, const lapack_int* n, const lapack_int* k, T* a,            \
                 const lapack_int* lda, const T* tau, T* work, const lapack_int* lwork,          \
                 lapack_int* info);                                                              \
  void P##heevd_(const char* jobz, const char* uplo, const lapack_int* n, T* a,                  \
                 const lapack_int* lda, R* w, T* work, const lapack_int* lwork, R* rwork,        \
                 const lapack_int* lrwork, lapack_int* iwork, const lapack_int* liwork,          \
                 lapack_int* info, fortran_length jobz_length, fortran_length uplo_length);      \
  void P##gesdd_(const char* jobz, const lapack_int* m, const lapack_int* n, T* a,               \
                 const lapack_int* lda, R* s, T* u, const lapack_int* ldu, T* vt,                \
                 const lapack_int* ldvt, T* work, const lapack_int* lwork, R* rwork,             \
                 lapack_int* iwork, lapack_int* info, fortran_length jobz_length);               \
  void P##geev_(const char* jobvl, const char* jobvr, const lapack_int* n, T* a,                 \
                const lapack_int* lda, T* w, T* vl, const lapack_int* ldvl, T* vr,               \
                const lapack_int* ldvr, T* work, const lapack_int* lwork, R* rwork,              \
                lapack_int* info, fortran_length jobvl_length, fortran_length jobvr_length);     \
  void P##gees_(const char* jobvs, const char* sort, void* select, const lapack_int* n, T* a,    \
                const lapack_int* lda, lapack_int* sdim, T* w, T* vs, const lapack_int* ldvs,    \
                T* work, const lapack_int* lwork, R* rwork, fortran_logical* bwork,              \
                lapack_int* info, fortran_length jobvs_length, fortran_length sort_length);      \
  void P##hetrd_(const char* uplo, const lapack_int* n, T* a, const lapack_int* lda, R* d, R* e, \
                 T* tau, T* work, const lapack_int* lwork, lapack_int* info,                     \
                 fortran_length uplo_length);                                                    \
  void P##geqp3_(const lapack_int* m, const lapack_int* n, T* a, const lapack_int* lda,          \
                 lapack_int* jpvt, T* tau, T* work, const lapack_int* lwork, R* rwork,           \
                 lapack_int* info);

BERTH_LAPACK_DECLARE_REAL(s, float)
BERTH_LAPACK_DECLARE_REAL(d, double)
BERTH_LAPACK_DECLARE_COMPLEX(c, c64, float)
BERTH_LAPACK_DECLARE_COMPLEX(z, c128, double)

#undef BERTH_LAPACK_DECLARE_COMMON
#undef BERTH_LAPACK_DECLARE_REAL
#undef BERTH_LAPACK_DECLARE_COMPLEX
}  // extern "C"

namespace berth::ext::lapack {

// Routines<T>: the routines of one element type under one name each. Real
// and complex types share the names where LAPACK's arguments agree;
// `orthogonal_qr` is orgqr or ungqr, `hermitian_eigen` syevd or heevd,
// `tridiagonal_reduction` sytrd or hetrd. The rest differ (complex routines
// take real workspace); `pivoted_qr` is geqp3 (the complex one takes real
// workspace too). The handlers branch on
// kIsComplex<T> where the arguments differ.
template <typename T>
struct Routines;

// Routines<T> for the LAPACK prefix P: the routines every type has, those
// named apart for real and complex types (QR orgqr or ungqr, EIGEN syevd or
// heevd, TRIDIAGONAL sytrd or hetrd), then EXTRA (pivoted_qr).
#define BERTH_LAPACK_ROUTINES(P, T, QR, EIGEN, TRIDIAGONAL, EXTRA)    \
  template <>                                                         \
  struct Routines<T> {                                                \
    static constexpr auto getrf = &P##getrf_;                         \
    static constexpr auto geqrf = &P##geqrf_;                         \
    static constexpr auto potrf = &P##potrf_;                         \
    static constexpr auto gehrd = &P##gehrd_;                         \
    static constexpr auto trsm = &P##trsm_;                           \
    static constexpr auto gtsv = &P##gtsv_;                           \
    static constexpr auto gesdd = &P##gesdd_;                         \
    static constexpr auto geev = &P##geev_;                           \
    static constexpr auto gees = &P##gees_;                           \
    static constexpr auto orthogonal_qr = &P##QR##_;                  \
    static constexpr auto hermitian_eigen = &P##EIGEN##_;             \
    static constexpr auto tridiagonal_reduction = &P##TRIDIAGONAL##_; \
    EXTRA                                                             \
  };
#define BERTH_LAPACK_PIVOTED_QR(P) static constexpr auto pivoted_qr = &P##geqp3_;

BERTH_LAPACK_ROUTINES(s, float, orgqr, syevd, sytrd, BERTH_LAPACK_PIVOTED_QR(s))
BERTH_LAPACK_ROUTINES(d, double, orgqr, syevd, sytrd, BERTH_LAPACK_PIVOTED_QR(d))
BERTH_LAPACK_ROUTINES(c, c64, ungqr, heevd, hetrd, BERTH_LAPACK_PIVOTED_QR(c))
BERTH_LAPACK_ROUTINES(z, c128, ungqr, heevd, hetrd, BERTH_LAPACK_PIVOTED_QR(z))

#undef BERTH_LAPACK_ROUTINES
#undef BERTH_LAPACK_PIVOTED_QR

}  // namespace berth::ext::lapack

#endif  // BERTH_EXTENSIONS_LAPACK_FORTRAN_HPP_
