#include "manifest/discovery.hpp"

#include <algorithm>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "berth/log.hpp"

namespace berth::core {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kLogCategory = "manifest";
constexpr std::string_view kSubfolder = "berth/plugins.d";

// Splits on `separator`, dropping empty pieces.
std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> pieces;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(separator, start);
    if (end == std::string_view::npos) end = text.size();
    if (end > start) pieces.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return pieces;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// The identity of a path for "searched once": lexically normal, no trailing '/'.
std::string PathKey(const fs::path& path) {
  std::string key = path.lexically_normal().string();
  while (key.size() > 1 && key.back() == '/') key.pop_back();
  return key;
}

void Debug(const std::string& message) { Log(LogLevel::kDebug, kLogCategory, message); }
bool DebugOn() { return LogEnabled(LogLevel::kDebug, kLogCategory); }

struct SearchItem {
  fs::path path;
  std::string_view source;  // the variable or setting it came from, for logs
};

// Collects search entries in order, each folder or file once.
class SearchPathBuilder {
 public:
  void Add(const fs::path& path, std::string_view source) {
    std::string key = PathKey(path);
    if (!seen_.insert(key).second) {
      if (DebugOn()) Debug("search path: " + key + " (from " + std::string(source) +
                           ") is already in the search path; searched once");
      return;
    }
    items_.push_back(SearchItem{fs::path(std::move(key)), source});
  }

  // Each ':'-separated entry of a list of files or folders (relative entries allowed).
  void AddList(std::string_view list, std::string_view source) {
    for (std::string_view entry : Split(list, ':')) Add(fs::path(entry), source);
  }

  // One XDG base directory plus berth/plugins.d. The XDG base-directory spec
  // says relative entries are invalid and must be ignored.
  void AddXdgDir(std::string_view base, const char* variable) {
    if (!fs::path(base).is_absolute()) {
      Log(LogLevel::kWarning, kLogCategory,
          std::string("DiscoverManifests: ignoring \"") + std::string(base) + "\" in " +
              variable + ": XDG base directories must be absolute paths");
      return;
    }
    Add(fs::path(base) / kSubfolder, variable);
  }

  // Each ':'-separated entry of an XDG list.
  void AddXdgList(std::string_view list, const char* variable) {
    for (std::string_view entry : Split(list, ':')) AddXdgDir(entry, variable);
  }

  std::vector<SearchItem> Take() { return std::move(items_); }

 private:
  std::vector<SearchItem> items_;
  std::unordered_set<std::string> seen_;
};

// An environment variable, treated as absent when set to an empty string.
std::optional<std::string> NonEmpty(const common::EnvReader& env, const char* name) {
  std::optional<std::string> value = env(name);
  if (value && value->empty()) return std::nullopt;
  return value;
}

std::vector<SearchItem> BuildSearchPath(const DiscoveryOptions& options, const common::EnvReader& env) {
  SearchPathBuilder builder;
  if (!options.only.empty()) {
    for (const fs::path& path : options.only) builder.Add(path, "HostOptions::only_manifests");
    return builder.Take();
  }
  if (std::optional<std::string> only = env("BERTH_PLUGIN_PATH")) {
    if (!Split(*only, ':').empty()) {
      builder.AddList(*only, "BERTH_PLUGIN_PATH");
      return builder.Take();
    }
    Log(LogLevel::kInfo, kLogCategory,
        "DiscoverManifests: BERTH_PLUGIN_PATH is set but lists no path; ignored, the default "
        "search path is used");
  }
  if (std::optional<std::string> added = env("BERTH_ADD_PLUGIN_PATH")) {
    builder.AddList(*added, "BERTH_ADD_PLUGIN_PATH");
  }
  // A relative XDG_CONFIG_HOME is invalid (AddXdgDir warns): use the default.
  std::optional<std::string> config_home = NonEmpty(env, "XDG_CONFIG_HOME");
  if (config_home && !fs::path(*config_home).is_absolute()) {
    builder.AddXdgDir(*config_home, "XDG_CONFIG_HOME");
    config_home.reset();
  }
  if (config_home) {
    builder.AddXdgDir(*config_home, "XDG_CONFIG_HOME");
  } else if (std::optional<std::string> home = NonEmpty(env, "HOME")) {
    builder.AddXdgDir(*home + "/.config", "HOME");
  } else if (DebugOn()) {
    Debug("DiscoverManifests: neither XDG_CONFIG_HOME nor HOME is set; no per-user folder");
  }
  builder.AddXdgList(NonEmpty(env, "XDG_CONFIG_DIRS").value_or("/etc/xdg"), "XDG_CONFIG_DIRS");
  if (!options.sysconf_dir.empty()) builder.Add(options.sysconf_dir / kSubfolder, "sysconfdir");
  builder.AddXdgList(NonEmpty(env, "XDG_DATA_DIRS").value_or("/usr/local/share:/usr/share"),
                     "XDG_DATA_DIRS");
  if (!options.install_manifest_dir.empty()) {
    builder.Add(options.install_manifest_dir, "the install prefix");
  }
  for (const fs::path& extra : options.extra_dirs) {
    if (!extra.empty()) builder.Add(extra, "extra_dirs");
  }
  return builder.Take();
}

// BERTH_PLUGINS_DISABLE and BERTH_PLUGINS_SELECT, read once per discovery.
class Filters {
 public:
  explicit Filters(const common::EnvReader& env) {
    Read(env, "BERTH_PLUGINS_DISABLE", &disable_);
    has_select_ = Read(env, "BERTH_PLUGINS_SELECT", &select_);
    if (has_select_) {
      for (std::string_view glob : select_) {
        if (!select_text_.empty()) select_text_ += ',';
        select_text_ += glob;
      }
    }
  }

  // Why a valid manifest is disabled, or "" when it is not. DISABLE applies
  // first and to both kinds; SELECT restricts backend plugins only, so
  // extension modules keep attaching to whichever backends remain (name an
  // extension in BERTH_PLUGINS_DISABLE to turn it off).
  std::string WhyDisabled(const Manifest& manifest) const {
    for (const std::string& glob : disable_) {
      if (GlobMatch(glob, manifest.name)) {
        return "is disabled by BERTH_PLUGINS_DISABLE (glob \"" + glob + "\")";
      }
    }
    if (has_select_ && manifest.kind == ManifestKind::kPlugin) {
      for (const std::string& glob : select_) {
        if (GlobMatch(glob, manifest.name)) return "";
      }
      return "is not selected by BERTH_PLUGINS_SELECT (globs \"" + select_text_ + "\")";
    }
    return "";
  }

 private:
  // Comma-separated globs, blanks around them ignored. False when the
  // variable is unset or lists no glob.
  static bool Read(const common::EnvReader& env, const char* name, std::vector<std::string>* globs) {
    std::optional<std::string> value = env(name);
    if (!value) return false;
    for (std::string_view piece : Split(*value, ',')) {
      piece = Trim(piece);
      if (!piece.empty()) globs->emplace_back(piece);
    }
    if (globs->empty()) {
      Log(LogLevel::kInfo, kLogCategory,
          std::string("DiscoverManifests: ") + name + " is set but lists no glob; ignored");
      return false;
    }
    return true;
  }

  std::vector<std::string> disable_;
  std::vector<std::string> select_;
  std::string select_text_;
  bool has_select_ = false;
};

// The *.json entries of a folder, sorted by file name in byte order.
std::vector<fs::path> ListManifestFiles(const fs::path& folder) {
  std::vector<std::string> names;
  std::error_code ec;
  fs::directory_iterator it(folder, ec);
  if (ec) {
    Log(LogLevel::kWarning, kLogCategory,
        "DiscoverManifests: cannot list folder " + folder.string() + " (" + ec.message() +
            "); its manifests are skipped");
    return {};
  }
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.size() > 5 && name.ends_with(".json")) names.push_back(std::move(name));
  }
  if (ec) {
    Log(LogLevel::kWarning, kLogCategory,
        "DiscoverManifests: listing folder " + folder.string() + " failed part way (" +
            ec.message() + "); manifests after that point are skipped");
  }
  // std::string compares as unsigned bytes (char_traits<char>::compare).
  std::sort(names.begin(), names.end());
  std::vector<fs::path> files;
  files.reserve(names.size());
  for (std::string& name : names) files.push_back(folder / name);
  return files;
}

class Discoverer {
 public:
  explicit Discoverer(const common::EnvReader& env) : filters_(env) {}

  // `key` identifies the file for "read once" (see PathKey).
  void Visit(const fs::path& file, std::string key) {
    if (!seen_files_.insert(std::move(key)).second) return;  // listed twice
    ManifestParseResult parsed = LoadManifestFile(file);
    ManifestEntry entry;
    entry.path = file;
    entry.name = parsed.name;
    entry.kind = parsed.kind;
    if (!parsed.manifest) {
      entry.status = EntryStatus::kSkipped;
      entry.reason = std::move(parsed.error.reason);
      entry.message = std::move(parsed.error.message);
      Log(LogLevel::kWarning, kLogCategory, entry.message);
      result_.entries.push_back(std::move(entry));
      return;
    }
    const Manifest& manifest = *parsed.manifest;
    std::string what = std::string(ManifestKindName(manifest.kind)) + " \"" + manifest.name + "\"";
    if (std::string why = filters_.WhyDisabled(manifest); !why.empty()) {
      entry.status = EntryStatus::kDisabled;
      entry.reason = std::string(reason::kDisabled);
      entry.message = "manifest " + file.string() + ": " + what + " " + why + ". Not loaded.";
      Log(LogLevel::kInfo, kLogCategory, entry.message);
    } else {
      std::string key = std::string(ManifestKindName(manifest.kind)) + '\n' + manifest.name;
      auto [winner, inserted] = winners_.try_emplace(std::move(key), file);
      if (!inserted) {
        entry.status = EntryStatus::kShadowed;
        entry.reason = std::string(reason::kShadowed);
        entry.message = "manifest " + file.string() + ": " + what + " is shadowed by " +
                        winner->second.string() +
                        ", found earlier in the search path; remove or rename one of them to "
                        "load this one. Not loaded.";
        Log(LogLevel::kInfo, kLogCategory, entry.message);
      } else if (DebugOn()) {
        Debug("DiscoverManifests: found " + what + " in " + file.string());
      }
    }
    entry.manifest = std::move(parsed.manifest);
    result_.entries.push_back(std::move(entry));
  }

  DiscoveryResult& result() { return result_; }

 private:
  Filters filters_;
  DiscoveryResult result_;
  std::unordered_set<std::string> seen_files_;
  std::unordered_map<std::string, fs::path> winners_;  // "kind\nname" -> first path
};

}  // namespace

std::string_view EntryStatusName(EntryStatus status) {
  switch (status) {
    case EntryStatus::kFound: return "found";
    case EntryStatus::kSkipped: return "skipped";
    case EntryStatus::kShadowed: return "shadowed";
    case EntryStatus::kDisabled: return "disabled";
  }
  return "unknown";
}

std::vector<std::filesystem::path> ManifestSearchPath(const DiscoveryOptions& options) {
  common::EnvReader env = options.env ? options.env : common::ProcessEnv();
  std::vector<fs::path> paths;
  for (SearchItem& item : BuildSearchPath(options, env)) paths.push_back(std::move(item.path));
  return paths;
}

DiscoveryResult DiscoverManifests(const DiscoveryOptions& options) {
  common::EnvReader env = options.env ? options.env : common::ProcessEnv();
  Discoverer discoverer(env);
  for (const SearchItem& item : BuildSearchPath(options, env)) {
    discoverer.result().searched.push_back(item.path);
    std::error_code ec;
    fs::file_status status = fs::status(item.path, ec);
    if (ec || !fs::exists(status)) {
      if (DebugOn()) {
        Debug("DiscoverManifests: " + item.path.string() + " (from " + std::string(item.source) +
              ") does not exist; skipped");
      }
      continue;
    }
    if (fs::is_directory(status)) {
      if (DebugOn()) {
        Debug("DiscoverManifests: searching folder " + item.path.string() + " (from " +
              std::string(item.source) + ")");
      }
      // item.path is already normal, so a listed file's key is folder + name.
      const std::string& folder = item.path.native();
      for (const fs::path& file : ListManifestFiles(item.path)) {
        std::string key = folder;
        if (key.back() != '/') key += '/';
        key += file.filename().native();
        discoverer.Visit(file, std::move(key));
      }
    } else {
      // A file named in a path list is read whatever its name ends in.
      if (DebugOn()) {
        Debug("DiscoverManifests: reading file " + item.path.string() + " (from " +
              std::string(item.source) + ")");
      }
      discoverer.Visit(item.path, item.path.native());
    }
  }
  return std::move(discoverer.result());
}

}  // namespace berth::core
