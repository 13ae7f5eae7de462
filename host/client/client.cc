#include "berth/client.hpp"

#include "berth/log.hpp"
#include "client/client_state.hpp"

namespace berth {

Client::Client(std::shared_ptr<const core::ClientState> state) : state_(std::move(state)) {
  for (const core::DeviceRecord& record : state_->devices) {
    devices_.emplace_back(state_, &record);
    if (record.is_addressable) addressable_devices_.emplace_back(state_, &record);
  }
}

Client::~Client() = default;

const std::string& Client::plugin_name() const { return state_->plugin_name; }
const std::string& Client::platform_name() const { return state_->platform_name; }
const std::string& Client::platform_version() const { return state_->platform_version; }
int32_t Client::process_index() const { return state_->process_index; }
std::string Client::negotiated_version() const { return state_->library->NegotiatedVersion(); }
BERTH_Client* Client::c_client() const { return state_->client; }

Result<Device> Client::LookupDevice(int64_t id) const {
  for (const Device& device : devices_) {
    if (device.id() == id) return device;
  }
  return NotFoundError("client of plugin '" + state_->plugin_name + "' has no device with id " +
                       std::to_string(id));
}

std::vector<Memory> Client::memories() const {
  std::vector<Memory> out;
  for (const core::MemoryRecord& record : state_->memories) out.emplace_back(state_, &record);
  return out;
}

Result<Buffer> Client::BufferFromHost(const void* data, ElementType type,
                                      std::span<const int64_t> dims, const Device& device,
                                      const HostBufferOptions& options) const {
  BERTH_Client_BufferFromHostBuffer_Args args{};
  args.struct_size = BERTH_Client_BufferFromHostBuffer_Args_STRUCT_SIZE;
  args.client = state_->client;
  args.data = data;
  args.type = static_cast<BERTH_Buffer_Type>(type);
  args.dims = dims.data();
  args.num_dims = dims.size();
  if (!options.byte_strides.empty()) {
    args.byte_strides = options.byte_strides.data();
    args.num_byte_strides = options.byte_strides.size();
  }
  args.host_buffer_semantics = BERTH_HostBufferSemantics_ImmutableOnlyDuringCall;
  args.device = device.c_device();
  args.memory = options.memory != nullptr ? options.memory->c_memory() : nullptr;
  BERTH_RETURN_IF_ERROR(BERTH_CALL(*state_->library, BERTH_Client_BufferFromHostBuffer, &args));
  // The data may be reused once the transfer is done; wait for it so the
  // caller can reuse `data` right away, as documented.
  Event done(state_->library, args.done_with_host_buffer);
  BERTH_ASSIGN_OR_RETURN(Buffer buffer, Buffer::Adopt(state_, args.buffer));
  BERTH_RETURN_IF_ERROR(done.Await());
  return buffer;
}

Result<Executable> Client::Compile(std::string_view code, const CompileOptions& options) const {
  core::CompilationCache* cache = state_->compilation_cache.get();
  if (cache == nullptr) return CompileUncached(code, options);
  const std::string key = state_->CompilationKey(code, options);
  if (std::optional<std::string> bytes = cache->Load(key)) {
    Result<Executable> loaded = Deserialize(*bytes, cache->EntryPath(key).string());
    if (loaded.ok()) return loaded;
    cache->Discard(key, loaded.status());
  }
  BERTH_ASSIGN_OR_RETURN(Executable executable, CompileUncached(code, options));
  Result<std::string> serialized = executable.Serialize();
  if (serialized.ok()) {
    cache->Store(key, *serialized);
  } else {
    Log(LogLevel::kInfo, "compilation_cache",
        "executable " + executable.name() + " is not cached: " + serialized.status().ToString());
  }
  return executable;
}

CompilationCacheStats Client::compilation_cache_stats() const {
  return state_->compilation_cache ? state_->compilation_cache->stats() : CompilationCacheStats{};
}

core::CCompileOptions::CCompileOptions(const CompileOptions& options) : named_(options.options) {
  c_.struct_size = BERTH_CompileOptions_STRUCT_SIZE;
  c_.num_replicas = options.num_replicas;
  c_.num_partitions = options.num_partitions;
  if (!options.device_assignment.empty()) {
    c_.device_assignment = options.device_assignment.data();
    c_.device_assignment_size = options.device_assignment.size();
  }
  c_.entry_name = options.entry_name.data();
  c_.entry_name_size = options.entry_name.size();
  c_.options = named_.data();
  c_.num_options = named_.size();
}

Result<Executable> Client::CompileUncached(std::string_view code, const CompileOptions& options) const {
  BERTH_Program program{};
  program.struct_size = BERTH_Program_STRUCT_SIZE;
  program.format = options.format.data();
  program.format_size = options.format.size();
  program.code = code.data();
  program.code_size = code.size();
  core::CCompileOptions c_options(options);
  BERTH_Client_Compile_Args args{};
  args.struct_size = BERTH_Client_Compile_Args_STRUCT_SIZE;
  args.client = state_->client;
  args.program = &program;
  args.options = c_options.get();
  BERTH_RETURN_IF_ERROR(BERTH_CALL(*state_->library, BERTH_Client_Compile, &args));
  return Executable::Adopt(state_, args.executable);
}

}  // namespace berth
