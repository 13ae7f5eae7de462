// The entry point of an application: discovers plugin manifests, loads
// plugins on demand and makes clients.
//
//   berth::Result<berth::Host> host = berth::Host::Create();
//   berth::Result<berth::Client> client = host->CreateClient("cpu");
#ifndef BERTH_HOST_HPP_
#define BERTH_HOST_HPP_

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "berth/api.hpp"
#include "berth/client.hpp"
#include "berth/named_value.hpp"
#include "berth/status.hpp"

namespace berth {
namespace core {
class HostImpl;
}

// What the host knows about one manifest file.
struct PluginInfo {
  std::string name;
  std::string kind;                  // "plugin" or "extension"
  std::filesystem::path manifest;    // the manifest file
  std::filesystem::path library;     // resolved library path ("" if unknown)
  // "found" (valid, not opened), "ok" (loaded), "skipped", "shadowed", "disabled".
  std::string status;
  std::string reason;                // stable code when not found/ok
  std::string message;               // a sentence naming the field and the fix
  std::string api_version;           // declared in the manifest, "1.0"
  std::string negotiated_version;    // after loading, "1.0"
  std::string platform;
  int64_t priority = 0;
  std::string description;
  std::string extension_type;        // extension manifests
  std::vector<std::string> extensions;  // extension types in the plugin's chain (after loading)
  NamedValueMap attributes;          // plugin attributes (after loading)
};

struct HostOptions {
  // Searched after every standard location (unless BERTH_PLUGIN_PATH is set).
  std::vector<std::filesystem::path> extra_manifest_dirs;
  // When not empty, the only manifests (files, or folders of them) the host
  // sees: the environment's paths (BERTH_PLUGIN_PATH, BERTH_ADD_PLUGIN_PATH),
  // the standard folders and extra_manifest_dirs are not searched. The
  // filters BERTH_PLUGINS_SELECT and BERTH_PLUGINS_DISABLE still apply.
  std::vector<std::filesystem::path> only_manifests;
};

struct ClientOptions {
  // Override the manifest's create_options.
  NamedValueMap options;
  // Job-wide key-value store for distributed clients; borrowed, must outlive
  // the client. NULL outside a job.
  const BERTH_KeyValueStore* kv_store = nullptr;
  // The persistent compilation cache's folder (docs/compilation-cache.md):
  // empty takes BERTH_COMPILATION_CACHE_DIR; neither set, the cache is off.
  // It needs a plugin with the abi_version extension (serialization).
  std::filesystem::path compilation_cache_dir{};
  // Bytes of entries the folder may hold before the least recently used go;
  // 0 takes BERTH_COMPILATION_CACHE_MAX_BYTES, else 4 GiB.
  int64_t compilation_cache_max_bytes = 0;
  // The job's slices and this node's (Job::ClientOptionsFor fills them). A
  // plugin with the multi_slice extension is told them at creation; another
  // is not (a warning is logged when there are several slices).
  int num_slices = 1;
  int slice_id = 0;
};

// Thread-safe; move-only.
class BERTH_API Host {
 public:
  // Discovers manifests (opens no library).
  static Result<Host> Create(const HostOptions& options = {});
  Host(Host&&) noexcept;
  Host& operator=(Host&&) noexcept;
  ~Host();

  // Every manifest seen, in search order, with its current status.
  std::vector<PluginInfo> Plugins() const;
  // Loads every usable plugin manifest; failures are recorded in Plugins().
  void LoadAll();
  // Loads one plugin by name (if not loaded) and returns its info.
  Result<PluginInfo> Load(std::string_view name);
  // The usable plugin with the highest priority (ties: first found).
  Result<std::string> DefaultPlugin() const;

  // Loads the plugin if needed and creates a client. Options: the manifest's
  // create_options, overridden by `options.options`.
  Result<Client> CreateClient(std::string_view plugin_name, const ClientOptions& options = {});

 private:
  explicit Host(std::unique_ptr<core::HostImpl> impl);
  std::unique_ptr<core::HostImpl> impl_;
};

}  // namespace berth

#endif  // BERTH_HOST_HPP_
