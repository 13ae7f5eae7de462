// The abi_version extension and serialized executables: round trips through
// the host API and the `berth` command, and every way a file can be wrong.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "abi_version/executable_file.hpp"
#include "extension_test_util.hpp"

namespace berth {
namespace {

using ::testing::HasSubstr;

class SerializeTest : public testing::ExtensionTest {
 protected:
  std::string Serialized(const std::string& program) {
    Result<Executable> executable = cpu().Compile(program);
    EXPECT_TRUE(executable.ok()) << executable.status().ToString();
    Result<std::string> bytes = executable->Serialize();
    EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
    return bytes.ok() ? *bytes : std::string();
  }

  // The file with its header changed by `edit` (the payload kept).
  template <typename Edit>
  static std::string Rewritten(const std::string& bytes, Edit edit) {
    Result<ext::abi_version::ExecutableFile> file = ext::abi_version::DecodeExecutableFile(bytes, "test");
    EXPECT_TRUE(file.ok()) << file.status().ToString();
    edit(file->header);
    return ext::abi_version::EncodeExecutableFile(file->header, file->payload);
  }
};

const std::string kProgram = testing::TanhSumProgram(2, "add");

TEST_F(SerializeTest, RoundTripRunsLikeTheSource) {
  Result<Executable> source = cpu().Compile(kProgram);
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  Result<std::string> bytes = source->Serialize();
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  Result<Executable> loaded = cpu().Deserialize(*bytes, "round-trip");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->name(), source->name());
  EXPECT_EQ(loaded->output_types(), source->output_types());
  EXPECT_EQ(loaded->output_dims(), source->output_dims());

  Buffer x = F32(cpu(), {0.1f, -0.2f, 0.3f, 1.5f, -2, 0}, {2, 3});
  Buffer y = F32(cpu(), {0.5f, 0.25f, -1}, {3});
  Result<std::vector<Buffer>> expected = Run(*source, {&x, &y});
  Result<std::vector<Buffer>> actual = Run(*loaded, {&x, &y});
  ASSERT_TRUE(expected.ok() && actual.ok());
  for (size_t i = 0; i < 2; ++i) EXPECT_EQ(Read((*actual)[i]), Read((*expected)[i]));

  // A second client of the same plugin loads it too.
  Client other = NewClient();
  EXPECT_TRUE(other.Deserialize(*bytes).ok());
}

TEST_F(SerializeTest, FileRecordsPluginPlatformAndVersions) {
  std::string bytes = Serialized(kProgram);
  Result<ext::abi_version::ExecutableFile> file = ext::abi_version::DecodeExecutableFile(bytes, "test");
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  Result<AbiVersions> versions = cpu().abi_versions();
  ASSERT_TRUE(versions.ok());
  EXPECT_EQ(file->header.plugin, "cpu");
  EXPECT_EQ(file->header.platform, "cpu");
  EXPECT_EQ(file->header.api_major, BERTH_API_MAJOR);
  EXPECT_EQ(file->header.runtime.major, versions->runtime.major);
  EXPECT_EQ(file->header.runtime.minor, versions->runtime.minor);
  EXPECT_EQ(file->header.executable.major, versions->newest_executable.major);
  EXPECT_EQ(file->header.executable.minor, versions->newest_executable.minor);
  EXPECT_EQ(file->header.fingerprint.size(), 64u);
}

TEST_F(SerializeTest, FileFromAnotherPluginIsRefusedNamingBoth) {
  std::string bytes = Rewritten(Serialized(kProgram), [](ext::abi_version::ExecutableFileHeader& header) {
    header.plugin = "cuda";
    header.platform = "cuda";
  });
  Result<Executable> loaded = cpu().Deserialize(bytes, "other.bexe");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(loaded.status().message(), HasSubstr("other.bexe: made by plugin 'cuda'"));
  EXPECT_THAT(loaded.status().message(), HasSubstr("plugin 'cpu'"));
}

TEST_F(SerializeTest, FileOfAnotherCApiMajorIsRefused) {
  std::string bytes = Rewritten(Serialized(kProgram), [](ext::abi_version::ExecutableFileHeader& header) {
    header.api_major = BERTH_API_MAJOR + 1;
    header.api_minor = 0;
  });
  Result<Executable> loaded = cpu().Deserialize(bytes, "api.bexe");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(loaded.status().message(), HasSubstr("Berth C API 2.0"));
}

TEST_F(SerializeTest, ExecutableAbiThisRuntimeDoesNotLoadIsRefusedNamingVersions) {
  for (ext::abi_version::AbiVersionNumber version : {ext::abi_version::AbiVersionNumber{2, 0},
                                         ext::abi_version::AbiVersionNumber{1, 7},
                                         ext::abi_version::AbiVersionNumber{0, 9}}) {
    std::string bytes = Rewritten(Serialized(kProgram), [&](ext::abi_version::ExecutableFileHeader& header) {
      header.executable = version;
    });
    Result<Executable> loaded = cpu().Deserialize(bytes, "newer.bexe");
    ASSERT_FALSE(loaded.ok());
    EXPECT_EQ(loaded.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_THAT(loaded.status().message(),
                HasSubstr("cpu executable ABI " + ext::abi_version::AbiVersionString(version)));
  }
}

TEST_F(SerializeTest, TruncatedOrFlippedFilesAreRejectedWithoutACrash) {
  std::string bytes = Serialized(kProgram);
  for (size_t size = 0; size < bytes.size(); size += 7) {
    Result<Executable> loaded = cpu().Deserialize(bytes.substr(0, size), "cut.bexe");
    ASSERT_FALSE(loaded.ok()) << "a file cut to " << size << " bytes loaded";
    EXPECT_THAT(loaded.status().message(), HasSubstr("cut.bexe"));
  }
  for (size_t i = 0; i < bytes.size(); i += 5) {
    std::string flipped = bytes;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x10);
    Result<Executable> loaded = cpu().Deserialize(flipped, "flipped.bexe");
    ASSERT_FALSE(loaded.ok()) << "a file with byte " << i << " flipped loaded";
    EXPECT_TRUE(loaded.status().code() == StatusCode::kDataLoss ||
                loaded.status().code() == StatusCode::kInvalidArgument)
        << loaded.status().ToString();
  }
}

TEST_F(SerializeTest, WellFormedFileWithABadPayloadIsRejectedByThePlugin) {
  std::string bytes = Rewritten(Serialized(kProgram), [](ext::abi_version::ExecutableFileHeader&) {});
  Result<ext::abi_version::ExecutableFile> file = ext::abi_version::DecodeExecutableFile(bytes, "test");
  ASSERT_TRUE(file.ok());
  for (const std::string& payload :
       {std::string("not json"), std::string("{\"format\": \"berth-cpu-executable\"}"),
        std::string("{\"format\": \"berth-cpu-executable\", \"source\": \"garbage\", "
                    "\"entry_name\": \"\", \"num_replicas\": 0, \"num_partitions\": 0, "
                    "\"device_assignment\": [], \"options\": {}}")}) {
    Result<Executable> loaded =
        cpu().Deserialize(ext::abi_version::EncodeExecutableFile(file->header, payload), "payload.bexe");
    ASSERT_FALSE(loaded.ok()) << payload;
    EXPECT_THAT(loaded.status().message(), HasSubstr("payload.bexe"));
  }
}

TEST_F(SerializeTest, PluginWithoutTheExtensionAnswersUnimplemented) {
  Client good = GoodWithout(BERTH_Extension_Type_AbiVersion);
  CompileOptions options;
  options.format = "identity";
  Result<Executable> executable = good.Compile("identity f32", options);
  ASSERT_TRUE(executable.ok()) << executable.status().ToString();
  Result<std::string> bytes = executable->Serialize();
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().code(), StatusCode::kUnimplemented);
  EXPECT_THAT(bytes.status().message(), HasSubstr("'abi_version' extension"));
  EXPECT_EQ(good.Deserialize(Serialized(kProgram)).status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(good.abi_versions().status().code(), StatusCode::kUnimplemented);
}

// ------------------------------------------------------- berth compile / run

std::string Berth(const std::string& args) {
  return std::string(BERTH_EXE) + " " + args + " 2>&1";
}

TEST_F(SerializeTest, BerthCompileThenRunEqualsRunningTheSource) {
  testing::TempDir dir;
  const std::string mlp = std::string(BERTH_SOURCE_ROOT) + "/configs/examples/mlp.mlir";
  const std::string arg =
      " --arg 'dense<[[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 0.0, 2.0]]> : tensor<2x4xf32>'";
  const std::string bexe = (dir / "mlp.bexe").string();
  testing::ScopedEnv path("BERTH_PLUGIN_PATH", dir_.path().string());
  testing::CommandResult compiled = testing::RunCommand(Berth("compile " + mlp + " -o " + bexe));
  ASSERT_EQ(compiled.exit_code, 0) << compiled.out;
  testing::CommandResult source = testing::RunCommand(Berth("run " + mlp + arg));
  testing::CommandResult loaded = testing::RunCommand(Berth("run " + bexe + arg));
  ASSERT_EQ(source.exit_code, 0) << source.out;
  ASSERT_EQ(loaded.exit_code, 0) << loaded.out;
  EXPECT_EQ(loaded.out, source.out);

  // A truncated and a corrupted copy: exit 1 with the reason.
  std::ifstream in(bexe, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  dir.Write("cut.bexe", bytes.substr(0, bytes.size() / 2));
  std::string flipped = bytes;
  flipped[flipped.size() - 3] ^= 0x01;
  dir.Write("flipped.bexe", flipped);
  testing::CommandResult cut = testing::RunCommand(Berth("run " + (dir / "cut.bexe").string()));
  EXPECT_EQ(cut.exit_code, 1);
  EXPECT_THAT(cut.out, HasSubstr("truncated"));
  testing::CommandResult bad = testing::RunCommand(Berth("run " + (dir / "flipped.bexe").string()));
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.out, HasSubstr("corrupted"));
}

}  // namespace
}  // namespace berth
