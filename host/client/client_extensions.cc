// berth::Client's extension calls. Each extension's host side lives in
// extensions/<name>/ (namespace berth::ext::<name>); these forward to it with
// the client's plugin library, plugin client and extension struct (NULL when
// the plugin lacks the extension: the call is UNIMPLEMENTED naming it).
#include "abi_version/abi_version_client.hpp"
#include "berth/client.hpp"
#include "berth/extension_chain.hpp"
#include "callback/callback_client.hpp"
#include "client/client_state.hpp"
#include "custom_partitioner/custom_partitioner_client.hpp"
#include "ffi/ffi_client.hpp"

namespace berth {

bool Client::HasExtension(BERTH_Extension_Type type) const {
  switch (type) {
    case BERTH_Extension_Type_Ffi: return state_->ffi != nullptr;
    case BERTH_Extension_Type_Callback: return state_->callback != nullptr;
    case BERTH_Extension_Type_CustomPartitioner: return state_->custom_partitioner != nullptr;
    case BERTH_Extension_Type_AbiVersion: return state_->abi_version != nullptr;
    case BERTH_Extension_Type_PhaseCompile: return state_->phase_compile != nullptr;
    default: return FindExtension(state_->library->api().extension_start, type) != nullptr;
  }
}

Status Client::RegisterFfiHandler(std::string_view target, BERTH_Ffi_Handler* handler, void* data,
                                  BERTH_Ffi_ReleaseData* release) const {
  BERTH_RETURN_IF_ERROR(ext::ffi::RegisterHandler(*state_->library, state_->client, state_->ffi, target, handler,
                                                  data, release));
  state_->NoteRegistration("ffi " + std::string(target), "");
  return OkStatus();
}

Status Client::RegisterFfiHandler(std::string_view target, FfiHandler handler) const {
  if (!handler) return InvalidArgumentError("RegisterFfiHandler: the handler is empty");
  ext::ffi::CHandler adapted = ext::ffi::Adapt(std::move(handler));
  return RegisterFfiHandler(target, adapted.handler, adapted.data, adapted.release);
}

Status Client::RegisterHostCallback(std::string_view name, FfiHandler callback) const {
  BERTH_RETURN_IF_ERROR(ext::callback::RegisterHostCallback(*state_->library, state_->client, state_->callback,
                                                            name, std::move(callback)));
  state_->NoteRegistration("host_callback " + std::string(name), "");
  return OkStatus();
}

Status Client::AddEventCallback(EventCallback callback) const {
  return ext::callback::AddEventCallback(*state_->library, state_->client, state_->callback,
                                         std::move(callback));
}

Result<CustomPartitionerHandle> Client::RegisterCustomPartitioner(std::string_view target,
                                                                 CustomPartitionerRule rule) const {
  BERTH_ASSIGN_OR_RETURN(CustomPartitionerHandle handle,
                         ext::custom_partitioner::RegisterRule(*state_->library, state_->client,
                                                               state_->custom_partitioner, target, std::move(rule)));
  state_->NoteRegistration("custom_partitioner " + handle.target, handle.identity);
  return handle;
}

Status Client::UnregisterCustomPartitioner(const CustomPartitionerHandle& handle) const {
  BERTH_RETURN_IF_ERROR(ext::custom_partitioner::UnregisterRule(*state_->library, state_->client,
                                                                state_->custom_partitioner, handle));
  state_->ForgetRegistration("custom_partitioner " + handle.target);
  return OkStatus();
}

Result<AbiVersions> Client::abi_versions() const {
  return ext::abi_version::RuntimeVersions(state_->abi_version_client());
}

Result<Executable> Client::Deserialize(std::string_view bytes, std::string_view source_name) const {
  BERTH_ASSIGN_OR_RETURN(
      BERTH_LoadedExecutable * executable,
      ext::abi_version::DeserializeAndLoad(state_->abi_version_client(), bytes, source_name));
  return Executable::Adopt(state_, executable);
}

Result<SliceLayout> Client::slice_layout() const {
  return ext::multi_slice::DeviceSlices(*state_->library, state_->client, state_->multi_slice,
                                        devices().size());
}

Result<std::vector<CompilePhase>> Client::CompilePhases() const {
  return ext::phase_compile::ListPhases(state_->phase_compile_client());
}

Result<std::vector<CompileIntermediate>> Client::RunCompilePhases(const CompileIntermediate& input,
                                                                  std::string_view until,
                                                                  const CompileOptions& options) const {
  return ext::phase_compile::RunPhases(state_->phase_compile_client(), input, until,
                                       core::CCompileOptions(options).get());
}

std::string Client::WriteIntermediate(const CompileIntermediate& intermediate) const {
  return ext::phase_compile::WriteIntermediate(state_->phase_compile_client(), intermediate);
}

Result<CompileIntermediate> Client::ReadIntermediate(std::string_view bytes, std::string_view source_name) const {
  return ext::phase_compile::ReadIntermediate(state_->phase_compile_client(), bytes, source_name);
}

}  // namespace berth
