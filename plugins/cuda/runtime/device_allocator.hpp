// Device memory for one GPU, by the `allocator` client option:
//   default     a BestFitPool over chunks from cudaMalloc, at most
//               memory_fraction of the GPU's memory, all of it taken at
//               client creation with `preallocate`
//   cuda_async  cudaMallocAsync / cudaFreeAsync on the device's stream
//   platform    cudaMalloc / cudaFree per buffer
// All work on a device runs on its one stream, so memory freed "now" is
// reused only by work enqueued after everything that used it.
// Out of memory is RESOURCE_EXHAUSTED naming the bytes asked and free.
#ifndef BERTH_PLUGINS_CUDA_RUNTIME_DEVICE_ALLOCATOR_HPP_
#define BERTH_PLUGINS_CUDA_RUNTIME_DEVICE_ALLOCATOR_HPP_

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>

#include "berth/status.hpp"
#include "cuda_client_options.hpp"

namespace berth::cuda {

class DeviceAllocator {
 public:
  virtual ~DeviceAllocator() = default;
  // Memory of at least `bytes` for work enqueued on `stream` from now on.
  // The caller has made the allocator's device current.
  virtual Result<void*> Allocate(uint64_t bytes, cudaStream_t stream) = 0;
  // Gives `address` back after the work enqueued on `stream` so far.
  virtual void Free(void* address, cudaStream_t stream) = 0;
};

// The allocator `options` ask for, on GPU `ordinal` with `total_bytes` of
// memory; with `preallocate`, the pool's memory is taken now. The caller
// has made the device current.
Result<std::unique_ptr<DeviceAllocator>> MakeDeviceAllocator(const CudaClientOptions& options,
                                                             int ordinal, uint64_t total_bytes);

}  // namespace berth::cuda

#endif  // BERTH_PLUGINS_CUDA_RUNTIME_DEVICE_ALLOCATOR_HPP_
