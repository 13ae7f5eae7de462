// Reductions with a region body: recognising the common bodies (a single
// add/multiply/max/min/and/or/xor of the two block arguments) so they run as
// typed loops, and combining buffers elementwise with such a body.
#ifndef BERTH_PLUGINS_CPU_INTERPRETER_REDUCTION_HPP_
#define BERTH_PLUGINS_CPU_INTERPRETER_REDUCTION_HPP_

#include <optional>

#include "berth/stablehlo/ir.hpp"
#include "interpreter/tensor.hpp"

namespace berth::cpu {

// The op of a body `^bb(%a, %b): %r = OP %a, %b; return %r` (either operand
// order), when OP is add, multiply, maximum, minimum, and, or or xor.
std::optional<stablehlo::OpKind> MatchBinaryReducer(const stablehlo::Region& body);

// acc[i] = acc[i] OP value[i] for i in [0, n), with OP from MatchBinaryReducer
// and the semantics of that StableHLO op (integers wrap, max/min propagate
// NaN, i1 add/multiply are or/and).
Status CombineInto(stablehlo::OpKind op, ElementType type, void* acc, const void* value,
                   int64_t n);

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_INTERPRETER_REDUCTION_HPP_
