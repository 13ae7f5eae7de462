// `berth conformance` on plugins of known behaviour: the cpu plugin and the
// `good` fixture pass; the `older_minor` fixture (a table of an older ABI
// minor) passes what applies to it and skips the rest; the `throws` fixture
// fails, and so does the leak check on the `leaks` fixture; bad arguments
// are usage errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_util.hpp"

namespace berth {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

class ConformanceTest : public ::testing::Test {
 protected:
  // Runs the suite on a manifest written for `library`; the JSON report.
  // Fixture plugins export a test hook besides BERTH_GetApi on purpose, so
  // their runs expect library.exports_only_get_api to fail (--expect).
  nlohmann::json Run(const std::string& name, const std::string& library, int expected_exit,
                     const std::string& flags = "") {
    const bool cpu = library == BERTH_CPU_PLUGIN;
    const std::string platform = cpu ? "cpu" : testing::kFixturePlatform;
    const std::filesystem::path manifest = dir_.Write(
        name + ".json", testing::PluginManifest(name, library, {{"platform", platform}}));
    std::string expect;
    if (!cpu) {
      expect = " --expect " +
               dir_.Write("fixture-expect.json", R"({"library.exports_only_get_api": "fail"})")
                   .string();
    }
    testing::CommandResult result =
        testing::RunCommand(std::string(BERTH_EXE) + " conformance --json " + flags + expect +
                            " --manifest " + manifest.string());
    EXPECT_EQ(result.exit_code, expected_exit) << result.out;
    nlohmann::json report = nlohmann::json::parse(result.out, nullptr, false);
    EXPECT_FALSE(report.is_discarded()) << result.out;
    return report;
  }

  static std::string ResultOf(const nlohmann::json& report, const std::string& check) {
    for (const nlohmann::json& result : report["results"]) {
      if (result["name"] == check) return result["result"];
    }
    return "absent";
  }

  testing::TempDir dir_;
};

// One run of the whole suite on the cpu plugin (the longest run here: 20 s
// under the sanitizers), so every check of it reads the same report.
TEST_F(ConformanceTest, CpuPluginPassesEveryCheckAndExportsOnlyGetApi) {
  nlohmann::json report = Run("cpu", BERTH_CPU_PLUGIN, 0);
  EXPECT_EQ(report["passed"], true);
  EXPECT_EQ(report["summary"]["fail"], 0);
  EXPECT_EQ(report["summary"]["skip"], 0);
  EXPECT_EQ(report["summary"]["unsupported"], 0);
  EXPECT_EQ(report["negotiated_version"], "1.3");
  for (const char* check :
       {"abi.smaller_struct_rejected", "buffer.round_trip.f32", "buffer.round_trip.bf16",
        "execute.concurrent", "execute.reduce", "objects.none_leaked",
        "client.reserved_options_accepted", "library.exports_only_get_api", "attributes.well_known",
        "execute.outputs_as_reported", "execute.wrong_argument_type_refused",
        "execute.wrong_argument_shape_refused"}) {
    EXPECT_EQ(ResultOf(report, check), "pass") << check;
  }
  // Every element type it lists runs a program, bit-exact.
  for (const char* type : {"pred", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64", "f16",
                           "bf16", "f32", "f64"}) {
    EXPECT_EQ(ResultOf(report, "execute.add." + std::string(type)), "pass") << type;
  }
  testing::CommandResult info = testing::RunCommand(
      "BERTH_PLUGIN_PATH=" + (dir_ / "cpu.json").string() + " " + BERTH_EXE + " info cpu");
  EXPECT_THAT(info.out, HasSubstr(", 1 device\n"));  // not "1 devices"
  EXPECT_THAT(info.out, Not(HasSubstr("warning:")));
}

TEST_F(ConformanceTest, FixturePluginPassesAndHasNoLeakedObjects) {
  nlohmann::json report = Run("good", testing::FixturePath("good").string(), 0);
  EXPECT_EQ(ResultOf(report, "objects.none_leaked"), "pass");
  // It compiles no StableHLO: unsupported, naming the format, not a failure.
  EXPECT_EQ(ResultOf(report, "compile.stablehlo"), "unsupported");
  EXPECT_EQ(ResultOf(report, "execute.concurrent"), "unsupported");
  EXPECT_EQ(ResultOf(report, "execute.add.i32"), "unsupported");
  EXPECT_EQ(ResultOf(report, "library.exports_only_get_api"), "fail");  // its test hook
  EXPECT_TRUE(report["unexpected"].empty()) << report["unexpected"];
  EXPECT_GT(report["summary"]["unsupported"].get<int>(), 10);
}

TEST_F(ConformanceTest, OlderMinorPluginPassesWhatAppliesAndSkipsTheRest) {
  nlohmann::json report = Run("older", testing::FixturePath("older_minor").string(), 0);
  EXPECT_EQ(report["passed"], true);
  EXPECT_EQ(ResultOf(report, "client.devices"), "pass");
  EXPECT_EQ(ResultOf(report, "buffer.delete"), "pass");
  EXPECT_EQ(ResultOf(report, "buffer.round_trip"), "skip");  // no ToHostBuffer in its table
  EXPECT_EQ(ResultOf(report, "event.ready_await_on_ready"), "skip");
  EXPECT_EQ(ResultOf(report, "objects.none_leaked"), "skip");  // live_objects is 1.1
  EXPECT_EQ(report["negotiated_version"], "1.0");
  EXPECT_GT(report["summary"]["skip"].get<int>(), 1);
}

TEST_F(ConformanceTest, PluginThatKeepsBuffersFailsTheLeakCheckNamingThem) {
  nlohmann::json report = Run("leaks", testing::FixturePath("leaks").string(), 1);
  EXPECT_EQ(report["passed"], false);
  ASSERT_EQ(report["unexpected"].size(), 1u) << report["unexpected"];
  EXPECT_EQ(report["unexpected"][0]["name"], "objects.none_leaked");
  for (const nlohmann::json& result : report["results"]) {
    if (result["name"] != "objects.none_leaked") continue;
    EXPECT_EQ(result["result"], "fail");
    EXPECT_THAT(result["message"].get<std::string>(),
                AllOf(HasSubstr("still alive"), HasSubstr("buffers")));
  }
}

// A plugin that kills or hangs its process: the suite runs in a child, so
// `berth conformance` itself survives and reports the checks before it.
TEST_F(ConformanceTest, PluginThatAbortsIsReportedAsAFailedCheckNamingTheSignal) {
  ::setenv("BERTH_FIXTURE_MISBEHAVE", "abort", 1);
  nlohmann::json report = Run("misbehaves", testing::FixturePath("misbehaves").string(), 1);
  ::unsetenv("BERTH_FIXTURE_MISBEHAVE");
  EXPECT_EQ(report["passed"], false);
  EXPECT_EQ(report["plugin"], "misbehaves");
  EXPECT_EQ(ResultOf(report, "client.devices"), "pass");  // ran before the crash
  ASSERT_EQ(ResultOf(report, "suite.finished"), "fail");
  const nlohmann::json& last = report["results"].back();
  EXPECT_EQ(last["name"], "suite.finished");
  EXPECT_THAT(last["message"].get<std::string>(),
              AllOf(HasSubstr("signal 6 (SIGABRT)"), HasSubstr("after check '")));
}

TEST_F(ConformanceTest, PluginThatHangsIsStoppedAfterTheTimeout) {
  ::setenv("BERTH_FIXTURE_MISBEHAVE", "hang", 1);
  nlohmann::json report =
      Run("misbehaves", testing::FixturePath("misbehaves").string(), 1, "--timeout 2");
  ::unsetenv("BERTH_FIXTURE_MISBEHAVE");
  EXPECT_EQ(report["passed"], false);
  EXPECT_EQ(ResultOf(report, "suite.finished"), "fail");
  EXPECT_THAT(report["results"].back()["message"].get<std::string>(),
              AllOf(HasSubstr("no check ended for 2 s"), HasSubstr("killed")));
}

TEST_F(ConformanceTest, WellBehavedRunOfTheMisbehavingFixturePassesInAndOutOfProcess) {
  nlohmann::json isolated = Run("misbehaves", testing::FixturePath("misbehaves").string(), 0);
  nlohmann::json in_process =
      Run("misbehaves", testing::FixturePath("misbehaves").string(), 0, "--in-process");
  EXPECT_EQ(isolated["results"], in_process["results"]);
  EXPECT_EQ(isolated["negotiated_version"], in_process["negotiated_version"]);
  EXPECT_EQ(ResultOf(isolated, "suite.finished"), "absent");
}

TEST_F(ConformanceTest, MisbehavingPluginFails) {
  nlohmann::json report = Run("throws", testing::FixturePath("throws").string(), 1);
  EXPECT_EQ(report["passed"], false);
  EXPECT_GT(report["summary"]["fail"].get<int>(), 0);
}

// A plugin that lists ops in "supported_ops" is held to the list.
TEST_F(ConformanceTest, PluginClaimingOpsItDoesNotRunFails) {
  nlohmann::json report = Run("claims", testing::FixturePath("claims_ops").string(), 1);
  EXPECT_EQ(ResultOf(report, "compile.stablehlo"), "fail");
  for (const nlohmann::json& result : report["results"]) {
    if (result["name"] != "compile.stablehlo") continue;
    EXPECT_THAT(result["message"].get<std::string>(),
                HasSubstr("lists stablehlo.add in \"supported_ops\""));
  }
  // The reduce program uses stablehlo.add too; a refusal that names no op
  // it does not list is no excuse.
  EXPECT_EQ(ResultOf(report, "execute.reduce"), "fail");
}

TEST_F(ConformanceTest, WellKnownAttributesOfTheWrongTypeFail) {
  nlohmann::json report = Run("bad", testing::FixturePath("bad_attributes").string(), 1);
  EXPECT_EQ(ResultOf(report, "attributes.well_known"), "fail");
  testing::CommandResult info = testing::RunCommand(
      "BERTH_PLUGIN_PATH=" + (dir_ / "bad.json").string() + " " + BERTH_EXE + " info bad");
  EXPECT_EQ(info.exit_code, 0) << info.out;
  EXPECT_THAT(info.out, HasSubstr("warning:     attribute 'element_types' is of type string"));
}

TEST_F(ConformanceTest, PluginRefusingTheReservedJobOptionsFails) {
  nlohmann::json report = Run("strict", testing::FixturePath("rejects_reserved").string(), 1);
  EXPECT_EQ(ResultOf(report, "client.reserved_options_accepted"), "fail");
  EXPECT_EQ(ResultOf(report, "client.unknown_option_refused"), "pass");
}

// --expect: the outcomes a plugin project expects; anything else is a
// failure, and a check expected but not run is one too.
TEST_F(ConformanceTest, ExpectedOutcomesPassAndUnexpectedOnesFail) {
  const std::string manifest =
      dir_.Write("good.json", testing::FixtureManifest("good", "good")).string();
  const std::string right = dir_.Write("right.json", R"({"library.exports_only_get_api": "fail",
      "compile.stablehlo": "unsupported"})").string();
  const std::string wrong = dir_.Write("wrong.json", R"({"library.exports_only_get_api": "fail",
      "compile.stablehlo": "pass", "no.such.check": "skip"})").string();
  const std::string broken = dir_.Write("broken.json", R"({"compile.stablehlo": "maybe"})").string();
  const std::string base = std::string(BERTH_EXE) + " conformance --manifest " + manifest;
  testing::CommandResult ok = testing::RunCommand(base + " --expect " + right);
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
  // The text summary: the fixture's one expected failure, its formats and
  // ops unsupported.
  EXPECT_THAT(ok.out, AllOf(HasSubstr(" passed, 1 failed, 0 skipped, "), HasSubstr(" unsupported; 0 unexpected")));
  testing::CommandResult bad = testing::RunCommand(base + " --json --expect " + wrong);
  EXPECT_EQ(bad.exit_code, 1) << bad.out;
  nlohmann::json report = nlohmann::json::parse(bad.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << bad.out;
  ASSERT_EQ(report["unexpected"].size(), 2u);
  EXPECT_EQ(report["unexpected"][0]["name"], "compile.stablehlo");
  EXPECT_THAT(report["unexpected"][0]["why"].get<std::string>(),
              HasSubstr("expected pass, got unsupported"));
  EXPECT_EQ(report["unexpected"][1]["name"], "no.such.check");
  testing::CommandResult usage = testing::RunCommand(base + " --expect " + broken + " 2>&1");
  EXPECT_EQ(usage.exit_code, 2);
  EXPECT_THAT(usage.out, HasSubstr("\"compile.stablehlo\" is \"maybe\""));
  // Without --expect the fixture's test hook export is a plain failure.
  EXPECT_EQ(testing::RunCommand(base).exit_code, 1);
}

TEST_F(ConformanceTest, MissingManifestIsAFailureNamingIt) {
  testing::CommandResult result = testing::RunCommand(
      std::string(BERTH_EXE) + " conformance --manifest /no/such/plugin.json 2>&1");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.out, HasSubstr("/no/such/plugin.json"));
  testing::CommandResult usage =
      testing::RunCommand(std::string(BERTH_EXE) + " conformance 2>&1");
  EXPECT_EQ(usage.exit_code, 2);
  testing::CommandResult bad_timeout = testing::RunCommand(
      std::string(BERTH_EXE) + " conformance --timeout 0 --manifest x.json 2>&1");
  EXPECT_EQ(bad_timeout.exit_code, 2);
  EXPECT_THAT(bad_timeout.out, HasSubstr("--timeout"));
}

}  // namespace
}  // namespace berth
