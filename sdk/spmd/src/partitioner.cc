#include "berth/spmd/partitioner.hpp"

#include <algorithm>
#include <cctype>

#include "berth/spmd/entry_shardings.hpp"
#include "berth/stablehlo/printer.hpp"
#include "berth/stablehlo/types.hpp"
#include "src/tile_math.hpp"

namespace berth::spmd {
namespace {

namespace shlo = berth::stablehlo;

std::string Join(std::span<const int64_t> values, const char* separator) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) out += (i ? separator : "") + std::to_string(values[i]);
  return out;
}

std::string TensorType(std::span<const int64_t> dims, shlo::ElementType type) {
  std::string out = "tensor<";
  for (int64_t dim : dims) out += std::to_string(dim) + "x";
  return out + std::string(shlo::ElementTypeName(type)) + ">";
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

// The ops that mark a shard_map region, which the fallback cannot keep.
Status CheckNoManualRegions(const shlo::Block& block) {
  for (const shlo::Operation* op : block.operations()) {
    if (op->kind() == shlo::OpKind::kCustomCall &&
        (op->call_target_name() == "SPMDFullToShardShape" || op->call_target_name() == "SPMDShardToFullShape")) {
      return UnimplementedError(op->location().ToString() + ": @" + std::string(op->call_target_name()) +
                                ": manual (shard_map) regions are not partitioned yet");
    }
    for (const shlo::Region* region : op->regions()) {
      for (const shlo::Block* inner : region->blocks()) BERTH_RETURN_IF_ERROR(CheckNoManualRegions(*inner));
    }
  }
  return OkStatus();
}

// The per-device entry's body, one op per line, generic form.
class EntryWriter {
 public:
  std::string body;

  std::string Emit(const std::string& op) {
    std::string name = "%" + std::to_string(next_value_++);
    body += "    " + name + " = " + op + "\n";
    return name;
  }

  std::string I64Constant(std::span<const int64_t> values) {
    return Emit("\"stablehlo.constant\"() {value = dense<[" + Join(values, ", ") + "]> : tensor<" +
                std::to_string(values.size()) + "xi64>} : () -> tensor<" + std::to_string(values.size()) + "xi64>");
  }

  // This partition's id as tensor<i64>, emitted once.
  const std::string& PartitionId() {
    if (partition_id_.empty()) {
      std::string id = Emit("\"stablehlo.partition_id\"() : () -> tensor<ui32>");
      partition_id_ = Emit("\"stablehlo.convert\"(" + id + ") : (tensor<ui32>) -> tensor<i64>");
    }
    return partition_id_;
  }

  // `table[partition_id]` as tensor<i64>.
  std::string Lookup(std::span<const int64_t> table) {
    std::string constant = I64Constant(table);
    std::string element = Emit("\"stablehlo.dynamic_slice\"(" + constant + ", " + PartitionId() +
                               ") {slice_sizes = array<i64: 1>} : (tensor<" + std::to_string(table.size()) +
                               "xi64>, tensor<i64>) -> tensor<1xi64>");
    return Emit("\"stablehlo.reshape\"(" + element + ") : (tensor<1xi64>) -> tensor<i64>");
  }

  int64_t NextChannel() { return next_channel_++; }

 private:
  int64_t next_value_ = 0;
  int64_t next_channel_ = 1;
  std::string partition_id_;
};

// A sharded argument's shard (`value`, padded shape `local`) gathered to its
// global shape: one all_gather per tiled dimension, among the devices that
// differ only in that dimension's tile, then the padding sliced off.
std::string GatherToGlobal(EntryWriter& writer, std::string value, const Sharding& sharding,
                           std::vector<int64_t> local, std::span<const int64_t> global, shlo::ElementType type) {
  const std::vector<int64_t>& tiles = sharding.tile_dims();
  const int64_t count = static_cast<int64_t>(sharding.devices().size());
  for (size_t d = 0; d < global.size(); ++d) {
    if (tiles[d] == 1) continue;
    std::vector<std::vector<int64_t>> groups;
    for (int64_t position = 0; position < count; ++position) {
      std::vector<int64_t> coords = internal::Unravel(position, tiles);
      if (coords[d] != 0) continue;
      std::vector<int64_t> group;
      for (int64_t t = 0; t < tiles[d]; ++t) {
        coords[d] = t;
        group.push_back(sharding.devices()[static_cast<size_t>(internal::Ravel(coords, tiles))]);
      }
      groups.push_back(std::move(group));
    }
    std::string groups_text;
    for (size_t g = 0; g < groups.size(); ++g) groups_text += (g ? ", [" : "[") + Join(groups[g], ", ") + "]";
    std::vector<int64_t> gathered = local;
    gathered[d] *= tiles[d];
    value = writer.Emit("\"stablehlo.all_gather\"(" + value + ") {all_gather_dim = " + std::to_string(d) +
                        " : i64, channel_handle = #stablehlo.channel_handle<handle = " +
                        std::to_string(writer.NextChannel()) + ", type = 1>, replica_groups = dense<[" +
                        groups_text + "]> : tensor<" + std::to_string(groups.size()) + "x" +
                        std::to_string(tiles[d]) + "xi64>, use_global_device_ids} : (" + TensorType(local, type) +
                        ") -> " + TensorType(gathered, type));
    local = gathered;
  }
  if (!std::equal(local.begin(), local.end(), global.begin(), global.end())) {
    std::vector<int64_t> zeros(global.size(), 0), ones(global.size(), 1);
    value = writer.Emit("\"stablehlo.slice\"(" + value + ") {limit_indices = " + I64Array(global) +
                        ", start_indices = " + I64Array(zeros) + ", strides = " + I64Array(ones) + "} : (" +
                        TensorType(local, type) + ") -> " + TensorType(global, type));
  }
  return value;
}

// A global result cut to this partition's shard: padded to whole tiles with
// zeros, then a dynamic slice at offsets looked up by partition_id.
std::string SliceToShard(EntryWriter& writer, std::string value, const Sharding& sharding,
                         std::span<const int64_t> global, std::span<const int64_t> local, shlo::ElementType type,
                         int64_t num_partitions) {
  std::vector<int64_t> padded(global.size());
  for (size_t d = 0; d < global.size(); ++d) padded[d] = local[d] * sharding.tile_dims()[d];
  if (!std::equal(padded.begin(), padded.end(), global.begin(), global.end())) {
    std::string zero = writer.Emit("\"stablehlo.constant\"() {value = dense<" + ZeroLiteral(type) + "> : " +
                                   TensorType({}, type) + "} : () -> " + TensorType({}, type));
    std::vector<int64_t> low(global.size(), 0), high(global.size());
    for (size_t d = 0; d < global.size(); ++d) high[d] = padded[d] - global[d];
    value = writer.Emit("\"stablehlo.pad\"(" + value + ", " + zero + ") {edge_padding_high = " + I64Array(high) +
                        ", edge_padding_low = " + I64Array(low) + ", interior_padding = " + I64Array(low) +
                        "} : (" + TensorType(global, type) + ", " + TensorType({}, type) + ") -> " +
                        TensorType(padded, type));
  }
  std::string offsets;
  for (size_t d = 0; d < global.size(); ++d) {
    std::vector<int64_t> table(static_cast<size_t>(num_partitions), 0);
    for (int64_t p = 0; p < num_partitions; ++p) {
      table[static_cast<size_t>(p)] = (*sharding.TileIndexOf(p))[d] * local[d];
    }
    offsets += ", " + writer.Lookup(table);
  }
  std::string index_types;
  for (size_t d = 0; d < global.size(); ++d) index_types += ", tensor<i64>";
  return writer.Emit("\"stablehlo.dynamic_slice\"(" + value + offsets + ") {slice_sizes = " + I64Array(local) +
                     "} : (" + TensorType(padded, type) + index_types + ") -> " + TensorType(local, type));
}

// What the fallback can lay out: replicated values, and tiled arrays of
// static shape whose tiles cover every partition.
Status CheckSupported(const Sharding& sharding, const shlo::Type& type, int64_t num_partitions,
                      const std::string& where) {
  if (sharding.IsReplicated()) return OkStatus();
  if (!sharding.IsTiled()) {
    return UnimplementedError(where + ": " + (sharding.IsTuple() ? std::string("tuple") :
                                              sharding.IsManual() ? std::string("manual") : std::string("maximal")) +
                              " shardings of entry values are not partitioned yet");
  }
  if (!type.IsTensor() || !type.HasStaticShape()) {
    return UnimplementedError(where + ": a tiled value of type " + type.ToString() +
                              " (dynamic shapes are not partitioned yet)");
  }
  if (static_cast<int64_t>(sharding.devices().size()) != num_partitions) {
    return UnimplementedError(where + ": the sharding covers " + std::to_string(sharding.devices().size()) +
                              " of the " + std::to_string(num_partitions) +
                              " partitions; shardings over a subset are not partitioned yet");
  }
  return OkStatus();
}

// A module name that needs no quoting: [A-Za-z_][A-Za-z0-9_$.]*.
bool IsPlainName(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.';
  });
}

std::string UniqueFunctionName(const shlo::Module& module, std::string base) {
  while (module.function(base) != nullptr) base += "_";
  return base;
}

}  // namespace

Result<PartitionedProgram> Partition(const shlo::Module& module, const PartitionOptions& options) {
  BERTH_ASSIGN_OR_RETURN(EntryShardings entry, ReadEntryShardings(module, options.num_partitions));
  const shlo::Function* main = module.entry_function();
  if (main->is_declaration()) return InvalidArgumentError("the entry function has no body");
  if (module.num_replicas().value_or(1) > 1) {
    return UnimplementedError("mhlo.num_replicas > 1: partitioning replicated programs is not supported yet");
  }
  for (const shlo::Function* function : module.functions()) {
    if (!function->is_declaration()) BERTH_RETURN_IF_ERROR(CheckNoManualRegions(function->entry_block()));
  }

  PartitionedProgram program;
  program.num_partitions = entry.num_partitions;
  const std::string entry_name(main->name());
  const std::string global_name = UniqueFunctionName(module, entry_name + ".global");
  EntryWriter writer;

  std::string signature, call_operands, call_types;
  for (size_t i = 0; i < main->num_arguments(); ++i) {
    const shlo::Type& type = main->argument_types()[i];
    Sharding sharding = entry.arguments[i].value_or(Sharding()).Canonical();
    BERTH_RETURN_IF_ERROR(CheckSupported(sharding, type, entry.num_partitions,
                                         "@" + entry_name + " argument " + std::to_string(i)));
    std::vector<int64_t> global(type.shape().begin(), type.shape().end());
    std::vector<int64_t> local = global;
    std::string value = "%arg" + std::to_string(i);
    std::string local_type = type.ToString();
    if (sharding.IsTiled()) {
      local = *sharding.ShardShape(global);
      local_type = TensorType(local, type.element_type());
      value = GatherToGlobal(writer, value, sharding, local, global, type.element_type());
    }
    signature += (i ? ", %arg" : "%arg") + std::to_string(i) + ": " + local_type;
    call_operands += (i ? ", " : "") + value;
    call_types += (i ? ", " : "") + type.ToString();
    program.argument_shardings.push_back(sharding);
    program.argument_shapes.push_back(global);
    program.local_argument_shapes.push_back(local);
  }

  std::string result_types;
  for (size_t i = 0; i < main->num_results(); ++i) result_types += (i ? ", " : "") + main->result_types()[i].ToString();
  std::string call = "call @" + global_name + "(" + call_operands + ") : (" + call_types + ") -> (" +
                     result_types + ")";
  std::vector<std::string> results;
  if (main->num_results() == 0) {
    writer.body += "    " + call + "\n";
  } else if (main->num_results() == 1) {
    results.push_back(writer.Emit(call));
  } else {
    std::string name = "%results";
    writer.body += "    " + name + ":" + std::to_string(main->num_results()) + " = " + call + "\n";
    for (size_t i = 0; i < main->num_results(); ++i) results.push_back(name + "#" + std::to_string(i));
  }

  std::string returned, returned_types;
  for (size_t i = 0; i < main->num_results(); ++i) {
    const shlo::Type& type = main->result_types()[i];
    Sharding sharding = entry.results[i].value_or(Sharding()).Canonical();
    BERTH_RETURN_IF_ERROR(CheckSupported(sharding, type, entry.num_partitions,
                                         "@" + entry_name + " result " + std::to_string(i)));
    std::vector<int64_t> global(type.shape().begin(), type.shape().end());
    std::vector<int64_t> local = global;
    std::string value = results[i];
    std::string local_type = type.ToString();
    if (sharding.IsTiled()) {
      local = *sharding.ShardShape(global);
      local_type = TensorType(local, type.element_type());
      value = SliceToShard(writer, value, sharding, global, local, type.element_type(), entry.num_partitions);
    }
    returned += (i ? ", " : "") + value;
    returned_types += (i ? ", " : "") + local_type;
    program.result_shardings.push_back(sharding);
    program.result_shapes.push_back(global);
    program.local_result_shapes.push_back(local);
  }

  // The module: its meshes, its other functions, the global entry kept as a
  // private function, and the per-device entry under the entry's name.
  std::string text = "module";
  if (IsPlainName(module.name())) text += " @" + std::string(module.name());
  text += " attributes {mhlo.num_partitions = " + std::to_string(entry.num_partitions) +
          " : i32, mhlo.num_replicas = 1 : i32} {\n";
  for (const shlo::Operation* op : module.top_level_ops()) text += "  " + shlo::Print(*op) + "\n";
  for (const shlo::Function* function : module.functions()) {
    if (function == main) {
      text += shlo::Print(*function, global_name, shlo::Visibility::kPrivate);
    } else {
      text += shlo::Print(*function);
    }
  }
  text += "  func.func @" + entry_name + "(" + signature + ") -> (" + returned_types + ") {\n";
  text += writer.body;
  text += returned.empty() ? "    return\n" : "    return " + returned + " : " + returned_types + "\n";
  text += "  }\n}\n";
  program.text = std::move(text);
  return program;
}

}  // namespace berth::spmd
