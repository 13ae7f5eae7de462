// A buffer in a GPU's memory. Transfers run on the device's stream through
// pinned host staging, so the caller's thread never waits for the device:
// uploads copy the host data into staging during the call; downloads copy
// into staging on the stream, then into the caller's memory on the device's
// completion thread, which then makes the event ready.
#ifndef BERTH_PLUGINS_CUDA_CUDA_BUFFER_HPP_
#define BERTH_PLUGINS_CUDA_CUDA_BUFFER_HPP_

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "berth/plugin/buffer.hpp"
#include "berth/plugin/client.hpp"
#include "berth/shape.hpp"
#include "cuda_device.hpp"

namespace berth::cuda {

class CudaBuffer final : public plugin::Buffer {
 public:
  CudaBuffer(ElementType type, std::vector<int64_t> dims, CudaDevice& device,
             plugin::Memory* memory, std::shared_ptr<DeviceMemory> data, plugin::Event ready);

  // A new buffer on `device` holding the host array of `args` (which the
  // SDK has validated).
  static Result<plugin::HostBufferResult> FromHost(const plugin::HostBufferArgs& args,
                                                   CudaDevice& device);

  size_t on_device_size() const override;
  Status Delete() override;
  bool IsDeleted() const override;
  plugin::Event ReadyEvent() const override { return ready_; }
  Result<plugin::Event> ToHostBuffer(void* dst, size_t dst_size) override;
  Result<std::unique_ptr<plugin::Buffer>> CopyToDevice(plugin::Device* dst_device) override;

  CudaDevice& cuda_device() const { return device_; }
  // The device memory; NULL once deleted.
  std::shared_ptr<DeviceMemory> data() const;

 private:
  CudaDevice& device_;
  mutable std::mutex mutex_;
  std::shared_ptr<DeviceMemory> data_;
  size_t size_;
  plugin::Event ready_;
};

}  // namespace berth::cuda

#endif  // BERTH_PLUGINS_CUDA_CUDA_BUFFER_HPP_
