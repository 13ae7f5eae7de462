// The plugin object and the one export macro. A plugin author subclasses
// berth::plugin::Plugin (and Client, Buffer, LoadedExecutable), then writes
//
//   BERTH_PLUGIN_EXPORT(MyPlugin)
//
// in one source file; the SDK provides the whole C table (struct-size checks,
// error conversion, exceptions caught at the ABI edge, the extension chain).
#ifndef BERTH_PLUGIN_PLUGIN_HPP_
#define BERTH_PLUGIN_PLUGIN_HPP_

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "berth/c_api.h"
#include "berth/named_value.hpp"
#include "berth/plugin/client.hpp"
#include "berth/plugin/key_value.hpp"
#include "berth/plugin/live_objects.hpp"
#include "berth/plugin/version.hpp"
#include "berth/status.hpp"

namespace berth::plugin {

// What the host told the plugin at initialization.
// The slices of the job a client's node belongs to (berth/ext/multi_slice.h):
// one slice outside a job of slices.
struct SliceTopology {
  int32_t num_slices = 1;
  int32_t slice_id = 0;  // this node's
};

struct HostContext {
  int32_t api_major = 0;
  int32_t api_minor = 0;
  const BERTH_HostServices* services = nullptr;  // lives until unload
};

class Plugin {
 public:
  virtual ~Plugin() = default;

  // Called once, before any client is made. Default: accepts any host of
  // this major version.
  virtual Status Initialize(const HostContext& host);
  // Static plugin attributes (e.g. "stablehlo_support": true).
  virtual NamedValueMap Attributes() const { return {}; }
  // Creates a client. `options` are checked by the plugin (OptionReader);
  // `kv_store` is usable only while the client lives.
  virtual Result<std::unique_ptr<Client>> CreateClient(const NamedValueMap& options,
                                                       const KeyValueStore& kv_store) = 0;
  // Since plugin SDK 1.5: the same with the job's slices, which the host
  // gives only to a plugin that lists MultiSliceExtension()
  // (berth/ext/multi_slice.h); the default ignores them.
  virtual Result<std::unique_ptr<Client>> CreateClient(const NamedValueMap& options,
                                                       const KeyValueStore& kv_store,
                                                       const SliceTopology& slices) {
    (void)slices;
    return CreateClient(options, kv_store);
  }
  // Extension structs the plugin offers; each lives as long as the plugin.
  // The SDK links them into the table's chain in this order.
  virtual std::vector<BERTH_Extension_Base*> Extensions() { return {}; }
};

// Writes a line to the host's log (no-op before initialization or when the
// host gave no log callback). Thread-safe.
void Log(BERTH_LogLevel level, std::string_view message);

// The host's negotiated context (valid after initialization).
const HostContext& CurrentHostContext();
// The name of CurrentHostContext before SDK 1.1 (it read as the host
// application's class berth::Host).
[[deprecated("renamed plugin::CurrentHostContext in Berth plugin SDK 1.1")]]
inline const HostContext& Host() { return CurrentHostContext(); }

// Builds the table for a plugin made by `factory` (called once, at the first
// call). Used by BERTH_PLUGIN_EXPORT; fixtures may copy and alter the table.
const BERTH_Api* MakeApi(std::function<std::unique_ptr<Plugin>()> factory);

// The plugin object made by the factory given to MakeApi.
Plugin& CurrentPlugin();

}  // namespace berth::plugin

// BERTH_PLUGIN_VISIBLE (the export attribute) comes from berth/c_api.h.
// Defines the plugin's one exported symbol, BERTH_GetApi.
#define BERTH_PLUGIN_EXPORT(PluginClass)                                          \
  extern "C" BERTH_PLUGIN_VISIBLE const BERTH_Api* BERTH_GetApi(void) {           \
    static const BERTH_Api* api = ::berth::plugin::MakeApi(                       \
        []() -> std::unique_ptr<::berth::plugin::Plugin> {                        \
          return std::make_unique<PluginClass>();                                 \
        });                                                                       \
    return api;                                                                   \
  }

#endif  // BERTH_PLUGIN_PLUGIN_HPP_
