// A client: the devices of one plugin instance, and the entry points to make
// buffers and executables on them.
#ifndef BERTH_PLUGIN_CLIENT_HPP_
#define BERTH_PLUGIN_CLIENT_HPP_

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "berth/c_api.h"
#include "berth/plugin/buffer.hpp"
#include "berth/plugin/communicator.hpp"
#include "berth/plugin/device.hpp"
#include "berth/plugin/executable.hpp"
#include "berth/plugin/extensions.hpp"
#include "berth/plugin/live_objects.hpp"

namespace berth::plugin {

enum class HostBufferSemantics {
  kImmutableOnlyDuringCall,
  kImmutableUntilTransferCompletes,
};

// Arguments of Client::BufferFromHostBuffer, validated by the helpers: `type`
// is valid, dims non-negative, `device` addressable and of this client,
// `memory` one of the device's (defaulted), `byte_strides` empty or one per dim.
struct HostBufferArgs {
  const void* data = nullptr;
  ElementType type = ElementType::kInvalid;
  std::span<const int64_t> dims;
  std::span<const int64_t> byte_strides;  // empty: dense major-to-minor
  HostBufferSemantics semantics = HostBufferSemantics::kImmutableOnlyDuringCall;
  Device* device = nullptr;
  Memory* memory = nullptr;
};

// Since plugin SDK 1.7: copies the host array of `args` - dense, or with
// its byte strides - into dense major-to-minor order at `dst`, which holds
// DenseByteSize(args.type, args.dims) bytes. Negative strides are
// INVALID_ARGUMENT (nothing is copied).
Status CopyHostArrayDense(const HostBufferArgs& args, std::byte* dst);

struct HostBufferResult {
  std::unique_ptr<Buffer> buffer;
  Event done_with_host_buffer;  // ready once `data` may be reused
};

class Client {
 public:
  virtual ~Client() = default;
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  virtual const std::string& platform_name() const = 0;
  virtual const std::string& platform_version() const = 0;
  virtual int32_t process_index() const { return 0; }
  // Since plugin SDK 1.5 (the multi_slice extension): the job's slice count
  // and each device's slice, in devices() order. Default: one slice.
  virtual int32_t num_slices() const { return 1; }
  virtual std::vector<int32_t> device_slices() const {
    return std::vector<int32_t>(devices().size(), 0);
  }

  virtual Result<std::unique_ptr<LoadedExecutable>> Compile(const Program& program,
                                                            const CompileOptions& options);
  virtual Result<HostBufferResult> BufferFromHostBuffer(const HostBufferArgs& args) = 0;

  // Extensions (berth/plugin/extensions.hpp). The tables are filled by the
  // host through the ffi and callback extensions, when the plugin offers them.
  FfiHandlerTable& ffi_handlers() { return ffi_handlers_; }
  FfiHandlerTable& host_callbacks() { return host_callbacks_; }
  CustomPartitionerTable& custom_partitioners() { return custom_partitioners_; }
  const CustomPartitionerTable& custom_partitioners() const { return custom_partitioners_; }
  const EventCallbacks& event_callbacks() const { return event_callbacks_; }
  EventCallbacks& event_callbacks() { return event_callbacks_; }
  // True for custom-call targets the plugin implements itself; registering
  // an FFI handler under such a name fails with ALREADY_EXISTS.
  virtual bool HasBuiltinCustomCall(std::string_view target) const;
  // abi_version extension. Defaults: UNIMPLEMENTED.
  virtual Result<RuntimeAbiVersions> RuntimeAbiVersion() const;
  // OK when an executable stamped `executable`, serialized by a runtime of
  // version `runtime`, loads here; else FAILED_PRECONDITION saying why.
  virtual Status CheckExecutableCompatible(AbiVersion executable, AbiVersion runtime) const;
  virtual Result<std::unique_ptr<LoadedExecutable>> DeserializeAndLoad(std::string_view payload,
                                                                       AbiVersion version);
  // phase_compile extension. The phases in order (default: none); the list
  // must not change while the client lives. RunCompilePhase gets a phase of
  // that list and an input of its input format (the SDK checks both) and
  // returns the phase's output; default UNIMPLEMENTED.
  virtual std::span<const CompilePhase> CompilePhases() const { return {}; }
  virtual Result<std::string> RunCompilePhase(const CompilePhase& phase, const Program& input,
                                              const CompileOptions& options);
  // collectives extension (since plugin SDK 1.6): a communicator over
  // `device_ids` (rank r is device_ids[r]); the SDK has checked that the ids
  // are devices of the client, without repeats, one of them addressable.
  // Creation is collective across the processes holding the devices; a
  // `timeout` of 0 means the plugin's default. Default: UNIMPLEMENTED.
  virtual Result<std::unique_ptr<Communicator>> CreateCommunicator(
      const std::vector<int64_t>& device_ids, std::chrono::milliseconds timeout);

  // Owned by the client, stable for its lifetime, ordered by id.
  std::span<Device* const> devices() const { return devices_; }
  std::span<Device* const> addressable_devices() const { return addressable_devices_; }
  std::span<Memory* const> memories() const { return memories_; }
  Result<Device*> LookupDevice(int64_t id) const;
  // True when `device` is one of this client's.
  bool Owns(const Device* device) const;
  bool Owns(const Memory* memory) const;

  // The same lists as C arrays, for the ABI glue.
  std::span<BERTH_Device* const> c_devices() const { return c_devices_; }
  std::span<BERTH_Device* const> c_addressable_devices() const { return c_addressable_devices_; }
  std::span<BERTH_Memory* const> c_memories() const { return c_memories_; }

 protected:
  Client() = default;
  // Called by subclasses while constructing. Device ids must be unique.
  Device* AddDevice(std::unique_ptr<Device> device);
  Memory* AddMemory(std::unique_ptr<Memory> memory);

 private:
  std::vector<std::unique_ptr<Device>> owned_devices_;
  std::vector<std::unique_ptr<Memory>> owned_memories_;
  std::vector<Device*> devices_;
  std::vector<Device*> addressable_devices_;
  std::vector<Memory*> memories_;
  std::vector<BERTH_Device*> c_devices_;
  std::vector<BERTH_Device*> c_addressable_devices_;
  std::vector<BERTH_Memory*> c_memories_;
  FfiHandlerTable ffi_handlers_{"ffi target"};
  FfiHandlerTable host_callbacks_{"host callback"};
  CustomPartitionerTable custom_partitioners_;
  EventCallbacks event_callbacks_;
  LiveObject live_{LiveObjectKind::kClient};
};

}  // namespace berth::plugin

#endif  // BERTH_PLUGIN_CLIENT_HPP_
