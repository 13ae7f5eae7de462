// OpPartitioner's rules for ops that move data: transpose, broadcast_in_dim,
// slice, reverse, dynamic_slice / dynamic_update_slice, pad, concatenate,
// reshape.
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

std::optional<DeviceValue> OpPartitioner::TiledOperand(const shlo::Value* operand, bool padded) {
  if (!IsStaticTensor(operand->type())) return std::nullopt;
  DeviceValue value = Current(operand);
  if (!value.sharding.IsTiled() || (!padded && !DividesEvenly(value.sharding, operand->type().shape()))) {
    return std::nullopt;
  }
  return value;
}

bool OpPartitioner::Transpose(const shlo::Operation& op) {
  std::optional<DeviceValue> operand = TiledOperand(op.operand(0), /*padded=*/true);
  if (!operand || !IsStaticTensor(op.result(0)->type())) return false;
  std::span<const int64_t> permutation = op.GetI64Array("permutation");
  std::vector<int64_t> source(permutation.begin(), permutation.end());
  std::optional<Sharding> result = CarriedOver(operand->sharding, source.size(), source, program_.num_partitions());
  if (!result) return false;
  Define(op.result(0), {EmitLocal(op, {*operand}, {*result})[0], op.result(0)->type(), *result});
  return true;
}

bool OpPartitioner::BroadcastInDim(const shlo::Operation& op) {
  const shlo::Type& type = op.result(0)->type();
  if (!IsStaticTensor(type) || !IsStaticTensor(op.operand(0)->type())) return false;
  std::span<const int64_t> dims = op.GetI64Array("broadcast_dimensions");
  // Result dimension dims[i] is operand dimension i, unless stretched
  // from size 1 (a stretched dimension is never cut: even tiling).
  std::vector<int64_t> source(static_cast<size_t>(type.rank()), -1), back(dims.size(), -1);
  for (size_t i = 0; i < dims.size(); ++i) {
    if (op.operand(0)->type().dim(static_cast<int64_t>(i)) != type.dim(dims[i])) continue;
    source[static_cast<size_t>(dims[i])] = static_cast<int64_t>(i);
    back[i] = dims[i];
  }
  const int64_t n = program_.num_partitions();
  if (auto wanted = wanted_.find(op.result(0)); wanted != wanted_.end()) {
    std::optional<Sharding> part = CarriedOver(wanted->second, source.size(), back, n);
    const Sharding current = Current(op.operand(0)).sharding;
    if (part && (current == *part || SlicesLocally(current, *part, op.operand(0)->type().shape(), n))) {
      const DeviceValue local = Layout(op.operand(0), part->Canonical());
      Define(op.result(0), {EmitLocal(op, {local}, {wanted->second})[0], type, wanted->second});
      return true;
    }
  }
  // Padding (zeros) broadcasts to padding; a cut stretched dimension (of
  // size 1, so padded) would be lost: gathered first.
  std::optional<DeviceValue> operand = TiledOperand(op.operand(0), /*padded=*/true);
  if (!operand) return false;
  const std::vector<int64_t> tiles = TilesOf(operand->sharding, dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    if (back[i] < 0 && tiles[i] > 1) return false;
  }
  std::optional<Sharding> result = CarriedOver(operand->sharding, dims.size(), source, n);
  if (!result) return false;
  Define(op.result(0), {EmitLocal(op, {*operand}, {*result})[0], type, *result});
  return true;
}

std::optional<DeviceValue> OpPartitioner::KeepingCutsOn(const shlo::Value* value, const std::vector<bool>& keep) {
  if (!IsStaticTensor(value->type())) return std::nullopt;
  const DeviceValue current = Current(value);
  if (current.sharding.IsReplicated()) return current;
  std::optional<DeviceValue> tiled = TiledOperand(value);
  if (!tiled) return std::nullopt;
  const size_t rank = keep.size();
  std::vector<int64_t> tiles = TilesOf(tiled->sharding, rank);
  std::vector<Coords> coords = DeviceCoords(tiled->sharding, rank, program_.num_partitions());
  for (size_t d = 0; d < rank; ++d) {
    if (keep[d]) continue;
    tiles[d] = 1;
    for (Coords& c : coords) c[d] = 0;
  }
  std::optional<Sharding> target = FromDeviceCoords(tiles, coords);
  if (!target) return std::nullopt;
  return Layout(value, target->Canonical());
}

template <typename WholeTriple>
std::optional<std::vector<bool>> OpPartitioner::DimsLeftWhole(const shlo::Operation& op,
                                                              const std::array<const char*, 3>& names,
                                                              WholeTriple whole) const {
  const shlo::Type& type = op.operand(0)->type();
  if (!IsStaticTensor(type) || !IsStaticTensor(op.result(0)->type())) return std::nullopt;
  const size_t rank = type.shape().size();
  std::array<std::span<const int64_t>, 3> values;
  for (size_t k = 0; k < 3; ++k) {
    values[k] = op.GetI64Array(names[k]);
    if (values[k].size() != rank) return std::nullopt;
  }
  std::vector<bool> keep(rank);
  for (size_t d = 0; d < rank; ++d) {
    const Triple want = whole(d);
    keep[d] = values[0][d] == want[0] && values[1][d] == want[1] && values[2][d] == want[2];
  }
  return keep;
}

bool OpPartitioner::Slice(const shlo::Operation& op) {
  const std::span<const int64_t> shape = op.operand(0)->type().shape();
  std::optional<std::vector<bool>> keep = DimsLeftWhole(op, {"start_indices", "limit_indices", "strides"},
                                                        [&](size_t d) { return Triple{0, shape[d], 1}; });
  if (!keep) return false;
  std::optional<DeviceValue> operand = KeepingCutsOn(op.operand(0), *keep);
  if (!operand) return false;
  std::span<const int64_t> start = op.GetI64Array("start_indices");
  std::span<const int64_t> limit = op.GetI64Array("limit_indices");
  std::span<const int64_t> strides = op.GetI64Array("strides");
  const size_t rank = shape.size();
  const std::vector<int64_t> local = operand->LocalShape();
  auto list = [](const std::vector<int64_t>& v) {
    std::string out = "array<i64";
    for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : ": ") + std::to_string(v[i]);
    return out + ">";
  };
  std::vector<int64_t> local_limit(limit.begin(), limit.end());
  for (size_t d = 0; d < rank; ++d) {
    if ((*keep)[d]) local_limit[d] = local[d];
  }
  DeviceValue out{"", op.result(0)->type(), operand->sharding};
  out.name = program_.Emit("\"stablehlo.slice\"(" + operand->name + ") {limit_indices = " + list(local_limit) +
                           ", start_indices = " + list({start.begin(), start.end()}) +
                           ", strides = " + list({strides.begin(), strides.end()}) + "} : (" +
                           operand->LocalType() + ") -> " + out.LocalType());
  Define(op.result(0), std::move(out));
  return true;
}

bool OpPartitioner::Reverse(const shlo::Operation& op) {
  const shlo::Type& type = op.operand(0)->type();
  if (!IsStaticTensor(type) || !IsStaticTensor(op.result(0)->type())) return false;
  std::vector<bool> keep(type.shape().size(), true);
  for (int64_t d : op.GetI64Array("dimensions")) {
    if (d < 0 || d >= type.rank()) return false;
    keep[static_cast<size_t>(d)] = false;
  }
  std::optional<DeviceValue> operand = KeepingCutsOn(op.operand(0), keep);
  if (!operand || operand->sharding.IsReplicated()) return false;
  Define(op.result(0), {EmitLocal(op, {*operand}, {operand->sharding})[0], op.result(0)->type(), operand->sharding});
  return true;
}

bool OpPartitioner::DynamicSlice(const shlo::Operation& op) {
  const shlo::Type& type = op.operand(0)->type();
  if (!IsStaticTensor(type) || !IsStaticTensor(op.result(0)->type())) return false;
  const std::span<const int64_t> shape = type.shape();
  const std::span<const int64_t> sizes = op.GetI64Array("slice_sizes");
  if (sizes.size() != shape.size() || op.num_operands() != shape.size() + 1) return false;
  if (DynamicSliceOfCutDims(op, shape, sizes)) return true;
  std::vector<bool> keep(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) keep[d] = sizes[d] == shape[d];
  std::optional<DeviceValue> operand = KeepingCutsOn(op.operand(0), keep);
  if (!operand || operand->sharding.IsReplicated()) return false;
  const std::vector<int64_t> local = operand->LocalShape();
  std::string operands = operand->name, types = operand->LocalType(), local_sizes;
  for (size_t d = 0; d < shape.size(); ++d) {
    const DeviceValue start = Layout(op.operand(d + 1), Sharding::Replicated());
    operands += ", " + start.name;
    types += ", " + start.LocalType();
    local_sizes += (d ? ", " : ": ") + std::to_string(keep[d] ? local[d] : sizes[d]);
  }
  DeviceValue out{"", op.result(0)->type(), operand->sharding};
  out.name = program_.Emit("\"stablehlo.dynamic_slice\"(" + operands + ") {slice_sizes = array<i64" + local_sizes +
                           ">} : (" + types + ") -> " + out.LocalType());
  Define(op.result(0), std::move(out));
  return true;
}

bool OpPartitioner::DynamicSliceOfCutDims(const shlo::Operation& op, std::span<const int64_t> shape,
                                          std::span<const int64_t> sizes) {
  std::optional<DeviceValue> operand = TiledOperand(op.operand(0));
  const shlo::Type& type = op.result(0)->type();
  if (!operand || shlo::IsComplex(type.element_type())) return false;
  const size_t rank = shape.size();
  const int64_t n = program_.num_partitions();
  const std::vector<int64_t> tiles = TilesOf(operand->sharding, rank);
  std::vector<size_t> picked;
  for (size_t d = 0; d < rank; ++d) {
    if (tiles[d] == 1 || sizes[d] == shape[d]) continue;
    if (sizes[d] != 1) return false;
    picked.push_back(d);
  }
  if (picked.empty()) return false;
  const std::vector<Coords> coords = DeviceCoords(operand->sharding, rank, n);
  std::vector<int64_t> result_tiles(rank, 1), part(static_cast<size_t>(n), 0);
  std::vector<Coords> result_coords(static_cast<size_t>(n), Coords(rank, 0));
  int64_t splits = 1;
  for (size_t d = 0; d < rank; ++d) {
    const bool is_picked = std::find(picked.begin(), picked.end(), d) != picked.end();
    if (is_picked) splits *= tiles[d];
    if (!is_picked) result_tiles[d] = tiles[d];
    for (size_t p = 0; p < static_cast<size_t>(n); ++p) {
      if (is_picked) {
        part[p] = part[p] * tiles[d] + coords[p][d];
      } else {
        result_coords[p][d] = coords[p][d];
      }
    }
  }
  std::optional<std::vector<std::vector<int64_t>>> groups = SumGroups(result_coords, part, splits);
  std::optional<Sharding> result = FromDeviceCoords(result_tiles, result_coords);
  if (!groups || groups->empty() || !result) return false;
  const std::vector<int64_t> local = operand->LocalShape();
  std::string operands = operand->name, types = operand->LocalType(), local_sizes, inside;
  for (size_t d = 0; d < rank; ++d) {
    DeviceValue start = Layout(op.operand(d + 1), Sharding::Replicated());
    const shlo::ElementType index_type = start.global_type.element_type();
    if (std::find(picked.begin(), picked.end(), d) != picked.end()) {
      std::vector<int64_t> offsets;
      for (int64_t p = 0; p < n; ++p) offsets.push_back(operand->sharding.RegionOf(p, shape)->offsets[d]);
      DeviceProgram::LocalIndices shifted =
          program_.LocalizeIndices(start.name, {}, index_type, 0, std::vector<int64_t>{shape[d] - 1}, {offsets},
                                   std::vector<int64_t>{local[d]});
      start.name = shifted.indices;
      inside = inside.empty() ? shifted.inside
                              : program_.Emit("\"stablehlo.and\"(" + inside + ", " + shifted.inside +
                                              ") : (tensor<i1>, tensor<i1>) -> tensor<i1>");
    }
    operands += ", " + start.name;
    types += ", " + start.LocalType();
    local_sizes += (d ? ", " : ": ") + std::to_string(sizes[d] == shape[d] ? local[d] : sizes[d]);
  }
  DeviceValue out{"", type, *result};
  out.name = program_.Emit("\"stablehlo.dynamic_slice\"(" + operands + ") {slice_sizes = array<i64" + local_sizes +
                           ">} : (" + types + ") -> " + out.LocalType());
  out.name = program_.ZeroWhereNot(inside, {}, out.name, out.LocalShape(), type.element_type(), {});
  Define(op.result(0), Combined(op.result(0), std::move(out), *groups,
                                shlo::IsBool(type.element_type()) ? "stablehlo.or" : "stablehlo.add"));
  return true;
}

bool OpPartitioner::DynamicUpdateSlice(const shlo::Operation& op) {
  const shlo::Type& type = op.operand(0)->type();
  const shlo::Type& update_type = op.operand(1)->type();
  if (!IsStaticTensor(type) || !IsStaticTensor(update_type) || !IsStaticTensor(op.result(0)->type())) return false;
  const std::span<const int64_t> shape = type.shape();
  const std::span<const int64_t> update = update_type.shape();
  if (update.size() != shape.size() || op.num_operands() != shape.size() + 2) return false;
  std::vector<bool> keep(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) keep[d] = update[d] == shape[d];
  std::optional<Sharding> target = CommonLayoutKeeping({op.operand(0), op.operand(1)}, keep);
  if (!target) return false;
  std::vector<DeviceValue> operands = {Layout(op.operand(0), *target), Layout(op.operand(1), *target)};
  for (size_t d = 0; d < shape.size(); ++d) operands.push_back(Layout(op.operand(d + 2), Sharding::Replicated()));
  Define(op.result(0), {EmitLocal(op, operands, {*target})[0], op.result(0)->type(), *target});
  return true;
}

bool OpPartitioner::Pad(const shlo::Operation& op) {
  std::optional<std::vector<bool>> keep = DimsLeftWhole(
      op, {"edge_padding_low", "edge_padding_high", "interior_padding"}, [](size_t) { return Triple{0, 0, 0}; });
  if (!keep) return false;
  std::optional<DeviceValue> operand = KeepingCutsOn(op.operand(0), *keep);
  if (!operand) return false;
  DeviceValue value = Layout(op.operand(1), Sharding::Replicated());
  Define(op.result(0), {EmitLocal(op, {*operand, value}, {operand->sharding})[0], op.result(0)->type(),
                        operand->sharding});
  return true;
}

bool OpPartitioner::Concatenate(const shlo::Operation& op) {
  const shlo::Type& type = op.result(0)->type();
  std::optional<int64_t> dimension = op.GetInt("dimension");
  if (!IsStaticTensor(type) || !dimension || *dimension < 0 || *dimension >= type.rank()) return false;
  std::vector<bool> keep(static_cast<size_t>(type.rank()), true);
  keep[static_cast<size_t>(*dimension)] = false;
  std::optional<Sharding> target;
  for (const shlo::Value* operand : op.operands()) {
    if (!IsStaticTensor(operand->type()) || Current(operand).sharding.IsReplicated()) continue;
    std::optional<DeviceValue> kept = KeepingCutsOn(operand, keep);
    if (!kept) return false;
    target = kept->sharding;
    break;
  }
  if (!target) return false;  // all whole: nothing to keep
  std::vector<DeviceValue> operands;
  for (const shlo::Value* operand : op.operands()) {
    if (!IsStaticTensor(operand->type())) return false;
    operands.push_back(Layout(operand, *target));
  }
  Define(op.result(0), {EmitLocal(op, operands, {*target})[0], type, *target});
  return true;
}

bool OpPartitioner::Reshape(const shlo::Operation& op) {
  const shlo::Type& from = op.operand(0)->type();
  const shlo::Type& to = op.result(0)->type();
  if (!IsStaticTensor(from) || !IsStaticTensor(to)) return false;
  std::optional<DeviceValue> current = TiledOperand(op.operand(0));
  if (!current) return false;
  const std::span<const int64_t> a = from.shape(), b = to.shape();
  const std::vector<int64_t> tiles = TilesOf(current->sharding, a.size());
  std::vector<bool> keep(a.size(), false);
  std::vector<int64_t> source(b.size(), -1);
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    const size_t first_a = i, first_b = j;
    int64_t pa = 1, pb = 1;
    if (i < a.size()) pa *= a[i++];
    if (j < b.size()) pb *= b[j++];
    while (pa != pb && (i < a.size() || j < b.size())) {
      if ((pa < pb && i < a.size()) || j >= b.size()) {
        pa *= a[i++];
      } else {
        pb *= b[j++];
      }
    }
    if (pa != pb) return false;  // sizes disagree: not a valid reshape
    // The major dimensions: the first of more than one element (leading
    // 1s do not change where elements lie).
    size_t major_a = first_a, major_b = first_b;
    while (major_a + 1 < i && a[major_a] == 1) ++major_a;
    while (major_b + 1 < j && b[major_b] == 1) ++major_b;
    bool others_whole = true;
    for (size_t d = first_a; d < i; ++d) others_whole = others_whole && (d == major_a || tiles[d] == 1);
    if (major_a < i && major_b < j && others_whole && b[major_b] % tiles[major_a] == 0) {
      keep[major_a] = true;
      if (tiles[major_a] > 1) source[major_b] = static_cast<int64_t>(major_a);
    }
  }
  std::optional<DeviceValue> operand = KeepingCutsOn(op.operand(0), keep);
  if (!operand) return false;
  std::optional<Sharding> result = CarriedOver(operand->sharding, a.size(), source, program_.num_partitions());
  if (!result) return false;
  Define(op.result(0), {EmitLocal(op, {*operand}, {*result})[0], to, *result});
  return true;
}

}  // namespace berth::spmd::internal
