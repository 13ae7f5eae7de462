#include "cuda_client.hpp"

#include <cuda_runtime_api.h>

#include "berth/plugin/options.hpp"
#include "berth/stablehlo/parser.hpp"
#include "codegen/nvrtc_compiler.hpp"
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
  std::vector<GpuInfo> gpus;
  for (int ordinal : ordinals) {
    BERTH_ASSIGN_OR_RETURN(GpuInfo info, Describe(ordinal));
    gpus.push_back(std::move(info));
  }
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  std::string version = "berth-cuda " BERTH_VERSION " (CUDA runtime " + VersionText(runtime) +
                        ", driver " + VersionText(driver) + ", NVRTC " + NvrtcVersion() + ")";
  return std::unique_ptr<CudaClient>(
      new CudaClient(std::move(parsed), std::move(gpus), std::move(version)));
}

CudaClient::CudaClient(CudaClientOptions options, std::vector<GpuInfo> gpus,
                       std::string platform_version)
    : options_(std::move(options)),
      gpus_(std::move(gpus)),
      platform_version_(std::move(platform_version)) {
  for (size_t i = 0; i < gpus_.size(); ++i) {
    const GpuInfo& gpu = gpus_[i];
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
    auto device = std::make_unique<plugin::Device>(std::move(description), true, gpu.ordinal);
    plugin::Memory* on_device =
        AddMemory(std::make_unique<plugin::Memory>(static_cast<int32_t>(2 * i), "device"));
    plugin::Memory* pinned =
        AddMemory(std::make_unique<plugin::Memory>(static_cast<int32_t>(2 * i + 1), "pinned_host"));
    device->AttachMemory(on_device);
    device->AttachMemory(pinned);
    on_device->AttachDevice(device.get());
    pinned->AttachDevice(device.get());
    AddDevice(std::move(device));
  }
}

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
  BERTH_ASSIGN_OR_RETURN(CudaPlan plan, PlanCudaProgram(module, options.entry_name));
  // Every kernel compiles for every device's architecture now, so a program
  // that cannot run fails at compile time.
  for (const GpuInfo& gpu : gpus_) {
    for (const PlanStep& step : plan.steps) {
      if (step.kind != PlanStep::Kind::kFused) continue;
      BERTH_RETURN_IF_ERROR(
          CompileCudaSource(step.source, gpu.compute_major, gpu.compute_minor).status());
    }
  }
  return UnimplementedError(
      "cuda client: the program planned into " + std::to_string(plan.steps.size()) +
      " steps and its kernels compiled, but executing on the GPU is not written yet (issue 20)");
}

}  // namespace berth::cuda
