// C entry points for errors, plugin, events, client, devices, memories and
// topology.
#include <cstring>

#include "abi_glue.hpp"

namespace berth::plugin::glue {

Status InitializePlugin(const BERTH_Plugin_Initialize_Args& args);

BERTH_Error* ToC(Status status) {
  if (status.ok()) return nullptr;
  try {
    return new BERTH_Error{std::move(status)};
  } catch (...) {
    // Out of memory while reporting an error: a static error is all we can
    // give, and destroying it must be a no-op.
    static BERTH_Error* out_of_memory =
        new (std::nothrow) BERTH_Error{ResourceExhaustedError("out of memory")};
    return out_of_memory;
  }
}

Status StructSizeError(const char* struct_name, size_t expected, size_t actual) {
  return InvalidArgumentError(std::string(struct_name) + ": struct_size is " +
                              std::to_string(actual) + " bytes, smaller than the " +
                              std::to_string(expected) +
                              " bytes this plugin requires; the caller was built against an "
                              "incompatible berth/c_api.h");
}

Status NullArgument(const char* function, const char* field) {
  return InvalidArgumentError(std::string(function) + ": " + field + " is NULL");
}

BERTH_Event* NewCEvent(Event event) { return new BERTH_Event{std::move(event)}; }

namespace {

// ------------------------------------------------------------------- errors

void ErrorDestroy(BERTH_Error_Destroy_Args* args) {
  if (args == nullptr || args->struct_size < BERTH_Error_Destroy_Args_STRUCT_SIZE) return;
  delete args->error;
}

void ErrorMessage(BERTH_Error_Message_Args* args) {
  if (args == nullptr || args->struct_size < BERTH_Error_Message_Args_STRUCT_SIZE) return;
  if (args->error == nullptr) {
    args->message = "";
    args->message_size = 0;
    return;
  }
  args->message = args->error->status.message().data();
  args->message_size = args->error->status.message().size();
}

BERTH_Error* ErrorGetCode(BERTH_Error_GetCode_Args* args) {
  return Guard("BERTH_Error_GetCode", args, BERTH_Error_GetCode_Args_STRUCT_SIZE, [&] {
    if (args->error == nullptr) return NullArgument("BERTH_Error_GetCode", "error");
    args->code = static_cast<BERTH_Error_Code>(args->error->status.code());
    return OkStatus();
  });
}

// ------------------------------------------------------------------- plugin

BERTH_Error* PluginInitialize(BERTH_Plugin_Initialize_Args* args) {
  return Guard("BERTH_Plugin_Initialize", args, BERTH_Plugin_Initialize_Args_STRUCT_SIZE,
               [&] { return InitializePlugin(*args); });
}

BERTH_Error* PluginAttributes(BERTH_Plugin_Attributes_Args* args) {
  return Guard("BERTH_Plugin_Attributes", args, BERTH_Plugin_Attributes_Args_STRUCT_SIZE, [&] {
    static const NamedValueMap attributes = CurrentPlugin().Attributes();
    static const NamedValueArray c_attributes(attributes);
    args->attributes = c_attributes.data();
    args->num_attributes = c_attributes.size();
    return OkStatus();
  });
}

// ------------------------------------------------------------------- events

BERTH_Error* EventDestroy(BERTH_Event_Destroy_Args* args) {
  return Guard("BERTH_Event_Destroy", args, BERTH_Event_Destroy_Args_STRUCT_SIZE, [&] {
    delete args->event;
    return OkStatus();
  });
}

BERTH_Error* EventIsReady(BERTH_Event_IsReady_Args* args) {
  return Guard("BERTH_Event_IsReady", args, BERTH_Event_IsReady_Args_STRUCT_SIZE, [&] {
    if (args->event == nullptr) return NullArgument("BERTH_Event_IsReady", "event");
    args->is_ready = args->event->event.IsReady();
    return OkStatus();
  });
}

BERTH_Error* EventError(BERTH_Event_Error_Args* args) {
  return Guard("BERTH_Event_Error", args, BERTH_Event_Error_Args_STRUCT_SIZE, [&] {
    if (args->event == nullptr) return NullArgument("BERTH_Event_Error", "event");
    return args->event->event.status();
  });
}

BERTH_Error* EventAwait(BERTH_Event_Await_Args* args) {
  return Guard("BERTH_Event_Await", args, BERTH_Event_Await_Args_STRUCT_SIZE, [&] {
    if (args->event == nullptr) return NullArgument("BERTH_Event_Await", "event");
    return args->event->event.Await();
  });
}

BERTH_Error* EventOnReady(BERTH_Event_OnReady_Args* args) {
  return Guard("BERTH_Event_OnReady", args, BERTH_Event_OnReady_Args_STRUCT_SIZE, [&] {
    if (args->event == nullptr) return NullArgument("BERTH_Event_OnReady", "event");
    if (args->callback == nullptr) return NullArgument("BERTH_Event_OnReady", "callback");
    BERTH_Event_Callback* callback = args->callback;
    void* user_arg = args->user_arg;
    args->event->event.OnReady(
        [callback, user_arg](const Status& status) { callback(ToC(status), user_arg); });
    return OkStatus();
  });
}

// ------------------------------------------------------------------- client

Result<BERTH_Client*> CheckClient(BERTH_Client* client, const char* function) {
  if (client == nullptr) return NullArgument(function, "client");
  return client;
}

// The multi_slice topology the host may hang on the create args' chain
// (berth/ext/multi_slice.h); one slice when there is none. Other types are
// skipped; a second topology, a short struct or a slice outside the count is
// INVALID_ARGUMENT.
Result<SliceTopology> SlicesFromChain(const BERTH_Extension_Base* chain) {
  constexpr const char* kFn = "BERTH_Client_Create";
  SliceTopology slices;
  bool seen = false;
  int length = 0;
  for (const BERTH_Extension_Base* node = chain; node != nullptr; node = node->next) {
    if (++length > 64) {
      return InvalidArgumentError(std::string(kFn) +
                                  ": the args' extension chain is longer than 64 (a loop?)");
    }
    if (node->type != BERTH_Extension_Type_MultiSlice) continue;
    if (seen) return InvalidArgumentError(std::string(kFn) + ": two multi_slice topologies");
    seen = true;
    if (node->struct_size < BERTH_MultiSlice_Topology_STRUCT_SIZE) {
      return StructSizeError("BERTH_MultiSlice_Topology", BERTH_MultiSlice_Topology_STRUCT_SIZE,
                             node->struct_size);
    }
    const auto* topology = reinterpret_cast<const BERTH_MultiSlice_Topology*>(node);
    if (topology->num_slices < 1 || topology->slice_id < 0 ||
        topology->slice_id >= topology->num_slices) {
      return InvalidArgumentError(std::string(kFn) + ": multi_slice topology: slice_id " +
                                  std::to_string(topology->slice_id) +
                                  " is not in [0, num_slices " +
                                  std::to_string(topology->num_slices) + ")");
    }
    slices.num_slices = topology->num_slices;
    slices.slice_id = topology->slice_id;
  }
  return slices;
}

BERTH_Error* ClientCreate(BERTH_Client_Create_Args* args) {
  return Guard("BERTH_Client_Create", args, BERTH_Client_Create_Args_STRUCT_SIZE, [&]() -> Status {
    args->client = nullptr;
    BERTH_ASSIGN_OR_RETURN(NamedValueMap options,
                           NamedValuesFromC(args->options, args->num_options, "client option"));
    BERTH_RETURN_IF_ERROR(CheckReservedClientOptions(options));
    if (args->kv_store != nullptr &&
        args->kv_store->struct_size < BERTH_KeyValueStore_STRUCT_SIZE) {
      return StructSizeError("BERTH_KeyValueStore", BERTH_KeyValueStore_STRUCT_SIZE,
                             args->kv_store->struct_size);
    }
    BERTH_ASSIGN_OR_RETURN(SliceTopology slices, SlicesFromChain(args->extension_start));
    auto client = std::make_unique<BERTH_Client>(KeyValueStore(args->kv_store));
    BERTH_ASSIGN_OR_RETURN(client->impl,
                           CurrentPlugin().CreateClient(options, client->kv_store, slices));
    if (client->impl == nullptr) {
      return InternalError("BERTH_Client_Create: the plugin returned no client");
    }
    client->topology.platform_name = client->impl->platform_name();
    for (Device* device : client->impl->devices()) {
      client->topology.descriptions.push_back(ToC(&device->description()));
    }
    args->client = client.release();
    return OkStatus();
  });
}

BERTH_Error* ClientDestroy(BERTH_Client_Destroy_Args* args) {
  return Guard("BERTH_Client_Destroy", args, BERTH_Client_Destroy_Args_STRUCT_SIZE, [&] {
    delete args->client;
    return OkStatus();
  });
}

BERTH_Error* ClientPlatformName(BERTH_Client_PlatformName_Args* args) {
  return Guard("BERTH_Client_PlatformName", args, BERTH_Client_PlatformName_Args_STRUCT_SIZE,
               [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(auto* c, CheckClient(args->client, "BERTH_Client_PlatformName"));
                 const std::string& name = c->impl->platform_name();
                 args->platform_name = name.data();
                 args->platform_name_size = name.size();
                 return OkStatus();
               });
}

BERTH_Error* ClientPlatformVersion(BERTH_Client_PlatformVersion_Args* args) {
  return Guard("BERTH_Client_PlatformVersion", args,
               BERTH_Client_PlatformVersion_Args_STRUCT_SIZE, [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(auto* c, CheckClient(args->client, "BERTH_Client_PlatformVersion"));
                 const std::string& version = c->impl->platform_version();
                 args->platform_version = version.data();
                 args->platform_version_size = version.size();
                 return OkStatus();
               });
}

BERTH_Error* ClientProcessIndex(BERTH_Client_ProcessIndex_Args* args) {
  return Guard("BERTH_Client_ProcessIndex", args, BERTH_Client_ProcessIndex_Args_STRUCT_SIZE,
               [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(auto* c, CheckClient(args->client, "BERTH_Client_ProcessIndex"));
                 args->process_index = c->impl->process_index();
                 return OkStatus();
               });
}

BERTH_Error* ClientDevices(BERTH_Client_Devices_Args* args) {
  return Guard("BERTH_Client_Devices", args, BERTH_Client_Devices_Args_STRUCT_SIZE,
               [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(auto* c, CheckClient(args->client, "BERTH_Client_Devices"));
                 args->devices = c->impl->c_devices().data();
                 args->num_devices = c->impl->c_devices().size();
                 return OkStatus();
               });
}

BERTH_Error* ClientAddressableDevices(BERTH_Client_AddressableDevices_Args* args) {
  return Guard("BERTH_Client_AddressableDevices", args,
               BERTH_Client_AddressableDevices_Args_STRUCT_SIZE, [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(auto* c, CheckClient(args->client, "BERTH_Client_AddressableDevices"));
                 args->addressable_devices = c->impl->c_addressable_devices().data();
                 args->num_addressable_devices = c->impl->c_addressable_devices().size();
                 return OkStatus();
               });
}

BERTH_Error* ClientLookupDevice(BERTH_Client_LookupDevice_Args* args) {
  return Guard("BERTH_Client_LookupDevice", args, BERTH_Client_LookupDevice_Args_STRUCT_SIZE,
               [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(auto* c, CheckClient(args->client, "BERTH_Client_LookupDevice"));
                 BERTH_ASSIGN_OR_RETURN(Device * device, c->impl->LookupDevice(args->id));
                 args->device = ToC(device);
                 return OkStatus();
               });
}

BERTH_Error* ClientAddressableMemories(BERTH_Client_AddressableMemories_Args* args) {
  return Guard("BERTH_Client_AddressableMemories", args,
               BERTH_Client_AddressableMemories_Args_STRUCT_SIZE, [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(auto* c, CheckClient(args->client, "BERTH_Client_AddressableMemories"));
                 args->addressable_memories = c->impl->c_memories().data();
                 args->num_addressable_memories = c->impl->c_memories().size();
                 return OkStatus();
               });
}

BERTH_Error* ClientTopologyDescription(BERTH_Client_TopologyDescription_Args* args) {
  return Guard("BERTH_Client_TopologyDescription", args,
               BERTH_Client_TopologyDescription_Args_STRUCT_SIZE, [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(auto* c, CheckClient(args->client, "BERTH_Client_TopologyDescription"));
                 args->topology = &c->topology;
                 return OkStatus();
               });
}

// ------------------------------------------------------- device description

Result<DeviceDescription*> CheckDescription(BERTH_DeviceDescription* d, const char* function) {
  if (d == nullptr) return NullArgument(function, "device_description");
  return FromC(d);
}

BERTH_Error* DescriptionId(BERTH_DeviceDescription_Id_Args* args) {
  return Guard("BERTH_DeviceDescription_Id", args, BERTH_DeviceDescription_Id_Args_STRUCT_SIZE,
               [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(auto* d, CheckDescription(args->device_description, "BERTH_DeviceDescription_Id"));
                 args->id = d->id();
                 return OkStatus();
               });
}

BERTH_Error* DescriptionProcessIndex(BERTH_DeviceDescription_ProcessIndex_Args* args) {
  return Guard("BERTH_DeviceDescription_ProcessIndex", args,
               BERTH_DeviceDescription_ProcessIndex_Args_STRUCT_SIZE, [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(auto* d, CheckDescription(args->device_description, "BERTH_DeviceDescription_ProcessIndex"));
                 args->process_index = d->process_index();
                 return OkStatus();
               });
}

BERTH_Error* DescriptionKind(BERTH_DeviceDescription_Kind_Args* args) {
  return Guard("BERTH_DeviceDescription_Kind", args, BERTH_DeviceDescription_Kind_Args_STRUCT_SIZE,
               [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(auto* d, CheckDescription(args->device_description, "BERTH_DeviceDescription_Kind"));
                 args->device_kind = d->kind().data();
                 args->device_kind_size = d->kind().size();
                 return OkStatus();
               });
}

BERTH_Error* DescriptionAttributes(BERTH_DeviceDescription_Attributes_Args* args) {
  return Guard("BERTH_DeviceDescription_Attributes", args,
               BERTH_DeviceDescription_Attributes_Args_STRUCT_SIZE, [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(auto* d, CheckDescription(args->device_description, "BERTH_DeviceDescription_Attributes"));
                 args->attributes = d->c_attributes().data();
                 args->num_attributes = d->c_attributes().size();
                 return OkStatus();
               });
}

BERTH_Error* DescriptionDebugString(BERTH_DeviceDescription_DebugString_Args* args) {
  return Guard("BERTH_DeviceDescription_DebugString", args,
               BERTH_DeviceDescription_DebugString_Args_STRUCT_SIZE, [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(auto* d, CheckDescription(args->device_description, "BERTH_DeviceDescription_DebugString"));
                 args->debug_string = d->debug_string().data();
                 args->debug_string_size = d->debug_string().size();
                 return OkStatus();
               });
}

// ------------------------------------------------------------------- device

Result<Device*> CheckDevice(BERTH_Device* device, const char* function) {
  if (device == nullptr) return NullArgument(function, "device");
  return FromC(device);
}

BERTH_Error* DeviceGetDescription(BERTH_Device_GetDescription_Args* args) {
  return Guard("BERTH_Device_GetDescription", args, BERTH_Device_GetDescription_Args_STRUCT_SIZE,
               [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(auto* d, CheckDevice(args->device, "BERTH_Device_GetDescription"));
                 args->device_description = ToC(&d->description());
                 return OkStatus();
               });
}

BERTH_Error* DeviceIsAddressable(BERTH_Device_IsAddressable_Args* args) {
  return Guard("BERTH_Device_IsAddressable", args, BERTH_Device_IsAddressable_Args_STRUCT_SIZE,
               [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(auto* d, CheckDevice(args->device, "BERTH_Device_IsAddressable"));
                 args->is_addressable = d->is_addressable();
                 return OkStatus();
               });
}

BERTH_Error* DeviceLocalHardwareId(BERTH_Device_LocalHardwareId_Args* args) {
  return Guard("BERTH_Device_LocalHardwareId", args,
               BERTH_Device_LocalHardwareId_Args_STRUCT_SIZE, [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(auto* d, CheckDevice(args->device, "BERTH_Device_LocalHardwareId"));
                 args->local_hardware_id = d->local_hardware_id();
                 return OkStatus();
               });
}

BERTH_Error* DeviceAddressableMemories(BERTH_Device_AddressableMemories_Args* args) {
  return Guard("BERTH_Device_AddressableMemories", args,
               BERTH_Device_AddressableMemories_Args_STRUCT_SIZE, [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(auto* d, CheckDevice(args->device, "BERTH_Device_AddressableMemories"));
                 args->memories = d->c_memories().data();
                 args->num_memories = d->c_memories().size();
                 return OkStatus();
               });
}

BERTH_Error* DeviceDefaultMemory(BERTH_Device_DefaultMemory_Args* args) {
  return Guard("BERTH_Device_DefaultMemory", args, BERTH_Device_DefaultMemory_Args_STRUCT_SIZE,
               [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(auto* d, CheckDevice(args->device, "BERTH_Device_DefaultMemory"));
                 if (d->default_memory() == nullptr) {
                   return NotFoundError("device " + d->description().debug_string() +
                                        " has no memory");
                 }
                 args->memory = ToC(d->default_memory());
                 return OkStatus();
               });
}

// ------------------------------------------------------------------- memory

Result<Memory*> CheckMemory(BERTH_Memory* memory, const char* function) {
  if (memory == nullptr) return NullArgument(function, "memory");
  return FromC(memory);
}

BERTH_Error* MemoryId(BERTH_Memory_Id_Args* args) {
  return Guard("BERTH_Memory_Id", args, BERTH_Memory_Id_Args_STRUCT_SIZE, [&]() -> Status {
    BERTH_ASSIGN_OR_RETURN(auto* m, CheckMemory(args->memory, "BERTH_Memory_Id"));
    args->id = m->id();
    return OkStatus();
  });
}

BERTH_Error* MemoryKind(BERTH_Memory_Kind_Args* args) {
  return Guard("BERTH_Memory_Kind", args, BERTH_Memory_Kind_Args_STRUCT_SIZE, [&]() -> Status {
    BERTH_ASSIGN_OR_RETURN(auto* m, CheckMemory(args->memory, "BERTH_Memory_Kind"));
    args->kind = m->kind().data();
    args->kind_size = m->kind().size();
    return OkStatus();
  });
}

BERTH_Error* MemoryAddressableByDevices(BERTH_Memory_AddressableByDevices_Args* args) {
  return Guard("BERTH_Memory_AddressableByDevices", args,
               BERTH_Memory_AddressableByDevices_Args_STRUCT_SIZE, [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(auto* m, CheckMemory(args->memory, "BERTH_Memory_AddressableByDevices"));
                 args->devices = m->c_devices().data();
                 args->num_devices = m->c_devices().size();
                 return OkStatus();
               });
}

// ----------------------------------------------------------------- topology

BERTH_Error* TopologyPlatformName(BERTH_TopologyDescription_PlatformName_Args* args) {
  return Guard("BERTH_TopologyDescription_PlatformName", args,
               BERTH_TopologyDescription_PlatformName_Args_STRUCT_SIZE, [&]() -> Status {
                 if (args->topology == nullptr) {
                   return NullArgument("BERTH_TopologyDescription_PlatformName", "topology");
                 }
                 args->platform_name = args->topology->platform_name.data();
                 args->platform_name_size = args->topology->platform_name.size();
                 return OkStatus();
               });
}

BERTH_Error* TopologyDescriptions(BERTH_TopologyDescription_GetDeviceDescriptions_Args* args) {
  return Guard("BERTH_TopologyDescription_GetDeviceDescriptions", args,
               BERTH_TopologyDescription_GetDeviceDescriptions_Args_STRUCT_SIZE, [&]() -> Status {
                 if (args->topology == nullptr) {
                   return NullArgument("BERTH_TopologyDescription_GetDeviceDescriptions",
                                       "topology");
                 }
                 args->descriptions = args->topology->descriptions.data();
                 args->num_descriptions = args->topology->descriptions.size();
                 return OkStatus();
               });
}

}  // namespace

void FillCoreEntries(BERTH_Api& api) {
  api.BERTH_Error_Destroy = ErrorDestroy;
  api.BERTH_Error_Message = ErrorMessage;
  api.BERTH_Error_GetCode = ErrorGetCode;
  api.BERTH_Plugin_Initialize = PluginInitialize;
  api.BERTH_Plugin_Attributes = PluginAttributes;
  api.BERTH_Event_Destroy = EventDestroy;
  api.BERTH_Event_IsReady = EventIsReady;
  api.BERTH_Event_Error = EventError;
  api.BERTH_Event_Await = EventAwait;
  api.BERTH_Event_OnReady = EventOnReady;
  api.BERTH_Client_Create = ClientCreate;
  api.BERTH_Client_Destroy = ClientDestroy;
  api.BERTH_Client_PlatformName = ClientPlatformName;
  api.BERTH_Client_PlatformVersion = ClientPlatformVersion;
  api.BERTH_Client_ProcessIndex = ClientProcessIndex;
  api.BERTH_Client_Devices = ClientDevices;
  api.BERTH_Client_AddressableDevices = ClientAddressableDevices;
  api.BERTH_Client_LookupDevice = ClientLookupDevice;
  api.BERTH_Client_AddressableMemories = ClientAddressableMemories;
  api.BERTH_Client_TopologyDescription = ClientTopologyDescription;
  api.BERTH_DeviceDescription_Id = DescriptionId;
  api.BERTH_DeviceDescription_ProcessIndex = DescriptionProcessIndex;
  api.BERTH_DeviceDescription_Kind = DescriptionKind;
  api.BERTH_DeviceDescription_Attributes = DescriptionAttributes;
  api.BERTH_DeviceDescription_DebugString = DescriptionDebugString;
  api.BERTH_Device_GetDescription = DeviceGetDescription;
  api.BERTH_Device_IsAddressable = DeviceIsAddressable;
  api.BERTH_Device_LocalHardwareId = DeviceLocalHardwareId;
  api.BERTH_Device_AddressableMemories = DeviceAddressableMemories;
  api.BERTH_Device_DefaultMemory = DeviceDefaultMemory;
  api.BERTH_Memory_Id = MemoryId;
  api.BERTH_Memory_Kind = MemoryKind;
  api.BERTH_Memory_AddressableByDevices = MemoryAddressableByDevices;
  api.BERTH_TopologyDescription_PlatformName = TopologyPlatformName;
  api.BERTH_TopologyDescription_GetDeviceDescriptions = TopologyDescriptions;
}

}  // namespace berth::plugin::glue
