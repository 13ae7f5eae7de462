#include "berth/device.hpp"

#include "client/client_state.hpp"

namespace berth {

int64_t Device::id() const { return record_->id; }
int32_t Device::process_index() const { return record_->process_index; }
const std::string& Device::kind() const { return record_->kind; }
bool Device::is_addressable() const { return record_->is_addressable; }
int32_t Device::local_hardware_id() const { return record_->local_hardware_id; }
const NamedValueMap& Device::attributes() const { return record_->attributes; }
const std::string& Device::debug_string() const { return record_->debug_string; }
BERTH_Device* Device::c_device() const { return record_->device; }

std::vector<Memory> Device::memories() const {
  std::vector<Memory> out;
  for (size_t index : record_->memory_indices) {
    out.emplace_back(client_, &client_->memories[index]);
  }
  return out;
}

int32_t Memory::id() const { return record_->id; }
const std::string& Memory::kind() const { return record_->kind; }
BERTH_Memory* Memory::c_memory() const { return record_->memory; }

}  // namespace berth
