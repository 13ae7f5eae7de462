// A buffer in host memory: the CPU plugin's device memory.
#ifndef BERTH_PLUGINS_CPU_CPU_BUFFER_HPP_
#define BERTH_PLUGINS_CPU_CPU_BUFFER_HPP_

#include <cstddef>
#include <memory>
#include <mutex>

#include "berth/plugin/buffer.hpp"
#include "interpreter/storage.hpp"

namespace berth::cpu {

// The contents of a buffer, shared by the buffer and the work producing or
// reading it (an execution, a transfer), so that destroying the buffer
// object while that work runs is safe.
class BufferContents {
 public:
  // Contents that are ready now.
  explicit BufferContents(std::shared_ptr<Storage> storage);
  // Contents some work will produce (Fulfill) or fail to produce (Fail).
  BufferContents() = default;

  void Fulfill(std::shared_ptr<Storage> storage);
  void Fail(const Status& status);
  const plugin::Event& ready() const { return ready_; }

  // The bytes, once ready: FAILED_PRECONDITION when deleted or not produced.
  Result<std::shared_ptr<Storage>> storage() const;
  void Delete();
  bool deleted() const;

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<Storage> storage_;
  bool deleted_ = false;
  plugin::Event ready_;
};

class CpuBuffer final : public plugin::Buffer {
 public:
  CpuBuffer(berth::ElementType type, std::vector<int64_t> dims, plugin::Device* device,
            plugin::Memory* memory, std::shared_ptr<BufferContents> contents);

  size_t on_device_size() const override;
  Status Delete() override;
  bool IsDeleted() const override;
  plugin::Event ReadyEvent() const override { return contents_->ready(); }
  Result<plugin::Event> ToHostBuffer(void* dst, size_t dst_size) override;
  Result<std::unique_ptr<plugin::Buffer>> CopyToDevice(plugin::Device* dst_device) override;

  const std::shared_ptr<BufferContents>& contents() const { return contents_; }

 private:
  std::shared_ptr<BufferContents> contents_;
};

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_CPU_BUFFER_HPP_
