// What the partitioner needs to know of an op: whether it depends on the
// device it runs on, is elementwise, reduces with an op it can repeat
// across devices, or may be dropped when unused.
#ifndef BERTH_SPMD_SRC_OP_TRAITS_HPP_
#define BERTH_SPMD_SRC_OP_TRAITS_HPP_

#include <cstdint>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "berth/stablehlo/attributes.hpp"
#include "berth/stablehlo/ir.hpp"

namespace berth::spmd::internal {

bool SeesTheDevice(stablehlo::OpKind kind);

// Whether `op`, an op in its regions, or a function it calls (transitively)
// depends on the device it runs on.
bool SeesTheDeviceDeep(const stablehlo::Operation& op, const stablehlo::Module& module,
                       std::unordered_set<const stablehlo::Function*>& visited);

// Ops computed element by element: operands of the result's shape (or
// scalars, for clamp and select) give a result of the same shape.
bool IsElementwise(stablehlo::OpKind kind);

// Whether an elementwise op gives +0 (all bits zero) where every operand
// is +0, so that zero padding stays zero: add, multiply, maximum, tanh,
// convert, select, ... but not exponential, compare, clamp, a float negate
// (-0.0), or any op with a scalar operand.
bool KeepsZeroPadding(const stablehlo::Operation& op);

// The binary op a reduce body applies to its two arguments, when that is
// all it does (`stablehlo.add`, ...); empty otherwise.
std::string_view ReducerOf(const stablehlo::Operation& reduce);

// Whether `init` is a constant that `reducer` leaves every value unchanged
// with (0 for add, 1 for multiply, -inf for a float maximum, ...): only
// then may each device start from it and the partial results be combined.
bool IsIdentity(const stablehlo::Value* init, std::string_view reducer);

// Whether `op` may do more than compute its results: a custom call (a host
// callback, say), an op without results, or an op holding one.
bool MayHaveEffects(const stablehlo::Operation& op);

// An op whose results nothing uses and that does nothing else: writing it
// would only cost its operands' gathering.
bool IsUnused(const stablehlo::Operation& op);

// Whether `block` or a region inside it holds a manual (shard_map) region
// or its marks: sdy.manual_computation, @SPMDFullToShardShape /
// @SPMDShardToFullShape, XLA's round-trip @xla.sdy.GlobalToLocalShape /
// LocalToGlobalShape.
bool HasManualRegions(const stablehlo::Block& block);

// The largest channel_handle id the module's own ops hold (0 when none):
// the collectives the partitioner writes take ids above it.
int64_t MaxChannelId(const stablehlo::Module& module);

// gather's batch dimensions: the indices' dimensions but index_vector_dim,
// in order (each one result dimension that is not an offset dimension).
std::vector<int64_t> GatherBatchDims(const stablehlo::GatherDimensionNumbers& numbers, int64_t indices_rank);

// For each of gather's `result_rank` dimensions, the indices dimension
// (one of `batch`) it runs along; -1 for the offset dimensions.
std::vector<int64_t> GatherResultSource(const stablehlo::GatherDimensionNumbers& numbers, int64_t result_rank,
                                        const std::vector<int64_t>& batch);

}  // namespace berth::spmd::internal

#endif  // BERTH_SPMD_SRC_OP_TRAITS_HPP_
