// Values as the StableHLO reference interpreter prints them (its --interpret
// output, which the CHECK lines of interpreter test files match):
//
//   tensor<2x2xi8> {
//     [
//       [1, 2],
//       [3, 4]
//     ]
//   }
//
// the innermost dimension (or an empty one) on one line, the others one
// element per line, indented by two spaces a level; a scalar on one line,
// `tensor<ui8> {1}`. Elements: integers in decimal, i1 `true` / `false`,
// floats as "%.6e" (`nan`, `inf`, `-inf`), complex numbers `[re, im]`.
// Shared by `berth check` / `berth run` (results) and the cpu plugin's
// interpreter.print.
#ifndef BERTH_STABLEHLO_INTERPRETER_OUTPUT_HPP_
#define BERTH_STABLEHLO_INTERPRETER_OUTPUT_HPP_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "berth/stablehlo/types.hpp"

namespace berth::stablehlo {

// "1.000000e+00", "nan", "inf", "-inf".
std::string InterpreterFloatText(double value);

// Element `i` of the dense row-major storage `data` of `type` as the
// reference interpreter spells it: i1 `true`/`false`, integers in decimal
// (narrow ones, one per byte, as the values they stand for), floats of
// every format as InterpreterFloatText, complex numbers `[re, im]`.
std::string InterpreterElementText(ElementType type, const void* data, int64_t i);

// The value of `type` (its text, e.g. "tensor<2x2xi8>") and `dims`, whose
// element i (row-major) `element(i)` spells.
std::string FormatInterpreterValue(std::string_view type, std::span<const int64_t> dims,
                                   const std::function<std::string(int64_t)>& element);

}  // namespace berth::stablehlo

#endif  // BERTH_STABLEHLO_INTERPRETER_OUTPUT_HPP_
