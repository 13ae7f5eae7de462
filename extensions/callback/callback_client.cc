#include "callback/callback_client.hpp"

#include <string>

#include "ffi/ffi_client.hpp"

namespace berth::ext::callback {
namespace {

struct EventCallbackData {
  EventCallback callback;
};

void CallEventCallback(const BERTH_Callback_Event* event, void* data) {
  ClientEvent out;
  switch (event->kind) {
    case BERTH_Callback_EventKind_ExecutionFinished:
      out.kind = ClientEvent::Kind::kExecutionFinished;
      break;
    case BERTH_Callback_EventKind_ExecutionFailed:
      out.kind = ClientEvent::Kind::kExecutionFailed;
      break;
    case BERTH_Callback_EventKind_PluginFatal:
      out.kind = ClientEvent::Kind::kPluginFatal;
      break;
    default:
      return;  // a kind newer than this host
  }
  out.executable_name = std::string_view(event->executable_name ? event->executable_name : "",
                                         event->executable_name_size);
  out.device_id = event->device_id;
  if (event->code != BERTH_Error_Code_OK) {
    out.status = Status(static_cast<StatusCode>(event->code),
                        std::string(event->message ? event->message : "", event->message_size));
  }
  try {
    static_cast<EventCallbackData*>(data)->callback(out);
  } catch (...) {
    // Nothing may cross back into the plugin; the callback's failure is its own.
  }
}

void DeleteEventCallback(void* data) { delete static_cast<EventCallbackData*>(data); }

}  // namespace

Status RegisterHostCallback(const core::PluginLibrary& library, BERTH_Client* client,
                            const BERTH_Callback_Extension* extension, std::string_view name,
                            FfiHandler callback) {
  if (!callback) return InvalidArgumentError("RegisterHostCallback: the callback is empty");
  if (extension == nullptr) return library.MissingExtension(BERTH_Extension_Type_Callback);
  ffi::CHandler handler = ffi::Adapt(std::move(callback));
  BERTH_Callback_RegisterHostCallback_Args args{};
  args.struct_size = BERTH_Callback_RegisterHostCallback_Args_STRUCT_SIZE;
  args.client = client;
  args.name = name.data();
  args.name_size = name.size();
  args.callback = handler.handler;
  args.callback_data = handler.data;
  args.release_data = handler.release;
  return library.CallExtension(extension->register_host_callback,
                               "BERTH_Callback_RegisterHostCallback", &args);
}

Status AddEventCallback(const core::PluginLibrary& library, BERTH_Client* client,
                        const BERTH_Callback_Extension* extension, EventCallback callback) {
  if (!callback) return InvalidArgumentError("AddEventCallback: the callback is empty");
  if (extension == nullptr) return library.MissingExtension(BERTH_Extension_Type_Callback);
  BERTH_Callback_RegisterEventCallback_Args args{};
  args.struct_size = BERTH_Callback_RegisterEventCallback_Args_STRUCT_SIZE;
  args.client = client;
  args.callback = CallEventCallback;
  args.user_data = new EventCallbackData{std::move(callback)};
  args.release_data = DeleteEventCallback;
  return library.CallExtension(extension->register_event_callback,
                               "BERTH_Callback_RegisterEventCallback", &args);
}

}  // namespace berth::ext::callback
