#include "berth/executable.hpp"

#include "abi_version/abi_version_client.hpp"
#include "berth/log.hpp"
#include "client/client_state.hpp"

namespace berth {

Result<std::string> Executable::Serialize() const {
  if (client_ == nullptr || executable_ == nullptr) {
    return FailedPreconditionError("Serialize: the executable is empty (moved from)");
  }
  return ext::abi_version::Serialize(client_->abi_version_client(), executable_, name_);
}

Result<Executable> Executable::Adopt(std::shared_ptr<const core::ClientState> client,
                                     BERTH_LoadedExecutable* executable) {
  Executable out;
  out.client_ = std::move(client);
  out.executable_ = executable;  // owned from here on
  const core::PluginLibrary& lib = *out.client_->library;

  BERTH_LoadedExecutable_GetExecutable_Args get{};
  get.struct_size = BERTH_LoadedExecutable_GetExecutable_Args_STRUCT_SIZE;
  get.loaded_executable = executable;
  BERTH_RETURN_IF_ERROR(BERTH_CALL(lib, BERTH_LoadedExecutable_GetExecutable, &get));
  // Owns the compiled-executable view until this function returns.
  struct ViewDeleter {
    const core::PluginLibrary* lib;
    void operator()(BERTH_Executable* e) const {
      BERTH_Executable_Destroy_Args args{};
      args.struct_size = BERTH_Executable_Destroy_Args_STRUCT_SIZE;
      args.executable = e;
      BERTH_CALL(*lib, BERTH_Executable_Destroy, &args).IgnoreError();
    }
  };
  std::unique_ptr<BERTH_Executable, ViewDeleter> view(get.executable, ViewDeleter{&lib});

  BERTH_Executable_Name_Args name{};
  name.struct_size = BERTH_Executable_Name_Args_STRUCT_SIZE;
  name.executable = view.get();
  BERTH_RETURN_IF_ERROR(BERTH_CALL(lib, BERTH_Executable_Name, &name));
  out.name_ = core::ToString(name.executable_name, name.executable_name_size);

  BERTH_Executable_NumReplicas_Args replicas{};
  replicas.struct_size = BERTH_Executable_NumReplicas_Args_STRUCT_SIZE;
  replicas.executable = view.get();
  BERTH_RETURN_IF_ERROR(BERTH_CALL(lib, BERTH_Executable_NumReplicas, &replicas));
  out.num_replicas_ = replicas.num_replicas;
  out.num_partitions_ = replicas.num_partitions;

  BERTH_Executable_OutputElementTypes_Args types{};
  types.struct_size = BERTH_Executable_OutputElementTypes_Args_STRUCT_SIZE;
  types.executable = view.get();
  BERTH_RETURN_IF_ERROR(BERTH_CALL(lib, BERTH_Executable_OutputElementTypes, &types));
  for (size_t i = 0; i < types.num_output_types; ++i) {
    BERTH_ASSIGN_OR_RETURN(ElementType type,
                           core::CheckElementType(types.output_types[i], "output element type"));
    out.output_types_.push_back(type);
  }

  BERTH_Executable_OutputDimensions_Args dims{};
  dims.struct_size = BERTH_Executable_OutputDimensions_Args_STRUCT_SIZE;
  dims.executable = view.get();
  BERTH_RETURN_IF_ERROR(BERTH_CALL(lib, BERTH_Executable_OutputDimensions, &dims));
  if (dims.num_outputs != out.output_types_.size()) {
    return InternalError("the plugin reports " + std::to_string(out.output_types_.size()) +
                         " output types but " + std::to_string(dims.num_outputs) +
                         " output shapes");
  }
  size_t offset = 0;
  for (size_t i = 0; i < dims.num_outputs; ++i) {
    out.output_dims_.emplace_back(dims.dims + offset, dims.dims + offset + dims.dim_sizes[i]);
    offset += dims.dim_sizes[i];
    for (int64_t d : out.output_dims_.back()) {
      if (d < 0) out.static_outputs_ = false;
    }
  }

  for (BERTH_Executable_Side side : {BERTH_Executable_Side_Parameters, BERTH_Executable_Side_Outputs}) {
    BERTH_Executable_Shardings_Args shardings{};
    shardings.struct_size = BERTH_Executable_Shardings_Args_STRUCT_SIZE;
    shardings.executable = view.get();
    shardings.side = side;
    Status status = BERTH_CALL(lib, BERTH_Executable_Shardings, &shardings);
    if (status.code() == StatusCode::kUnimplemented) break;  // a plugin older than ABI 1.2
    BERTH_RETURN_IF_ERROR(status);
    const bool outputs = side == BERTH_Executable_Side_Outputs;
    if (outputs && shardings.num_values != 0 && shardings.num_values != out.output_types_.size()) {
      return InternalError("the plugin reports " + std::to_string(shardings.num_values) + " output shardings for " +
                           std::to_string(out.output_types_.size()) + " outputs");
    }
    if (shardings.num_values != 0 &&
        (shardings.shardings == nullptr || shardings.global_dims == nullptr || shardings.global_dim_sizes == nullptr)) {
      return InternalError("BERTH_Executable_Shardings returned NULL arrays for " +
                           std::to_string(shardings.num_values) + " values");
    }
    std::vector<ValueSharding>& values = outputs ? out.output_shardings_ : out.parameter_shardings_;
    size_t offset = 0;
    for (size_t i = 0; i < shardings.num_values; ++i) {
      if (shardings.shardings[i] == nullptr) {
        return InternalError("BERTH_Executable_Shardings: sharding " + std::to_string(i) + " is NULL");
      }
      values.push_back({shardings.shardings[i], std::vector<int64_t>(shardings.global_dims + offset,
                                                                     shardings.global_dims + offset +
                                                                         shardings.global_dim_sizes[i])});
      offset += shardings.global_dim_sizes[i];
    }
  }

  BERTH_LoadedExecutable_AddressableDevices_Args devices{};
  devices.struct_size = BERTH_LoadedExecutable_AddressableDevices_Args_STRUCT_SIZE;
  devices.executable = executable;
  BERTH_RETURN_IF_ERROR(BERTH_CALL(lib, BERTH_LoadedExecutable_AddressableDevices, &devices));
  for (size_t i = 0; i < devices.num_addressable_devices; ++i) {
    const core::DeviceRecord* record = out.client_->FindDevice(devices.addressable_devices[i]);
    if (record == nullptr) {
      return InternalError("the executable lists a device the client does not have");
    }
    out.devices_.emplace_back(out.client_, record);
  }
  return out;
}

Executable::Executable(Executable&& other) noexcept { *this = std::move(other); }

Executable& Executable::operator=(Executable&& other) noexcept {
  // The old contents end up in `other`, which frees them when it goes away.
  std::swap(client_, other.client_);
  std::swap(executable_, other.executable_);
  std::swap(name_, other.name_);
  std::swap(num_replicas_, other.num_replicas_);
  std::swap(num_partitions_, other.num_partitions_);
  std::swap(output_types_, other.output_types_);
  std::swap(output_dims_, other.output_dims_);
  std::swap(parameter_shardings_, other.parameter_shardings_);
  std::swap(output_shardings_, other.output_shardings_);
  std::swap(static_outputs_, other.static_outputs_);
  std::swap(devices_, other.devices_);
  return *this;
}

Executable::~Executable() { Reset(); }

void Executable::Reset() {
  if (executable_ == nullptr) return;
  BERTH_LoadedExecutable_Destroy_Args args{};
  args.struct_size = BERTH_LoadedExecutable_Destroy_Args_STRUCT_SIZE;
  args.executable = std::exchange(executable_, nullptr);
  if (Status status = BERTH_CALL(*client_->library, BERTH_LoadedExecutable_Destroy, &args);
      !status.ok()) {
    Log(LogLevel::kWarning, "client", "destroying an executable failed: " + status.ToString());
  }
}

Result<ExecuteResult> Executable::Execute(
    const std::vector<std::vector<const Buffer*>>& argument_lists,
    const ExecuteOptions& options) const {
  return Run(argument_lists, options, nullptr);
}

Result<ExecuteResult> Executable::ExecuteOn(const Device& device,
                                            const std::vector<const Buffer*>& arguments,
                                            const ExecuteOptions& options) const {
  return Run(std::span(&arguments, 1), options, device.c_device());
}

Result<ExecuteResult> Executable::Run(std::span<const std::vector<const Buffer*>> argument_lists,
                                      const ExecuteOptions& options,
                                      BERTH_Device* execute_device) const {
  if (executable_ == nullptr) {
    return FailedPreconditionError("the executable is empty (moved from)");
  }
  const size_t num_devices = argument_lists.size();
  const size_t num_args = num_devices > 0 ? argument_lists[0].size() : 0;
  const size_t num_outputs = output_types_.size();
  // The C arrays, each flat: arguments and outputs of device d start at
  // d * num_args and d * num_outputs.
  std::vector<BERTH_Buffer*> c_args(num_devices * num_args);
  std::vector<BERTH_Buffer* const*> c_arg_lists(num_devices);
  std::vector<BERTH_Buffer*> c_outputs(num_devices * num_outputs);
  std::vector<BERTH_Buffer**> c_output_lists(num_devices);
  std::vector<BERTH_Event*> c_events(num_devices, nullptr);
  for (size_t d = 0; d < num_devices; ++d) {
    if (argument_lists[d].size() != num_args) {
      return InvalidArgumentError("Execute: device " + std::to_string(d) + " has " +
                                  std::to_string(argument_lists[d].size()) +
                                  " arguments, device 0 has " + std::to_string(num_args));
    }
    for (size_t i = 0; i < num_args; ++i) {
      const Buffer* buffer = argument_lists[d][i];
      if (buffer == nullptr || !buffer->valid()) {
        return InvalidArgumentError("Execute: argument " + std::to_string(i) + " of device " +
                                    std::to_string(d) + " is empty");
      }
      c_args[d * num_args + i] = buffer->c_buffer();
    }
    c_arg_lists[d] = c_args.data() + d * num_args;
    c_output_lists[d] = c_outputs.data() + d * num_outputs;
  }

  BERTH_ExecuteOptions c_options{};
  c_options.struct_size = BERTH_ExecuteOptions_STRUCT_SIZE;
  c_options.launch_id = options.launch_id;
  BERTH_LoadedExecutable_Execute_Args args{};
  args.struct_size = BERTH_LoadedExecutable_Execute_Args_STRUCT_SIZE;
  args.executable = executable_;
  args.options = &c_options;
  args.argument_lists = c_arg_lists.data();
  args.num_devices = num_devices;
  args.num_args = num_args;
  args.output_lists = c_output_lists.data();
  args.device_complete_events = c_events.data();
  args.execute_device = execute_device;
  BERTH_RETURN_IF_ERROR(BERTH_CALL(*client_->library, BERTH_LoadedExecutable_Execute, &args));

  // Adopt everything first so nothing leaks if one output is malformed.
  ExecuteResult result;
  result.completion.reserve(num_devices);
  result.outputs.resize(num_devices);
  Status first_error;
  for (size_t d = 0; d < num_devices; ++d) {
    result.completion.emplace_back(client_->library, c_events[d]);
    std::vector<Buffer>& outputs = result.outputs[d];
    outputs.reserve(num_outputs);
    for (size_t o = 0; o < num_outputs; ++o) {
      BERTH_Buffer* c_buffer = c_outputs[d * num_outputs + o];
      Result<Buffer> buffer =
          static_outputs_ && c_buffer != nullptr
              ? Buffer::AdoptWithShape(client_, c_buffer, output_types_[o], output_dims_[o])
              : Buffer::Adopt(client_, c_buffer);
      if (buffer.ok()) {
        outputs.push_back(std::move(buffer).value());
      } else if (first_error.ok()) {
        first_error = buffer.status();
      }
    }
  }
  BERTH_RETURN_IF_ERROR(first_error);
  return result;
}

}  // namespace berth
