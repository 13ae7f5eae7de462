// Devices and memories of a client. Cheap copyable handles that keep their
// client alive.
#ifndef BERTH_DEVICE_HPP_
#define BERTH_DEVICE_HPP_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "berth/api.hpp"
#include "berth/c_api.h"
#include "berth/named_value.hpp"

namespace berth {
namespace core {
struct ClientState;
struct DeviceRecord;
struct MemoryRecord;
}  // namespace core

class Memory;

class BERTH_API Device {
 public:
  int64_t id() const;                 // global id, unique in the job
  int32_t process_index() const;
  const std::string& kind() const;    // e.g. "cpu"
  bool is_addressable() const;        // usable from this process
  int32_t local_hardware_id() const;  // -1 when not addressable
  const NamedValueMap& attributes() const;
  const std::string& debug_string() const;
  std::vector<Memory> memories() const;
  BERTH_Device* c_device() const;

  friend bool operator==(const Device& a, const Device& b) { return a.record_ == b.record_; }

  Device(std::shared_ptr<const core::ClientState> client, const core::DeviceRecord* record)
      : client_(std::move(client)), record_(record) {}

 private:
  std::shared_ptr<const core::ClientState> client_;
  const core::DeviceRecord* record_;
};

class BERTH_API Memory {
 public:
  int32_t id() const;
  const std::string& kind() const;  // e.g. "device", "unpinned_host"
  BERTH_Memory* c_memory() const;

  Memory(std::shared_ptr<const core::ClientState> client, const core::MemoryRecord* record)
      : client_(std::move(client)), record_(record) {}

 private:
  std::shared_ptr<const core::ClientState> client_;
  const core::MemoryRecord* record_;
};

}  // namespace berth

#endif  // BERTH_DEVICE_HPP_
