// The ffi extension end to end on the cpu plugin: handlers registered by the
// application, FFI modules (typed handlers and plain C functions bound by a
// manifest through libffi), compile-time checks, and a plugin without the
// extension.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "extension_test_util.hpp"

namespace berth {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class FfiExtensionTest : public testing::ExtensionTest {
 protected:
  // The test C library (extensions/ffi/testdata/ffi_testlib.c), bound only
  // by a manifest.
  void AddTestLibModule(nlohmann::json functions, const std::string& name = "testlib") {
    AddExtension(name + ".json", {{"name", name},
                                  {"type", "ffi"},
                                  {"library_path", BERTH_FFI_TESTLIB},
                                  {"api_version", "1.0"},
                                  {"applies_to", {"cpu"}},
                                  {"functions", std::move(functions)}});
  }

  static nlohmann::json Axpy() {
    return {{"target", "mylib.axpy"},
            {"symbol", "axpy_f32"},
            {"return", "void"},
            {"params", {"size:operand:1", "attr:alpha:f32", "operand:0:f32", "result:0:f32"}},
            {"result_init", {{"0", "operand:1"}}}};
  }
};

const std::string kDouble = testing::OneCustomCallProgram("test.double", "tensor<3xf32>");

Status DoubleF32(FfiCall& call) {
  if (call.num_operands() != 1 || call.operand_type(0) != ElementType::kF32) {
    return InvalidArgumentError("test.double takes one f32 operand");
  }
  if (call.preparing()) return OkStatus();
  auto in = call.operand<float>(0);
  auto out = call.result<float>(0);
  for (size_t i = 0; i < in.size(); ++i) out[i] = 2 * in[i];
  return OkStatus();
}

TEST_F(FfiExtensionTest, ApplicationHandlerRunsFromCustomCall) {
  ASSERT_TRUE(cpu().HasExtension(BERTH_Extension_Type_Ffi));
  ASSERT_TRUE(cpu().RegisterFfiHandler("test.double", DoubleF32).ok());
  Buffer x = F32(cpu(), {1, -2, 3.5}, {3});
  Result<std::vector<Buffer>> out = CompileAndRun(kDouble, {&x});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_THAT(Read((*out)[0]), ElementsAre(2, -4, 7));
}

TEST_F(FfiExtensionTest, HandlerSeesTypedAttributesAndBackendConfigEntries) {
  std::optional<int64_t> count;
  std::optional<double> scale;
  std::optional<std::string> mode;
  std::optional<bool> flag;
  ASSERT_TRUE(cpu()
                  .RegisterFfiHandler("test.attrs",
                                      [&](FfiCall& call) {
                                        if (!call.preparing()) return OkStatus();
                                        count = call.IntAttribute("count");
                                        scale = call.FloatAttribute("scale");
                                        if (auto m = call.StringAttribute("mode")) mode = *m;
                                        flag = call.BoolAttribute("flag");
                                        return OkStatus();
                                      })
                  .ok());
  Result<Executable> executable = cpu().Compile(R"(
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.custom_call @test.attrs(%x) {count = 7 : i64, flag = true,
      backend_config = {scale = 0.5 : f32, mode = "fast"}} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
})");
  ASSERT_TRUE(executable.ok()) << executable.status().ToString();
  EXPECT_EQ(count, 7);
  EXPECT_EQ(scale, 0.5);
  EXPECT_EQ(mode, "fast");
  EXPECT_EQ(flag, true);
}

TEST_F(FfiExtensionTest, UnknownTargetFailsAtCompileNamingIt) {
  ExpectCompileFails(testing::OneCustomCallProgram("no.such.target", "tensor<2xf32>"), StatusCode::kUnimplemented,
                     "'no.such.target'");
}

TEST_F(FfiExtensionTest, HandlerRefusingOperandsFailsTheCompileWithItsMessage) {
  ASSERT_TRUE(cpu().RegisterFfiHandler("test.double", DoubleF32).ok());
  ExpectCompileFails(testing::OneCustomCallProgram("test.double", "tensor<2xi32>"), StatusCode::kInvalidArgument,
                     "test.double takes one f32 operand");
}

TEST_F(FfiExtensionTest, HandlerErrorAtExecuteFailsTheExecution) {
  ASSERT_TRUE(cpu()
                  .RegisterFfiHandler("test.double",
                                      [](FfiCall& call) {
                                        return call.preparing()
                                                   ? OkStatus()
                                                   : DataLossError("the device caught fire");
                                      })
                  .ok());
  Buffer x = F32(cpu(), {1, 2, 3}, {3});
  Result<std::vector<Buffer>> out = CompileAndRun(kDouble, {&x});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kDataLoss);
  EXPECT_THAT(out.status().message(), HasSubstr("the device caught fire"));
}

TEST_F(FfiExtensionTest, HandlerThatThrowsBecomesInternalError) {
  ASSERT_TRUE(cpu()
                  .RegisterFfiHandler("test.double",
                                      [](FfiCall&) -> Status { throw std::runtime_error("boom"); })
                  .ok());
  ExpectCompileFails(kDouble, StatusCode::kInternal, "boom");
}

TEST_F(FfiExtensionTest, SecondRegistrationOfATargetIsAlreadyExists) {
  ASSERT_TRUE(cpu().RegisterFfiHandler("test.double", DoubleF32).ok());
  Status again = cpu().RegisterFfiHandler("test.double", DoubleF32);
  EXPECT_EQ(again.code(), StatusCode::kAlreadyExists);
  EXPECT_THAT(again.message(), HasSubstr("test.double"));
  Status builtin = cpu().RegisterFfiHandler("check.expect_eq", DoubleF32);
  EXPECT_EQ(builtin.code(), StatusCode::kAlreadyExists);
  EXPECT_THAT(builtin.message(), HasSubstr("built into"));
}

std::atomic<int> released{0};
BERTH_Error_Code NoOpHandler(BERTH_Ffi_CallFrame*) { return BERTH_Error_Code_OK; }
void CountRelease(void*) { released++; }

TEST_F(FfiExtensionTest, HandlerDataIsReleasedWithTheClientOrOnFailure) {
  released = 0;
  {
    Client client = NewClient();
    ASSERT_TRUE(client.RegisterFfiHandler("test.c", NoOpHandler, nullptr, CountRelease).ok());
    EXPECT_EQ(client.RegisterFfiHandler("test.c", NoOpHandler, nullptr, CountRelease).code(),
              StatusCode::kAlreadyExists);
    EXPECT_EQ(released, 1);  // the refused registration's data
    EXPECT_EQ(client.RegisterFfiHandler("", NoOpHandler, nullptr, CountRelease).code(),
              StatusCode::kInvalidArgument);
    EXPECT_EQ(released, 2);
  }
  EXPECT_EQ(released, 3);  // the registered one, with the client
}

TEST_F(FfiExtensionTest, ConcurrentExecutionsCallTheHandler) {
  std::atomic<int> calls{0};
  ASSERT_TRUE(cpu()
                  .RegisterFfiHandler("test.double",
                                      [&](FfiCall& call) {
                                        if (!call.preparing()) calls++;
                                        return DoubleF32(call);
                                      })
                  .ok());
  Result<Executable> executable = cpu().Compile(kDouble);
  ASSERT_TRUE(executable.ok());
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) {
        Buffer x = F32(cpu(), {float(t), float(i), 1}, {3});
        Result<std::vector<Buffer>> out = Run(*executable, {&x});
        if (!out.ok() || Read((*out)[0]) != std::vector<float>{2.0f * t, 2.0f * i, 2}) wrong++;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(calls, 100);
}

TEST_F(FfiExtensionTest, PluginWithoutTheExtensionAnswersUnimplemented) {
  Client good = GoodWithout(BERTH_Extension_Type_Ffi);
  testing::ExpectUnimplemented(good.RegisterFfiHandler("test.double", DoubleF32),
                               "plugin 'good' does not implement the 'ffi' extension");
  released = 0;
  EXPECT_EQ(good.RegisterFfiHandler("t", NoOpHandler, nullptr, CountRelease).code(),
            StatusCode::kUnimplemented);
  EXPECT_EQ(released, 1);
}

// ------------------------------------------------------------ FFI modules

TEST_F(FfiExtensionTest, ManifestBoundCFunctionGivesTheRightResults) {
  AddTestLibModule({Axpy()});
  const char* program = R"(
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @mylib.axpy(%x, %y) {backend_config = {alpha = 3.0 : f32}}
      : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
})";
  Buffer x = F32(cpu(), {1, 2, 3, 4}, {4});
  Buffer y = F32(cpu(), {10, 20, 30, 40}, {4});
  Result<std::vector<Buffer>> out = CompileAndRun(program, {&x, &y});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_THAT(Read((*out)[0]), ElementsAre(13, 26, 39, 52));
  EXPECT_THAT(Read(y), ElementsAre(10, 20, 30, 40));  // the operand is untouched
}

TEST_F(FfiExtensionTest, BoundFunctionsWithStatusAndI32SizesRun) {
  AddTestLibModule({{{"target", "mylib.scale"},
                     {"symbol", "scale_f64"},
                     {"return", "i32-status"},
                     {"params", {"operand:0:f64", "result:0:f64", "size:operand:0:i32",
                                 "attr:factor:f64"}}},
                    {{"target", "mylib.iota"},
                     {"symbol", "iota_i64"},
                     {"params", {"result:0:i64", "size:result:0:i32", "const:i64:100",
                                 "attr:step:i64"}}}});
  const char* program = R"(
func.func @main(%x: tensor<3xf64>) -> (tensor<3xf64>, tensor<4xi64>) {
  %0 = stablehlo.custom_call @mylib.scale(%x) {factor = FACTOR : f64}
      : (tensor<3xf64>) -> tensor<3xf64>
  %1 = stablehlo.custom_call @mylib.iota() {step = 5 : i64} : () -> tensor<4xi64>
  return %0, %1 : tensor<3xf64>, tensor<4xi64>
})";
  auto compile = [&](const std::string& factor) {
    std::string text = program;
    text.replace(text.find("FACTOR"), 6, factor);
    return cpu().Compile(text);
  };
  Result<Executable> executable = compile("2.5");
  ASSERT_TRUE(executable.ok()) << executable.status().ToString();
  std::vector<double> values{1, 2, -4};
  Result<Buffer> x = cpu().BufferFromHost(values.data(), ElementType::kF64, std::vector<int64_t>{3},
                                          cpu().devices()[0]);
  ASSERT_TRUE(x.ok());
  Result<std::vector<Buffer>> out = Run(*executable, {&*x});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_THAT(Read<double>((*out)[0]), ElementsAre(2.5, 5, -10));
  EXPECT_THAT(Read<int64_t>((*out)[1]), ElementsAre(100, 105, 110, 115));

  // scale_f64 returns 3 for a factor of 0: the execution fails with it.
  Result<Executable> failing = compile("0.0");
  ASSERT_TRUE(failing.ok()) << failing.status().ToString();
  Result<std::vector<Buffer>> failed = Run(*failing, {&*x});
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(failed.status().message(), HasSubstr("returned status 3"));
}

TEST_F(FfiExtensionTest, OperandTypeOtherThanTheBindingFailsAtCompileNamingTargetAndParameter) {
  AddTestLibModule({Axpy()});
  Result<Executable> executable = cpu().Compile(R"(
func.func @main(%x: tensor<4xf64>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @mylib.axpy(%x, %y) {alpha = 3.0 : f32}
      : (tensor<4xf64>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
})");
  ASSERT_FALSE(executable.ok());
  EXPECT_EQ(executable.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(executable.status().message(), HasSubstr("mylib.axpy"));
  EXPECT_THAT(executable.status().message(), HasSubstr("operand:0:f32"));
}

TEST_F(FfiExtensionTest, MissingAttributeFailsAtCompileNamingIt) {
  AddTestLibModule({Axpy()});
  Result<Executable> executable = cpu().Compile(R"(
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @mylib.axpy(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
})");
  ASSERT_FALSE(executable.ok());
  EXPECT_THAT(executable.status().message(), HasSubstr("alpha"));
}

TEST_F(FfiExtensionTest, ModulesLoadLazilyAndAreListedWithTheirTargets) {
  AddTestLibModule({Axpy()});
  PluginInfo before = InfoOf("testlib");
  EXPECT_EQ(before.kind, "extension");
  EXPECT_EQ(before.extension_type, "ffi");
  EXPECT_EQ(before.status, "found");
  EXPECT_FALSE(testing::IsLoaded(BERTH_FFI_TESTLIB));
  (void)cpu();
  PluginInfo after = InfoOf("testlib");
  EXPECT_EQ(after.status, "ok");
  EXPECT_EQ(std::get<std::string>(after.attributes.at("ffi_targets")), "mylib.axpy");
}

TEST_F(FfiExtensionTest, ModuleIsNotAttachedToAPluginWithoutTheExtension) {
  AddExtension("any.json", {{"name", "testlib"},
                            {"type", "ffi"},
                            {"library_path", BERTH_FFI_TESTLIB},
                            {"api_version", "1.0"},
                            {"applies_to", {"*"}},
                            {"functions", {Axpy()}}});
  testing::LogCapture log;
  Client good = NewClient("good");
  EXPECT_EQ(InfoOf("testlib").status, "found");  // never opened for it
  EXPECT_TRUE(log.Contains("not attached to plugin 'good': it does not implement the 'ffi'"));
}

TEST_F(FfiExtensionTest, BrokenModuleIsSkippedWithAReasonAndTheClientStillWorks) {
  AddTestLibModule({{{"target", "mylib.gone"}, {"symbol", "no_such_symbol"},
                     {"params", nlohmann::json::array()}}});
  Client client = NewClient();
  PluginInfo info = InfoOf("testlib");
  EXPECT_EQ(info.status, "skipped");
  EXPECT_EQ(info.reason, "invalid_module");
  EXPECT_THAT(info.message, HasSubstr("no_such_symbol"));
  ASSERT_TRUE(client.RegisterFfiHandler("test.double", DoubleF32).ok());
  EXPECT_TRUE(client.Compile(kDouble).ok());
}

TEST_F(FfiExtensionTest, MalformedFunctionsListIsSkippedNamingTheField) {
  nlohmann::json bad = Axpy();
  bad["params"][0] = "operand:x";
  AddTestLibModule({bad});
  (void)cpu();
  PluginInfo info = InfoOf("testlib");
  EXPECT_EQ(info.status, "skipped");
  EXPECT_THAT(info.message, HasSubstr("functions[0].params[0]"));
}

TEST_F(FfiExtensionTest, BerthValidateChecksTheFunctionsOfAnFfiModule) {
  nlohmann::json bad = Axpy();
  bad["return"] = "float";
  AddTestLibModule({Axpy()}, "good_module");
  AddTestLibModule({bad}, "bad_module");
  const std::string berth = std::string(BERTH_EXE) + " validate ";
  testing::CommandResult good =
      testing::RunCommand(berth + (dir_ / "good_module.json").string() + " 2>&1");
  EXPECT_EQ(good.exit_code, 0) << good.out;
  testing::CommandResult broken =
      testing::RunCommand(berth + (dir_ / "bad_module.json").string() + " 2>&1");
  EXPECT_EQ(broken.exit_code, 1);
  EXPECT_THAT(broken.out, HasSubstr("invalid [invalid_module]"));
  EXPECT_THAT(broken.out, HasSubstr("functions[0].return"));
}

TEST_F(FfiExtensionTest, ExampleModuleRunsItsTypedHandlerAndBoundFunction) {
  dir_.Write("ffi_example.json", [] {
    std::ifstream in(BERTH_FFI_EXAMPLE_MANIFEST);
    std::stringstream text;
    text << in.rdbuf();
    std::string manifest = text.str();
    // The library sits next to the generated manifest in the build tree.
    const std::string from = "\"./libberth_ffi_example.so\"";
    manifest.replace(manifest.find(from), from.size(),
                     "\"" + std::string(BERTH_FFI_EXAMPLE_LIBRARY) + "\"");
    return manifest;
  }());
  std::ifstream in(std::string(BERTH_SOURCE_ROOT) + "/extensions/ffi/examples/example.mlir");
  std::stringstream program;
  program << in.rdbuf();
  Buffer x = F32(cpu(), {-2, -0.5, 0, 0.5, 2}, {5});
  Result<std::vector<Buffer>> out = CompileAndRun(program.str(), {&x});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  std::vector<float> soft = Read((*out)[0]);
  for (size_t i = 0; i < soft.size(); ++i) {
    const float v = std::vector<float>{-2, -0.5, 0, 0.5, 2}[i];
    EXPECT_NEAR(soft[i], std::log1p(std::exp(2.0 * v)) / 2.0, 1e-6);
  }
  EXPECT_THAT(Read((*out)[1]), ElementsAre(-1, -0.5, 0, 0.5, 1));
}

}  // namespace
}  // namespace berth
