// The template backend's executor: runs a verified StableHLO function whose
// ops are f32 elementwise arithmetic (add, subtract, multiply, divide,
// maximum, minimum, negate, abs, exponential), constants and reduce (with
// an add, multiply, maximum or minimum body), straight from the SDK's IR.
// Replace it with your device's compiler.
#ifndef TEMPLATE_EXECUTOR_HPP_
#define TEMPLATE_EXECUTOR_HPP_

#include <vector>

#include "berth/stablehlo/ir.hpp"
#include "berth/status.hpp"

namespace template_backend {

// A dense row-major f32 array.
struct Array {
  std::vector<int64_t> dims;
  std::vector<float> values;
};

// The ops Run runs, as the plugin's "supported_ops" attribute lists them
// (keep the two in step: the conformance suite holds the plugin to the list).
inline constexpr char kSupportedOps[] =
    "stablehlo.add,stablehlo.subtract,stablehlo.multiply,stablehlo.divide,stablehlo.maximum,"
    "stablehlo.minimum,stablehlo.negate,stablehlo.abs,stablehlo.exponential,stablehlo.constant,"
    "stablehlo.reduce";

// UNIMPLEMENTED naming the first op (and its location) the executor cannot
// run, or an operand that is not a statically shaped f32 tensor.
berth::Status CheckSupported(const berth::stablehlo::Function& function);

// Runs `function` (checked by CheckSupported) on `args`.
berth::Result<std::vector<Array>> Run(const berth::stablehlo::Function& function,
                                      const std::vector<Array>& args);

}  // namespace template_backend

#endif  // TEMPLATE_EXECUTOR_HPP_
