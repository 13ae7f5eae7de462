#include "cuda_buffer.hpp"

#include <cstring>

#include "cuda_status.hpp"

namespace berth::cuda {
CudaBuffer::CudaBuffer(ElementType type, std::vector<int64_t> dims, CudaDevice& device,
                       plugin::Memory* memory, std::shared_ptr<DeviceMemory> data,
                       plugin::Event ready)
    : plugin::Buffer(type, std::move(dims), &device, memory),
      device_(device),
      data_(std::move(data)),
      size_(static_cast<size_t>(ElementCount(this->dims())) * ElementTypeByteSize(element_type())),
      ready_(std::move(ready)) {}

Result<plugin::HostBufferResult> CudaBuffer::FromHost(const plugin::HostBufferArgs& args,
                                                      CudaDevice& device) {
  plugin::Memory* memory = args.memory != nullptr ? args.memory : device.default_memory();
  if (memory->kind() != "device") {
    return UnimplementedError(device.Name() + ": buffers in '" + memory->kind() +
                              "' memory are not supported yet (only 'device')");
  }
  BERTH_ASSIGN_OR_RETURN(const size_t size, DenseByteSize(args.type, args.dims));
  BERTH_RETURN_IF_ERROR(device.Activate());
  BERTH_ASSIGN_OR_RETURN(std::shared_ptr<PinnedHostMemory> staging,
                         PinnedHostMemory::Allocate(size, device.Name()));
  // The host array is read now, so the caller may reuse it on return.
  BERTH_RETURN_IF_ERROR(plugin::CopyHostArrayDense(args, static_cast<std::byte*>(staging->data())));
  BERTH_ASSIGN_OR_RETURN(std::shared_ptr<DeviceMemory> data, DeviceMemory::Allocate(device, size));
  if (size > 0) {
    BERTH_RETURN_IF_ERROR(CudaStatus(cudaMemcpyAsync(data->data(), staging->data(), size,
                                                     cudaMemcpyHostToDevice, device.stream()),
                                     device.Name() + ": cudaMemcpyAsync to the device"));
  }
  plugin::Event ready;
  // The staging lives until the copy is done.
  device.completions()
      .Enqueue(device.stream(), [ready, staging](const Status& status) { ready.Set(status); })
      .IgnoreError();  // on failure the event is set with the error
  plugin::HostBufferResult result;
  result.buffer = std::make_unique<CudaBuffer>(
      args.type, std::vector<int64_t>(args.dims.begin(), args.dims.end()), device, memory,
      std::move(data), ready);
  result.done_with_host_buffer = plugin::Event::Ready();
  return result;
}

size_t CudaBuffer::on_device_size() const { return size_; }

Status CudaBuffer::Delete() {
  std::lock_guard lock(mutex_);
  data_.reset();  // given back after the work enqueued so far
  return OkStatus();
}

bool CudaBuffer::IsDeleted() const {
  std::lock_guard lock(mutex_);
  return data_ == nullptr;
}

std::shared_ptr<DeviceMemory> CudaBuffer::data() const {
  std::lock_guard lock(mutex_);
  return data_;
}

Result<plugin::Event> CudaBuffer::ToHostBuffer(void* dst, size_t dst_size) {
  std::shared_ptr<DeviceMemory> data = this->data();
  if (data == nullptr) return FailedPreconditionError(device_.Name() + ": the buffer was deleted");
  if (dst_size != size_) {
    return InvalidArgumentError(device_.Name() + ": the destination holds " +
                                std::to_string(dst_size) + " bytes; the buffer has " +
                                std::to_string(size_));
  }
  BERTH_RETURN_IF_ERROR(device_.Activate());
  BERTH_ASSIGN_OR_RETURN(std::shared_ptr<PinnedHostMemory> staging,
                         PinnedHostMemory::Allocate(size_, device_.Name()));
  if (size_ > 0) {
    BERTH_RETURN_IF_ERROR(CudaStatus(cudaMemcpyAsync(staging->data(), data->data(), size_,
                                                     cudaMemcpyDeviceToHost, device_.stream()),
                                     device_.Name() + ": cudaMemcpyAsync to the host"));
  }
  plugin::Event done;
  const size_t size = size_;
  // `data` stays alive until the copy is done.
  device_.completions()
      .Enqueue(device_.stream(),
               [done, staging, data, dst, size](const Status& status) {
                 if (status.ok() && size > 0) std::memcpy(dst, staging->data(), size);
                 done.Set(status);
               })
      .IgnoreError();
  return done;
}

Result<std::unique_ptr<plugin::Buffer>> CudaBuffer::CopyToDevice(plugin::Device* dst_device) {
  std::shared_ptr<DeviceMemory> data = this->data();
  if (data == nullptr) return FailedPreconditionError(device_.Name() + ": the buffer was deleted");
  auto* target = dynamic_cast<CudaDevice*>(dst_device);
  if (target == nullptr) return InvalidArgumentError("not a device of the cuda plugin");
  BERTH_RETURN_IF_ERROR(target->Activate());
  BERTH_ASSIGN_OR_RETURN(std::shared_ptr<DeviceMemory> copy,
                         DeviceMemory::Allocate(*target, size_));
  // The target's stream waits for the source's work so far, then copies
  // (cudaMemcpyPeerAsync goes through the host when there is no peer access).
  BERTH_RETURN_IF_ERROR(device_.Activate());
  cudaEvent_t produced = nullptr;
  BERTH_RETURN_IF_ERROR(
      CudaStatus(cudaEventCreateWithFlags(&produced, cudaEventDisableTiming), "cudaEventCreate"));
  Status status = CudaStatus(cudaEventRecord(produced, device_.stream()), "cudaEventRecord");
  if (status.ok()) status = target->Activate();
  if (status.ok())
    status = CudaStatus(cudaStreamWaitEvent(target->stream(), produced, 0), "cudaStreamWaitEvent");
  if (status.ok() && size_ > 0) {
    status = CudaStatus(cudaMemcpyPeerAsync(copy->data(), target->gpu().ordinal, data->data(),
                                            device_.gpu().ordinal, size_, target->stream()),
                        device_.Name() + " to " + target->Name() + ": cudaMemcpyPeerAsync");
  }
  cudaEventDestroy(produced);  // released once recorded work completes
  BERTH_RETURN_IF_ERROR(status);
  plugin::Event ready;
  // The source stays alive until the copy is done.
  target->completions()
      .Enqueue(target->stream(), [ready, data](const Status& s) { ready.Set(s); })
      .IgnoreError();
  return std::unique_ptr<plugin::Buffer>(std::make_unique<CudaBuffer>(
      element_type(), dims(), *target, target->default_memory(), std::move(copy), ready));
}

}  // namespace berth::cuda
