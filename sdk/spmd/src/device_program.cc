#include "src/device_program.hpp"

#include <algorithm>

namespace berth::spmd::internal {
namespace {

namespace shlo = berth::stablehlo;

std::string Join(std::span<const int64_t> values, const char* separator) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) out += (i ? separator : "") + std::to_string(values[i]);
  return out;
}

std::string I64Array(std::span<const int64_t> values) {
  return values.empty() ? "array<i64>" : "array<i64: " + Join(values, ", ") + ">";
}

std::string ZeroLiteral(shlo::ElementType type) {
  if (shlo::IsBool(type)) return "false";
  if (shlo::IsComplex(type)) return "(0.0, 0.0)";
  if (shlo::IsFloat(type)) return "0.0";
  return "0";
}

// `rows` (of equal lengths) as an i64 matrix attribute named `name`.
std::string DenseI64(const char* name, const std::vector<std::vector<int64_t>>& rows) {
  std::string text;
  for (size_t g = 0; g < rows.size(); ++g) text += (g ? ", [" : "[") + Join(rows[g], ", ") + "]";
  return std::string(name) + " = dense<[" + text + "]> : tensor<" + std::to_string(rows.size()) + "x" +
         std::to_string(rows.empty() ? 0 : rows[0].size()) + "xi64>";
}

std::string ReplicaGroups(const std::vector<std::vector<int64_t>>& groups) {
  return DenseI64("replica_groups", groups);
}

}  // namespace

std::string TensorType(std::span<const int64_t> dims, shlo::ElementType type) {
  std::string out = "tensor<";
  for (int64_t dim : dims) out += std::to_string(dim) + "x";
  return out + std::string(shlo::ElementTypeName(type)) + ">";
}

std::vector<int64_t> DeviceValue::GlobalShape() const {
  if (!global_type.IsTensor()) return {};
  return std::vector<int64_t>(global_type.shape().begin(), global_type.shape().end());
}

std::vector<int64_t> DeviceValue::LocalShape() const {
  std::vector<int64_t> global = GlobalShape();
  return sharding.IsTiled() ? *sharding.ShardShape(global) : global;
}

std::string DeviceValue::LocalType() const {
  return sharding.IsTiled() ? TensorType(LocalShape(), global_type.element_type()) : global_type.ToString();
}

std::string DeviceProgram::Emit(const std::string& op) {
  std::string name = NewName();
  body_ += "    " + name + " = " + op + "\n";
  return name;
}

std::vector<std::string> DeviceProgram::Emit(const std::string& op, size_t count) {
  if (count == 1) return {Emit(op)};
  std::string name = NewName();
  body_ += "    " + name + ":" + std::to_string(count) + " = " + op + "\n";
  std::vector<std::string> names;
  for (size_t i = 0; i < count; ++i) names.push_back(name + "#" + std::to_string(i));
  return names;
}

void DeviceProgram::EmitLine(const std::string& line) { body_ += "    " + line + "\n"; }

std::string DeviceProgram::NewName() { return "%v" + std::to_string(next_value_++); }

std::vector<std::string> DeviceProgram::EmitRewritten(const shlo::Operation& op, shlo::OpRewrite rewrite) {
  std::vector<std::string> names;
  if (op.num_results() > 0) {
    rewrite.result_name = NewName();
    for (size_t i = 0; i < op.num_results(); ++i) {
      names.push_back(op.num_results() == 1 ? rewrite.result_name : rewrite.result_name + "#" + std::to_string(i));
    }
  }
  rewrite.inner_prefix = "r" + std::to_string(next_rewrite_++) + "_";
  rewrite.depth = 2;
  body_ += "    " + shlo::Print(op, rewrite) + "\n";
  return names;
}

std::string DeviceProgram::I64Constant(std::span<const int64_t> values) {
  return Emit("\"stablehlo.constant\"() {value = dense<[" + Join(values, ", ") + "]> : tensor<" +
              std::to_string(values.size()) + "xi64>} : () -> tensor<" + std::to_string(values.size()) + "xi64>");
}

const std::string& DeviceProgram::PartitionId() {
  if (partition_id_.empty()) {
    std::string id = Emit("\"stablehlo.partition_id\"() : () -> tensor<ui32>");
    partition_id_ = Emit("\"stablehlo.convert\"(" + id + ") : (tensor<ui32>) -> tensor<i64>");
  }
  return partition_id_;
}

std::string DeviceProgram::Lookup(std::span<const int64_t> table) {
  std::vector<int64_t> key(table.begin(), table.end());
  auto known = lookups_.find(key);
  if (known != lookups_.end()) return known->second;
  std::string constant = I64Constant(table);
  std::string element = Emit("\"stablehlo.dynamic_slice\"(" + constant + ", " + PartitionId() +
                             ") {slice_sizes = array<i64: 1>} : (tensor<" + std::to_string(table.size()) +
                             "xi64>, tensor<i64>) -> tensor<1xi64>");
  std::string entry = Emit("\"stablehlo.reshape\"(" + element + ") : (tensor<1xi64>) -> tensor<i64>");
  lookups_.emplace(std::move(key), entry);
  return entry;
}

std::string DeviceProgram::Channel() {
  return "channel_handle = #stablehlo.channel_handle<handle = " + std::to_string(next_channel_++) + ", type = 1>";
}

std::string DeviceProgram::GatherAlong(const std::string& local_value, std::vector<int64_t>& local,
                                       shlo::ElementType type, const Sharding& sharding, size_t dim) {
  std::vector<int64_t> gathered = local;
  gathered[dim] *= sharding.tile_dims()[dim];
  std::string name = Emit("\"stablehlo.all_gather\"(" + local_value + ") {all_gather_dim = " + std::to_string(dim) +
                          " : i64, " + Channel() + ", " + ReplicaGroups(DimensionGroups(sharding, dim)) +
                          ", use_global_device_ids} : (" + TensorType(local, type) + ") -> " +
                          TensorType(gathered, type));
  local = std::move(gathered);
  return name;
}

// One all_gather per tiled dimension, then the padding sliced off.
std::string DeviceProgram::GatherToGlobal(const DeviceValue& value) {
  const shlo::ElementType type = value.global_type.element_type();
  const std::vector<int64_t> global = value.GlobalShape();
  std::vector<int64_t> local = value.LocalShape();
  std::string name = value.name;
  for (size_t d = 0; d < global.size(); ++d) {
    if (value.sharding.tile_dims()[d] > 1) name = GatherAlong(name, local, type, value.sharding, d);
  }
  if (local != global) {
    std::vector<int64_t> zeros(global.size(), 0), ones(global.size(), 1);
    name = Emit("\"stablehlo.slice\"(" + name + ") {limit_indices = " + I64Array(global) + ", start_indices = " +
                I64Array(zeros) + ", strides = " + I64Array(ones) + "} : (" + TensorType(local, type) + ") -> " +
                TensorType(global, type));
  }
  return name;
}

// Padded to whole tiles with zeros, then a dynamic slice at offsets looked
// up by partition_id.
std::string DeviceProgram::SliceToShard(const std::string& global_value, const DeviceValue& shape_of,
                                        const Sharding& target) {
  const shlo::ElementType type = shape_of.global_type.element_type();
  const std::vector<int64_t> global = shape_of.GlobalShape();
  const std::vector<int64_t> local = *target.ShardShape(global);
  std::string value = global_value;
  std::vector<int64_t> padded(global.size());
  for (size_t d = 0; d < global.size(); ++d) padded[d] = local[d] * target.tile_dims()[d];
  if (padded != global) {
    std::string zero = Emit("\"stablehlo.constant\"() {value = dense<" + ZeroLiteral(type) + "> : " +
                            TensorType({}, type) + "} : () -> " + TensorType({}, type));
    std::vector<int64_t> low(global.size(), 0), high(global.size());
    for (size_t d = 0; d < global.size(); ++d) high[d] = padded[d] - global[d];
    value = Emit("\"stablehlo.pad\"(" + value + ", " + zero + ") {edge_padding_high = " + I64Array(high) +
                 ", edge_padding_low = " + I64Array(low) + ", interior_padding = " + I64Array(low) + "} : (" +
                 TensorType(global, type) + ", " + TensorType({}, type) + ") -> " + TensorType(padded, type));
  }
  std::string offsets, index_types;
  for (size_t d = 0; d < global.size(); ++d) {
    std::vector<int64_t> table(static_cast<size_t>(num_partitions_), 0);
    for (int64_t p = 0; p < num_partitions_; ++p) {
      table[static_cast<size_t>(p)] = (*target.TileIndexOf(p))[d] * local[d];
    }
    offsets += ", " + Lookup(table);
    index_types += ", tensor<i64>";
  }
  return Emit("\"stablehlo.dynamic_slice\"(" + value + offsets + ") {slice_sizes = " + I64Array(local) + "} : (" +
              TensorType(padded, type) + index_types + ") -> " + TensorType(local, type));
}

std::string DeviceProgram::LocalSlice(const std::string& value, std::span<const int64_t> from_local,
                                      const std::vector<std::vector<int64_t>>& offsets,
                                      std::span<const int64_t> to_local, shlo::ElementType type) {
  std::string starts, index_types;
  for (const std::vector<int64_t>& table : offsets) {
    starts += ", " + Lookup(table);
    index_types += ", tensor<i64>";
  }
  return Emit("\"stablehlo.dynamic_slice\"(" + value + starts + ") {slice_sizes = " + I64Array(to_local) + "} : (" +
              TensorType(from_local, type) + index_types + ") -> " + TensorType(to_local, type));
}

DeviceValue DeviceProgram::Reshard(const DeviceValue& value, const Sharding& target) {
  DeviceValue out{value.name, value.global_type, target.Canonical()};
  const std::vector<int64_t> global = value.GlobalShape();
  const ReshardPlan plan = PlanReshard(value.sharding, out.sharding, global, num_partitions_);
  if (plan.kind == ReshardKind::kNone) return out;
  const shlo::ElementType type = value.global_type.element_type();
  std::vector<int64_t> local = value.LocalShape();
  const std::vector<int64_t> to_local = out.LocalShape();
  const std::string from_type = TensorType(local, type), to_type = TensorType(to_local, type);
  switch (plan.kind) {
    case ReshardKind::kNone: break;
    case ReshardKind::kLocalSlice: out.name = LocalSlice(value.name, local, plan.slice_offsets, to_local, type); break;
    case ReshardKind::kPermute: {
      std::vector<std::vector<int64_t>> pairs;
      for (const auto& [source, target_device] : plan.pairs) pairs.push_back({source, target_device});
      out.name = Emit("\"stablehlo.collective_permute\"(" + value.name + ") {" + Channel() + ", " +
                      DenseI64("source_target_pairs", pairs) + "} : (" + from_type + ") -> " + to_type);
      break;
    }
    case ReshardKind::kAllToAll:
      out.name = Emit("\"stablehlo.all_to_all\"(" + value.name + ") {" + Channel() +
                      ", concat_dimension = " + std::to_string(plan.concat_dim) + " : i64, " +
                      ReplicaGroups(plan.groups) + ", split_count = " + std::to_string(plan.groups.front().size()) +
                      " : i64, split_dimension = " + std::to_string(plan.split_dim) + " : i64} : (" + from_type +
                      ") -> " + to_type);
      break;
    case ReshardKind::kGatherSome:
      out.name = value.name;
      for (size_t d : plan.gathered) out.name = GatherAlong(out.name, local, type, value.sharding, d);
      if (!plan.slice_offsets.empty()) out.name = LocalSlice(out.name, local, plan.slice_offsets, to_local, type);
      break;
    case ReshardKind::kGatherWhole: {
      std::string whole = value.sharding.IsTiled() ? GatherToGlobal(value) : value.name;
      out.name = out.sharding.IsTiled() ? SliceToShard(whole, value, out.sharding) : whole;
      break;
    }
  }
  return out;
}

std::string DeviceProgram::FillPadding(const DeviceValue& value, const std::string& fill,
                                       std::span<const size_t> dims) {
  if (!value.sharding.IsTiled()) return value.name;
  const shlo::ElementType type = value.global_type.element_type();
  const std::vector<int64_t> global = value.GlobalShape();
  const std::vector<int64_t> local = value.LocalShape();
  const std::string index_type = TensorType(local, shlo::ElementType::kSI64);
  const std::string mask_type = TensorType(local, shlo::ElementType::kI1);
  // Which dimensions are masked, each with its per-device bounds' name.
  std::vector<std::pair<size_t, std::string>> bounds;
  for (size_t d = 0; d < global.size(); ++d) {
    if (global[d] % value.sharding.tile_dims()[d] == 0) continue;
    if (!dims.empty() && std::find(dims.begin(), dims.end(), d) == dims.end()) continue;
    // Each device's count of real elements along d.
    std::vector<int64_t> valid(static_cast<size_t>(num_partitions_));
    for (int64_t p = 0; p < num_partitions_; ++p) {
      const int64_t start = (*value.sharding.TileIndexOf(p))[d] * local[d];
      valid[static_cast<size_t>(p)] = std::clamp<int64_t>(global[d] - start, 0, local[d]);
    }
    bounds.emplace_back(d, Lookup(valid));
  }
  if (bounds.empty()) return value.name;
  std::string key = mask_type;
  for (const auto& [d, bound] : bounds) key += " " + std::to_string(d) + ":" + bound;
  std::string& mask = masks_[key];
  if (mask.empty()) {
    std::string combined;
    for (const auto& [d, bound] : bounds) {
      std::string iota = Emit("\"stablehlo.iota\"() {iota_dimension = " + std::to_string(d) + " : i64} : () -> " +
                              index_type);
      std::string limit = Emit("\"stablehlo.broadcast_in_dim\"(" + bound +
                               ") {broadcast_dimensions = array<i64>} : (tensor<i64>) -> " + index_type);
      std::string inside = Emit("\"stablehlo.compare\"(" + iota + ", " + limit +
                                ") {comparison_direction = #stablehlo<comparison_direction LT>} : (" + index_type +
                                ", " + index_type + ") -> " + mask_type);
      combined = combined.empty() ? inside
                                  : Emit("\"stablehlo.and\"(" + combined + ", " + inside + ") : (" + mask_type +
                                         ", " + mask_type + ") -> " + mask_type);
    }
    mask = combined;
  }
  const std::string local_type = TensorType(local, type);
  std::string filler =
      fill.empty() ? Emit("\"stablehlo.constant\"() {value = dense<" + ZeroLiteral(type) + "> : " + local_type +
                          "} : () -> " + local_type)
                   : Emit("\"stablehlo.broadcast_in_dim\"(" + fill + ") {broadcast_dimensions = array<i64>} : (" +
                          TensorType({}, type) + ") -> " + local_type);
  return Emit("\"stablehlo.select\"(" + mask + ", " + value.name + ", " + filler + ") : (" + mask_type + ", " +
              local_type + ", " + local_type + ") -> " + local_type);
}

DeviceProgram::LocalIndices DeviceProgram::LocalizeIndices(const std::string& indices, std::span<const int64_t> shape,
                                                            shlo::ElementType type, int64_t vector_dim,
                                                            std::span<const int64_t> upper,
                                                            const std::vector<std::vector<int64_t>>& offsets,
                                                            std::span<const int64_t> part) {
  const bool implicit = vector_dim == static_cast<int64_t>(shape.size());
  const std::string scalar = TensorType({}, type), full = TensorType(shape, type);
  const int64_t components = static_cast<int64_t>(upper.size());
  const std::string vector_type = TensorType(std::vector<int64_t>{components}, type);
  const std::string along = implicit ? "array<i64>" : "array<i64: " + std::to_string(vector_dim) + ">";
  const std::string from_type = implicit ? scalar : vector_type;
  auto spread = [&](const std::string& vector) {
    return Emit("\"stablehlo.broadcast_in_dim\"(" + vector + ") {broadcast_dimensions = " + along + "} : (" +
                from_type + ") -> " + full);
  };
  // Clamped into the table, as the gather would.
  std::string bounds = implicit ? Emit("\"stablehlo.constant\"() {value = dense<" + std::to_string(upper[0]) + "> : " +
                                       scalar + "} : () -> " + scalar)
                                : Emit("\"stablehlo.constant\"() {value = dense<[" + Join(upper, ", ") + "]> : " +
                                       vector_type + "} : () -> " + vector_type);
  std::string zeros = Emit("\"stablehlo.constant\"() {value = dense<0> : " + full + "} : () -> " + full);
  std::string clamped = Emit("\"stablehlo.clamp\"(" + zeros + ", " + indices + ", " + spread(bounds) + ") : (" + full +
                             ", " + full + ", " + full + ") -> " + full);
  // This device's offsets, one per component.
  std::vector<std::string> pieces;
  for (const std::vector<int64_t>& table : offsets) {
    std::string offset =
        table.empty() ? Emit("\"stablehlo.constant\"() {value = dense<0> : " + scalar + "} : () -> " + scalar)
                      : Emit("\"stablehlo.convert\"(" + Lookup(table) + ") : (tensor<i64>) -> " + scalar);
    pieces.push_back(implicit ? offset
                              : Emit("\"stablehlo.reshape\"(" + offset + ") : (" + scalar + ") -> " +
                                     TensorType(std::vector<int64_t>{1}, type)));
  }
  std::string vector = pieces.front();
  if (!implicit) {
    std::string operands, types;
    for (size_t j = 0; j < pieces.size(); ++j) {
      operands += (j ? ", " : "") + pieces[j];
      types += (j ? ", " : "") + TensorType(std::vector<int64_t>{1}, type);
    }
    vector = pieces.size() == 1 ? pieces.front()
                                : Emit("\"stablehlo.concatenate\"(" + operands + ") {dimension = 0 : i64} : (" + types +
                                       ") -> " + vector_type);
  }
  LocalIndices local;
  local.indices = Emit("\"stablehlo.subtract\"(" + clamped + ", " + spread(vector) + ") : (" + full + ", " + full +
                       ") -> " + full);
  // Where each component with offsets falls in this device's part.
  std::vector<int64_t> rows(shape.begin(), shape.end());
  if (!implicit) rows.erase(rows.begin() + vector_dim);
  const std::string row_type = TensorType(rows, type), mask_type = TensorType(rows, shlo::ElementType::kI1);
  std::string row_zeros = Emit("\"stablehlo.constant\"() {value = dense<0> : " + row_type + "} : () -> " + row_type);
  for (size_t j = 0; j < offsets.size(); ++j) {
    if (offsets[j].empty()) continue;
    std::string component = local.indices;
    if (!implicit) {
      std::vector<int64_t> start(shape.size(), 0), limit(shape.begin(), shape.end()), strides(shape.size(), 1),
          one(shape.begin(), shape.end());
      start[static_cast<size_t>(vector_dim)] = static_cast<int64_t>(j);
      limit[static_cast<size_t>(vector_dim)] = static_cast<int64_t>(j) + 1;
      one[static_cast<size_t>(vector_dim)] = 1;
      component = Emit("\"stablehlo.slice\"(" + component + ") {limit_indices = " + I64Array(limit) +
                       ", start_indices = " + I64Array(start) + ", strides = " + I64Array(strides) + "} : (" + full +
                       ") -> " + TensorType(one, type));
      component = Emit("\"stablehlo.reshape\"(" + component + ") : (" + TensorType(one, type) + ") -> " + row_type);
    }
    std::string size = Emit("\"stablehlo.constant\"() {value = dense<" + std::to_string(part[j]) + "> : " + row_type +
                            "} : () -> " + row_type);
    auto compare = [&](const std::string& a, const std::string& b, const char* direction) {
      return Emit("\"stablehlo.compare\"(" + a + ", " + b + ") {comparison_direction = #stablehlo<comparison_direction " +
                  direction + ">} : (" + row_type + ", " + row_type + ") -> " + mask_type);
    };
    std::string low = compare(component, row_zeros, "GE"), high = compare(component, size, "LT");
    std::string both = Emit("\"stablehlo.and\"(" + low + ", " + high + ") : (" + mask_type + ", " + mask_type +
                            ") -> " + mask_type);
    local.inside = local.inside.empty() ? both
                                        : Emit("\"stablehlo.and\"(" + local.inside + ", " + both + ") : (" +
                                               mask_type + ", " + mask_type + ") -> " + mask_type);
  }
  return local;
}

std::string DeviceProgram::ZeroWhereNot(const std::string& mask, std::span<const int64_t> mask_shape,
                                        const std::string& value, std::span<const int64_t> shape,
                                        shlo::ElementType type, std::span<const int64_t> dims) {
  const std::string value_type = TensorType(shape, type), mask_type = TensorType(shape, shlo::ElementType::kI1);
  std::string spread = Emit("\"stablehlo.broadcast_in_dim\"(" + mask + ") {broadcast_dimensions = " + I64Array(dims) +
                            "} : (" + TensorType(mask_shape, shlo::ElementType::kI1) + ") -> " + mask_type);
  std::string zeros = Emit("\"stablehlo.constant\"() {value = dense<" + ZeroLiteral(type) + "> : " + value_type +
                           "} : () -> " + value_type);
  return Emit("\"stablehlo.select\"(" + spread + ", " + value + ", " + zeros + ") : (" + mask_type + ", " +
              value_type + ", " + value_type + ") -> " + value_type);
}

std::string DeviceProgram::CombinerRegion(std::string_view combiner, shlo::ElementType type) {
  const std::string scalar = TensorType({}, type);
  const std::string prefix = "%r" + std::to_string(next_rewrite_++) + "_";
  return "({\n    ^bb0(" + prefix + "a0: " + scalar + ", " + prefix + "a1: " + scalar + "):\n      " + prefix +
         "0 = \"" + std::string(combiner) + "\"(" + prefix + "a0, " + prefix + "a1) : (" + scalar + ", " + scalar +
         ") -> " + scalar + "\n      \"stablehlo.return\"(" + prefix + "0) : (" + scalar + ") -> ()\n    })";
}

std::string DeviceProgram::AllReduce(const std::string& local, std::span<const int64_t> shape,
                                     shlo::ElementType type, const std::vector<std::vector<int64_t>>& groups,
                                     std::string_view combiner) {
  return Emit("\"stablehlo.all_reduce\"(" + local + ") " + CombinerRegion(combiner, type) + " {" + Channel() + ", " +
              ReplicaGroups(groups) + ", use_global_device_ids} : (" + TensorType(shape, type) + ") -> " +
              TensorType(shape, type));
}

std::string DeviceProgram::ReduceScatter(const std::string& local, std::span<const int64_t> shape,
                                         shlo::ElementType type, const std::vector<std::vector<int64_t>>& groups,
                                         std::string_view combiner, size_t dim) {
  std::vector<int64_t> scattered(shape.begin(), shape.end());
  scattered[dim] /= static_cast<int64_t>(groups.front().size());
  return Emit("\"stablehlo.reduce_scatter\"(" + local + ") " + CombinerRegion(combiner, type) + " {" + Channel() +
              ", " + ReplicaGroups(groups) + ", scatter_dimension = " + std::to_string(dim) +
              " : i64, use_global_device_ids} : (" + TensorType(shape, type) + ") -> " +
              TensorType(scattered, type));
}

}  // namespace berth::spmd::internal
