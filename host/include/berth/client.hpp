// A client of one plugin: its devices, and buffers and executables on them.
#ifndef BERTH_CLIENT_HPP_
#define BERTH_CLIENT_HPP_

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "berth/api.hpp"
#include "berth/buffer.hpp"
#include "berth/communicator.hpp"
#include "berth/custom_partitioner.hpp"
#include "berth/device.hpp"
#include "berth/element_type.hpp"
#include "berth/executable.hpp"
#include "berth/ffi.hpp"
#include "berth/status.hpp"

namespace berth {

// What a client's persistent compilation cache did (ClientOptions): each
// Compile is a hit (loaded from the folder) or a miss (compiled, then
// stored); an entry that could not be loaded (corrupted, or made by another
// plugin or version) is discarded and counts as a miss.
struct CompilationCacheStats {
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t stores = 0;
  int64_t evictions = 0;
  int64_t discarded = 0;
};

struct HostBufferOptions {
  // Byte strides per dimension; empty for dense major-to-minor.
  std::vector<int64_t> byte_strides;
  // The memory to place the buffer in; default: the device's default memory.
  const Memory* memory = nullptr;
};

// Move-only. Thread-safe: several threads may use one client at once. The
// plugin client is destroyed when the Client and every buffer, executable and
// device handle made from it are gone.
// The job's slices as a client sees them (the multi_slice extension).
struct SliceLayout {
  int num_slices = 1;
  std::vector<int32_t> device_slices;  // in Client::devices() order
};

class BERTH_API Client {
 public:
  Client(Client&&) noexcept = default;
  Client& operator=(Client&&) noexcept = default;
  ~Client();

  const std::string& plugin_name() const;
  const std::string& platform_name() const;
  const std::string& platform_version() const;
  int32_t process_index() const;
  // "1.0": the ABI version host and plugin agreed on.
  std::string negotiated_version() const;

  const std::vector<Device>& devices() const { return devices_; }
  const std::vector<Device>& addressable_devices() const { return addressable_devices_; }
  Result<Device> LookupDevice(int64_t id) const;
  std::vector<Memory> memories() const;

  // Copies host data (dense major-to-minor unless strides say otherwise) to a
  // new buffer on `device`; `data` may be reused when this returns.
  Result<Buffer> BufferFromHost(const void* data, ElementType type, std::span<const int64_t> dims,
                                const Device& device, const HostBufferOptions& options = {}) const;

  // Compiles `code` (StableHLO MLIR text by default) for this client's devices;
  // with a compilation cache (ClientOptions), loads what an earlier compile
  // of the same inputs stored instead.
  Result<Executable> Compile(std::string_view code, const CompileOptions& options = {}) const;
  // All zero when the client has no compilation cache.
  CompilationCacheStats compilation_cache_stats() const;

  // ---- Extensions (berth/ffi.hpp). Each call answers UNIMPLEMENTED, naming
  // the plugin and the extension, when the plugin does not offer it.

  // True when the plugin's chain holds a usable struct of `type`.
  bool HasExtension(BERTH_Extension_Type type) const;
  // ffi: a handler for `stablehlo.custom_call @target`, used by programs
  // compiled afterwards. ALREADY_EXISTS when the target is taken.
  Status RegisterFfiHandler(std::string_view target, FfiHandler handler) const;
  // The same with a C handler; `data` is released by `release` (when not
  // NULL) once the client drops the handler, or at once if this fails.
  Status RegisterFfiHandler(std::string_view target, BERTH_Ffi_Handler* handler, void* data,
                            BERTH_Ffi_ReleaseData* release) const;
  // callback: the host callback NAME of `custom_call @berth.host_callback
  // {callback = "NAME"}`.
  Status RegisterHostCallback(std::string_view name, FfiHandler callback) const;
  // callback: execution finished / failed, plugin fatal error.
  Status AddEventCallback(EventCallback callback) const;
  // custom_partitioner: how the partitioner cuts `custom_call @target` in
  // sharded programs compiled afterwards (berth/custom_partitioner.hpp).
  // ALREADY_EXISTS when the target has a rule; INVALID_ARGUMENT without a
  // partition function or an identity.
  Result<CustomPartitionerHandle> RegisterCustomPartitioner(std::string_view target,
                                                            CustomPartitionerRule rule) const;
  // NOT_FOUND when the handle's rule is not registered (any more).
  Status UnregisterCustomPartitioner(const CustomPartitionerHandle& handle) const;
  // abi_version: the runtime's ABI version and the executable ABI it writes.
  Result<AbiVersions> abi_versions() const;
  // abi_version: loads a `berth-executable` file made by Executable::Serialize.
  // Refused (FAILED_PRECONDITION) when it was made by another plugin or
  // platform, or for an executable ABI this runtime does not load;
  // INVALID_ARGUMENT / DATA_LOSS for a malformed, truncated or corrupted file.
  // `source_name` names the bytes in messages (e.g. the file's path).
  Result<Executable> Deserialize(std::string_view bytes,
                                 std::string_view source_name = "<berth-executable>") const;

  // multi_slice: the job's slice count and each device's slice, in devices()
  // order (one slice when the client was told of none). UNIMPLEMENTED for a
  // plugin without the extension.
  Result<SliceLayout> slice_layout() const;

  // collectives: a communicator over `device_ids` (rank r is device_ids[r];
  // berth/communicator.hpp). Every process holding one of the devices
  // creates it with the same list, in the same order as its other
  // communicators; creation waits for them, up to `timeout` (0: the
  // plugin's default), which is also the default of each operation.
  // DEADLINE_EXCEEDED names the ranks whose processes did not come.
  Result<Communicator> CreateCommunicator(std::span<const int64_t> device_ids,
                                          std::chrono::milliseconds timeout = {}) const;
  // collectives: the element types its operations take.
  Result<std::vector<ElementType>> CollectiveElementTypes() const;

  // phase_compile: the plugin's compile phases in order.
  Result<std::vector<CompilePhase>> CompilePhases() const;
  // phase_compile: runs the phases after `input` (a program: every phase
  // from the first) up to and including `until` (empty: the last), one at a
  // time, and returns each one's output. The whole chain is checked before
  // anything runs: an unknown phase, a range that does not connect, or an
  // input of another format than the first phase reads is INVALID_ARGUMENT.
  // Compile(output.bytes, {.format = output.format, ...}) loads any output.
  Result<std::vector<CompileIntermediate>> RunCompilePhases(const CompileIntermediate& input, std::string_view until,
                                                            const CompileOptions& options = {}) const;
  // phase_compile: an intermediate as a file (the plugin, its platform and
  // version, the phase, the format and a fingerprint in front of it), and
  // back. Reading refuses a file of another plugin or platform version
  // (FAILED_PRECONDITION) and a truncated or altered one (DATA_LOSS).
  std::string WriteIntermediate(const CompileIntermediate& intermediate) const;
  Result<CompileIntermediate> ReadIntermediate(std::string_view bytes, std::string_view source_name) const;

  BERTH_Client* c_client() const;
  const std::shared_ptr<const core::ClientState>& state() const { return state_; }

  explicit Client(std::shared_ptr<const core::ClientState> state);

 private:
  Result<Executable> CompileUncached(std::string_view code, const CompileOptions& options) const;

  std::shared_ptr<const core::ClientState> state_;
  std::vector<Device> devices_;
  std::vector<Device> addressable_devices_;
};

}  // namespace berth

#endif  // BERTH_CLIENT_HPP_
