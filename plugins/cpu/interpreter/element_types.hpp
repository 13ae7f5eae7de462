// The element types the CPU backend computes with, and dispatch from a
// runtime ElementType to a C++ type:
//
//   return DispatchElementType(type, "stablehlo.add", [&]<typename T>() -> Status {
//     ... T is bool, int8_t ... uint64_t, Eigen::half, Eigen::bfloat16, float, double
//   });
//
// Complex numbers (complex<f32>, complex<f64>: std::complex<float|double>,
// real part first) are supported element types too, but only the kernels
// that compute with them dispatch on them (DispatchComplexType); elsewhere
// DispatchElementType answers UNIMPLEMENTED naming the op and the type.
//
// i1 is `bool` (storage holds only 0 and 1; host buffers are normalised on
// entry), f16 is Eigen::half and bf16 is Eigen::bfloat16 (arithmetic in
// float, rounded to nearest even on store).
#ifndef BERTH_PLUGINS_CPU_INTERPRETER_ELEMENT_TYPES_HPP_
#define BERTH_PLUGINS_CPU_INTERPRETER_ELEMENT_TYPES_HPP_

#include <Eigen/Core>
#include <complex>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "berth/element_type.hpp"
#include "berth/stablehlo/types.hpp"
#include "berth/status.hpp"

namespace berth::cpu {

using half = Eigen::half;
using bfloat16 = Eigen::bfloat16;
using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

template <typename T>
inline constexpr bool kIsFloat = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                 std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;
template <typename T>
inline constexpr bool kIsBool = std::is_same_v<T, bool>;
template <typename T>
inline constexpr bool kIsInteger = std::is_integral_v<T> && !kIsBool<T>;
template <typename T>
inline constexpr bool kIsComplex = std::is_same_v<T, complex64> || std::is_same_v<T, complex128>;

// Whether the CPU backend computes with this element type.
bool IsSupportedElementType(stablehlo::ElementType type);
// Whether DispatchElementType has a C++ type for it (complex numbers and
// narrow types are supported but not dispatched).
bool IsSupportedByDispatch(stablehlo::ElementType type);

// UNIMPLEMENTED: "<what>: element type f8E4M3FN is not supported by the cpu
// plugin (supported: i1, i8 ... f64, complex)"; for a complex type, "<what>
// does not compute with complex<f32> on the cpu plugin".
Status UnsupportedElementType(stablehlo::ElementType type, std::string_view what);

using stablehlo::FromBufferType;  // berth/stablehlo/types.hpp
using stablehlo::ToBufferType;

// Calls `f.template operator()<T>()` with T the C++ type of `type`.
template <typename F>
auto DispatchElementType(stablehlo::ElementType type, std::string_view what, F&& f)
    -> decltype(f.template operator()<float>()) {
  using E = stablehlo::ElementType;
  switch (type) {
    case E::kI1: return f.template operator()<bool>();
    case E::kSI8: return f.template operator()<int8_t>();
    case E::kSI16: return f.template operator()<int16_t>();
    case E::kSI32: return f.template operator()<int32_t>();
    case E::kSI64: return f.template operator()<int64_t>();
    case E::kUI8: return f.template operator()<uint8_t>();
    case E::kUI16: return f.template operator()<uint16_t>();
    case E::kUI32: return f.template operator()<uint32_t>();
    case E::kUI64: return f.template operator()<uint64_t>();
    case E::kF16: return f.template operator()<half>();
    case E::kBF16: return f.template operator()<bfloat16>();
    case E::kF32: return f.template operator()<float>();
    case E::kF64: return f.template operator()<double>();
    default: return UnsupportedElementType(type, what);
  }
}

// Calls `f.template operator()<T>()` with T complex64 or complex128;
// UNIMPLEMENTED for every other type.
template <typename F>
auto DispatchComplexType(stablehlo::ElementType type, std::string_view what, F&& f)
    -> decltype(f.template operator()<complex64>()) {
  using E = stablehlo::ElementType;
  switch (type) {
    case E::kComplex64: return f.template operator()<complex64>();
    case E::kComplex128: return f.template operator()<complex128>();
    default: return UnsupportedElementType(type, what);
  }
}

// DispatchElementType for kernels that compute with complex numbers too: T
// is also complex64 or complex128.
template <typename F>
auto DispatchElementTypeOrComplex(stablehlo::ElementType type, std::string_view what, F&& f)
    -> decltype(f.template operator()<float>()) {
  if (stablehlo::IsComplex(type)) return DispatchComplexType(type, what, f);
  return DispatchElementType(type, what, f);
}

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_INTERPRETER_ELEMENT_TYPES_HPP_
