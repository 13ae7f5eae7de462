// The SPMD partitioner: one global program with sharding annotations in,
// the program each device runs out, as StableHLO text any plugin that runs
// collectives executes with `num_partitions` partitions.
//
// The entry function is partitioned op by op (rules per op family, forward
// from the arguments and constraints; ops without a rule run whole on
// gathered operands; shard_map regions run as written on each device's
// shard); see sdk/spmd/README.md. A module in which an op depends on the
// device (partition_id, collectives, ...) outside shard_map regions runs
// whole instead: the per-device entry gathers the arguments, calls the
// global program (kept as a private function) and cuts each result to this
// partition's shard.
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

#include "berth/spmd/custom_rules.hpp"
#include "berth/spmd/mesh.hpp"
#include "berth/spmd/sharding.hpp"
#include "berth/stablehlo/ir.hpp"
#include "berth/status.hpp"

namespace berth::spmd {

struct PartitionOptions {
  // Overrides the module's mhlo.num_partitions (or its mesh's size).
  std::optional<int64_t> num_partitions;
  // Replaces the module's one sdy.mesh (same axis names, any sizes); the
  // partition count becomes its device count unless num_partitions is set.
  std::optional<Mesh> mesh;
  // Every result whole on every device, whatever the module says (gathered
  // in the program): what `berth run` prints on each node of a job.
  bool replicated_results = false;
  // Rules for custom-call targets (custom_rules.hpp); a custom call whose
  // target has none runs whole on every device.
  CustomCallRules custom_rules;
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
  // The custom-call targets whose rules (PartitionOptions::custom_rules)
  // partitioned a call: what the program depends on beyond its text.
  std::vector<std::string> custom_rule_targets;
};

// Whether the module holds shard_map regions (sdy.manual_computation, or
// GSPMD's @SPMDFullToShardShape / @SPMDShardToFullShape): a multi-device
// program even where its entry carries no sharding.
bool HasManualRegions(const stablehlo::Module& module);

// Whether `module` is sharded: its entry's arguments or results carry
// shardings (mhlo.sharding, sdy.sharding), or it holds shard_map regions.
// Their text is read by Partition, not here.
bool IsSharded(const stablehlo::Module& module);

// UNIMPLEMENTED (naming the value or op) for what the partitioner cannot do
// yet: partially manual regions, nested or uneven manual computations,
// device-dependent ops outside the shard_map
// regions of a module that has them, a region's value returned or used
// outside it other than through @SPMDShardToFullShape, maximal, manual or
// tuple shardings of entry values, tiled shardings over a
// subset of the partitions, and dynamic shapes. INVALID_ARGUMENT for
// shardings that do not fit the module (see ReadEntryShardings).
Result<PartitionedProgram> Partition(const stablehlo::Module& module, const PartitionOptions& options = {});

// What a plugin calls at compile: the per-device program when `module` is
// sharded and runs on more than one partition (options.num_partitions, else
// the module's mhlo.num_partitions, else its largest mesh); nullopt when it
// is not (shardings mean nothing on one device: the module runs as written).
Result<std::optional<PartitionedProgram>> PartitionIfSharded(const stablehlo::Module& module,
                                                             const PartitionOptions& options = {});

}  // namespace berth::spmd

#endif  // BERTH_SPMD_PARTITIONER_HPP_
