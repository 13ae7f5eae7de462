// OpPartitioner's rules for gather and scatter-add.
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

bool OpPartitioner::Gather(const shlo::Operation& op) {
  const shlo::GatherDimensionNumbers* numbers = op.gather_dimension_numbers();
  const shlo::Type& indices_type = op.operand(1)->type();
  const shlo::Type& type = op.result(0)->type();
  if (numbers == nullptr || op.num_operands() != 2 || !IsStaticTensor(op.operand(0)->type()) ||
      !IsStaticTensor(indices_type) || !IsStaticTensor(type)) {
    return false;
  }
  const std::vector<int64_t> batch = GatherBatchDims(*numbers, indices_type.rank());
  std::vector<bool> keep(static_cast<size_t>(indices_type.rank()), false);
  for (int64_t d : batch) {
    const std::vector<int64_t>& batching = numbers->start_indices_batching_dims;
    keep[static_cast<size_t>(d)] = std::find(batching.begin(), batching.end(), d) == batching.end();
  }
  if (GatherFromCutTable(op, *numbers, batch, keep)) return true;
  std::optional<DeviceValue> indices = KeepingCutsOn(op.operand(1), keep);
  if (!indices || indices->sharding.IsReplicated()) return false;
  std::optional<Sharding> result =
      CarriedOver(indices->sharding, keep.size(), GatherResultSource(*numbers, type.rank(), batch),
                  program_.num_partitions());
  if (!result) return false;
  const DeviceValue operand = Layout(op.operand(0), Sharding::Replicated());
  Define(op.result(0), {EmitLocal(op, {operand, *indices}, {*result})[0], type, *result});
  return true;
}

bool OpPartitioner::GatherFromCutTable(const shlo::Operation& op, const shlo::GatherDimensionNumbers& numbers,
                                       const std::vector<int64_t>& batch, const std::vector<bool>& keep) {
  std::optional<DeviceValue> table = TiledOperand(op.operand(0));
  if (!table || !numbers.operand_batching_dims.empty()) return false;
  const shlo::Type& type = op.result(0)->type();
  const std::vector<int64_t> global = table->GlobalShape();
  const std::span<const int64_t> slice_sizes = op.GetI64Array("slice_sizes");
  const std::vector<int64_t>& map = numbers.start_index_map;
  const size_t rank = global.size();
  const int64_t n = program_.num_partitions();
  const std::vector<int64_t> table_tiles = TilesOf(table->sharding, rank);
  std::vector<size_t> cut;
  for (size_t d = 0; d < rank; ++d) {
    if (table_tiles[d] == 1) continue;
    const auto& collapsed = numbers.collapsed_slice_dims;
    if (std::find(collapsed.begin(), collapsed.end(), static_cast<int64_t>(d)) == collapsed.end() ||
        std::find(map.begin(), map.end(), static_cast<int64_t>(d)) == map.end() || slice_sizes.size() != rank ||
        slice_sizes[d] != 1) {
      return false;
    }
    cut.push_back(d);
  }
  if (cut.empty() || shlo::IsComplex(type.element_type())) return false;
  std::optional<DeviceValue> indices = KeepingCutsOn(op.operand(1), keep);
  if (!indices) return false;
  const size_t indices_rank = keep.size();
  // Result tiles from the indices' cuts; the table's parts are summed.
  const std::vector<int64_t> source = GatherResultSource(numbers, type.rank(), batch);
  const std::vector<int64_t> index_tiles = TilesOf(indices->sharding, indices_rank);
  const std::vector<Coords> index_coords = DeviceCoords(indices->sharding, indices_rank, n);
  const std::vector<Coords> table_coords = DeviceCoords(table->sharding, rank, n);
  std::vector<int64_t> result_tiles;
  for (int64_t s : source) result_tiles.push_back(s >= 0 ? index_tiles[static_cast<size_t>(s)] : 1);
  std::vector<Coords> result_coords(static_cast<size_t>(n));
  std::vector<int64_t> part(static_cast<size_t>(n), 0);
  int64_t splits = 1;
  for (size_t d : cut) splits *= table_tiles[d];
  for (size_t p = 0; p < static_cast<size_t>(n); ++p) {
    for (int64_t s : source) result_coords[p].push_back(s >= 0 ? index_coords[p][static_cast<size_t>(s)] : 0);
    for (size_t d : cut) part[p] = part[p] * table_tiles[d] + table_coords[p][d];
  }
  std::optional<std::vector<std::vector<int64_t>>> groups = SumGroups(result_coords, part, splits);
  std::optional<Sharding> result = FromDeviceCoords(result_tiles, result_coords);
  if (!groups || groups->empty() || !result) return false;
  DeviceValue gathered{"", type, *result};
  const std::vector<int64_t> local_result = gathered.LocalShape();
  if (std::accumulate(local_result.begin(), local_result.end(), int64_t{1}, std::multiplies<>()) >=
      std::accumulate(global.begin(), global.end(), int64_t{1}, std::multiplies<>())) {
    return false;  // gathering the table moves less
  }
  // Per index component: the clamp bound, and this device's offset of its
  // part and that part's size where the component picks a cut dimension.
  std::vector<int64_t> upper, sizes;
  std::vector<std::vector<int64_t>> offsets;
  for (int64_t d : map) {
    const size_t dim = static_cast<size_t>(d);
    upper.push_back(global[dim] - slice_sizes[dim]);
    sizes.push_back(global[dim] / table_tiles[dim]);
    std::vector<int64_t> table_offsets;
    if (table_tiles[dim] > 1) {
      for (int64_t p = 0; p < n; ++p) table_offsets.push_back(table->sharding.RegionOf(p, global)->offsets[dim]);
    }
    offsets.push_back(std::move(table_offsets));
  }
  const shlo::ElementType index_type = indices->global_type.element_type();
  const std::vector<int64_t> index_shape = indices->LocalShape();
  DeviceProgram::LocalIndices local = program_.LocalizeIndices(indices->name, index_shape, index_type,
                                                               numbers.index_vector_dim, upper, offsets, sizes);
  gathered.name = EmitLocal(op, {*table, {local.indices, indices->global_type, indices->sharding}}, {*result})[0];
  // The mask's dimensions are the indices' but the vector's, each landing
  // where the result takes that indices dimension.
  std::vector<int64_t> rows, dims;
  for (size_t i = 0; i < indices_rank; ++i) {
    if (static_cast<int64_t>(i) == numbers.index_vector_dim) continue;
    rows.push_back(index_shape[i]);
    dims.push_back(std::find(source.begin(), source.end(), static_cast<int64_t>(i)) - source.begin());
  }
  gathered.name = program_.ZeroWhereNot(local.inside, rows, gathered.name, local_result, type.element_type(), dims);
  Define(op.result(0), Combined(op.result(0), std::move(gathered), *groups,
                                shlo::IsBool(type.element_type()) ? "stablehlo.or" : "stablehlo.add"));
  return true;
}

bool OpPartitioner::ScatterAdd(const shlo::Operation& op) {
  const shlo::ScatterDimensionNumbers* numbers = op.scatter_dimension_numbers();
  if (numbers == nullptr || op.num_operands() != 3 || op.num_results() != 1) return false;
  const shlo::Value* input = op.operand(0);
  const shlo::Value* indices = op.operand(1);
  const shlo::Value* updates = op.operand(2);
  const shlo::Type& type = op.result(0)->type();
  if (!IsStaticTensor(input->type()) || !IsStaticTensor(indices->type()) || !IsStaticTensor(updates->type()) ||
      !IsStaticTensor(type) || shlo::IsBool(type.element_type()) || ReducerOf(op) != "stablehlo.add") {
    return false;
  }
  const int64_t indices_rank = indices->type().rank();
  std::vector<int64_t> batch;
  std::vector<bool> keep(static_cast<size_t>(indices_rank), false);
  const std::vector<int64_t>& batching = numbers->scatter_indices_batching_dims;
  for (int64_t d = 0; d < indices_rank; ++d) {
    if (d == numbers->index_vector_dim) continue;
    batch.push_back(d);
    keep[static_cast<size_t>(d)] = std::find(batching.begin(), batching.end(), d) == batching.end();
  }
  std::optional<DeviceValue> index_parts = KeepingCutsOn(indices, keep);
  if (!index_parts || index_parts->sharding.IsReplicated()) return false;
  // Update dimension j that is not a window dimension runs along the
  // indices' next batch dimension.
  const std::vector<int64_t>& window = numbers->update_window_dims;
  std::vector<int64_t> source(static_cast<size_t>(updates->type().rank()), -1);
  size_t next = 0;
  for (size_t j = 0; j < source.size() && next < batch.size(); ++j) {
    if (std::find(window.begin(), window.end(), static_cast<int64_t>(j)) == window.end()) source[j] = batch[next++];
  }
  const int64_t n = program_.num_partitions();
  std::optional<Sharding> update_layout = CarriedOver(index_parts->sharding, keep.size(), source, n);
  if (!update_layout) return false;
  // The devices whose partial sums add up: one of each part of the indices.
  const std::vector<int64_t> tiles = TilesOf(index_parts->sharding, keep.size());
  const std::vector<Coords> coords = DeviceCoords(index_parts->sharding, keep.size(), n);
  std::vector<int64_t> part(coords.size(), 0);
  int64_t splits = 1;
  for (size_t d = 0; d < keep.size(); ++d) {
    splits *= tiles[d];
    for (size_t p = 0; p < coords.size(); ++p) part[p] = part[p] * tiles[d] + coords[p][d];
  }
  std::optional<std::vector<std::vector<int64_t>>> groups =
      SumGroups(std::vector<Coords>(coords.size()), part, splits);
  if (!groups) return false;
  const DeviceValue update_parts = Layout(updates, *update_layout);
  const std::string whole_type = type.ToString();
  const DeviceValue zeros{
      program_.Emit("\"stablehlo.constant\"() {value = dense<" +
                    std::string(shlo::IsFloat(type.element_type()) ? "0.0" : "0") + "> : " + whole_type +
                    "} : () -> " + whole_type),
      input->type(), Sharding::Replicated()};
  std::string partial = EmitLocal(op, {zeros, *index_parts, update_parts}, {Sharding::Replicated()})[0];
  if (!groups->empty()) {
    partial = program_.AllReduce(partial, type.shape(), type.element_type(), *groups, "stablehlo.add");
  }
  const DeviceValue whole = Layout(input, Sharding::Replicated());
  Define(op.result(0), {program_.Emit("\"stablehlo.add\"(" + whole.name + ", " + partial + ") : (" + whole_type +
                                      ", " + whole_type + ") -> " + whole_type),
                        type, Sharding::Replicated()});
  return true;
}

}  // namespace berth::spmd::internal
