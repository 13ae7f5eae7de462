#include "collectives/collectives_client.hpp"

#include <string>

#include "berth/log.hpp"

namespace berth::ext::collectives {

Result<std::vector<ElementType>> ElementTypes(const core::PluginLibrary& library,
                                              const BERTH_Collectives_Extension* extension) {
  if (extension == nullptr) return library.MissingExtension(BERTH_Extension_Type_Collectives);
  if (extension->num_element_types > 0 && extension->element_types == nullptr) {
    return InternalError("plugin '" + library.name() + "': its collectives extension lists " +
                         std::to_string(extension->num_element_types) + " element types at NULL");
  }
  std::vector<ElementType> types;
  for (size_t i = 0; i < extension->num_element_types; ++i) {
    const int32_t value = static_cast<int32_t>(extension->element_types[i]);
    if (!IsValidElementType(value)) {
      return InternalError("plugin '" + library.name() +
                           "': its collectives extension lists element type " +
                           std::to_string(value));
    }
    types.push_back(static_cast<ElementType>(value));
  }
  return types;
}

Result<BERTH_Collectives_Communicator*> Create(const core::PluginLibrary& library,
                                               BERTH_Client* client,
                                               const BERTH_Collectives_Extension* extension,
                                               std::span<const int64_t> device_ids,
                                               std::chrono::milliseconds timeout) {
  if (extension == nullptr) return library.MissingExtension(BERTH_Extension_Type_Collectives);
  BERTH_Collectives_Create_Args args{};
  args.struct_size = BERTH_Collectives_Create_Args_STRUCT_SIZE;
  args.client = client;
  args.device_ids = device_ids.data();
  args.num_devices = device_ids.size();
  args.timeout_ms = timeout.count();
  BERTH_RETURN_IF_ERROR(
      library.CallExtension(extension->create, "BERTH_Collectives_Create", &args));
  if (args.communicator == nullptr) {
    return InternalError("plugin '" + library.name() +
                         "': BERTH_Collectives_Create made no communicator");
  }
  return args.communicator;
}

void Destroy(const core::PluginLibrary& library, const BERTH_Collectives_Extension* extension,
             BERTH_Collectives_Communicator* communicator) {
  if (extension == nullptr || communicator == nullptr) return;
  BERTH_Collectives_Destroy_Args args{};
  args.struct_size = BERTH_Collectives_Destroy_Args_STRUCT_SIZE;
  args.communicator = communicator;
  if (Status status = library.CallExtension(extension->destroy, "BERTH_Collectives_Destroy", &args);
      !status.ok()) {
    Log(LogLevel::kWarning, "collectives",
        "destroying a communicator failed: " + status.ToString());
  }
}

Status Abort(const core::PluginLibrary& library, const BERTH_Collectives_Extension* extension,
             BERTH_Collectives_Communicator* communicator, std::string_view reason) {
  if (extension == nullptr) return library.MissingExtension(BERTH_Extension_Type_Collectives);
  BERTH_Collectives_Abort_Args args{};
  args.struct_size = BERTH_Collectives_Abort_Args_STRUCT_SIZE;
  args.communicator = communicator;
  args.reason = reason.data();
  args.reason_size = reason.size();
  return library.CallExtension(extension->abort, "BERTH_Collectives_Abort", &args);
}

Status Run(const core::PluginLibrary& library, const BERTH_Collectives_Extension* extension,
           BERTH_Collectives_Run_Args& args) {
  if (extension == nullptr) return library.MissingExtension(BERTH_Extension_Type_Collectives);
  args.struct_size = BERTH_Collectives_Run_Args_STRUCT_SIZE;
  args.output = nullptr;
  args.done = nullptr;
  BERTH_RETURN_IF_ERROR(library.CallExtension(extension->run, "BERTH_Collectives_Run", &args));
  const bool send = args.op == BERTH_Collectives_Op_SEND;
  if (args.done == nullptr || (args.output == nullptr) != send) {
    return InternalError("plugin '" + library.name() + "': BERTH_Collectives_Run gave " +
                         (args.done == nullptr ? std::string("no event")
                          : send               ? std::string("an output for a send")
                                               : std::string("no output")));
  }
  return OkStatus();
}

}  // namespace berth::ext::collectives
