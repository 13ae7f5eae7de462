// The job-wide key-value store the host hands a client (BERTH_KeyValueStore),
// wrapped for C++.
#ifndef BERTH_PLUGIN_KEY_VALUE_HPP_
#define BERTH_PLUGIN_KEY_VALUE_HPP_

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "berth/c_api.h"
#include "berth/status.hpp"

namespace berth::plugin {

class KeyValueStore {
 public:
  // `store` is borrowed and must outlive this object; NULL means "not in a job".
  explicit KeyValueStore(const BERTH_KeyValueStore* store) : store_(store) {}

  bool available() const { return store_ != nullptr; }
  // Waits up to `timeout` for the key.
  Result<std::string> Get(std::string_view key, std::chrono::milliseconds timeout) const;
  // The value, or nullopt when the key is absent now.
  Result<std::optional<std::string>> TryGet(std::string_view key) const;
  Status Put(std::string_view key, std::string_view value, bool allow_overwrite = true) const;

 private:
  Result<std::string> DoGet(std::string_view key, int64_t timeout_ms) const;
  const BERTH_KeyValueStore* store_;
};

}  // namespace berth::plugin

#endif  // BERTH_PLUGIN_KEY_VALUE_HPP_
