#include "cpu_buffer.hpp"

#include <cstring>

namespace berth::cpu {

BufferContents::BufferContents(std::shared_ptr<Storage> storage) : storage_(std::move(storage)) {
  ready_.Set(OkStatus());
}

void BufferContents::Fulfill(std::shared_ptr<Storage> storage) {
  {
    std::lock_guard lock(mutex_);
    if (!deleted_) storage_ = std::move(storage);
  }
  ready_.Set(OkStatus());
}

void BufferContents::Fail(const Status& status) { ready_.Set(status); }

Result<std::shared_ptr<Storage>> BufferContents::storage() const {
  std::lock_guard lock(mutex_);
  if (deleted_) return FailedPreconditionError("the buffer has been deleted");
  if (!storage_) return FailedPreconditionError("the buffer has no contents (yet)");
  return storage_;
}

void BufferContents::Delete() {
  std::lock_guard lock(mutex_);
  storage_.reset();
  deleted_ = true;
}

bool BufferContents::deleted() const {
  std::lock_guard lock(mutex_);
  return deleted_;
}

CpuBuffer::CpuBuffer(berth::ElementType type, std::vector<int64_t> dims, plugin::Device* device,
                     plugin::Memory* memory, std::shared_ptr<BufferContents> contents)
    : plugin::Buffer(type, std::move(dims), device, memory), contents_(std::move(contents)) {}

size_t CpuBuffer::on_device_size() const {
  Result<size_t> size = DenseByteSize(element_type(), dims());
  return size.ok() ? *size : 0;
}

Status CpuBuffer::Delete() {
  contents_->Delete();
  return OkStatus();
}

bool CpuBuffer::IsDeleted() const { return contents_->deleted(); }

Result<plugin::Event> CpuBuffer::ToHostBuffer(void* dst, size_t dst_size) {
  if (IsDeleted()) return FailedPreconditionError("the buffer has been deleted");
  size_t size = on_device_size();
  if (dst_size < size) {
    return InvalidArgumentError("ToHostBuffer: destination holds " + std::to_string(dst_size) +
                                " bytes, the buffer " + std::to_string(size));
  }
  // Copy once the contents are ready: at once when they are, else on the
  // thread that finishes producing them.
  plugin::Event done;
  std::shared_ptr<BufferContents> contents = contents_;
  contents->ready().OnReady([contents, done, dst, size](const Status& status) {
    if (!status.ok()) {
      done.Set(status);
      return;
    }
    Result<std::shared_ptr<Storage>> storage = contents->storage();
    if (storage.ok() && size > 0) std::memcpy(dst, (*storage)->data(), size);
    done.Set(storage.status());
  });
  return done;
}

Result<std::unique_ptr<plugin::Buffer>> CpuBuffer::CopyToDevice(plugin::Device* dst_device) {
  if (IsDeleted()) return FailedPreconditionError("the buffer has been deleted");
  auto target = std::make_shared<BufferContents>();
  std::shared_ptr<BufferContents> source = contents_;
  source->ready().OnReady([source, target](const Status& status) {
    Result<std::shared_ptr<Storage>> bytes =
        status.ok() ? source->storage() : Result<std::shared_ptr<Storage>>(status);
    if (!bytes.ok()) {
      target->Fail(bytes.status());
      return;
    }
    std::shared_ptr<Storage> copy = Storage::Allocate((*bytes)->size());
    std::memcpy(copy->data(), (*bytes)->data(), (*bytes)->size());
    target->Fulfill(std::move(copy));
  });
  return std::unique_ptr<plugin::Buffer>(std::make_unique<CpuBuffer>(
      element_type(), dims(), dst_device, dst_device->default_memory(), std::move(target)));
}

}  // namespace berth::cpu
