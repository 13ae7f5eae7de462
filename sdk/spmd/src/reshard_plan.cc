#include "src/reshard_plan.hpp"

#include <algorithm>
#include <numeric>

#include "src/tile_math.hpp"

namespace berth::spmd::internal {
namespace {

int64_t Product(std::span<const int64_t> values) {
  return std::accumulate(values.begin(), values.end(), int64_t{1}, std::multiplies<>());
}

// Replicated, or tiled evenly over every partition with only replicated
// subgroups: the layouts whose parts the cheaper moves reason about.
bool EvenOverAll(const Sharding& sharding, std::span<const int64_t> global, int64_t num_partitions) {
  if (sharding.IsReplicated()) return true;
  if (!sharding.IsTiled() || !DividesEvenly(sharding, global) ||
      static_cast<int64_t>(sharding.devices().size()) != num_partitions ||
      sharding.SubgroupSize(SubgroupKind::kManual) != 1) {
    return false;
  }
  for (int64_t p = 0; p < num_partitions; ++p) {
    if (!sharding.HoldsData(p)) return false;
  }
  return true;
}

bool Inside(const ShardRegion& inner, const ShardRegion& outer) {
  for (size_t d = 0; d < inner.offsets.size(); ++d) {
    if (inner.offsets[d] < outer.offsets[d] ||
        inner.offsets[d] + inner.sizes[d] > outer.offsets[d] + outer.sizes[d]) {
      return false;
    }
  }
  return true;
}

std::vector<ShardRegion> Regions(const Sharding& sharding, std::span<const int64_t> global, int64_t num_partitions) {
  std::vector<ShardRegion> regions;
  for (int64_t p = 0; p < num_partitions; ++p) regions.push_back(*sharding.RegionOf(p, global));
  return regions;
}

// Per dimension, each device's offset of `wanted` within `held`; empty when
// every offset is zero and the sizes agree.
std::vector<std::vector<int64_t>> SliceOffsets(const std::vector<ShardRegion>& held,
                                               const std::vector<ShardRegion>& wanted) {
  bool moves = false;
  std::vector<std::vector<int64_t>> offsets(held.front().offsets.size(), std::vector<int64_t>(held.size()));
  for (size_t p = 0; p < held.size(); ++p) {
    for (size_t d = 0; d < offsets.size(); ++d) {
      offsets[d][p] = wanted[p].offsets[d] - held[p].offsets[d];
      moves = moves || offsets[d][p] != 0 || wanted[p].sizes[d] != held[p].sizes[d];
    }
  }
  if (!moves) offsets.clear();
  return offsets;
}

// Sources for a collective_permute in which every device receives the part
// `wanted` names from a device holding exactly that part (itself first);
// empty when some part has no free holder.
std::vector<std::pair<int64_t, int64_t>> PermutePairs(const std::vector<ShardRegion>& held,
                                                      const std::vector<ShardRegion>& wanted) {
  const size_t n = held.size();
  std::vector<bool> sending(n, false);
  std::vector<int64_t> source(n, -1);
  for (size_t p = 0; p < n; ++p) {
    if (held[p] == wanted[p]) {
      source[p] = static_cast<int64_t>(p);
      sending[p] = true;
    }
  }
  for (size_t p = 0; p < n; ++p) {
    if (source[p] >= 0) continue;
    for (size_t q = 0; q < n && source[p] < 0; ++q) {
      if (!sending[q] && held[q] == wanted[p]) {
        source[p] = static_cast<int64_t>(q);
        sending[q] = true;
      }
    }
    if (source[p] < 0) return {};
  }
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (size_t p = 0; p < n; ++p) pairs.emplace_back(source[p], static_cast<int64_t>(p));
  return pairs;
}

// Whether, for every member i of every group (the groups covering all
// devices), `wanted` is the i-th of as many pieces along `dim` as the group
// has members of what it holds, after `widen` has changed that.
template <typename Widen>
bool EachKeepsItsPiece(const std::vector<ShardRegion>& held, const std::vector<ShardRegion>& wanted,
                       const std::vector<std::vector<int64_t>>& groups, size_t dim, Widen widen) {
  const int64_t pieces = static_cast<int64_t>(groups.front().size());
  if (held.front().sizes[dim] % pieces != 0) return false;
  size_t covered = 0;
  for (const std::vector<int64_t>& group : groups) {
    covered += group.size();
    for (size_t i = 0; i < group.size(); ++i) {
      const size_t p = static_cast<size_t>(group[i]);
      ShardRegion after = held[p];
      widen(after);
      after.sizes[dim] /= pieces;
      after.offsets[dim] += static_cast<int64_t>(i) * after.sizes[dim];
      if (after != wanted[p]) return false;
    }
  }
  return covered == held.size();
}

// An all_to_all within the groups along `concat` (every tile of it): device
// i of a group sends the i-th piece of `split` to each member and joins what
// it receives along `concat`, so it ends with `concat` whole and the i-th
// piece of its part of `split`. Whether that is `wanted` on every device.
bool AllToAllGives(const std::vector<ShardRegion>& held, const std::vector<ShardRegion>& wanted,
                   const std::vector<std::vector<int64_t>>& groups, size_t split, size_t concat,
                   std::span<const int64_t> global) {
  return EachKeepsItsPiece(held, wanted, groups, split, [&](ShardRegion& region) {
    region.offsets[concat] = 0;
    region.sizes[concat] = global[concat];
  });
}

}  // namespace

bool DividesEvenly(const Sharding& sharding, std::span<const int64_t> global) {
  if (!sharding.IsTiled()) return true;
  for (size_t d = 0; d < global.size(); ++d) {
    if (global[d] % sharding.tile_dims()[d] != 0) return false;
  }
  return true;
}

std::vector<std::vector<int64_t>> DimensionGroups(const Sharding& sharding, size_t dim) {
  const std::vector<int64_t>& tiles = sharding.tile_dims();
  const int64_t count = static_cast<int64_t>(sharding.devices().size());
  std::vector<std::vector<int64_t>> groups;
  for (int64_t position = 0; position < count; ++position) {
    std::vector<int64_t> coords = Unravel(position, tiles);
    if (coords[dim] != 0) continue;
    std::vector<int64_t> group;
    for (int64_t t = 0; t < tiles[dim]; ++t) {
      coords[dim] = t;
      group.push_back(sharding.devices()[static_cast<size_t>(Ravel(coords, tiles))]);
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

ReshardPlan PlanReshard(const Sharding& from, const Sharding& to, std::span<const int64_t> global,
                        int64_t num_partitions) {
  ReshardPlan plan;
  if (from == to) {
    plan.kind = ReshardKind::kNone;
    return plan;
  }
  const bool even = EvenOverAll(from, global, num_partitions) && EvenOverAll(to, global, num_partitions);
  if (!even) {
    // A replicated value is cut where it is (padded); anything else is
    // gathered whole first.
    plan.cost = from.IsReplicated() ? 1 : 1 + Product(global);
    return plan;
  }
  const std::vector<ShardRegion> held = Regions(from, global, num_partitions);
  const std::vector<ShardRegion> wanted = Regions(to, global, num_partitions);
  const int64_t local = Product(held.front().sizes);

  // Nothing to move, or a local slice.
  bool inside = true;
  for (size_t p = 0; p < held.size() && inside; ++p) inside = Inside(wanted[p], held[p]);
  if (inside) {
    plan.slice_offsets = SliceOffsets(held, wanted);
    plan.kind = plan.slice_offsets.empty() ? ReshardKind::kNone : ReshardKind::kLocalSlice;
    plan.cost = plan.slice_offsets.empty() ? 0 : 1;
    return plan;
  }
  if (!from.IsTiled()) return plan;  // unreachable: a replicated part holds every other

  // Every device takes another's part whole: one shard moves.
  if (to.IsTiled() && held.front().sizes == wanted.front().sizes) {
    plan.pairs = PermutePairs(held, wanted);
    if (!plan.pairs.empty()) {
      plan.kind = ReshardKind::kPermute;
      plan.cost = 1 + local;
      return plan;
    }
  }

  // A cut moves between dimensions: (pieces - 1) / pieces of a shard moves.
  const size_t rank = global.size();
  for (size_t concat = 0; concat < rank; ++concat) {
    const int64_t pieces = from.tile_dims()[concat];
    if (pieces == 1) continue;
    std::vector<std::vector<int64_t>> groups = DimensionGroups(from, concat);
    for (size_t split = 0; split < rank; ++split) {
      if (split == concat || !AllToAllGives(held, wanted, groups, split, concat, global)) continue;
      plan.kind = ReshardKind::kAllToAll;
      plan.split_dim = split;
      plan.concat_dim = concat;
      plan.groups = std::move(groups);
      plan.cost = 1 + local - local / pieces;
      return plan;
    }
  }

  // Gathers along the fewest cut dimensions whose union holds each new part
  // (all of them, at worst), then a local slice.
  std::vector<size_t> cut;
  for (size_t d = 0; d < rank; ++d) {
    if (from.tile_dims()[d] > 1) cut.push_back(d);
  }
  int64_t best = -1;
  for (uint32_t mask = 1; mask < (1u << cut.size()); ++mask) {
    int64_t factor = 1;
    std::vector<ShardRegion> gathered = held;
    std::vector<size_t> dims;
    for (size_t i = 0; i < cut.size(); ++i) {
      if ((mask & (1u << i)) == 0) continue;
      dims.push_back(cut[i]);
      factor *= from.tile_dims()[cut[i]];
      for (ShardRegion& region : gathered) {
        region.offsets[cut[i]] = 0;
        region.sizes[cut[i]] = global[cut[i]];
      }
    }
    if (best >= 0 && factor >= best) continue;
    bool holds = true;
    for (size_t p = 0; p < gathered.size() && holds; ++p) holds = Inside(wanted[p], gathered[p]);
    if (!holds) continue;
    best = factor;
    plan.kind = ReshardKind::kGatherSome;
    plan.gathered = std::move(dims);
    plan.slice_offsets = SliceOffsets(gathered, wanted);
    plan.cost = 1 + local * (factor - 1);
  }
  return plan;
}

std::optional<size_t> ScatterDimension(const Sharding& partial, const Sharding& wanted,
                                       const std::vector<std::vector<int64_t>>& groups,
                                       std::span<const int64_t> global, int64_t num_partitions) {
  if (groups.empty() || !EvenOverAll(partial, global, num_partitions) ||
      !EvenOverAll(wanted, global, num_partitions)) {
    return std::nullopt;
  }
  const std::vector<ShardRegion> held = Regions(partial, global, num_partitions);
  const std::vector<ShardRegion> parts = Regions(wanted, global, num_partitions);
  for (size_t d = 0; d < global.size(); ++d) {
    if (EachKeepsItsPiece(held, parts, groups, d, [](ShardRegion&) {})) return d;
  }
  return std::nullopt;
}

bool SlicesLocally(const Sharding& from, const Sharding& to, std::span<const int64_t> global,
                   int64_t num_partitions) {
  if (!DividesEvenly(from, global) || !DividesEvenly(to, global)) return false;
  ReshardKind kind = PlanReshard(from, to, global, num_partitions).kind;
  return kind == ReshardKind::kNone || kind == ReshardKind::kLocalSlice;
}

int64_t ReshardCost(const Sharding& from, const Sharding& to, std::span<const int64_t> shape, int64_t num_partitions) {
  return PlanReshard(from, to, shape, num_partitions).cost;
}

}  // namespace berth::spmd::internal
