// Internal to the conformance suite: what every check gets, and the checks.
#ifndef BERTH_HOST_CONFORMANCE_SUITE_CONTEXT_HPP_
#define BERTH_HOST_CONFORMANCE_SUITE_CONTEXT_HPP_

#include <functional>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "berth/berth.hpp"
#include "client/client_state.hpp"
#include "conformance/conformance.hpp"
#include "loader/plugin_library.hpp"
#include "manifest/manifest.hpp"

namespace berth::conformance {

struct Context {
  Host* host = nullptr;
  std::string plugin;
  const core::Manifest* manifest = nullptr;
  const core::PluginLibrary* library = nullptr;  // held by `client`
  const BERTH_Api* api = nullptr;
  NamedValueMap attributes;
  // The ops the plugin lists in "supported_ops", when it lists them: it is
  // held to them (UNIMPLEMENTED for one of them fails).
  std::optional<std::set<std::string, std::less<>>> supported_ops;
  std::optional<Client> client;  // one client shared by the checks

  // A further client of the plugin (the manifest's create options, and
  // `options` over them).
  Result<Client> NewClient(const NamedValueMap& options = {}) const {
    ClientOptions client_options;
    client_options.options = options;
    return host->CreateClient(plugin, client_options);
  }
  // Compiles StableHLO text as `berth run` does: with the reserved
  // "source_name" option, which every plugin accepts.
  Result<Executable> Compile(std::string_view code, std::string_view source_name) const {
    CompileOptions options;
    options.options[BERTH_OPTION_SOURCE_NAME] = std::string(source_name);
    return client->Compile(code, options);
  }
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
inline CheckResult Unsupported(std::string name, std::string why) {
  return {std::move(name), Outcome::kUnsupported, std::move(why)};
}
// Pass when `status` is OK, else Fail with its text.
inline CheckResult FromStatus(std::string name, const Status& status) {
  return status.ok() ? Pass(std::move(name)) : Fail(std::move(name), status.ToString());
}

// "stablehlo.add, stablehlo.multiply" -> {"stablehlo.add", "stablehlo.multiply"}.
std::set<std::string, std::less<>> SplitOpList(std::string_view list);

// The result of check `name` whose valid program did not compile; `used` are
// the ops ("stablehlo.add") and element types ("f32") it uses. *Unsupported*
// when the plugin answered UNIMPLEMENTED naming one of them or the format
// (docs/abi.md) and does not list a named op in "supported_ops"; a failure
// otherwise (another code, a message naming nothing, or a listed op).
CheckResult CompileRefused(const Context& c, std::string name, const Status& status,
                           std::initializer_list<std::string_view> used);

// The element types the plugin lists in "element_types" (`*declared` true),
// or every type a buffer can hold densely (false).
std::vector<ElementType> TypesToTry(const Context& c, bool* declared);

// The checks, by area (one file each).
void AbiChecks(Context& context, const Emit& emit);           // checks_abi.cc
void LibraryChecks(Context& context, const Emit& emit);       // checks_library.cc
void ObjectChecks(Context& context, const Emit& emit);        // checks_objects.cc
void ExecuteChecks(Context& context, const Emit& emit);       // checks_execute.cc
void ElementTypeChecks(Context& context, const Emit& emit);   // checks_element_types.cc

}  // namespace berth::conformance

#endif  // BERTH_HOST_CONFORMANCE_SUITE_CONTEXT_HPP_
