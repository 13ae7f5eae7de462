// How a value moves from one layout to another, chosen before anything is
// written: the op rules weigh candidate layouts by what the move costs, and
// DeviceProgram::Reshard writes the ops it names.
#ifndef BERTH_SPMD_SRC_RESHARD_PLAN_HPP_
#define BERTH_SPMD_SRC_RESHARD_PLAN_HPP_

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "berth/spmd/sharding.hpp"

namespace berth::spmd::internal {

// Whether a tiled sharding cuts every dimension of `global` evenly (no
// padding); true for a replicated one.
bool DividesEvenly(const Sharding& sharding, std::span<const int64_t> global);

// The devices that differ only in their tile along `dim` of a tiled
// sharding, one group per tile of the other dimensions (and per member of a
// replicated subgroup), each ordered by that tile.
std::vector<std::vector<int64_t>> DimensionGroups(const Sharding& sharding, size_t dim);

enum class ReshardKind {
  kNone,         // every device already holds exactly its new part
  kLocalSlice,   // each device's new part lies inside what it holds
  kPermute,      // each device's new part is what another device holds: one collective_permute
  kAllToAll,     // a cut moves from one dimension to another within groups: one all_to_all
  kGatherSome,   // all_gathers along some cut dimensions, then (maybe) a local slice
  kGatherWhole,  // all_gathers to the whole array (none from replicated), padding dropped, then
                 // the new part cut out, padded
};

struct ReshardPlan {
  ReshardKind kind = ReshardKind::kGatherWhole;
  // kGatherSome: the dimensions gathered, in order.
  std::vector<size_t> gathered;
  // kLocalSlice, kGatherSome: per dimension, each device's offset of its new
  // part within what it holds (after the gathers); empty when every offset
  // is zero and the shapes agree (nothing to slice).
  std::vector<std::vector<int64_t>> slice_offsets;
  // kPermute: (source, target) device pairs, each device a source and a
  // target once.
  std::vector<std::pair<int64_t, int64_t>> pairs;
  // kAllToAll: the dimension split and sent, the one received parts are
  // joined along, and the groups exchanging (ordered by the joined
  // dimension's tile).
  size_t split_dim = 0;
  size_t concat_dim = 0;
  std::vector<std::vector<int64_t>> groups;
  // Elements each device receives, plus one for writing anything at all:
  // zero only for kNone.
  int64_t cost = 0;
};

// The cheapest of the moves above that takes every device from its part of
// `from` to its part of `to`. Layouts that do not cut evenly, or that
// leave a partition without data, always take kGatherWhole (or kNone when
// equal).
ReshardPlan PlanReshard(const Sharding& from, const Sharding& to, std::span<const int64_t> global,
                        int64_t num_partitions);

// The dimension along which a reduce_scatter over `groups` (each ordered,
// together covering every device) takes partial results laid out as
// `partial` (a group's members hold the same part) to `wanted`: member i of
// a group keeps the i-th piece of that dimension. nullopt when none does or
// either layout does not cut evenly over all partitions.
std::optional<size_t> ScatterDimension(const Sharding& partial, const Sharding& wanted,
                                       const std::vector<std::vector<int64_t>>& groups,
                                       std::span<const int64_t> global, int64_t num_partitions);

// Whether every device's part of `to` lies inside its part of `from` (both
// evenly tiled or replicated), so that a local slice reshards.
bool SlicesLocally(const Sharding& from, const Sharding& to, std::span<const int64_t> global,
                   int64_t num_partitions);

// What moving a value from `from` to `to` costs (PlanReshard's cost).
int64_t ReshardCost(const Sharding& from, const Sharding& to, std::span<const int64_t> shape, int64_t num_partitions);

}  // namespace berth::spmd::internal

#endif  // BERTH_SPMD_SRC_RESHARD_PLAN_HPP_
