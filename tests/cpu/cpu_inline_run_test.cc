// Where a cpu execution runs: device streams (ordered queues that a caller
// may run on inline when they are idle) and the plan's cheap() estimate that
// decides which programs are short enough to run inline.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "berth/stablehlo/parser.hpp"
#include "berth/stablehlo/verifier.hpp"
#include "device_stream.hpp"
#include "interpreter/plan.hpp"

namespace berth::cpu {
namespace {

TEST(DeviceStreamTest, IdleStreamRunsWorkInlineOnTheCallersThread) {
  DeviceStream stream;
  std::thread::id ran_on;
  EXPECT_TRUE(stream.TryRunInline([&] { ran_on = std::this_thread::get_id(); }));
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

// The streams are declared after what their work uses, so they stop (and
// join their thread) first.
TEST(DeviceStreamTest, InlineRunIsRefusedWhileQueuedWorkRuns) {
  std::promise<void> started, release;
  std::shared_future<void> released = release.get_future().share();
  DeviceStream stream;
  stream.Enqueue([&] {
    started.set_value();
    released.wait();
  });
  started.get_future().wait();
  bool ran = false;
  EXPECT_FALSE(stream.TryRunInline([&] { ran = true; }));
  EXPECT_FALSE(ran);
  release.set_value();
}

TEST(DeviceStreamTest, WorkQueuedDuringAnInlineRunStartsAfterIt) {
  std::mutex mutex;
  std::vector<int> order;
  auto record = [&](int step) {
    std::lock_guard lock(mutex);
    order.push_back(step);
  };
  std::promise<void> inline_started, queued, done;
  std::shared_future<void> was_queued = queued.get_future().share();
  DeviceStream stream;
  std::thread caller([&] {
    EXPECT_TRUE(stream.TryRunInline([&] {
      inline_started.set_value();
      was_queued.wait();
      // Long enough for the stream thread to run the queued work if it
      // ignored the inline run.
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      record(1);
    }));
  });
  inline_started.get_future().wait();
  stream.Enqueue([&] {
    record(2);
    done.set_value();
  });
  queued.set_value();
  done.get_future().wait();
  caller.join();
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
}

TEST(DeviceStreamTest, DestructionRunsWorkStillQueued) {
  int runs = 0;
  {
    DeviceStream stream;
    for (int i = 0; i < 5; ++i) stream.Enqueue([&] { ++runs; });
  }
  EXPECT_EQ(runs, 5);
}

bool PlanIsCheap(const std::string& text) {
  Result<stablehlo::Module> module = stablehlo::ParseModule(text, "test.mlir");
  EXPECT_TRUE(module.ok()) << module.status().ToString();
  if (!module.ok()) return false;
  Status verified = stablehlo::Verify(*module);
  EXPECT_TRUE(verified.ok()) << verified.ToString();
  Result<std::unique_ptr<ProgramPlan>> plan = ProgramPlan::Build(*module);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return plan.ok() && (*plan)->cheap();
}

TEST(ProgramPlanCheapTest, SmallElementwiseProgramIsCheap) {
  EXPECT_TRUE(PlanIsCheap(R"(
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  %1 = stablehlo.multiply %0, %b : tensor<4xf32>
  return %1 : tensor<4xf32>
})"));
}

TEST(ProgramPlanCheapTest, LargeOperandMakesAProgramNotCheap) {
  // The result is a scalar, but the reduction reads 4096 elements.
  EXPECT_FALSE(PlanIsCheap(R"(
func.func @main(%a: tensor<4096xf32>) -> tensor<f32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%a init: %zero) applies stablehlo.add across dimensions = [0]
      : (tensor<4096xf32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
})"));
}

TEST(ProgramPlanCheapTest, LoopMakesAProgramNotCheap) {
  EXPECT_FALSE(PlanIsCheap(R"(
func.func @main(%n: tensor<i64>) -> tensor<i64> {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %0 = stablehlo.while(%i = %zero) : tensor<i64>
   cond {
    %c = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %next = stablehlo.add %i, %one : tensor<i64>
    stablehlo.return %next : tensor<i64>
  }
  return %0 : tensor<i64>
})"));
}

TEST(ProgramPlanCheapTest, FunctionCallMakesAProgramNotCheap) {
  EXPECT_FALSE(PlanIsCheap(R"(
func.func @main(%a: tensor<f32>) -> tensor<f32> {
  %0 = func.call @twice(%a) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @twice(%a: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %a, %a : tensor<f32>
  return %0 : tensor<f32>
})"));
}

TEST(ProgramPlanCheapTest, ManyOpsMakeAProgramNotCheap) {
  std::string text = "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %v0 = stablehlo.negate %a : tensor<f32>\n";
  const int n = ProgramPlan::kCheapMaxOps + 1;
  for (int i = 1; i < n; ++i) {
    text += "  %v" + std::to_string(i) + " = stablehlo.negate %v" + std::to_string(i - 1) +
            " : tensor<f32>\n";
  }
  text += "  return %v" + std::to_string(n - 1) + " : tensor<f32>\n}\n";
  EXPECT_FALSE(PlanIsCheap(text));
}

}  // namespace
}  // namespace berth::cpu
