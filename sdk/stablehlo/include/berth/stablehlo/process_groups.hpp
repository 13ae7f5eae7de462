// Which program instances take part in a collective together: the StableHLO
// spec's process grouping strategies (cross_replica, cross_partition,
// cross_replica_and_partition, flattened_ids) over a replicas x partitions
// grid of instances, each named by its logical id replica * partitions +
// partition. Shared by the plugins, so that a collective groups the same
// instances on each of them.
#ifndef BERTH_STABLEHLO_PROCESS_GROUPS_HPP_
#define BERTH_STABLEHLO_PROCESS_GROUPS_HPP_

#include <cstdint>
#include <vector>

#include "berth/stablehlo/ir.hpp"
#include "berth/status.hpp"

namespace berth::stablehlo {

// Where one instance runs in the grid.
struct GridPosition {
  int64_t replica = 0;
  int64_t partition = 0;
  int64_t num_replicas = 1;
  int64_t num_partitions = 1;

  int64_t Logical() const { return replica * num_partitions + partition; }
  int64_t GridSize() const { return num_replicas * num_partitions; }
};

// The op's channel: its channel_handle's handle, else its channel_id, else 0.
int64_t CollectiveChannelId(const Operation& op);

enum class ProcessGroupStrategy {
  kCrossReplica,
  kCrossPartition,
  kCrossReplicaAndPartition,
  kFlattenedIds
};

// How `op` groups instances. all_reduce, all_gather, reduce_scatter and
// collective_reduce: cross_replica without a positive channel, else
// flattened_ids with use_global_device_ids, else cross_replica_and_partition.
// all_to_all, collective_permute and collective_broadcast: cross_partition
// with a positive channel, else cross_replica.
ProcessGroupStrategy ProcessGroupStrategyOf(const Operation& op);

// The members (logical ids, in group order) of the group of `op`'s
// replica_groups (rows padded with -1 are ragged; none: every replica or
// partition) that holds the instance at `at`. NOT_FOUND when no group holds
// it (collective_broadcast gives such an instance zeros; for the other ops
// it is an error); INVALID_ARGUMENT naming a member outside the grid.
Result<std::vector<int64_t>> ProcessGroupOf(const Operation& op, const GridPosition& at);

// collective_permute: every instance of the replica set (cross_replica: the
// instances of `at`'s partition, by replica) or partition set
// (cross_partition) of `at`, in order; source_target_pairs name positions
// in it.
std::vector<int64_t> PermuteSetOf(const Operation& op, const GridPosition& at);

// collective_permute: the position in PermuteSetOf whose value the instance
// at `at` receives, or -1 when no pair targets it (its result is zeros).
int64_t PermuteSourceOf(const Operation& op, const GridPosition& at);

}  // namespace berth::stablehlo

#endif  // BERTH_STABLEHLO_PROCESS_GROUPS_HPP_
