// Comparing a tensor with expected values, as the check.* ops do (shared by
// the check ops and the check.* custom-call targets). The comparison itself
// is the StableHLO library's (berth/stablehlo/interpreter_check.hpp), which
// every plugin uses; the cpu plugin adds the narrow types.
#ifndef BERTH_PLUGINS_CPU_INTERPRETER_CHECK_HPP_
#define BERTH_PLUGINS_CPU_INTERPRETER_CHECK_HPP_

#include "berth/stablehlo/interpreter_check.hpp"
#include "interpreter/tensor.hpp"

namespace berth::cpu {

using stablehlo::CheckSpec;

// OK when `actual` matches `expected` (same element type and count, dense
// bytes), as stablehlo::CompareForCheck says; narrow types (narrow_types.hpp)
// are compared as the values they stand for (floats exactly in f32,
// integers as bytes).
Status CheckTensors(const Tensor& actual, const void* expected, const CheckSpec& spec);

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_INTERPRETER_CHECK_HPP_
