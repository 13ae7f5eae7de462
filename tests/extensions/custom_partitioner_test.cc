// The custom_partitioner extension: rules registered by the application and
// by an extension module (the row_softmax example) used by the cpu plugin
// when it partitions a sharded program, checked against scalar loops and the
// unpartitioned run; the per-device text of the SDK's partitioner with the
// example's rule; failing rules, duplicate and missing registrations, and a
// plugin without the extension.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <regex>
#include <utility>

#include "abi_version/executable_file.hpp"
#include "berth/spmd/custom_rules.hpp"
#include "berth/spmd/gspmd.hpp"
#include "berth/spmd/partitioner.hpp"
#include "berth/stablehlo/parser.hpp"
#include "extension_test_util.hpp"
#include "partitioned_run.hpp"

namespace berth {
namespace {

using ::testing::HasSubstr;
using testing::CpuRunner;
using testing::Literal;
using CustomPartitionerTest = testing::ExtensionTest;

// example.row_softmax over a value of `dims` laid out as `sharding` (its
// result the same way).
std::string RowSoftmaxProgram(const std::string& dims, const std::string& sharding, int64_t partitions) {
  const std::string type = "tensor<" + dims + "xf32>";
  return "module @m attributes {mhlo.num_partitions = " + std::to_string(partitions) + " : i32} {\n" +
         "  func.func @main(%x: " + type + " {mhlo.sharding = \"" + sharding + "\"}) -> (" + type +
         " {mhlo.sharding = \"" + sharding + "\"}) {\n" +
         "    %y = stablehlo.custom_call @example.row_softmax(%x) : (" + type + ") -> " + type + "\n" +
         "    %z = stablehlo.add %y, %y : " + type + "\n" +
         "    return %z : " + type + "\n  }\n}\n";
}

// 2 * softmax of each row, as a scalar loop.
Literal TwiceRowSoftmax(const Literal& x) {
  const int64_t row = x.dims.back();
  std::vector<float> in(x.bytes.size() / sizeof(float)), out(in.size());
  std::memcpy(in.data(), x.bytes.data(), x.bytes.size());
  for (size_t start = 0; start < in.size(); start += static_cast<size_t>(row)) {
    double max = in[start], sum = 0;
    for (int64_t i = 1; i < row; ++i) max = std::max<double>(max, in[start + i]);
    for (int64_t i = 0; i < row; ++i) sum += std::exp(in[start + i] - max);
    for (int64_t i = 0; i < row; ++i) {
      const float y = static_cast<float>(std::exp(in[start + i] - max) / sum);
      out[start + i] = y + y;
    }
  }
  return Literal::Of(out, x.dims);
}

TEST(CustomPartitionerModuleTest, ExampleRowSoftmaxGivesTheScalarLoopOnEveryLayout) {
  // The example's two manifests are on BERTH_ADD_PLUGIN_PATH (meson.build).
  std::mt19937_64 rng(1606);
  const std::vector<std::pair<std::string, int64_t>> rank2 = {
      {"{devices=[2,1]<=[2]}", 2}, {"{devices=[4,1]<=[4]}", 4},   {"{devices=[1,2]<=[2]}", 2},
      {"{devices=[2,2]<=[4]}", 4}, {"{devices=[2,1,2]<=[4] last_tile_dim_replicate}", 4},
      {"{replicated}", 2}};
  const std::vector<std::pair<std::string, int64_t>> rank3 = {
      {"{devices=[2,1,1]<=[2]}", 2}, {"{devices=[2,2,1]<=[4]}", 4}, {"{devices=[1,1,2]<=[2]}", 2},
      {"{devices=[2,1,2]<=[4]}", 4}, {"{devices=[1,2,1,2]<=[4] last_tile_dim_replicate}", 4}};
  const std::vector<std::pair<std::vector<int64_t>, const std::vector<std::pair<std::string, int64_t>>*>> cases = {
      {{8, 6}, &rank2}, {{4, 16}, &rank2}, {{8, 2, 10}, &rank3}};
  for (const auto& [shape, layouts] : cases) {
    std::string dims;
    for (int64_t d : shape) dims += (dims.empty() ? "" : "x") + std::to_string(d);
    for (const auto& [sharding, partitions] : *layouts) {
      SCOPED_TRACE(dims + " " + sharding);
      const Literal x = spmd_testing::RandomLiteral(ElementType::kF32, shape, rng);
      spmd_testing::ExpectPluginPartitionedRunGives(RowSoftmaxProgram(dims, sharding, partitions), {x},
                                                    {TwiceRowSoftmax(x)});
    }
  }
}

// `berth run` of the example (row-sharded over 2 devices) with both of its
// manifests (the rule cuts the call) prints what it prints with the FFI
// module alone (the call runs whole on gathered rows).
TEST(CustomPartitionerModuleTest, BerthRunCutsTheCallWithTheModulesRule) {
  std::mt19937_64 rng(31);
  std::uniform_real_distribution<float> value(-3, 3);
  const std::string arg =
      "'" + testing::DenseMatrixText(8, 6, "f32", [&](int64_t, int64_t) { return value(rng); }) +
      "'";
  const std::string dir = std::string(BERTH_ROW_SOFTMAX_LIBRARY).substr(0, std::string(BERTH_ROW_SOFTMAX_LIBRARY).rfind('/'));
  const std::string run = std::string(BERTH_EXE) + " run " + BERTH_SOURCE_ROOT +
                          "/extensions/custom_partitioner/examples/row_softmax.mlir --arg " + arg + " 2>&1";
  testing::CommandResult cut = testing::RunCommand("BERTH_ADD_PLUGIN_PATH=" + dir + " " + run);
  testing::CommandResult whole = testing::RunCommand("BERTH_ADD_PLUGIN_PATH=" + dir + "/row_softmax_ffi.json " + run);
  ASSERT_EQ(cut.exit_code, 0) << cut.out;
  ASSERT_EQ(whole.exit_code, 0) << whole.out;
  EXPECT_EQ(cut.out, whole.out);
  EXPECT_NE(cut.out.find("tensor<8x6xf32>"), std::string::npos) << cut.out;
}

// `berth compile --partitioned` takes the same rules: with both manifests
// the per-device text calls the rule's per-shard computation on 4-row
// blocks; with the FFI module alone the call runs whole.
TEST(CustomPartitionerModuleTest, BerthCompilePartitionedWritesTheModulesRule) {
  const std::string dir = std::string(BERTH_ROW_SOFTMAX_LIBRARY).substr(0, std::string(BERTH_ROW_SOFTMAX_LIBRARY).rfind('/'));
  testing::TempDir out;
  auto compile = [&](const std::string& add_path, const std::string& name) {
    const std::string path = (out.path() / name).string();
    testing::CommandResult result = testing::RunCommand(
        "BERTH_ADD_PLUGIN_PATH=" + add_path + " " + std::string(BERTH_EXE) + " compile " + BERTH_SOURCE_ROOT +
        "/extensions/custom_partitioner/examples/row_softmax.mlir --partitioned -o " + path + " 2>&1");
    EXPECT_EQ(result.exit_code, 0) << result.out;
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::string cut = compile(dir, "cut.mlir");
  const std::string whole = compile(dir + "/row_softmax_ffi.json", "whole.mlir");
  EXPECT_NE(cut.find("berth.custom."), std::string::npos) << cut;
  EXPECT_NE(cut.find("tensor<4x6xf32>"), std::string::npos) << cut;
  EXPECT_EQ(whole.find("berth.custom."), std::string::npos) << whole;
  // A plugin named but not usable is an error, not a silent fallback.
  testing::CommandResult missing = testing::RunCommand(
      std::string(BERTH_EXE) + " compile " + BERTH_SOURCE_ROOT +
      "/extensions/custom_partitioner/examples/row_softmax.mlir --partitioned --plugin no_such_plugin -o " +
      (out.path() / "x.mlir").string() + " 2>&1");
  EXPECT_EQ(missing.exit_code, 1) << missing.out;
  EXPECT_NE(missing.out.find("no_such_plugin"), std::string::npos) << missing.out;
}

// The example's rule as the SDK partitioner takes it, read from its library.
spmd::CustomCallRules ExampleRules() {
  void* library = dlopen(BERTH_ROW_SOFTMAX_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  EXPECT_NE(library, nullptr) << dlerror();
  auto* get = reinterpret_cast<BERTH_CustomPartitioner_GetModule_Fn*>(
      dlsym(library, BERTH_CUSTOM_PARTITIONER_GET_MODULE_SYMBOL));
  EXPECT_NE(get, nullptr);
  const BERTH_CustomPartitioner_Rule& rule = get()->rules[0];
  return {{std::string(rule.target, rule.target_size), spmd::RuleFromC(rule, nullptr)}};
}

Result<std::string> PerDeviceText(const std::string& global, const spmd::CustomCallRules& rules) {
  stablehlo::ParseOptions parse;
  parse.verify = true;
  BERTH_ASSIGN_OR_RETURN(stablehlo::Module module, stablehlo::ParseModule(global, "<test>", parse));
  spmd::PartitionOptions options;
  options.custom_rules = rules;
  BERTH_ASSIGN_OR_RETURN(spmd::PartitionedProgram program, spmd::Partition(module, options));
  return program.text;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

TEST(CustomPartitionerModuleTest, RowCutsRunOnLocalRowsWithNoCollective) {
  for (const auto& [sharding, partitions] :
       std::vector<std::pair<std::string, int64_t>>{{"{devices=[4,1]<=[4]}", 4}, {"{devices=[2,1]<=[2]}", 2}}) {
    Result<std::string> text = PerDeviceText(RowSoftmaxProgram("8x6", sharding, partitions), ExampleRules());
    ASSERT_TRUE(text.ok()) << text.status().ToString();
    const std::string local = "tensor<" + std::to_string(8 / partitions) + "x6xf32>";
    EXPECT_THAT(*text, HasSubstr("call_target_name = \"example.row_softmax\"")) << *text;
    EXPECT_THAT(*text, HasSubstr("(" + local + ") -> " + local)) << *text;
    for (const char* collective : {"all_gather", "all_reduce", "all_to_all", "collective_permute"}) {
      EXPECT_EQ(Count(*text, collective), 0u) << collective << " in\n" << *text;
    }
  }
}

TEST(CustomPartitionerModuleTest, ACutRowIsGatheredOnceAndCutAgainForTheResult) {
  Result<std::string> text = PerDeviceText(RowSoftmaxProgram("8x6", "{devices=[1,2]<=[2]}", 2), ExampleRules());
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(Count(*text, "\"stablehlo.all_gather\""), 1u) << *text;
  EXPECT_THAT(*text, HasSubstr("(tensor<8x6xf32>) -> tensor<8x6xf32>")) << *text;
}

TEST(CustomPartitionerModuleTest, AUserShardingIsFollowedBackwards) {
  // The operand arrives whole; the constraint after the call asks for rows,
  // and the rule follows it: each device runs the call on its 2 rows, cut
  // from the whole operand locally, and nothing is gathered.
  const std::string text = R"(
module @m attributes {mhlo.num_partitions = 4 : i32} {
  func.func @main(%x: tensor<8x6xf32>) -> (tensor<8x6xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) {
    %y = stablehlo.custom_call @example.row_softmax(%x) : (tensor<8x6xf32>) -> tensor<8x6xf32>
    %z = stablehlo.custom_call @Sharding(%y) {mhlo.sharding = "{devices=[4,1]<=[4]}"} : (tensor<8x6xf32>) -> tensor<8x6xf32>
    return %z : tensor<8x6xf32>
  }
})";
  Result<std::string> partitioned = PerDeviceText(text, ExampleRules());
  ASSERT_TRUE(partitioned.ok()) << partitioned.status().ToString();
  EXPECT_THAT(*partitioned, HasSubstr("(tensor<2x6xf32>) -> tensor<2x6xf32>")) << *partitioned;
  EXPECT_EQ(Count(*partitioned, "all_gather"), 0u) << *partitioned;
  std::mt19937_64 rng(7);
  const Literal x = spmd_testing::RandomLiteral(ElementType::kF32, {8, 6}, rng);
  Literal expected = TwiceRowSoftmax(x);
  for (size_t i = 0; i < expected.bytes.size(); i += sizeof(float)) {  // once, not twice
    float v;
    std::memcpy(&v, &expected.bytes[i], sizeof v);
    v /= 2;
    std::memcpy(&expected.bytes[i], &v, sizeof v);
  }
  spmd_testing::ExpectPluginPartitionedRunGives(text, {x}, {expected});
}

// ------------------------------------------------ rules the application gives

// test.affine: y = 2 x + 1 elementwise, an FFI handler and a rule that keeps
// any layout.
Status Affine(FfiCall& call) {
  if (call.preparing()) return OkStatus();
  auto in = call.operand<float>(0);
  auto out = call.result<float>(0);
  for (size_t i = 0; i < in.size(); ++i) out[i] = 2 * in[i] + 1;
  return OkStatus();
}

std::string LocalType(const CustomPartitionerSite& site, const std::string& sharding) {
  // The operand's type cut as `sharding` says (tensor<RxCxf32>).
  std::smatch m;
  std::regex_search(site.operands[0].type, m, std::regex(R"(<(\d+)x(\d+)x)"));
  int64_t rows = std::stoll(m[1]), cols = std::stoll(m[2]);
  Result<spmd::Sharding> parsed = spmd::ParseGspmdSharding(sharding);
  if (parsed.ok() && parsed->IsTiled()) {
    rows /= parsed->TilesAlong(0);
    cols /= parsed->TilesAlong(1);
  }
  return "tensor<" + std::to_string(rows) + "x" + std::to_string(cols) + "xf32>";
}

CustomPartitionerRule AffineRule(std::string identity = "affine v1") {
  CustomPartitionerRule rule;
  rule.identity = std::move(identity);
  rule.infer_result_shardings = [](const CustomPartitionerSite& site) -> Result<std::vector<std::string>> {
    return std::vector<std::string>{site.operands[0].sharding};
  };
  rule.partition = [](const CustomPartitionerSite& site) -> Result<CustomPartitioning> {
    if (site.target != "test.affine" || site.num_partitions < 2) return InternalError("unexpected site");
    const std::string local = LocalType(site, site.results[0].sharding);
    CustomPartitioning out;
    out.computation = "func.func @main(%x: " + local + ") -> " + local + " {\n  %y = stablehlo.custom_call @test.affine(%x) : (" +
                      local + ") -> " + local + "\n  return %y : " + local + "\n}";
    return out;
  };
  return rule;
}

std::string AffineProgram(const std::string& sharding, int64_t partitions) {
  return "module @m attributes {mhlo.num_partitions = " + std::to_string(partitions) + " : i32} {\n" +
         "  func.func @main(%x: tensor<8x4xf32> {mhlo.sharding = \"" + sharding +
         "\"}) -> (tensor<8x4xf32> {mhlo.sharding = \"" + sharding + "\"}) {\n" +
         "    %y = stablehlo.custom_call @test.affine(%x) : (tensor<8x4xf32>) -> tensor<8x4xf32>\n" +
         "    return %y : tensor<8x4xf32>\n  }\n}\n";
}

// Registers test.affine's handler once on the shared runner's client.
Client& RunnerWithAffine() {
  Client& client = CpuRunner::Get().client();
  static const bool registered = client.RegisterFfiHandler("test.affine", Affine).ok();
  EXPECT_TRUE(registered);
  return client;
}

TEST(CustomPartitionerApplicationTest, ARegisteredRuleCutsTheCallAndMatchesTheScalarLoop) {
  Client& client = RunnerWithAffine();
  Result<CustomPartitionerHandle> handle = client.RegisterCustomPartitioner("test.affine", AffineRule());
  ASSERT_TRUE(handle.ok()) << handle.status().ToString();
  EXPECT_EQ(handle->identity.size(), 64u);
  std::mt19937_64 rng(42);
  for (const auto& [sharding, partitions] : std::vector<std::pair<std::string, int64_t>>{
           {"{devices=[2,1]<=[2]}", 2}, {"{devices=[1,4]<=[4]}", 4}, {"{devices=[2,2]<=[4]}", 4}}) {
    SCOPED_TRACE(sharding);
    const Literal x = spmd_testing::RandomLiteral(ElementType::kF32, {8, 4}, rng);
    std::vector<float> expected(32);
    std::memcpy(expected.data(), x.bytes.data(), x.bytes.size());
    for (float& v : expected) v = 2 * v + 1;
    spmd_testing::ExpectPluginPartitionedRunGives(AffineProgram(sharding, partitions), {x},
                                                  {Literal::Of(expected, {8, 4})});
  }
  EXPECT_TRUE(client.UnregisterCustomPartitioner(*handle).ok());
}

TEST(CustomPartitionerApplicationTest, ADuplicateTargetIsRefusedUntilUnregistered) {
  Client& client = CpuRunner::Get().client();
  Result<CustomPartitionerHandle> first = client.RegisterCustomPartitioner("test.duplicate", AffineRule());
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  Result<CustomPartitionerHandle> second = client.RegisterCustomPartitioner("test.duplicate", AffineRule("v2"));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kAlreadyExists);
  EXPECT_THAT(second.status().message(), HasSubstr("'test.duplicate' already has a partitioning rule"));
  ASSERT_TRUE(client.UnregisterCustomPartitioner(*first).ok());
  Status again = client.UnregisterCustomPartitioner(*first);
  EXPECT_EQ(again.code(), StatusCode::kNotFound) << again.ToString();
  Result<CustomPartitionerHandle> third = client.RegisterCustomPartitioner("test.duplicate", AffineRule("v2"));
  ASSERT_TRUE(third.ok()) << third.status().ToString();
  // The identity is the content's: another text, another identity; the
  // same text, the same one.
  EXPECT_NE(third->identity, first->identity);
  ASSERT_TRUE(client.UnregisterCustomPartitioner(*third).ok());
  Result<CustomPartitionerHandle> fourth = client.RegisterCustomPartitioner("test.duplicate", AffineRule());
  ASSERT_TRUE(fourth.ok());
  EXPECT_EQ(fourth->identity, first->identity);
  EXPECT_NE(fourth->id, first->id);
  EXPECT_TRUE(client.UnregisterCustomPartitioner(*fourth).ok());
}

TEST(CustomPartitionerApplicationTest, ARuleWithoutPartitionOrIdentityIsRefused) {
  Client& client = CpuRunner::Get().client();
  CustomPartitionerRule no_partition = AffineRule();
  no_partition.partition = nullptr;
  EXPECT_EQ(client.RegisterCustomPartitioner("test.x", no_partition).status().code(), StatusCode::kInvalidArgument);
  Result<CustomPartitionerHandle> anonymous = client.RegisterCustomPartitioner("test.x", AffineRule(""));
  EXPECT_EQ(anonymous.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(anonymous.status().message(), HasSubstr("no identity"));
  EXPECT_EQ(client.RegisterCustomPartitioner("", AffineRule()).status().code(), StatusCode::kInvalidArgument);
}

// Compiles the affine program over 2 devices with `rule` registered.
Status CompileWith(CustomPartitionerRule rule) {
  Client& client = RunnerWithAffine();
  Result<CustomPartitionerHandle> handle = client.RegisterCustomPartitioner("test.affine", std::move(rule));
  if (!handle.ok()) return handle.status();
  Result<Executable> executable = client.Compile(AffineProgram("{devices=[2,1]<=[2]}", 2));
  EXPECT_TRUE(client.UnregisterCustomPartitioner(*handle).ok());
  return executable.status();
}

TEST(CustomPartitionerApplicationTest, AFailingRuleFailsTheCompileNamingTargetAndStep) {
  CustomPartitionerRule failing = AffineRule();
  failing.partition = [](const CustomPartitionerSite&) -> Result<CustomPartitioning> {
    return FailedPreconditionError("rows must be even");
  };
  Status status = CompileWith(failing);
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("@test.affine"));
  EXPECT_THAT(status.message(), HasSubstr("partition failed: rows must be even"));

  CustomPartitionerRule throwing = AffineRule();
  throwing.infer_result_shardings = [](const CustomPartitionerSite&) -> Result<std::vector<std::string>> {
    throw std::runtime_error("boom");
  };
  status = CompileWith(throwing);
  EXPECT_EQ(status.code(), StatusCode::kInternal);
  EXPECT_THAT(status.message(), HasSubstr("infer_result_shardings failed: the rule threw: boom"));

  CustomPartitionerRule bad_sharding = AffineRule();
  bad_sharding.infer_result_shardings = [](const CustomPartitionerSite&) -> Result<std::vector<std::string>> {
    return std::vector<std::string>{"{devices=[2,1]"};
  };
  status = CompileWith(bad_sharding);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("infer_result_shardings gave result 0 the sharding '{devices=[2,1]'"));

  CustomPartitionerRule wrong_shapes = AffineRule();
  wrong_shapes.partition = [](const CustomPartitionerSite&) -> Result<CustomPartitioning> {
    CustomPartitioning out;
    out.computation = "func.func @main(%x: tensor<8x4xf32>) -> tensor<8x4xf32> { return %x : tensor<8x4xf32> }";
    return out;
  };
  status = CompileWith(wrong_shapes);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("partition's @main is (tensor<8x4xf32>) -> (tensor<8x4xf32>); the shards "
                                          "are (tensor<4x4xf32>) -> (tensor<4x4xf32>)"));

  CustomPartitionerRule not_a_program = AffineRule();
  not_a_program.partition = [](const CustomPartitionerSite&) -> Result<CustomPartitioning> {
    return CustomPartitioning{"func.func @main(", {}, {}};
  };
  status = CompileWith(not_a_program);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("per-shard computation of @test.affine"));

  // The client still compiles with a good rule afterwards.
  EXPECT_TRUE(CompileWith(AffineRule()).ok());
}

// Runs a 2-device executable of AffineProgram on `x` split in halves; the
// two output halves, concatenated.
std::vector<float> RunHalves(Client& client, const Executable& executable, const std::vector<float>& x) {
  std::vector<Buffer> halves;
  for (int d = 0; d < 2; ++d) {
    Result<Buffer> b = client.BufferFromHost(x.data() + 16 * d, ElementType::kF32, std::vector<int64_t>{4, 4},
                                             executable.addressable_devices()[d]);
    EXPECT_TRUE(b.ok()) << b.status().ToString();
    halves.push_back(std::move(b).value());
  }
  Result<ExecuteResult> result = executable.Execute({{&halves[0]}, {&halves[1]}});
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  std::vector<float> out(32);
  for (int d = 0; d < 2 && result.ok(); ++d) {
    EXPECT_TRUE(result->completion[d].Await().ok());
    EXPECT_TRUE(result->outputs[d][0].ToHost(out.data() + 16 * d, 16 * sizeof(float)).ok());
  }
  return out;
}

// A serialized executable (a cpu-plan) holds the partitioned program: it
// loads and runs the same whatever rules the loading client has (the
// compilation cache keys on the rules instead). An executable ABI 1.0 file
// (source and options, compiled again) is partitioned again at load, so it
// needs the same rules by content and is refused otherwise.
TEST(CustomPartitionerApplicationTest, SerializedExecutablesNeedTheRulesOnlyWhenCompiledAgain) {
  Client& client = RunnerWithAffine();
  Result<CustomPartitionerHandle> handle = client.RegisterCustomPartitioner("test.affine", AffineRule());
  ASSERT_TRUE(handle.ok()) << handle.status().ToString();
  const std::string program = AffineProgram("{devices=[2,1]<=[2]}", 2);
  Result<Executable> executable = client.Compile(program);
  ASSERT_TRUE(executable.ok()) << executable.status().ToString();
  Result<std::string> bytes = executable->Serialize();
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  std::vector<float> x(32);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.25f * static_cast<float>(i) - 3;
  const std::vector<float> expected = RunHalves(client, *executable, x);
  EXPECT_EQ(expected[5], 2 * x[5] + 1);

  ASSERT_TRUE(client.UnregisterCustomPartitioner(*handle).ok());
  Result<Executable> without = client.Deserialize(*bytes);
  ASSERT_TRUE(without.ok()) << without.status().ToString();
  EXPECT_EQ(without->parameter_shardings().size(), 1u);
  EXPECT_EQ(RunHalves(client, *without, x), expected);

  // The same program as an executable ABI 1.0 file.
  Result<ext::abi_version::ExecutableFile> file = ext::abi_version::DecodeExecutableFile(*bytes, "new");
  ASSERT_TRUE(file.ok());
  ext::abi_version::ExecutableFileHeader old = file->header;
  old.executable = {1, 0};
  nlohmann::json payload = {{"format", "berth-cpu-executable"}, {"source", program}, {"entry_name", ""},
                            {"num_replicas", 0}, {"num_partitions", 0}, {"device_assignment", nlohmann::json::array()},
                            {"options", nlohmann::json::object()},
                            {"custom_partitioners", {{"test.affine", handle->identity}}}};
  const std::string old_bytes = ext::abi_version::EncodeExecutableFile(old, payload.dump());
  Result<Executable> old_without = client.Deserialize(old_bytes);
  EXPECT_EQ(old_without.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(old_without.status().message(), HasSubstr("rule for 'test.affine' of identity " + handle->identity +
                                                        "; this client's is none"));
  Result<CustomPartitionerHandle> other = client.RegisterCustomPartitioner("test.affine", AffineRule("affine v2"));
  ASSERT_TRUE(other.ok());
  Result<Executable> changed = client.Deserialize(old_bytes);
  EXPECT_EQ(changed.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(changed.status().message(), HasSubstr("this client's is " + other->identity));
  EXPECT_TRUE(client.Deserialize(*bytes).ok());  // the cpu-plan still loads
  ASSERT_TRUE(client.UnregisterCustomPartitioner(*other).ok());
  Result<CustomPartitionerHandle> same = client.RegisterCustomPartitioner("test.affine", AffineRule());
  ASSERT_TRUE(same.ok());
  Result<Executable> old_same = client.Deserialize(old_bytes);
  ASSERT_TRUE(old_same.ok()) << old_same.status().ToString();
  EXPECT_EQ(RunHalves(client, *old_same, x), expected);
  EXPECT_TRUE(client.UnregisterCustomPartitioner(*same).ok());
}

TEST_F(CustomPartitionerTest, PluginWithoutTheExtensionAnswersUnimplemented) {
  Client good = GoodWithout(BERTH_Extension_Type_CustomPartitioner);
  Result<CustomPartitionerHandle> handle = good.RegisterCustomPartitioner("test.affine", AffineRule());
  ASSERT_FALSE(handle.ok());
  EXPECT_EQ(handle.status().code(), StatusCode::kUnimplemented);
  EXPECT_THAT(handle.status().message(), HasSubstr("'custom_partitioner' extension"));
  EXPECT_EQ(good.UnregisterCustomPartitioner(CustomPartitionerHandle{1, "test.affine", ""}).code(),
            StatusCode::kUnimplemented);
  EXPECT_TRUE(cpu().HasExtension(BERTH_Extension_Type_CustomPartitioner));
}

TEST_F(CustomPartitionerTest, ModulesAttachToClientsAndShowTheirTargets) {
  AddExtension("row_softmax_ffi.json", {{"name", "rs-ffi"}, {"applies_to", {"cpu"}}, {"type", "ffi"},
                                        {"library_path", BERTH_ROW_SOFTMAX_LIBRARY}, {"api_version", "1.2"}});
  AddExtension("row_softmax_rule.json", {{"name", "rs-rule"}, {"applies_to", {"cpu"}}, {"type", "custom_partitioner"},
                                         {"library_path", BERTH_ROW_SOFTMAX_LIBRARY}, {"api_version", "1.2"}});
  AddExtension("no_rules.json", {{"name", "no-rules"}, {"applies_to", {"cpu"}}, {"type", "custom_partitioner"},
                                 {"library_path", BERTH_FFI_TESTLIB}, {"api_version", "1.2"}});
  Client client = NewClient("cpu");
  // The module's rule is the client's: registering the target again is refused.
  Result<CustomPartitionerHandle> again = client.RegisterCustomPartitioner("example.row_softmax", AffineRule());
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists) << again.status().ToString();
  bool shown = false, refused = false;
  for (const PluginInfo& info : host().Plugins()) {
    if (info.name == "rs-rule") {
      auto targets = info.attributes.find("custom_partitioner_targets");
      shown = targets != info.attributes.end() && std::get<std::string>(targets->second) == "example.row_softmax";
    }
    if (info.name == "no-rules") refused = info.reason == "invalid_module";
  }
  EXPECT_TRUE(shown);
  EXPECT_TRUE(refused);
}

}  // namespace
}  // namespace berth
