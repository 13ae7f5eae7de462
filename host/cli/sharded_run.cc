#include "cli/sharded_run.hpp"

#include <algorithm>
#include <numeric>

#include "berth/sharded_array.hpp"
#include "berth/spmd/entry_shardings.hpp"
#include "berth/stablehlo/parser.hpp"
#include "client/array_block.hpp"
#include "client/client_state.hpp"
#include "custom_partitioner/custom_partitioner_module.hpp"

namespace berth::cli {

spmd::CustomCallRules ModuleRules(const Client& client) {
  spmd::CustomCallRules rules;
  for (const std::shared_ptr<const ext::ExtensionModule>& module : client.state()->attached_modules) {
    const auto* partitioner = dynamic_cast<const ext::custom_partitioner::CustomPartitionerModule*>(module.get());
    if (partitioner == nullptr) continue;
    for (const ext::custom_partitioner::ModuleRule& rule : partitioner->rules()) {
      rules[std::string(rule.rule.target, rule.rule.target_size)] = spmd::RuleFromC(rule.rule, module);
    }
  }
  return rules;
}

Result<spmd::PartitionOptions> PartitionFlags(int64_t partitions, const std::string& mesh) {
  spmd::PartitionOptions options;
  if (partitions > 0) options.num_partitions = partitions;
  if (!mesh.empty()) {
    Result<spmd::Mesh> parsed = spmd::ParseMeshFlag(mesh);
    if (!parsed.ok()) return InvalidArgumentError("--mesh: " + parsed.status().message());
    options.mesh = std::move(*parsed);
  }
  return options;
}

Result<std::optional<spmd::PartitionedProgram>> PartitionIfSharded(std::string_view code,
                                                                    const std::string& source_name,
                                                                    spmd::PartitionOptions options) {
  using Partitioned = std::optional<spmd::PartitionedProgram>;
  Result<stablehlo::Module> module = stablehlo::ParseModule(code, source_name);
  if (!module.ok() || module->entry_function() == nullptr) return Partitioned();
  if (!spmd::IsSharded(*module)) return Partitioned();
  options.replicated_results = true;
  BERTH_ASSIGN_OR_RETURN(spmd::PartitionedProgram program, spmd::Partition(*module, options));
  return Partitioned(std::move(program));
}

HostArray ShardOf(const HostArray& global, const spmd::ShardRegion& region, const std::vector<int64_t>& local) {
  HostArray shard;
  shard.type = global.type;
  shard.dims = local;
  const int64_t count = core::ElementCount(global.dims);
  const size_t element = count == 0 ? 0 : global.bytes.size() / static_cast<size_t>(count);
  shard.bytes.assign(static_cast<size_t>(core::ElementCount(local)) * element, std::byte{0});
  core::CopyBlock(core::BlockDirection::kGlobalToShard, const_cast<std::byte*>(global.bytes.data()), global.dims,
                  region.offsets, region.sizes, shard.bytes.data(), local, element);
  return shard;
}

namespace {

// The global arguments fit the program's global shapes.
Status CheckGlobalArguments(const std::vector<HostArray>& global_args, const std::vector<std::vector<int64_t>>& shapes) {
  if (global_args.size() != shapes.size()) {
    return InvalidArgumentError("the sharded entry takes " + std::to_string(shapes.size()) + " argument(s), " +
                                std::to_string(global_args.size()) + " given");
  }
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (global_args[i].dims != shapes[i]) {
      return InvalidArgumentError("argument " + std::to_string(i) + ": the program takes a global array of shape " +
                                  core::ShapeText(shapes[i]) + ", given " + core::ShapeText(global_args[i].dims));
    }
  }
  return OkStatus();
}

}  // namespace

Result<RunOutput> RunPartitionedExecutable(Session& session, const Executable& executable,
                                           const std::vector<HostArray>& global_args) {
  const std::vector<ValueSharding>& parameters = executable.parameter_shardings();
  std::vector<std::vector<int64_t>> shapes;
  for (const ValueSharding& p : parameters) shapes.push_back(p.global_dims);
  BERTH_RETURN_IF_ERROR(CheckGlobalArguments(global_args, shapes));
  const Client& client = session.client();
  std::vector<ShardedArray> arrays;
  for (size_t i = 0; i < parameters.size(); ++i) {
    const HostArray& arg = global_args[i];
    Result<ShardedArray> array = ShardedArray::FromHost(client, arg.bytes.data(), arg.bytes.size(), arg.type,
                                                        arg.dims, parameters[i].sharding, client.devices());
    if (!array.ok()) return array.status().WithContext("argument " + std::to_string(i));
    arrays.push_back(std::move(array).value());
  }
  std::vector<const ShardedArray*> pointers;
  for (const ShardedArray& array : arrays) pointers.push_back(&array);
  BERTH_ASSIGN_OR_RETURN(std::vector<ShardedArray> outputs, executable.ExecuteSharded(pointers));
  RunOutput output;
  output.device_ids.push_back(executable.addressable_devices().empty() ? 0 : executable.addressable_devices()[0].id());
  output.results.emplace_back();
  for (size_t o = 0; o < outputs.size(); ++o) {
    HostArray global{outputs[o].element_type(), outputs[o].dims(), {}};
    int64_t elements = 1;
    for (int64_t d : global.dims) elements *= d;
    global.bytes.resize(static_cast<size_t>(elements) * ElementTypeByteSize(global.type));
    Status gathered = outputs[o].ToHost(global.bytes.data(), global.bytes.size());
    if (!gathered.ok()) return gathered.WithContext("result " + std::to_string(o));
    output.results[0].push_back(std::move(global));
  }
  return output;
}

Result<RunOutput> RunSharded(Session& session, const spmd::PartitionedProgram& program,
                             const std::string& source_name, const std::vector<HostArray>& global_args) {
  const size_t count = program.argument_shapes.size();
  BERTH_RETURN_IF_ERROR(CheckGlobalArguments(global_args, program.argument_shapes));
  std::vector<int64_t> assignment(static_cast<size_t>(program.num_partitions));
  std::iota(assignment.begin(), assignment.end(), int64_t{0});
  BERTH_ASSIGN_OR_RETURN(Executable executable, session.Compile(program.text, source_name, "", assignment));
  std::vector<std::vector<HostArray>> shards;
  for (const Device& device : executable.addressable_devices()) {
    std::vector<HostArray> args;
    for (size_t i = 0; i < count; ++i) {
      BERTH_ASSIGN_OR_RETURN(spmd::ShardRegion region,
                             program.argument_shardings[i].RegionOf(device.id(), program.argument_shapes[i]));
      args.push_back(ShardOf(global_args[i], region, program.local_argument_shapes[i]));
    }
    shards.push_back(std::move(args));
  }
  BERTH_ASSIGN_OR_RETURN(RunOutput output, session.ExecuteEach(executable, shards));
  for (size_t d = 1; d < output.results.size(); ++d) {
    for (size_t r = 0; r < output.results[d].size(); ++r) {
      if (output.results[d][r].bytes != output.results[0][r].bytes) {
        return InternalError("the partitioned program's devices " + std::to_string(output.device_ids[0]) + " and " +
                             std::to_string(output.device_ids[d]) + " disagree on result " + std::to_string(r));
      }
    }
  }
  output.device_ids.resize(std::min<size_t>(output.device_ids.size(), 1));
  output.results.resize(std::min<size_t>(output.results.size(), 1));
  return output;
}

}  // namespace berth::cli
