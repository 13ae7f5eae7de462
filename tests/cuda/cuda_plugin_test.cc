// The cuda plugin through the host: it loads wherever it is installed; on a
// machine without a GPU its client creation fails with FAILED_PRECONDITION
// naming the CUDA error, and `berth plugins --load` says so.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "berth/berth.hpp"
#include "test_util.hpp"

namespace berth {
namespace {

using ::testing::HasSubstr;

class CudaPluginTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.Write("cuda.json",
               testing::PluginManifest("cuda", BERTH_CUDA_PLUGIN, nlohmann::json::object()));
    testing::ScopedEnv path("BERTH_PLUGIN_PATH", dir_.path().string());
    Result<Host> host = Host::Create();
    ASSERT_TRUE(host.ok()) << host.status().ToString();
    host_.emplace(std::move(host).value());
  }

  testing::TempDir dir_;
  std::optional<Host> host_;
};

TEST_F(CudaPluginTest, LoadsAndNamesItsCompiler) {
  Result<PluginInfo> info = host_->Load("cuda");
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->status, "ok");
  EXPECT_EQ(info->platform, "cuda");
  ASSERT_TRUE(info->attributes.contains("nvrtc_version"));
  EXPECT_THAT(std::get<std::string>(info->attributes.at("nvrtc_version")), HasSubstr("."));
  // The types the code generator knows, for `berth conformance`: every
  // element type the cpu plugin holds (pred, the integers i2 to ui64, the
  // floats f4 to f64, complex numbers).
  ASSERT_TRUE(info->attributes.contains("element_types"));
  const auto& types = std::get<std::vector<int64_t>>(info->attributes.at("element_types"));
  EXPECT_EQ(types.size(), 30u);
  for (ElementType type :
       {ElementType::kBF16, ElementType::kC128, ElementType::kS4, ElementType::kU2,
        ElementType::kF8E4M3FN, ElementType::kF8E8M0FNU, ElementType::kF4E2M1FN}) {
    EXPECT_THAT(types, ::testing::Contains(static_cast<int64_t>(type))) << ElementTypeName(type);
  }
}

TEST_F(CudaPluginTest, ClientHasOneDevicePerGpuOrSaysWhyNone) {
  Result<Client> client = host_->CreateClient("cuda");
  if (!client.ok()) {
    // No GPU here (every CI machine): a clean refusal naming the CUDA error.
    EXPECT_EQ(client.status().code(), StatusCode::kFailedPrecondition)
        << client.status().ToString();
    EXPECT_THAT(client.status().message(), HasSubstr("cudaGetDeviceCount"));
    EXPECT_THAT(client.status().message(), HasSubstr("cudaError"));
    GTEST_SKIP() << "no GPU: " << client.status().ToString();
  }
  ASSERT_FALSE(client->devices().empty());
  EXPECT_EQ(client->platform_name(), "cuda");
  for (const Device& device : client->devices()) {
    EXPECT_TRUE(device.attributes().contains("compute_capability"));
    EXPECT_TRUE(device.attributes().contains("memory_bytes"));
    ASSERT_EQ(device.memories().size(), 2u);
    EXPECT_EQ(device.memories()[0].kind(), "device");
    EXPECT_EQ(device.memories()[1].kind(), "pinned_host");
  }
}

TEST_F(CudaPluginTest, BadOptionsAreRefusedBeforeCudaIsAsked) {
  Result<Client> client = host_->CreateClient("cuda", {{{"memory_fraction", 1.5}}});
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(client.status().message(), HasSubstr("memory_fraction"));
}

TEST_F(CudaPluginTest, PluginsLoadReportsWhyThereAreNoDevices) {
  testing::CommandResult run =
      testing::RunCommand("BERTH_PLUGIN_PATH=" + testing::ShellQuote(dir_.path().string()) +
                          " " BERTH_EXE " plugins --load --json 2>/dev/null");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  nlohmann::json report = nlohmann::json::parse(run.out);
  ASSERT_EQ(report["plugins"].size(), 1u);
  const nlohmann::json& cuda = report["plugins"][0];
  EXPECT_EQ(cuda["status"], "ok");
  if (cuda.contains("client_error")) {
    EXPECT_EQ(cuda["devices"], 0);
    EXPECT_THAT(cuda["client_error"].get<std::string>(), HasSubstr("FAILED_PRECONDITION"));
  } else {
    EXPECT_GT(cuda["devices"].get<int64_t>(), 0);
  }
}

}  // namespace
}  // namespace berth
