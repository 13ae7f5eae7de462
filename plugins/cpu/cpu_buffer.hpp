// A buffer in host memory: the CPU plugin's device memory.
#ifndef BERTH_PLUGINS_CPU_CPU_BUFFER_HPP_
#define BERTH_PLUGINS_CPU_CPU_BUFFER_HPP_

#include <cstddef>
#include <memory>
#include <mutex>

#include "berth/plugin/buffer.hpp"

namespace berth::cpu {

// 64-byte aligned bytes. Shared by a buffer and the work that reads or
// writes it, so deleting the buffer never frees memory in use.
class Storage {
 public:
  static std::shared_ptr<Storage> Allocate(size_t size);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  std::byte* data() { return data_; }
  const std::byte* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  Storage(std::byte* data, size_t size) : data_(data), size_(size) {}
  std::byte* data_;
  size_t size_;
};

class CpuBuffer final : public plugin::Buffer {
 public:
  // `ready` becomes ready when `storage` holds the contents.
  CpuBuffer(ElementType type, std::vector<int64_t> dims, plugin::Device* device,
            plugin::Memory* memory, std::shared_ptr<Storage> storage, plugin::Event ready);

  size_t on_device_size() const override;
  Status Delete() override;
  bool IsDeleted() const override;
  plugin::Event ReadyEvent() const override { return ready_; }
  Result<plugin::Event> ToHostBuffer(void* dst, size_t dst_size) override;
  Result<std::unique_ptr<plugin::Buffer>> CopyToDevice(plugin::Device* dst_device) override;

  // The storage, or FAILED_PRECONDITION when deleted. Callers keep the
  // returned pointer for as long as they use the bytes.
  Result<std::shared_ptr<Storage>> storage() const;

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<Storage> storage_;  // NULL once deleted
  plugin::Event ready_;
};

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_CPU_BUFFER_HPP_
