// Collectives across replicas and partitions, the check ops, and
// interpreter.run_parallel, on the CPU plugin.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "berth/stablehlo/parser.hpp"
#include "program_runner.hpp"

namespace berth {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::CpuRunner;
using testing::Literal;

TEST(CpuCollectiveTest, ReplicaIdsAreSummedAcrossReplicas) {
  CompileOptions options;
  options.num_replicas = 3;
  Result<std::vector<std::vector<Literal>>> out = CpuRunner::Get().RunAll(R"(
    func.func @main() -> tensor<ui32> {
      %id = stablehlo.replica_id : tensor<ui32>
      %sum = "stablehlo.all_reduce"(%id) ({
        ^bb0(%a: tensor<ui32>, %b: tensor<ui32>):
          %s = stablehlo.add %a, %b : tensor<ui32>
          stablehlo.return %s : tensor<ui32>
      }) {replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<ui32>) -> tensor<ui32>
      return %sum : tensor<ui32>
    })", {{}}, options);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 3u);
  for (const auto& device : *out) EXPECT_THAT(device[0].Values<uint32_t>(), ElementsAre(3u));
}

TEST(CpuCollectiveTest, AllGatherConcatenatesInGroupOrder) {
  CompileOptions options;
  options.num_replicas = 2;
  Result<std::vector<std::vector<Literal>>> out = CpuRunner::Get().RunAll(R"(
    func.func @main(%x: tensor<2xi32>) -> tensor<4xi32> {
      %g = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64,
            replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>} : (tensor<2xi32>) -> tensor<4xi32>
      return %g : tensor<4xi32>
    })", {{Literal::Of<int32_t>({1, 2}, {2})}, {Literal::Of<int32_t>({3, 4}, {2})}}, options);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  for (const auto& device : *out) EXPECT_THAT(device[0].Values<int32_t>(), ElementsAre(3, 4, 1, 2));
}

TEST(CpuCollectiveTest, CollectivePermuteSendsAlongPairsAndZeroesTheRest) {
  CompileOptions options;
  options.num_replicas = 3;
  Result<std::vector<std::vector<Literal>>> out = CpuRunner::Get().RunAll(R"(
    func.func @main(%x: tensor<i64>) -> tensor<i64> {
      %p = "stablehlo.collective_permute"(%x) {
             source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>} : (tensor<i64>) -> tensor<i64>
      return %p : tensor<i64>
    })", {{Literal::Of<int64_t>({10}, {})}, {Literal::Of<int64_t>({20}, {})},
          {Literal::Of<int64_t>({30}, {})}}, options);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_THAT((*out)[0][0].Values<int64_t>(), ElementsAre(0));
  EXPECT_THAT((*out)[1][0].Values<int64_t>(), ElementsAre(10));
  EXPECT_THAT((*out)[2][0].Values<int64_t>(), ElementsAre(20));
}

TEST(CpuCollectiveTest, CollectiveBroadcastSendsTheFirstMembersDataAndZeroesOthers) {
  CompileOptions options;
  options.num_replicas = 4;
  Result<std::vector<std::vector<Literal>>> out = CpuRunner::Get().RunAll(R"(
    func.func @main(%x: tensor<2xi64>) -> tensor<2xi64> {
      %b = "stablehlo.collective_broadcast"(%x) {
             replica_groups = dense<[[2, 1]]> : tensor<1x2xi64>} : (tensor<2xi64>) -> tensor<2xi64>
      return %b : tensor<2xi64>
    })", {{Literal::Of<int64_t>({1, 2}, {2})}, {Literal::Of<int64_t>({3, 4}, {2})},
          {Literal::Of<int64_t>({5, 6}, {2})}, {Literal::Of<int64_t>({7, 8}, {2})}}, options);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_THAT((*out)[0][0].Values<int64_t>(), ElementsAre(0, 0));
  EXPECT_THAT((*out)[1][0].Values<int64_t>(), ElementsAre(5, 6));
  EXPECT_THAT((*out)[2][0].Values<int64_t>(), ElementsAre(5, 6));
  EXPECT_THAT((*out)[3][0].Values<int64_t>(), ElementsAre(0, 0));
}

TEST(CpuCollectiveTest, CollectiveBroadcastWithDynamicRootsPicksASourcePerOperand) {
  CompileOptions options;
  options.num_replicas = 2;
  const Literal roots = Literal::Of<int32_t>({0, 1}, {2});
  Result<std::vector<std::vector<Literal>>> out = CpuRunner::Get().RunAll(R"(
    func.func @main(%a: tensor<i64>, %b: tensor<i64>, %root: tensor<2xi32>) -> (tensor<i64>, tensor<i64>) {
      %r:2 = "stablehlo.collective_broadcast"(%a, %b, %root) {
               replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, has_dynamic_root}
             : (tensor<i64>, tensor<i64>, tensor<2xi32>) -> (tensor<i64>, tensor<i64>)
      return %r#0, %r#1 : tensor<i64>, tensor<i64>
    })", {{Literal::Of<int64_t>({1}, {}), Literal::Of<int64_t>({5}, {}), roots},
          {Literal::Of<int64_t>({3}, {}), Literal::Of<int64_t>({7}, {}), roots}}, options);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  for (const auto& device : *out) {
    EXPECT_THAT(device[0].Values<int64_t>(), ElementsAre(1));
    EXPECT_THAT(device[1].Values<int64_t>(), ElementsAre(7));
  }
}

TEST(CpuCollectiveTest, FailingCheckReportsTheFirstDifference) {
  Result<std::vector<Literal>> out = CpuRunner::Get().Run(R"(
    func.func @main() {
      %c = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi64>
      check.expect_eq_const %c, dense<[1, 5, 3]> : tensor<3xi64>
      func.return
    })", {});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(out.status().message(), HasSubstr("check failed: check.expect_eq_const: element [1] is 2, expected 5"));
}

TEST(CpuCollectiveTest, AlmostEqualUsesTheTolerance) {
  Result<std::vector<Literal>> out = CpuRunner::Get().Run(R"(
    func.func @main() {
      %c = stablehlo.constant dense<[1.0, 0x7FC00000]> : tensor<2xf32>
      check.expect_almost_eq_const %c, dense<[1.00005, 0x7FC00000]> : tensor<2xf32>
      func.return
    })", {});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
}

TEST(CpuCollectiveTest, UnknownCustomCallTargetFailsAtCompileNamingIt) {
  Result<Executable> executable = CpuRunner::Get().client().Compile(R"(
    func.func @main(%x: tensor<f32>) -> tensor<f32> {
      %y = stablehlo.custom_call @my.secret_op(%x) : (tensor<f32>) -> tensor<f32>
      return %y : tensor<f32>
    })");
  ASSERT_FALSE(executable.ok());
  EXPECT_EQ(executable.status().code(), StatusCode::kUnimplemented);
  EXPECT_THAT(executable.status().message(), HasSubstr("custom call target 'my.secret_op'"));
}

// Every chunk of the sample files whose ops this test binary can run.
class ConformanceSampleTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ConformanceSampleTest, EveryChunkPasses) {
  std::string path = std::string(BERTH_SOURCE_ROOT) + "/../shared/conformance/stablehlo/" + GetParam();
  std::ifstream in(path);
  if (!in) GTEST_SKIP() << "no conformance sample at " << path;
  std::stringstream text;
  text << in.rdbuf();
  std::string contents = text.str();
  for (const stablehlo::TestChunk& chunk : stablehlo::SplitTestFile(contents)) {
    SCOPED_TRACE(GetParam() + " chunk " + std::to_string(chunk.index));
    CompileOptions options;
    options.options["source_name"] = GetParam();
    std::string padded = std::string(static_cast<size_t>(chunk.first_line - 1), '\n') + std::string(chunk.text);
    Result<std::vector<Literal>> out = CpuRunner::Get().Run(padded, {}, options);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
  }
}

INSTANTIATE_TEST_SUITE_P(Samples, ConformanceSampleTest,
                         ::testing::Values("all_reduce.mlir", "all_gather.mlir", "replica_id.mlir",
                                           "check.mlir", "call.mlir"));

}  // namespace
}  // namespace berth
