#include "cpu_client.hpp"

#include "cpu_compiler.hpp"

#include "isa/isa.hpp"

#include <stdlib.h>

#include <cstring>
#include <thread>

#include "berth/plugin/options.hpp"
#include "cpu_buffer.hpp"
#include "cpu_communicator.hpp"
#include "cpu_executable.hpp"
#include "interpreter/collective_group.hpp"
#include "interpreter/custom_call.hpp"
#include "interpreter/element_types.hpp"
#include "interpreter/narrow_types.hpp"
#include "isa/isa.hpp"

namespace berth::cpu {
namespace {

constexpr int64_t kMaxDevices = 4096;
constexpr int64_t kMaxNodes = 65536;

}  // namespace

CpuClient::CpuClient(CpuClientOptions options, CpuTopology topology,
                     const plugin::KeyValueStore* kv_store)
    : options_(options),
      topology_(std::move(topology)),
      platform_version_("berth-cpu " BERTH_VERSION),
      pool_(std::make_unique<ThreadPool>(std::max(1u, std::thread::hardware_concurrency()))) {
  const int self = static_cast<int>(options_.node_id);
  for (int node = 0; node < topology_.num_nodes(); ++node) {
    const int64_t first = topology_.first_device_id(node);
    for (int64_t i = 0; i < topology_.device_counts[static_cast<size_t>(node)]; ++i) {
      const bool local = node == self;
      plugin::DeviceDescription description(first + i, node, "cpu", {{"core_count", int64_t{1}}});
      auto device = std::make_unique<plugin::Device>(std::move(description), local,
                                                     local ? static_cast<int32_t>(i) : -1);
      if (local) {
        plugin::Memory* memory =
            AddMemory(std::make_unique<plugin::Memory>(static_cast<int32_t>(i), "unpinned_host"));
        device->AttachMemory(memory);
        memory->AttachDevice(device.get());
      }
      AddDevice(std::move(device));
    }
  }
  if (topology_.num_nodes() > 1 && kv_store != nullptr) {
    // Nodes meet at the addresses they published. Host names (from a host
    // older than C API 1.3) that are all alike mean one machine: loopback.
    kv_store_ = kv_store;
    gloo_addresses_ = topology_.addresses;
    if (options_.node_address.empty() && topology_.single_host()) {
      gloo_addresses_.assign(gloo_addresses_.size(), "127.0.0.1");
    }
    gloo_ = std::make_unique<GlooCollectives>(
        *kv_store, self, gloo_addresses_, kCollectiveTimeout,
        [this](const Status& status) {
          event_callbacks().Emit(BERTH_Callback_EventKind_PluginFatal, "", -1, status);
        },
        topology_.slices, options_.collective_algorithm);
  }
}

Result<std::unique_ptr<CpuClient>> CpuClient::Create(const NamedValueMap& options,
                                                     const plugin::KeyValueStore& kv_store,
                                                     const plugin::SliceTopology& slices) {
  // No kernel variant this CPU runs (or BERTH_CPU_ISA asks for one it
  // cannot): no client, rather than an illegal instruction later.
  BERTH_RETURN_IF_ERROR(isa::Selected().status().WithContext("cpu client"));
  plugin::OptionReader reader(options, "cpu client option");
  CpuClientOptions parsed;
  BERTH_ASSIGN_OR_RETURN(parsed.device_count, reader.Int64("device_count", 1));
  BERTH_ASSIGN_OR_RETURN(parsed.node_id, reader.Int64("node_id", 0));
  BERTH_ASSIGN_OR_RETURN(parsed.num_nodes, reader.Int64("num_nodes", 1));
  BERTH_ASSIGN_OR_RETURN(parsed.node_address, reader.String(BERTH_OPTION_NODE_ADDRESS, ""));
  BERTH_ASSIGN_OR_RETURN(std::string algorithm, reader.String("collective_algorithm", "auto"));
  if (algorithm == "flat") {
    parsed.collective_algorithm = CollectiveAlgorithm::kFlat;
  } else if (algorithm == "hierarchical") {
    parsed.collective_algorithm = CollectiveAlgorithm::kHierarchical;
  } else if (algorithm != "auto") {
    return InvalidArgumentError("cpu client option 'collective_algorithm' is '" + algorithm +
                                "'; expected auto, flat or hierarchical");
  }
  BERTH_RETURN_IF_ERROR(reader.CheckNoUnknown());
  parsed.slices = slices;
  if (parsed.device_count < 1 || parsed.device_count > kMaxDevices) {
    return InvalidArgumentError("cpu client option 'device_count' must be between 1 and " +
                                std::to_string(kMaxDevices) + ", not " +
                                std::to_string(parsed.device_count));
  }
  if (parsed.num_nodes < 1 || parsed.num_nodes > kMaxNodes || parsed.node_id < 0 || parsed.node_id >= parsed.num_nodes) {
    return InvalidArgumentError("cpu client options: node_id " + std::to_string(parsed.node_id) +
                                " is not in [0, num_nodes " + std::to_string(parsed.num_nodes) +
                                ")");
  }
  if (parsed.slices.num_slices > parsed.num_nodes) {
    return InvalidArgumentError("cpu client: a job of " + std::to_string(parsed.num_nodes) +
                                " nodes cannot have " + std::to_string(parsed.slices.num_slices) +
                                " slices (each slice holds at least one node)");
  }
  if (parsed.num_nodes == 1) {
    return std::unique_ptr<CpuClient>(
        new CpuClient(parsed, LocalTopology(parsed.device_count), nullptr));
  }
  if (!kv_store.available()) {
    return InvalidArgumentError(
        "cpu client options: num_nodes > 1 needs the host's key-value store (join a job "
        "through the coordination service)");
  }
  BERTH_ASSIGN_OR_RETURN(CpuTopology topology,
                         ExchangeTopology(kv_store, static_cast<int>(parsed.node_id),
                                          static_cast<int>(parsed.num_nodes), parsed.device_count,
                                          parsed.slices, parsed.node_address, kCollectiveTimeout));
  return std::unique_ptr<CpuClient>(new CpuClient(parsed, std::move(topology), &kv_store));
}

std::unique_ptr<GlooCollectives> CpuClient::NewGlooCollectives(
    std::chrono::milliseconds timeout) const {
  if (gloo_ == nullptr) return nullptr;
  return std::make_unique<GlooCollectives>(*kv_store_, static_cast<int>(options_.node_id),
                                           gloo_addresses_, timeout, nullptr, topology_.slices,
                                           options_.collective_algorithm);
}

int64_t CpuClient::CountCommunicator(uint64_t list) {
  std::lock_guard lock(communicators_mutex_);
  return communicators_made_[list]++;
}

Result<std::unique_ptr<plugin::Communicator>> CpuClient::CreateCommunicator(
    const std::vector<int64_t>& device_ids, std::chrono::milliseconds timeout) {
  BERTH_ASSIGN_OR_RETURN(std::unique_ptr<CpuCommunicator> communicator,
                         CpuCommunicator::Create(*this, device_ids, timeout));
  return std::unique_ptr<plugin::Communicator>(std::move(communicator));
}

std::vector<int32_t> CpuClient::device_slices() const {
  std::vector<int32_t> slices;
  for (int node = 0; node < topology_.num_nodes(); ++node) {
    slices.insert(slices.end(),
                  static_cast<size_t>(topology_.device_counts[static_cast<size_t>(node)]),
                  topology_.slices[static_cast<size_t>(node)]);
  }
  return slices;
}

Result<std::unique_ptr<plugin::LoadedExecutable>> CpuClient::Compile(
    const plugin::Program& program, const plugin::CompileOptions& options) {
  BERTH_ASSIGN_OR_RETURN(std::unique_ptr<CpuExecutable> executable,
                         CpuExecutable::Compile(*this, program, options));
  return std::unique_ptr<plugin::LoadedExecutable>(std::move(executable));
}

bool CpuClient::HasBuiltinCustomCall(std::string_view target) const {
  return IsBuiltinCustomCall(target);
}

Result<plugin::RuntimeAbiVersions> CpuClient::RuntimeAbiVersion() const {
  return plugin::RuntimeAbiVersions{kCpuRuntimeAbi, kCpuExecutableAbi};
}

Status CpuClient::CheckExecutableCompatible(plugin::AbiVersion executable,
                                            plugin::AbiVersion runtime) const {
  // Payloads of the same major load (1.0: source and options, compiled
  // again; 1.1: a cpu-plan); a newer minor may be a form this runtime does
  // not read, so it is refused.
  if (executable.major != kCpuExecutableAbi.major || executable.minor > kCpuExecutableAbi.minor) {
    return FailedPreconditionError(
        "the executable has cpu executable ABI " + executable.ToString() + " (serialized by cpu "
        "runtime " + runtime.ToString() + "); this cpu runtime (" + kCpuRuntimeAbi.ToString() +
        ") loads executable ABI " + std::to_string(kCpuExecutableAbi.major) + ".0 to " +
        kCpuExecutableAbi.ToString());
  }
  return OkStatus();
}

Result<std::unique_ptr<plugin::LoadedExecutable>> CpuClient::DeserializeAndLoad(
    std::string_view payload, plugin::AbiVersion version) {
  BERTH_RETURN_IF_ERROR(CheckExecutableCompatible(version, kCpuRuntimeAbi));
  BERTH_ASSIGN_OR_RETURN(std::unique_ptr<CpuExecutable> executable,
                         CpuExecutable::Deserialize(*this, payload, version));
  return std::unique_ptr<plugin::LoadedExecutable>(std::move(executable));
}

std::span<const plugin::CompilePhase> CpuClient::CompilePhases() const { return CpuCompilePhases(); }

Result<std::string> CpuClient::RunCompilePhase(const plugin::CompilePhase& phase, const plugin::Program& input,
                                               const plugin::CompileOptions& options) {
  return RunCpuPhase(*this, phase, input, options);
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
  BERTH_ASSIGN_OR_RETURN(size_t byte_size, DenseByteSize(args.type, args.dims));
  std::shared_ptr<Storage> storage = Storage::Allocate(byte_size);
  if (byte_size > 0) BERTH_RETURN_IF_ERROR(plugin::CopyHostArrayDense(args, storage->data()));
  plugin::HostBufferResult result;
  if (args.type == berth::ElementType::kPred) {
    // Predicates are 0 or 1 inside the backend, whatever byte the host used.
    for (size_t i = 0; i < byte_size; ++i) {
      storage->data()[i] = storage->data()[i] != std::byte{0} ? std::byte{1} : std::byte{0};
    }
  }
  // Narrow integers are sign- or zero-extended from their low bits.
  using B = berth::ElementType;
  stablehlo::ElementType program_type;
  if ((args.type == B::kS2 || args.type == B::kS4 || args.type == B::kU2 || args.type == B::kU4) &&
      FromBufferType(args.type, &program_type)) {
    NormalizeNarrowIntegers(program_type, reinterpret_cast<uint8_t*>(storage->data()),
                            static_cast<int64_t>(byte_size));
  }
  result.buffer = std::make_unique<CpuBuffer>(
      args.type, std::vector<int64_t>(args.dims.begin(), args.dims.end()), args.device,
      args.memory, std::make_shared<BufferContents>(std::move(storage)));
  result.done_with_host_buffer = plugin::Event::Ready();
  return result;
}

}  // namespace berth::cpu
