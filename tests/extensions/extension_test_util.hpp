// A host over a temp folder of manifests (the cpu plugin, the `good` fixture
// plugin, which has no extensions, and any extension modules a test adds),
// with helpers to make f32 buffers and read them back.
#ifndef BERTH_TESTS_EXTENSIONS_EXTENSION_TEST_UTIL_HPP_
#define BERTH_TESTS_EXTENSIONS_EXTENSION_TEST_UTIL_HPP_

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>
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

  // A client of the `good` fixture, which has no extensions: it does not
  // report `type`.
  Client GoodWithout(BERTH_Extension_Type type) {
    Client good = NewClient("good");
    EXPECT_FALSE(good.HasExtension(type));
    return good;
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

  // `program` does not compile on the cpu plugin: `code`, and a message
  // that contains `fragment`.
  void ExpectCompileFails(std::string_view program, StatusCode code, std::string_view fragment) {
    Result<Executable> executable = cpu().Compile(program);
    ASSERT_FALSE(executable.ok());
    EXPECT_EQ(executable.status().code(), code);
    EXPECT_THAT(executable.status().message(), ::testing::HasSubstr(std::string(fragment)));
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

  // Compiles `program` on the cpu plugin and runs it on `args`; the outputs,
  // or the compile's or the execution's error.
  Result<std::vector<Buffer>> CompileAndRun(std::string_view program, const std::vector<const Buffer*>& args) {
    BERTH_ASSIGN_OR_RETURN(Executable executable, cpu().Compile(program));
    return Run(executable, args);
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

// `status` is UNIMPLEMENTED, with a message that contains `fragment`.
inline void ExpectUnimplemented(const Status& status, std::string_view fragment) {
  EXPECT_EQ(status.code(), StatusCode::kUnimplemented) << status.ToString();
  EXPECT_THAT(status.message(), ::testing::HasSubstr(std::string(fragment)));
}

// A one-device program that returns custom_call @`target` of its one
// argument %x, of type `type` ("tensor<3xf32>").
inline std::string OneCustomCallProgram(const std::string& target, const std::string& type) {
  return "\nfunc.func @main(%x: " + type + ") -> " + type + " {\n"
         "  %0 = stablehlo.custom_call @" + target + "(%x) : (" + type + ") -> " + type + "\n"
         "  return %0 : " + type + "\n}";
}

// A one-device program of x (`rows`x3 f32) and y (3 f32): x combined by
// `op` ("add", "multiply") with y broadcast along the rows, the tanh of
// that, and the sum of the tanh; returns the tanh and the sum.
inline std::string TanhSumProgram(int rows, const std::string& op) {
  const std::string x = "tensor<" + std::to_string(rows) + "x3xf32>";
  return "\nfunc.func @main(%x: " + x + ", %y: tensor<3xf32>) -> (" + x + ", tensor<f32>) {\n"
         "  %b = stablehlo.broadcast_in_dim %y, dims = [1] : (tensor<3xf32>) -> " + x + "\n"
         "  %s = stablehlo." + op + " %x, %b : " + x + "\n"
         "  %t = stablehlo.tanh %s : " + x + "\n"
         "  %zero = stablehlo.constant dense<0.0> : tensor<f32>\n"
         "  %r = stablehlo.reduce(%t init: %zero) applies stablehlo.add across dimensions = [0, 1]\n"
         "      : (" + x + ", tensor<f32>) -> tensor<f32>\n"
         "  return %t, %r : " + x + ", tensor<f32>\n}\n";
}

}  // namespace berth::testing

#endif  // BERTH_TESTS_EXTENSIONS_EXTENSION_TEST_UTIL_HPP_
