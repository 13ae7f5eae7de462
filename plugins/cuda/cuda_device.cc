#include "cuda_device.hpp"

#include "cuda_status.hpp"

namespace berth::cuda {

CudaDevice::CudaDevice(plugin::DeviceDescription description, GpuInfo gpu)
    : plugin::Device(std::move(description), /*is_addressable=*/true, gpu.ordinal),
      gpu_(std::move(gpu)) {}

Result<std::unique_ptr<CudaDevice>> CudaDevice::Create(plugin::DeviceDescription description,
                                                       GpuInfo gpu,
                                                       const CudaClientOptions& options) {
  std::unique_ptr<CudaDevice> device(new CudaDevice(std::move(description), std::move(gpu)));
  BERTH_RETURN_IF_ERROR(device->Activate());
  BERTH_RETURN_IF_ERROR(
      CudaStatus(cudaStreamCreateWithFlags(&device->stream_, cudaStreamNonBlocking),
                 device->Name() + ": cudaStreamCreate", StatusCode::kFailedPrecondition));
  BERTH_ASSIGN_OR_RETURN(device->allocator_,
                         MakeDeviceAllocator(options, device->gpu_.ordinal,
                                             static_cast<uint64_t>(device->gpu_.memory_bytes)));
  device->completions_ = std::make_unique<CompletionQueue>(device->gpu_.ordinal);
  return device;
}

CudaDevice::~CudaDevice() {
  if (stream_ == nullptr) return;
  cudaSetDevice(gpu_.ordinal);
  cudaStreamSynchronize(stream_);
  completions_.reset();  // every callback has run
  allocator_.reset();
  cudaStreamDestroy(stream_);
}

Status CudaDevice::Activate() const {
  return CudaStatus(cudaSetDevice(gpu_.ordinal), Name() + ": cudaSetDevice");
}

std::string CudaDevice::Name() const {
  return "cuda device " + std::to_string(id()) + " (" + gpu_.name + ")";
}

Result<std::shared_ptr<DeviceMemory>> DeviceMemory::Allocate(CudaDevice& device, uint64_t size) {
  BERTH_ASSIGN_OR_RETURN(void* data, device.allocator().Allocate(size, device.stream()));
  return std::shared_ptr<DeviceMemory>(new DeviceMemory(device, data, size));
}

DeviceMemory::~DeviceMemory() {
  if (device_.Activate().ok()) device_.allocator().Free(data_, device_.stream());
}

Result<std::shared_ptr<PinnedHostMemory>> PinnedHostMemory::Allocate(size_t size,
                                                                     const std::string& what) {
  void* data = nullptr;
  BERTH_RETURN_IF_ERROR(
      CudaStatus(cudaMallocHost(&data, size == 0 ? 1 : size),
                 what + ": cudaMallocHost of " + std::to_string(size) + " bytes of staging"));
  return std::shared_ptr<PinnedHostMemory>(new PinnedHostMemory(data, size));
}

PinnedHostMemory::~PinnedHostMemory() { cudaFreeHost(data_); }

}  // namespace berth::cuda
