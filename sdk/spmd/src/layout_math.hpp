// Layouts as each device's tile coordinates: building a sharding from them,
// carrying cuts from an operand to a result, the groups whose partial results
// add up.
#ifndef BERTH_SPMD_SRC_LAYOUT_MATH_HPP_
#define BERTH_SPMD_SRC_LAYOUT_MATH_HPP_

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "berth/spmd/sharding.hpp"

namespace berth::spmd::internal {

using Coords = std::vector<int64_t>;

// Each device's tile coordinates along the array's `rank` dimensions (all
// zero for a replicated sharding).
std::vector<Coords> DeviceCoords(const Sharding& sharding, size_t rank, int64_t num_partitions);

// The tiles along each of the array's `rank` dimensions (1 where uncut).
std::vector<int64_t> TilesOf(const Sharding& sharding, size_t rank);

// The sharding in which device p holds tile coords[p] of `tiles`, the
// devices of one tile forming a replicated subgroup; nullopt unless every
// tile is held by the same number of devices.
std::optional<Sharding> FromDeviceCoords(const std::vector<int64_t>& tiles, const std::vector<Coords>& coords);

// The devices whose partial results add up: those holding one result tile
// (equal `result_coords`) split into `splits` parts (`part[p]`); the j-th
// device of each part sum together. Empty when nothing is split; nullopt
// when the parts are of unequal sizes.
std::optional<std::vector<std::vector<int64_t>>> SumGroups(const std::vector<Coords>& result_coords,
                                                           const std::vector<int64_t>& part, int64_t splits);

// The layout of a result whose dimension j is operand dimension source[j]
// (-1: a dimension the operand lacks, whole): the operand's cuts carried
// over, on the same devices.
std::optional<Sharding> CarriedOver(const Sharding& operand, size_t operand_rank, const std::vector<int64_t>& source,
                                    int64_t num_partitions);

}  // namespace berth::spmd::internal

#endif  // BERTH_SPMD_SRC_LAYOUT_MATH_HPP_
