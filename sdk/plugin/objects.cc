// Out-of-line parts of the plugin object model (device, buffer, client,
// options, key-value store).
#include <algorithm>
#include <atomic>
#include <optional>
#include <limits>

#include "berth/plugin/buffer.hpp"
#include "berth/plugin/client.hpp"
#include "berth/plugin/device.hpp"
#include "berth/plugin/key_value.hpp"
#include "berth/plugin/options.hpp"

namespace berth::plugin {

namespace {

std::atomic<int64_t> live_objects[4];

std::atomic<int64_t>& Count(LiveObjectKind kind) { return live_objects[static_cast<int>(kind)]; }

}  // namespace

LiveObject::LiveObject(LiveObjectKind kind) noexcept : kind_(kind) {
  Count(kind_).fetch_add(1, std::memory_order_relaxed);
}
LiveObject::LiveObject(const LiveObject& other) noexcept : kind_(other.kind_) {
  Count(kind_).fetch_add(1, std::memory_order_relaxed);
}
LiveObject::~LiveObject() { Count(kind_).fetch_sub(1, std::memory_order_relaxed); }

LiveObjectCounts LiveObjects() {
  LiveObjectCounts counts;
  counts.clients = Count(LiveObjectKind::kClient).load(std::memory_order_relaxed);
  counts.buffers = Count(LiveObjectKind::kBuffer).load(std::memory_order_relaxed);
  counts.executables = Count(LiveObjectKind::kExecutable).load(std::memory_order_relaxed);
  counts.events = Count(LiveObjectKind::kEvent).load(std::memory_order_relaxed);
  return counts;
}

DeviceDescription::DeviceDescription(int64_t id, int32_t process_index, std::string kind,
                                     NamedValueMap attributes)
    : id_(id),
      process_index_(process_index),
      kind_(std::move(kind)),
      attributes_(std::move(attributes)),
      c_attributes_(attributes_),
      debug_string_(kind_ + ":" + std::to_string(id_) + " (process " +
                    std::to_string(process_index_) + ")") {}

Device::Device(DeviceDescription description, bool is_addressable, int32_t local_hardware_id)
    : description_(std::move(description)),
      is_addressable_(is_addressable),
      local_hardware_id_(is_addressable ? local_hardware_id : -1) {}

Memory::Memory(int32_t id, std::string kind) : id_(id), kind_(std::move(kind)) {}

Result<std::unique_ptr<Buffer>> Buffer::CopyToDevice(Device* dst_device) {
  (void)dst_device;
  return UnimplementedError("this plugin does not copy buffers between devices");
}

Result<std::unique_ptr<LoadedExecutable>> Client::Compile(const Program& program,
                                                          const CompileOptions& options) {
  (void)options;
  return UnimplementedError("platform '" + platform_name() + "' cannot compile programs (format '" +
                            std::string(program.format) + "')");
}

Result<std::string> Client::RunCompilePhase(const CompilePhase& phase, const Program& input,
                                            const CompileOptions& options) {
  (void)input;
  (void)options;
  return UnimplementedError("platform '" + platform_name() + "' cannot run compile phase '" + phase.name + "'");
}

bool Client::HasBuiltinCustomCall(std::string_view target) const {
  (void)target;
  return false;
}

Result<RuntimeAbiVersions> Client::RuntimeAbiVersion() const {
  return UnimplementedError("platform '" + platform_name() + "' reports no runtime ABI version");
}

Status Client::CheckExecutableCompatible(AbiVersion executable, AbiVersion runtime) const {
  (void)executable;
  (void)runtime;
  return UnimplementedError("platform '" + platform_name() +
                            "' cannot load serialized executables");
}

Result<std::unique_ptr<LoadedExecutable>> Client::DeserializeAndLoad(std::string_view payload,
                                                                     AbiVersion version) {
  (void)payload;
  (void)version;
  return UnimplementedError("platform '" + platform_name() +
                            "' cannot load serialized executables");
}

Result<SerializedExecutable> LoadedExecutable::Serialize() const {
  return UnimplementedError("executable '" + metadata_->name + "' cannot be serialized");
}

Result<Device*> Client::LookupDevice(int64_t id) const {
  for (Device* device : devices_) {
    if (device->id() == id) return device;
  }
  return NotFoundError("no device with id " + std::to_string(id) + " (the client has " +
                       std::to_string(devices_.size()) + " devices)");
}

bool Client::Owns(const Device* device) const {
  return std::find(devices_.begin(), devices_.end(), device) != devices_.end();
}

bool Client::Owns(const Memory* memory) const {
  return std::find(memories_.begin(), memories_.end(), memory) != memories_.end();
}

Device* Client::AddDevice(std::unique_ptr<Device> device) {
  Device* raw = device.get();
  owned_devices_.push_back(std::move(device));
  auto by_id = [](const Device* a, const Device* b) { return a->id() < b->id(); };
  devices_.insert(std::upper_bound(devices_.begin(), devices_.end(), raw, by_id), raw);
  if (raw->is_addressable()) {
    addressable_devices_.insert(
        std::upper_bound(addressable_devices_.begin(), addressable_devices_.end(), raw, by_id),
        raw);
  }
  c_devices_.clear();
  for (Device* d : devices_) c_devices_.push_back(reinterpret_cast<BERTH_Device*>(d));
  c_addressable_devices_.clear();
  for (Device* d : addressable_devices_) {
    c_addressable_devices_.push_back(reinterpret_cast<BERTH_Device*>(d));
  }
  return raw;
}

Memory* Client::AddMemory(std::unique_ptr<Memory> memory) {
  Memory* raw = memory.get();
  owned_memories_.push_back(std::move(memory));
  memories_.push_back(raw);
  c_memories_.push_back(reinterpret_cast<BERTH_Memory*>(raw));
  return raw;
}

// ------------------------------------------------------------------ options

template <typename T>
Result<T> OptionReader::Get(std::string_view name, T fallback) {
  known_.emplace(name);
  auto it = options_.find(name);
  if (it == options_.end()) return fallback;
  if (const T* value = std::get_if<T>(&it->second)) return *value;
  if constexpr (std::is_same_v<T, double>) {
    if (const int64_t* value = std::get_if<int64_t>(&it->second)) return static_cast<double>(*value);
  }
  NamedValueData expected{T{}};
  return InvalidArgumentError(what_ + " '" + std::string(name) + "' must be of type " +
                              std::string(NamedValueTypeName(expected)) + ", not " +
                              std::string(NamedValueTypeName(it->second)));
}

Result<int64_t> OptionReader::Int64(std::string_view name, int64_t fallback) {
  return Get<int64_t>(name, fallback);
}
Result<double> OptionReader::Float64(std::string_view name, double fallback) {
  return Get<double>(name, fallback);
}
Result<bool> OptionReader::Bool(std::string_view name, bool fallback) {
  return Get<bool>(name, fallback);
}
Result<std::string> OptionReader::String(std::string_view name, std::string fallback) {
  return Get<std::string>(name, std::move(fallback));
}
Result<std::vector<int64_t>> OptionReader::Int64List(std::string_view name,
                                                     std::vector<int64_t> fallback) {
  return Get<std::vector<int64_t>>(name, std::move(fallback));
}

Status OptionReader::CheckNoUnknown() const {
  for (const auto& [name, value] : options_) {
    if (known_.count(name) || IsReservedOption(name)) continue;
    std::string known;
    for (const std::string& k : known_) known += (known.empty() ? "" : ", ") + k;
    return InvalidArgumentError("unknown " + what_ + " '" + name + "'; known options: " +
                                (known.empty() ? "none" : known));
  }
  return OkStatus();
}

bool IsReservedOption(std::string_view name) {
  return name == BERTH_OPTION_NODE_ID || name == BERTH_OPTION_NUM_NODES || name == BERTH_OPTION_NODE_ADDRESS ||
         name == BERTH_OPTION_SOURCE_NAME;
}

namespace {

// The reserved option `name` when given: its value, which must be of type T.
template <typename T>
Result<std::optional<T>> Reserved(const NamedValueMap& options, std::string_view name,
                                  std::string_view what) {
  auto it = options.find(name);
  if (it == options.end()) return std::optional<T>();
  if (const T* value = std::get_if<T>(&it->second)) return std::optional<T>(*value);
  NamedValueData expected{T{}};
  return InvalidArgumentError("reserved " + std::string(what) + " '" + std::string(name) +
                              "' must be of type " + std::string(NamedValueTypeName(expected)) +
                              ", not " + std::string(NamedValueTypeName(it->second)));
}

}  // namespace

Status CheckReservedClientOptions(const NamedValueMap& options) {
  BERTH_ASSIGN_OR_RETURN(std::optional<int64_t> node_id,
                         Reserved<int64_t>(options, BERTH_OPTION_NODE_ID, "client option"));
  BERTH_ASSIGN_OR_RETURN(std::optional<int64_t> num_nodes,
                         Reserved<int64_t>(options, BERTH_OPTION_NUM_NODES, "client option"));
  const int64_t nodes = num_nodes.value_or(1);
  if (nodes < 1) {
    return InvalidArgumentError("reserved client option 'num_nodes' is " + std::to_string(nodes) +
                                "; a job has at least one node");
  }
  const int64_t node = node_id.value_or(0);
  if (node < 0 || node >= nodes) {
    return InvalidArgumentError("reserved client option 'node_id' is " + std::to_string(node) +
                                "; with num_nodes = " + std::to_string(nodes) +
                                " it must be 0 to " + std::to_string(nodes - 1));
  }
  BERTH_ASSIGN_OR_RETURN(std::optional<std::string> address,
                         Reserved<std::string>(options, BERTH_OPTION_NODE_ADDRESS, "client option"));
  if (address && address->empty()) {
    return InvalidArgumentError("reserved client option 'node_address' is empty; it names this process's address");
  }
  return OkStatus();
}

Status CheckReservedCompileOptions(const NamedValueMap& options) {
  return Reserved<std::string>(options, BERTH_OPTION_SOURCE_NAME, "compile option").status();
}

// ---------------------------------------------------------- key-value store

namespace {

std::string TakeHostBytes(BERTH_HostBytes& bytes) {
  std::string out;
  if (bytes.data != nullptr) {
    out.assign(bytes.data, bytes.size);
    if (bytes.release != nullptr) bytes.release(bytes.data);
  }
  bytes = BERTH_HostBytes{};
  return out;
}

// Calls the host's `fn` with `args` (struct_size set) for `key`; a failure
// keeps the host's message, else says which call of which key failed.
template <typename Args>
Status CallStore(const BERTH_KeyValueStore* store, BERTH_Error_Code (*fn)(Args*),
                 size_t struct_size, std::string_view verb, std::string_view key, Args& args) {
  if (store == nullptr || fn == nullptr) {
    return FailedPreconditionError("no key-value store: the client is not part of a job");
  }
  args.struct_size = struct_size;
  args.user_data = store->user_data;
  args.key = key.data();
  args.key_size = key.size();
  BERTH_Error_Code code = fn(&args);
  std::string message = TakeHostBytes(args.message);
  if (code == BERTH_Error_Code_OK) return OkStatus();
  if (message.empty())
    message = "key-value " + std::string(verb) + " of '" + std::string(key) + "' failed";
  return Status(StatusCodeFromInt(code), std::move(message));
}

}  // namespace

Result<std::string> KeyValueStore::DoGet(std::string_view key, int64_t timeout_ms) const {
  BERTH_KeyValue_Get_Args args{};
  args.timeout_ms = timeout_ms;
  Status status = CallStore(store_, store_ ? store_->get : nullptr,
                            BERTH_KeyValue_Get_Args_STRUCT_SIZE, "get", key, args);
  std::string value = TakeHostBytes(args.value);
  if (!status.ok()) return status;
  return value;
}

Result<std::string> KeyValueStore::Get(std::string_view key,
                                       std::chrono::milliseconds timeout) const {
  return DoGet(key, std::max<int64_t>(0, timeout.count()));
}

Result<std::optional<std::string>> KeyValueStore::TryGet(std::string_view key) const {
  Result<std::string> value = DoGet(key, -1);
  if (value.ok()) return std::optional<std::string>(std::move(value).value());
  if (value.status().code() == StatusCode::kNotFound) return std::optional<std::string>();
  return value.status();
}

Status KeyValueStore::Put(std::string_view key, std::string_view value,
                          bool allow_overwrite) const {
  BERTH_KeyValue_Put_Args args{};
  args.value = value.data();
  args.value_size = value.size();
  args.allow_overwrite = allow_overwrite;
  return CallStore(store_, store_ ? store_->put : nullptr, BERTH_KeyValue_Put_Args_STRUCT_SIZE,
                   "put", key, args);
}

}  // namespace berth::plugin
