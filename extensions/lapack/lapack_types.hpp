// The scalar types of the LAPACK module: LAPACK's INTEGER, LOGICAL and
// hidden string length as gfortran passes them, the complex types, and
// Real<T> / kIsComplex<T> for code written once for the four LAPACK types
// (the module's handlers and its tests).
#ifndef BERTH_EXTENSIONS_LAPACK_LAPACK_TYPES_HPP_
#define BERTH_EXTENSIONS_LAPACK_LAPACK_TYPES_HPP_

#include <complex>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace berth::ext::lapack {

using lapack_int = int32_t;
using fortran_logical = int32_t;
using fortran_length = size_t;
using c64 = std::complex<float>;
using c128 = std::complex<double>;

// The real type of T (T itself for float and double), and whether T is
// complex.
template <typename T>
struct RealPart {
  using type = T;
};
template <typename T>
struct RealPart<std::complex<T>> {
  using type = T;
};
template <typename T>
using Real = typename RealPart<T>::type;
template <typename T>
inline constexpr bool kIsComplex = !std::is_same_v<T, Real<T>>;

}  // namespace berth::ext::lapack

#endif  // BERTH_EXTENSIONS_LAPACK_LAPACK_TYPES_HPP_
