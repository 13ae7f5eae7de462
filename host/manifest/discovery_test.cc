#include "manifest/discovery.hpp"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "log_capture.hpp"
#include "manifest_builder.hpp"
#include "temp_dir.hpp"

namespace berth::core {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::LogCapture;
using testing::ManifestBuilder;
using testing::TempDir;

// An environment made of a map, which records every name asked for.
struct FakeEnv {
  std::map<std::string, std::string> vars;
  std::shared_ptr<std::set<std::string>> asked = std::make_shared<std::set<std::string>>();

  common::EnvReader Reader() const {
    return [vars = vars, asked = asked](const char* name) -> std::optional<std::string> {
      asked->insert(name);
      auto it = vars.find(name);
      if (it == vars.end()) return std::nullopt;
      return it->second;
    };
  }
};

// Options whose environment is `vars` and nothing else.
DiscoveryOptions WithEnv(std::map<std::string, std::string> vars) {
  FakeEnv env;
  env.vars = std::move(vars);
  DiscoveryOptions options;
  options.env = env.Reader();
  return options;
}

// Options that search only what a test sets up: no HOME, and XDG defaults
// pointed at folders that do not exist.
DiscoveryOptions Isolated(const TempDir& dir, std::map<std::string, std::string> vars = {}) {
  std::map<std::string, std::string> isolated = {
      {"XDG_CONFIG_HOME", (dir.path() / "none/config-home").string()},
      {"XDG_CONFIG_DIRS", (dir.path() / "none/config-dirs").string()},
      {"XDG_DATA_DIRS", (dir.path() / "none/data-dirs").string()}};
  for (auto& [name, value] : vars) isolated[name] = value;
  return WithEnv(std::move(isolated));
}

// Writes a plugin manifest for each {name, path under dir}.
void WritePlugins(const TempDir& dir,
                  const std::vector<std::pair<std::string, std::string>>& plugins) {
  for (const auto& [name, path] : plugins) ManifestBuilder::Plugin(name).WriteTo(dir, path);
}

// Discovers only the manifests in dir/d, with the environment `vars` too.
DiscoveryResult DiscoverFolderD(const TempDir& dir, std::map<std::string, std::string> vars = {}) {
  vars["BERTH_PLUGIN_PATH"] = (dir.path() / "d").string();
  return DiscoverManifests(Isolated(dir, std::move(vars)));
}

std::vector<std::string> Names(const DiscoveryResult& result) {
  std::vector<std::string> names;
  for (const ManifestEntry& entry : result.entries) names.push_back(entry.name);
  return names;
}

std::vector<std::string> FileNames(const DiscoveryResult& result) {
  std::vector<std::string> names;
  for (const ManifestEntry& entry : result.entries) names.push_back(entry.path.filename());
  return names;
}

const ManifestEntry* Find(const DiscoveryResult& result, const fs::path& path) {
  for (const ManifestEntry& entry : result.entries) {
    if (entry.path == path) return &entry;
  }
  return nullptr;
}

// -------------------------------------------------------------- search path

TEST(ManifestSearchPathTest, FollowsTheDocumentedOrder) {
  DiscoveryOptions options = WithEnv({{"BERTH_ADD_PLUGIN_PATH", "/add1:/add2/one.json"},
                                      {"XDG_CONFIG_HOME", "/cfg-home"},
                                      {"HOME", "/home/u"},
                                      {"XDG_CONFIG_DIRS", "/cfg1:/cfg2"},
                                      {"XDG_DATA_DIRS", "/data1:/data2"}});
  options.sysconf_dir = "/sysconf";
  options.install_manifest_dir = "/prefix/share/berth/plugins.d";
  options.extra_dirs = {"/extra1", "/extra2"};
  EXPECT_THAT(ManifestSearchPath(options),
              ElementsAre("/add1", "/add2/one.json", "/cfg-home/berth/plugins.d",
                          "/cfg1/berth/plugins.d", "/cfg2/berth/plugins.d",
                          "/sysconf/berth/plugins.d", "/data1/berth/plugins.d",
                          "/data2/berth/plugins.d", "/prefix/share/berth/plugins.d", "/extra1",
                          "/extra2"));
}

TEST(ManifestSearchPathTest, UsesXdgDefaultsWhenVariablesAreUnsetOrEmpty) {
  DiscoveryOptions options =
      WithEnv({{"HOME", "/home/u"}, {"XDG_CONFIG_HOME", ""}, {"XDG_DATA_DIRS", ""}});
  options.sysconf_dir = "/usr/local/etc";
  options.install_manifest_dir = "/opt/berth/share/berth/plugins.d";
  EXPECT_THAT(ManifestSearchPath(options),
              ElementsAre("/home/u/.config/berth/plugins.d", "/etc/xdg/berth/plugins.d",
                          "/usr/local/etc/berth/plugins.d", "/usr/local/share/berth/plugins.d",
                          "/usr/share/berth/plugins.d", "/opt/berth/share/berth/plugins.d"));
}

TEST(ManifestSearchPathTest, OmitsTheUserFolderWithoutHome) {
  DiscoveryOptions options = WithEnv({});
  EXPECT_THAT(ManifestSearchPath(options),
              ElementsAre("/etc/xdg/berth/plugins.d", "/usr/local/share/berth/plugins.d",
                          "/usr/share/berth/plugins.d"));
}

TEST(ManifestSearchPathTest, PluginPathReplacesTheWholeSearch) {
  DiscoveryOptions options = WithEnv({{"BERTH_PLUGIN_PATH", "/only:/also/file.conf"},
                                      {"BERTH_ADD_PLUGIN_PATH", "/add"},
                                      {"HOME", "/home/u"},
                                      {"XDG_CONFIG_DIRS", "/cfg"}});
  options.sysconf_dir = "/sysconf";
  options.install_manifest_dir = "/install";
  options.extra_dirs = {"/extra"};
  EXPECT_THAT(ManifestSearchPath(options), ElementsAre("/only", "/also/file.conf"));
}

TEST(ManifestSearchPathTest, PluginPathListingNothingIsIgnoredAndLogged) {
  LogCapture log;
  DiscoveryOptions options = WithEnv({{"BERTH_PLUGIN_PATH", "::"}, {"XDG_CONFIG_DIRS", "/cfg"}});
  EXPECT_THAT(ManifestSearchPath(options),
              ElementsAre("/cfg/berth/plugins.d", "/usr/local/share/berth/plugins.d",
                          "/usr/share/berth/plugins.d"));
  EXPECT_TRUE(log.Has(LogLevel::kInfo, "BERTH_PLUGIN_PATH is set but lists no path; ignored"))
      << log.All();
}

TEST(ManifestSearchPathTest, IgnoresEmptyComponentsAndSearchesDuplicatesOnce) {
  DiscoveryOptions options =
      WithEnv({{"BERTH_ADD_PLUGIN_PATH", ":/a::/a/:/b/../a:/usr/share/berth/plugins.d/:"},
               {"XDG_CONFIG_DIRS", "/etc/xdg::/etc/xdg"}});
  options.install_manifest_dir = "/usr/local/share/berth/plugins.d";
  EXPECT_THAT(ManifestSearchPath(options),
              ElementsAre("/a", "/usr/share/berth/plugins.d", "/etc/xdg/berth/plugins.d",
                          "/usr/local/share/berth/plugins.d"));
}

TEST(ManifestSearchPathTest, IgnoresRelativeXdgEntriesWithAWarning) {
  LogCapture log;
  DiscoveryOptions options = WithEnv({{"XDG_CONFIG_HOME", "relative/cfg"},
                                      {"HOME", "/home/u"},
                                      {"XDG_CONFIG_DIRS", "etc:/cfg"},
                                      {"XDG_DATA_DIRS", "/data:share"}});
  EXPECT_THAT(ManifestSearchPath(options),
              ElementsAre("/home/u/.config/berth/plugins.d", "/cfg/berth/plugins.d",
                          "/data/berth/plugins.d"));
  EXPECT_TRUE(log.Has(LogLevel::kWarning, "ignoring \"relative/cfg\" in XDG_CONFIG_HOME"));
  EXPECT_TRUE(log.Has(LogLevel::kWarning, "ignoring \"etc\" in XDG_CONFIG_DIRS"));
  EXPECT_TRUE(log.Has(LogLevel::kWarning, "ignoring \"share\" in XDG_DATA_DIRS: XDG base "
                                          "directories must be absolute paths"))
      << log.All();
}

// --------------------------------------------------------------- discovery

TEST(DiscoverManifestsTest, SearchesEverySourceInOrder) {
  TempDir dir;
  std::vector<std::string> order = {"add",  "config_home", "config_dir", "sysconf",
                                    "data", "install",     "extra"};
  WritePlugins(dir, {{"add", "add/a.json"},
                     {"config_home", "home/berth/plugins.d/a.json"},
                     {"config_dir", "xdg/berth/plugins.d/a.json"},
                     {"sysconf", "etc/berth/plugins.d/a.json"},
                     {"data", "share/berth/plugins.d/a.json"},
                     {"install", "install/a.json"},
                     {"extra", "extra/a.json"}});
  DiscoveryOptions options = WithEnv(
      {{"BERTH_ADD_PLUGIN_PATH", (dir.path() / "add").string()},
       {"XDG_CONFIG_HOME", (dir.path() / "home").string()},
       {"XDG_CONFIG_DIRS", (dir.path() / "missing").string() + ":" + (dir.path() / "xdg").string()},
       {"XDG_DATA_DIRS", (dir.path() / "share").string()}});
  options.sysconf_dir = dir.path() / "etc";
  options.install_manifest_dir = dir.path() / "install";
  options.extra_dirs = {dir.path() / "extra"};
  DiscoveryResult result = DiscoverManifests(options);
  EXPECT_EQ(Names(result), order);
  for (const ManifestEntry& entry : result.entries) {
    EXPECT_EQ(entry.status, EntryStatus::kFound) << entry.message;
    EXPECT_TRUE(entry.manifest);
    EXPECT_EQ(entry.reason, "");
  }
  EXPECT_EQ(result.searched, ManifestSearchPath(options));
  EXPECT_EQ(result.searched.size(), 8u);
}

TEST(DiscoverManifestsTest, SortsFilesByByteOrderAndReadsOnlyJsonFilesOfTheFolder) {
  TempDir dir;
  for (const char* name : {"b.json", "a.json", "B.json", "_x.json", "a0.json", "10.json",
                           "9.json", "~.json"}) {
    ManifestBuilder::Plugin(fs::path(name).stem().string() == "~" ? "tilde"
                                                                   : fs::path(name).stem().string())
        .WriteTo(dir, fs::path("d") / name);
  }
  dir.Write("d/notes.txt", "not a manifest");
  dir.Write("d/c.json.bak", "{");
  dir.Write("d/json", "{");
  ManifestBuilder::Plugin("nested").WriteTo(dir, "d/sub/nested.json");
  DiscoveryResult result = DiscoverFolderD(dir);
  EXPECT_THAT(FileNames(result), ElementsAre("10.json", "9.json", "B.json", "_x.json", "a.json",
                                             "a0.json", "b.json", "~.json"));
}

TEST(DiscoverManifestsTest, PathListsAcceptFilesAndFolders) {
  TempDir dir;
  fs::path file = ManifestBuilder::Plugin("single").WriteTo(dir, "elsewhere/single.conf");
  ManifestBuilder::Plugin("in_folder").WriteTo(dir, "folder/x.json");
  std::string list = file.string() + ":" + (dir.path() / "folder").string();
  DiscoveryResult result = DiscoverManifests(Isolated(dir, {{"BERTH_PLUGIN_PATH", list}}));
  EXPECT_THAT(Names(result), ElementsAre("single", "in_folder"));

  result = DiscoverManifests(Isolated(dir, {{"BERTH_ADD_PLUGIN_PATH", list}}));
  EXPECT_THAT(Names(result), ElementsAre("single", "in_folder"));
}

TEST(DiscoverManifestsTest, ReadsAFileListedTwiceOnce) {
  TempDir dir;
  fs::path file = ManifestBuilder::Plugin("cpu").WriteTo(dir, "d/cpu.json");
  std::string list = (dir.path() / "d").string() + ":" + file.string();
  DiscoveryResult result = DiscoverManifests(Isolated(dir, {{"BERTH_PLUGIN_PATH", list}}));
  ASSERT_EQ(result.entries.size(), 1u);
  EXPECT_EQ(result.entries[0].status, EntryStatus::kFound);
}

TEST(DiscoverManifestsTest, FirstOfANameWinsAndLaterOnesAreShadowedAndLogged) {
  LogCapture log;
  TempDir dir;
  fs::path first = ManifestBuilder::Plugin("cpu").WriteTo(dir, "one/cpu.json");
  fs::path second =
      ManifestBuilder::Plugin("cpu").Set("priority", 1000).WriteTo(dir, "two/a-cpu.json");
  std::string list = (dir.path() / "one").string() + ":" + (dir.path() / "two").string();
  DiscoveryResult result = DiscoverManifests(Isolated(dir, {{"BERTH_PLUGIN_PATH", list}}));
  ASSERT_EQ(result.entries.size(), 2u);
  EXPECT_EQ(result.entries[0].path, first);
  EXPECT_EQ(result.entries[0].status, EntryStatus::kFound);
  const ManifestEntry& shadowed = result.entries[1];
  EXPECT_EQ(shadowed.path, second);
  EXPECT_EQ(shadowed.status, EntryStatus::kShadowed);
  EXPECT_EQ(shadowed.reason, reason::kShadowed);
  EXPECT_EQ(shadowed.name, "cpu");
  ASSERT_TRUE(shadowed.manifest);  // still reported in full
  EXPECT_EQ(shadowed.manifest->priority, 1000);
  EXPECT_THAT(shadowed.message,
              HasSubstr("manifest " + second.string() + ": plugin \"cpu\" is shadowed by " +
                        first.string() + ", found earlier in the search path"));
  EXPECT_EQ(log.Count(LogLevel::kInfo, "plugin \"cpu\" is shadowed by " + first.string()), 1)
      << log.All();
}

TEST(DiscoverManifestsTest, ShadowingIsPerKind) {
  TempDir dir;
  ManifestBuilder::Plugin("same").WriteTo(dir, "d/a.json");
  ManifestBuilder::Extension("same").WriteTo(dir, "d/b.json");
  DiscoveryResult result = DiscoverFolderD(dir);
  ASSERT_EQ(result.entries.size(), 2u);
  EXPECT_EQ(result.entries[0].status, EntryStatus::kFound);
  EXPECT_EQ(result.entries[0].kind, ManifestKind::kPlugin);
  EXPECT_EQ(result.entries[1].status, EntryStatus::kFound);
  EXPECT_EQ(result.entries[1].kind, ManifestKind::kExtension);
}

TEST(DiscoverManifestsTest, InvalidManifestsAreSkippedWithAWarningAndDoNotShadow) {
  LogCapture log;
  TempDir dir;
  fs::path bad = dir.Write("d/a-cpu.json", ManifestBuilder::Plugin("cpu").Remove("platform").Text());
  fs::path broken = dir.Write("d/b-broken.json", "{\"file_format_version\": ");
  dir.Mkdir("d/c-folder.json");
  fs::path good = ManifestBuilder::Plugin("cpu").WriteTo(dir, "d/d-cpu.json");
  DiscoveryResult result = DiscoverFolderD(dir);
  ASSERT_EQ(result.entries.size(), 4u);

  const ManifestEntry* e = Find(result, bad);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->status, EntryStatus::kSkipped);
  EXPECT_EQ(e->reason, reason::kMissingField);
  EXPECT_EQ(e->name, "cpu");  // best effort
  EXPECT_FALSE(e->manifest);
  EXPECT_THAT(e->message, HasSubstr("\"platform\" is missing from \"plugin\""));
  EXPECT_TRUE(log.Has(LogLevel::kWarning, "manifest " + bad.string() + ": \"platform\" is missing"))
      << log.All();

  e = Find(result, broken);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->status, EntryStatus::kSkipped);
  EXPECT_EQ(e->reason, reason::kInvalidJson);
  EXPECT_EQ(e->name, "");

  e = Find(result, dir.path() / "d/c-folder.json");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->reason, reason::kNotAFile);

  e = Find(result, good);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->status, EntryStatus::kFound) << e->message;
  EXPECT_EQ(log.Count(LogLevel::kWarning, "manifest "), 3) << log.All();
}

TEST(DiscoverManifestsTest, DisableGlobsMarkMatchingManifestsDisabled) {
  LogCapture log;
  TempDir dir;
  ManifestBuilder::Plugin("cpu").WriteTo(dir, "d/1.json");
  fs::path cuda = ManifestBuilder::Plugin("cuda_12").WriteTo(dir, "d/2.json");
  ManifestBuilder::Plugin("test_a").WriteTo(dir, "d/3.json");
  ManifestBuilder::Plugin("test_ab").WriteTo(dir, "d/4.json");
  ManifestBuilder::Extension("ffi_math").WriteTo(dir, "d/5.json");
  DiscoveryResult result = DiscoverManifests(
      Isolated(dir, {{"BERTH_PLUGIN_PATH", (dir.path() / "d").string()},
                     {"BERTH_PLUGINS_DISABLE", " cu* ,test_?,,ffi_math"}}));
  ASSERT_EQ(result.entries.size(), 5u);
  std::vector<EntryStatus> statuses;
  for (const ManifestEntry& e : result.entries) statuses.push_back(e.status);
  EXPECT_THAT(statuses, ElementsAre(EntryStatus::kFound, EntryStatus::kDisabled,
                                    EntryStatus::kDisabled, EntryStatus::kFound,
                                    EntryStatus::kDisabled));
  const ManifestEntry& e = result.entries[1];
  EXPECT_EQ(e.reason, reason::kDisabled);
  ASSERT_TRUE(e.manifest);
  EXPECT_EQ(e.message, "manifest " + cuda.string() +
                           ": plugin \"cuda_12\" is disabled by BERTH_PLUGINS_DISABLE (glob "
                           "\"cu*\"). Not loaded.");
  EXPECT_THAT(result.entries[2].message, HasSubstr("(glob \"test_?\")"));
  EXPECT_THAT(result.entries[4].message, HasSubstr("extension \"ffi_math\" is disabled"));
  EXPECT_TRUE(log.Has(LogLevel::kInfo, "plugin \"cuda_12\" is disabled by BERTH_PLUGINS_DISABLE"))
      << log.All();
}

TEST(DiscoverManifestsTest, SelectDisablesEveryPluginNotMatchingButKeepsExtensions) {
  TempDir dir;
  ManifestBuilder::Plugin("cpu").WriteTo(dir, "d/1.json");
  ManifestBuilder::Plugin("cuda").WriteTo(dir, "d/2.json");
  ManifestBuilder::Plugin("rocm").WriteTo(dir, "d/3.json");
  ManifestBuilder::Extension("ffi_math").WriteTo(dir, "d/4.json");
  DiscoveryResult result = DiscoverFolderD(dir, {{"BERTH_PLUGINS_SELECT", "cpu,c?da"}});
  ASSERT_EQ(result.entries.size(), 4u);
  EXPECT_EQ(result.entries[0].status, EntryStatus::kFound);
  EXPECT_EQ(result.entries[1].status, EntryStatus::kFound);
  EXPECT_EQ(result.entries[2].status, EntryStatus::kDisabled);
  EXPECT_EQ(result.entries[2].reason, reason::kDisabled);
  EXPECT_THAT(result.entries[2].message,
              HasSubstr("plugin \"rocm\" is not selected by BERTH_PLUGINS_SELECT (globs "
                        "\"cpu,c?da\")"));
  EXPECT_EQ(result.entries[3].status, EntryStatus::kFound);
}

TEST(DiscoverManifestsTest, DisableAppliesBeforeSelect) {
  TempDir dir;
  ManifestBuilder::Plugin("cpu").WriteTo(dir, "d/1.json");
  ManifestBuilder::Plugin("cpu_debug").WriteTo(dir, "d/2.json");
  DiscoveryResult result =
      DiscoverFolderD(dir, {{"BERTH_PLUGINS_SELECT", "cpu*"}, {"BERTH_PLUGINS_DISABLE", "*debug"}});
  ASSERT_EQ(result.entries.size(), 2u);
  EXPECT_EQ(result.entries[0].status, EntryStatus::kFound);
  EXPECT_EQ(result.entries[1].status, EntryStatus::kDisabled);
  EXPECT_THAT(result.entries[1].message, HasSubstr("BERTH_PLUGINS_DISABLE (glob \"*debug\")"));
}

TEST(DiscoverManifestsTest, DisabledManifestsDoNotShadow) {
  // Filters apply before shadowing: both copies are reported disabled, and
  // neither is reported as shadowing the other.
  TempDir dir;
  ManifestBuilder::Plugin("cpu").WriteTo(dir, "one/cpu.json");
  ManifestBuilder::Plugin("cpu").WriteTo(dir, "two/cpu.json");
  std::string list = (dir.path() / "one").string() + ":" + (dir.path() / "two").string();
  DiscoveryResult result = DiscoverManifests(
      Isolated(dir, {{"BERTH_PLUGIN_PATH", list}, {"BERTH_PLUGINS_DISABLE", "cpu"}}));
  ASSERT_EQ(result.entries.size(), 2u);
  EXPECT_EQ(result.entries[0].status, EntryStatus::kDisabled);
  EXPECT_EQ(result.entries[1].status, EntryStatus::kDisabled);
}

TEST(DiscoverManifestsTest, EmptyFilterVariablesAreIgnoredAndLogged) {
  LogCapture log;
  TempDir dir;
  ManifestBuilder::Plugin("cpu").WriteTo(dir, "d/1.json");
  DiscoveryResult result = DiscoverFolderD(dir, {{"BERTH_PLUGINS_SELECT", " , "}});
  ASSERT_EQ(result.entries.size(), 1u);
  EXPECT_EQ(result.entries[0].status, EntryStatus::kFound);
  EXPECT_TRUE(log.Has(LogLevel::kInfo, "BERTH_PLUGINS_SELECT is set but lists no glob; ignored"))
      << log.All();
}

TEST(DiscoverManifestsTest, SkipsMissingFoldersQuietlyAndLogsSearchedFoldersAtDebug) {
  LogCapture log;
  TempDir dir;
  ManifestBuilder::Plugin("cpu").WriteTo(dir, "d/1.json");
  fs::path missing = dir.path() / "does-not-exist";
  std::string list = missing.string() + ":" + (dir.path() / "d").string();
  DiscoveryResult result = DiscoverManifests(Isolated(dir, {{"BERTH_PLUGIN_PATH", list}}));
  ASSERT_EQ(result.entries.size(), 1u);
  EXPECT_THAT(result.searched, ElementsAre(missing, dir.path() / "d"));
  EXPECT_TRUE(log.Has(LogLevel::kDebug, missing.string() + " (from BERTH_PLUGIN_PATH) does not "
                                                            "exist; skipped"))
      << log.All();
  EXPECT_TRUE(log.Has(LogLevel::kDebug, "searching folder " + (dir.path() / "d").string() +
                                            " (from BERTH_PLUGIN_PATH)"))
      << log.All();
  EXPECT_EQ(log.Count(LogLevel::kWarning, ""), 0) << log.All();
  EXPECT_EQ(log.Count(LogLevel::kError, ""), 0) << log.All();
}

TEST(DiscoverManifestsTest, UnlistableFolderIsSkippedWithAWarning) {
  if (::geteuid() == 0) GTEST_SKIP() << "root lists folders whatever their permissions";
  LogCapture log;
  TempDir dir;
  ManifestBuilder::Plugin("cpu").WriteTo(dir, "locked/1.json");
  ManifestBuilder::Plugin("gpu").WriteTo(dir, "open/1.json");
  fs::permissions(dir.path() / "locked", fs::perms::none);
  std::string list = (dir.path() / "locked").string() + ":" + (dir.path() / "open").string();
  DiscoveryResult result = DiscoverManifests(Isolated(dir, {{"BERTH_PLUGIN_PATH", list}}));
  EXPECT_THAT(Names(result), ElementsAre("gpu"));
  EXPECT_TRUE(log.Has(LogLevel::kWarning, "cannot list folder " + (dir.path() / "locked").string()))
      << log.All();
}

TEST(DiscoverManifestsTest, ReadsEnvironmentOnlyThroughTheEnvReader) {
  TempDir dir;
  ManifestBuilder::Plugin("from_process").WriteTo(dir, "process/1.json");
  ManifestBuilder::Plugin("from_reader").WriteTo(dir, "reader/1.json");
  ASSERT_EQ(::setenv("BERTH_PLUGIN_PATH", (dir.path() / "process").c_str(), 1), 0);
  FakeEnv env;
  env.vars = {{"BERTH_ADD_PLUGIN_PATH", (dir.path() / "reader").string()},
              {"XDG_CONFIG_DIRS", (dir.path() / "none").string()},
              {"XDG_DATA_DIRS", (dir.path() / "none").string()}};
  DiscoveryOptions options;
  options.env = env.Reader();
  DiscoveryResult result = DiscoverManifests(options);
  ::unsetenv("BERTH_PLUGIN_PATH");
  EXPECT_THAT(Names(result), ElementsAre("from_reader"));
  EXPECT_EQ(*env.asked,
            (std::set<std::string>{"BERTH_PLUGIN_PATH", "BERTH_ADD_PLUGIN_PATH", "XDG_CONFIG_HOME",
                                   "HOME", "XDG_CONFIG_DIRS", "XDG_DATA_DIRS",
                                   "BERTH_PLUGINS_DISABLE", "BERTH_PLUGINS_SELECT"}));
}

TEST(DiscoverManifestsTest, OnlyManifestsAreTheWholeSearchPathButFiltersStillApply) {
  TempDir dir;
  WritePlugins(dir, {{"env_path", "env/1.json"},
                     {"env_added", "added/1.json"},
                     {"extra", "extra/1.json"},
                     {"named_file", "only/file.manifest"},
                     {"in_folder", "only_dir/1.json"},
                     {"disabled", "only_dir/2.json"}});
  DiscoveryOptions options = Isolated(dir, {{"BERTH_PLUGIN_PATH", (dir.path() / "env").string()},
                                            {"BERTH_ADD_PLUGIN_PATH", (dir.path() / "added").string()},
                                            {"BERTH_PLUGINS_DISABLE", "disabled"}});
  options.extra_dirs = {dir.path() / "extra"};
  options.install_manifest_dir = dir.path() / "extra";
  options.only = {dir.path() / "only/file.manifest", dir.path() / "only_dir"};
  DiscoveryResult result = DiscoverManifests(options);
  EXPECT_THAT(result.searched, ElementsAre(dir.path() / "only/file.manifest", dir.path() / "only_dir"));
  EXPECT_THAT(Names(result), ElementsAre("named_file", "in_folder", "disabled"));
  EXPECT_EQ(result.entries[0].status, EntryStatus::kFound);
  EXPECT_EQ(result.entries[1].status, EntryStatus::kFound);
  const ManifestEntry* disabled = Find(result, dir.path() / "only_dir/2.json");
  ASSERT_NE(disabled, nullptr);
  EXPECT_EQ(disabled->status, EntryStatus::kDisabled);
}

TEST(DiscoverManifestsTest, DefaultOptionsReadTheProcessEnvironmentWithSecureGetenv) {
  // DiscoveryOptions{}.env is ProcessEnv(), i.e. GetEnv/secure_getenv; this
  // test process is not set-uid, so the variable is honoured.
  TempDir dir;
  ManifestBuilder::Plugin("from_process").WriteTo(dir, "process/1.json");
  ASSERT_EQ(::setenv("BERTH_PLUGIN_PATH", (dir.path() / "process").c_str(), 1), 0);
  DiscoveryResult result = DiscoverManifests(DiscoveryOptions{});
  ::unsetenv("BERTH_PLUGIN_PATH");
  EXPECT_THAT(Names(result), ElementsAre("from_process"));
  EXPECT_EQ(common::GetEnv("BERTH_PLUGIN_PATH"), std::nullopt);
}

TEST(DiscoverManifestsTest, EmptyEnvReaderFallsBackToTheProcessEnvironment) {
  TempDir dir;
  ManifestBuilder::Plugin("p").WriteTo(dir, "process/1.json");
  ASSERT_EQ(::setenv("BERTH_PLUGIN_PATH", (dir.path() / "process").c_str(), 1), 0);
  DiscoveryOptions options;
  options.env = nullptr;
  DiscoveryResult result = DiscoverManifests(options);
  ::unsetenv("BERTH_PLUGIN_PATH");
  EXPECT_THAT(Names(result), ElementsAre("p"));
}

TEST(DiscoverManifestsTest, DiscoversAThousandManifestsInNameOrder) {
  // Speed is measured by BM_DiscoverManifests in bench/; this checks the result.
  TempDir dir;
  for (int i = 0; i < 1000; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "plugin_%04d", i);
    ManifestBuilder::Plugin(name)
        .Set("library_path", std::string("../lib/lib") + name + ".so")
        .Set("description", "A test backend")
        .Set("priority", i)
        .Set("create_options", {{"device_count", 4}})
        .WriteTo(dir, fs::path("d") / (std::string(name) + ".json"));
  }
  DiscoveryOptions options = Isolated(dir, {{"BERTH_PLUGIN_PATH", (dir.path() / "d").string()}});
  DiscoveryResult result = DiscoverManifests(options);
  ASSERT_EQ(result.entries.size(), 1000u);
  for (const ManifestEntry& e : result.entries) ASSERT_EQ(e.status, EntryStatus::kFound);
  EXPECT_EQ(result.entries.front().name, "plugin_0000");
  EXPECT_EQ(result.entries.back().name, "plugin_0999");
}

TEST(EntryStatusTest, HasStableNames) {
  EXPECT_EQ(EntryStatusName(EntryStatus::kFound), "found");
  EXPECT_EQ(EntryStatusName(EntryStatus::kSkipped), "skipped");
  EXPECT_EQ(EntryStatusName(EntryStatus::kShadowed), "shadowed");
  EXPECT_EQ(EntryStatusName(EntryStatus::kDisabled), "disabled");
  EXPECT_EQ(ManifestKindName(ManifestKind::kPlugin), "plugin");
  EXPECT_EQ(ManifestKindName(ManifestKind::kExtension), "extension");
}

}  // namespace
}  // namespace berth::core
