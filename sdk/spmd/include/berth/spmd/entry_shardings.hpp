// The shardings a module's entry function declares: `mhlo.sharding`
// (GSPMD) or `sdy.sharding` (Shardy, with the module's `sdy.mesh` ops) on
// its arguments and results, or XLA's round-trip form of Shardy (meshes in
// the module's `xla.sdy.meshes` frontend attribute, shardings in
// `xla.sdy.sharding` ones, result shardings on @local_xla.sdy.FuncResultSharding
// calls), and the partition count.
#ifndef BERTH_SPMD_ENTRY_SHARDINGS_HPP_
#define BERTH_SPMD_ENTRY_SHARDINGS_HPP_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "berth/spmd/mesh.hpp"
#include "berth/spmd/sharding.hpp"
#include "berth/stablehlo/ir.hpp"
#include "berth/status.hpp"

namespace berth::spmd {

struct EntryShardings {
  // mhlo.num_partitions; else the largest mesh's device count; else (a
  // module with neither, as older JAX exports are) the most devices any of
  // its GSPMD shardings names; else 1.
  int64_t num_partitions = 1;
  // The module's sdy.mesh ops by name.
  std::map<std::string, Mesh, std::less<>> meshes;
  // One per argument / result of the entry function; nullopt where none is
  // written (the partitioner's propagation chooses).
  std::vector<std::optional<Sharding>> arguments;
  std::vector<std::optional<Sharding>> results;

  // Whether any argument or result carries a sharding, or the module asks
  // for more than one partition.
  bool IsPartitioned() const;
};

// Reads `module`'s meshes and its entry function's shardings;
// `num_partitions`, when given, replaces the module's. `mesh`, when given,
// replaces the module's one sdy.mesh, whose axes it must name (in any order,
// any sizes); the partition count is then its device count unless
// `num_partitions` says otherwise. Errors name the
// argument or result and the text: a malformed sharding, a sharding naming a
// mesh the module lacks, a tiled sharding whose rank is not the value's, a
// device beyond num_partitions.
Result<EntryShardings> ReadEntryShardings(const stablehlo::Module& module,
                                          std::optional<int64_t> num_partitions = std::nullopt,
                                          const std::optional<Mesh>& mesh = std::nullopt);

// The sharding of a value of `type` from its attribute dictionary
// (`mhlo.sharding` or `sdy.sharding`), or nullopt when it has neither;
// `meshes` resolves Shardy's mesh names. A Shardy sharding must list one
// dimension per dimension of `type`.
Result<std::optional<Sharding>> ShardingFromAttributes(const stablehlo::DictionaryAttr* attrs,
                                                       const stablehlo::Type& type,
                                                       const std::map<std::string, Mesh, std::less<>>& meshes);

// The text of the round-trip form's frontend attribute `name` (below), or
// nullopt where `frontend_attributes` lacks it. Exports of early 2025
// escaped the quotes inside once more (`{mesh = #sdy.mesh<[\"a\"=2]>}`);
// that escaping is undone. INVALID_ARGUMENT when it is not a string.
Result<std::optional<std::string>> RoundTripText(const stablehlo::Attribute* frontend_attributes,
                                                 std::string_view name);

// XLA's round-trip form of Shardy (what XLA writes when it serializes a
// Shardy module as plain StableHLO): the sharding in a value's or op's
// `mhlo.frontend_attributes = {xla.sdy.sharding = "#sdy.sharding<...>"}`
// (or a one-value "#sdy.sharding_per_value<[...]>"), or nullopt when there
// is none.
Result<std::optional<Sharding>> RoundTripSharding(const stablehlo::Attribute* frontend_attributes,
                                                  const stablehlo::Type& type,
                                                  const std::map<std::string, Mesh, std::less<>>& meshes);

// The round-trip form's marker of an entry result's sharding: a custom call
// @local_xla.sdy.FuncResultSharding (or @xla.sdy.FuncResultSharding) whose
// result the entry returns; elsewhere an identity, like @Sharding.
bool IsFuncResultSharding(const stablehlo::Operation& op);

}  // namespace berth::spmd

#endif  // BERTH_SPMD_ENTRY_SHARDINGS_HPP_
