// The cuda plugin's plan of interpreter.run_parallel: each program instance
// planned for its place in the grid, the order its steps, its groups'
// meetings and its transfers run in on one device, and what it refuses.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "berth/stablehlo/parser.hpp"
#include "cuda_plan.hpp"

namespace berth::cuda {
namespace {

using ::testing::HasSubstr;

stablehlo::Module Parse(const std::string& text, bool verify = true) {
  stablehlo::ParseOptions options;
  options.verify = verify;
  Result<stablehlo::Module> module = stablehlo::ParseModule(text, "parallel.mlir", options);
  EXPECT_TRUE(module.ok()) << module.status().ToString();
  return std::move(module).value();
}

// An all_reduce (add) of `value` (tensor<4xf32>) over `groups`.
std::string AllReduce(const std::string& name, const std::string& value,
                      const std::string& groups) {
  return "  " + name + " = \"stablehlo.all_reduce\"(" + value +
         ") ({\n  ^bb0(%p: tensor<f32>, %q: tensor<f32>):\n    %s = stablehlo.add %p, %q : "
         "tensor<f32>\n    stablehlo.return %s : tensor<f32>\n  }) {replica_groups = " +
         groups + "} : (tensor<4xf32>) -> tensor<4xf32>\n";
}

// @main running `programs` on two tensor<4xf32> constants, one per instance.
std::string TwoInstanceMain(const std::string& programs) {
  return R"(func.func @main() -> (tensor<4xf32>, tensor<4xf32>) {
  %a = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = stablehlo.constant dense<[5.0, 6.0, 7.0, 8.0]> : tensor<4xf32>
  %r:2 = "interpreter.run_parallel"(%a, %b) {programs = )" +
         programs + R"(} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}
)";
}

const PlanStep& OnlyParallelStep(const CudaPlan& plan) {
  for (const PlanStep& step : plan.steps) {
    if (step.kind == PlanStep::Kind::kParallel) return step;
  }
  ADD_FAILURE() << "no run_parallel step";
  return plan.steps.front();
}

TEST(CudaParallelPlanTest, InstancesRunUpToTheirCollectiveThenMeetInGroupOrder) {
  stablehlo::Module module = Parse(TwoInstanceMain("[[@f], [@f]]") +
                                   "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                                   "  %e = stablehlo.exponential %x : tensor<4xf32>\n" +
                                   AllReduce("%s", "%e", "dense<[[1, 0]]> : tensor<1x2xi64>") +
                                   "  %n = stablehlo.negate %s : tensor<4xf32>\n"
                                   "  return %n : tensor<4xf32>\n}\n");
  Result<CudaPlan> plan = PlanCudaProgram(module, "");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const PlanStep& step = OnlyParallelStep(*plan);
  ASSERT_EQ(step.regions.size(), 2u);
  // Each instance: the exponential's kernel, the collective, the negation's.
  for (const BlockPlan& instance : step.regions) {
    ASSERT_EQ(instance.steps.size(), 3u);
    EXPECT_EQ(instance.steps[0].kind, PlanStep::Kind::kFused);
    EXPECT_EQ(instance.steps[1].kind, PlanStep::Kind::kCollective);
    EXPECT_EQ(instance.steps[2].kind, PlanStep::Kind::kFused);
  }
  ASSERT_EQ(step.meetings.size(), 1u);
  const PlanStep& meeting = step.meetings[0];
  EXPECT_EQ(meeting.fused.family, FusedKernel::Family::kCollective);
  EXPECT_EQ(meeting.fused.members, 2);
  EXPECT_EQ(meeting.fused.num_elements, 8);  // two members' four elements
  // Group order (1, 0): replica 1's operand first, then the results alike.
  EXPECT_EQ(meeting.instances, (std::vector<size_t>{1, 0, 1, 0}));
  // Both exponentials, the meeting, both negations.
  ASSERT_EQ(step.schedule.size(), 5u);
  EXPECT_FALSE(step.schedule[0].meeting);
  EXPECT_EQ(step.schedule[0].instance, 0u);
  EXPECT_EQ(step.schedule[1].instance, 1u);
  EXPECT_TRUE(step.schedule[2].meeting);
  EXPECT_EQ(step.schedule[3].instance, 0u);
  EXPECT_EQ(step.schedule[3].step, 2u);
  EXPECT_EQ(step.schedule[4].instance, 1u);
}

TEST(CudaParallelPlanTest, EachInstanceReadsItsOwnReplicaAndPartitionId) {
  stablehlo::Module module =
      Parse(R"(func.func @main() -> (tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>) {
  %r:4 = "interpreter.run_parallel"() {programs = [[@ids, @ids]]} : () -> (tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>
}
func.func @ids() -> (tensor<ui32>, tensor<ui32>) {
  %r = stablehlo.replica_id : tensor<ui32>
  %p = stablehlo.partition_id : tensor<ui32>
  return %r, %p : tensor<ui32>, tensor<ui32>
}
)");
  Result<CudaPlan> plan = PlanCudaProgram(module, "");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const PlanStep& step = OnlyParallelStep(*plan);
  ASSERT_EQ(step.regions.size(), 2u);
  for (uint32_t partition = 0; partition < 2; ++partition) {
    const std::vector<PlanStep>& steps = step.regions[partition].steps;
    ASSERT_EQ(steps.size(), 2u);
    for (size_t j = 0; j < 2; ++j) {
      ASSERT_EQ(steps[j].kind, PlanStep::Kind::kConstant);
      ASSERT_TRUE(steps[j].literal);
      uint32_t id = 99;
      std::memcpy(&id, steps[j].literal->data(), sizeof(id));
      EXPECT_EQ(id, j == 0 ? 0u : partition) << "instance " << partition << " id " << j;
    }
  }
}

TEST(CudaParallelPlanTest, CollectivesThatCannotMeetAreInvalidNamingWhereEachWaits) {
  // Replica 1 never reaches an all_reduce: on the cpu plugin, a deadlock.
  stablehlo::Module module = Parse(TwoInstanceMain("[[@f], [@g]]") +
                                   "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n" +
                                   AllReduce("%s", "%x", "dense<[[0, 1]]> : tensor<1x2xi64>") +
                                   "  return %s : tensor<4xf32>\n}\n"
                                   "func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                                   "  return %x : tensor<4xf32>\n}\n");
  Result<CudaPlan> plan = PlanCudaProgram(module, "");
  ASSERT_EQ(plan.status().code(), StatusCode::kInvalidArgument) << plan.status().ToString();
  EXPECT_THAT(plan.status().message(), HasSubstr("no process group can meet"));
  EXPECT_THAT(plan.status().message(),
              HasSubstr("the instance at (0, 0) waits at stablehlo.all_reduce at parallel.mlir:"));
}

TEST(CudaParallelPlanTest, CollectiveOverSeveralInstancesInsideControlFlowIsUnimplemented) {
  stablehlo::Module module =
      Parse(TwoInstanceMain("[[@f], [@f]]") +
            "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
            "  %s = func.call @inner(%x) : (tensor<4xf32>) -> tensor<4xf32>\n"
            "  return %s : tensor<4xf32>\n}\n"
            "func.func @inner(%x: tensor<4xf32>) -> tensor<4xf32> {\n" +
            AllReduce("%s", "%x", "dense<[[0, 1]]> : tensor<1x2xi64>") +
            "  return %s : tensor<4xf32>\n}\n");
  Result<CudaPlan> plan = PlanCudaProgram(module, "");
  ASSERT_EQ(plan.status().code(), StatusCode::kUnimplemented) << plan.status().ToString();
  EXPECT_THAT(plan.status().message(),
              HasSubstr("a collective over 2 instances inside control flow or a call"));

  // A group of one inside the call is a kernel there.
  stablehlo::Module alone = Parse(TwoInstanceMain("[[@f], [@f]]") +
                                  "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                                  "  %s = func.call @inner(%x) : (tensor<4xf32>) -> tensor<4xf32>\n"
                                  "  return %s : tensor<4xf32>\n}\n"
                                  "func.func @inner(%x: tensor<4xf32>) -> tensor<4xf32> {\n" +
                                  AllReduce("%s", "%x", "dense<[[0], [1]]> : tensor<2x1xi64>") +
                                  "  return %s : tensor<4xf32>\n}\n");
  plan = PlanCudaProgram(alone, "");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_TRUE(OnlyParallelStep(*plan).meetings.empty());
}

TEST(CudaParallelPlanTest, AProgramRunningAloneIsAGroupOfOne) {
  stablehlo::Module module = Parse("func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n" +
                                   AllReduce("%s", "%x", "dense<[[0]]> : tensor<1x1xi64>") +
                                   "  return %s : tensor<4xf32>\n}\n");
  Result<CudaPlan> plan = PlanCudaProgram(module, "");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->steps.size(), 1u);
  EXPECT_EQ(plan->steps[0].fused.family, FusedKernel::Family::kCollective);
  EXPECT_EQ(plan->steps[0].fused.members, 1);
  EXPECT_TRUE(plan->steps[0].instances.empty());

  stablehlo::Module two = Parse("func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n" +
                                AllReduce("%s", "%x", "dense<[[0, 1]]> : tensor<1x2xi64>") +
                                "  return %s : tensor<4xf32>\n}\n");
  plan = PlanCudaProgram(two, "");
  ASSERT_EQ(plan.status().code(), StatusCode::kInvalidArgument) << plan.status().ToString();
  EXPECT_THAT(plan.status().message(), HasSubstr("process group member 1 is outside the 1x1 grid"));
}

TEST(CudaParallelPlanTest, ShapesThatDoNotFitTheGroupAreInvalid) {
  // An all_gather over two instances whose result is three times its operand.
  stablehlo::Module module = Parse(
      R"(func.func @main(%a: tensor<2xi32>, %b: tensor<2xi32>) -> (tensor<6xi32>, tensor<6xi32>) {
  %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@g], [@g]]} : (tensor<2xi32>, tensor<2xi32>) -> (tensor<6xi32>, tensor<6xi32>)
  return %r#0, %r#1 : tensor<6xi32>, tensor<6xi32>
}
func.func @g(%x: tensor<2xi32>) -> tensor<6xi32> {
  %s = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xi32>) -> tensor<6xi32>
  return %s : tensor<6xi32>
}
)",
      /*verify=*/false);
  Result<CudaPlan> plan = PlanCudaProgram(module, "");
  ASSERT_EQ(plan.status().code(), StatusCode::kInvalidArgument) << plan.status().ToString();
  EXPECT_THAT(plan.status().message(), HasSubstr("does not fit its process group of 2"));
}

TEST(CudaParallelPlanTest, ARecvWithoutASendCannotMeetAndTransfersNeedRunParallel) {
  stablehlo::Module module = Parse(R"(func.func @main() -> (tensor<2xi32>, tensor<2xi32>) {
  %t = stablehlo.after_all : !stablehlo.token
  %r:2 = "interpreter.run_parallel"(%t, %t) {programs = [[@take], [@take]]} : (!stablehlo.token, !stablehlo.token) -> (tensor<2xi32>, tensor<2xi32>)
  return %r#0, %r#1 : tensor<2xi32>, tensor<2xi32>
}
func.func @take(%t: !stablehlo.token) -> tensor<2xi32> {
  %v, %u = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>} : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
  return %v : tensor<2xi32>
}
)");
  Result<CudaPlan> plan = PlanCudaProgram(module, "");
  ASSERT_EQ(plan.status().code(), StatusCode::kInvalidArgument) << plan.status().ToString();
  EXPECT_THAT(plan.status().message(), HasSubstr("a recv needs a send on its channel"));
  EXPECT_THAT(plan.status().message(), HasSubstr("the instance at (1, 0) waits at stablehlo.recv"));

  Result<CudaPlan> alone = PlanCudaProgram(module, "take");
  ASSERT_EQ(alone.status().code(), StatusCode::kUnimplemented) << alone.status().ToString();
  EXPECT_THAT(alone.status().message(), HasSubstr("only between the instances of"));
}

TEST(CudaParallelPlanTest, InfeedIsUnimplemented) {
  stablehlo::Module module = Parse(R"(func.func @main() -> tensor<2xi32> {
  %r = "interpreter.run_parallel"() {infeed = [@feed], programs = [[@g]]} : () -> tensor<2xi32>
  return %r : tensor<2xi32>
}
func.func @feed() -> tensor<2xi32> {
  %c = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  return %c : tensor<2xi32>
}
func.func @g() -> tensor<2xi32> {
  %c = stablehlo.constant dense<[3, 4]> : tensor<2xi32>
  return %c : tensor<2xi32>
}
)");
  Result<CudaPlan> plan = PlanCudaProgram(module, "");
  ASSERT_EQ(plan.status().code(), StatusCode::kUnimplemented) << plan.status().ToString();
  EXPECT_THAT(plan.status().message(), HasSubstr("infeed"));
}

}  // namespace
}  // namespace berth::cuda
