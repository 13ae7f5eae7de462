#include "interpreter/element_types.hpp"

#include "interpreter/narrow_types.hpp"

namespace berth::cpu {

using E = stablehlo::ElementType;

bool IsSupportedElementType(E type) {
  switch (type) {
    case E::kI1: case E::kSI8: case E::kSI16: case E::kSI32: case E::kSI64:
    case E::kUI8: case E::kUI16: case E::kUI32: case E::kUI64:
    case E::kF16: case E::kBF16: case E::kF32: case E::kF64:
    case E::kComplex64:
    case E::kComplex128: return true;
    default: return IsNarrowType(type);
  }
}

bool IsSupportedByDispatch(E type) {
  return IsSupportedElementType(type) && !stablehlo::IsComplex(type) && !IsNarrowType(type);
}

Status UnsupportedElementType(E type, std::string_view what) {
  if (IsSupportedElementType(type)) {
    // Complex numbers and narrow types: held everywhere, computed by some
    // kernels (DispatchElementType has no C++ type for them).
    return UnimplementedError(std::string(what) + " does not compute with " +
                              std::string(stablehlo::ElementTypeName(type)) +
                              " on the cpu plugin (see plugins/cpu/README.md)");
  }
  return UnimplementedError(std::string(what) + ": element type " +
                            std::string(stablehlo::ElementTypeName(type)) +
                            " is not supported by the cpu plugin (supported: i1, i2, i4, i8, i16, "
                            "i32, i64, the unsigned ones, the f4/f6/f8 formats, f16, bf16, f32, "
                            "f64, complex<f32>, complex<f64>)");
}

}  // namespace berth::cpu
