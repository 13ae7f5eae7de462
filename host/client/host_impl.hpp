// Internal: the state behind berth::Host.
#ifndef BERTH_HOST_CLIENT_HOST_IMPL_HPP_
#define BERTH_HOST_CLIENT_HOST_IMPL_HPP_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "berth/host.hpp"
#include "extension_module.hpp"
#include "loader/plugin_library.hpp"
#include "manifest/discovery.hpp"

namespace berth::core {

class HostImpl {
 public:
  HostImpl(std::vector<ManifestEntry> entries, LoadOptions load_options);

  std::vector<PluginInfo> Plugins() const;
  void LoadAll();
  Result<PluginInfo> Load(std::string_view name);
  Result<std::string> DefaultPlugin() const;
  Result<Client> CreateClient(std::string_view name, const ClientOptions& options);

 private:
  struct EntryState {
    ManifestEntry entry;
    std::shared_ptr<PluginLibrary> library;    // plugins: set once loaded
    std::shared_ptr<ext::ExtensionModule> module;  // extension modules: likewise
    std::string load_reason;                 // set when loading failed
    std::string load_message;
  };

  static PluginInfo Info(const EntryState& state);
  EntryState* FindPlugin(std::string_view name);
  Status NotUsable(std::string_view name) const;
  Result<std::shared_ptr<const PluginLibrary>> LoadLocked(EntryState& state);
  // FAILED_PRECONDITION (reason platform_mismatch, the entry skipped from
  // then on) when the client of plugin `name` reports another platform than
  // its manifest declares.
  Status CheckPlatform(std::string_view name, const std::string& platform);
  Result<std::shared_ptr<const ext::ExtensionModule>> LoadModuleLocked(EntryState& state);
  // Loads (on first use) and attaches every usable extension module that
  // applies to the client's platform and whose type the plugin implements.
  void AttachModules(const Client& client, ClientState& state);

  mutable std::mutex mutex_;
  std::vector<EntryState> entries_;
  LoadOptions load_options_;
};

}  // namespace berth::core

#endif  // BERTH_HOST_CLIENT_HOST_IMPL_HPP_
