// C entry points for compiling and executing programs.
#include "abi_glue.hpp"
#include "berth/shape.hpp"

namespace berth::plugin::glue {

Result<BERTH_LoadedExecutable*> WrapExecutable(std::unique_ptr<LoadedExecutable> executable,
                                               const char* function) {
  if (executable == nullptr || executable->metadata() == nullptr) {
    return InternalError(std::string(function) + ": the plugin returned no executable");
  }
  auto loaded = std::make_unique<BERTH_LoadedExecutable>();
  for (Device* device : executable->addressable_devices()) loaded->c_devices.push_back(ToC(device));
  loaded->impl = std::move(executable);
  return loaded.release();
}

Result<Program> ProgramFromC(const BERTH_Program* c_program, const char* function) {
  if (c_program == nullptr) return NullArgument(function, "program");
  const BERTH_Program& p = *c_program;
  if (p.struct_size < BERTH_Program_STRUCT_SIZE) {
    return StructSizeError("BERTH_Program", BERTH_Program_STRUCT_SIZE, p.struct_size);
  }
  if ((p.format == nullptr && p.format_size > 0) || (p.code == nullptr && p.code_size > 0)) {
    return NullArgument(function, "program format or code");
  }
  return Program{std::string_view(p.format ? p.format : "", p.format_size),
                 std::string_view(p.code ? p.code : "", p.code_size)};
}

Result<CompileOptions> CompileOptionsFromC(const BERTH_CompileOptions* o, const char* function) {
  CompileOptions options;
  if (o == nullptr) return options;
  if (o->struct_size < BERTH_CompileOptions_STRUCT_SIZE) {
    return StructSizeError("BERTH_CompileOptions", BERTH_CompileOptions_STRUCT_SIZE, o->struct_size);
  }
  if (o->num_replicas < 0 || o->num_partitions < 0) {
    return InvalidArgumentError(std::string(function) + ": negative replica or partition count");
  }
  options.num_replicas = o->num_replicas;
  options.num_partitions = o->num_partitions;
  if (o->device_assignment != nullptr) {
    options.device_assignment.assign(o->device_assignment, o->device_assignment + o->device_assignment_size);
  }
  if (o->entry_name != nullptr) options.entry_name.assign(o->entry_name, o->entry_name_size);
  BERTH_ASSIGN_OR_RETURN(options.options, NamedValuesFromC(o->options, o->num_options, "compile option"));
  BERTH_RETURN_IF_ERROR(CheckReservedCompileOptions(options.options));
  return options;
}

namespace {

BERTH_Error* ClientCompile(BERTH_Client_Compile_Args* args) {
  constexpr const char* kFn = "BERTH_Client_Compile";
  return Guard(kFn, args, BERTH_Client_Compile_Args_STRUCT_SIZE, [&]() -> Status {
    args->executable = nullptr;
    if (args->client == nullptr) return NullArgument(kFn, "client");
    BERTH_ASSIGN_OR_RETURN(Program program, ProgramFromC(args->program, kFn));
    BERTH_ASSIGN_OR_RETURN(CompileOptions options, CompileOptionsFromC(args->options, kFn));
    BERTH_ASSIGN_OR_RETURN(std::unique_ptr<LoadedExecutable> executable,
                           args->client->impl->Compile(program, options));
    BERTH_ASSIGN_OR_RETURN(args->executable, WrapExecutable(std::move(executable), kFn));
    return OkStatus();
  });
}

Result<BERTH_Executable*> CheckExecutable(BERTH_Executable* e, const char* function) {
  if (e == nullptr) return NullArgument(function, "executable");
  return e;
}

BERTH_Error* ExecutableDestroy(BERTH_Executable_Destroy_Args* args) {
  return Guard("BERTH_Executable_Destroy", args, BERTH_Executable_Destroy_Args_STRUCT_SIZE, [&] {
    delete args->executable;
    return OkStatus();
  });
}

BERTH_Error* ExecutableName(BERTH_Executable_Name_Args* args) {
  return Guard("BERTH_Executable_Name", args, BERTH_Executable_Name_Args_STRUCT_SIZE,
               [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(auto* e, CheckExecutable(args->executable, "BERTH_Executable_Name"));
                 args->executable_name = e->metadata->name.data();
                 args->executable_name_size = e->metadata->name.size();
                 return OkStatus();
               });
}

BERTH_Error* ExecutableNumReplicas(BERTH_Executable_NumReplicas_Args* args) {
  return Guard("BERTH_Executable_NumReplicas", args,
               BERTH_Executable_NumReplicas_Args_STRUCT_SIZE, [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(auto* e, CheckExecutable(args->executable, "BERTH_Executable_NumReplicas"));
                 args->num_replicas = e->metadata->num_replicas;
                 args->num_partitions = e->metadata->num_partitions;
                 return OkStatus();
               });
}

BERTH_Error* ExecutableNumOutputs(BERTH_Executable_NumOutputs_Args* args) {
  return Guard("BERTH_Executable_NumOutputs", args, BERTH_Executable_NumOutputs_Args_STRUCT_SIZE,
               [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(auto* e, CheckExecutable(args->executable, "BERTH_Executable_NumOutputs"));
                 args->num_outputs = e->output_types.size();
                 return OkStatus();
               });
}

BERTH_Error* ExecutableOutputTypes(BERTH_Executable_OutputElementTypes_Args* args) {
  return Guard("BERTH_Executable_OutputElementTypes", args,
               BERTH_Executable_OutputElementTypes_Args_STRUCT_SIZE, [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(auto* e, CheckExecutable(args->executable, "BERTH_Executable_OutputElementTypes"));
                 args->output_types = e->output_types.data();
                 args->num_output_types = e->output_types.size();
                 return OkStatus();
               });
}

BERTH_Error* ExecutableOutputDimensions(BERTH_Executable_OutputDimensions_Args* args) {
  return Guard("BERTH_Executable_OutputDimensions", args,
               BERTH_Executable_OutputDimensions_Args_STRUCT_SIZE, [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(auto* e, CheckExecutable(args->executable, "BERTH_Executable_OutputDimensions"));
                 args->num_outputs = e->output_dim_sizes.size();
                 args->dims = e->output_dims.data();
                 args->dim_sizes = e->output_dim_sizes.data();
                 return OkStatus();
               });
}

BERTH_Error* ExecutableShardings(BERTH_Executable_Shardings_Args* args) {
  return Guard("BERTH_Executable_Shardings", args, BERTH_Executable_Shardings_Args_STRUCT_SIZE,
               [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(auto* e, CheckExecutable(args->executable, "BERTH_Executable_Shardings"));
                 if (args->side != BERTH_Executable_Side_Parameters && args->side != BERTH_Executable_Side_Outputs) {
                   return InvalidArgumentError("BERTH_Executable_Shardings: side " + std::to_string(args->side) +
                                               " is neither parameters (0) nor outputs (1)");
                 }
                 const BERTH_Executable::Shardings& side = e->shardings[args->side];
                 args->num_values = side.texts.size();
                 args->shardings = side.texts.data();
                 args->global_dims = side.dims.data();
                 args->global_dim_sizes = side.dim_sizes.data();
                 return OkStatus();
               });
}

Result<BERTH_LoadedExecutable*> CheckLoaded(BERTH_LoadedExecutable* e, const char* function) {
  if (e == nullptr || e->impl == nullptr) return NullArgument(function, "executable");
  return e;
}

BERTH_Error* LoadedDestroy(BERTH_LoadedExecutable_Destroy_Args* args) {
  return Guard("BERTH_LoadedExecutable_Destroy", args,
               BERTH_LoadedExecutable_Destroy_Args_STRUCT_SIZE, [&] {
                 delete args->executable;
                 return OkStatus();
               });
}

BERTH_Error* LoadedGetExecutable(BERTH_LoadedExecutable_GetExecutable_Args* args) {
  return Guard("BERTH_LoadedExecutable_GetExecutable", args,
               BERTH_LoadedExecutable_GetExecutable_Args_STRUCT_SIZE, [&]() -> Status {
                 args->executable = nullptr;
                 if (args->loaded_executable == nullptr || !args->loaded_executable->impl) {
                   return NullArgument("BERTH_LoadedExecutable_GetExecutable", "loaded_executable");
                 }
                 auto executable = std::make_unique<BERTH_Executable>();
                 executable->metadata = args->loaded_executable->impl->metadata();
                 const ExecutableMetadata& m = *executable->metadata;
                 for (ElementType type : m.output_types) {
                   executable->output_types.push_back(static_cast<BERTH_Buffer_Type>(type));
                 }
                 for (const std::vector<int64_t>& dims : m.output_dims) {
                   executable->output_dims.insert(executable->output_dims.end(), dims.begin(), dims.end());
                   executable->output_dim_sizes.push_back(dims.size());
                 }
                 const std::vector<ValueSharding>* sides[2] = {&m.parameter_shardings, &m.output_shardings};
                 for (int side = 0; side < 2; ++side) {
                   BERTH_Executable::Shardings& out = executable->shardings[side];
                   for (const ValueSharding& value : *sides[side]) {
                     out.texts.push_back(value.sharding.c_str());
                     out.dims.insert(out.dims.end(), value.global_dims.begin(), value.global_dims.end());
                     out.dim_sizes.push_back(value.global_dims.size());
                   }
                 }
                 args->executable = executable.release();
                 return OkStatus();
               });
}

BERTH_Error* LoadedAddressableDevices(BERTH_LoadedExecutable_AddressableDevices_Args* args) {
  return Guard("BERTH_LoadedExecutable_AddressableDevices", args,
               BERTH_LoadedExecutable_AddressableDevices_Args_STRUCT_SIZE, [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(auto* e, CheckLoaded(args->executable, "BERTH_LoadedExecutable_AddressableDevices"));
                 args->addressable_devices = e->c_devices.data();
                 args->num_addressable_devices = e->c_devices.size();
                 return OkStatus();
               });
}

// The outputs of one device are what the executable reports (hosts adopt
// them with those types and dims without asking each buffer): the count,
// each element type, and each dimension the metadata gives (a negative one
// is dynamic and not compared).
Status CheckOutputs(const ExecutableMetadata& metadata,
                    const std::vector<std::unique_ptr<Buffer>>& outputs, size_t device,
                    const char* function) {
  const std::string where = std::string(function) + ": device " + std::to_string(device);
  if (outputs.size() != metadata.output_types.size()) {
    return InternalError(where + ": the plugin returned " + std::to_string(outputs.size()) +
                         " outputs; the executable reports " +
                         std::to_string(metadata.output_types.size()));
  }
  for (size_t o = 0; o < outputs.size(); ++o) {
    const std::string output = where + ", output " + std::to_string(o);
    if (outputs[o] == nullptr) return InternalError(output + " is NULL");
    const Buffer& buffer = *outputs[o];
    if (buffer.element_type() != metadata.output_types[o]) {
      return InternalError(output + " is of type " +
                           std::string(ElementTypeName(buffer.element_type())) +
                           "; the executable reports " +
                           std::string(ElementTypeName(metadata.output_types[o])));
    }
    if (o >= metadata.output_dims.size()) continue;
    const std::vector<int64_t>& want = metadata.output_dims[o];
    const std::vector<int64_t>& got = buffer.dims();
    bool same = want.size() == got.size();
    for (size_t i = 0; same && i < want.size(); ++i) same = want[i] < 0 || want[i] == got[i];
    if (!same) {
      return InternalError(output + " has dims " + DimsString(got) +
                           "; the executable reports " + DimsString(want));
    }
  }
  return OkStatus();
}

BERTH_Error* LoadedExecute(BERTH_LoadedExecutable_Execute_Args* args) {
  constexpr const char* kFn = "BERTH_LoadedExecutable_Execute";
  return Guard(kFn, args, BERTH_LoadedExecutable_Execute_Args_STRUCT_SIZE, [&]() -> Status {
    BERTH_ASSIGN_OR_RETURN(auto* e, CheckLoaded(args->executable, kFn));
    LoadedExecutable& executable = *e->impl;
    ExecuteOptions options;
    if (args->options != nullptr) {
      if (args->options->struct_size < BERTH_ExecuteOptions_STRUCT_SIZE) {
        return StructSizeError("BERTH_ExecuteOptions", BERTH_ExecuteOptions_STRUCT_SIZE,
                               args->options->struct_size);
      }
      options.launch_id = args->options->launch_id;
    }
    Device* execute_device = args->execute_device ? FromC(args->execute_device) : nullptr;
    size_t expected_devices = execute_device ? 1 : executable.addressable_devices().size();
    if (args->num_devices != expected_devices) {
      return InvalidArgumentError(std::string(kFn) + ": " + std::to_string(args->num_devices) +
                                  " argument lists given; the executable runs on " +
                                  std::to_string(expected_devices) + " addressable devices");
    }
    if (args->num_devices > 0 && args->num_args > 0 && args->argument_lists == nullptr) {
      return NullArgument(kFn, "argument_lists");
    }
    if (args->num_devices > 0 && args->output_lists == nullptr) {
      return NullArgument(kFn, "output_lists");
    }
    const size_t num_outputs = executable.metadata()->output_types.size();
    std::vector<std::vector<Buffer*>> lists(args->num_devices);
    for (size_t d = 0; d < args->num_devices; ++d) {
      if (num_outputs > 0 && args->output_lists[d] == nullptr) {
        return InvalidArgumentError(std::string(kFn) + ": output_lists[" + std::to_string(d) +
                                    "] is NULL");
      }
      if (args->num_args == 0) continue;
      if (args->argument_lists[d] == nullptr) {
        return InvalidArgumentError(std::string(kFn) + ": argument_lists[" + std::to_string(d) +
                                    "] is NULL");
      }
      for (size_t i = 0; i < args->num_args; ++i) {
        BERTH_Buffer* buffer = args->argument_lists[d][i];
        if (buffer == nullptr || buffer->impl == nullptr) {
          return InvalidArgumentError(std::string(kFn) + ": argument " + std::to_string(i) +
                                      " on device " + std::to_string(d) + " is NULL");
        }
        if (buffer->impl->IsDeleted()) {
          return FailedPreconditionError(std::string(kFn) + ": argument " + std::to_string(i) +
                                         " on device " + std::to_string(d) +
                                         " has been deleted");
        }
        lists[d].push_back(buffer->impl.get());
      }
    }
    BERTH_ASSIGN_OR_RETURN(ExecuteResult result, executable.Execute(lists, options, execute_device));
    if (result.outputs.size() != args->num_devices || result.completion.size() != args->num_devices) {
      return InternalError(std::string(kFn) + ": the plugin returned results for " +
                           std::to_string(result.outputs.size()) + " devices, expected " +
                           std::to_string(args->num_devices));
    }
    for (size_t d = 0; d < result.outputs.size(); ++d) {
      BERTH_RETURN_IF_ERROR(CheckOutputs(*executable.metadata(), result.outputs[d], d, kFn));
    }
    for (size_t d = 0; d < args->num_devices; ++d) {
      for (size_t o = 0; o < num_outputs; ++o) {
        args->output_lists[d][o] = new BERTH_Buffer{std::move(result.outputs[d][o])};
      }
      if (args->device_complete_events != nullptr) {
        args->device_complete_events[d] = NewCEvent(result.completion[d]);
      }
    }
    return OkStatus();
  });
}

}  // namespace

void FillExecutableEntries(BERTH_Api& api) {
  api.BERTH_Client_Compile = ClientCompile;
  api.BERTH_Executable_Destroy = ExecutableDestroy;
  api.BERTH_Executable_Name = ExecutableName;
  api.BERTH_Executable_NumReplicas = ExecutableNumReplicas;
  api.BERTH_Executable_NumOutputs = ExecutableNumOutputs;
  api.BERTH_Executable_OutputElementTypes = ExecutableOutputTypes;
  api.BERTH_Executable_OutputDimensions = ExecutableOutputDimensions;
  api.BERTH_Executable_Shardings = ExecutableShardings;
  api.BERTH_LoadedExecutable_Destroy = LoadedDestroy;
  api.BERTH_LoadedExecutable_GetExecutable = LoadedGetExecutable;
  api.BERTH_LoadedExecutable_AddressableDevices = LoadedAddressableDevices;
  api.BERTH_LoadedExecutable_Execute = LoadedExecute;
}

}  // namespace berth::plugin::glue
