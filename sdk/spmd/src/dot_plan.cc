#include "src/dot_plan.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include "src/device_program.hpp"
#include "src/layout_math.hpp"

namespace berth::spmd::internal {

namespace shlo = berth::stablehlo;
using shlo::OpKind;

DotDims DotDimsOf(const shlo::DotDimensionNumbers& numbers, int64_t lhs_rank, int64_t rhs_rank) {
  DotDims dims{numbers.lhs_batching_dimensions, numbers.rhs_batching_dimensions,
               numbers.lhs_contracting_dimensions, numbers.rhs_contracting_dimensions, {}, {}};
  auto free = [](int64_t rank, const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
    std::vector<int64_t> out;
    for (int64_t d = 0; d < rank; ++d) {
      if (std::find(a.begin(), a.end(), d) == a.end() && std::find(b.begin(), b.end(), d) == b.end()) {
        out.push_back(d);
      }
    }
    return out;
  };
  dims.lhs_free = free(lhs_rank, dims.lhs_batch, dims.lhs_contracting);
  dims.rhs_free = free(rhs_rank, dims.rhs_batch, dims.rhs_contracting);
  return dims;
}

// The plan for operands laid out as `lhs` and `rhs`, when each device can
// multiply what it holds: batch and contracting dims cut alike on both
// sides, on the same devices. Dimensions that do not divide evenly are
// padded alike on both sides (with zeros: padding adds nothing to a sum).
std::optional<DotPlan> PlanDot(const Sharding& lhs, const Sharding& rhs, const DotDims& dims,
                               std::span<const int64_t> lhs_shape, std::span<const int64_t> rhs_shape,
                               int64_t num_partitions) {
  const std::vector<int64_t> lt = TilesOf(lhs, lhs_shape.size()), rt = TilesOf(rhs, rhs_shape.size());
  const std::vector<Coords> lc = DeviceCoords(lhs, lhs_shape.size(), num_partitions);
  const std::vector<Coords> rc = DeviceCoords(rhs, rhs_shape.size(), num_partitions);
  auto paired = [&](const std::vector<int64_t>& l, const std::vector<int64_t>& r) {
    for (size_t i = 0; i < l.size(); ++i) {
      const size_t a = static_cast<size_t>(l[i]), b = static_cast<size_t>(r[i]);
      if (lt[a] != rt[b]) return false;
      for (size_t p = 0; p < lc.size(); ++p) {
        if (lc[p][a] != rc[p][b]) return false;
      }
    }
    return true;
  };
  if (!paired(dims.lhs_batch, dims.rhs_batch) || !paired(dims.lhs_contracting, dims.rhs_contracting)) {
    return std::nullopt;
  }
  // The result's dims: batch, lhs free, rhs free.
  std::vector<int64_t> tiles;
  for (int64_t d : dims.lhs_batch) tiles.push_back(lt[static_cast<size_t>(d)]);
  for (int64_t d : dims.lhs_free) tiles.push_back(lt[static_cast<size_t>(d)]);
  for (int64_t d : dims.rhs_free) tiles.push_back(rt[static_cast<size_t>(d)]);
  std::vector<Coords> result_coords(lc.size());
  std::vector<int64_t> contracting_index(lc.size(), 0);
  for (size_t p = 0; p < lc.size(); ++p) {
    for (int64_t d : dims.lhs_batch) result_coords[p].push_back(lc[p][static_cast<size_t>(d)]);
    for (int64_t d : dims.lhs_free) result_coords[p].push_back(lc[p][static_cast<size_t>(d)]);
    for (int64_t d : dims.rhs_free) result_coords[p].push_back(rc[p][static_cast<size_t>(d)]);
    for (int64_t d : dims.lhs_contracting) {
      contracting_index[p] = contracting_index[p] * lt[static_cast<size_t>(d)] + lc[p][static_cast<size_t>(d)];
    }
  }
  std::optional<Sharding> result = FromDeviceCoords(tiles, result_coords);
  if (!result) return std::nullopt;
  DotPlan plan{lhs, rhs, *result, {}};
  int64_t splits = 1;
  for (int64_t d : dims.lhs_contracting) splits *= lt[static_cast<size_t>(d)];
  std::optional<std::vector<std::vector<int64_t>>> groups = SumGroups(result_coords, contracting_index, splits);
  if (!groups) return std::nullopt;
  plan.sum_groups = std::move(*groups);
  return plan;
}

// The layout of one operand that matches `other`'s batch and contracting
// cuts, its free dims cut as `own` cuts them (whole when `own` is nullptr):
// what the operand is resharded to when only `other` keeps its layout.
std::optional<Sharding> MatchingOperand(const Sharding& other, size_t other_rank, const std::vector<int64_t>& other_batch,
                                        const std::vector<int64_t>& other_contracting, const Sharding* own,
                                        size_t rank, const std::vector<int64_t>& batch,
                                        const std::vector<int64_t>& contracting, const std::vector<int64_t>& free,
                                        int64_t num_partitions) {
  const std::vector<int64_t> ot = TilesOf(other, other_rank);
  const std::vector<Coords> oc = DeviceCoords(other, other_rank, num_partitions);
  std::vector<int64_t> tiles(rank, 1);
  std::vector<Coords> coords(oc.size(), Coords(rank, 0));
  auto copy = [&](const std::vector<int64_t>& from, const std::vector<int64_t>& to) {
    for (size_t i = 0; i < from.size(); ++i) {
      tiles[static_cast<size_t>(to[i])] = ot[static_cast<size_t>(from[i])];
      for (size_t p = 0; p < oc.size(); ++p) {
        coords[p][static_cast<size_t>(to[i])] = oc[p][static_cast<size_t>(from[i])];
      }
    }
  };
  copy(other_batch, batch);
  copy(other_contracting, contracting);
  if (own != nullptr) {
    const std::vector<int64_t> own_tiles = TilesOf(*own, rank);
    const std::vector<Coords> own_coords = DeviceCoords(*own, rank, num_partitions);
    for (int64_t d : free) {
      tiles[static_cast<size_t>(d)] = own_tiles[static_cast<size_t>(d)];
      for (size_t p = 0; p < coords.size(); ++p) coords[p][static_cast<size_t>(d)] = own_coords[p][static_cast<size_t>(d)];
    }
  }
  return FromDeviceCoords(tiles, coords);
}

}  // namespace berth::spmd::internal
