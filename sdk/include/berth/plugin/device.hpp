// Devices and memories as a plugin describes them. Concrete classes: a plugin
// fills them in (and may subclass Device to keep its own per-device state).
#ifndef BERTH_PLUGIN_DEVICE_HPP_
#define BERTH_PLUGIN_DEVICE_HPP_

#include <cstdint>
#include <string>
#include <vector>

#include "berth/named_value.hpp"

namespace berth::plugin {

class Memory;

// What a device is, independent of whether this process can address it.
class DeviceDescription {
 public:
  DeviceDescription(int64_t id, int32_t process_index, std::string kind,
                    NamedValueMap attributes = {});

  int64_t id() const { return id_; }
  int32_t process_index() const { return process_index_; }
  const std::string& kind() const { return kind_; }
  const NamedValueMap& attributes() const { return attributes_; }
  const NamedValueArray& c_attributes() const { return c_attributes_; }
  // e.g. "cpu:3 (process 1)".
  const std::string& debug_string() const { return debug_string_; }

 private:
  int64_t id_;
  int32_t process_index_;
  std::string kind_;
  NamedValueMap attributes_;
  NamedValueArray c_attributes_;
  std::string debug_string_;
};

class Device {
 public:
  // `local_hardware_id` is -1 for a device of another process.
  Device(DeviceDescription description, bool is_addressable, int32_t local_hardware_id);
  virtual ~Device() = default;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const DeviceDescription& description() const { return description_; }
  DeviceDescription& mutable_description() { return description_; }
  int64_t id() const { return description_.id(); }
  bool is_addressable() const { return is_addressable_; }
  int32_t local_hardware_id() const { return local_hardware_id_; }

  // Memories this device can address; the first one added is the default.
  const std::vector<Memory*>& memories() const { return memories_; }
  Memory* default_memory() const { return memories_.empty() ? nullptr : memories_.front(); }
  void AttachMemory(Memory* memory) {
    memories_.push_back(memory);
    c_memories_.push_back(reinterpret_cast<BERTH_Memory*>(memory));
  }
  // The same list as C pointers, for the ABI glue.
  const std::vector<BERTH_Memory*>& c_memories() const { return c_memories_; }

 private:
  DeviceDescription description_;
  bool is_addressable_;
  int32_t local_hardware_id_;
  std::vector<Memory*> memories_;
  std::vector<BERTH_Memory*> c_memories_;
};

class Memory {
 public:
  Memory(int32_t id, std::string kind);
  virtual ~Memory() = default;
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;

  int32_t id() const { return id_; }
  const std::string& kind() const { return kind_; }
  const std::vector<Device*>& devices() const { return devices_; }
  void AttachDevice(Device* device) {
    devices_.push_back(device);
    c_devices_.push_back(reinterpret_cast<BERTH_Device*>(device));
  }
  // The same list as C pointers, for the ABI glue.
  const std::vector<BERTH_Device*>& c_devices() const { return c_devices_; }

 private:
  int32_t id_;
  std::string kind_;
  std::vector<Device*> devices_;
  std::vector<BERTH_Device*> c_devices_;
};

}  // namespace berth::plugin

#endif  // BERTH_PLUGIN_DEVICE_HPP_
