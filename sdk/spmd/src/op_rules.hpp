// The partitioner's per-op rules: each op of the entry function runs on the
// layouts its operands arrive in where a rule allows (elementwise ops,
// dot_general), takes the layouts sharding constraints ask for, and runs
// whole on every device where no rule applies (the fallback: operands
// gathered, result replicated). Rules and their order: README.md.
#ifndef BERTH_SPMD_SRC_OP_RULES_HPP_
#define BERTH_SPMD_SRC_OP_RULES_HPP_

#include <map>
#include <string>
#include <vector>

#include "berth/spmd/mesh.hpp"
#include "berth/stablehlo/ir.hpp"
#include "berth/status.hpp"
#include "src/device_program.hpp"

namespace berth::spmd::internal {

// Whether every op of `module` means the same thing whether it runs once
// globally or per device (no partition_id, replica_id, collectives, send,
// recv, infeed or outfeed): only then do the per-op rules apply.
bool PerOpRulesApply(const stablehlo::Module& module);

// Writes `body`'s ops into `program`, `arguments` being the per-device
// values of the block's arguments; returns the values its return names.
Result<std::vector<DeviceValue>> PartitionOps(const stablehlo::Block& body, std::vector<DeviceValue> arguments,
                                              const std::map<std::string, Mesh, std::less<>>& meshes,
                                              DeviceProgram& program);

}  // namespace berth::spmd::internal

#endif  // BERTH_SPMD_SRC_OP_RULES_HPP_
