#include "cpu_buffer.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

namespace berth::cpu {

std::shared_ptr<Storage> Storage::Allocate(size_t size) {
  constexpr size_t kAlignment = 64;
  size_t rounded = (std::max<size_t>(size, 1) + kAlignment - 1) / kAlignment * kAlignment;
  void* data = std::aligned_alloc(kAlignment, rounded);
  if (data == nullptr) throw std::bad_alloc();
  return std::shared_ptr<Storage>(new Storage(static_cast<std::byte*>(data), size));
}

Storage::~Storage() { std::free(data_); }

CpuBuffer::CpuBuffer(ElementType type, std::vector<int64_t> dims, plugin::Device* device,
                     plugin::Memory* memory, std::shared_ptr<Storage> storage,
                     plugin::Event ready)
    : plugin::Buffer(type, std::move(dims), device, memory),
      storage_(std::move(storage)),
      ready_(std::move(ready)) {}

size_t CpuBuffer::on_device_size() const {
  std::lock_guard lock(mutex_);
  return storage_ ? storage_->size() : 0;
}

Status CpuBuffer::Delete() {
  std::lock_guard lock(mutex_);
  storage_.reset();
  return OkStatus();
}

bool CpuBuffer::IsDeleted() const {
  std::lock_guard lock(mutex_);
  return storage_ == nullptr;
}

Result<std::shared_ptr<Storage>> CpuBuffer::storage() const {
  std::lock_guard lock(mutex_);
  if (!storage_) return FailedPreconditionError("the buffer has been deleted");
  return storage_;
}

Result<plugin::Event> CpuBuffer::ToHostBuffer(void* dst, size_t dst_size) {
  BERTH_ASSIGN_OR_RETURN(std::shared_ptr<Storage> storage, this->storage());
  if (dst_size < storage->size()) {
    return InvalidArgumentError("ToHostBuffer: destination holds " + std::to_string(dst_size) +
                                " bytes, the buffer " + std::to_string(storage->size()));
  }
  // Copy once the contents are ready: at once when they are, else on the
  // thread that finishes producing them.
  plugin::Event done;
  ready_.OnReady([done, storage, dst](const Status& status) {
    if (status.ok()) std::memcpy(dst, storage->data(), storage->size());
    done.Set(status);
  });
  return done;
}

Result<std::unique_ptr<plugin::Buffer>> CpuBuffer::CopyToDevice(plugin::Device* dst_device) {
  BERTH_ASSIGN_OR_RETURN(std::shared_ptr<Storage> source, storage());
  std::shared_ptr<Storage> copy = Storage::Allocate(source->size());
  plugin::Event ready;
  ready_.OnReady([ready, source, copy](const Status& status) {
    if (status.ok()) std::memcpy(copy->data(), source->data(), source->size());
    ready.Set(status);
  });
  return std::unique_ptr<plugin::Buffer>(
      std::make_unique<CpuBuffer>(element_type(), dims(), dst_device, dst_device->default_memory(),
                                  std::move(copy), std::move(ready)));
}

}  // namespace berth::cpu
