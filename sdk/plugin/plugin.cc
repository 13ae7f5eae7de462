// The plugin singleton, the host context, logging, and the C table.
#include "berth/plugin/plugin.hpp"

#include <algorithm>
#include <mutex>

#include "abi_glue.hpp"
#include "berth/extension_chain.hpp"
#include "berth/plugin/extensions.hpp"

namespace berth::plugin {
namespace {

// Destroyed when the library is unloaded (or at exit), with the plugin.
std::unique_ptr<Plugin>& PluginSlot() {
  static std::unique_ptr<Plugin> slot;
  return slot;
}

HostContext& HostSlot() {
  static HostContext context;
  return context;
}

}  // namespace

Status Plugin::Initialize(const HostContext& host) {
  (void)host;
  return OkStatus();
}

const HostContext& CurrentHostContext() { return HostSlot(); }

Plugin& CurrentPlugin() { return *PluginSlot(); }

void Log(BERTH_LogLevel level, std::string_view message) {
  const BERTH_HostServices* services = HostSlot().services;
  if (services == nullptr || services->log == nullptr) return;
  if (static_cast<int>(level) > static_cast<int>(services->log_level)) return;
  services->log(services->user_data, level, message.data(), message.size());
}

namespace glue {

// Records the host's context. Split out so the core entry table can call it.
Status InitializePlugin(const BERTH_Plugin_Initialize_Args& args) {
  if (args.host_services == nullptr) {
    return InvalidArgumentError("BERTH_Plugin_Initialize: host_services is NULL");
  }
  if (args.host_services->struct_size < BERTH_HostServices_STRUCT_SIZE) {
    return StructSizeError("BERTH_HostServices", BERTH_HostServices_STRUCT_SIZE,
                           args.host_services->struct_size);
  }
  if (args.host_api_major != BERTH_API_MAJOR) {
    return FailedPreconditionError(
        "host ABI " + std::to_string(args.host_api_major) + "." +
        std::to_string(args.host_api_minor) + " has another major version than this plugin's " +
        std::to_string(BERTH_API_MAJOR) + "." + std::to_string(BERTH_API_MINOR));
  }
  HostContext& context = HostSlot();
  context.api_major = args.host_api_major;
  context.api_minor = args.host_api_minor;
  context.services = args.host_services;
  return CurrentPlugin().Initialize(context);
}

}  // namespace glue

const BERTH_Api* MakeApi(std::function<std::unique_ptr<Plugin>()> factory) {
  static BERTH_Api api{};
  static std::once_flag once;
  std::call_once(once, [&] {
    PluginSlot() = factory();
    api.struct_size = BERTH_Api_STRUCT_SIZE;
    api.api_version.struct_size = BERTH_Api_Version_STRUCT_SIZE;
    api.api_version.major_version = BERTH_API_MAJOR;
    api.api_version.minor_version = BERTH_API_MINOR;
    glue::FillCoreEntries(api);
    glue::FillBufferEntries(api);
    glue::FillExecutableEntries(api);
    // Link the plugin's extensions in order, then live_objects (every SDK
    // plugin counts its objects) unless the plugin listed it itself. A
    // duplicate type is left in the chain on purpose: the host rejects the
    // plugin with a clear reason.
    BERTH_Extension_Base* head = nullptr;
    std::vector<BERTH_Extension_Base*> extensions = CurrentPlugin().Extensions();
    BERTH_Extension_Base* live_objects = LiveObjectsExtension();
    if (std::find(extensions.begin(), extensions.end(), live_objects) == extensions.end()) {
      extensions.push_back(live_objects);
    }
    for (auto it = extensions.rbegin(); it != extensions.rend(); ++it) {
      if (*it == nullptr) continue;
      (*it)->next = head;
      head = *it;
    }
    api.extension_start = head;
  });
  return &api;
}

}  // namespace berth::plugin
