#include "cpu_client.hpp"

#include <cstring>
#include <thread>

#include "berth/plugin/options.hpp"
#include "cpu_buffer.hpp"
#include "cpu_executable.hpp"

namespace berth::cpu {
namespace {

constexpr int64_t kMaxDevices = 4096;

// Copies a strided host array into dense major-to-minor storage.
void CopyStrided(const std::byte* src, std::span<const int64_t> dims,
                 std::span<const int64_t> byte_strides, size_t element_size, std::byte* dst) {
  const size_t rank = dims.size();
  std::vector<int64_t> index(rank, 0);
  const int64_t count = ElementCount(dims);
  for (int64_t n = 0; n < count; ++n) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d) offset += index[d] * byte_strides[d];
    std::memcpy(dst, src + offset, element_size);
    dst += element_size;
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace

CpuClient::CpuClient(CpuClientOptions options)
    : options_(options),
      platform_version_("berth-cpu " BERTH_VERSION),
      pool_(std::make_unique<ThreadPool>(std::max(1u, std::thread::hardware_concurrency()))) {
  for (int64_t i = 0; i < options_.device_count; ++i) {
    plugin::Memory* memory =
        AddMemory(std::make_unique<plugin::Memory>(static_cast<int32_t>(i), "unpinned_host"));
    int64_t global_id = options_.node_id * options_.device_count + i;
    plugin::DeviceDescription description(global_id, static_cast<int32_t>(options_.node_id), "cpu",
                                          {{"core_count", int64_t{1}}});
    auto device = std::make_unique<plugin::Device>(std::move(description), true,
                                                   static_cast<int32_t>(i));
    device->AttachMemory(memory);
    memory->AttachDevice(device.get());
    AddDevice(std::move(device));
  }
}

Result<std::unique_ptr<CpuClient>> CpuClient::Create(const NamedValueMap& options,
                                                     const plugin::KeyValueStore& kv_store) {
  plugin::OptionReader reader(options, "cpu client option");
  CpuClientOptions parsed;
  BERTH_ASSIGN_OR_RETURN(parsed.device_count, reader.Int64("device_count", 1));
  BERTH_ASSIGN_OR_RETURN(parsed.node_id, reader.Int64("node_id", 0));
  BERTH_ASSIGN_OR_RETURN(parsed.num_nodes, reader.Int64("num_nodes", 1));
  BERTH_RETURN_IF_ERROR(reader.CheckNoUnknown());
  if (parsed.device_count < 1 || parsed.device_count > kMaxDevices) {
    return InvalidArgumentError("cpu client option 'device_count' must be between 1 and " +
                                std::to_string(kMaxDevices) + ", not " +
                                std::to_string(parsed.device_count));
  }
  if (parsed.num_nodes < 1 || parsed.node_id < 0 || parsed.node_id >= parsed.num_nodes) {
    return InvalidArgumentError("cpu client options: node_id " + std::to_string(parsed.node_id) +
                                " is not in [0, num_nodes " + std::to_string(parsed.num_nodes) +
                                ")");
  }
  if (parsed.num_nodes > 1) {
    if (!kv_store.available()) {
      return InvalidArgumentError(
          "cpu client options: num_nodes > 1 needs the host's key-value store (join a job "
          "through the coordination service)");
    }
    return UnimplementedError(
        "the cpu plugin does not run multi-process jobs yet (num_nodes " +
        std::to_string(parsed.num_nodes) + ")");
  }
  return std::unique_ptr<CpuClient>(new CpuClient(parsed));
}

Result<std::unique_ptr<plugin::LoadedExecutable>> CpuClient::Compile(
    const plugin::Program& program, const plugin::CompileOptions& options) {
  BERTH_ASSIGN_OR_RETURN(std::unique_ptr<CpuExecutable> executable,
                         CpuExecutable::Compile(*this, program, options));
  return std::unique_ptr<plugin::LoadedExecutable>(std::move(executable));
}

void CpuClient::EnqueueLaunch(const std::vector<plugin::Device*>& devices,
                              std::vector<std::function<void()>> work) {
  std::lock_guard lock(launch_mutex_);
  for (size_t i = 0; i < devices.size(); ++i) StreamLocked(*devices[i]).Enqueue(std::move(work[i]));
}

void CpuClient::RunInlineOrEnqueue(plugin::Device* device, std::function<void()> work) {
  DeviceStream* stream;
  {
    std::lock_guard lock(launch_mutex_);
    stream = &StreamLocked(*device);
  }
  // Streams live as long as the client, so `stream` stays valid unlocked.
  if (!stream->TryRunInline(work)) EnqueueLaunch({device}, {std::move(work)});
}

DeviceStream& CpuClient::StreamLocked(const plugin::Device& device) {
  size_t index = static_cast<size_t>(device.local_hardware_id());
  if (streams_.size() <= index) streams_.resize(index + 1);
  if (!streams_[index]) streams_[index] = std::make_unique<DeviceStream>();
  return *streams_[index];
}

Result<plugin::HostBufferResult> CpuClient::BufferFromHostBuffer(
    const plugin::HostBufferArgs& args) {
  size_t element_size = ElementTypeByteSize(args.type);
  BERTH_ASSIGN_OR_RETURN(size_t byte_size, DenseByteSize(args.type, args.dims));
  std::shared_ptr<Storage> storage = Storage::Allocate(byte_size);
  const auto* src = static_cast<const std::byte*>(args.data);
  if (byte_size == 0) {
    // Nothing to copy.
  } else if (args.byte_strides.empty()) {
    std::memcpy(storage->data(), src, byte_size);
  } else {
    for (int64_t stride : args.byte_strides) {
      if (stride < 0) {
        return InvalidArgumentError("negative byte strides are not supported");
      }
    }
    CopyStrided(src, args.dims, args.byte_strides, element_size, storage->data());
  }
  plugin::HostBufferResult result;
  if (args.type == berth::ElementType::kPred) {
    // Predicates are 0 or 1 inside the backend, whatever byte the host used.
    for (size_t i = 0; i < byte_size; ++i) {
      storage->data()[i] = storage->data()[i] != std::byte{0} ? std::byte{1} : std::byte{0};
    }
  }
  result.buffer = std::make_unique<CpuBuffer>(
      args.type, std::vector<int64_t>(args.dims.begin(), args.dims.end()), args.device,
      args.memory, std::make_shared<BufferContents>(std::move(storage)));
  result.done_with_host_buffer = plugin::Event::Ready();
  return result;
}

}  // namespace berth::cpu
