// A host over a temp folder of manifests (the cpu plugin, the `good` fixture
// plugin, which has no extensions, and any extension modules a test adds),
// with helpers to make f32 buffers and read them back.
#ifndef BERTH_TESTS_EXTENSIONS_EXTENSION_TEST_UTIL_HPP_
#define BERTH_TESTS_EXTENSIONS_EXTENSION_TEST_UTIL_HPP_

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "berth/berth.hpp"
#include "test_util.hpp"

namespace berth::testing {

class ExtensionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.Write("cpu.json", PluginManifest("cpu", BERTH_CPU_PLUGIN));
    dir_.Write("good.json", FixtureManifest("good", "good"));
  }

  // Writes an extension manifest; `extension` is the "extension" object.
  void AddExtension(const std::string& file, const nlohmann::json& extension) {
    dir_.Write(file, nlohmann::json{{"file_format_version", "1.0.0"}, {"extension", extension}}
                         .dump(2));
  }

  Host& host() {
    if (!host_) {
      ScopedEnv path("BERTH_PLUGIN_PATH", dir_.path().string());
      Result<Host> host = Host::Create();
      EXPECT_TRUE(host.ok()) << host.status().ToString();
      host_.emplace(std::move(host).value());
    }
    return *host_;
  }

  Client NewClient(const std::string& plugin = "cpu") {
    Result<Client> client = host().CreateClient(plugin);
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return std::move(client).value();
  }

  Client& cpu() {
    if (!cpu_) cpu_.emplace(NewClient("cpu"));
    return *cpu_;
  }

  PluginInfo InfoOf(const std::string& name) {
    for (const PluginInfo& info : host().Plugins()) {
      if (info.name == name) return info;
    }
    ADD_FAILURE() << "no manifest named " << name;
    return {};
  }

  Buffer F32(Client& client, const std::vector<float>& values, std::vector<int64_t> dims) {
    Result<Buffer> buffer =
        client.BufferFromHost(values.data(), ElementType::kF32, dims, client.devices()[0]);
    EXPECT_TRUE(buffer.ok()) << buffer.status().ToString();
    return std::move(buffer).value();
  }

  template <typename T = float>
  static std::vector<T> Read(const Buffer& buffer) {
    std::vector<T> out(buffer.host_size() / sizeof(T));
    Status status = buffer.ToHost(out.data(), out.size() * sizeof(T));
    EXPECT_TRUE(status.ok()) << status.ToString();
    return out;
  }

  // Runs a one-device executable; the outputs, or the execution's error.
  static Result<std::vector<Buffer>> Run(const Executable& executable,
                                         const std::vector<const Buffer*>& args) {
    BERTH_ASSIGN_OR_RETURN(ExecuteResult result, executable.Execute({args}));
    BERTH_RETURN_IF_ERROR(result.completion[0].Await());
    return std::move(result.outputs[0]);
  }

  TempDir dir_;
  std::optional<Host> host_;
  std::optional<Client> cpu_;
};

}  // namespace berth::testing

#endif  // BERTH_TESTS_EXTENSIONS_EXTENSION_TEST_UTIL_HPP_
