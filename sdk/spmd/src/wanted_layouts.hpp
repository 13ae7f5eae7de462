// Backward propagation: the layouts that the entry's result shardings and
// the sharding constraints ask of the values computed before them, carried
// back through the ops whose rules keep cuts (elementwise, transpose,
// broadcast_in_dim, reduce, dot_general, gather's indices).
//
// The partitioner propagates forward; a value its rules leave replicated
// (a replicated argument, a constant, a result of an op run whole) that a
// later op's layout wants cut is cut as soon as it is defined: each device
// slices its own part (no communication), so the ops after it run on parts
// instead of whole arrays. A wanted layout never changes a value's
// contents, only where its parts live, so it cannot change a result.
#ifndef BERTH_SPMD_SRC_WANTED_LAYOUTS_HPP_
#define BERTH_SPMD_SRC_WANTED_LAYOUTS_HPP_

#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include "berth/spmd/sharding.hpp"
#include "berth/stablehlo/ir.hpp"

namespace berth::spmd::internal {

using WantedLayouts = std::unordered_map<const stablehlo::Value*, Sharding>;

// What a constraint op (`@Sharding`, sdy.sharding_constraint, sdy.reshard)
// asks of its operand; nullopt for any other op.
using ConstraintLayout = std::function<std::optional<Sharding>(const stablehlo::Operation&)>;

// The layouts wanted of `body`'s values: its terminator's operands take
// `results` (the entry's result shardings), a constraint's operand the
// layout it names, and an op's operands what its wanted result layout
// carries back to them. Only evenly tiled layouts over all
// `num_partitions` devices of static tensors are kept. Where several uses
// want a value, the last in program order wins (the walk is backward).
WantedLayouts WantLayouts(const stablehlo::Block& body, const std::vector<std::optional<Sharding>>& results,
                          const ConstraintLayout& constraint_layout, int64_t num_partitions);

}  // namespace berth::spmd::internal

#endif  // BERTH_SPMD_SRC_WANTED_LAYOUTS_HPP_
