// Custom partitioning rules written in C++ against the host API
// (Client::RegisterCustomPartitioner; berth/ext/custom_partitioner.h is the
// C side). A rule tells the SDK's SPMD partitioner how to cut a custom call
// of one target when a sharded program is compiled:
//
//   berth::CustomPartitionerRule rule;
//   rule.identity = "rowwise-v1";   // text that changes when the rule does
//   rule.infer_result_shardings = [](const berth::CustomPartitionerSite& site)
//       -> berth::Result<std::vector<std::string>> {
//     return std::vector<std::string>{site.operands[0].sharding};   // rows stay where they are
//   };
//   rule.partition = [](const berth::CustomPartitionerSite& site) -> berth::Result<berth::CustomPartitioning> {
//     berth::CustomPartitioning out;
//     out.computation = "func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> { ... }";
//     return out;
//   };
//   BERTH_ASSIGN_OR_RETURN(berth::CustomPartitionerHandle handle,
//                          client.RegisterCustomPartitioner("my.rowwise", std::move(rule)));
//
// Types are printed StableHLO tensor types (the global ones), shardings
// GSPMD strings; see sdk/spmd/README.md.
#ifndef BERTH_CUSTOM_PARTITIONER_HPP_
#define BERTH_CUSTOM_PARTITIONER_HPP_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "berth/named_value.hpp"
#include "berth/status.hpp"

namespace berth {

// One operand or result of a call site.
struct CustomCallValue {
  std::string type;      // "tensor<16x8xf32>", the global type
  std::string sharding;  // GSPMD text; empty where none is given
};

// A call site as a rule sees it. Results' shardings: empty when inferring,
// the users' when propagating (empty where none asks), the chosen ones when
// partitioning.
struct CustomPartitionerSite {
  std::string target;
  NamedValueMap attributes;  // as FFI handlers get them (backend_config flattened)
  std::vector<CustomCallValue> operands;
  std::vector<CustomCallValue> results;
  int64_t num_partitions = 1;
};

// What `partition` answers. An empty sharding keeps the default: an operand
// as it arrives, a result as chosen.
struct CustomPartitioning {
  // A module (or one func.func) whose @main takes each operand's shard and
  // returns each result's shard.
  std::string computation;
  std::vector<std::string> operand_shardings;
  std::vector<std::string> result_shardings;
};

using CustomShardingsFn = std::function<Result<std::vector<std::string>>(const CustomPartitionerSite&)>;

struct CustomPartitionerRule {
  // Result shardings from the operands' (empty function or entries:
  // replicated).
  CustomShardingsFn infer_result_shardings;
  // Result shardings from what the users ask (empty function: not
  // followed; empty entries: the user's).
  CustomShardingsFn propagate_user_sharding;
  // Required.
  std::function<Result<CustomPartitioning>(const CustomPartitionerSite&)> partition;
  // Required: text standing for the rule's content (its source, a version);
  // the registration's identity is its SHA-256, so an executable names the
  // rule it was partitioned with by content.
  std::string identity;
};

// A registration, for UnregisterCustomPartitioner.
struct CustomPartitionerHandle {
  uint64_t id = 0;
  std::string target;
  std::string identity;  // 64 hex digits
};

}  // namespace berth

#endif  // BERTH_CUSTOM_PARTITIONER_HPP_
