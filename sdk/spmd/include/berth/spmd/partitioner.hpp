// The SPMD partitioner: one global program with sharding annotations in,
// the program each device runs out, as StableHLO text any plugin that runs
// collectives executes with `num_partitions` partitions.
//
// Today's rule is the fallback the design names for every op: replicate.
// The per-device entry (same name as the global one) takes each argument's
// shard, all-gathers the sharded ones to their global shape, calls the global
// program (kept as a private function), and cuts each result to the shard
// its sharding gives this partition (partition_id-indexed dynamic slices).
// Slower than a partitioner with per-op rules, never wrong; propagation and
// per-op rules replace it op family by op family.
//
// Shard buffers: every device of a tiled value holds the padded shard shape
// (Sharding::ShardShape, ceil per dimension); where a dimension does not
// divide, the last shards' padding is ignored on input and zero on output.
#ifndef BERTH_SPMD_PARTITIONER_HPP_
#define BERTH_SPMD_PARTITIONER_HPP_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "berth/spmd/sharding.hpp"
#include "berth/stablehlo/ir.hpp"
#include "berth/status.hpp"

namespace berth::spmd {

struct PartitionOptions {
  // Overrides the module's mhlo.num_partitions (or its mesh's size).
  std::optional<int64_t> num_partitions;
  // Every result whole on every device, whatever the module says (gathered
  // in the program): what `berth run` prints on each node of a job.
  bool replicated_results = false;
};

struct PartitionedProgram {
  // The per-device module: `mhlo.num_partitions = N`, one replica.
  std::string text;
  int64_t num_partitions = 1;
  // Per argument and result of the entry: its layout (replicated where the
  // module wrote none), its global and its per-device shape.
  std::vector<Sharding> argument_shardings;
  std::vector<Sharding> result_shardings;
  std::vector<std::vector<int64_t>> argument_shapes;
  std::vector<std::vector<int64_t>> local_argument_shapes;
  std::vector<std::vector<int64_t>> result_shapes;
  std::vector<std::vector<int64_t>> local_result_shapes;
};

// UNIMPLEMENTED (naming the value or op) for what the fallback cannot do
// yet: manual regions (@SPMDFullToShardShape, @SPMDShardToFullShape),
// maximal, manual or tuple shardings of entry values, tiled shardings over a
// subset of the partitions, and dynamic shapes. INVALID_ARGUMENT for
// shardings that do not fit the module (see ReadEntryShardings).
Result<PartitionedProgram> Partition(const stablehlo::Module& module, const PartitionOptions& options = {});

}  // namespace berth::spmd

#endif  // BERTH_SPMD_PARTITIONER_HPP_
