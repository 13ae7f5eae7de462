// Manifest discovery: the search order, filters and shadowing of
// docs/manifests.md ("Discovery").
// Opens no library.
#ifndef BERTH_HOST_MANIFEST_DISCOVERY_HPP_
#define BERTH_HOST_MANIFEST_DISCOVERY_HPP_

#include <filesystem>
#include <string>
#include <vector>

#include "common/env.hpp"
#include "manifest/manifest.hpp"

namespace berth::core {

struct DiscoveryOptions {
  common::EnvReader env = common::ProcessEnv();
  // <sysconfdir>/berth/plugins.d and <prefix>/share/berth/plugins.d come from
  // these two (compiled-in defaults are the install prefix's).
  std::filesystem::path sysconf_dir;          // e.g. /usr/local/etc
  std::filesystem::path install_manifest_dir; // e.g. /usr/local/share/berth/plugins.d
  // Searched after everything else when BERTH_PLUGIN_PATH is not set (the
  // `berth` binary adds the build tree's manifest folder here).
  std::vector<std::filesystem::path> extra_dirs;
  // When not empty, the whole search path (files or folders): neither
  // BERTH_PLUGIN_PATH, BERTH_ADD_PLUGIN_PATH, the standard folders nor
  // extra_dirs are searched. The filters (BERTH_PLUGINS_SELECT/DISABLE)
  // still apply.
  std::vector<std::filesystem::path> only;
};

enum class EntryStatus { kFound, kSkipped, kShadowed, kDisabled };
std::string_view EntryStatusName(EntryStatus status);  // "found", "skipped", ...

// One manifest file seen during discovery, valid or not.
struct ManifestEntry {
  std::filesystem::path path;
  std::string name;                  // "" when it could not be read
  ManifestKind kind = ManifestKind::kPlugin;
  EntryStatus status = EntryStatus::kFound;
  std::string reason;                // empty when status is kFound
  std::string message;
  std::optional<Manifest> manifest;  // set unless the file is invalid
};

struct DiscoveryResult {
  std::vector<ManifestEntry> entries;           // in search order
  std::vector<std::filesystem::path> searched;  // the folders/files searched, in order
};

// The folders and files to search, in order (BERTH_PLUGIN_PATH replaces all).
std::vector<std::filesystem::path> ManifestSearchPath(const DiscoveryOptions& options);

// Finds every *.json manifest in the search path, files sorted by name within
// a folder; the first manifest of a (kind, name) wins and later ones are
// kShadowed (and logged); BERTH_PLUGINS_DISABLE then BERTH_PLUGINS_SELECT
// (comma-separated globs on names) mark entries kDisabled.
DiscoveryResult DiscoverManifests(const DiscoveryOptions& options);

}  // namespace berth::core

#endif  // BERTH_HOST_MANIFEST_DISCOVERY_HPP_
