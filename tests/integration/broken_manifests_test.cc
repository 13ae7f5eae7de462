// A folder mixing one good manifest with every kind of broken one is survived
// by `berth plugins --json --load` (each broken one listed as skipped with a
// reason and a message; the good one loads), and `berth validate` rejects
// each broken one with the same reason, also those only opening the library
// shows, and survives a library that crashes or hangs when opened. Runs the
// real `berth` binary.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <map>

#include "test_util.hpp"

namespace berth {
namespace {

using ::testing::HasSubstr;
using testing::FixtureManifest;
using testing::PluginManifest;
using testing::RunCommand;
using testing::ShellQuote;

struct Broken {
  std::string file;      // manifest file name in the folder
  std::string reason;    // expected reason code
  bool manifest_level;   // rejected by `berth validate` (vs. only when loading)
};

class BrokenManifestsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string good = testing::FixturePath("good").string();
    dir_.Write("00-good.json", FixtureManifest("good", "good"));
    dir_.Write("empty.json", "");
    dir_.Write("truncated.json", PluginManifest("trunc", good).substr(0, 40));
    dir_.Write("wrong-types.json",
               R"({"file_format_version": "1.0.0", "plugin": {"name": 7, "library_path": true,
                   "api_version": 1.0, "platform": ["cpu"]}})");
    dir_.Write("missing-library.json",
               R"({"file_format_version": "1.0.0", "plugin": {"name": "nolib",
                   "api_version": "1.0", "platform": "x"}})");
    dir_.Write("format-major.json",
               R"({"file_format_version": "9.0.0", "plugin": {"name": "future",
                   "library_path": "x.so", "api_version": "1.0", "platform": "x"}})");
    dir_.Write("deep.json", std::string(100000, '[') + std::string(100000, ']'));
    dir_.Write("bad-utf8.json", "{\"file_format_version\": \"1.0.0\", \"plugin\": {\"name\": \"\xff\xfe\"}}");
    std::filesystem::create_directories(dir_ / "folder.json");
    dir_.Write("absent-lib.json", PluginManifest("absent", (dir_ / "absent.so").string()));
    dir_.Write("not-elf.json", PluginManifest("notelf", dir_.Write("libnotelf.so", "text").string()));
    dir_.Write("no-entry.json", FixtureManifest("noentry", "no_entry"));
    dir_.Write("null-table.json",
               FixtureManifest("nulltable", "null_table"));
    dir_.Write("other-major.json",
               FixtureManifest("major", "other_major"));
    dir_.Write("sha-mismatch.json",
               PluginManifest("pinned", good, {{"sha256", std::string(64, '0')}}));
    dir_.Write("declared-99.json", PluginManifest("future_abi", good, {{"api_version", "99.0"}}));
    dir_.Write("init-fails.json",
               FixtureManifest("initfails", "init_fails"));
  }

  testing::TempDir dir_;
  const std::vector<Broken> broken_ = {
      {"empty.json", "empty", true},
      {"truncated.json", "invalid_json", true},
      {"wrong-types.json", "wrong_type", true},
      {"missing-library.json", "missing_field", true},
      {"format-major.json", "unsupported_file_format", true},
      {"deep.json", "too_deep", true},
      {"bad-utf8.json", "invalid_utf8", true},
      {"folder.json", "not_a_file", true},
      {"absent-lib.json", "library_not_found", false},
      {"not-elf.json", "library_load_failed", false},
      {"no-entry.json", "no_entry_symbol", false},
      {"null-table.json", "null_api_table", false},
      {"other-major.json", "abi_major_mismatch", false},
      {"sha-mismatch.json", "sha256_mismatch", false},
      {"declared-99.json", "declared_abi_unsupported", false},
      {"init-fails.json", "initialize_failed", false},
  };
};

TEST_F(BrokenManifestsTest, PluginsListsEveryBrokenOneAndLoadsTheGoodOne) {
  testing::CommandResult result = RunCommand(
      "BERTH_PLUGIN_PATH=" + ShellQuote(dir_.path().string()) + " " + BERTH_EXE +
      " plugins --json --load 2>/dev/null");
  ASSERT_EQ(result.exit_code, 0) << result.out;
  nlohmann::json report = nlohmann::json::parse(result.out);
  std::map<std::string, nlohmann::json> by_file;
  for (const nlohmann::json& entry : report["plugins"]) {
    by_file[std::filesystem::path(entry["manifest"].get<std::string>()).filename()] = entry;
  }
  ASSERT_TRUE(by_file.count("00-good.json"));
  EXPECT_EQ(by_file["00-good.json"]["status"], "ok");
  EXPECT_EQ(by_file["00-good.json"]["negotiated_version"], "1.3");
  for (const Broken& b : broken_) {
    SCOPED_TRACE(b.file);
    ASSERT_TRUE(by_file.count(b.file)) << "not listed";
    const nlohmann::json& entry = by_file[b.file];
    EXPECT_EQ(entry["status"], "skipped");
    EXPECT_EQ(entry["reason"], b.reason);
    ASSERT_TRUE(entry.contains("message"));
    EXPECT_THAT(entry["message"].get<std::string>(), HasSubstr(b.file));
  }
  EXPECT_EQ(by_file.size(), broken_.size() + 1);
}

TEST_F(BrokenManifestsTest, ValidateRejectsEachProblemWithTheLoadersReason) {
  for (const Broken& b : broken_) {
    SCOPED_TRACE(b.file);
    testing::CommandResult result = RunCommand(std::string(BERTH_EXE) + " validate " +
                                               ShellQuote((dir_ / b.file).string()) + " 2>&1");
    EXPECT_EQ(result.exit_code, 1) << result.out;
    EXPECT_THAT(result.out, HasSubstr("[" + b.reason + "]"));
    EXPECT_THAT(result.out, HasSubstr(b.file));
  }
  testing::CommandResult good = RunCommand(std::string(BERTH_EXE) + " validate " +
                                           ShellQuote((dir_ / "00-good.json").string()));
  EXPECT_EQ(good.exit_code, 0) << good.out;
  EXPECT_THAT(good.out, HasSubstr("ok (plugin 'good', ABI 1.3 negotiated)"));
}

TEST_F(BrokenManifestsTest, ValidateOfTheFolderSaysWhatTheLoaderSays) {
  testing::CommandResult loaded = RunCommand(
      "BERTH_PLUGIN_PATH=" + ShellQuote(dir_.path().string()) + " " + BERTH_EXE +
      " plugins --json --load 2>/dev/null");
  testing::CommandResult validated = RunCommand(std::string(BERTH_EXE) + " validate --json " +
                                                ShellQuote(dir_.path().string()) + " 2>/dev/null");
  ASSERT_EQ(loaded.exit_code, 0) << loaded.out;
  EXPECT_EQ(validated.exit_code, 1);
  const nlohmann::json loader_report = nlohmann::json::parse(loaded.out);
  const nlohmann::json validate_report = nlohmann::json::parse(validated.out);
  std::map<std::string, std::string> loader;  // file -> reason ("" when loaded)
  for (const nlohmann::json& entry : loader_report["plugins"]) {
    loader[std::filesystem::path(entry["manifest"].get<std::string>()).filename()] =
        entry["status"] == "ok" ? "" : entry["reason"].get<std::string>();
  }
  std::map<std::string, std::string> validate;
  for (const nlohmann::json& entry : validate_report["manifests"]) {
    validate[std::filesystem::path(entry["file"].get<std::string>()).filename()] =
        entry["valid"] ? "" : entry["reason"].get<std::string>();
  }
  // The folder named `folder.json` is skipped by discovery and refused by
  // validate alike; every other file is judged the same way by both.
  EXPECT_EQ(validate, loader);
  EXPECT_EQ(validate.size(), broken_.size() + 1) << validated.out;
}

TEST_F(BrokenManifestsTest, ManifestOnlyValidationDoesNotOpenLibraries) {
  for (const Broken& b : broken_) {
    SCOPED_TRACE(b.file);
    testing::CommandResult result = RunCommand(std::string(BERTH_EXE) + " validate --manifest-only " +
                                               ShellQuote((dir_ / b.file).string()) + " 2>&1");
    EXPECT_EQ(result.exit_code, b.manifest_level ? 1 : 0) << result.out;
    if (!b.manifest_level) {
      EXPECT_THAT(result.out, HasSubstr("library not opened"));
    }
  }
}

// A manifest whose "platform" is not what the plugin's client reports loads
// (nothing tells before a client exists) but is refused with its own reason
// by `berth validate` and when a client is made, after which `berth
// plugins` lists it as skipped; the message says what to write instead.
TEST_F(BrokenManifestsTest, ManifestOfAnotherPlatformIsRefusedWithPlatformMismatch) {
  testing::TempDir dir;
  const std::string manifest =
      dir.Write("wrong-platform.json",
                PluginManifest("wrongplatform", testing::FixturePath("good").string(),
                               {{"platform", "gpu"}}))
          .string();
  testing::CommandResult validated =
      RunCommand(std::string(BERTH_EXE) + " validate " + ShellQuote(manifest) + " 2>&1");
  EXPECT_EQ(validated.exit_code, 1) << validated.out;
  EXPECT_THAT(validated.out, HasSubstr("[platform_mismatch]"));
  EXPECT_THAT(validated.out, HasSubstr("the manifest says platform 'gpu' but the plugin's "
                                       "client reports 'fixture'"));
  EXPECT_THAT(validated.out, HasSubstr("set \"platform\": \"fixture\""));

  // `berth info` makes a client: refused, then listed as skipped.
  testing::CommandResult info =
      RunCommand("BERTH_PLUGIN_PATH=" + ShellQuote(manifest) + " " + BERTH_EXE +
                 " info wrongplatform 2>&1");
  EXPECT_NE(info.exit_code, 0) << info.out;
  EXPECT_THAT(info.out, HasSubstr("platform 'gpu'"));
}

// A library that aborts or hangs in its initialization ends or stalls the
// child that opened it; validate names it and goes on with the next file.
TEST_F(BrokenManifestsTest, ValidateSurvivesALibraryThatCrashesOrHangsWhenOpened) {
  const std::string misbehaves = testing::FixturePath("misbehaves").string();
  const std::string manifest = dir_.Write("misbehaves.json", FixtureManifest("bad", "misbehaves")).string();
  const std::string good = (dir_ / "00-good.json").string();
  testing::CommandResult crashed =
      RunCommand("BERTH_FIXTURE_MISBEHAVE=abort_at_initialize " + std::string(BERTH_EXE) +
                 " validate " + ShellQuote(manifest) + " " + ShellQuote(good) + " 2>&1");
  EXPECT_EQ(crashed.exit_code, 1) << crashed.out;
  EXPECT_THAT(crashed.out, HasSubstr("[load_crashed]"));
  EXPECT_THAT(crashed.out, HasSubstr("signal 6 (SIGABRT)"));
  EXPECT_THAT(crashed.out, HasSubstr("00-good.json: ok"));
  auto start = std::chrono::steady_clock::now();
  testing::CommandResult hung =
      RunCommand("BERTH_FIXTURE_MISBEHAVE=hang_at_initialize " + std::string(BERTH_EXE) +
                 " validate --timeout 2 " + ShellQuote(manifest) + " " + ShellQuote(good) + " 2>&1");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_EQ(hung.exit_code, 1) << hung.out;
  EXPECT_THAT(hung.out, HasSubstr("[load_timeout]"));
  EXPECT_THAT(hung.out, HasSubstr("00-good.json: ok"));
}

TEST_F(BrokenManifestsTest, ValidateExitsOneWhenAnyFileIsInvalid) {
  testing::CommandResult result = RunCommand(
      std::string(BERTH_EXE) + " validate " + ShellQuote((dir_ / "00-good.json").string()) + " " +
      ShellQuote((dir_ / "empty.json").string()) + " 2>/dev/null");
  EXPECT_EQ(result.exit_code, 1);
}

TEST(CommandLineTest, UsageErrorsExitTwo) {
  EXPECT_EQ(RunCommand(std::string(BERTH_EXE) + " 2>/dev/null").exit_code, 2);
  EXPECT_EQ(RunCommand(std::string(BERTH_EXE) + " frobnicate 2>/dev/null").exit_code, 2);
  EXPECT_EQ(RunCommand(std::string(BERTH_EXE) + " plugins --nope 2>/dev/null").exit_code, 2);
  EXPECT_EQ(RunCommand(std::string(BERTH_EXE) + " validate 2>/dev/null").exit_code, 2);
}

TEST(CommandLineTest, HelpAndVersionExitZero) {
  testing::CommandResult version = RunCommand(std::string(BERTH_EXE) + " --version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_THAT(version.out, HasSubstr("plugin ABI 1.3"));
  for (const char* command : {"plugins", "info", "validate"}) {
    testing::CommandResult help = RunCommand(std::string(BERTH_EXE) + " " + command + " --help");
    EXPECT_EQ(help.exit_code, 0) << command;
    EXPECT_THAT(help.out, HasSubstr("usage: berth " + std::string(command)));
  }
}

TEST(CommandLineTest, BuildTreeBerthFindsTheBundledCpuPluginWithNoEnvironment) {
  testing::CommandResult result = RunCommand(
      "env -u BERTH_PLUGIN_PATH -u BERTH_ADD_PLUGIN_PATH " + std::string(BERTH_EXE) +
      " plugins --json --load");
  ASSERT_EQ(result.exit_code, 0);
  nlohmann::json report = nlohmann::json::parse(result.out);
  bool found = false;
  for (const nlohmann::json& entry : report["plugins"]) {
    if (entry["name"] == "cpu" && entry["status"] == "ok") {
      found = true;
      EXPECT_EQ(entry["negotiated_version"], "1.3");
    }
  }
  EXPECT_TRUE(found) << result.out;
}

}  // namespace
}  // namespace berth
