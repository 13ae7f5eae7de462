#include "runtime/device_allocator.hpp"

#include "cuda_status.hpp"
#include "runtime/best_fit_pool.hpp"

namespace berth::cuda {
namespace {

std::string FreeBytesText() {
  size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) return "unknown";
  return std::to_string(free) + " of " + std::to_string(total);
}

Status OutOfMemory(const std::string& what, uint64_t bytes, cudaError_t error) {
  return ResourceExhaustedError(what + ": out of memory: " + std::to_string(bytes) +
                                " bytes asked, " + FreeBytesText() + " bytes free on the GPU (" +
                                CudaErrorText(error) + ")");
}

class PlatformAllocator final : public DeviceAllocator {
 public:
  explicit PlatformAllocator(int ordinal) : what_("cuda device " + std::to_string(ordinal)) {}
  Result<void*> Allocate(uint64_t bytes, cudaStream_t) override {
    void* address = nullptr;
    const cudaError_t error = cudaMalloc(&address, bytes == 0 ? 1 : bytes);
    if (error == cudaErrorMemoryAllocation) return OutOfMemory(what_, bytes, error);
    BERTH_RETURN_IF_ERROR(CudaStatus(error, what_ + ": cudaMalloc"));
    return address;
  }
  void Free(void* address, cudaStream_t) override { cudaFree(address); }  // waits for the device

 private:
  std::string what_;
};

class AsyncAllocator final : public DeviceAllocator {
 public:
  explicit AsyncAllocator(int ordinal) : what_("cuda device " + std::to_string(ordinal)) {}
  Result<void*> Allocate(uint64_t bytes, cudaStream_t stream) override {
    void* address = nullptr;
    const cudaError_t error = cudaMallocAsync(&address, bytes == 0 ? 1 : bytes, stream);
    if (error == cudaErrorMemoryAllocation) return OutOfMemory(what_, bytes, error);
    BERTH_RETURN_IF_ERROR(CudaStatus(error, what_ + ": cudaMallocAsync"));
    return address;
  }
  void Free(void* address, cudaStream_t stream) override { cudaFreeAsync(address, stream); }

 private:
  std::string what_;
};

class PoolAllocator final : public DeviceAllocator {
 public:
  PoolAllocator(int ordinal, uint64_t limit)
      : pool_(BestFitPool::ChunkSource{
                  [what = "cuda device " +
                          std::to_string(ordinal)](uint64_t bytes) -> Result<uintptr_t> {
                    void* address = nullptr;
                    const cudaError_t error = cudaMalloc(&address, bytes);
                    if (error == cudaErrorMemoryAllocation) return OutOfMemory(what, bytes, error);
                    BERTH_RETURN_IF_ERROR(CudaStatus(error, what + ": cudaMalloc of a pool chunk"));
                    return reinterpret_cast<uintptr_t>(address);
                  },
                  [](uintptr_t address, uint64_t) { cudaFree(reinterpret_cast<void*>(address)); }},
              limit, "cuda device " + std::to_string(ordinal)) {}

  Status Preallocate() { return pool_.Preallocate(); }
  Result<void*> Allocate(uint64_t bytes, cudaStream_t) override {
    BERTH_ASSIGN_OR_RETURN(uintptr_t address, pool_.Allocate(bytes));
    return reinterpret_cast<void*>(address);
  }
  void Free(void* address, cudaStream_t) override {
    pool_.Free(reinterpret_cast<uintptr_t>(address)).IgnoreError();
  }

 private:
  BestFitPool pool_;
};

}  // namespace

Result<std::unique_ptr<DeviceAllocator>> MakeDeviceAllocator(const CudaClientOptions& options,
                                                             int ordinal, uint64_t total_bytes) {
  switch (options.allocator) {
    case AllocatorKind::kPlatform:
      return std::unique_ptr<DeviceAllocator>(new PlatformAllocator(ordinal));
    case AllocatorKind::kCudaAsync:
      return std::unique_ptr<DeviceAllocator>(new AsyncAllocator(ordinal));
    case AllocatorKind::kDefault: break;
  }
  const auto limit =
      static_cast<uint64_t>(static_cast<double>(total_bytes) * options.memory_fraction);
  auto pool = std::make_unique<PoolAllocator>(ordinal, limit);
  if (options.preallocate) BERTH_RETURN_IF_ERROR(pool->Preallocate());
  return std::unique_ptr<DeviceAllocator>(std::move(pool));
}

}  // namespace berth::cuda
