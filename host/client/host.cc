#include "berth/host.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <mutex>

#include "berth/extension_chain.hpp"
#include "berth/log.hpp"
#include "client/client_state.hpp"
#include "common/env.hpp"
#include "client/host_impl.hpp"
#include "manifest/discovery.hpp"
#include "manifest/manifest.hpp"

namespace berth {
namespace core {

HostImpl::HostImpl(std::vector<ManifestEntry> entries, LoadOptions load_options)
    : load_options_(load_options) {
  for (ManifestEntry& entry : entries) entries_.push_back(EntryState{std::move(entry), {}, {}, "", ""});
}

PluginInfo HostImpl::Info(const EntryState& state) {
  const ManifestEntry& entry = state.entry;
  PluginInfo info;
  info.name = entry.name;
  info.kind = std::string(ManifestKindName(entry.kind));
  info.manifest = entry.path;
  info.status = std::string(EntryStatusName(entry.status));
  info.reason = entry.reason;
  info.message = entry.message;
  if (entry.manifest) {
    const Manifest& m = *entry.manifest;
    info.library = m.library;
    info.api_version = std::to_string(m.api_major) + "." + std::to_string(m.api_minor);
    info.platform = m.platform;
    info.priority = m.priority;
    info.description = m.description;
    info.extension_type = m.extension_type;
  }
  if (state.module) {
    info.status = "ok";
    info.attributes = state.module->Attributes();
  } else if (state.library) {
    info.status = "ok";
    info.negotiated_version = state.library->NegotiatedVersion();
    for (int type : state.library->extension_types()) {
      info.extensions.push_back(ExtensionTypeName(type));
    }
    info.attributes = state.library->attributes();
  } else if (!state.load_reason.empty()) {
    info.status = "skipped";
    info.reason = state.load_reason;
    info.message = state.load_message;
  }
  return info;
}

std::vector<PluginInfo> HostImpl::Plugins() const {
  std::lock_guard lock(mutex_);
  std::vector<PluginInfo> out;
  for (const EntryState& state : entries_) out.push_back(Info(state));
  return out;
}

HostImpl::EntryState* HostImpl::FindPlugin(std::string_view name) {
  for (EntryState& state : entries_) {
    if (state.entry.kind == ManifestKind::kPlugin && state.entry.name == name &&
        state.entry.status == EntryStatus::kFound) {
      return &state;
    }
  }
  return nullptr;
}

Status HostImpl::NotUsable(std::string_view name) const {
  std::string why;
  std::string available;
  for (const EntryState& state : entries_) {
    if (state.entry.kind != ManifestKind::kPlugin) continue;
    if (state.entry.name == name && why.empty()) {
      why = state.entry.message.empty() ? std::string(EntryStatusName(state.entry.status))
                                        : state.entry.message;
    }
    if (state.entry.status == EntryStatus::kFound) {
      available += (available.empty() ? "" : ", ") + state.entry.name;
    }
  }
  if (!why.empty()) {
    return FailedPreconditionError("plugin '" + std::string(name) + "' is not usable: " + why);
  }
  return NotFoundError("no plugin named '" + std::string(name) + "'; available: " +
                       (available.empty() ? "none (see `berth plugins`)" : available));
}

Result<std::shared_ptr<const PluginLibrary>> HostImpl::LoadLocked(EntryState& state) {
  if (state.library) return std::shared_ptr<const PluginLibrary>(state.library);
  if (!state.load_reason.empty()) {
    return FailedPreconditionError(state.load_message);
  }
  LoadOutcome outcome = PluginLibrary::Load(*state.entry.manifest, load_options_);
  if (!outcome.library) {
    state.load_reason = outcome.reason;
    state.load_message = outcome.message;
    return FailedPreconditionError(outcome.message);
  }
  state.library = std::move(outcome.library);
  return std::shared_ptr<const PluginLibrary>(state.library);
}

Result<std::shared_ptr<const ext::ExtensionModule>> HostImpl::LoadModuleLocked(
    EntryState& state) {
  if (state.module) return std::shared_ptr<const ext::ExtensionModule>(state.module);
  if (!state.load_reason.empty()) return FailedPreconditionError(state.load_message);
  ext::ModuleOutcome outcome = ext::LoadExtensionModule(*state.entry.manifest, load_options_);
  if (!outcome.module) {
    state.load_reason = outcome.reason;
    state.load_message = outcome.message;
    return FailedPreconditionError(outcome.message);
  }
  state.module = std::move(outcome.module);
  return std::shared_ptr<const ext::ExtensionModule>(state.module);
}

void HostImpl::LoadAll() {
  std::lock_guard lock(mutex_);
  for (EntryState& state : entries_) {
    if (state.entry.status != EntryStatus::kFound) continue;
    // Failures are recorded in the entry.
    if (state.entry.kind == ManifestKind::kPlugin) {
      LoadLocked(state).status().IgnoreError();
    } else {
      LoadModuleLocked(state).status().IgnoreError();
    }
  }
}

void HostImpl::AttachModules(const Client& client, ClientState& client_state) {
  std::lock_guard lock(mutex_);
  for (EntryState& state : entries_) {
    if (state.entry.kind != ManifestKind::kExtension || state.entry.status != EntryStatus::kFound) {
      continue;
    }
    const Manifest& manifest = *state.entry.manifest;
    if (std::none_of(manifest.applies_to.begin(), manifest.applies_to.end(),
                     [&](const std::string& glob) {
                       return GlobMatch(glob, client_state.platform_name);
                     })) {
      continue;
    }
    const std::string module = "extension module '" + manifest.name + "'";
    const std::string plugin = "plugin '" + client_state.plugin_name + "'";
    const auto type = static_cast<BERTH_Extension_Type>(manifest.extension_type_id);
    const BERTH_Extension_Base* extension =
        FindExtension(client_state.library->api().extension_start, type);
    if (!client.HasExtension(type) || extension == nullptr) {
      Log(LogLevel::kInfo, "extensions",
          module + " not attached to " + plugin + ": it does not implement the '" +
              manifest.extension_type + "' extension");
      continue;
    }
    Result<std::shared_ptr<const ext::ExtensionModule>> loaded = LoadModuleLocked(state);
    if (!loaded.ok()) continue;  // logged when it failed to load
    Status attached = (*loaded)->AttachTo(*client_state.library, client_state.client, extension);
    if (!attached.ok()) {
      Log(LogLevel::kWarning, "extensions",
          module + ": not wholly attached to " + plugin + ": " + attached.ToString());
    }
    client_state.attached_modules.push_back(*loaded);
  }
}

Status HostImpl::CheckPlatform(std::string_view name, const std::string& platform) {
  std::lock_guard lock(mutex_);
  EntryState* state = FindPlugin(name);
  if (state == nullptr) return NotUsable(name);
  const Manifest& manifest = *state->entry.manifest;
  if (manifest.platform == platform) return OkStatus();
  // The manifest misdescribes its library: filters and extension modules
  // that select by platform would go wrong. The entry is skipped from now on
  // (the library closes when the last client's state lets it go).
  state->library.reset();
  state->load_reason = std::string(reason::kPlatformMismatch);
  state->load_message = PlatformMismatchMessage(manifest, platform);
  Log(LogLevel::kWarning, "loader", state->load_message);
  return FailedPreconditionError(state->load_message);
}

Result<PluginInfo> HostImpl::Load(std::string_view name) {
  std::lock_guard lock(mutex_);
  EntryState* state = FindPlugin(name);
  if (state == nullptr) return NotUsable(name);
  BERTH_RETURN_IF_ERROR(LoadLocked(*state).status());
  return Info(*state);
}

Result<std::string> HostImpl::DefaultPlugin() const {
  std::lock_guard lock(mutex_);
  const EntryState* best = nullptr;
  for (const EntryState& state : entries_) {
    if (state.entry.kind != ManifestKind::kPlugin || state.entry.status != EntryStatus::kFound ||
        !state.load_reason.empty()) {
      continue;
    }
    if (best == nullptr || state.entry.manifest->priority > best->entry.manifest->priority) {
      best = &state;
    }
  }
  if (best == nullptr) {
    return NotFoundError("no usable plugin was found; run `berth plugins` to see why");
  }
  return best->entry.name;
}

Result<Client> HostImpl::CreateClient(std::string_view name, const ClientOptions& options) {
  std::shared_ptr<const PluginLibrary> library;
  NamedValueMap merged;
  {
    std::lock_guard lock(mutex_);
    EntryState* state = FindPlugin(name);
    if (state == nullptr) return NotUsable(name);
    BERTH_ASSIGN_OR_RETURN(library, LoadLocked(*state));
    merged = state->entry.manifest->create_options;
  }
  for (const auto& [key, value] : options.options) merged[key] = value;
  // A reserved option younger than the plugin's C API would be an unknown
  // option to it: `node_address` came with 1.3.
  if (library->negotiated_minor() < 3) merged.erase(BERTH_OPTION_NODE_ADDRESS);
  BERTH_ASSIGN_OR_RETURN(std::shared_ptr<CompilationCache> cache, OpenClientCache(options));
  BERTH_ASSIGN_OR_RETURN(std::shared_ptr<ClientState> state,
                         ClientState::Create(std::move(library), merged, options.kv_store,
                                             options.num_slices, options.slice_id));
  BERTH_RETURN_IF_ERROR(CheckPlatform(name, state->platform_name));
  if (cache && state->abi_version == nullptr) {
    Log(LogLevel::kWarning, "compilation_cache",
        "plugin '" + state->plugin_name + "' cannot serialize executables (no abi_version extension): " +
            cache->dir().string() + " is not used");
  } else {
    state->compilation_cache = std::move(cache);
  }
  ClientState& mutable_state = *state;
  Client client(std::move(state));
  AttachModules(client, mutable_state);
  return client;
}

namespace {

// The install prefix's manifest folder: found from where this code lies
// when the installed tree was moved (or installed with DESTDIR), else the
// configured one. The host core is in libberth (in libdir) or linked into
// the `berth` command (in bindir).
std::filesystem::path InstallManifestDir() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<const void*>(&InstallManifestDir), &info) != 0 &&
      info.dli_fname != nullptr) {
    std::filesystem::path image_dir = std::filesystem::path(info.dli_fname).parent_path();
    for (const char* relative :
         {BERTH_INSTALL_MANIFEST_DIR_FROM_LIBDIR, BERTH_INSTALL_MANIFEST_DIR_FROM_BINDIR}) {
      std::error_code ec;
      std::filesystem::path dir = image_dir / relative;
      if (std::filesystem::is_directory(dir, ec)) return dir.lexically_normal();
    }
  }
  return BERTH_INSTALL_MANIFEST_DIR;
}

}  // namespace

}  // namespace core

Result<Host> Host::Create(const HostOptions& options) {
  core::DiscoveryOptions discovery;
  discovery.sysconf_dir = BERTH_SYSCONF_DIR;
  discovery.install_manifest_dir = core::InstallManifestDir();
  discovery.extra_dirs = options.extra_manifest_dirs;
  discovery.only = options.only_manifests;
  core::DiscoveryResult result = core::DiscoverManifests(discovery);
  core::LoadOptions load;
  std::optional<std::string> no_unload = common::GetEnv("BERTH_NO_UNLOAD");
  load.no_unload = no_unload && !no_unload->empty() && *no_unload != "0";
  return Host(std::make_unique<core::HostImpl>(std::move(result.entries), load));
}

Host::Host(std::unique_ptr<core::HostImpl> impl) : impl_(std::move(impl)) {}
Host::Host(Host&&) noexcept = default;
Host& Host::operator=(Host&&) noexcept = default;
Host::~Host() = default;

std::vector<PluginInfo> Host::Plugins() const { return impl_->Plugins(); }
void Host::LoadAll() { impl_->LoadAll(); }
Result<PluginInfo> Host::Load(std::string_view name) { return impl_->Load(name); }
Result<std::string> Host::DefaultPlugin() const { return impl_->DefaultPlugin(); }
Result<Client> Host::CreateClient(std::string_view plugin_name, const ClientOptions& options) {
  return impl_->CreateClient(plugin_name, options);
}

}  // namespace berth
