#include "src/wanted_layouts.hpp"

#include <algorithm>
#include <span>

#include "src/device_program.hpp"
#include "src/dot_plan.hpp"
#include "src/layout_math.hpp"
#include "src/op_traits.hpp"

namespace berth::spmd::internal {
namespace {

namespace shlo = berth::stablehlo;
using shlo::OpKind;

class BackwardWalk {
 public:
  explicit BackwardWalk(int64_t num_partitions) : n_(num_partitions) {}

  // `value` wants `layout`, unless a later use already asked or the
  // partitioner could not hold it without padding.
  void Want(const shlo::Value* value, const std::optional<Sharding>& layout) {
    if (!layout || wanted_.contains(value)) return;
    const shlo::Type& type = value->type();
    if (!type.IsTensor() || !type.HasStaticShape() || type.rank() == 0) return;
    const Sharding sharding = layout->Canonical();
    if (!sharding.IsTiled() || !sharding.CheckRank(type.rank()).ok()) return;
    const std::vector<int64_t>& devices = sharding.devices();
    if (static_cast<int64_t>(devices.size()) != n_ || *std::max_element(devices.begin(), devices.end()) >= n_) {
      return;
    }
    if (!DividesEvenly(sharding, type.shape())) return;
    wanted_.emplace(value, sharding);
  }

  // `value` wants `wanted` (a layout of an array of `wanted_rank` dims)
  // with its dimension d taken from dimension source[d] (-1: whole).
  void WantCarried(const shlo::Value* value, const Sharding& wanted, size_t wanted_rank,
                   const std::vector<int64_t>& source) {
    Want(value, CarriedOver(wanted, wanted_rank, source, n_));
  }

  // Carries what `op`'s results want back to its operands.
  void CarryBack(const shlo::Operation& op) {
    if (op.num_results() == 0) return;
    auto found = wanted_.find(op.result(0));
    if (found == wanted_.end()) return;
    const Sharding& wanted = found->second;
    const shlo::Type& type = op.result(0)->type();
    const size_t rank = static_cast<size_t>(type.rank());
    if (IsElementwise(op.kind())) {
      for (const shlo::Value* operand : op.operands()) {
        const shlo::Type& operand_type = operand->type();
        if (operand_type.IsTensor() && operand_type.HasStaticShape() &&
            std::ranges::equal(operand_type.shape(), type.shape())) {
          Want(operand, wanted);
        }
      }
    } else if (op.kind() == OpKind::kTranspose) {
      // Result dimension j is operand dimension permutation[j].
      std::span<const int64_t> permutation = op.GetI64Array("permutation");
      std::vector<int64_t> source(rank, -1);
      for (size_t j = 0; j < permutation.size(); ++j) source[static_cast<size_t>(permutation[j])] = static_cast<int64_t>(j);
      WantCarried(op.operand(0), wanted, rank, source);
    } else if (op.kind() == OpKind::kBroadcastInDim) {
      // Operand dimension i is result dimension dims[i] unless stretched
      // from size 1.
      const shlo::Type& operand_type = op.operand(0)->type();
      std::span<const int64_t> dims = op.GetI64Array("broadcast_dimensions");
      std::vector<int64_t> source(dims.size(), -1);
      for (size_t i = 0; i < dims.size(); ++i) {
        if (operand_type.dim(static_cast<int64_t>(i)) == type.dim(dims[i])) source[i] = dims[i];
      }
      WantCarried(op.operand(0), wanted, rank, source);
    } else if (op.kind() == OpKind::kReduce) {
      // Kept input dimensions are the result's, in order; reduced ones whole.
      const size_t inputs = op.num_results();
      if (op.num_operands() != 2 * inputs) return;
      const shlo::Type& input_type = op.operand(0)->type();
      std::span<const int64_t> reduced = op.GetI64Array("dimensions");
      std::vector<int64_t> source;
      int64_t kept = 0;
      for (int64_t d = 0; d < input_type.rank(); ++d) {
        const bool is_reduced = std::find(reduced.begin(), reduced.end(), d) != reduced.end();
        source.push_back(is_reduced ? -1 : kept++);
      }
      for (size_t i = 0; i < inputs; ++i) WantCarried(op.operand(i), wanted, rank, source);
    } else if (op.kind() == OpKind::kDotGeneral && op.dot_dimension_numbers() != nullptr) {
      // The result's dimensions: batch, lhs free, rhs free; contracting
      // dimensions are whole (a split one would need a sum).
      const shlo::Type& lhs = op.operand(0)->type();
      const shlo::Type& rhs = op.operand(1)->type();
      const DotDims dims = DotDimsOf(*op.dot_dimension_numbers(), lhs.rank(), rhs.rank());
      std::vector<int64_t> lhs_source(static_cast<size_t>(lhs.rank()), -1);
      std::vector<int64_t> rhs_source(static_cast<size_t>(rhs.rank()), -1);
      int64_t next = 0;
      for (size_t k = 0; k < dims.lhs_batch.size(); ++k, ++next) {
        lhs_source[static_cast<size_t>(dims.lhs_batch[k])] = next;
        rhs_source[static_cast<size_t>(dims.rhs_batch[k])] = next;
      }
      for (int64_t d : dims.lhs_free) lhs_source[static_cast<size_t>(d)] = next++;
      for (int64_t d : dims.rhs_free) rhs_source[static_cast<size_t>(d)] = next++;
      WantCarried(op.operand(0), wanted, rank, lhs_source);
      WantCarried(op.operand(1), wanted, rank, rhs_source);
    } else if (op.kind() == OpKind::kGather && op.gather_dimension_numbers() != nullptr && op.num_operands() == 2) {
      // The result's batch dimensions are the indices' (but their batching
      // dimensions, which the gather rule keeps whole).
      const shlo::GatherDimensionNumbers& numbers = *op.gather_dimension_numbers();
      const int64_t indices_rank = op.operand(1)->type().rank();
      const std::vector<int64_t> result_source =
          GatherResultSource(numbers, type.rank(), GatherBatchDims(numbers, indices_rank));
      const std::vector<int64_t>& batching = numbers.start_indices_batching_dims;
      std::vector<int64_t> source(static_cast<size_t>(indices_rank), -1);
      for (size_t j = 0; j < result_source.size(); ++j) {
        const int64_t d = result_source[j];
        if (d >= 0 && std::find(batching.begin(), batching.end(), d) == batching.end()) {
          source[static_cast<size_t>(d)] = static_cast<int64_t>(j);
        }
      }
      WantCarried(op.operand(1), wanted, rank, source);
    }
  }

  WantedLayouts Take() { return std::move(wanted_); }

 private:
  int64_t n_;
  WantedLayouts wanted_;
};

}  // namespace

WantedLayouts WantLayouts(const shlo::Block& body, const std::vector<std::optional<Sharding>>& results,
                          const ConstraintLayout& constraint_layout, int64_t num_partitions) {
  BackwardWalk walk(num_partitions);
  const std::span<shlo::Operation* const> ops = body.operations();
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
    const shlo::Operation& op = **it;
    if (shlo::IsTerminator(op.kind())) {
      for (size_t i = 0; i < op.num_operands() && i < results.size(); ++i) walk.Want(op.operand(i), results[i]);
      continue;
    }
    if (std::optional<Sharding> asked = constraint_layout(op)) {
      walk.Want(op.operand(0), asked);
      continue;
    }
    walk.CarryBack(op);
  }
  return walk.Take();
}

}  // namespace berth::spmd::internal
