// A buffer on a device, as a plugin implements it.
#ifndef BERTH_PLUGIN_BUFFER_HPP_
#define BERTH_PLUGIN_BUFFER_HPP_

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "berth/element_type.hpp"
#include "berth/plugin/device.hpp"
#include "berth/plugin/event.hpp"
#include "berth/plugin/live_objects.hpp"
#include "berth/shape.hpp"
#include "berth/status.hpp"

namespace berth::plugin {

class Buffer {
 public:
  Buffer(ElementType type, std::vector<int64_t> dims, Device* device, Memory* memory)
      : type_(type), dims_(std::move(dims)), device_(device), memory_(memory) {}
  virtual ~Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  ElementType element_type() const { return type_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  Device* device() const { return device_; }
  Memory* memory() const { return memory_; }

  virtual size_t on_device_size() const = 0;
  // Frees the memory now; later uses fail with FAILED_PRECONDITION.
  virtual Status Delete() = 0;
  virtual bool IsDeleted() const = 0;
  // Ready when the contents are.
  virtual Event ReadyEvent() const = 0;
  // Starts copying the contents (dense major-to-minor) into `dst`, which
  // holds `dst_size` bytes and stays valid until the returned event is ready.
  virtual Result<Event> ToHostBuffer(void* dst, size_t dst_size) = 0;
  virtual Result<std::unique_ptr<Buffer>> CopyToDevice(Device* dst_device);

 private:
  ElementType type_;
  std::vector<int64_t> dims_;
  Device* device_;
  Memory* memory_;
  LiveObject live_{LiveObjectKind::kBuffer};
};

}  // namespace berth::plugin

#endif  // BERTH_PLUGIN_BUFFER_HPP_
