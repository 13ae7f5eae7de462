// The callback extension on the cpu plugin: host callbacks called from a
// program, event callbacks, and a plugin without the extension.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mutex>

#include "extension_test_util.hpp"

namespace berth {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using CallbackExtensionTest = testing::ExtensionTest;

constexpr char kCallsSum[] = R"(
func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.custom_call @berth.host_callback(%a, %b) {callback = "sum"}
      : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = stablehlo.multiply %0, %0 : tensor<3xf32>
  return %1 : tensor<3xf32>
}
)";

Status Sum(FfiCall& call) {
  if (call.num_operands() != 2 || call.num_results() != 1) {
    return InvalidArgumentError("sum takes two operands and gives one result");
  }
  if (call.preparing()) return OkStatus();
  auto a = call.operand<float>(0);
  auto b = call.operand<float>(1);
  auto out = call.result<float>(0);
  for (size_t i = 0; i < out.size(); ++i) out[i] = a[i] + b[i];
  return OkStatus();
}

TEST_F(CallbackExtensionTest, HostCallbackGetsOperandsAndFillsResults) {
  ASSERT_TRUE(cpu().HasExtension(BERTH_Extension_Type_Callback));
  ASSERT_TRUE(cpu().RegisterHostCallback("sum", Sum).ok());
  Buffer a = F32(cpu(), {1, 2, 3}, {3});
  Buffer b = F32(cpu(), {1, 0, -5}, {3});
  Result<std::vector<Buffer>> out = CompileAndRun(kCallsSum, {&a, &b});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_THAT(Read((*out)[0]), ElementsAre(4, 4, 4));
}

TEST_F(CallbackExtensionTest, UnknownHostCallbackFailsAtCompileNamingIt) {
  ExpectCompileFails(kCallsSum, StatusCode::kNotFound, "host callback 'sum' is not registered");
}

TEST_F(CallbackExtensionTest, HostCallbackWithoutANameFailsAtCompile) {
  ExpectCompileFails(testing::OneCustomCallProgram("berth.host_callback", "tensor<3xf32>"),
                     StatusCode::kInvalidArgument, "string attribute 'callback'");
}

TEST_F(CallbackExtensionTest, HostCallbackNamesAreSeparateFromFfiTargets) {
  ASSERT_TRUE(cpu().RegisterHostCallback("sum", Sum).ok());
  EXPECT_EQ(cpu().RegisterHostCallback("sum", Sum).code(), StatusCode::kAlreadyExists);
  EXPECT_TRUE(cpu().RegisterFfiHandler("sum", Sum).ok());
}

struct Recorded {
  ClientEvent::Kind kind;
  std::string name;
  int64_t device_id;
  Status status;
};

class EventLog {
 public:
  EventCallback Callback() {
    return [this](const ClientEvent& event) {
      std::lock_guard lock(mutex_);
      events_.push_back({event.kind, std::string(event.executable_name), event.device_id,
                         event.status});
    };
  }
  std::vector<Recorded> events() {
    std::lock_guard lock(mutex_);
    return events_;
  }

 private:
  std::mutex mutex_;
  std::vector<Recorded> events_;
};

TEST_F(CallbackExtensionTest, EventCallbacksSeeFinishedAndFailedExecutions) {
  EventLog log;
  ASSERT_TRUE(cpu().AddEventCallback(log.Callback()).ok());
  bool fail = false;
  ASSERT_TRUE(cpu()
                  .RegisterHostCallback("sum",
                                        [&](FfiCall& call) {
                                          if (!call.preparing() && fail) {
                                            return AbortedError("asked to fail");
                                          }
                                          return Sum(call);
                                        })
                  .ok());
  Result<Executable> executable = cpu().Compile(kCallsSum);
  ASSERT_TRUE(executable.ok());
  Buffer a = F32(cpu(), {1, 2, 3}, {3});
  ASSERT_TRUE(Run(*executable, {&a, &a}).ok());
  fail = true;
  Result<std::vector<Buffer>> failed = Run(*executable, {&a, &a});
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), StatusCode::kAborted);

  // Each event is delivered before its execution's completion event is set.
  std::vector<Recorded> events = log.events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, ClientEvent::Kind::kExecutionFinished);
  EXPECT_EQ(events[0].name, executable->name());
  EXPECT_EQ(events[0].device_id, cpu().devices()[0].id());
  EXPECT_TRUE(events[0].status.ok());
  EXPECT_EQ(events[1].kind, ClientEvent::Kind::kExecutionFailed);
  EXPECT_EQ(events[1].status.code(), StatusCode::kAborted);
  EXPECT_THAT(events[1].status.message(), HasSubstr("asked to fail"));
}

TEST_F(CallbackExtensionTest, EveryEventCallbackSeesEveryEvent) {
  EventLog first, second;
  ASSERT_TRUE(cpu().AddEventCallback(first.Callback()).ok());
  ASSERT_TRUE(cpu().AddEventCallback(second.Callback()).ok());
  Result<Executable> executable = cpu().Compile(R"(
func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.add %a, %a : tensor<3xf32>
  return %0 : tensor<3xf32>
})");
  ASSERT_TRUE(executable.ok());
  Buffer a = F32(cpu(), {1, 2, 3}, {3});
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(Run(*executable, {&a}).ok());
  EXPECT_EQ(first.events().size(), 3u);
  EXPECT_EQ(second.events().size(), 3u);
}

TEST_F(CallbackExtensionTest, PluginWithoutTheExtensionAnswersUnimplemented) {
  Client good = GoodWithout(BERTH_Extension_Type_Callback);
  testing::ExpectUnimplemented(good.RegisterHostCallback("sum", Sum), "'callback' extension");
  EXPECT_EQ(good.AddEventCallback([](const ClientEvent&) {}).code(), StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace berth
