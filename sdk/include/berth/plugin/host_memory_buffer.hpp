// A buffer whose contents are bytes in host memory, dense major-to-minor,
// ready as soon as it exists: the storage of a backend whose device memory
// is the host's (the fixture plugins, sdk/template) and a starting point for
// one that is not, which replaces it with its own plugin::Buffer.
//
//   Result<plugin::HostBufferResult> BufferFromHostBuffer(
//       const plugin::HostBufferArgs& args) override {
//     return plugin::HostMemoryBuffer::FromHost(args, "mybackend");
//   }
#ifndef BERTH_PLUGIN_HOST_MEMORY_BUFFER_HPP_
#define BERTH_PLUGIN_HOST_MEMORY_BUFFER_HPP_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "berth/element_type.hpp"
#include "berth/plugin/buffer.hpp"
#include "berth/plugin/client.hpp"
#include "berth/status.hpp"

namespace berth::plugin {

class HostMemoryBuffer : public Buffer {
 public:
  // `memory` null: the device's default memory. `bytes` holds the dense
  // contents (its size is not checked against type and dims here).
  HostMemoryBuffer(ElementType type, std::vector<int64_t> dims, Device* device,
                   std::vector<std::byte> bytes, Memory* memory = nullptr);

  // A copy of the host data `args` describes, on args.device (args.memory
  // when set); done_with_host_buffer is ready at once. Strided host data is
  // copied dense (since plugin SDK 1.7; UNIMPLEMENTED before); `backend`
  // names the plugin in messages.
  static Result<HostBufferResult> FromHost(const HostBufferArgs& args, std::string_view backend);

  size_t on_device_size() const override { return bytes_.size(); }
  Status Delete() override;
  bool IsDeleted() const override { return deleted_; }
  Event ReadyEvent() const override { return Event::Ready(); }
  // FAILED_PRECONDITION once deleted; INVALID_ARGUMENT when `dst_size` is
  // smaller than the contents.
  Result<Event> ToHostBuffer(void* dst, size_t dst_size) override;
  // A HostMemoryBuffer on `dst_device` with a copy of the contents.
  Result<std::unique_ptr<Buffer>> CopyToDevice(Device* dst_device) override;

  const std::vector<std::byte>& bytes() const { return bytes_; }

 private:
  std::vector<std::byte> bytes_;
  bool deleted_ = false;
};

}  // namespace berth::plugin

#endif  // BERTH_PLUGIN_HOST_MEMORY_BUFFER_HPP_
