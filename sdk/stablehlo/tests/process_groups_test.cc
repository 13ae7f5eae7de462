// Which instances meet at a collective (process_groups.hpp): the spec's four
// strategies from replica_groups, the channel and use_global_device_ids,
// ragged and absent groups, instances in no group, members outside the
// grid, and collective_permute's sets and sources - each against members
// worked out by hand from the spec's formulas for chosen instances.
#include <gmock/gmock.h>

#include <string>
#include <vector>

#include "berth/stablehlo/parser.hpp"
#include "berth/stablehlo/process_groups.hpp"

namespace berth::stablehlo {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A module whose @main holds one `op` on a tensor<2xi64> with `attrs`.
Module OneOp(const std::string& op, const std::string& attrs, bool region = false) {
  const std::string body =
      region ? " ({\n  ^bb0(%p: tensor<i64>, %q: tensor<i64>):\n    %s = stablehlo.add %p, %q : "
               "tensor<i64>\n    stablehlo.return %s : tensor<i64>\n  })"
             : "";
  const std::string text =
      "func.func @main(%x: tensor<2xi64>) -> tensor<2xi64> {\n  %r = \"stablehlo." + op + "\"(%x)" +
      body + " {" + attrs +
      "} : (tensor<2xi64>) -> tensor<2xi64>\n  return %r : tensor<2xi64>\n}\n";
  Result<Module> module = ParseModule(text, "groups.mlir");
  EXPECT_TRUE(module.ok()) << module.status().ToString();
  return std::move(module).value();
}

const Operation& TheOp(const Module& module) {
  return *module.entry_function()->entry_block().operations().front();
}

std::vector<int64_t> Members(const Operation& op, int64_t replica, int64_t partition,
                             int64_t replicas, int64_t partitions) {
  Result<std::vector<int64_t>> members =
      ProcessGroupOf(op, GridPosition{replica, partition, replicas, partitions});
  EXPECT_TRUE(members.ok()) << members.status().ToString();
  return members.ok() ? *members : std::vector<int64_t>{};
}

TEST(ProcessGroupsTest, WithoutAChannelGroupsReplicasOfOnePartition) {
  Module module =
      OneOp("all_reduce", "replica_groups = dense<[[2, 0], [1, 3]]> : tensor<2x2xi64>", true);
  const Operation& op = TheOp(module);
  EXPECT_EQ(ProcessGroupStrategyOf(op), ProcessGroupStrategy::kCrossReplica);
  // Replica r of partition p is r * 2 + p; the row's order is kept.
  EXPECT_THAT(Members(op, 0, 1, 4, 2), ElementsAre(5, 1));
  EXPECT_THAT(Members(op, 3, 0, 4, 2), ElementsAre(2, 6));
}

TEST(ProcessGroupsTest, AChannelGroupsEveryPartitionOfTheRowsReplicas) {
  Module module = OneOp("all_reduce",
                        "replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>, channel_handle = "
                        "#stablehlo.channel_handle<handle = 3, type = 0>",
                        true);
  const Operation& op = TheOp(module);
  EXPECT_EQ(CollectiveChannelId(op), 3);
  EXPECT_EQ(ProcessGroupStrategyOf(op), ProcessGroupStrategy::kCrossReplicaAndPartition);
  // For each partition p, the row's replicas: (1, p), (0, p).
  EXPECT_THAT(Members(op, 0, 2, 2, 3), ElementsAre(3, 0, 4, 1, 5, 2));
}

TEST(ProcessGroupsTest, GlobalDeviceIdsNameInstancesDirectly) {
  Module module = OneOp("all_gather",
                        "all_gather_dim = 0 : i64, replica_groups = dense<[[3, 0], [1, -1]]> : "
                        "tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, "
                        "type = 0>, use_global_device_ids",
                        false);
  const Operation& op = TheOp(module);
  EXPECT_EQ(ProcessGroupStrategyOf(op), ProcessGroupStrategy::kFlattenedIds);
  EXPECT_THAT(Members(op, 1, 1, 2, 2), ElementsAre(3, 0));
  EXPECT_THAT(Members(op, 0, 1, 2, 2), ElementsAre(1));  // a ragged row: -1 is padding
  // Instance 2 is in no group.
  Result<std::vector<int64_t>> none = ProcessGroupOf(op, GridPosition{1, 0, 2, 2});
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
}

TEST(ProcessGroupsTest, NoGroupsMeansEveryReplicaAndAMemberOutsideTheGridIsInvalid) {
  Module all = OneOp("all_reduce", "replica_groups = dense<> : tensor<0x0xi64>", true);
  EXPECT_THAT(Members(TheOp(all), 1, 0, 3, 1), ElementsAre(0, 1, 2));
  Module outside = OneOp("all_reduce", "replica_groups = dense<[[0, 5]]> : tensor<1x2xi64>", true);
  Result<std::vector<int64_t>> members = ProcessGroupOf(TheOp(outside), GridPosition{0, 0, 2, 1});
  EXPECT_EQ(members.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(members.status().message(), HasSubstr("member 5 is outside the 2x1 grid"));
}

TEST(ProcessGroupsTest, PermuteAndBroadcastGroupPartitionsWithAChannel) {
  Module permute = OneOp("collective_permute",
                         "source_target_pairs = dense<[[0, 2], [2, 1]]> : tensor<2x2xi64>, "
                         "channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>");
  const Operation& op = TheOp(permute);
  EXPECT_EQ(ProcessGroupStrategyOf(op), ProcessGroupStrategy::kCrossPartition);
  const GridPosition at{1, 2, 2, 3};
  EXPECT_THAT(PermuteSetOf(op, at), ElementsAre(3, 4, 5));
  EXPECT_EQ(PermuteSourceOf(op, at), 0);
  EXPECT_EQ(PermuteSourceOf(op, GridPosition{1, 1, 2, 3}), 2);
  EXPECT_EQ(PermuteSourceOf(op, GridPosition{1, 0, 2, 3}), -1);  // no pair targets it

  Module broadcast =
      OneOp("collective_broadcast", "replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>");
  EXPECT_EQ(ProcessGroupStrategyOf(TheOp(broadcast)), ProcessGroupStrategy::kCrossReplica);
  EXPECT_THAT(Members(TheOp(broadcast), 0, 1, 2, 2), ElementsAre(3, 1));
}

}  // namespace
}  // namespace berth::stablehlo
