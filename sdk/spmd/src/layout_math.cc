#include "src/layout_math.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "berth/stablehlo/ir.hpp"
#include "src/tile_math.hpp"

namespace berth::spmd::internal {

namespace shlo = berth::stablehlo;
using shlo::OpKind;

// Each device's tile coordinates along the array's `rank` dimensions (all
// zero for a replicated sharding).
std::vector<Coords> DeviceCoords(const Sharding& sharding, size_t rank, int64_t num_partitions) {
  std::vector<Coords> coords(static_cast<size_t>(num_partitions), Coords(rank, 0));
  if (!sharding.IsTiled()) return coords;
  for (int64_t p = 0; p < num_partitions; ++p) {
    Coords tile = *sharding.TileIndexOf(p);
    std::copy_n(tile.begin(), rank, coords[static_cast<size_t>(p)].begin());
  }
  return coords;
}

std::vector<int64_t> TilesOf(const Sharding& sharding, size_t rank) {
  std::vector<int64_t> tiles(rank);
  for (size_t d = 0; d < rank; ++d) tiles[d] = sharding.TilesAlong(static_cast<int64_t>(d));
  return tiles;
}

// The sharding in which device p holds tile coords[p] of `tiles`, the
// devices of one tile forming a replicated subgroup; nullopt unless every
// tile is held by the same number of devices.
std::optional<Sharding> FromDeviceCoords(const std::vector<int64_t>& tiles, const std::vector<Coords>& coords) {
  const int64_t count = std::accumulate(tiles.begin(), tiles.end(), int64_t{1}, std::multiplies<>());
  std::vector<std::vector<int64_t>> holders(static_cast<size_t>(count));
  for (size_t p = 0; p < coords.size(); ++p) {
    holders[static_cast<size_t>(Ravel(coords[p], tiles))].push_back(static_cast<int64_t>(p));
  }
  const size_t per_tile = holders[0].size();
  std::vector<int64_t> devices;
  for (const std::vector<int64_t>& group : holders) {
    if (group.size() != per_tile || group.empty()) return std::nullopt;
    devices.insert(devices.end(), group.begin(), group.end());
  }
  if (count == 1) return Sharding::Replicated();
  std::vector<int64_t> dims = tiles;
  std::vector<SubgroupKind> subgroups;
  if (per_tile > 1) {
    dims.push_back(static_cast<int64_t>(per_tile));
    subgroups.push_back(SubgroupKind::kReplicated);
  }
  Result<Sharding> sharding = Sharding::Tiled(std::move(dims), std::move(devices), std::move(subgroups));
  if (!sharding.ok()) return std::nullopt;
  return sharding->Canonical();
}

// The devices whose partial results add up: those holding one result tile
// (equal `result_coords`) split into `splits` parts (`part[p]`); the j-th
// device of each part sum together. Empty when nothing is split; nullopt
// when the parts are of unequal sizes.
std::optional<std::vector<std::vector<int64_t>>> SumGroups(const std::vector<Coords>& result_coords,
                                                           const std::vector<int64_t>& part, int64_t splits) {
  std::vector<std::vector<int64_t>> groups;
  if (splits == 1) return groups;
  std::map<Coords, std::vector<std::vector<int64_t>>> parts;
  for (size_t p = 0; p < result_coords.size(); ++p) {
    std::vector<std::vector<int64_t>>& by_part = parts[result_coords[p]];
    by_part.resize(static_cast<size_t>(splits));
    by_part[static_cast<size_t>(part[p])].push_back(static_cast<int64_t>(p));
  }
  for (const auto& [coords, by_part] : parts) {
    for (size_t j = 0; j < by_part[0].size(); ++j) {
      std::vector<int64_t> group;
      for (const std::vector<int64_t>& devices : by_part) {
        if (devices.size() != by_part[0].size()) return std::nullopt;
        group.push_back(devices[j]);
      }
      groups.push_back(std::move(group));
    }
  }
  return groups;
}

// What moving a value from `from` to `to` costs: nothing when equal, little
// when every device slices its own part, else the whole array's size.
// The layout of a result whose dimension j is operand dimension source[j]
// (-1: a dimension the operand lacks, whole): the operand's cuts carried
// over, on the same devices.
std::optional<Sharding> CarriedOver(const Sharding& operand, size_t operand_rank, const std::vector<int64_t>& source,
                                    int64_t num_partitions) {
  const std::vector<int64_t> tiles = TilesOf(operand, operand_rank);
  const std::vector<Coords> coords = DeviceCoords(operand, operand_rank, num_partitions);
  std::vector<int64_t> result_tiles(source.size(), 1);
  std::vector<Coords> result_coords(coords.size(), Coords(source.size(), 0));
  for (size_t j = 0; j < source.size(); ++j) {
    if (source[j] < 0) continue;
    result_tiles[j] = tiles[static_cast<size_t>(source[j])];
    for (size_t p = 0; p < coords.size(); ++p) result_coords[p][j] = coords[p][static_cast<size_t>(source[j])];
  }
  return FromDeviceCoords(result_tiles, result_coords);
}

}  // namespace berth::spmd::internal
