// berth::Client's extension calls (ffi, callback, abi_version) and the
// FfiCall view handlers written against the host API get.
#include <exception>
#include <new>

#include "abi_version/executable_file.hpp"
#include "berth/client.hpp"
#include "berth/extension_chain.hpp"
#include "client/client_state.hpp"

namespace berth {

// ------------------------------------------------------------------- FfiCall

const BERTH_NamedValue* FfiCall::Find(std::string_view name) const {
  for (size_t i = 0; i < frame_.num_attributes; ++i) {
    const BERTH_NamedValue& value = frame_.attributes[i];
    if (std::string_view(value.name, value.name_size) == name) return &value;
  }
  return nullptr;
}

std::optional<int64_t> FfiCall::IntAttribute(std::string_view name) const {
  const BERTH_NamedValue* value = Find(name);
  if (value == nullptr || value->type != BERTH_NamedValue_Type_Int64) return std::nullopt;
  return value->int64_value;
}

std::optional<double> FfiCall::FloatAttribute(std::string_view name) const {
  const BERTH_NamedValue* value = Find(name);
  if (value == nullptr) return std::nullopt;
  if (value->type == BERTH_NamedValue_Type_Float64) return value->float64_value;
  if (value->type == BERTH_NamedValue_Type_Int64) return static_cast<double>(value->int64_value);
  return std::nullopt;
}

std::optional<std::string_view> FfiCall::StringAttribute(std::string_view name) const {
  const BERTH_NamedValue* value = Find(name);
  if (value == nullptr || value->type != BERTH_NamedValue_Type_String) return std::nullopt;
  return std::string_view(value->string_value, value->value_size);
}

std::optional<bool> FfiCall::BoolAttribute(std::string_view name) const {
  const BERTH_NamedValue* value = Find(name);
  if (value == nullptr || value->type != BERTH_NamedValue_Type_Bool) return std::nullopt;
  return value->bool_value;
}

namespace {

// The C side of a C++ FfiHandler: handler_data owns a heap FfiHandler.
BERTH_Error_Code CallFfiHandler(BERTH_Ffi_CallFrame* frame) {
  auto fail = [frame](BERTH_Error_Code code, std::string_view message) {
    frame->report_error(frame->error_context, message.data(), message.size());
    return code;
  };
  try {
    FfiCall call(*frame);
    Status status = (*static_cast<const FfiHandler*>(frame->handler_data))(call);
    if (status.ok()) return BERTH_Error_Code_OK;
    return fail(static_cast<BERTH_Error_Code>(status.code()), status.message());
  } catch (const std::bad_alloc&) {
    return fail(BERTH_Error_Code_RESOURCE_EXHAUSTED, "out of memory in an FFI handler");
  } catch (const std::exception& e) {
    return fail(BERTH_Error_Code_INTERNAL,
                std::string("the FFI handler threw an exception: ") + e.what());
  } catch (...) {
    return fail(BERTH_Error_Code_INTERNAL, "the FFI handler threw an exception");
  }
}

void DeleteFfiHandler(void* data) { delete static_cast<FfiHandler*>(data); }

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

bool Client::HasExtension(BERTH_Extension_Type type) const {
  switch (type) {
    case BERTH_Extension_Type_Ffi: return state_->ffi != nullptr;
    case BERTH_Extension_Type_Callback: return state_->callback != nullptr;
    case BERTH_Extension_Type_AbiVersion: return state_->abi_version != nullptr;
    default: return FindExtension(state_->library->api().extension_start, type) != nullptr;
  }
}

Status Client::RegisterFfiHandler(std::string_view target, BERTH_Ffi_Handler* handler, void* data,
                                  BERTH_Ffi_ReleaseData* release) const {
  if (state_->ffi == nullptr) {
    if (release != nullptr) release(data);
    return state_->MissingExtension(BERTH_Extension_Type_Ffi);
  }
  BERTH_Ffi_RegisterHandler_Args args{};
  args.struct_size = BERTH_Ffi_RegisterHandler_Args_STRUCT_SIZE;
  args.client = state_->client;
  args.target = target.data();
  args.target_size = target.size();
  args.handler = handler;
  args.handler_data = data;
  args.release_data = release;
  return state_->library->CallExtension(state_->ffi->register_handler, "BERTH_Ffi_RegisterHandler",
                                        &args);
}

Status Client::RegisterFfiHandler(std::string_view target, FfiHandler handler) const {
  if (!handler) return InvalidArgumentError("RegisterFfiHandler: the handler is empty");
  return RegisterFfiHandler(target, CallFfiHandler, new FfiHandler(std::move(handler)),
                            DeleteFfiHandler);
}

Status Client::RegisterHostCallback(std::string_view name, FfiHandler callback) const {
  if (!callback) return InvalidArgumentError("RegisterHostCallback: the callback is empty");
  if (state_->callback == nullptr) return state_->MissingExtension(BERTH_Extension_Type_Callback);
  BERTH_Callback_RegisterHostCallback_Args args{};
  args.struct_size = BERTH_Callback_RegisterHostCallback_Args_STRUCT_SIZE;
  args.client = state_->client;
  args.name = name.data();
  args.name_size = name.size();
  args.callback = CallFfiHandler;
  args.callback_data = new FfiHandler(std::move(callback));
  args.release_data = DeleteFfiHandler;
  return state_->library->CallExtension(state_->callback->register_host_callback,
                                        "BERTH_Callback_RegisterHostCallback", &args);
}

Status Client::AddEventCallback(EventCallback callback) const {
  if (!callback) return InvalidArgumentError("AddEventCallback: the callback is empty");
  if (state_->callback == nullptr) return state_->MissingExtension(BERTH_Extension_Type_Callback);
  BERTH_Callback_RegisterEventCallback_Args args{};
  args.struct_size = BERTH_Callback_RegisterEventCallback_Args_STRUCT_SIZE;
  args.client = state_->client;
  args.callback = CallEventCallback;
  args.user_data = new EventCallbackData{std::move(callback)};
  args.release_data = DeleteEventCallback;
  return state_->library->CallExtension(state_->callback->register_event_callback,
                                        "BERTH_Callback_RegisterEventCallback", &args);
}

Result<AbiVersions> Client::abi_versions() const {
  if (state_->abi_version == nullptr) {
    return state_->MissingExtension(BERTH_Extension_Type_AbiVersion);
  }
  BERTH_AbiVersion_Runtime_Args args{};
  args.struct_size = BERTH_AbiVersion_Runtime_Args_STRUCT_SIZE;
  args.client = state_->client;
  BERTH_RETURN_IF_ERROR(state_->library->CallExtension(state_->abi_version->runtime,
                                                       "BERTH_AbiVersion_Runtime", &args));
  return AbiVersions{args.runtime, args.newest_executable};
}

Result<Executable> Client::Deserialize(std::string_view bytes, std::string_view source_name) const {
  if (state_->abi_version == nullptr) {
    return state_->MissingExtension(BERTH_Extension_Type_AbiVersion);
  }
  BERTH_ASSIGN_OR_RETURN(host::ExecutableFile file, host::DecodeExecutableFile(bytes, source_name));
  const host::ExecutableFileHeader& header = file.header;
  const std::string where(source_name);
  if (header.plugin != state_->plugin_name || header.platform != state_->platform_name) {
    return FailedPreconditionError(
        where + ": made by plugin '" + header.plugin + "' (platform '" + header.platform +
        "'), not by this client's plugin '" + state_->plugin_name + "' (platform '" +
        state_->platform_name + "'); run it with --plugin " + header.plugin +
        " or compile the source again");
  }
  if (header.api_major != BERTH_API_MAJOR) {
    return FailedPreconditionError(where + ": made through Berth C API " +
                                   std::to_string(header.api_major) + "." +
                                   std::to_string(header.api_minor) + "; this host speaks " +
                                   std::to_string(BERTH_API_MAJOR) + ".x");
  }
  BERTH_AbiVersion_IsCompatible_Args check{};
  check.struct_size = BERTH_AbiVersion_IsCompatible_Args_STRUCT_SIZE;
  check.client = state_->client;
  check.executable = {header.executable.major, header.executable.minor};
  check.runtime = {header.runtime.major, header.runtime.minor};
  BERTH_RETURN_IF_ERROR(state_->library
                            ->CallExtension(state_->abi_version->is_compatible,
                                            "BERTH_AbiVersion_IsCompatible", &check)
                            .WithContext(where));
  BERTH_AbiVersion_DeserializeAndLoad_Args load{};
  load.struct_size = BERTH_AbiVersion_DeserializeAndLoad_Args_STRUCT_SIZE;
  load.client = state_->client;
  load.payload = file.payload.data();
  load.payload_size = file.payload.size();
  load.executable_version = check.executable;
  BERTH_RETURN_IF_ERROR(state_->library
                            ->CallExtension(state_->abi_version->deserialize_and_load,
                                            "BERTH_AbiVersion_DeserializeAndLoad", &load)
                            .WithContext(where));
  return Executable::Adopt(state_, load.executable);
}

}  // namespace berth
