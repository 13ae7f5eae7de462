#include "cuda_client.hpp"

#include <cuda_runtime_api.h>

#include "berth/plugin/options.hpp"
#include "berth/stablehlo/parser.hpp"
#include "codegen/nvrtc_compiler.hpp"
#include "cuda_buffer.hpp"
#include "cuda_executable.hpp"
#include "cuda_plan.hpp"
#include "cuda_status.hpp"

namespace berth::cuda {
namespace {

std::string VersionText(int version) {  // 13000 -> "13.0"
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

Result<GpuInfo> Describe(int ordinal) {
  cudaDeviceProp properties{};
  BERTH_RETURN_IF_ERROR(CudaStatus(cudaGetDeviceProperties(&properties, ordinal),
                                   "cudaGetDeviceProperties(" + std::to_string(ordinal) + ")",
                                   StatusCode::kFailedPrecondition));
  GpuInfo info;
  info.ordinal = ordinal;
  info.name = properties.name;
  info.compute_major = properties.major;
  info.compute_minor = properties.minor;
  info.memory_bytes = static_cast<int64_t>(properties.totalGlobalMem);
  info.multiprocessors = properties.multiProcessorCount;
  char bus_id[32] = {};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), ordinal) == cudaSuccess)
    info.pci_bus_id = bus_id;
  return info;
}

}  // namespace

Result<std::unique_ptr<CudaClient>> CudaClient::Create(const NamedValueMap& options,
                                                       const plugin::KeyValueStore& kv_store) {
  (void)kv_store;
  BERTH_ASSIGN_OR_RETURN(CudaClientOptions parsed, ParseCudaClientOptions(options));
  if (parsed.num_nodes > 1) {
    return UnimplementedError("cuda client: jobs of several processes (num_nodes " +
                              std::to_string(parsed.num_nodes) + ") are not supported yet");
  }
  int count = 0;
  BERTH_RETURN_IF_ERROR(CudaStatus(cudaGetDeviceCount(&count),
                                   "cuda client: no usable GPU: cudaGetDeviceCount",
                                   StatusCode::kFailedPrecondition));
  if (count == 0) return FailedPreconditionError("cuda client: the CUDA runtime shows no GPU");
  BERTH_ASSIGN_OR_RETURN(std::vector<int> ordinals, SelectVisibleDevices(parsed, count));
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  std::string version = "berth-cuda " BERTH_VERSION " (CUDA runtime " + VersionText(runtime) +
                        ", driver " + VersionText(driver) + ", NVRTC " + NvrtcVersion() + ")";
  std::unique_ptr<CudaClient> client(new CudaClient(std::move(parsed), std::move(version)));
  for (size_t i = 0; i < ordinals.size(); ++i) {
    BERTH_ASSIGN_OR_RETURN(GpuInfo gpu, Describe(ordinals[i]));
    NamedValueMap attributes = {
        {"compute_capability",
         std::to_string(gpu.compute_major) + "." + std::to_string(gpu.compute_minor)},
        {"core_count", static_cast<int64_t>(gpu.multiprocessors)},
        {"memory_bytes", gpu.memory_bytes},
        {"pci_bus_id", gpu.pci_bus_id},
        {"device_vendor", std::string("NVIDIA")},
    };
    plugin::DeviceDescription description(static_cast<int64_t>(i), 0, gpu.name,
                                          std::move(attributes));
    BERTH_ASSIGN_OR_RETURN(
        std::unique_ptr<CudaDevice> device,
        CudaDevice::Create(std::move(description), std::move(gpu), client->options_));
    plugin::Memory* on_device =
        client->AddMemory(std::make_unique<plugin::Memory>(static_cast<int32_t>(2 * i), "device"));
    plugin::Memory* pinned = client->AddMemory(
        std::make_unique<plugin::Memory>(static_cast<int32_t>(2 * i + 1), "pinned_host"));
    device->AttachMemory(on_device);
    device->AttachMemory(pinned);
    on_device->AttachDevice(device.get());
    pinned->AttachDevice(device.get());
    client->cuda_devices_.push_back(device.get());
    client->AddDevice(std::move(device));
  }
  return client;
}

CudaClient::CudaClient(CudaClientOptions options, std::string platform_version)
    : options_(std::move(options)), platform_version_(std::move(platform_version)) {}

Result<plugin::HostBufferResult> CudaClient::BufferFromHostBuffer(
    const plugin::HostBufferArgs& args) {
  (void)args;
  return UnimplementedError("cuda client: device buffers are not written yet (issue 20)");
}

Result<std::unique_ptr<plugin::LoadedExecutable>> CudaClient::Compile(
    const plugin::Program& program, const plugin::CompileOptions& options) {
  if (program.format != "stablehlo") {
    return InvalidArgumentError("the cuda plugin compiles programs of format 'stablehlo', not '" +
                                std::string(program.format) + "'");
  }
  plugin::OptionReader reader(options.options, "cuda compile option");
  BERTH_ASSIGN_OR_RETURN(std::string source_name, reader.String("source_name", "program"));
  BERTH_RETURN_IF_ERROR(reader.CheckNoUnknown());
  stablehlo::ParseOptions parse_options;
  parse_options.verify = true;
  BERTH_ASSIGN_OR_RETURN(stablehlo::Module module,
                         stablehlo::ParseModule(program.code, source_name, parse_options));
  if (options.num_replicas > 1 || options.num_partitions > 1) {
    return UnimplementedError(
        "the cuda plugin runs programs of one replica and one partition only, not " +
        std::to_string(options.num_replicas) + " x " + std::to_string(options.num_partitions));
  }
  if (options.device_assignment.size() > 1) {
    return UnimplementedError(
        "the cuda plugin runs a program on one device only (device_assignment has " +
        std::to_string(options.device_assignment.size()) + ")");
  }
  CudaDevice* device = cuda_devices_.front();
  if (options.device_assignment.size() == 1) {
    BERTH_ASSIGN_OR_RETURN(plugin::Device * assigned, LookupDevice(options.device_assignment[0]));
    device = dynamic_cast<CudaDevice*>(assigned);
  }
  auto owned = std::make_unique<stablehlo::Module>(std::move(module));
  BERTH_ASSIGN_OR_RETURN(CudaPlan plan, PlanCudaProgram(*owned, options.entry_name));
  BERTH_ASSIGN_OR_RETURN(std::unique_ptr<CudaExecutable> executable,
                         CudaExecutable::Load(std::move(owned), std::move(plan), {device}));
  return std::unique_ptr<plugin::LoadedExecutable>(std::move(executable));
}

}  // namespace berth::cuda
