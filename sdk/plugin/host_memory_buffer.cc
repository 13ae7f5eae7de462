#include "berth/plugin/host_memory_buffer.hpp"

#include <cstring>
#include <utility>

#include "berth/plugin/device.hpp"
#include "berth/shape.hpp"

namespace berth::plugin {

HostMemoryBuffer::HostMemoryBuffer(ElementType type, std::vector<int64_t> dims, Device* device,
                                   std::vector<std::byte> bytes, Memory* memory)
    : Buffer(type, std::move(dims), device, memory != nullptr ? memory : device->default_memory()),
      bytes_(std::move(bytes)) {}

Result<HostBufferResult> HostMemoryBuffer::FromHost(const HostBufferArgs& args,
                                                    std::string_view backend) {
  if (!args.byte_strides.empty()) {
    return UnimplementedError(std::string(backend) + ": strided host buffers are not supported");
  }
  Result<size_t> size = DenseByteSize(args.type, args.dims);
  if (!size.ok()) return size.status().WithContext(backend);
  const auto* data = static_cast<const std::byte*>(args.data);
  HostBufferResult result;
  result.buffer = std::make_unique<HostMemoryBuffer>(
      args.type, std::vector<int64_t>(args.dims.begin(), args.dims.end()), args.device,
      std::vector<std::byte>(data, data + *size), args.memory);
  result.done_with_host_buffer = Event::Ready();
  return result;
}

Status HostMemoryBuffer::Delete() {
  deleted_ = true;
  bytes_ = {};
  return OkStatus();
}

Result<Event> HostMemoryBuffer::ToHostBuffer(void* dst, size_t dst_size) {
  if (deleted_) return FailedPreconditionError("the buffer was deleted");
  if (dst_size < bytes_.size()) {
    return InvalidArgumentError("the destination holds " + std::to_string(dst_size) +
                                " bytes, the buffer " + std::to_string(bytes_.size()));
  }
  if (!bytes_.empty()) std::memcpy(dst, bytes_.data(), bytes_.size());
  return Event::Ready();
}

Result<std::unique_ptr<Buffer>> HostMemoryBuffer::CopyToDevice(Device* dst_device) {
  if (deleted_) return FailedPreconditionError("the buffer was deleted");
  return std::unique_ptr<Buffer>(
      std::make_unique<HostMemoryBuffer>(element_type(), dims(), dst_device, bytes_));
}

}  // namespace berth::plugin
