// Internal: what a berth::Client shares with the handles made from it.
#ifndef BERTH_HOST_CLIENT_CLIENT_STATE_HPP_
#define BERTH_HOST_CLIENT_CLIENT_STATE_HPP_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "abi_version/abi_version_client.hpp"
#include "berth/c_api.h"
#include "berth/element_type.hpp"
#include "berth/ext/abi_version.h"
#include "berth/ext/callback.h"
#include "berth/ext/collectives.h"
#include "berth/ext/custom_partitioner.h"
#include "berth/ext/ffi.h"
#include "berth/ext/multi_slice.h"
#include "berth/named_value.hpp"
#include "berth/status.hpp"
#include "client/compilation_cache.hpp"
#include "extension_module.hpp"
#include "loader/plugin_library.hpp"
#include "multi_slice/multi_slice_client.hpp"
#include "phase_compile/phase_compile_client.hpp"

namespace berth::core {

// Device facts read once at client creation (they never change).
struct DeviceRecord {
  BERTH_Device* device = nullptr;
  int64_t id = 0;
  int32_t process_index = 0;
  std::string kind;
  bool is_addressable = false;
  int32_t local_hardware_id = -1;
  NamedValueMap attributes;
  std::string debug_string;
  std::vector<size_t> memory_indices;  // into ClientState::memories
};

struct MemoryRecord {
  BERTH_Memory* memory = nullptr;
  int32_t id = 0;
  std::string kind;
};

struct ClientState {
  std::shared_ptr<const PluginLibrary> library;
  BERTH_Client* client = nullptr;
  std::string plugin_name;
  std::string platform_name;
  std::string platform_version;
  int32_t process_index = 0;
  std::vector<DeviceRecord> devices;  // ordered as the plugin lists them
  std::vector<MemoryRecord> memories;
  // Extension structs of the plugin's chain (PluginLibrary::Extension); NULL
  // when absent or older than the layout this host reads. Call their entry
  // points through library->CallExtension.
  const BERTH_Ffi_Extension* ffi = nullptr;
  const BERTH_Callback_Extension* callback = nullptr;
  const BERTH_CustomPartitioner_Extension* custom_partitioner = nullptr;
  const BERTH_AbiVersion_Extension* abi_version = nullptr;
  const BERTH_PhaseCompile_Extension* phase_compile = nullptr;
  const BERTH_MultiSlice_Extension* multi_slice = nullptr;
  const BERTH_Collectives_Extension* collectives = nullptr;
  // Extension modules whose handlers the client holds; released after the
  // plugin client is destroyed.
  std::vector<std::shared_ptr<const ext::ExtensionModule>> attached_modules;
  // What the plugin client was created with, for compilation cache keys.
  NamedValueMap create_options;
  // The persistent compilation cache (compilation_cache.hpp); null when off
  // or when the plugin cannot serialize executables.
  std::shared_ptr<CompilationCache> compilation_cache;

  // Registrations that change what a compile gives, for cache keys: FFI
  // targets, host callbacks, custom partitioner rules by identity.
  void NoteRegistration(const std::string& what, const std::string& identity) const;
  void ForgetRegistration(const std::string& what) const;
  // The compilation cache key of `code` compiled with `options` here.
  std::string CompilationKey(std::string_view code, const CompileOptions& options) const;

  mutable std::mutex registrations_mutex;
  mutable std::map<std::string, std::string> registrations;

  ClientState() = default;
  ClientState(const ClientState&) = delete;
  ClientState& operator=(const ClientState&) = delete;
  ~ClientState();

  const DeviceRecord* FindDevice(BERTH_Device* device) const;
  // The client as the abi_version extension's host side takes it.
  ext::abi_version::AbiVersionClient abi_version_client() const {
    return {*library, client, abi_version, platform_name};
  }
  // The client as the phase_compile extension's host side takes it.
  ext::phase_compile::PhaseCompileClient phase_compile_client() const {
    return {*library, client, phase_compile, platform_name, platform_version};
  }
  const MemoryRecord* FindMemory(BERTH_Memory* memory) const;

  // Creates the plugin client and reads its devices and memories.
  // `num_slices` > 1: the plugin is told the job's slices and this node's
  // when it has the multi_slice extension (else a warning is logged).
  static Result<std::shared_ptr<ClientState>> Create(std::shared_ptr<const PluginLibrary> library,
                                                     const NamedValueMap& options,
                                                     const BERTH_KeyValueStore* kv_store,
                                                     int num_slices = 1, int slice_id = 0);
};

// CompileOptions as the C ABI takes them; borrows the options' strings and
// lists, so it must not outlive them.
class CCompileOptions {
 public:
  explicit CCompileOptions(const CompileOptions& options);
  const BERTH_CompileOptions* get() const { return &c_; }

 private:
  NamedValueArray named_;
  BERTH_CompileOptions c_{};
};

// Reads a (pointer, size) string result.
inline std::string ToString(const char* data, size_t size) {
  return data != nullptr ? std::string(data, size) : std::string();
}

// Checks the plugin's answer for an element type.
Result<ElementType> CheckElementType(BERTH_Buffer_Type type, std::string_view what);

}  // namespace berth::core

#endif  // BERTH_HOST_CLIENT_CLIENT_STATE_HPP_
