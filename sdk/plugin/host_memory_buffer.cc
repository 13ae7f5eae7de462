#include "berth/plugin/host_memory_buffer.hpp"

#include <cstring>
#include <utility>
#include <vector>

#include "berth/plugin/device.hpp"
#include "berth/shape.hpp"

namespace berth::plugin {

HostMemoryBuffer::HostMemoryBuffer(ElementType type, std::vector<int64_t> dims, Device* device,
                                   std::vector<std::byte> bytes, Memory* memory)
    : Buffer(type, std::move(dims), device, memory != nullptr ? memory : device->default_memory()),
      bytes_(std::move(bytes)) {}

Status CopyHostArrayDense(const HostBufferArgs& args, std::byte* dst) {
  const size_t element_size = ElementTypeByteSize(args.type);
  const auto* src = static_cast<const std::byte*>(args.data);
  const int64_t count = ElementCount(args.dims);
  if (args.byte_strides.empty()) {
    if (count > 0) std::memcpy(dst, src, static_cast<size_t>(count) * element_size);
    return OkStatus();
  }
  for (int64_t stride : args.byte_strides) {
    if (stride < 0) return InvalidArgumentError("negative byte strides are not supported");
  }
  const size_t rank = args.dims.size();
  std::vector<int64_t> index(rank, 0);
  for (int64_t n = 0; n < count; ++n) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d) offset += index[d] * args.byte_strides[d];
    std::memcpy(dst, src + offset, element_size);
    dst += element_size;
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < args.dims[d]) break;
      index[d] = 0;
    }
  }
  return OkStatus();
}

Result<HostBufferResult> HostMemoryBuffer::FromHost(const HostBufferArgs& args,
                                                    std::string_view backend) {
  Result<size_t> size = DenseByteSize(args.type, args.dims);
  if (!size.ok()) return size.status().WithContext(backend);
  std::vector<std::byte> bytes(*size);
  if (*size > 0) BERTH_RETURN_IF_ERROR(CopyHostArrayDense(args, bytes.data()).WithContext(backend));
  HostBufferResult result;
  result.buffer = std::make_unique<HostMemoryBuffer>(
      args.type, std::vector<int64_t>(args.dims.begin(), args.dims.end()), args.device,
      std::move(bytes), args.memory);
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
