#include "client/client_state.hpp"

#include "berth/element_type.hpp"
#include "berth/extension_chain.hpp"
#include "berth/log.hpp"

namespace berth::core {

ClientState::~ClientState() {
  if (client == nullptr) return;
  BERTH_Client_Destroy_Args args{};
  args.struct_size = BERTH_Client_Destroy_Args_STRUCT_SIZE;
  args.client = client;
  if (Status status = BERTH_CALL(*library, BERTH_Client_Destroy, &args); !status.ok()) {
    Log(LogLevel::kWarning, "client",
        "plugin '" + plugin_name + "': destroying the client failed: " + status.ToString());
  }
}

const DeviceRecord* ClientState::FindDevice(BERTH_Device* device) const {
  for (const DeviceRecord& record : devices) {
    if (record.device == device) return &record;
  }
  return nullptr;
}

const MemoryRecord* ClientState::FindMemory(BERTH_Memory* memory) const {
  for (const MemoryRecord& record : memories) {
    if (record.memory == memory) return &record;
  }
  return nullptr;
}

Result<ElementType> CheckElementType(BERTH_Buffer_Type type, std::string_view what) {
  if (!IsValidElementType(static_cast<int32_t>(type))) {
    return InternalError(std::string(what) + ": the plugin reported an unknown element type " +
                         std::to_string(static_cast<int>(type)));
  }
  return static_cast<ElementType>(type);
}

namespace {

Status ReadDevice(const PluginLibrary& lib, DeviceRecord& record) {
  BERTH_Device_GetDescription_Args get{};
  get.struct_size = BERTH_Device_GetDescription_Args_STRUCT_SIZE;
  get.device = record.device;
  BERTH_RETURN_IF_ERROR(BERTH_CALL(lib, BERTH_Device_GetDescription, &get));
  BERTH_DeviceDescription* d = get.device_description;

  BERTH_DeviceDescription_Id_Args id{};
  id.struct_size = BERTH_DeviceDescription_Id_Args_STRUCT_SIZE;
  id.device_description = d;
  BERTH_RETURN_IF_ERROR(BERTH_CALL(lib, BERTH_DeviceDescription_Id, &id));
  record.id = id.id;

  BERTH_DeviceDescription_ProcessIndex_Args process{};
  process.struct_size = BERTH_DeviceDescription_ProcessIndex_Args_STRUCT_SIZE;
  process.device_description = d;
  BERTH_RETURN_IF_ERROR(BERTH_CALL(lib, BERTH_DeviceDescription_ProcessIndex, &process));
  record.process_index = process.process_index;

  BERTH_DeviceDescription_Kind_Args kind{};
  kind.struct_size = BERTH_DeviceDescription_Kind_Args_STRUCT_SIZE;
  kind.device_description = d;
  BERTH_RETURN_IF_ERROR(BERTH_CALL(lib, BERTH_DeviceDescription_Kind, &kind));
  record.kind = ToString(kind.device_kind, kind.device_kind_size);

  BERTH_DeviceDescription_Attributes_Args attrs{};
  attrs.struct_size = BERTH_DeviceDescription_Attributes_Args_STRUCT_SIZE;
  attrs.device_description = d;
  Status status = BERTH_CALL(lib, BERTH_DeviceDescription_Attributes, &attrs);
  if (status.ok()) {
    BERTH_ASSIGN_OR_RETURN(record.attributes, NamedValuesFromC(attrs.attributes, attrs.num_attributes,
                                                               "device attribute"));
  } else if (status.code() != StatusCode::kUnimplemented) {
    return status;
  }

  BERTH_DeviceDescription_DebugString_Args debug{};
  debug.struct_size = BERTH_DeviceDescription_DebugString_Args_STRUCT_SIZE;
  debug.device_description = d;
  status = BERTH_CALL(lib, BERTH_DeviceDescription_DebugString, &debug);
  record.debug_string = status.ok() ? ToString(debug.debug_string, debug.debug_string_size)
                                    : record.kind + ":" + std::to_string(record.id);

  BERTH_Device_IsAddressable_Args addressable{};
  addressable.struct_size = BERTH_Device_IsAddressable_Args_STRUCT_SIZE;
  addressable.device = record.device;
  BERTH_RETURN_IF_ERROR(BERTH_CALL(lib, BERTH_Device_IsAddressable, &addressable));
  record.is_addressable = addressable.is_addressable;

  if (record.is_addressable) {
    BERTH_Device_LocalHardwareId_Args hw{};
    hw.struct_size = BERTH_Device_LocalHardwareId_Args_STRUCT_SIZE;
    hw.device = record.device;
    status = BERTH_CALL(lib, BERTH_Device_LocalHardwareId, &hw);
    if (status.ok()) record.local_hardware_id = hw.local_hardware_id;
  }
  return OkStatus();
}

}  // namespace

Result<std::shared_ptr<ClientState>> ClientState::Create(
    std::shared_ptr<const PluginLibrary> library, const NamedValueMap& options,
    const BERTH_KeyValueStore* kv_store, int num_slices, int slice_id) {
  const PluginLibrary& lib = *library;
  auto state = std::make_shared<ClientState>();
  state->library = std::move(library);
  state->plugin_name = lib.name();
  state->create_options = options;
  state->ffi = lib.Extension<BERTH_Ffi_Extension>(BERTH_Extension_Type_Ffi,
                                                  BERTH_Ffi_Extension_STRUCT_SIZE);
  state->callback = lib.Extension<BERTH_Callback_Extension>(BERTH_Extension_Type_Callback,
                                                            BERTH_Callback_Extension_STRUCT_SIZE);
  state->custom_partitioner = lib.Extension<BERTH_CustomPartitioner_Extension>(
      BERTH_Extension_Type_CustomPartitioner, BERTH_CustomPartitioner_Extension_STRUCT_SIZE);
  state->abi_version = lib.Extension<BERTH_AbiVersion_Extension>(
      BERTH_Extension_Type_AbiVersion, BERTH_AbiVersion_Extension_STRUCT_SIZE);
  state->phase_compile = lib.Extension<BERTH_PhaseCompile_Extension>(
      BERTH_Extension_Type_PhaseCompile, BERTH_PhaseCompile_Extension_STRUCT_SIZE);

  state->multi_slice = lib.Extension<BERTH_MultiSlice_Extension>(
      BERTH_Extension_Type_MultiSlice, BERTH_MultiSlice_Extension_STRUCT_SIZE);
  state->collectives = lib.Extension<BERTH_Collectives_Extension>(
      BERTH_Extension_Type_Collectives, BERTH_Collectives_Extension_STRUCT_SIZE);

  NamedValueArray c_options(options);
  BERTH_Client_Create_Args create{};
  create.struct_size = BERTH_Client_Create_Args_STRUCT_SIZE;
  create.options = c_options.data();
  create.num_options = c_options.size();
  create.kv_store = kv_store;
  BERTH_MultiSlice_Topology slices = ext::multi_slice::MakeTopology(num_slices, slice_id);
  if (num_slices > 1 && state->multi_slice != nullptr) {
    create.extension_start = &slices.base;
  } else if (num_slices > 1) {
    Log(LogLevel::kWarning, "client",
        "plugin '" + lib.name() + "' does not take the job's " + std::to_string(num_slices) +
            " slices (no multi_slice extension): its collectives do not know them");
  }
  BERTH_RETURN_IF_ERROR(BERTH_CALL(lib, BERTH_Client_Create, &create).WithContext(
      "plugin '" + lib.name() + "': creating a client"));
  if (create.client == nullptr) {
    return InternalError("plugin '" + lib.name() + "': BERTH_Client_Create returned no client");
  }
  state->client = create.client;
  const std::string context = "plugin '" + lib.name() + "'";

  BERTH_Client_PlatformName_Args name{};
  name.struct_size = BERTH_Client_PlatformName_Args_STRUCT_SIZE;
  name.client = state->client;
  BERTH_RETURN_IF_ERROR(BERTH_CALL(lib, BERTH_Client_PlatformName, &name).WithContext(context));
  state->platform_name = ToString(name.platform_name, name.platform_name_size);

  BERTH_Client_PlatformVersion_Args version{};
  version.struct_size = BERTH_Client_PlatformVersion_Args_STRUCT_SIZE;
  version.client = state->client;
  if (BERTH_CALL(lib, BERTH_Client_PlatformVersion, &version).ok()) {
    state->platform_version = ToString(version.platform_version, version.platform_version_size);
  }

  BERTH_Client_ProcessIndex_Args process{};
  process.struct_size = BERTH_Client_ProcessIndex_Args_STRUCT_SIZE;
  process.client = state->client;
  if (BERTH_CALL(lib, BERTH_Client_ProcessIndex, &process).ok()) {
    state->process_index = process.process_index;
  }

  BERTH_Client_AddressableMemories_Args memories{};
  memories.struct_size = BERTH_Client_AddressableMemories_Args_STRUCT_SIZE;
  memories.client = state->client;
  Status status = BERTH_CALL(lib, BERTH_Client_AddressableMemories, &memories);
  if (status.ok()) {
    for (size_t i = 0; i < memories.num_addressable_memories; ++i) {
      MemoryRecord record;
      record.memory = memories.addressable_memories[i];
      BERTH_Memory_Id_Args id{};
      id.struct_size = BERTH_Memory_Id_Args_STRUCT_SIZE;
      id.memory = record.memory;
      BERTH_RETURN_IF_ERROR(BERTH_CALL(lib, BERTH_Memory_Id, &id).WithContext(context));
      record.id = id.id;
      BERTH_Memory_Kind_Args kind{};
      kind.struct_size = BERTH_Memory_Kind_Args_STRUCT_SIZE;
      kind.memory = record.memory;
      BERTH_RETURN_IF_ERROR(BERTH_CALL(lib, BERTH_Memory_Kind, &kind).WithContext(context));
      record.kind = ToString(kind.kind, kind.kind_size);
      state->memories.push_back(std::move(record));
    }
  } else if (status.code() != StatusCode::kUnimplemented) {
    return status.WithContext(context);
  }

  BERTH_Client_Devices_Args devices{};
  devices.struct_size = BERTH_Client_Devices_Args_STRUCT_SIZE;
  devices.client = state->client;
  BERTH_RETURN_IF_ERROR(BERTH_CALL(lib, BERTH_Client_Devices, &devices).WithContext(context));
  for (size_t i = 0; i < devices.num_devices; ++i) {
    DeviceRecord record;
    record.device = devices.devices[i];
    if (record.device == nullptr) {
      return InternalError(context + ": BERTH_Client_Devices listed a NULL device");
    }
    BERTH_RETURN_IF_ERROR(ReadDevice(lib, record).WithContext(context));
    if (record.is_addressable) {
      BERTH_Device_AddressableMemories_Args dm{};
      dm.struct_size = BERTH_Device_AddressableMemories_Args_STRUCT_SIZE;
      dm.device = record.device;
      if (BERTH_CALL(lib, BERTH_Device_AddressableMemories, &dm).ok()) {
        for (size_t m = 0; m < dm.num_memories; ++m) {
          for (size_t k = 0; k < state->memories.size(); ++k) {
            if (state->memories[k].memory == dm.memories[m]) record.memory_indices.push_back(k);
          }
        }
      }
    }
    state->devices.push_back(std::move(record));
  }
  return state;
}

void ClientState::NoteRegistration(const std::string& what, const std::string& identity) const {
  std::lock_guard lock(registrations_mutex);
  registrations[what] = identity;
}

void ClientState::ForgetRegistration(const std::string& what) const {
  std::lock_guard lock(registrations_mutex);
  registrations.erase(what);
}

std::string ClientState::CompilationKey(std::string_view code, const CompileOptions& options) const {
  CompilationKeyBuilder key;
  key.Add("plugin", plugin_name).Add("platform", platform_name).Add("platform_version", platform_version);
  key.Add("api", library->NegotiatedVersion());
  if (Result<AbiVersions> versions = ext::abi_version::RuntimeVersions(abi_version_client()); versions.ok()) {
    key.Add("runtime", std::to_string(versions->runtime.major) + "." + std::to_string(versions->runtime.minor));
    key.Add("executable", std::to_string(versions->newest_executable.major) + "." +
                              std::to_string(versions->newest_executable.minor));
  }
  key.Add("process_index", process_index).Add("create_options", create_options);
  std::string devices;
  for (const DeviceRecord& device : this->devices) devices += std::to_string(device.id) + ",";
  key.Add("devices", devices);
  // A plugin may compile the job's slices in (the cpu plugin's plans record
  // them and refuse another layout): entries of other layouts never match.
  if (multi_slice != nullptr) {
    if (Result<SliceLayout> layout =
            ext::multi_slice::DeviceSlices(*library, client, multi_slice, this->devices.size());
        layout.ok()) {
      std::string slices = std::to_string(layout->num_slices) + ":";
      for (int32_t slice : layout->device_slices) slices += std::to_string(slice) + ",";
      key.Add("slices", slices);
    }
  }
  for (const auto& module : attached_modules) key.Add("module " + module->name(), module->Attributes());
  {
    std::lock_guard lock(registrations_mutex);
    for (const auto& [what, identity] : registrations) key.Add(what, identity);
  }
  key.Add("format", options.format).Add("entry", options.entry_name);
  key.Add("num_replicas", options.num_replicas).Add("num_partitions", options.num_partitions);
  std::string assignment;
  for (int64_t device : options.device_assignment) assignment += std::to_string(device) + ",";
  key.Add("device_assignment", assignment).Add("options", options.options).Add("code", code);
  return key.Finish();
}

}  // namespace berth::core
