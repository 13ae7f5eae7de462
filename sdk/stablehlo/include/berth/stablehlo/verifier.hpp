// Checking a Module against the StableHLO specification: operand and result
// types, shapes and attributes of every op, region signatures, calls.
#ifndef BERTH_STABLEHLO_VERIFIER_HPP_
#define BERTH_STABLEHLO_VERIFIER_HPP_

#include "berth/status.hpp"
#include "berth/stablehlo/ir.hpp"

namespace berth::stablehlo {

// OK, or INVALID_ARGUMENT for the first problem found:
// "FILE:LINE:COL: error: 'stablehlo.add' op ...". Dynamic dimensions (`?`)
// are accepted and checked as compatible with any size; quantized element
// types are reported as unsupported (LowerQuantizedTypes, quantization.hpp,
// lowers them to ops this verifies).
Status Verify(const Module& module);

}  // namespace berth::stablehlo

#endif  // BERTH_STABLEHLO_VERIFIER_HPP_
