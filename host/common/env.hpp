// Environment access for the host: every variable is read with secure_getenv
// (so set-uid programs ignore it), and tests can substitute the environment.
#ifndef BERTH_HOST_COMMON_ENV_HPP_
#define BERTH_HOST_COMMON_ENV_HPP_

#include <functional>
#include <optional>
#include <string>

namespace berth::common {

// Reads a variable with secure_getenv. When the process runs with elevated
// privileges and the variable is set, it is ignored and that is logged once.
std::optional<std::string> GetEnv(const char* name);

// A substitutable environment: production code uses GetEnv, tests a map.
using EnvReader = std::function<std::optional<std::string>(const char* name)>;
EnvReader ProcessEnv();

}  // namespace berth::common

#endif  // BERTH_HOST_COMMON_ENV_HPP_
