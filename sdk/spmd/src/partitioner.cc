#include "berth/spmd/partitioner.hpp"

#include <algorithm>
#include <cctype>

#include "berth/spmd/entry_shardings.hpp"
#include "berth/stablehlo/printer.hpp"
#include "berth/stablehlo/types.hpp"
#include "src/device_program.hpp"
#include "src/op_rules.hpp"
#include "src/op_traits.hpp"

namespace berth::spmd {
namespace {

namespace shlo = berth::stablehlo;
using internal::DeviceProgram;
using internal::DeviceValue;

// Whether any op of the module calls `name`.
bool Calls(const shlo::Block& block, std::string_view name) {
  for (const shlo::Operation* op : block.operations()) {
    if (op->kind() == shlo::OpKind::kFuncCall && op->callee() == name) return true;
    for (const shlo::Region* region : op->regions()) {
      for (const shlo::Block* inner : region->blocks()) {
        if (Calls(*inner, name)) return true;
      }
    }
  }
  return false;
}

bool AnyCalls(const shlo::Module& module, std::string_view name) {
  for (const shlo::Function* function : module.functions()) {
    if (!function->is_declaration() && Calls(function->entry_block(), name)) return true;
  }
  return false;
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

bool HasManualRegions(const shlo::Module& module) {
  return std::any_of(module.functions().begin(), module.functions().end(), [](const shlo::Function* function) {
    return !function->is_declaration() && internal::HasManualRegions(function->entry_block());
  });
}

bool IsSharded(const shlo::Module& module) {
  if (HasManualRegions(module)) return true;
  const shlo::Function* main = module.entry_function();
  if (main == nullptr) return false;
  auto annotated = [](const shlo::DictionaryAttr* attrs) {
    return attrs != nullptr && (attrs->Get("mhlo.sharding") != nullptr || attrs->Get("sdy.sharding") != nullptr);
  };
  for (size_t i = 0; i < main->num_arguments(); ++i) {
    if (annotated(main->argument_attrs(i))) return true;
  }
  for (size_t i = 0; i < main->num_results(); ++i) {
    if (annotated(main->result_attrs(i))) return true;
  }
  return false;
}

Result<std::optional<PartitionedProgram>> PartitionIfSharded(const shlo::Module& module,
                                                             const PartitionOptions& options) {
  // One partition named: the module runs as written, whatever its shardings
  // say (JAX exports single-device programs with shardings over devices).
  const int64_t named = options.num_partitions.value_or(
      options.mesh ? options.mesh->num_devices() : module.num_partitions().value_or(0));
  if (named == 1 || !IsSharded(module)) return std::optional<PartitionedProgram>();
  BERTH_ASSIGN_OR_RETURN(EntryShardings entry, ReadEntryShardings(module, options.num_partitions, options.mesh));
  if (entry.num_partitions <= 1) return std::optional<PartitionedProgram>();
  BERTH_ASSIGN_OR_RETURN(PartitionedProgram program, Partition(module, options));
  return std::optional<PartitionedProgram>(std::move(program));
}

Result<PartitionedProgram> Partition(const shlo::Module& module, const PartitionOptions& options) {
  BERTH_ASSIGN_OR_RETURN(EntryShardings entry, ReadEntryShardings(module, options.num_partitions, options.mesh));
  const shlo::Function* main = module.entry_function();
  if (main->is_declaration()) return InvalidArgumentError("the entry function has no body");
  if (module.num_replicas().value_or(1) > 1) {
    return UnimplementedError("mhlo.num_replicas > 1: partitioning replicated programs is not supported yet");
  }
  const bool manual = HasManualRegions(module);
  if (AnyCalls(module, main->name())) {
    return UnimplementedError("@" + std::string(main->name()) +
                              " is called by the module's own functions; such entries are not partitioned yet");
  }

  PartitionedProgram program;
  program.num_partitions = entry.num_partitions;
  const std::string entry_name(main->name());
  const std::string global_name = UniqueFunctionName(module, entry_name + ".global");
  const int64_t first_channel = internal::MaxChannelId(module) + 1;
  DeviceProgram writer(entry.num_partitions, first_channel);

  std::vector<DeviceValue> arguments;
  std::string signature;
  for (size_t i = 0; i < main->num_arguments(); ++i) {
    const shlo::Type& type = main->argument_types()[i];
    Sharding sharding = entry.arguments[i].value_or(Sharding()).Canonical();
    BERTH_RETURN_IF_ERROR(CheckSupported(sharding, type, entry.num_partitions,
                                         "@" + entry_name + " argument " + std::to_string(i)));
    DeviceValue argument{"%arg" + std::to_string(i), type, sharding};
    signature += (i ? ", " : "") + argument.name + ": " + argument.LocalType();
    program.argument_shardings.push_back(sharding);
    program.argument_shapes.push_back(argument.GlobalShape());
    program.local_argument_shapes.push_back(argument.LocalShape());
    arguments.push_back(std::move(argument));
  }

  // Op by op, unless an op outside a manual region depends on the device:
  // then every device runs the whole global program on whole arguments.
  BERTH_ASSIGN_OR_RETURN(internal::PartitionedOps ops,
                         internal::PartitionOps(module, main->entry_block(), arguments, entry.meshes,
                                                internal::EntryContext{&main->entry_block(), entry.results,
                                                                       options.custom_rules,
                                                                       options.replicated_results},
                                                writer));
  const bool per_op = ops.needs_whole_program.empty();
  std::vector<DeviceValue> results = std::move(ops.returned);
  if (!per_op && manual) {
    return UnimplementedError(ops.needs_whole_program +
                              ": an op that depends on the device (a collective, partition_id, ...) outside the "
                              "shard_map regions of a module with such regions is not partitioned yet");
  }
  if (!per_op) {
    writer = DeviceProgram(entry.num_partitions, first_channel);
    std::string operands, operand_types, result_types;
    for (size_t i = 0; i < arguments.size(); ++i) {
      operands += (i ? ", " : "") + writer.Reshard(arguments[i], Sharding()).name;
      operand_types += (i ? ", " : "") + arguments[i].global_type.ToString();
    }
    for (size_t i = 0; i < main->num_results(); ++i) {
      result_types += (i ? ", " : "") + main->result_types()[i].ToString();
    }
    std::string call = "call @" + global_name + "(" + operands + ") : (" + operand_types + ") -> (" + result_types + ")";
    if (main->num_results() == 0) {
      writer.EmitLine(call);
    } else {
      std::vector<std::string> names = writer.Emit(call, main->num_results());
      for (size_t i = 0; i < names.size(); ++i) {
        results.push_back(DeviceValue{names[i], main->result_types()[i], Sharding()});
      }
    }
  }

  std::string returned, returned_types;
  for (size_t i = 0; i < main->num_results(); ++i) {
    const shlo::Type& type = main->result_types()[i];
    Sharding sharding = entry.results[i].value_or(Sharding()).Canonical();
    BERTH_RETURN_IF_ERROR(CheckSupported(sharding, type, entry.num_partitions,
                                         "@" + entry_name + " result " + std::to_string(i)));
    if (options.replicated_results) sharding = Sharding::Replicated();
    if (results[i].sharding.IsManual()) {
      return UnimplementedError("@" + entry_name + " result " + std::to_string(i) +
                                " is a shard_map region's (manual) value; return it through @SPMDShardToFullShape");
    }
    DeviceValue result = writer.Reshard(results[i], sharding);
    returned += (i ? ", " : "") + result.name;
    returned_types += (i ? ", " : "") + result.LocalType();
    program.result_shardings.push_back(sharding);
    program.result_shapes.push_back(result.GlobalShape());
    program.local_result_shapes.push_back(result.LocalShape());
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
      if (!per_op) text += shlo::Print(*function, global_name, shlo::Visibility::kPrivate);
    } else if (per_op && !ops.called.contains(function->name())) {
      continue;  // partitioned in place where it was called, or never called
    } else {
      text += shlo::Print(*function);
    }
  }
  if (per_op) {
    for (const std::string& function : ops.custom_functions) text += function;
    program.custom_rule_targets.assign(ops.custom_rule_targets.begin(), ops.custom_rule_targets.end());
  }
  text += "  func.func @" + entry_name + "(" + signature + ") -> (" + returned_types + ") {\n";
  text += writer.body();
  text += returned.empty() ? "    return\n" : "    return " + returned + " : " + returned_types + "\n";
  text += "  }\n}\n";
  program.text = std::move(text);
  return program;
}

}  // namespace berth::spmd
