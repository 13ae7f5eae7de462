#include "cpu_executable.hpp"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "cpu_buffer.hpp"
#include "cpu_client.hpp"
#include "interpreter/collective_group.hpp"
#include "interpreter/element_types.hpp"
#include "interpreter/interpreter.hpp"

namespace berth::cpu {

CpuExecutable::CpuExecutable(std::shared_ptr<const plugin::ExecutableMetadata> metadata,
                             std::vector<plugin::Device*> devices, CpuClient& client)
    : plugin::LoadedExecutable(std::move(metadata), std::move(devices)), client_(client) {}

Result<std::unique_ptr<CpuExecutable>> CpuExecutable::Compile(
    CpuClient& client, const plugin::Program& program, const plugin::CompileOptions& options) {
  BERTH_ASSIGN_OR_RETURN(LoweredProgram lowered, Lower(client, program, options));
  return Load(client, std::move(lowered));
}

Result<std::unique_ptr<CpuExecutable>> CpuExecutable::Load(CpuClient& client, LoweredProgram lowered) {
  const plugin::CompileOptions& options = lowered.options;
  const std::string& source_name = lowered.source_name;
  std::unique_ptr<stablehlo::Module>& module = lowered.partitioned.module;
  const stablehlo::Function* entry =
      options.entry_name.empty() ? module->entry_function() : module->function(options.entry_name);
  if (entry == nullptr || entry->is_declaration()) {
    return InvalidArgumentError(
        options.entry_name.empty()
            ? source_name + ": no entry function (name one 'main', or have a single function)"
            : source_name + ": no function @" + options.entry_name + " with a body");
  }

  auto metadata = std::make_shared<plugin::ExecutableMetadata>();
  metadata->name = module->name().empty() ? std::string(entry->name()) : std::string(module->name());
  metadata->parameter_shardings = lowered.partitioned.parameter_shardings;
  metadata->output_shardings = lowered.partitioned.output_shardings;
  for (size_t i = 0; i < entry->num_results(); ++i) {
    stablehlo::Type type = entry->result_types()[i];
    if (!type.IsTensor() || !type.HasStaticShape()) {
      return UnimplementedError(source_name + ": result " + std::to_string(i) + " of @" +
                                std::string(entry->name()) + " is " + type.ToString() +
                                "; the cpu plugin returns statically shaped tensors only");
    }
    if (!IsSupportedElementType(type.element_type())) {
      return UnsupportedElementType(type.element_type(), "result " + std::to_string(i));
    }
    metadata->output_types.push_back(ToBufferType(type.element_type()));
    metadata->output_dims.emplace_back(type.shape().begin(), type.shape().end());
  }
  for (size_t i = 0; i < entry->num_arguments(); ++i) {
    stablehlo::Type type = entry->argument_types()[i];
    if (!type.IsTensor() || !type.HasStaticShape() || !IsSupportedElementType(type.element_type())) {
      return UnimplementedError(source_name + ": argument " + std::to_string(i) + " of @" +
                                std::string(entry->name()) + " is " + type.ToString() +
                                ", which the cpu plugin cannot take as an argument");
    }
  }

  int64_t replicas = options.num_replicas > 0 ? options.num_replicas
                                              : module->num_replicas().value_or(1);
  int64_t partitions = options.num_partitions > 0 ? options.num_partitions
                                                  : module->num_partitions().value_or(1);
  if (replicas < 1 || partitions < 1) {
    return InvalidArgumentError(source_name + ": replica and partition counts must be positive");
  }
  metadata->num_replicas = replicas;
  metadata->num_partitions = partitions;
  const int64_t grid = replicas * partitions;
  std::vector<int64_t> assignment = options.device_assignment;
  if (assignment.empty()) {
    for (int64_t i = 0; i < grid; ++i) assignment.push_back(i);
  }
  if (static_cast<int64_t>(assignment.size()) != grid) {
    return InvalidArgumentError("device assignment has " + std::to_string(assignment.size()) +
                                " entries for " + std::to_string(replicas) + " replicas x " +
                                std::to_string(partitions) + " partitions");
  }
  std::set<int64_t> seen;
  std::vector<Instance> instances;
  for (int64_t logical = 0; logical < grid; ++logical) {
    int64_t id = assignment[static_cast<size_t>(logical)];
    if (!seen.insert(id).second) {
      return InvalidArgumentError("device " + std::to_string(id) +
                                  " appears twice in the device assignment");
    }
    Result<plugin::Device*> device = client.LookupDevice(id);
    if (!device.ok()) {
      return InvalidArgumentError(source_name + " needs " + std::to_string(grid) + " devices (" +
                                  std::to_string(replicas) + " replicas x " +
                                  std::to_string(partitions) + " partitions) but device " +
                                  std::to_string(id) + " does not exist; the client has " +
                                  std::to_string(client.devices().size()) +
                                  " (raise the cpu plugin's device_count)");
    }
    if ((*device)->is_addressable()) {
      instances.push_back(Instance{*device, logical / partitions, logical % partitions});
    }
  }

  CustomCallTargets targets{&client.ffi_handlers(), &client.host_callbacks(),
                            client.platform_name()};
  PlanOptions plan_options;
  plan_options.fuse_elementwise = lowered.fuse_elementwise;
  plan_options.custom_calls = &targets;
  BERTH_ASSIGN_OR_RETURN(std::unique_ptr<ProgramPlan> plan, ProgramPlan::Build(*module, plan_options));

  std::vector<plugin::Device*> devices;
  for (const Instance& instance : instances) devices.push_back(instance.device);
  std::unique_ptr<CpuExecutable> executable(
      new CpuExecutable(std::move(metadata), std::move(devices), client));
  auto compiled = std::make_shared<Program>();
  compiled->plan = std::move(plan);
  compiled->entry = entry;
  compiled->lowered = std::move(lowered);
  executable->program_ = std::move(compiled);
  executable->entry_ = entry;
  executable->device_assignment_ = std::move(assignment);
  executable->instances_ = std::move(instances);
  return executable;
}

Result<plugin::SerializedExecutable> CpuExecutable::Serialize() const {
  return plugin::SerializedExecutable{kCpuExecutableAbi, EncodePlan(program_->lowered)};
}

Result<std::unique_ptr<CpuExecutable>> CpuExecutable::Deserialize(CpuClient& client, std::string_view payload,
                                                                  plugin::AbiVersion version) {
  if (version.minor >= 1) {
    BERTH_ASSIGN_OR_RETURN(LoweredProgram lowered,
                           DecodePlan(payload, plugin::CompileOptions{}, client));
    return Load(client, std::move(lowered));
  }
  // Executable ABI 1.0: the program's source and its compile options, as
  // JSON; compiled again.
  auto bad = [](const std::string& why) {
    return InvalidArgumentError("cpu executable payload: " + why);
  };
  nlohmann::json root = nlohmann::json::parse(payload, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) return bad("not a JSON object");
  auto field = [&](const char* name, auto check) -> const nlohmann::json* {
    auto it = root.find(name);
    return it != root.end() && check(*it) ? &*it : nullptr;
  };
  auto is_string = [](const nlohmann::json& j) { return j.is_string(); };
  auto is_count = [](const nlohmann::json& j) {
    return j.is_number_integer() && j.get<int64_t>() >= 0;
  };
  const nlohmann::json* format = field("format", is_string);
  if (format == nullptr || *format != "berth-cpu-executable") {
    return bad("\"format\" is not \"berth-cpu-executable\"");
  }
  const nlohmann::json* source = field("source", is_string);
  const nlohmann::json* entry = field("entry_name", is_string);
  const nlohmann::json* replicas = field("num_replicas", is_count);
  const nlohmann::json* partitions = field("num_partitions", is_count);
  const nlohmann::json* assignment =
      field("device_assignment", [](const nlohmann::json& j) { return j.is_array(); });
  const nlohmann::json* named =
      field("options", [](const nlohmann::json& j) { return j.is_object(); });
  if (!source || !entry || !replicas || !partitions || !assignment || !named) {
    return bad("a field is missing or of the wrong type (source, entry_name, num_replicas, "
               "num_partitions, device_assignment, options)");
  }
  plugin::CompileOptions options;
  options.entry_name = entry->get<std::string>();
  options.num_replicas = replicas->get<int64_t>();
  options.num_partitions = partitions->get<int64_t>();
  for (const nlohmann::json& id : *assignment) {
    if (!id.is_number_integer()) return bad("device_assignment holds a non-integer");
    options.device_assignment.push_back(id.get<int64_t>());
  }
  for (const auto& [name, value] : named->items()) {
    if (value.is_string()) {
      options.options[name] = value.get<std::string>();
    } else if (value.is_boolean()) {
      options.options[name] = value.get<bool>();
    } else {
      return bad("option '" + name + "' is neither a string nor a bool");
    }
  }
  std::map<std::string, std::string> recorded;
  if (auto it = root.find("custom_partitioners"); it != root.end()) {
    if (!it->is_object()) return bad("\"custom_partitioners\" is not an object");
    for (const auto& [target, identity] : it->items()) {
      if (!identity.is_string()) return bad("custom_partitioners['" + target + "'] is not a string");
      recorded[target] = identity.get<std::string>();
    }
  }
  const std::string& code = source->get_ref<const std::string&>();
  BERTH_ASSIGN_OR_RETURN(std::unique_ptr<CpuExecutable> executable,
                         Compile(client, plugin::Program{"stablehlo", code}, options));
  // The program is partitioned again with this client's rules: they must be
  // the ones it was made with, by content.
  const std::map<std::string, std::string>& now = executable->program_->lowered.partitioned.rule_identities;
  for (const auto& [target, identity] : recorded) {
    auto found = now.find(target);
    if (found == now.end() || found->second != identity) {
      return FailedPreconditionError(
          "the executable was partitioned with the custom partitioning rule for '" + target + "' of identity " +
          identity + "; this client's is " + (found == now.end() ? std::string("none") : found->second) +
          " (register the same rule before loading it)");
    }
  }
  for (const auto& [target, identity] : now) {
    if (!recorded.contains(target)) {
      return FailedPreconditionError("the executable was partitioned without a custom partitioning rule for '" +
                                     target + "'; this client has one (identity " + identity + ")");
    }
  }
  return executable;
}

Status CpuExecutable::CheckArguments(const std::vector<plugin::Buffer*>& arguments,
                                     size_t instance) const {
  const std::string where = "device " + std::to_string(instance) + ": @" + std::string(entry_->name());
  if (arguments.size() != entry_->num_arguments()) {
    return InvalidArgumentError(where + " takes " + std::to_string(entry_->num_arguments()) +
                                " arguments, got " + std::to_string(arguments.size()));
  }
  for (size_t i = 0; i < arguments.size(); ++i) {
    stablehlo::Type type = entry_->argument_types()[i];
    const plugin::Buffer* buffer = arguments[i];
    if (dynamic_cast<const CpuBuffer*>(buffer) == nullptr || !client_.Owns(buffer->device())) {
      return InvalidArgumentError(where + ": argument " + std::to_string(i) +
                                  " is not a buffer of this cpu client");
    }
    bool same_type = buffer->element_type() == ToBufferType(type.element_type());
    bool same_dims = std::equal(buffer->dims().begin(), buffer->dims().end(), type.shape().begin(),
                                type.shape().end());
    if (!same_type || !same_dims) {
      std::string got = "tensor<";
      for (int64_t d : buffer->dims()) got += std::to_string(d) + "x";
      got += std::string(berth::ElementTypeName(buffer->element_type())) + ">";
      return InvalidArgumentError(where + ": argument " + std::to_string(i) + " must be " +
                                  type.ToString() + ", got a buffer of " + got);
    }
  }
  return OkStatus();
}

Result<plugin::ExecuteResult> CpuExecutable::Execute(
    std::span<const std::vector<plugin::Buffer*>> argument_lists,
    const plugin::ExecuteOptions& options, plugin::Device* execute_device) {
  (void)options;
  const plugin::ExecutableMetadata& meta = *metadata();
  const int64_t grid = meta.num_replicas * meta.num_partitions;
  std::vector<Instance> instances = instances_;
  if (execute_device != nullptr) {
    // A single-device program runs on any addressable device, also on a
    // process its assignment does not name.
    if (grid != 1) {
      return InvalidArgumentError("execute_device is only for single-device programs; this one "
                                  "runs on " + std::to_string(grid) + " devices");
    }
    if (!client_.Owns(execute_device) || !execute_device->is_addressable()) {
      return InvalidArgumentError("execute_device is not an addressable device of this client");
    }
    instances = {Instance{execute_device, 0, 0}};
  }
  if (argument_lists.size() != instances.size()) {
    return InvalidArgumentError(std::to_string(argument_lists.size()) +
                                " argument lists for a program running on " +
                                std::to_string(instances.size()) + " devices");
  }
  for (size_t d = 0; d < instances.size(); ++d) {
    BERTH_RETURN_IF_ERROR(CheckArguments(argument_lists[d], d));
  }
  // Every instance runs on other processes' devices: nothing to run here
  // (as a PJRT client, no outputs and no events).
  if (instances.empty()) return plugin::ExecuteResult{};

  // Instances on other processes' devices run there; collectives reach
  // them through the client's Gloo contexts.
  std::shared_ptr<CollectiveGroup> group;
  if (grid > 1) {
    InstancePlacement placement;
    placement.self_node = client_.process_index();
    if (client_.gloo() != nullptr) {
      placement.gloo = client_.gloo();
      for (int64_t id : device_assignment_) {
        BERTH_ASSIGN_OR_RETURN(plugin::Device * device, client_.LookupDevice(id));
        placement.node_of_instance.push_back(device->description().process_index());
      }
    }
    group = std::make_shared<CollectiveGroup>(grid, std::move(placement));
  }

  plugin::ExecuteResult result;
  std::vector<plugin::Device*> devices;
  std::vector<std::function<void()>> work;
  for (size_t d = 0; d < instances.size(); ++d) {
    const Instance& instance = instances[d];
    std::vector<std::shared_ptr<BufferContents>> inputs;
    for (plugin::Buffer* buffer : argument_lists[d]) {
      inputs.push_back(static_cast<CpuBuffer*>(buffer)->contents());
    }
    std::vector<std::shared_ptr<BufferContents>> outputs;
    std::vector<std::unique_ptr<plugin::Buffer>> output_buffers;
    for (size_t o = 0; o < meta.output_types.size(); ++o) {
      auto contents = std::make_shared<BufferContents>();
      outputs.push_back(contents);
      output_buffers.push_back(std::make_unique<CpuBuffer>(meta.output_types[o], meta.output_dims[o],
                                                           instance.device,
                                                           instance.device->default_memory(),
                                                           contents));
    }
    plugin::Event done;
    DeviceContext device;
    device.replica_id = instance.replica;
    device.partition_id = instance.partition;
    device.num_replicas = meta.num_replicas;
    device.num_partitions = meta.num_partitions;
    device.device_id = instance.device->id();
    device.device_assignment = device_assignment_;
    device.collectives = group.get();
    int64_t logical = instance.replica * meta.num_partitions + instance.partition;
    ThreadPool* pool = &client_.pool();
    // The client outlives every execution (its streams drain first).
    const plugin::EventCallbacks* events = &client_.event_callbacks();
    work.push_back([program = program_, meta = metadata(), pool, events, inputs, outputs, done,
                    device, group, logical]() mutable {
      const stablehlo::Function& entry = *program->entry;
      Status status;
      std::vector<Tensor> args;
      for (size_t i = 0; i < inputs.size() && status.ok(); ++i) {
        status = inputs[i]->ready().Await();
        if (!status.ok()) break;
        Result<std::shared_ptr<Storage>> storage = inputs[i]->storage();
        if (!storage.ok()) {
          status = storage.status().WithContext("argument " + std::to_string(i));
          break;
        }
        stablehlo::Type type = entry.argument_types()[i];
        args.push_back(Tensor::Wrap(type.element_type(),
                                    std::vector<int64_t>(type.shape().begin(), type.shape().end()),
                                    std::move(storage).value()));
      }
      Result<std::vector<Tensor>> values = status;
      if (status.ok()) {
        ExecContext ctx(*program->plan, pool, device);
        if (group) group->Attach(logical, &ctx);
        values = Interpreter::RunFunction(ctx, entry.name(), args);
        if (group) {
          if (!values.ok()) group->Abort(values.status());
          group->Detach(logical);
        }
      }
      if (values.ok()) {
        for (size_t o = 0; o < outputs.size(); ++o) outputs[o]->Fulfill((*values)[o].storage());
      } else {
        for (const auto& output : outputs) output->Fail(values.status());
      }
      // Event callbacks run before the completion event is set, so whoever
      // waits on it sees their effects.
      events->Emit(values.ok() ? BERTH_Callback_EventKind_ExecutionFinished
                               : BERTH_Callback_EventKind_ExecutionFailed,
                   meta->name, device.device_id, values.status());
      done.Set(values.status());
    });
    devices.push_back(instance.device);
    result.outputs.push_back(std::move(output_buffers));
    result.completion.push_back(done);
  }
  // A short program whose inputs are ready runs at once on the caller's
  // thread (its events are set on return): handing it to the stream thread
  // would cost more than running it.
  bool inline_run = grid == 1 && program_->plan->cheap() &&
                    std::all_of(argument_lists[0].begin(), argument_lists[0].end(),
                                [](plugin::Buffer* buffer) {
                                  return static_cast<CpuBuffer*>(buffer)->contents()->ready().IsReady();
                                });
  if (inline_run) {
    client_.RunInlineOrEnqueue(devices[0], std::move(work[0]));
  } else {
    client_.EnqueueLaunch(devices, std::move(work));
  }
  return result;
}

}  // namespace berth::cpu
