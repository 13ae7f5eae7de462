#include "berth/buffer.hpp"

#include "berth/log.hpp"
#include "berth/shape.hpp"
#include "client/client_state.hpp"

namespace berth {

Result<Buffer> Buffer::Adopt(std::shared_ptr<const core::ClientState> client,
                             BERTH_Buffer* buffer) {
  Buffer out;
  out.client_ = std::move(client);
  out.buffer_ = buffer;  // owned from here on, freed by ~Buffer on any error
  const core::PluginLibrary& lib = *out.client_->library;
  BERTH_Buffer_ElementType_Args type{};
  type.struct_size = BERTH_Buffer_ElementType_Args_STRUCT_SIZE;
  type.buffer = buffer;
  BERTH_RETURN_IF_ERROR(BERTH_CALL(lib, BERTH_Buffer_ElementType, &type));
  BERTH_ASSIGN_OR_RETURN(ElementType element_type,
                         core::CheckElementType(type.type, "BERTH_Buffer_ElementType"));
  BERTH_Buffer_Dimensions_Args dims{};
  dims.struct_size = BERTH_Buffer_Dimensions_Args_STRUCT_SIZE;
  dims.buffer = buffer;
  BERTH_RETURN_IF_ERROR(BERTH_CALL(lib, BERTH_Buffer_Dimensions, &dims));
  if (dims.num_dims > 0 && dims.dims == nullptr) {
    return InternalError("BERTH_Buffer_Dimensions returned NULL dims");
  }
  BERTH_RETURN_IF_ERROR(out.SetShape(element_type, {dims.dims, dims.num_dims}));
  return out;
}

Result<Buffer> Buffer::AdoptWithShape(std::shared_ptr<const core::ClientState> client,
                                      BERTH_Buffer* buffer, ElementType type,
                                      std::span<const int64_t> dims) {
  Buffer out;
  out.client_ = std::move(client);
  out.buffer_ = buffer;  // owned from here on, freed by ~Buffer on any error
  BERTH_RETURN_IF_ERROR(out.SetShape(type, dims));
  return out;
}

Status Buffer::SetShape(ElementType type, std::span<const int64_t> dims) {
  type_ = type;
  dims_.assign(dims.begin(), dims.end());
  BERTH_ASSIGN_OR_RETURN(host_size_, DenseByteSize(type_, dims_));
  return OkStatus();
}

Buffer::Buffer(Buffer&& other) noexcept
    : client_(std::move(other.client_)),
      buffer_(std::exchange(other.buffer_, nullptr)),
      type_(other.type_),
      dims_(std::move(other.dims_)),
      host_size_(other.host_size_) {}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  // The old contents end up in `other`, which frees them when it goes away.
  std::swap(client_, other.client_);
  std::swap(buffer_, other.buffer_);
  std::swap(type_, other.type_);
  std::swap(dims_, other.dims_);
  std::swap(host_size_, other.host_size_);
  return *this;
}

Buffer::~Buffer() {
  if (buffer_ == nullptr) return;
  BERTH_Buffer_Destroy_Args args{};
  args.struct_size = BERTH_Buffer_Destroy_Args_STRUCT_SIZE;
  args.buffer = std::exchange(buffer_, nullptr);
  if (Status status = BERTH_CALL(*client_->library, BERTH_Buffer_Destroy, &args); !status.ok()) {
    Log(LogLevel::kWarning, "client", "destroying a buffer failed: " + status.ToString());
  }
}

namespace {
Status Invalid() { return FailedPreconditionError("the buffer is empty (moved from)"); }
}  // namespace

Result<size_t> Buffer::on_device_size() const {
  if (!valid()) return Invalid();
  BERTH_Buffer_OnDeviceSizeInBytes_Args args{};
  args.struct_size = BERTH_Buffer_OnDeviceSizeInBytes_Args_STRUCT_SIZE;
  args.buffer = buffer_;
  BERTH_RETURN_IF_ERROR(BERTH_CALL(*client_->library, BERTH_Buffer_OnDeviceSizeInBytes, &args));
  return args.on_device_size_in_bytes;
}

Result<Device> Buffer::device() const {
  if (!valid()) return Invalid();
  BERTH_Buffer_Device_Args args{};
  args.struct_size = BERTH_Buffer_Device_Args_STRUCT_SIZE;
  args.buffer = buffer_;
  BERTH_RETURN_IF_ERROR(BERTH_CALL(*client_->library, BERTH_Buffer_Device, &args));
  const core::DeviceRecord* record = client_->FindDevice(args.device);
  if (record == nullptr) return InternalError("BERTH_Buffer_Device returned an unknown device");
  return Device(client_, record);
}

Result<Event> Buffer::ReadyEvent() const {
  if (!valid()) return Invalid();
  BERTH_Buffer_ReadyEvent_Args args{};
  args.struct_size = BERTH_Buffer_ReadyEvent_Args_STRUCT_SIZE;
  args.buffer = buffer_;
  BERTH_RETURN_IF_ERROR(BERTH_CALL(*client_->library, BERTH_Buffer_ReadyEvent, &args));
  return Event(client_->library, args.event);
}

Result<Event> Buffer::ToHostAsync(void* dst, size_t dst_size) const {
  if (!valid()) return Invalid();
  if (dst == nullptr) return InvalidArgumentError("ToHostAsync: destination is NULL");
  BERTH_Buffer_ToHostBuffer_Args args{};
  args.struct_size = BERTH_Buffer_ToHostBuffer_Args_STRUCT_SIZE;
  args.src = buffer_;
  args.dst = dst;
  args.dst_size = dst_size;
  BERTH_RETURN_IF_ERROR(BERTH_CALL(*client_->library, BERTH_Buffer_ToHostBuffer, &args));
  return Event(client_->library, args.event);
}

Status Buffer::ToHost(void* dst, size_t dst_size) const {
  BERTH_ASSIGN_OR_RETURN(Event event, ToHostAsync(dst, dst_size));
  return event.Await();
}

Result<std::vector<std::byte>> Buffer::ToHostBytes() const {
  std::vector<std::byte> bytes(host_size_);
  // A zero-size buffer still goes through the plugin, with a valid pointer.
  std::byte dummy{};
  BERTH_RETURN_IF_ERROR(ToHost(bytes.empty() ? &dummy : bytes.data(), bytes.size()));
  return bytes;
}

Result<Buffer> Buffer::CopyToDevice(const Device& device) const {
  if (!valid()) return Invalid();
  BERTH_Buffer_CopyToDevice_Args args{};
  args.struct_size = BERTH_Buffer_CopyToDevice_Args_STRUCT_SIZE;
  args.buffer = buffer_;
  args.dst_device = device.c_device();
  BERTH_RETURN_IF_ERROR(BERTH_CALL(*client_->library, BERTH_Buffer_CopyToDevice, &args));
  return Adopt(client_, args.dst_buffer);
}

Status Buffer::Delete() {
  if (!valid()) return Invalid();
  BERTH_Buffer_Delete_Args args{};
  args.struct_size = BERTH_Buffer_Delete_Args_STRUCT_SIZE;
  args.buffer = buffer_;
  return BERTH_CALL(*client_->library, BERTH_Buffer_Delete, &args);
}

Result<bool> Buffer::IsDeleted() const {
  if (!valid()) return Invalid();
  BERTH_Buffer_IsDeleted_Args args{};
  args.struct_size = BERTH_Buffer_IsDeleted_Args_STRUCT_SIZE;
  args.buffer = buffer_;
  BERTH_RETURN_IF_ERROR(BERTH_CALL(*client_->library, BERTH_Buffer_IsDeleted, &args));
  return args.is_deleted;
}

}  // namespace berth
