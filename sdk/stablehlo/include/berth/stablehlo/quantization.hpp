// Uniform quantized element types (`!quant.uniform<...>`) and their lowering
// to plain integer and float ops.
//
// A quantized tensor holds storage integers q standing for the real values
// (q - zero_point) * scale, one (scale, zero_point) for the whole tensor or,
// per axis, one for each index of a dimension. LowerQuantizedTypes rewrites
// a module so that no quantized type is left, computing what the StableHLO
// specification defines:
//
//   uniform_quantize   x (float)  -> convert(round_nearest_even(clamp(min, x / scale + zp, max)))
//                      x (quant.) -> dequantized, then quantized to the result's parameters
//   uniform_dequantize q          -> convert(q - zp) * scale (the subtraction in i32, i64 for
//                                    32-bit storage, so that it cannot wrap)
//   ops that only move elements (reshape, transpose, broadcast_in_dim, slice,
//   concatenate, pad, gather, select, tuple, call, return, the collectives
//   that move data ...) where every quantized operand and result has the same
//   parameters: the same op on the storage integers
//   ops with a body (reduce, reduce_window, sort, scatter, select_and_scatter,
//   map, all_reduce, reduce_scatter): on the storage integers, their body's
//   ops lowered like any others, so the body computes on quantized values
//   as the specification evaluates it
//   every other op: its quantized operands dequantized, the op computed in
//   the expressed type, its quantized results quantized (the specification's
//   dequantize_op_quantize)
//
// Quantized values cross a program's boundary as their storage type (a
// function argument `tensor<4x!quant.uniform<i8:f32, 0.5:3>>` takes an i8
// buffer). Arithmetic in uniform_quantize runs in the operand's float type.
#ifndef BERTH_STABLEHLO_QUANTIZATION_HPP_
#define BERTH_STABLEHLO_QUANTIZATION_HPP_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "berth/stablehlo/ir.hpp"
#include "berth/status.hpp"

namespace berth::stablehlo {

// `!quant.uniform<STORAGE[<MIN:MAX>]:EXPRESSED[:AXIS], PARAMS>` where PARAMS
// is `SCALE[:ZERO_POINT]` or, per axis, `{SCALE[:ZERO_POINT], ...}`.
struct UniformQuantization {
  ElementType storage = ElementType::kSI8;  // an integer type of at most 32 bits
  int64_t storage_min = 0;                  // the type's range unless written
  int64_t storage_max = 0;
  ElementType expressed = ElementType::kF32;  // a float type
  std::optional<int64_t> axis;                // per-axis quantization: the dimension
  std::vector<double> scales;                 // positive and finite; one per axis index
  std::vector<int64_t> zero_points;           // within [storage_min, storage_max]

  // Same storage, range, expressed type, axis and parameters.
  bool operator==(const UniformQuantization&) const = default;
};

// INVALID_ARGUMENT naming what is wrong for text that is not a valid
// uniform quantized type.
Result<UniformQuantization> ParseUniformQuantization(std::string_view text);

// The quantization of a tensor type's elements (`type.IsQuantized()`).
Result<UniformQuantization> QuantizationOf(Type type);

// Whether any function signature, value or block argument of `module`
// has a quantized element type (inside tuples too).
bool HasQuantizedTypes(const Module& module);

// `module` (parsed, not yet verified: the verifier refuses quantized types)
// with every quantized type lowered as the header comment says, parsed and
// verified. Errors name the op of `module` they concern: INVALID_ARGUMENT
// for malformed quantized types and for programs the lowered form does not
// verify; UNIMPLEMENTED for quantized types inside the regions of an op
// lowered as dequantize - op - quantize, with dynamic shapes or bounds, or
// in tuples an op computes with.
Result<Module> LowerQuantizedTypes(const Module& module);

// A parsed module ready to run: verified as it is when it has no quantized
// types, else lowered (and verified) by LowerQuantizedTypes.
Result<Module> VerifyLoweringQuantizedTypes(Module module);

}  // namespace berth::stablehlo

#endif  // BERTH_STABLEHLO_QUANTIZATION_HPP_
