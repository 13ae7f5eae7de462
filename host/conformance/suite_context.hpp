// Internal to the conformance suite: what every check gets, and the checks.
#ifndef BERTH_HOST_CONFORMANCE_SUITE_CONTEXT_HPP_
#define BERTH_HOST_CONFORMANCE_SUITE_CONTEXT_HPP_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "berth/berth.hpp"
#include "client/client_state.hpp"
#include "conformance/conformance.hpp"
#include "loader/plugin_library.hpp"

namespace berth::conformance {

struct Context {
  Host* host = nullptr;
  std::string plugin;
  const core::PluginLibrary* library = nullptr;  // held by `client`
  const BERTH_Api* api = nullptr;
  NamedValueMap attributes;
  bool stablehlo = false;  // the plugin says it compiles "stablehlo"
  std::optional<Client> client;  // one client shared by the checks

  // A further client of the plugin (the manifest's create options).
  Result<Client> NewClient() const { return host->CreateClient(plugin); }
  // The plugin's function in `field`, or NULL when its table lacks it.
  template <typename Fn>
  Fn* Function(Fn* BERTH_Api::*field) const {
    return library->Function(field);
  }
  // Converts (and frees) a plugin error.
  Status Take(BERTH_Error* error, const char* function) const {
    return library->TakeError(error, function);
  }
};

// Emits one result; a check may emit several (one per element type ...).
using Emit = std::function<void(CheckResult)>;

inline CheckResult Pass(std::string name) { return {std::move(name), Outcome::kPass, ""}; }
inline CheckResult Fail(std::string name, std::string why) {
  return {std::move(name), Outcome::kFail, std::move(why)};
}
inline CheckResult Skip(std::string name, std::string why) {
  return {std::move(name), Outcome::kSkip, std::move(why)};
}
// Pass when `status` is OK, else Fail with its text.
inline CheckResult FromStatus(std::string name, const Status& status) {
  return status.ok() ? Pass(std::move(name)) : Fail(std::move(name), status.ToString());
}

// The checks, by area (one file each).
void AbiChecks(Context& context, const Emit& emit);          // checks_abi.cc
void ObjectChecks(Context& context, const Emit& emit);       // checks_objects.cc
void ExecuteChecks(Context& context, const Emit& emit);      // checks_execute.cc

}  // namespace berth::conformance

#endif  // BERTH_HOST_CONFORMANCE_SUITE_CONTEXT_HPP_
