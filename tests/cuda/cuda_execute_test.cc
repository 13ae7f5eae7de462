// Programs on a GPU (skipped, saying why, where the cuda client cannot be
// made - every machine without a GPU): each kernel family against the cpu
// plugin, a long chain with a constant over more elements than one grid
// covers, outputs that must be copies, buffers and their refusals, each
// allocator, out of memory, failed checks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "berth/berth.hpp"
#include "berth/stablehlo/parser.hpp"
#include "family_check.hpp"
#include "fft_check.hpp"
#include "kernel_families.hpp"

namespace berth::cuda {
namespace {

using ::testing::HasSubstr;

class CudaExecuteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.Write("cuda.json", berth::testing::PluginManifest("cuda", BERTH_CUDA_PLUGIN));
    berth::testing::ScopedEnv path("BERTH_PLUGIN_PATH", dir_.path().string());
    Result<Host> host = Host::Create();
    ASSERT_TRUE(host.ok()) << host.status().ToString();
    host_.emplace(std::move(host).value());
    // Not preallocated: the tests make further clients on the same GPU.
    Result<Client> client = MakeClient({{"preallocate", false}});
    if (!client.ok() && client.status().code() == StatusCode::kFailedPrecondition) {
      GTEST_SKIP() << "no GPU: " << client.status().ToString();
    }
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    client_.emplace(std::move(client).value());
  }

  Result<Client> MakeClient(NamedValueMap options) {
    return host_->CreateClient("cuda", {options});
  }

  // Runs `text` on `client` and on the cpu plugin with the same random
  // arguments and compares every result.
  void ExpectSameAsCpu(Client& client, const std::string& name, const std::string& text,
                       int64_t ulps, int64_t half_ulps, uint64_t seed = 20261207,
                       bool small_values = false, bool finite_values = false) {
    SCOPED_TRACE(name);
    Result<stablehlo::Module> module = stablehlo::ParseModule(text, name);
    ASSERT_TRUE(module.ok()) << module.status().ToString();
    const stablehlo::Block& block = module->entry_function()->entry_block();
    std::vector<berth::testing::Literal> args =
        testing::RandomArguments(block, seed, small_values, finite_values);
    Result<std::vector<berth::testing::Literal>> want =
        berth::testing::CpuRunner::Get().Run(text, args);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    Result<std::vector<std::vector<berth::testing::Literal>>> got =
        berth::testing::RunOnClient(client, text, {args});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->at(0).size(), want->size());
    int mismatches = 0;
    for (size_t j = 0; j < want->size(); ++j) {
      EXPECT_EQ(got->at(0)[j].type, (*want)[j].type);
      EXPECT_EQ(got->at(0)[j].dims, (*want)[j].dims);
      mismatches += testing::CompareReturned(name, block, j, args, got->at(0)[j].bytes,
                                             (*want)[j].bytes, ulps, half_ulps);
    }
    EXPECT_EQ(mismatches, 0);
  }

  berth::testing::TempDir dir_;
  std::optional<Host> host_;
  std::optional<Client> client_;
};

TEST_F(CudaExecuteTest, EveryKernelFamilyGivesTheCpuPluginsResults) {
  for (const testing::KernelFamily& family : testing::KernelFamilies()) {
    // TriangularSolveKernelsSolveTheirSystems, FftKernelsGiveTheTransformsOfTheirOperands
    if (family.solves || family.transforms) continue;
    // The GPU's math functions are within a few ulps of the C library's.
    ExpectSameAsCpu(*client_, family.name, family.program.Text(),
                    family.ulps > 0 ? 2 * family.ulps : 0, family.half_ulps, 20261207,
                    family.small_values, family.finite_values);
  }
}

constexpr const char* kChainWithConstant =
    R"(func.func @main(%a: tensor<1048579xf32>, %b: tensor<1048579xf32>) -> (tensor<1048579xf32>, tensor<1048579xi1>) {
  %c = stablehlo.constant dense<0.5> : tensor<1048579xf32>
  %0 = stablehlo.multiply %a, %b : tensor<1048579xf32>
  %1 = stablehlo.add %0, %c : tensor<1048579xf32>
  %2 = stablehlo.maximum %1, %a : tensor<1048579xf32>
  %3 = stablehlo.compare GT, %2, %b, FLOAT : (tensor<1048579xf32>, tensor<1048579xf32>) -> tensor<1048579xi1>
  return %2, %3 : tensor<1048579xf32>, tensor<1048579xi1>
})";

// Runs each family `selected` picks on the GPU with the arguments
// `arguments(block, 20261208)` makes and checks what it returns with
// `check(name, block, args, results)` (a count of mismatches).
template <typename Selected, typename Arguments, typename Check>
void CheckFamiliesAgainstAReference(Client& client, Selected selected, Arguments arguments,
                                    Check check) {
  for (const testing::KernelFamily& family : testing::KernelFamilies()) {
    if (!selected(family)) continue;
    const std::string text = family.program.Text();
    Result<stablehlo::Module> module = stablehlo::ParseModule(text, family.name);
    ASSERT_TRUE(module.ok()) << module.status().ToString();
    const stablehlo::Block& block = module->entry_function()->entry_block();
    std::vector<berth::testing::Literal> args = arguments(block, 20261208);
    Result<std::vector<std::vector<berth::testing::Literal>>> got =
        berth::testing::RunOnClient(client, text, {args});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    std::vector<std::vector<std::byte>> results;
    for (const berth::testing::Literal& literal : got->at(0)) results.push_back(literal.bytes);
    EXPECT_EQ(check(family.name, block, args, results), 0);
  }
}

// As the host test of the same name: each solution against the system
// solved again in long double.
TEST_F(CudaExecuteTest, TriangularSolveKernelsSolveTheirSystems) {
  CheckFamiliesAgainstAReference(
      *client_, [](const testing::KernelFamily& f) { return f.solves; }, testing::SolveArguments,
      testing::CheckSolutions);
}

// As the host test of the same name: each result against the transform
// computed in long double.
TEST_F(CudaExecuteTest, FftKernelsGiveTheTransformsOfTheirOperands) {
  CheckFamiliesAgainstAReference(
      *client_, [](const testing::KernelFamily& f) { return f.transforms; },
      testing::TransformArguments, testing::CheckTransforms);
}

TEST_F(CudaExecuteTest, ChainOverMoreElementsThanOneGridWithAConstant) {
  ExpectSameAsCpu(*client_, "chain", kChainWithConstant, 0, 0);
}

TEST_F(CudaExecuteTest, ArgumentsConstantsAndRepeatedValuesReturnedAreCopies) {
  const std::string text =
      R"(func.func @main(%a: tensor<5xi32>) -> (tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<3xf32>) {
  %c = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = stablehlo.negate %a : tensor<5xi32>
  return %a, %0, %0, %c : tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<3xf32>
})";
  ExpectSameAsCpu(*client_, "copies", text, 0, 0);
}

TEST_F(CudaExecuteTest, EachAllocatorRunsPrograms) {
  for (const char* allocator : {"default", "cuda_async", "platform"}) {
    NamedValueMap options = {{"allocator", std::string(allocator)}, {"preallocate", false}};
    Result<Client> client = MakeClient(options);
    ASSERT_TRUE(client.ok()) << allocator << ": " << client.status().ToString();
    ExpectSameAsCpu(*client, allocator, kChainWithConstant, 0, 0, 5);
  }
}

TEST_F(CudaExecuteTest, BuffersRoundTripAndRefuseMisuse) {
  const Device& device = client_->devices()[0];
  std::vector<float> values(1000);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.25f - 7.0f;
  const std::vector<int64_t> dims = {10, 100};
  Result<Buffer> buffer = client_->BufferFromHost(values.data(), ElementType::kF32, dims, device);
  ASSERT_TRUE(buffer.ok()) << buffer.status().ToString();
  EXPECT_EQ(*buffer->on_device_size(), values.size() * sizeof(float));
  Result<std::vector<std::byte>> back = buffer->ToHostBytes();
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), values.size() * sizeof(float));
  EXPECT_EQ(std::memcmp(back->data(), values.data(), back->size()), 0);

  std::vector<float> small(4);
  EXPECT_EQ(buffer->ToHost(small.data(), small.size() * sizeof(float)).code(),
            StatusCode::kInvalidArgument);

  Result<Executable> executable =
      client_->Compile(R"(func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.abs %a : tensor<4xf32>
  return %0 : tensor<4xf32>
})");
  ASSERT_TRUE(executable.ok()) << executable.status().ToString();
  std::vector<const Buffer*> wrong = {&*buffer};
  Result<ExecuteResult> refused = executable->Execute({wrong});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("argument 0 is f32[10, 100]"));

  ASSERT_TRUE(buffer->Delete().ok());
  EXPECT_FALSE(buffer->ToHostBytes().ok());
}

TEST_F(CudaExecuteTest, OutOfMemoryIsResourceExhaustedNamingTheBytes) {
  // Preallocated: the pool takes its 1% now and never grows.
  Result<Client> client = MakeClient({{"memory_fraction", 0.01}});
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  const int64_t memory = std::get<int64_t>(client->devices()[0].attributes().at("memory_bytes"));
  const std::vector<int64_t> dims = {memory / 50};  // 2% of the GPU in bytes
  std::vector<uint8_t> host(static_cast<size_t>(dims[0]), 1);
  Result<Buffer> buffer =
      client->BufferFromHost(host.data(), ElementType::kU8, dims, client->devices()[0]);
  ASSERT_FALSE(buffer.ok());
  EXPECT_EQ(buffer.status().code(), StatusCode::kResourceExhausted);
  EXPECT_THAT(buffer.status().message(), HasSubstr(std::to_string(dims[0]) + " bytes asked"));
}

TEST_F(CudaExecuteTest, AFailedCheckFailsTheExecutionAsOnTheCpuPlugin) {
  const std::string passing = R"(func.func @main() {
  %a = stablehlo.iota dim = 0 : tensor<5xf32>
  %b = stablehlo.multiply %a, %a : tensor<5xf32>
  %t = stablehlo.reshape %b : (tensor<5xf32>) -> tensor<1x5xf32>
  check.expect_almost_eq_const %b, dense<[0.0, 1.0, 4.0, 9.0, 16.00001]> : tensor<5xf32>
  check.expect_eq %t, %t : tensor<1x5xf32>
  func.return
})";
  Result<std::vector<std::vector<berth::testing::Literal>>> ok =
      berth::testing::RunOnClient(*client_, passing, {{}});
  EXPECT_TRUE(ok.ok()) << ok.status().ToString();
  const std::string failing = R"(func.func @main() {
  %a = stablehlo.iota dim = 0 : tensor<5xf32>
  %b = stablehlo.multiply %a, %a : tensor<5xf32>
  check.expect_eq_const %b, dense<[0.0, 1.0, 4.0, 9.0, 16.0]> : tensor<5xf32>
  check.expect_eq_const %b, dense<[0.0, 1.0, 4.0, 9.5, 16.0]> : tensor<5xf32>
  check.expect_eq_const %a, dense<[1.0, 1.0, 2.0, 3.0, 4.0]> : tensor<5xf32>
  func.return
})";
  Result<std::vector<std::vector<berth::testing::Literal>>> got =
      berth::testing::RunOnClient(*client_, failing, {{}});
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(got.status().message(), HasSubstr("check failed: check.expect_eq_const: element [3] "
                                                "is 9, expected 9.5 (1 of 5 elements differ)"));
  Result<std::vector<berth::testing::Literal>> cpu =
      berth::testing::CpuRunner::Get().Run(failing, {});
  ASSERT_FALSE(cpu.ok());
  EXPECT_THAT(cpu.status().message(),
              HasSubstr("element [3] is 9, expected 9.5 (1 of 5 elements differ)"));
}

TEST_F(CudaExecuteTest, ProgramsWithOpsWithoutKernelsAreUnimplementedAtCompile) {
  Result<Executable> executable =
      client_->Compile(R"(func.func @main(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = stablehlo.cholesky %a, lower = true : tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
})");
  ASSERT_FALSE(executable.ok());
  EXPECT_EQ(executable.status().code(), StatusCode::kUnimplemented);
  EXPECT_THAT(executable.status().message(), HasSubstr("stablehlo.cholesky"));
}

}  // namespace
}  // namespace berth::cuda
