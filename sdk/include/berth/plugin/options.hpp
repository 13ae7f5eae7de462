// Typed reading of named options with the ABI's validation rule: an unknown
// option or one of the wrong type is INVALID_ARGUMENT naming it.
//
// The reserved options every plugin must accept (berth/c_api.h: "node_id"
// and "num_nodes" at client creation, "source_name" at compile) are never
// unknown: CheckNoUnknown passes them whether or not the plugin reads them,
// and the SDK's glue has already checked their types and ranges
// (CheckReservedClientOptions, CheckReservedCompileOptions) before the
// plugin sees them. A plugin that uses them reads them like its own
// (`reader.Int64("node_id", 0)`).
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

  // INVALID_ARGUMENT naming any option no getter asked for (the reserved
  // options excepted), and the known ones.
  Status CheckNoUnknown() const;

 private:
  template <typename T>
  Result<T> Get(std::string_view name, T fallback);

  const NamedValueMap& options_;
  std::string what_;
  std::set<std::string, std::less<>> known_;
};

// Whether `name` is one of the reserved options (node_id, num_nodes,
// source_name).
bool IsReservedOption(std::string_view name);

// INVALID_ARGUMENT naming the option when "node_id" or "num_nodes" is of the
// wrong type or out of range (num_nodes >= 1, 0 <= node_id < num_nodes).
Status CheckReservedClientOptions(const NamedValueMap& options);
// INVALID_ARGUMENT when "source_name" is not a String.
Status CheckReservedCompileOptions(const NamedValueMap& options);

}  // namespace berth::plugin

#endif  // BERTH_PLUGIN_OPTIONS_HPP_
