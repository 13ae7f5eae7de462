// Partitioning rules for custom calls (the custom_partitioner extension,
// berth/ext/custom_partitioner.h): what the partitioner asks a rule at a
// custom call whose target has one, instead of running the call whole on
// gathered operands.
//
// At a call site the partitioner asks, in order:
//   1. InferResultShardings, from the operands' layouts as they arrive;
//   2. PropagateUserSharding, when the call's only user asks for a layout
//      (a sharding constraint, or the entry's result sharding) and the rule
//      follows users: its answer replaces step 1's;
//   3. Partition, with the operands' layouts and the results' chosen
//      layouts: the per-shard computation, the operand layouts it wants
//      (operands are resharded to them) and the layouts its results' shards
//      make up.
// The computation is a module whose @main takes each operand's shard
// (Sharding::ShardShape of its global shape) and returns each result's
// shard; it runs on every device as written. A rule's failure fails the
// partitioning, naming the call site, the target and the step.
#ifndef BERTH_SPMD_CUSTOM_RULES_HPP_
#define BERTH_SPMD_CUSTOM_RULES_HPP_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "berth/ext/custom_partitioner.h"
#include "berth/spmd/sharding.hpp"
#include "berth/stablehlo/ir.hpp"
#include "berth/status.hpp"

namespace berth::spmd {

// One call site, as a rule sees it.
struct CustomCallSite {
  const stablehlo::Operation* op = nullptr;
  // The global types, printed (`tensor<16x8xf32>`).
  std::vector<std::string> operand_types;
  std::vector<std::string> result_types;
  // The operands' layouts as they arrive.
  std::vector<Sharding> operand_shardings;
  // Empty at InferResultShardings; the users' layouts (nullopt where none
  // asks) at PropagateUserSharding; the chosen layouts at Partition.
  std::vector<std::optional<Sharding>> result_shardings;
  int64_t num_partitions = 1;
};

struct CustomPartitioning {
  // StableHLO text of a module with @main (shards in, shards out).
  std::string computation;
  // Per operand: the layout wanted (nullopt: as it arrives).
  std::vector<std::optional<Sharding>> operand_shardings;
  // Per result: the layout its shards make up (nullopt: as chosen).
  std::vector<std::optional<Sharding>> result_shardings;
};

class CustomCallRule {
 public:
  virtual ~CustomCallRule() = default;
  // One entry per result; nullopt: replicated.
  virtual Result<std::vector<std::optional<Sharding>>> InferResultShardings(const CustomCallSite& site) const = 0;
  // Whether PropagateUserSharding is offered.
  virtual bool FollowsUsers() const = 0;
  // One entry per result; nullopt: the user's layout.
  virtual Result<std::vector<std::optional<Sharding>>> PropagateUserSharding(const CustomCallSite& site) const = 0;
  virtual Result<CustomPartitioning> Partition(const CustomCallSite& site) const = 0;
};

// Rules by custom-call target.
using CustomCallRules = std::map<std::string, std::shared_ptr<const CustomCallRule>, std::less<>>;

// A rule served by the C callbacks of `rule` (whose target and rule_data
// must live as long as `owner` does; the rule keeps `owner`).
std::shared_ptr<const CustomCallRule> RuleFromC(const BERTH_CustomPartitioner_Rule& rule,
                                                std::shared_ptr<const void> owner);

}  // namespace berth::spmd

#endif  // BERTH_SPMD_CUSTOM_RULES_HPP_
