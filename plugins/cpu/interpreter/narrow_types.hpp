// Narrow element types: the sub-byte integers (i2, i4, ui2, ui4) and the
// small float formats (f8E5M2, f8E4M3FN, f8E4M3, f8E3M4, f8E4M3FNUZ,
// f8E5M2FNUZ, f8E4M3B11FNUZ, f8E8M0FNU, f6E2M3FN, f6E3M2FN, f4E2M1FN).
//
// Storage is one element per byte, as the ABI's buffers hold them: integers
// sign- (i2, i4) or zero-extended (ui2, ui4) to the byte, so the byte read
// as int8/uint8 is the value; floats as their bit pattern in the low bits.
// Nothing computes in these types directly: the elementwise family decodes
// operands into a wider compute type (int8/uint8 for integers, f32 for
// floats, f64 for conversions to floats), runs that type's block function
// and encodes the result back (FusedElementwise; ConvertTensor does the
// same for the kernels that convert: dot_general, iota, the checks).
// Encoding an integer wraps to the width (or, from a float conversion,
// saturates at the type's bounds, as convert does for wider integers); a
// float rounds once to nearest even with the format's overflow rule
// (infinity, NaN, or the largest finite value where it has neither).
#ifndef BERTH_PLUGINS_CPU_INTERPRETER_NARROW_TYPES_HPP_
#define BERTH_PLUGINS_CPU_INTERPRETER_NARROW_TYPES_HPP_

#include <cstdint>

#include "berth/stablehlo/types.hpp"

namespace berth::cpu {

using stablehlo::ElementType;

// i2, i4, ui2, ui4 and the f8/f6/f4 formats.
bool IsNarrowType(ElementType type);
bool IsNarrowInteger(ElementType type);

// The type a narrow type computes in: si8 (i2, i4), ui8 (ui2, ui4), f32
// (float formats); every other type itself.
ElementType WideComputeType(ElementType type);

// How EncodeNarrow turns compute values into a narrow integer.
enum class NarrowEncode : uint8_t {
  kWrap,          // modulo 2^bits (integer arithmetic)
  kSaturate,      // clamp to the type's range (from a float conversion)
  kLeadingZeros,  // count_leading_zeros of the byte minus (8 - bits)
};

// `n` elements of narrow type `from` (one per byte) as `to`: an integer
// type of at most 64 bits (a narrow integer's value, wrapped as convert
// does; with `as_bits` its bit pattern, zero-extended) or f32/f64 (float
// formats exactly, integers by value).
void DecodeNarrow(ElementType from, const uint8_t* in, ElementType to, void* out, int64_t n,
                  bool as_bits = false);

// `n` values of `from` (an integer of at most 64 bits, or f32/f64) stored
// as narrow type `to` (one per byte). Integers: `mode`; floats: rounded.
void EncodeNarrow(ElementType from, const void* in, ElementType to, uint8_t* out, int64_t n,
                  NarrowEncode mode = NarrowEncode::kWrap);

// A narrow integer's bytes brought to the storage rule (sign- or
// zero-extended from the low bits), e.g. after a host upload.
void NormalizeNarrowIntegers(ElementType type, uint8_t* data, int64_t n);

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_INTERPRETER_NARROW_TYPES_HPP_
