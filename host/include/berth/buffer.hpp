// A buffer on a device. Move-only; destroying it frees the plugin buffer.
#ifndef BERTH_BUFFER_HPP_
#define BERTH_BUFFER_HPP_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "berth/api.hpp"
#include "berth/c_api.h"
#include "berth/device.hpp"
#include "berth/element_type.hpp"
#include "berth/event.hpp"
#include "berth/status.hpp"

namespace berth {

class BERTH_API Buffer {
 public:
  Buffer() = default;
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  ~Buffer();

  bool valid() const { return buffer_ != nullptr; }
  ElementType element_type() const { return type_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  // Bytes of the dense host form (what ToHost writes).
  size_t host_size() const { return host_size_; }
  Result<size_t> on_device_size() const;
  Result<Device> device() const;

  // Ready when the contents are; carries the producer's error.
  Result<Event> ReadyEvent() const;
  // Starts a copy into `dst` (host_size() bytes, valid until the event is ready).
  Result<Event> ToHostAsync(void* dst, size_t dst_size) const;
  // Copies and waits.
  Status ToHost(void* dst, size_t dst_size) const;
  Result<std::vector<std::byte>> ToHostBytes() const;

  Result<Buffer> CopyToDevice(const Device& device) const;
  // Frees the device memory now; later uses fail.
  Status Delete();
  Result<bool> IsDeleted() const;

  BERTH_Buffer* c_buffer() const { return buffer_; }

  // Takes ownership of a C buffer of `client`, asking the plugin for its
  // element type and dimensions.
  static Result<Buffer> Adopt(std::shared_ptr<const core::ClientState> client, BERTH_Buffer* buffer);
  // Takes ownership of a C buffer whose element type and (static) dimensions
  // the plugin has already reported, such as an executable's output.
  static Result<Buffer> AdoptWithShape(std::shared_ptr<const core::ClientState> client,
                                       BERTH_Buffer* buffer, ElementType type,
                                       std::span<const int64_t> dims);

 private:
  Status SetShape(ElementType type, std::span<const int64_t> dims);

  std::shared_ptr<const core::ClientState> client_;
  BERTH_Buffer* buffer_ = nullptr;
  ElementType type_ = ElementType::kInvalid;
  std::vector<int64_t> dims_;
  size_t host_size_ = 0;
};

}  // namespace berth

#endif  // BERTH_BUFFER_HPP_
