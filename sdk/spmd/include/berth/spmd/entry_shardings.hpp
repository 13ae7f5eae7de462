// The shardings a module's entry function declares: `mhlo.sharding`
// (GSPMD) or `sdy.sharding` (Shardy, with the module's `sdy.mesh` ops) on
// its arguments and results, and the partition count.
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
  // mhlo.num_partitions; else the largest mesh's device count; else 1.
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

}  // namespace berth::spmd

#endif  // BERTH_SPMD_ENTRY_SHARDINGS_HPP_
