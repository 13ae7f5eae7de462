// OpPartitioner's rules for ops that compute: elementwise ops, dot_general,
// reduce, sort, convolution.
#include "src/op_partitioner.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <numeric>

#include "berth/spmd/entry_shardings.hpp"
#include "berth/spmd/gspmd.hpp"
#include "berth/stablehlo/parser.hpp"
#include "src/dot_plan.hpp"
#include "src/layout_math.hpp"
#include "src/op_traits.hpp"
#include "src/reshard_plan.hpp"

namespace berth::spmd::internal {

namespace shlo = berth::stablehlo;
using shlo::OpKind;

bool OpPartitioner::Elementwise(const shlo::Operation& op) {
  const shlo::Type& result_type = op.result(0)->type();
  if (!IsStaticTensor(result_type) || result_type.rank() == 0) return false;
  for (const shlo::Value* result : op.results()) {
    if (result->type().shape().size() != result_type.shape().size() ||
        !std::equal(result->type().shape().begin(), result->type().shape().end(), result_type.shape().begin())) {
      return false;
    }
  }
  std::optional<Sharding> target;
  for (const shlo::Value* operand : op.operands()) {
    const shlo::Type& type = operand->type();
    if (!IsStaticTensor(type)) return false;
    if (type.rank() == 0) continue;
    if (!std::equal(type.shape().begin(), type.shape().end(), result_type.shape().begin(),
                    result_type.shape().end())) {
      return false;
    }
    Sharding sharding = Current(operand).sharding;
    if (!sharding.IsTiled()) continue;
    if (DividesEvenly(sharding, type.shape())) {
      if (!target || !DividesEvenly(*target, type.shape())) target = sharding;
    } else if (!target) {
      target = sharding;
    }
  }
  if (!target) return false;
  shlo::OpRewrite rewrite;
  for (const shlo::Value* operand : op.operands()) {
    DeviceValue local = Layout(operand, operand->type().rank() == 0 ? Sharding::Replicated() : *target);
    rewrite.operand_names.push_back(local.name);
    rewrite.operand_types.push_back(local.LocalType());
  }
  for (const shlo::Value* result : op.results()) {
    rewrite.result_types.push_back(DeviceValue{"", result->type(), *target}.LocalType());
  }
  std::vector<std::string> names = Emit(op, std::move(rewrite));
  for (size_t i = 0; i < op.num_results(); ++i) {
    DeviceValue result{names[i], op.result(i)->type(), *target};
    if (!KeepsZeroPadding(op)) result.name = program_.FillPadding(result);
    Define(op.result(i), std::move(result));
  }
  return true;
}

bool OpPartitioner::DotGeneral(const shlo::Operation& op) {
  const shlo::DotDimensionNumbers* numbers = op.dot_dimension_numbers();
  const shlo::Value* lhs = op.operand(0);
  const shlo::Value* rhs = op.operand(1);
  const shlo::Type& result_type = op.result(0)->type();
  if (numbers == nullptr || !IsStaticTensor(lhs->type()) || !IsStaticTensor(rhs->type()) ||
      !IsStaticTensor(result_type)) {
    return false;
  }
  const std::span<const int64_t> ls = lhs->type().shape(), rs = rhs->type().shape();
  const DotDims dims = DotDimsOf(*numbers, lhs->type().rank(), rhs->type().rank());
  const int64_t n = program_.num_partitions();
  const Sharding lcur = Current(lhs).sharding;
  const Sharding rcur = Current(rhs).sharding;

  std::vector<DotPlan> candidates;
  auto consider = [&](const std::optional<Sharding>& l, const std::optional<Sharding>& r) {
    if (!l || !r) return;
    if (std::optional<DotPlan> plan = PlanDot(*l, *r, dims, ls, rs, n)) candidates.push_back(std::move(*plan));
  };
  consider(lcur, rcur);
  // Each side matched to the other, its free dims whole or kept as cut.
  for (const Sharding* own : {static_cast<const Sharding*>(nullptr), &rcur}) {
    consider(lcur, MatchingOperand(lcur, ls.size(), dims.lhs_batch, dims.lhs_contracting, own, rs.size(),
                                   dims.rhs_batch, dims.rhs_contracting, dims.rhs_free, n));
  }
  for (const Sharding* own : {static_cast<const Sharding*>(nullptr), &lcur}) {
    consider(MatchingOperand(rcur, rs.size(), dims.rhs_batch, dims.rhs_contracting, own, ls.size(),
                             dims.lhs_batch, dims.lhs_contracting, dims.lhs_free, n),
             rcur);
  }
  if (candidates.empty()) return false;
  auto cost = [&](const DotPlan& plan) {
    return ReshardCost(lcur, plan.lhs, ls, n) + ReshardCost(rcur, plan.rhs, rs, n);
  };
  const DotPlan& plan = *std::min_element(candidates.begin(), candidates.end(),
                                          [&](const DotPlan& a, const DotPlan& b) { return cost(a) < cost(b); });
  const DeviceValue l = Layout(lhs, plan.lhs);
  const DeviceValue r = Layout(rhs, plan.rhs);
  DeviceValue product{"", result_type, plan.result};
  // The product before the sum has the result's tiles; its local shape is
  // the same.
  shlo::OpRewrite rewrite;
  rewrite.operand_names = {l.name, r.name};
  rewrite.operand_types = {l.LocalType(), r.LocalType()};
  rewrite.result_types = {product.LocalType()};
  product.name = Emit(op, std::move(rewrite))[0];
  if (!plan.sum_groups.empty()) {
    product = Combined(op.result(0), std::move(product), plan.sum_groups,
                       shlo::IsBool(result_type.element_type()) ? "stablehlo.or" : "stablehlo.add");
  }
  // Rows of zero padding times the other side need not be zero (inf, NaN,
  // -0.0): padding of the result is zeroed.
  product.name = program_.FillPadding(product);
  Define(op.result(0), std::move(product));
  return true;
}

DeviceValue OpPartitioner::Combined(const shlo::Value* result, DeviceValue partial,
                                    const std::vector<std::vector<int64_t>>& groups, std::string_view combiner) {
  const shlo::ElementType type = result->type().element_type();
  if (auto wanted = wanted_.find(result); wanted != wanted_.end()) {
    if (std::optional<size_t> dim = ScatterDimension(partial.sharding, wanted->second, groups,
                                                     result->type().shape(), program_.num_partitions())) {
      return {program_.ReduceScatter(partial.name, partial.LocalShape(), type, groups, combiner, *dim),
              result->type(), wanted->second};
    }
  }
  partial.name = program_.AllReduce(partial.name, partial.LocalShape(), type, groups, combiner);
  return partial;
}

std::vector<std::string> OpPartitioner::EmitLocal(const shlo::Operation& op, const std::vector<DeviceValue>& operands,
                                                  const std::vector<Sharding>& results) {
  shlo::OpRewrite rewrite;
  for (const DeviceValue& operand : operands) {
    rewrite.operand_names.push_back(operand.name);
    rewrite.operand_types.push_back(operand.LocalType());
  }
  for (size_t i = 0; i < op.num_results(); ++i) {
    rewrite.result_types.push_back(DeviceValue{"", op.result(i)->type(), results[i]}.LocalType());
  }
  return Emit(op, std::move(rewrite));
}

bool OpPartitioner::Reduce(const shlo::Operation& op) {
  if (op.num_operands() != 2 || op.num_results() != 1) return false;
  std::optional<DeviceValue> input = TiledOperand(op.operand(0), /*padded=*/true);
  const shlo::Type& type = op.result(0)->type();
  if (!input || !IsStaticTensor(type)) return false;
  const size_t rank = op.operand(0)->type().shape().size();
  std::span<const int64_t> reduced = op.GetI64Array("dimensions");
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < static_cast<int64_t>(rank); ++d) {
    if (std::find(reduced.begin(), reduced.end(), d) == reduced.end()) kept.push_back(d);
  }
  const int64_t n = program_.num_partitions();
  std::optional<Sharding> result = CarriedOver(input->sharding, rank, kept, n);
  if (!result) return false;
  const std::vector<int64_t> tiles = TilesOf(input->sharding, rank);
  const std::vector<Coords> coords = DeviceCoords(input->sharding, rank, n);
  std::vector<Coords> result_coords(coords.size());
  std::vector<int64_t> part(coords.size(), 0);
  int64_t splits = 1;
  for (int64_t d : reduced) splits *= tiles[static_cast<size_t>(d)];
  for (size_t p = 0; p < coords.size(); ++p) {
    for (int64_t d : kept) result_coords[p].push_back(coords[p][static_cast<size_t>(d)]);
    for (int64_t d : reduced) part[p] = part[p] * tiles[static_cast<size_t>(d)] + coords[p][static_cast<size_t>(d)];
  }
  std::optional<std::vector<std::vector<int64_t>>> groups = SumGroups(result_coords, part, splits);
  const std::string_view reducer = ReducerOf(op);
  if (!groups || (!groups->empty() && (reducer.empty() || !IsIdentity(op.operand(1), reducer)))) return false;
  DeviceValue init = Layout(op.operand(1), Sharding::Replicated());
  // Padding along reduced dimensions reduces as the identity; padding
  // along kept ones reduces to it, and is zeroed after.
  std::vector<size_t> reduced_dims(reduced.begin(), reduced.end());
  input->name = program_.FillPadding(*input, init.name, reduced_dims);
  DeviceValue out{EmitLocal(op, {*input, init}, {*result})[0], type, *result};
  if (!groups->empty()) out = Combined(op.result(0), std::move(out), *groups, reducer);
  out.name = program_.FillPadding(out);
  Define(op.result(0), std::move(out));
  return true;
}

std::optional<Sharding> OpPartitioner::CommonLayoutKeeping(const std::vector<const shlo::Value*>& values,
                                                           const std::vector<bool>& keep) {
  for (const shlo::Value* value : values) {
    if (Current(value).sharding.IsReplicated()) continue;
    std::optional<DeviceValue> kept = KeepingCutsOn(value, keep);
    if (!kept) return std::nullopt;
    return kept->sharding.IsReplicated() ? std::nullopt : std::optional<Sharding>(kept->sharding);
  }
  return std::nullopt;
}

bool OpPartitioner::SameStaticShapes(const std::vector<const shlo::Value*>& values) {
  if (values.empty() || !IsStaticTensor(values[0]->type())) return false;
  const std::span<const int64_t> shape = values[0]->type().shape();
  return std::all_of(values.begin(), values.end(), [&](const shlo::Value* v) {
    return IsStaticTensor(v->type()) && std::equal(shape.begin(), shape.end(), v->type().shape().begin(),
                                                   v->type().shape().end());
  });
}

bool OpPartitioner::ReduceOverWholeDims(const shlo::Operation& op) {
  const size_t n = op.num_operands() / 2;
  if (n == 0 || op.num_operands() != 2 * n || op.num_results() != n) return false;
  std::vector<const shlo::Value*> inputs;
  for (size_t i = 0; i < n; ++i) inputs.push_back(op.operand(i));
  if (!SameStaticShapes(inputs)) return false;
  for (const shlo::Value* result : op.results()) {
    if (!IsStaticTensor(result->type())) return false;
  }
  const size_t rank = inputs[0]->type().shape().size();
  std::span<const int64_t> reduced = op.GetI64Array("dimensions");
  std::vector<bool> keep(rank, true);
  for (int64_t d : reduced) {
    if (d < 0 || d >= static_cast<int64_t>(rank)) return false;
    keep[static_cast<size_t>(d)] = false;
  }
  std::vector<int64_t> kept;
  for (size_t d = 0; d < rank; ++d) {
    if (keep[d]) kept.push_back(static_cast<int64_t>(d));
  }
  std::optional<Sharding> target = CommonLayoutKeeping(inputs, keep);
  if (!target) return false;
  std::optional<Sharding> result = CarriedOver(*target, rank, kept, program_.num_partitions());
  if (!result) return false;
  std::vector<DeviceValue> operands;
  for (const shlo::Value* input : inputs) operands.push_back(Layout(input, *target));
  for (size_t i = n; i < 2 * n; ++i) operands.push_back(Layout(op.operand(i), Sharding::Replicated()));
  std::vector<std::string> names = EmitLocal(op, operands, std::vector<Sharding>(n, *result));
  for (size_t i = 0; i < n; ++i) Define(op.result(i), {names[i], op.result(i)->type(), *result});
  return true;
}

bool OpPartitioner::Sort(const shlo::Operation& op) {
  std::vector<const shlo::Value*> operands(op.operands().begin(), op.operands().end());
  std::optional<int64_t> dimension = op.GetInt("dimension");
  if (!SameStaticShapes(operands) || !dimension) return false;
  const int64_t rank = operands[0]->type().rank();
  if (*dimension < 0 || *dimension >= rank) return false;
  std::vector<bool> keep(static_cast<size_t>(rank), true);
  keep[static_cast<size_t>(*dimension)] = false;
  std::optional<Sharding> target = CommonLayoutKeeping(operands, keep);
  if (!target) return false;
  std::vector<DeviceValue> local;
  for (const shlo::Value* operand : operands) local.push_back(Layout(operand, *target));
  std::vector<std::string> names = EmitLocal(op, local, std::vector<Sharding>(op.num_results(), *target));
  for (size_t i = 0; i < op.num_results(); ++i) Define(op.result(i), {names[i], op.result(i)->type(), *target});
  return true;
}

bool OpPartitioner::Convolution(const shlo::Operation& op) {
  const shlo::ConvDimensionNumbers* dims = op.conv_dimension_numbers();
  if (dims == nullptr || op.num_operands() != 2 || op.num_results() != 1) return false;
  if (op.GetInt("batch_group_count").value_or(1) != 1) return false;
  const shlo::Value* input = op.operand(0);
  const shlo::Value* kernel = op.operand(1);
  const shlo::Type& type = op.result(0)->type();
  if (!IsStaticTensor(input->type()) || !IsStaticTensor(kernel->type()) || !IsStaticTensor(type)) return false;
  const size_t rank = static_cast<size_t>(type.rank());
  if (input->type().shape().size() != rank || kernel->type().shape().size() != rank) return false;
  auto keep_only = [&](int64_t dim) {
    std::vector<bool> keep(rank, false);
    keep[static_cast<size_t>(dim)] = true;
    return keep;
  };
  // The side that is cut along its parallel dimension, and the dimension
  // of the output it lands on.
  const bool features_alone = op.GetInt("feature_group_count").value_or(1) == 1;
  struct Side {
    const shlo::Value* cut;
    const shlo::Value* whole;
    int64_t from, to;
  };
  std::vector<Side> sides = {{input, kernel, dims->input_batch_dimension, dims->output_batch_dimension}};
  if (features_alone) {
    sides.push_back({kernel, input, dims->kernel_output_feature_dimension, dims->output_feature_dimension});
  }
  for (const Side& side : sides) {
    if (Current(side.cut).sharding.IsReplicated()) continue;
    std::optional<DeviceValue> cut = KeepingCutsOn(side.cut, keep_only(side.from));
    if (!cut || cut->sharding.IsReplicated()) continue;
    std::vector<int64_t> source(rank, -1);
    source[static_cast<size_t>(side.to)] = side.from;
    std::optional<Sharding> result = CarriedOver(cut->sharding, rank, source, program_.num_partitions());
    if (!result) return false;
    const DeviceValue whole = Layout(side.whole, Sharding::Replicated());
    std::vector<DeviceValue> operands = side.cut == input ? std::vector<DeviceValue>{*cut, whole}
                                                          : std::vector<DeviceValue>{whole, *cut};
    Define(op.result(0), {EmitLocal(op, operands, {*result})[0], type, *result});
    return true;
  }
  return false;
}

}  // namespace berth::spmd::internal
