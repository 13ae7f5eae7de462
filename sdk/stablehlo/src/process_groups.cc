#include "berth/stablehlo/process_groups.hpp"

#include <algorithm>
#include <string>

namespace berth::stablehlo {

int64_t CollectiveChannelId(const Operation& op) {
  if (std::optional<ChannelHandle> handle = op.channel_handle()) return handle->handle;
  return op.GetInt("channel_id").value_or(0);
}

ProcessGroupStrategy ProcessGroupStrategyOf(const Operation& op) {
  const int64_t channel = CollectiveChannelId(op);
  switch (op.kind()) {
    case OpKind::kAllToAll:
    case OpKind::kCollectivePermute:
    case OpKind::kCollectiveBroadcast:
      return channel > 0 ? ProcessGroupStrategy::kCrossPartition
                         : ProcessGroupStrategy::kCrossReplica;
    default:
      if (channel <= 0) return ProcessGroupStrategy::kCrossReplica;
      return op.GetBool("use_global_device_ids") ? ProcessGroupStrategy::kFlattenedIds
                                                 : ProcessGroupStrategy::kCrossReplicaAndPartition;
  }
}

Result<std::vector<int64_t>> ProcessGroupOf(const Operation& op, const GridPosition& at) {
  std::vector<std::vector<int64_t>> groups = op.replica_groups();
  for (auto& group : groups) std::erase(group, -1);  // ragged rows are padded with -1
  // The row holding `id` (every id below `total` when there are no groups).
  auto row_with = [&](int64_t id, int64_t total) -> Result<std::vector<int64_t>> {
    if (groups.empty()) {
      std::vector<int64_t> all(static_cast<size_t>(total));
      for (int64_t i = 0; i < total; ++i) all[static_cast<size_t>(i)] = i;
      return all;
    }
    for (const auto& group : groups) {
      if (std::find(group.begin(), group.end(), id) != group.end()) return group;
    }
    return NotFoundError("the replica groups do not contain id " + std::to_string(id));
  };
  std::vector<int64_t> members;
  switch (ProcessGroupStrategyOf(op)) {
    case ProcessGroupStrategy::kCrossReplica: {
      BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> row, row_with(at.replica, at.num_replicas));
      for (int64_t r : row) members.push_back(r * at.num_partitions + at.partition);
      break;
    }
    case ProcessGroupStrategy::kCrossPartition: {
      BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> row, row_with(at.partition, at.num_partitions));
      for (int64_t p : row) members.push_back(at.replica * at.num_partitions + p);
      break;
    }
    case ProcessGroupStrategy::kCrossReplicaAndPartition: {
      BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> row, row_with(at.replica, at.num_replicas));
      for (int64_t p = 0; p < at.num_partitions; ++p) {
        for (int64_t r : row) members.push_back(r * at.num_partitions + p);
      }
      break;
    }
    case ProcessGroupStrategy::kFlattenedIds: {
      BERTH_ASSIGN_OR_RETURN(members, row_with(at.Logical(), at.GridSize()));
      break;
    }
  }
  for (int64_t m : members) {
    if (m < 0 || m >= at.GridSize()) {
      return InvalidArgumentError("process group member " + std::to_string(m) + " is outside the " +
                                  std::to_string(at.num_replicas) + "x" +
                                  std::to_string(at.num_partitions) + " grid");
    }
  }
  return members;
}

std::vector<int64_t> PermuteSetOf(const Operation& op, const GridPosition& at) {
  const bool replicas = ProcessGroupStrategyOf(op) == ProcessGroupStrategy::kCrossReplica;
  const int64_t count = replicas ? at.num_replicas : at.num_partitions;
  std::vector<int64_t> members;
  for (int64_t i = 0; i < count; ++i) {
    members.push_back(replicas ? i * at.num_partitions + at.partition
                               : at.replica * at.num_partitions + i);
  }
  return members;
}

int64_t PermuteSourceOf(const Operation& op, const GridPosition& at) {
  const bool replicas = ProcessGroupStrategyOf(op) == ProcessGroupStrategy::kCrossReplica;
  const int64_t mine = replicas ? at.replica : at.partition;
  const int64_t count = replicas ? at.num_replicas : at.num_partitions;
  int64_t source = -1;
  for (const auto& [from, to] : op.GetPairs("source_target_pairs")) {
    if (to == mine) source = from;
  }
  return source >= 0 && source < count ? source : -1;
}

}  // namespace berth::stablehlo
