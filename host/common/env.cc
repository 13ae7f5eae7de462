#include "common/env.hpp"

#include <cstdlib>
#include <mutex>
#include <set>
#include <string>

#include "berth/log.hpp"

namespace berth::common {

std::optional<std::string> GetEnv(const char* name) {
  if (const char* value = secure_getenv(name)) return std::string(value);
  if (std::getenv(name) != nullptr) {
    // Set, but secure_getenv refused it: the process runs set-uid/set-gid.
    static std::mutex mutex;
    static std::set<std::string> reported;
    std::lock_guard lock(mutex);
    if (reported.insert(name).second) {
      Log(LogLevel::kWarning, "env",
          std::string(name) + " is ignored: the process runs with elevated privileges");
    }
  }
  return std::nullopt;
}

EnvReader ProcessEnv() {
  return [](const char* name) { return GetEnv(name); };
}

}  // namespace berth::common
