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

berth::ElementType ToBufferType(E type) {
  using B = berth::ElementType;
  switch (type) {
    case E::kI1: return B::kPred;
    case E::kSI2: return B::kS2;
    case E::kSI4: return B::kS4;
    case E::kSI8: return B::kS8;
    case E::kSI16: return B::kS16;
    case E::kSI32: return B::kS32;
    case E::kSI64: return B::kS64;
    case E::kUI2: return B::kU2;
    case E::kUI4: return B::kU4;
    case E::kUI8: return B::kU8;
    case E::kUI16: return B::kU16;
    case E::kUI32: return B::kU32;
    case E::kUI64: return B::kU64;
    case E::kF16: return B::kF16;
    case E::kBF16: return B::kBF16;
    case E::kF32: return B::kF32;
    case E::kF64: return B::kF64;
    case E::kComplex64: return B::kC64;
    case E::kComplex128: return B::kC128;
    case E::kF8E5M2: return B::kF8E5M2;
    case E::kF8E4M3FN: return B::kF8E4M3FN;
    case E::kF8E4M3B11FNUZ: return B::kF8E4M3B11FNUZ;
    case E::kF8E5M2FNUZ: return B::kF8E5M2FNUZ;
    case E::kF8E4M3FNUZ: return B::kF8E4M3FNUZ;
    case E::kF8E4M3: return B::kF8E4M3;
    case E::kF8E3M4: return B::kF8E3M4;
    case E::kF8E8M0FNU: return B::kF8E8M0FNU;
    case E::kF4E2M1FN: return B::kF4E2M1FN;
    case E::kF6E2M3FN: return B::kF6E2M3FN;
    case E::kF6E3M2FN: return B::kF6E3M2FN;
    default: return B::kInvalid;
  }
}

bool FromBufferType(berth::ElementType type, E* out) {
  for (int i = 0; i <= static_cast<int>(E::kComplex128); ++i) {
    E candidate = static_cast<E>(i);
    if (ToBufferType(candidate) == type) {
      *out = candidate;
      return true;
    }
  }
  return false;
}

}  // namespace berth::cpu
