// Compiling and executing StableHLO on the CPU plugin through the host:
// argument checks, fusion, device assignment, concurrency, lifetimes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "berth/berth.hpp"
#include "test_util.hpp"

namespace berth {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class CpuExecuteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.Write("cpu.json", testing::PluginManifest("cpu", BERTH_CPU_PLUGIN));
    testing::ScopedEnv path("BERTH_PLUGIN_PATH", dir_.path().string());
    Result<Host> host = Host::Create();
    ASSERT_TRUE(host.ok());
    host_.emplace(std::move(host).value());
    Result<Client> client = host_->CreateClient("cpu", {{{"device_count", int64_t{4}}}});
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    client_.emplace(std::move(client).value());
  }

  Buffer F32(std::vector<float> values, std::vector<int64_t> dims, int device = 0) {
    Result<Buffer> buffer = client_->BufferFromHost(values.data(), ElementType::kF32, dims,
                                                    client_->devices()[device]);
    EXPECT_TRUE(buffer.ok()) << buffer.status().ToString();
    return std::move(buffer).value();
  }

  std::vector<float> ReadF32(const Buffer& buffer) {
    std::vector<float> out(buffer.host_size() / sizeof(float));
    Status status = buffer.ToHost(out.data(), out.size() * sizeof(float));
    EXPECT_TRUE(status.ok()) << status.ToString();
    return out;
  }

  Executable Compile(const std::string& program, CompileOptions options = {}) {
    Result<Executable> executable = client_->Compile(program, options);
    EXPECT_TRUE(executable.ok()) << executable.status().ToString();
    return std::move(executable).value();
  }

  testing::TempDir dir_;
  std::optional<Host> host_;
  std::optional<Client> client_;
};

constexpr char kFma[] = R"(
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>, %z: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.multiply %x, %y : tensor<4xf32>
  %1 = stablehlo.add %0, %z : tensor<4xf32>
  return %1 : tensor<4xf32>
}
)";

TEST_F(CpuExecuteTest, FusedChainComputesXTimesYPlusZ) {
  Executable executable = Compile(kFma);
  EXPECT_EQ(executable.output_types(), std::vector<ElementType>{ElementType::kF32});
  EXPECT_EQ(executable.output_dims(), (std::vector<std::vector<int64_t>>{{4}}));
  Buffer x = F32({1, 2, 3, 4}, {4}), y = F32({10, 20, 30, 40}, {4}), z = F32({0.5, 0.5, 0.5, 0.5}, {4});
  Result<ExecuteResult> result = executable.Execute({{&x, &y, &z}});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_TRUE(result->completion[0].Await().ok());
  EXPECT_THAT(ReadF32(result->outputs[0][0]), ElementsAre(10.5f, 40.5f, 90.5f, 160.5f));
}

TEST_F(CpuExecuteTest, WrongArgumentCountIsRejectedAtExecute) {
  Executable executable = Compile(kFma);
  Buffer x = F32({1, 2, 3, 4}, {4});
  Result<ExecuteResult> result = executable.Execute({{&x}});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), HasSubstr("@main takes 3 arguments, got 1"));
}

TEST_F(CpuExecuteTest, WrongArgumentShapeIsRejectedNamingBoth) {
  Executable executable = Compile(kFma);
  Buffer x = F32({1, 2, 3, 4}, {4}), y = F32({1, 2}, {2}), z = F32({1, 2, 3, 4}, {4});
  Result<ExecuteResult> result = executable.Execute({{&x, &y, &z}});
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(),
              HasSubstr("argument 1 must be tensor<4xf32>, got a buffer of tensor<2xf32>"));
}

TEST_F(CpuExecuteTest, ParseErrorNamesSourceLineAndColumn) {
  CompileOptions options;
  options.options["source_name"] = std::string("bad.mlir");
  Result<Executable> executable = client_->Compile("func.func @main() {\n  %0 = stablehlo.frob\n}", options);
  ASSERT_FALSE(executable.ok());
  EXPECT_EQ(executable.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(executable.status().message(), HasSubstr("bad.mlir:2:"));
}

TEST_F(CpuExecuteTest, ProgramNeedingMoreDevicesThanTheClientHasIsRejected) {
  CompileOptions options;
  options.num_replicas = 8;
  Result<Executable> executable = client_->Compile(kFma, options);
  ASSERT_FALSE(executable.ok());
  EXPECT_THAT(executable.status().message(), HasSubstr("needs 8 devices"));
  EXPECT_THAT(executable.status().message(), HasSubstr("device_count"));
}

TEST_F(CpuExecuteTest, UnknownCompileOptionIsRejected) {
  CompileOptions options;
  options.options["turbo"] = true;
  Result<Executable> executable = client_->Compile(kFma, options);
  ASSERT_FALSE(executable.ok());
  EXPECT_THAT(executable.status().message(), HasSubstr("unknown cpu compile option 'turbo'"));
}

TEST_F(CpuExecuteTest, ReplicatedProgramRunsOnEveryAssignedDevice) {
  CompileOptions options;
  options.num_replicas = 2;
  options.device_assignment = {3, 1};
  Executable executable = Compile(kFma, options);
  ASSERT_EQ(executable.addressable_devices().size(), 2u);
  EXPECT_EQ(executable.addressable_devices()[0].id(), 3);
  EXPECT_EQ(executable.addressable_devices()[1].id(), 1);
  Buffer a = F32({1, 1, 1, 1}, {4}, 3), b = F32({2, 2, 2, 2}, {4}, 1);
  Result<ExecuteResult> result = executable.Execute({{&a, &a, &a}, {&b, &b, &b}});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_THAT(ReadF32(result->outputs[0][0]), ElementsAre(2, 2, 2, 2));
  EXPECT_THAT(ReadF32(result->outputs[1][0]), ElementsAre(6, 6, 6, 6));
  Result<Device> device = result->outputs[1][0].device();
  ASSERT_TRUE(device.ok());
  EXPECT_EQ(device->id(), 1);
}

TEST_F(CpuExecuteTest, ManyConcurrentExecutionsOnSharedBuffers) {
  Executable executable = Compile(kFma);
  Buffer x = F32({1, 2, 3, 4}, {4}), y = F32({2, 2, 2, 2}, {4}), z = F32({1, 1, 1, 1}, {4});
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        Result<ExecuteResult> result = executable.Execute({{&x, &y, &z}});
        if (!result.ok()) {
          ++failures;
          continue;
        }
        std::vector<float> out(4);
        if (!result->outputs[0][0].ToHost(out.data(), 16).ok() ||
            out != std::vector<float>{3, 5, 7, 9}) {
          ++failures;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_F(CpuExecuteTest, OutputsOutliveTheExecutableAndInputs) {
  std::optional<Buffer> output;
  {
    Executable executable = Compile(kFma);
    Buffer x = F32({1, 2, 3, 4}, {4});
    Result<ExecuteResult> result = executable.Execute({{&x, &x, &x}});
    ASSERT_TRUE(result.ok());
    output.emplace(std::move(result->outputs[0][0]));
  }
  EXPECT_THAT(ReadF32(*output), ElementsAre(2, 6, 12, 20));
}

TEST_F(CpuExecuteTest, DeletedArgumentIsRefused) {
  Executable executable = Compile(kFma);
  Buffer x = F32({1, 2, 3, 4}, {4});
  ASSERT_TRUE(x.Delete().ok());
  Result<ExecuteResult> result = executable.Execute({{&x, &x, &x}});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kFailedPrecondition);
}

TEST_F(CpuExecuteTest, LargeFusedChainMatchesScalarComputation) {
  const int64_t n = 1 << 18;
  std::vector<float> xs(n), ys(n), zs(n);
  for (int64_t i = 0; i < n; ++i) {
    xs[i] = static_cast<float>(i % 97);
    ys[i] = 0.5f;
    zs[i] = static_cast<float>(i % 13);
  }
  std::string program = std::string(kFma);
  const std::string from = "tensor<4xf32>", to = "tensor<262144xf32>";
  for (size_t pos = program.find(from); pos != std::string::npos;
       pos = program.find(from, pos + to.size())) {
    program.replace(pos, from.size(), to);
  }
  Executable executable = Compile(program);
  Buffer x = F32(xs, {n}), y = F32(ys, {n}), z = F32(zs, {n});
  Result<ExecuteResult> result = executable.Execute({{&x, &y, &z}});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  std::vector<float> out = ReadF32(result->outputs[0][0]);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], xs[i] * 0.5f + zs[i]) << i;
}


TEST_F(CpuExecuteTest, ShortProgramWithReadyInputsIsCompleteWhenExecuteReturns) {
  Executable executable = Compile(kFma);
  Buffer x = F32({1, 2, 3, 4}, {4});
  Result<Event> x_ready = x.ReadyEvent();
  ASSERT_TRUE(x_ready.ok() && x_ready->Await().ok());
  Result<ExecuteResult> result = executable.Execute({{&x, &x, &x}});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  // Run on the caller's thread: no wait for a stream thread.
  EXPECT_TRUE(result->completion[0].IsReady());
  EXPECT_THAT(ReadF32(result->outputs[0][0]), ElementsAre(2, 6, 12, 20));
}

TEST_F(CpuExecuteTest, ShortProgramOnAPendingOutputRunsAfterItsProducer) {
  // The producer reads 1M elements (not short: queued on the stream); the
  // consumer is short but its input is not ready when it is launched.
  const int64_t n = 1 << 20;
  constexpr char kSum[] = R"(
func.func @main(%a: tensor<1048576xf32>) -> tensor<f32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%a init: %zero) applies stablehlo.add across dimensions = [0]
      : (tensor<1048576xf32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
})";
  constexpr char kDouble[] = R"(
func.func @main(%a: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %a, %a : tensor<f32>
  return %0 : tensor<f32>
})";
  Executable sum = Compile(kSum), twice = Compile(kDouble);
  Buffer ones = F32(std::vector<float>(n, 1.0f), {n});
  for (int i = 0; i < 20; ++i) {
    Result<ExecuteResult> total = sum.Execute({{&ones}});
    ASSERT_TRUE(total.ok()) << total.status().ToString();
    Result<ExecuteResult> doubled = twice.Execute({{&total->outputs[0][0]}});
    ASSERT_TRUE(doubled.ok()) << doubled.status().ToString();
    ASSERT_THAT(ReadF32(doubled->outputs[0][0]), ElementsAre(2.0f * n));
  }
}

}  // namespace
}  // namespace berth
