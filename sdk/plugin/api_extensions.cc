// The ffi, callback, abi_version, custom_partitioner, phase_compile and live_objects extensions
// (berth/plugin/extensions.hpp): the handler tables and the C entry points that
// fill them.
#include <algorithm>
#include <limits>

#include "abi_glue.hpp"
#include "berth/plugin/extensions.hpp"

namespace berth::plugin {

// ------------------------------------------------------------------ RegisteredHandler

RegisteredHandler::RegisteredHandler(std::string target, BERTH_Ffi_Handler* fn, void* data,
                       BERTH_Ffi_ReleaseData* release)
    : target_(std::move(target)), fn_(fn), data_(data), release_(release) {}

RegisteredHandler::~RegisteredHandler() {
  if (release_ != nullptr) release_(data_);
}

namespace {

struct ErrorSink {
  std::string message;
};

void ReportError(void* context, const char* message, size_t size) {
  if (context == nullptr || (message == nullptr && size > 0)) return;
  try {
    static_cast<ErrorSink*>(context)->message.assign(message ? message : "", size);
  } catch (...) {
    // Out of memory while copying the message: the code still reports it.
  }
}

}  // namespace

Status RegisteredHandler::Call(BERTH_Ffi_Stage stage, std::string_view platform,
                        std::span<const BERTH_Ffi_Buffer> operands,
                        std::span<const BERTH_Ffi_Buffer> results,
                        std::span<const BERTH_NamedValue> attributes) const {
  ErrorSink sink;
  BERTH_Ffi_CallFrame frame{};
  frame.struct_size = BERTH_Ffi_CallFrame_STRUCT_SIZE;
  frame.stage = stage;
  frame.target = target_.data();
  frame.target_size = target_.size();
  frame.platform = platform.data();
  frame.platform_size = platform.size();
  frame.operands = operands.data();
  frame.num_operands = operands.size();
  frame.results = results.data();
  frame.num_results = results.size();
  frame.attributes = attributes.data();
  frame.num_attributes = attributes.size();
  frame.handler_data = data_;
  frame.report_error = ReportError;
  frame.error_context = &sink;
  BERTH_Error_Code code = fn_(&frame);
  if (code == BERTH_Error_Code_OK) return OkStatus();
  if (code < BERTH_Error_Code_CANCELLED || code > BERTH_Error_Code_UNAUTHENTICATED) {
    sink.message = "returned code " + std::to_string(code) + ", which is not a status code" +
                   (sink.message.empty() ? "" : ": " + sink.message);
    code = BERTH_Error_Code_UNKNOWN;
  }
  if (sink.message.empty()) {
    sink.message = "custom call '" + target_ + "' failed with code " + std::to_string(code) +
                   " and no message";
  }
  return Status(static_cast<StatusCode>(code), std::move(sink.message));
}

// -------------------------------------------------------------- FfiHandlerTable

Status FfiHandlerTable::Add(std::shared_ptr<const RegisteredHandler> handler) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto [it, inserted] = handlers_.emplace(handler->target(), handler);
  if (!inserted) {
    return AlreadyExistsError(kind_ + " '" + handler->target() + "' is already registered");
  }
  return OkStatus();
}

std::shared_ptr<const RegisteredHandler> FfiHandlerTable::Find(std::string_view name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = handlers_.find(name);
  return it == handlers_.end() ? nullptr : it->second;
}

std::vector<std::string> FfiHandlerTable::Names() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> names;
  for (const auto& [name, handler] : handlers_) names.push_back(name);
  return names;
}

// --------------------------------------------------------------- EventCallbacks

EventCallbacks::~EventCallbacks() {
  for (const Entry& entry : entries_) {
    if (entry.release != nullptr) entry.release(entry.data);
  }
}

void EventCallbacks::Add(BERTH_Callback_EventFn* fn, void* data, BERTH_Ffi_ReleaseData* release) {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.push_back(Entry{fn, data, release});
  count_.store(entries_.size(), std::memory_order_release);
}

void EventCallbacks::Emit(BERTH_Callback_EventKind kind, std::string_view executable_name,
                          int64_t device_id, const Status& status) const {
  if (empty()) return;
  BERTH_Callback_Event event{};
  event.struct_size = BERTH_Callback_Event_STRUCT_SIZE;
  event.kind = kind;
  event.executable_name = executable_name.data();
  event.executable_name_size = executable_name.size();
  event.device_id = device_id;
  event.code = static_cast<BERTH_Error_Code>(status.code());
  event.message = status.message().data();
  event.message_size = status.message().size();
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Entry& entry : entries_) entry.fn(&event, entry.data);
}

// ------------------------------------------------------- custom partitioners

RegisteredPartitioner::RegisteredPartitioner(const BERTH_CustomPartitioner_Rule& rule, std::string target,
                                             std::string identity, BERTH_Ffi_ReleaseData* release)
    : target_(std::move(target)), identity_(std::move(identity)), rule_(rule), release_(release) {
  rule_.target = target_.data();
  rule_.target_size = target_.size();
}

RegisteredPartitioner::~RegisteredPartitioner() {
  if (release_ != nullptr) release_(rule_.rule_data);
}

Result<uint64_t> CustomPartitionerTable::Add(std::shared_ptr<const RegisteredPartitioner> rule) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [handle, held] : by_handle_) {
    if (held->target() == rule->target()) {
      return AlreadyExistsError("custom call target '" + rule->target() +
                                "' already has a partitioning rule (identity " + held->identity() + ")");
    }
  }
  const uint64_t handle = next_handle_++;
  by_handle_.emplace(handle, std::move(rule));
  return handle;
}

Status CustomPartitionerTable::Remove(uint64_t handle) {
  std::shared_ptr<const RegisteredPartitioner> removed;  // released outside the lock
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = by_handle_.find(handle);
  if (found == by_handle_.end()) {
    return NotFoundError("no custom partitioning rule has handle " + std::to_string(handle) +
                         " on this client (already unregistered?)");
  }
  removed = std::move(found->second);
  by_handle_.erase(found);
  return OkStatus();
}

std::vector<std::shared_ptr<const RegisteredPartitioner>> CustomPartitionerTable::Rules() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::shared_ptr<const RegisteredPartitioner>> rules;
  for (const auto& [handle, rule] : by_handle_) rules.push_back(rule);
  return rules;
}

// ------------------------------------------------------------------ C entries

namespace glue {
namespace {

// Copies a (pointer, size) name; INVALID_ARGUMENT when it is empty or NULL.
Result<std::string> NameArgument(const char* function, const char* field, const char* data,
                                 size_t size) {
  if (data == nullptr || size == 0) {
    return InvalidArgumentError(std::string(function) + ": " + field + " is empty");
  }
  return std::string(data, size);
}
// Registration takes ownership of `data` whatever happens: on failure the
// release function runs before returning (ffi.h).
// `body` clears `release` once something else owns the data.
template <typename Register>
Status TakeData(void* data, BERTH_Ffi_ReleaseData*& release, Register&& body) {
  Status status = body();
  if (!status.ok() && release != nullptr) release(data);
  return status;
}

BERTH_Error* FfiRegisterHandler(BERTH_Ffi_RegisterHandler_Args* args) {
  constexpr const char* kFn = "BERTH_Ffi_RegisterHandler";
  return Guard(kFn, args, BERTH_Ffi_RegisterHandler_Args_STRUCT_SIZE, [&]() -> Status {
    BERTH_Ffi_ReleaseData* release = args->release_data;
    return TakeData(args->handler_data, release, [&]() -> Status {
      if (args->client == nullptr) return NullArgument(kFn, "client");
      if (args->handler == nullptr) return NullArgument(kFn, "handler");
      BERTH_ASSIGN_OR_RETURN(std::string target,
                             NameArgument(kFn, "target", args->target, args->target_size));
      Client& client = *args->client->impl;
      if (client.HasBuiltinCustomCall(target)) {
        return AlreadyExistsError("custom call target '" + target + "' is built into platform '" +
                                  client.platform_name() + "'");
      }
      auto handler = std::make_shared<RegisteredHandler>(std::move(target), args->handler,
                                                   args->handler_data, release);
      release = nullptr;  // the handler owns the data now
      return client.ffi_handlers().Add(std::move(handler));
    });
  });
}

BERTH_Error* RegisterHostCallback(BERTH_Callback_RegisterHostCallback_Args* args) {
  constexpr const char* kFn = "BERTH_Callback_RegisterHostCallback";
  return Guard(kFn, args, BERTH_Callback_RegisterHostCallback_Args_STRUCT_SIZE, [&]() -> Status {
    BERTH_Ffi_ReleaseData* release = args->release_data;
    return TakeData(args->callback_data, release, [&]() -> Status {
      if (args->client == nullptr) return NullArgument(kFn, "client");
      if (args->callback == nullptr) return NullArgument(kFn, "callback");
      BERTH_ASSIGN_OR_RETURN(std::string name,
                             NameArgument(kFn, "name", args->name, args->name_size));
      auto handler = std::make_shared<RegisteredHandler>(std::move(name), args->callback,
                                                   args->callback_data, release);
      release = nullptr;
      return args->client->impl->host_callbacks().Add(std::move(handler));
    });
  });
}

BERTH_Error* RegisterEventCallback(BERTH_Callback_RegisterEventCallback_Args* args) {
  constexpr const char* kFn = "BERTH_Callback_RegisterEventCallback";
  return Guard(kFn, args, BERTH_Callback_RegisterEventCallback_Args_STRUCT_SIZE, [&]() -> Status {
    BERTH_Ffi_ReleaseData* release = args->release_data;
    return TakeData(args->user_data, release, [&]() -> Status {
      if (args->client == nullptr) return NullArgument(kFn, "client");
      if (args->callback == nullptr) return NullArgument(kFn, "callback");
      args->client->impl->event_callbacks().Add(args->callback, args->user_data, release);
      release = nullptr;
      return OkStatus();
    });
  });
}

bool IsIdentity(std::string_view text) {
  return text.size() == BERTH_CUSTOM_PARTITIONER_IDENTITY_SIZE &&
         std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

BERTH_Error* RegisterPartitioner(BERTH_CustomPartitioner_Register_Args* args) {
  constexpr const char* kFn = "BERTH_CustomPartitioner_Register";
  return Guard(kFn, args, BERTH_CustomPartitioner_Register_Args_STRUCT_SIZE, [&]() -> Status {
    args->handle = 0;
    BERTH_Ffi_ReleaseData* release = args->release_data;
    return TakeData(args->rule != nullptr ? args->rule->rule_data : nullptr, release, [&]() -> Status {
      if (args->client == nullptr) return NullArgument(kFn, "client");
      if (args->rule == nullptr) return NullArgument(kFn, "rule");
      const BERTH_CustomPartitioner_Rule& rule = *args->rule;
      if (rule.struct_size < BERTH_CustomPartitioner_Rule_STRUCT_SIZE) {
        return InvalidArgumentError(std::string(kFn) + ": rule.struct_size is " + std::to_string(rule.struct_size) +
                                    ", smaller than " + std::to_string(BERTH_CustomPartitioner_Rule_STRUCT_SIZE));
      }
      if (rule.partition == nullptr) return NullArgument(kFn, "rule.partition");
      BERTH_ASSIGN_OR_RETURN(std::string target, NameArgument(kFn, "rule.target", rule.target, rule.target_size));
      const std::string_view identity(args->identity ? args->identity : "", args->identity ? args->identity_size : 0);
      if (!IsIdentity(identity)) {
        return InvalidArgumentError(std::string(kFn) + ": identity must be " +
                                    std::to_string(BERTH_CUSTOM_PARTITIONER_IDENTITY_SIZE) +
                                    " lower-case hex digits (a SHA-256), not '" + std::string(identity) + "'");
      }
      auto registered = std::make_shared<RegisteredPartitioner>(rule, std::move(target), std::string(identity), release);
      release = nullptr;  // the registration owns the data now
      BERTH_ASSIGN_OR_RETURN(args->handle, args->client->impl->custom_partitioners().Add(std::move(registered)));
      return OkStatus();
    });
  });
}

BERTH_Error* UnregisterPartitioner(BERTH_CustomPartitioner_Unregister_Args* args) {
  constexpr const char* kFn = "BERTH_CustomPartitioner_Unregister";
  return Guard(kFn, args, BERTH_CustomPartitioner_Unregister_Args_STRUCT_SIZE, [&]() -> Status {
    if (args->client == nullptr) return NullArgument(kFn, "client");
    return args->client->impl->custom_partitioners().Remove(args->handle);
  });
}

BERTH_AbiVersion_Number ToC(AbiVersion version) { return {version.major, version.minor}; }
AbiVersion FromC(BERTH_AbiVersion_Number version) { return {version.major, version.minor}; }

BERTH_Error* AbiRuntime(BERTH_AbiVersion_Runtime_Args* args) {
  constexpr const char* kFn = "BERTH_AbiVersion_Runtime";
  return Guard(kFn, args, BERTH_AbiVersion_Runtime_Args_STRUCT_SIZE, [&]() -> Status {
    if (args->client == nullptr) return NullArgument(kFn, "client");
    BERTH_ASSIGN_OR_RETURN(RuntimeAbiVersions versions, args->client->impl->RuntimeAbiVersion());
    args->runtime = ToC(versions.runtime);
    args->newest_executable = ToC(versions.newest_executable);
    return OkStatus();
  });
}

BERTH_Error* AbiIsCompatible(BERTH_AbiVersion_IsCompatible_Args* args) {
  constexpr const char* kFn = "BERTH_AbiVersion_IsCompatible";
  return Guard(kFn, args, BERTH_AbiVersion_IsCompatible_Args_STRUCT_SIZE, [&]() -> Status {
    if (args->client == nullptr) return NullArgument(kFn, "client");
    return args->client->impl->CheckExecutableCompatible(FromC(args->executable),
                                                         FromC(args->runtime));
  });
}

void ReleaseString(void* owner) { delete static_cast<std::string*>(owner); }

BERTH_Error* AbiSerialize(BERTH_AbiVersion_Serialize_Args* args) {
  constexpr const char* kFn = "BERTH_AbiVersion_Serialize";
  return Guard(kFn, args, BERTH_AbiVersion_Serialize_Args_STRUCT_SIZE, [&]() -> Status {
    args->payload = BERTH_AbiVersion_Bytes{};
    if (args->executable == nullptr) return NullArgument(kFn, "executable");
    BERTH_ASSIGN_OR_RETURN(SerializedExecutable serialized, args->executable->impl->Serialize());
    auto owner = std::make_unique<std::string>(std::move(serialized.payload));
    args->executable_version = ToC(serialized.version);
    args->payload.data = owner->data();
    args->payload.size = owner->size();
    args->payload.release = ReleaseString;
    args->payload.owner = owner.release();
    return OkStatus();
  });
}

BERTH_Error* AbiDeserializeAndLoad(BERTH_AbiVersion_DeserializeAndLoad_Args* args) {
  constexpr const char* kFn = "BERTH_AbiVersion_DeserializeAndLoad";
  return Guard(kFn, args, BERTH_AbiVersion_DeserializeAndLoad_Args_STRUCT_SIZE, [&]() -> Status {
    args->executable = nullptr;
    if (args->client == nullptr) return NullArgument(kFn, "client");
    if (args->payload == nullptr && args->payload_size > 0) return NullArgument(kFn, "payload");
    std::string_view payload(args->payload ? args->payload : "", args->payload_size);
    Client& client = *args->client->impl;
    BERTH_ASSIGN_OR_RETURN(std::unique_ptr<LoadedExecutable> executable,
                           client.DeserializeAndLoad(payload, FromC(args->executable_version)));
    BERTH_ASSIGN_OR_RETURN(args->executable, WrapExecutable(std::move(executable), kFn));
    return OkStatus();
  });
}

// --------------------------------------------------------------- phase_compile

BERTH_Error* ListPhases(BERTH_PhaseCompile_ListPhases_Args* args) {
  constexpr const char* kFn = "BERTH_PhaseCompile_ListPhases";
  return Guard(kFn, args, BERTH_PhaseCompile_ListPhases_Args_STRUCT_SIZE, [&]() -> Status {
    args->phases = nullptr;
    args->num_phases = 0;
    if (args->client == nullptr) return NullArgument(kFn, "client");
    BERTH_Client::CompilePhases& table = args->client->compile_phases;
    std::call_once(table.once, [&] {
      for (const CompilePhase& phase : args->client->impl->CompilePhases()) {
        table.phases.push_back(BERTH_PhaseCompile_Phase{
            BERTH_PhaseCompile_Phase_STRUCT_SIZE, phase.name.data(), phase.name.size(), phase.input_format.data(),
            phase.input_format.size(), phase.output_format.data(), phase.output_format.size(),
            phase.output_is_text});
      }
      for (const BERTH_PhaseCompile_Phase& phase : table.phases) table.pointers.push_back(&phase);
    });
    args->phases = table.pointers.data();
    args->num_phases = table.pointers.size();
    return OkStatus();
  });
}

BERTH_Error* RunPhase(BERTH_PhaseCompile_RunPhase_Args* args) {
  constexpr const char* kFn = "BERTH_PhaseCompile_RunPhase";
  return Guard(kFn, args, BERTH_PhaseCompile_RunPhase_Args_STRUCT_SIZE, [&]() -> Status {
    if (args->client == nullptr) return NullArgument(kFn, "client");
    if (args->write_output == nullptr) return NullArgument(kFn, "write_output");
    if (args->phase == nullptr && args->phase_size > 0) return NullArgument(kFn, "phase");
    const std::string_view name(args->phase ? args->phase : "", args->phase_size);
    Client& client = *args->client->impl;
    std::span<const CompilePhase> phases = client.CompilePhases();
    auto phase = std::find_if(phases.begin(), phases.end(), [&](const CompilePhase& p) { return p.name == name; });
    if (phase == phases.end()) {
      std::string known;
      for (const CompilePhase& p : phases) known += (known.empty() ? "" : ", ") + p.name;
      return NotFoundError("platform '" + client.platform_name() + "' has no compile phase '" + std::string(name) +
                           "' (its phases: " + (known.empty() ? std::string("none") : known) + ")");
    }
    BERTH_ASSIGN_OR_RETURN(Program input, ProgramFromC(args->input, kFn));
    if (input.format != phase->input_format) {
      return InvalidArgumentError("compile phase '" + phase->name + "' takes '" + phase->input_format +
                                  "', not '" + std::string(input.format) + "'");
    }
    BERTH_ASSIGN_OR_RETURN(CompileOptions options, CompileOptionsFromC(args->options, kFn));
    BERTH_ASSIGN_OR_RETURN(std::string output, client.RunCompilePhase(*phase, input, options));
    args->write_output(args->output_context, output.data(), output.size());
    return OkStatus();
  });
}

// ---------------------------------------------------------------- live_objects

BERTH_Error* LiveObjectsCount(BERTH_LiveObjects_Count_Args* args) {
  return Guard("BERTH_LiveObjects_Count", args, BERTH_LiveObjects_Count_Args_STRUCT_SIZE, [&] {
    LiveObjectCounts counts = LiveObjects();
    args->clients = counts.clients;
    args->buffers = counts.buffers;
    args->executables = counts.executables;
    args->events = counts.events;
    return OkStatus();
  });
}

}  // namespace
BERTH_Error* MultiSliceDeviceSlices(BERTH_MultiSlice_DeviceSlices_Args* args) {
  constexpr const char* kFn = "BERTH_MultiSlice_DeviceSlices";
  return Guard(kFn, args, BERTH_MultiSlice_DeviceSlices_Args_STRUCT_SIZE, [&]() -> Status {
    if (args->client == nullptr) return NullArgument(kFn, "client");
    BERTH_Client::DeviceSlices& table = args->client->device_slices;
    std::call_once(table.once, [&] { table.slices = args->client->impl->device_slices(); });
    args->num_slices = args->client->impl->num_slices();
    args->device_slices = table.slices.data();
    args->num_devices = table.slices.size();
    return OkStatus();
  });
}

}  // namespace glue

BERTH_Extension_Base* FfiExtension() {
  static BERTH_Ffi_Extension extension{
      {BERTH_Ffi_Extension_STRUCT_SIZE, BERTH_Extension_Type_Ffi, nullptr},
      BERTH_FFI_EXTENSION_VERSION,
      glue::FfiRegisterHandler};
  return &extension.base;
}

BERTH_Extension_Base* CallbackExtension() {
  static BERTH_Callback_Extension extension{
      {BERTH_Callback_Extension_STRUCT_SIZE, BERTH_Extension_Type_Callback, nullptr},
      BERTH_CALLBACK_EXTENSION_VERSION,
      glue::RegisterHostCallback,
      glue::RegisterEventCallback};
  return &extension.base;
}

BERTH_Extension_Base* AbiVersionExtension() {
  static BERTH_AbiVersion_Extension extension{
      {BERTH_AbiVersion_Extension_STRUCT_SIZE, BERTH_Extension_Type_AbiVersion, nullptr},
      BERTH_ABI_VERSION_EXTENSION_VERSION,
      glue::AbiRuntime,
      glue::AbiIsCompatible,
      glue::AbiSerialize,
      glue::AbiDeserializeAndLoad};
  return &extension.base;
}

BERTH_Extension_Base* CustomPartitionerExtension() {
  static BERTH_CustomPartitioner_Extension extension{
      {BERTH_CustomPartitioner_Extension_STRUCT_SIZE, BERTH_Extension_Type_CustomPartitioner, nullptr},
      BERTH_CUSTOM_PARTITIONER_EXTENSION_VERSION,
      glue::RegisterPartitioner,
      glue::UnregisterPartitioner};
  return &extension.base;
}

BERTH_Extension_Base* PhaseCompileExtension() {
  static BERTH_PhaseCompile_Extension extension{
      {BERTH_PhaseCompile_Extension_STRUCT_SIZE, BERTH_Extension_Type_PhaseCompile, nullptr},
      BERTH_PHASE_COMPILE_EXTENSION_VERSION,
      glue::ListPhases,
      glue::RunPhase};
  return &extension.base;
}

BERTH_Extension_Base* MultiSliceExtension() {
  static BERTH_MultiSlice_Extension extension{
      {BERTH_MultiSlice_Extension_STRUCT_SIZE, BERTH_Extension_Type_MultiSlice, nullptr},
      BERTH_MULTI_SLICE_EXTENSION_VERSION,
      glue::MultiSliceDeviceSlices};
  return &extension.base;
}

BERTH_Extension_Base* LiveObjectsExtension() {
  static BERTH_LiveObjects_Extension extension{
      {BERTH_LiveObjects_Extension_STRUCT_SIZE, BERTH_Extension_Type_LiveObjects, nullptr},
      BERTH_LIVE_OBJECTS_EXTENSION_VERSION,
      glue::LiveObjectsCount};
  return &extension.base;
}

}  // namespace berth::plugin
