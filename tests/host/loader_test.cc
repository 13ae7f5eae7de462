// The loader's behaviour for each fixture variant: loads with feature gating,
// or is skipped with a stable reason and a clear message; never a crash.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "berth/berth.hpp"
#include "common/sha256.hpp"
#include "test_util.hpp"

namespace berth {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::FixtureManifest;
using testing::FixturePath;
using testing::PluginManifest;
using testing::ScopedEnv;
using testing::TempDir;

class LoaderTest : public ::testing::Test {
 protected:
  // Writes a manifest for a fixture variant named `name`.
  void AddFixture(const std::string& name, const std::string& variant,
                  nlohmann::json extra = nlohmann::json::object()) {
    dir_.Write(name + ".json", FixtureManifest(name, variant, extra));
  }

  // A host that finds one plugin, "good", the good fixture variant.
  Host GoodHost() {
    AddFixture("good", "good");
    return MakeHost();
  }

  Host MakeHost() {
    ScopedEnv path("BERTH_PLUGIN_PATH", dir_.path().string());
    Result<Host> host = Host::Create();
    EXPECT_TRUE(host.ok()) << host.status().ToString();
    return std::move(host).value();
  }

  // The status of creating a client of `plugin` with `options`, which must
  // fail.
  static Status RefusalOf(Host& host, std::string_view plugin, const ClientOptions& options = {}) {
    Result<Client> client = host.CreateClient(plugin, options);
    EXPECT_FALSE(client.ok()) << "a client of " << plugin << " was made";
    return client.ok() ? OkStatus() : client.status();
  }

  // A buffer on the client's first device of the scalar `value` of `type`.
  static Result<Buffer> Scalar(const Client& client, const void* value, ElementType type) {
    return client.BufferFromHost(value, type, {}, client.addressable_devices()[0]);
  }

  // Scalar on a new client of `plugin`, which the buffer keeps alive.
  static Result<Buffer> ScalarOfANewClient(Host& host, std::string_view plugin, const void* value,
                                           ElementType type) {
    Result<Client> client = host.CreateClient(plugin);
    if (!client.ok()) return client.status();
    return Scalar(*client, value, type);
  }

  PluginInfo InfoOf(const Host& host, const std::string& name) {
    for (const PluginInfo& info : host.Plugins()) {
      if (info.name == name) return info;
    }
    ADD_FAILURE() << "no plugin " << name;
    return {};
  }

  TempDir dir_;
};

TEST_F(LoaderTest, GoodPluginLoadsWithNegotiatedVersion) {
  Host host = GoodHost();
  EXPECT_EQ(InfoOf(host, "good").status, "found");  // nothing opened yet
  EXPECT_FALSE(testing::IsLoaded(FixturePath("good")));
  Result<PluginInfo> info = host.Load("good");
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->status, "ok");
  EXPECT_EQ(info->negotiated_version, "1.3");
  EXPECT_EQ(std::get<bool>(info->attributes.at("fixture")), true);
  // The SDK links live_objects into every plugin's chain.
  EXPECT_THAT(info->extensions, ElementsAre("live_objects"));
}

TEST_F(LoaderTest, OlderMinorLoadsAndItsMissingFunctionsAreUnimplemented) {
  AddFixture("older", "older_minor");
  Host host = MakeHost();
  Result<Client> client = host.CreateClient("older");
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  EXPECT_EQ(client->negotiated_version(), "1.0");
  // Functions inside its table work; the ones after it are UNIMPLEMENTED.
  float value = 1.5f;
  Result<Buffer> buffer = Scalar(*client, &value, ElementType::kF32);
  ASSERT_TRUE(buffer.ok()) << buffer.status().ToString();
  Result<bool> deleted = buffer->IsDeleted();
  ASSERT_TRUE(deleted.ok());
  EXPECT_FALSE(*deleted);
  float out = 0;
  Status status = buffer->ToHost(&out, sizeof(out));
  EXPECT_EQ(status.code(), StatusCode::kUnimplemented);
  EXPECT_THAT(status.message(), AllOf(HasSubstr("plugin 'older'"), HasSubstr("ABI 1.0"),
                                      HasSubstr("does not implement BERTH_Buffer_ToHostBuffer")));
}

TEST_F(LoaderTest, NewerMinorLoadsAtHostMinorAndUnknownExtensionIsSkipped) {
  AddFixture("newer", "newer_minor");
  Host host = MakeHost();
  testing::LogCapture log;
  Result<PluginInfo> info = host.Load("newer");
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->negotiated_version, "1.3");
  EXPECT_THAT(info->extensions, ElementsAre("unknown(1000)", "ffi", "live_objects"));
  EXPECT_TRUE(log.Contains("ignoring extension type 1000"));
  Result<Client> client = host.CreateClient("newer");
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  EXPECT_EQ(client->devices().size(), 2u);
}

struct SkipCase {
  std::string variant;
  std::string reason;
  std::vector<std::string> message_parts;
};

class LoaderSkipTest : public LoaderTest, public ::testing::WithParamInterface<SkipCase> {};

TEST_P(LoaderSkipTest, BrokenPluginIsSkippedWithReasonAndMessage) {
  const SkipCase& c = GetParam();
  AddFixture("broken", c.variant);
  Host host = MakeHost();
  Result<PluginInfo> info = host.Load("broken");
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().code(), StatusCode::kFailedPrecondition);
  PluginInfo listed = InfoOf(host, "broken");
  EXPECT_EQ(listed.status, "skipped");
  EXPECT_EQ(listed.reason, c.reason);
  for (const std::string& part : c.message_parts) {
    EXPECT_THAT(listed.message, HasSubstr(part));
  }
  EXPECT_THAT(listed.message, HasSubstr("broken.json"));
  Result<Client> client = host.CreateClient("broken");
  EXPECT_FALSE(client.ok());
}

INSTANTIATE_TEST_SUITE_P(
    Variants, LoaderSkipTest,
    ::testing::Values(
        SkipCase{"other_major", "abi_major_mismatch", {"plugin ABI 2.3", "host ABI 1.3"}},
        SkipCase{"no_entry", "no_entry_symbol", {"does not export BERTH_GetApi"}},
        SkipCase{"null_table", "null_api_table", {"BERTH_GetApi returned NULL"}},
        SkipCase{"init_fails", "initialize_failed",
                 {"BERTH_Plugin_Initialize failed", "refused on purpose"}},
        SkipCase{"duplicate_extension", "invalid_extension_chain",
                 {"callback appears twice"}}),
    [](const ::testing::TestParamInfo<SkipCase>& info) { return info.param.variant; });

TEST_F(LoaderTest, ExceptionsInsidePluginBecomeInternalErrors) {
  AddFixture("throws", "throws");
  Host host = MakeHost();
  Result<Client> client = host.CreateClient("throws");
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  int32_t value = 7;
  Result<Buffer> buffer =
      client->BufferFromHost(&value, ElementType::kS32, {}, client->addressable_devices()[0]);
  ASSERT_FALSE(buffer.ok());
  EXPECT_EQ(buffer.status().code(), StatusCode::kInternal);
  EXPECT_THAT(buffer.status().message(),
              AllOf(HasSubstr("BERTH_Client_BufferFromHostBuffer"),
                    HasSubstr("fixture: BufferFromHostBuffer always throws")));
  CompileOptions options;
  options.format = "identity";
  Result<Executable> executable = client->Compile("identity f32", options);
  ASSERT_FALSE(executable.ok());
  EXPECT_EQ(executable.status().code(), StatusCode::kInternal);
  EXPECT_THAT(executable.status().message(),
              HasSubstr("BERTH_Client_Compile let an exception escape"));
}

TEST_F(LoaderTest, MissingLibraryIsSkipped) {
  dir_.Write("gone.json", PluginManifest("gone", (dir_ / "nowhere.so").string()));
  Host host = MakeHost();
  EXPECT_FALSE(host.Load("gone").ok());
  PluginInfo info = InfoOf(host, "gone");
  EXPECT_EQ(info.reason, "library_not_found");
  EXPECT_THAT(info.message, HasSubstr("nowhere.so does not exist"));
}

TEST_F(LoaderTest, NonElfLibraryIsSkipped) {
  std::filesystem::path fake = dir_.Write("libfake.so", "this is not an ELF file\n");
  dir_.Write("fake.json", PluginManifest("fake", fake.string()));
  Host host = MakeHost();
  EXPECT_FALSE(host.Load("fake").ok());
  PluginInfo info = InfoOf(host, "fake");
  EXPECT_EQ(info.reason, "library_load_failed");
  EXPECT_THAT(info.message, AllOf(HasSubstr("cannot load"), HasSubstr("libfake.so")));
}

TEST_F(LoaderTest, Sha256MismatchIsCaughtBeforeOpening) {
  AddFixture("pinned", "good", {{"sha256", std::string(64, 'a')}});
  Host host = MakeHost();
  EXPECT_FALSE(host.Load("pinned").ok());
  PluginInfo info = InfoOf(host, "pinned");
  EXPECT_EQ(info.reason, "sha256_mismatch");
  EXPECT_THAT(info.message, AllOf(HasSubstr(std::string(64, 'a')), HasSubstr("Not opened")));
  EXPECT_FALSE(testing::IsLoaded(FixturePath("good")));
}

TEST_F(LoaderTest, MatchingSha256Loads) {
  Result<std::string> digest = common::Sha256File(FixturePath("good"));
  ASSERT_TRUE(digest.ok());
  AddFixture("pinned", "good", {{"sha256", *digest}});
  Host host = MakeHost();
  Result<PluginInfo> info = host.Load("pinned");
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->status, "ok");
}

TEST_F(LoaderTest, LibraryStaysLoadedUntilTheLastObjectIsGone) {
  AddFixture("good", "good");
  std::optional<Buffer> buffer;
  {
    Host host = MakeHost();
    float value = 2.0f;
    Result<Buffer> made = ScalarOfANewClient(host, "good", &value, ElementType::kF32);
    ASSERT_TRUE(made.ok()) << made.status().ToString();
    buffer = std::move(made).value();
  }
  // Host and client are gone; the buffer keeps the library loaded and usable.
  ASSERT_TRUE(testing::IsLoaded(FixturePath("good")));
  EXPECT_EQ(testing::FixtureLiveObjects(FixturePath("good")), 2);  // client + buffer
  float out = 0;
  ASSERT_TRUE(buffer->ToHost(&out, sizeof(out)).ok());
  EXPECT_EQ(out, 2.0f);
  buffer.reset();
  EXPECT_FALSE(testing::IsLoaded(FixturePath("good")));
}

TEST_F(LoaderTest, NoUnloadKeepsLibrariesMapped) {
  AddFixture("kept", "null_table");  // a variant no other test keeps loaded
  dir_.Write("kept2.json", FixtureManifest("kept2", "newer_minor"));
  ScopedEnv no_unload("BERTH_NO_UNLOAD", "1");
  {
    Host host = MakeHost();
    ASSERT_TRUE(host.Load("kept2").ok());
  }
  EXPECT_TRUE(testing::IsLoaded(FixturePath("newer_minor")));
}

TEST_F(LoaderTest, NoObjectsLeakAfterClientBuffersAndExecutions) {
  AddFixture("good", "good");
  {
    Host host = MakeHost();
    Result<Client> client = host.CreateClient("good", {{{"device_count", int64_t{3}}}});
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    ASSERT_EQ(client->addressable_devices().size(), 3u);
    CompileOptions options;
    options.format = "identity";
    Result<Executable> executable = client->Compile("identity i32 2\n", options);
    ASSERT_TRUE(executable.ok()) << executable.status().ToString();
    std::vector<Buffer> inputs;
    std::vector<std::vector<const Buffer*>> lists;
    for (const Device& device : client->addressable_devices()) {
      int32_t data[2] = {static_cast<int32_t>(device.id()), 10};
      int64_t dims[1] = {2};
      Result<Buffer> in = client->BufferFromHost(data, ElementType::kS32, dims, device);
      ASSERT_TRUE(in.ok()) << in.status().ToString();
      inputs.push_back(std::move(in).value());
    }
    for (const Buffer& in : inputs) lists.push_back({&in});
    Result<ExecuteResult> result = executable->Execute(lists);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    ASSERT_EQ(result->outputs.size(), 3u);
    for (size_t d = 0; d < 3; ++d) {
      ASSERT_TRUE(result->completion[d].Await().ok());
      int32_t out[2] = {};
      ASSERT_TRUE(result->outputs[d][0].ToHost(out, sizeof(out)).ok());
      EXPECT_EQ(out[0], static_cast<int32_t>(d));
      EXPECT_EQ(out[1], 10);
    }
    EXPECT_GT(testing::FixtureLiveObjects(FixturePath("good")), 0);
  }
  // Everything is destroyed, so the library is unloaded too.
  EXPECT_FALSE(testing::IsLoaded(FixturePath("good")));
}

TEST_F(LoaderTest, LiveObjectCountDropsToZeroBeforeUnload) {
  Host host = GoodHost();
  {
    int8_t v = 1;
    Result<Buffer> b = ScalarOfANewClient(host, "good", &v, ElementType::kS8);
    ASSERT_TRUE(b.ok()) << b.status().ToString();
  }
  // The host keeps the library loaded; the client and buffer are gone.
  EXPECT_EQ(testing::FixtureLiveObjects(FixturePath("good")), 0);
}

TEST_F(LoaderTest, UnknownClientOptionIsInvalidArgumentNamingIt) {
  Host host = GoodHost();
  Status refusal = RefusalOf(host, "good", {{{"colour", std::string("blue")}}});
  EXPECT_EQ(refusal.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(refusal.message(), AllOf(HasSubstr("unknown fixture client option 'colour'"),
                                       HasSubstr("device_count")));
}

TEST_F(LoaderTest, WrongOptionTypeIsInvalidArgument) {
  Host host = GoodHost();
  Status refusal = RefusalOf(host, "good", {{{"device_count", std::string("two")}}});
  EXPECT_EQ(refusal.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(refusal.message(), HasSubstr("'device_count' must be of type int64, not string"));
}

TEST_F(LoaderTest, ManifestCreateOptionsAreDefaultsTheCallerOverrides) {
  AddFixture("good", "good", {{"create_options", {{"device_count", 5}}}});
  Host host = MakeHost();
  Result<Client> from_manifest = host.CreateClient("good");
  ASSERT_TRUE(from_manifest.ok()) << from_manifest.status().ToString();
  EXPECT_EQ(from_manifest->devices().size(), 5u);
  Result<Client> overridden = host.CreateClient("good", {{{"device_count", int64_t{1}}}});
  ASSERT_TRUE(overridden.ok());
  EXPECT_EQ(overridden->devices().size(), 1u);
}

TEST_F(LoaderTest, PluginLogLinesReachTheHostLog) {
  AddFixture("good", "good");
  testing::LogCapture log;
  Host host = MakeHost();
  ASSERT_TRUE(host.Load("good").ok());
  EXPECT_TRUE(log.Contains("[plugin:good] fixture plugin initialized"));
}

TEST_F(LoaderTest, UnknownPluginNameListsAvailableOnes) {
  Host host = GoodHost();
  Status refusal = RefusalOf(host, "nope");
  EXPECT_EQ(refusal.code(), StatusCode::kNotFound);
  EXPECT_THAT(refusal.message(), HasSubstr("available: good"));
}

TEST_F(LoaderTest, DefaultPluginIsTheHighestPriorityUsableOne) {
  AddFixture("low", "good", {{"priority", 1}});
  AddFixture("high", "newer_minor", {{"priority", 50}});
  Host host = MakeHost();
  Result<std::string> name = host.DefaultPlugin();
  ASSERT_TRUE(name.ok());
  EXPECT_EQ(*name, "high");
}

TEST_F(LoaderTest, EventCallbackRunsWithTheStatus) {
  Host host = GoodHost();
  double v = 3.0;
  Result<Buffer> buffer = ScalarOfANewClient(host, "good", &v, ElementType::kF64);
  ASSERT_TRUE(buffer.ok()) << buffer.status().ToString();
  Result<Event> ready = buffer->ReadyEvent();
  ASSERT_TRUE(ready.ok());
  EXPECT_TRUE(ready->IsReady());
  bool called = false;
  ASSERT_TRUE(ready->OnReady([&](Status status) { called = status.ok(); }).ok());
  EXPECT_TRUE(called);
}

// The reserved options a job sets are accepted by every SDK plugin (its
// OptionReader knows them) and checked by the SDK's glue before the plugin
// sees them.
TEST_F(LoaderTest, ReservedClientOptionsAreAcceptedAndRangeChecked) {
  Host host = GoodHost();
  Result<Client> job = host.CreateClient(
      "good", {{{"node_id", int64_t{1}}, {"num_nodes", int64_t{2}}, {"device_count", int64_t{1}}}});
  EXPECT_TRUE(job.ok()) << job.status().ToString();
  Status outside = RefusalOf(host, "good", {{{"node_id", int64_t{2}}, {"num_nodes", int64_t{2}}}});
  EXPECT_EQ(outside.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(outside.message(), AllOf(HasSubstr("'node_id' is 2"), HasSubstr("0 to 1")));
  EXPECT_THAT(RefusalOf(host, "good", {{{"num_nodes", std::string("two")}}}).message(),
              HasSubstr("reserved client option 'num_nodes' must be of type int64, not string"));
}

// node_address (C API 1.3): a string, not empty; passed only to plugins that
// negotiated 1.3 or later (older ones would call it unknown).
TEST_F(LoaderTest, NodeAddressIsCheckedAndKeptFromOlderPlugins) {
  AddFixture("good", "good");
  AddFixture("older", "older_minor");
  Host host = MakeHost();
  const NamedValueMap job = {{"node_id", int64_t{1}}, {"num_nodes", int64_t{2}},
                             {"node_address", std::string("10.231.0.2")}};
  Result<Client> good = host.CreateClient("good", {job});
  EXPECT_TRUE(good.ok()) << good.status().ToString();
  Result<Client> older = host.CreateClient("older", {job});
  EXPECT_TRUE(older.ok()) << older.status().ToString();
  EXPECT_THAT(RefusalOf(host, "good", {{{"node_address", int64_t{7}}}}).message(),
              HasSubstr("'node_address' must be of type string"));
  EXPECT_THAT(RefusalOf(host, "good", {{{"node_address", std::string()}}}).message(),
              HasSubstr("'node_address' is empty"));
}

TEST_F(LoaderTest, ReservedCompileOptionSourceNameIsAcceptedAndTypeChecked) {
  Host host = GoodHost();
  Result<Client> client = host.CreateClient("good");
  ASSERT_TRUE(client.ok());
  CompileOptions options;
  options.format = "identity";
  options.options["source_name"] = std::string("prog.identity");
  EXPECT_TRUE(client->Compile("identity f32 2\n", options).ok());
  options.options["source_name"] = int64_t{3};
  Result<Executable> wrong = client->Compile("identity f32 2\n", options);
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(wrong.status().message(), HasSubstr("'source_name' must be of type string"));
}

// The SDK's glue holds a plugin to the output types and dims its executable
// reports, which hosts adopt without asking each buffer.
TEST_F(LoaderTest, OutputsOfAnotherShapeThanReportedAreAnInternalErrorNamingThem) {
  AddFixture("wrong", "wrong_outputs");
  Host host = MakeHost();
  Result<Client> client = host.CreateClient("wrong", {{{"device_count", int64_t{1}}}});
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  CompileOptions options;
  options.format = "identity";
  Result<Executable> executable = client->Compile("identity f32 2\n", options);
  ASSERT_TRUE(executable.ok()) << executable.status().ToString();
  const float data[2] = {1, 2};
  const int64_t dims[1] = {2};
  Result<Buffer> in = client->BufferFromHost(data, ElementType::kF32, dims, client->devices()[0]);
  ASSERT_TRUE(in.ok());
  Result<ExecuteResult> result = executable->ExecuteOn(client->devices()[0], {&*in});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInternal);
  EXPECT_THAT(result.status().message(),
              AllOf(HasSubstr("output 0 has dims [2, 1]"), HasSubstr("reports [2]")));
}

TEST_F(LoaderTest, ClientOfAnotherPlatformThanTheManifestSaysIsRefusedAndSkipped) {
  dir_.Write("elsewhere.json", PluginManifest("elsewhere", FixturePath("good").string(),
                                              {{"platform", "tpu"}}));
  Host host = MakeHost();
  ASSERT_TRUE(host.Load("elsewhere").ok());  // nothing can tell before a client exists
  Status refusal = RefusalOf(host, "elsewhere");
  EXPECT_EQ(refusal.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(refusal.message(), HasSubstr("says platform 'tpu'"));
  PluginInfo info = InfoOf(host, "elsewhere");
  EXPECT_EQ(info.status, "skipped");
  EXPECT_EQ(info.reason, "platform_mismatch");
  EXPECT_FALSE(host.CreateClient("elsewhere").ok());
}

TEST_F(LoaderTest, DeclaredMinorOtherThanTheLibrarysIsAWarning) {
  AddFixture("good", "good", {{"api_version", "1.0"}});  // the library reports 1.3
  testing::LogCapture log;
  Host host = MakeHost();
  ASSERT_TRUE(host.Load("good").ok());
  EXPECT_TRUE(log.Has(LogLevel::kWarning, "the manifest declares api_version 1.0 but the "
                                                "library reports 1.3"));
}

TEST_F(LoaderTest, WellKnownAttributesOfTheWrongTypeAreWarnedAbout) {
  AddFixture("bad", "bad_attributes");
  testing::LogCapture log;
  Host host = MakeHost();
  ASSERT_TRUE(host.Load("bad").ok());
  EXPECT_TRUE(log.Has(LogLevel::kWarning,
                           "attribute 'element_types' is of type string; it must be int64_list"));
  EXPECT_TRUE(log.Has(LogLevel::kWarning,
                           "attribute 'stablehlo_support' is of type int64; it must be bool"));
}

TEST_F(LoaderTest, BareLibraryNameTheSystemCannotFindSaysItIsNotSearchedBesideTheManifest) {
  dir_.Write("bare.json", PluginManifest("bare", "libberth_no_such_plugin.so"));
  Host host = MakeHost();
  Result<PluginInfo> info = host.Load("bare");
  ASSERT_FALSE(info.ok());
  EXPECT_THAT(info.status().message(),
              AllOf(HasSubstr("is a bare name"), HasSubstr("\"./libberth_no_such_plugin.so\"")));
  EXPECT_EQ(InfoOf(host, "bare").reason, "library_load_failed");
}

}  // namespace
}  // namespace berth
