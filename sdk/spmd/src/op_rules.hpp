// The partitioner's per-op rules: each op of the entry function runs on the
// layouts its operands arrive in where a rule allows (elementwise ops,
// dot_general, convolution, transpose, broadcast_in_dim, reduce, sort, reshape, slice, pad,
// concatenate, gather, scatter-add, while, if, case), takes the layouts
// sharding constraints ask for, runs as written inside manual (shard_map)
// regions, and runs whole on every device where no rule applies (the
// fallback: operands gathered, result replicated). A value left whole that
// a later use wants cut (src/wanted_layouts.hpp) is cut where it is
// defined. Rules and their order: README.md.
#ifndef BERTH_SPMD_SRC_OP_RULES_HPP_
#define BERTH_SPMD_SRC_OP_RULES_HPP_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "berth/spmd/custom_rules.hpp"
#include "berth/spmd/mesh.hpp"
#include "berth/stablehlo/ir.hpp"
#include "berth/status.hpp"
#include "src/device_program.hpp"

namespace berth::spmd::internal {

// What PartitionOps made of a block.
struct PartitionedOps {
  std::vector<DeviceValue> returned;
  // Set, naming the op, when an op outside a manual (shard_map) region
  // depends on the device it runs on (partition_id, replica_id, a
  // collective, send/recv, infeed/outfeed, or a call of a function holding
  // one): op-by-op partitioning does not apply to the module.
  std::string needs_whole_program;
  // The functions the written ops call, directly or not: the module's
  // functions the per-device program keeps.
  std::set<std::string, std::less<>> called;
  // The per-shard computations of custom calls partitioned by their rules,
  // as private functions of the per-device module.
  std::vector<std::string> custom_functions;
  // The custom-call targets whose rules partitioned a call.
  std::set<std::string, std::less<>> custom_rule_targets;
};

// What the ops of the entry see of the whole module.
struct EntryContext {
  // The entry function's body, and its results' layouts (nullopt where the
  // module gives none): what a custom call returned as a result is asked to
  // be.
  const stablehlo::Block* body = nullptr;
  std::vector<std::optional<Sharding>> results;
  // Rules for custom-call targets.
  const CustomCallRules& rules;
  // The results are returned whole (PartitionOptions::replicated_results):
  // `results` pulls no layout backwards.
  bool replicated_results = false;
};

// Writes `body`'s ops (a function of `module`) into `program`, `arguments`
// being the per-device values of the block's arguments.
Result<PartitionedOps> PartitionOps(const stablehlo::Module& module, const stablehlo::Block& body,
                                    std::vector<DeviceValue> arguments,
                                    const std::map<std::string, Mesh, std::less<>>& meshes, const EntryContext& entry,
                                    DeviceProgram& program);

}  // namespace berth::spmd::internal

#endif  // BERTH_SPMD_SRC_OP_RULES_HPP_
