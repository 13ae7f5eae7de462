// One GPU of a cuda client: its stream (all of the device's work runs on it,
// in order), its allocator and its completion queue; and DeviceMemory, an
// owned range of the device's memory.
#ifndef BERTH_PLUGINS_CUDA_CUDA_DEVICE_HPP_
#define BERTH_PLUGINS_CUDA_CUDA_DEVICE_HPP_

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "berth/plugin/device.hpp"
#include "cuda_client_options.hpp"
#include "runtime/completion_queue.hpp"
#include "runtime/device_allocator.hpp"

namespace berth::cuda {

// What the CUDA runtime says about one GPU.
struct GpuInfo {
  int ordinal = 0;  // the runtime's device number
  std::string name;
  int compute_major = 0;
  int compute_minor = 0;
  int64_t memory_bytes = 0;
  int multiprocessors = 0;
  std::string pci_bus_id;
};

class CudaDevice final : public plugin::Device {
 public:
  // Creates the stream, the allocator (taking the pool now with
  // `preallocate`) and the completion queue.
  static Result<std::unique_ptr<CudaDevice>> Create(plugin::DeviceDescription description,
                                                    GpuInfo gpu, const CudaClientOptions& options);
  ~CudaDevice() override;

  const GpuInfo& gpu() const { return gpu_; }
  cudaStream_t stream() const { return stream_; }
  DeviceAllocator& allocator() const { return *allocator_; }
  CompletionQueue& completions() const { return *completions_; }
  // Makes this GPU the calling thread's current device.
  Status Activate() const;
  // "cuda device 0 (NVIDIA H200)", for messages.
  std::string Name() const;

 private:
  CudaDevice(plugin::DeviceDescription description, GpuInfo gpu);

  GpuInfo gpu_;
  cudaStream_t stream_ = nullptr;
  std::unique_ptr<DeviceAllocator> allocator_;
  std::unique_ptr<CompletionQueue> completions_;
};

// `size` bytes of a device's memory, given back (stream-ordered) when
// destroyed.
class DeviceMemory {
 public:
  static Result<std::shared_ptr<DeviceMemory>> Allocate(CudaDevice& device, uint64_t size);
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  void* data() const { return data_; }
  uint64_t size() const { return size_; }
  CudaDevice& device() const { return device_; }

 private:
  DeviceMemory(CudaDevice& device, void* data, uint64_t size)
      : device_(device), data_(data), size_(size) {}

  CudaDevice& device_;
  void* data_;
  uint64_t size_;
};

// `size` bytes of page-locked host memory (cudaMallocHost), the staging of
// copies between the host and a device; freed when destroyed.
class PinnedHostMemory {
 public:
  // `what` names the transfer in the error.
  static Result<std::shared_ptr<PinnedHostMemory>> Allocate(size_t size, const std::string& what);
  ~PinnedHostMemory();
  PinnedHostMemory(const PinnedHostMemory&) = delete;
  PinnedHostMemory& operator=(const PinnedHostMemory&) = delete;

  void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  PinnedHostMemory(void* data, size_t size) : data_(data), size_(size) {}

  void* data_;
  size_t size_;
};

}  // namespace berth::cuda

#endif  // BERTH_PLUGINS_CUDA_CUDA_DEVICE_HPP_
