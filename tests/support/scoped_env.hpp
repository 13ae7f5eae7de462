// Sets (or unsets) an environment variable for a scope.
#ifndef BERTH_TESTS_SUPPORT_SCOPED_ENV_HPP_
#define BERTH_TESTS_SUPPORT_SCOPED_ENV_HPP_

#include <stdlib.h>

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

}  // namespace berth::testing

#endif  // BERTH_TESTS_SUPPORT_SCOPED_ENV_HPP_
