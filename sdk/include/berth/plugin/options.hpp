// Typed reading of named options with the ABI's validation rule: an unknown
// option or one of the wrong type is INVALID_ARGUMENT naming it.
#ifndef BERTH_PLUGIN_OPTIONS_HPP_
#define BERTH_PLUGIN_OPTIONS_HPP_

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "berth/named_value.hpp"
#include "berth/status.hpp"

namespace berth::plugin {

class OptionReader {
 public:
  // `what` names the options in messages, e.g. "cpu client option".
  OptionReader(const NamedValueMap& options, std::string what)
      : options_(options), what_(std::move(what)) {}

  Result<int64_t> Int64(std::string_view name, int64_t fallback);
  Result<double> Float64(std::string_view name, double fallback);  // accepts int64 too
  Result<bool> Bool(std::string_view name, bool fallback);
  Result<std::string> String(std::string_view name, std::string fallback);
  Result<std::vector<int64_t>> Int64List(std::string_view name, std::vector<int64_t> fallback);

  // INVALID_ARGUMENT naming any option no getter asked for, and the known ones.
  Status CheckNoUnknown() const;

 private:
  template <typename T>
  Result<T> Get(std::string_view name, T fallback);

  const NamedValueMap& options_;
  std::string what_;
  std::set<std::string, std::less<>> known_;
};

}  // namespace berth::plugin

#endif  // BERTH_PLUGIN_OPTIONS_HPP_
