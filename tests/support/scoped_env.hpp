// Sets (or unsets) an environment variable for a scope; a fake environment
// for code that reads it through a function (common::EnvReader).
#ifndef BERTH_TESTS_SUPPORT_SCOPED_ENV_HPP_
#define BERTH_TESTS_SUPPORT_SCOPED_ENV_HPP_

#include <stdlib.h>

#include <functional>
#include <map>
#include <optional>
#include <string>

namespace berth::testing {

class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = ::getenv(name)) old_ = old;
    if (value) ::setenv(name, value->c_str(), 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_.c_str(), old_->c_str(), 1);
    else ::unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// An environment reader (a common::EnvReader) that sees `vars` and nothing
// else.
inline std::function<std::optional<std::string>(const char* name)> FakeEnv(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

}  // namespace berth::testing

#endif  // BERTH_TESTS_SUPPORT_SCOPED_ENV_HPP_
