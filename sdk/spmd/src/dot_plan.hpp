// How a dot_general runs per device: the batch, contracting and free
// dimensions of its operands, and the layouts under which each device can
// multiply what it holds.
#ifndef BERTH_SPMD_SRC_DOT_PLAN_HPP_
#define BERTH_SPMD_SRC_DOT_PLAN_HPP_

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "berth/spmd/sharding.hpp"
#include "berth/stablehlo/attributes.hpp"

namespace berth::spmd::internal {

// dot_general's operands split into batch, contracting and free dims.
struct DotDims {
  std::vector<int64_t> lhs_batch, rhs_batch, lhs_contracting, rhs_contracting, lhs_free, rhs_free;
};

DotDims DotDimsOf(const stablehlo::DotDimensionNumbers& numbers, int64_t lhs_rank, int64_t rhs_rank);

// How a dot_general runs per device: its operands' layouts, its result's,
// and, where the contracting dimensions are split, the groups whose partial
// results are summed.
struct DotPlan {
  Sharding lhs, rhs, result;
  std::vector<std::vector<int64_t>> sum_groups;
};

// The plan for operands laid out as `lhs` and `rhs`, when each device can
// multiply what it holds: batch and contracting dims cut alike on both
// sides, on the same devices.
std::optional<DotPlan> PlanDot(const Sharding& lhs, const Sharding& rhs, const DotDims& dims,
                               std::span<const int64_t> lhs_shape, std::span<const int64_t> rhs_shape,
                               int64_t num_partitions);

// The layout of one operand that matches `other`'s batch and contracting
// cuts, its free dims cut as `own` cuts them (whole when `own` is nullptr):
// what the operand is resharded to when only `other` keeps its layout.
std::optional<Sharding> MatchingOperand(const Sharding& other, size_t other_rank, const std::vector<int64_t>& other_batch,
                                        const std::vector<int64_t>& other_contracting, const Sharding* own,
                                        size_t rank, const std::vector<int64_t>& batch,
                                        const std::vector<int64_t>& contracting, const std::vector<int64_t>& free,
                                        int64_t num_partitions);

}  // namespace berth::spmd::internal

#endif  // BERTH_SPMD_SRC_DOT_PLAN_HPP_
