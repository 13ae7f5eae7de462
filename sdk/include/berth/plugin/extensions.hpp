// The ffi, callback, abi_version, custom_partitioner and phase_compile extensions for
// plugins built with the SDK. The SDK implements the C side of each (berth/ext/*.h); a plugin opts in
// by returning the extension's struct from Plugin::Extensions():
//
//   std::vector<BERTH_Extension_Base*> Extensions() override {
//     return {plugin::FfiExtension(), plugin::CallbackExtension(),
//             plugin::AbiVersionExtension()};
//   }
//
// live_objects needs no opting in: MakeApi links it into every SDK plugin.
//
// Registered handlers land in the client's tables (Client::ffi_handlers(),
// host_callbacks(), event_callbacks()); the plugin looks targets up when it
// compiles a program and calls them through RegisteredHandler::Call. The
// abi_version extension forwards to Client::RuntimeAbiVersion,
// CheckExecutableCompatible, DeserializeAndLoad and LoadedExecutable::Serialize.
#ifndef BERTH_PLUGIN_EXTENSIONS_HPP_
#define BERTH_PLUGIN_EXTENSIONS_HPP_

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "berth/c_api.h"
#include "berth/element_type.hpp"
#include "berth/ext/abi_version.h"
#include "berth/ext/callback.h"
#include "berth/ext/collectives.h"
#include "berth/ext/custom_partitioner.h"
#include "berth/ext/ffi.h"
#include "berth/ext/live_objects.h"
#include "berth/ext/multi_slice.h"
#include "berth/ext/phase_compile.h"
#include "berth/plugin/version.hpp"
#include "berth/status.hpp"

namespace berth::plugin {

// One registered handler (an FFI target or a host callback). Releases its
// data when the last reference goes.
class RegisteredHandler {
 public:
  RegisteredHandler(std::string target, BERTH_Ffi_Handler* fn, void* data,
             BERTH_Ffi_ReleaseData* release);
  ~RegisteredHandler();
  RegisteredHandler(const RegisteredHandler&) = delete;
  RegisteredHandler& operator=(const RegisteredHandler&) = delete;

  const std::string& target() const { return target_; }

  // Calls the handler. A failure becomes a Status with the handler's code
  // and message; a handler that fails without a message gets one naming the
  // target and the code. A code outside the canonical range becomes UNKNOWN.
  Status Call(BERTH_Ffi_Stage stage, std::string_view platform,
              std::span<const BERTH_Ffi_Buffer> operands, std::span<const BERTH_Ffi_Buffer> results,
              std::span<const BERTH_NamedValue> attributes) const;

 private:
  std::string target_;
  BERTH_Ffi_Handler* fn_;
  void* data_;
  BERTH_Ffi_ReleaseData* release_;
};

// The name of RegisteredHandler before SDK 1.1 (it clashed with the host's
// berth::FfiHandler, an application's std::function handler).
using FfiHandler [[deprecated("renamed plugin::RegisteredHandler in Berth plugin SDK 1.1")]] =
    RegisteredHandler;

// Handlers by name. Thread-safe.
class FfiHandlerTable {
 public:
  // `kind` names the table in errors ("ffi target", "host callback").
  explicit FfiHandlerTable(std::string kind) : kind_(std::move(kind)) {}
  // ALREADY_EXISTS when the name is taken.
  Status Add(std::shared_ptr<const RegisteredHandler> handler);
  // NULL when the name has no handler.
  std::shared_ptr<const RegisteredHandler> Find(std::string_view name) const;
  std::vector<std::string> Names() const;

 private:
  std::string kind_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const RegisteredHandler>, std::less<>> handlers_;
};

// Event callbacks of one client. Thread-safe; Emit is cheap when none is
// registered.
class EventCallbacks {
 public:
  EventCallbacks() = default;
  ~EventCallbacks();
  EventCallbacks(const EventCallbacks&) = delete;
  EventCallbacks& operator=(const EventCallbacks&) = delete;

  void Add(BERTH_Callback_EventFn* fn, void* data, BERTH_Ffi_ReleaseData* release);
  bool empty() const { return count_.load(std::memory_order_acquire) == 0; }
  // Calls every callback with the event. `status` OK for ExecutionFinished.
  void Emit(BERTH_Callback_EventKind kind, std::string_view executable_name, int64_t device_id,
            const Status& status) const;

 private:
  struct Entry {
    BERTH_Callback_EventFn* fn;
    void* data;
    BERTH_Ffi_ReleaseData* release;
  };
  mutable std::mutex mutex_;
  std::vector<Entry> entries_;
  std::atomic<size_t> count_{0};
};

// One custom partitioning rule (berth/ext/custom_partitioner.h), as a
// client holds it: the rule with its target copied, its identity (SHA-256
// hex of what the registrant says the rule is), and its data, released when
// the last reference goes.
class RegisteredPartitioner {
 public:
  RegisteredPartitioner(const BERTH_CustomPartitioner_Rule& rule, std::string target, std::string identity,
                        BERTH_Ffi_ReleaseData* release);
  ~RegisteredPartitioner();
  RegisteredPartitioner(const RegisteredPartitioner&) = delete;
  RegisteredPartitioner& operator=(const RegisteredPartitioner&) = delete;

  const std::string& target() const { return target_; }
  const std::string& identity() const { return identity_; }
  // Its `target` points into this object.
  const BERTH_CustomPartitioner_Rule& rule() const { return rule_; }

 private:
  std::string target_;
  std::string identity_;
  BERTH_CustomPartitioner_Rule rule_;
  BERTH_Ffi_ReleaseData* release_;
};

// A client's custom partitioning rules by target. Thread-safe.
class CustomPartitionerTable {
 public:
  // The registration's handle; ALREADY_EXISTS when the target has a rule.
  Result<uint64_t> Add(std::shared_ptr<const RegisteredPartitioner> rule);
  // NOT_FOUND for a handle the table does not hold.
  Status Remove(uint64_t handle);
  // The rules now registered (a compile takes them once).
  std::vector<std::shared_ptr<const RegisteredPartitioner>> Rules() const;

 private:
  mutable std::mutex mutex_;
  uint64_t next_handle_ = 1;
  std::map<uint64_t, std::shared_ptr<const RegisteredPartitioner>> by_handle_;
};

// An ABI version, "major.minor" when printed.
struct AbiVersion {
  int32_t major = 0;
  int32_t minor = 0;
  std::string ToString() const { return std::to_string(major) + "." + std::to_string(minor); }
};

struct RuntimeAbiVersions {
  AbiVersion runtime;
  AbiVersion newest_executable;  // what Serialize stamps
};

struct SerializedExecutable {
  AbiVersion version;
  std::string payload;
};

// One phase of a plugin's compiler (berth/ext/phase_compile.h).
struct CompilePhase {
  std::string name;           // "partition"
  std::string input_format;   // "stablehlo"
  std::string output_format;  // "stablehlo-partitioned"
  bool output_is_text = false;
};

// The extension structs. Each is static, lives as long as the plugin, and
// may be listed by one plugin only (its `next` is set by MakeApi).
BERTH_Extension_Base* FfiExtension();
BERTH_Extension_Base* CallbackExtension();
BERTH_Extension_Base* AbiVersionExtension();
// Since plugin SDK 1.3: rules land in Client::custom_partitioners(); the
// plugin hands them to the SDK's partitioner (spmd::RuleFromC) at compile.
BERTH_Extension_Base* CustomPartitionerExtension();
// Since plugin SDK 1.4: forwards to Client::CompilePhases and
// Client::RunCompilePhase; checks the phase's name and its input's format
// before the plugin sees them.
BERTH_Extension_Base* PhaseCompileExtension();
// Since plugin SDK 1.5: the plugin takes the job's slices at client creation
// (Plugin::CreateClient with a SliceTopology) and reports each device's
// (Client::num_slices, Client::device_slices).
BERTH_Extension_Base* MultiSliceExtension();
// Since plugin SDK 1.6: communicators and collective operations on buffers
// (Client::CreateCommunicator, berth/plugin/communicator.hpp) for the
// element types listed here (the first call fixes them). The SDK checks every
// call (ranks, devices, element types, dims) before the plugin sees it.
BERTH_Extension_Base* CollectivesExtension(std::span<const ElementType> element_types);
// The live_objects extension (LiveObjects() of berth/plugin/live_objects.hpp).
// MakeApi links it at the end of every SDK plugin's chain; plugins need not
// list it.
BERTH_Extension_Base* LiveObjectsExtension();

}  // namespace berth::plugin

#endif  // BERTH_PLUGIN_EXTENSIONS_HPP_
