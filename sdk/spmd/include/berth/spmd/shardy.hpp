// Shardy's sharding attributes, as JAX writes them (`sdy.sharding` on
// arguments and results, `sharding` on sdy.sharding_constraint):
//
//   #sdy.sharding<@mesh, [{"x"}, {"y", ?}], replicated={"z"}>
//   #sdy.sharding<@mesh, [{"x":(1)2}, {}p0]>        sub-axis, priority
//   #sdy.sharding<mesh<["a"=2]>, [{"a"}]>          inline mesh
//   #sdy.sharding_per_value<[<@mesh, [{"x"}]>, <@mesh, [{}]>]>
//
// A dimension lists the mesh axes it is split over, major first; `?` marks
// it open (propagation may split it further), `pN` gives its priority.
// ToSharding turns one, with its mesh, into the tile model.
#ifndef BERTH_SPMD_SHARDY_HPP_
#define BERTH_SPMD_SHARDY_HPP_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "berth/spmd/mesh.hpp"
#include "berth/spmd/sharding.hpp"
#include "berth/status.hpp"

namespace berth::spmd {

// A mesh axis, or a sub-axis `"x":(pre_size)size`: with x's size split
// major to minor into [pre_size, size, rest], the middle part.
struct AxisRef {
  std::string name;
  std::optional<int64_t> pre_size;  // set for a sub-axis
  std::optional<int64_t> size;      // set for a sub-axis

  bool operator==(const AxisRef&) const = default;
};

struct DimSharding {
  std::vector<AxisRef> axes;  // major to minor
  bool open = false;          // `?`
  std::optional<int64_t> priority;

  bool operator==(const DimSharding&) const = default;
};

struct ShardySharding {
  std::string mesh_name;            // `@name`; empty with an inline mesh
  std::optional<Mesh> inline_mesh;  // `mesh<[...]>`
  std::vector<DimSharding> dims;
  std::vector<AxisRef> replicated;
  std::vector<AxisRef> unreduced;

  bool operator==(const ShardySharding&) const = default;
};

// One sharding: `#sdy.sharding<...>` or its body `<...>`.
Result<ShardySharding> ParseShardySharding(std::string_view text);
// `#sdy.sharding_per_value<[<...>, ...]>`: one per result of an op.
Result<std::vector<ShardySharding>> ParseShardyShardingPerValue(std::string_view text);

// A manual_computation's axes: `#sdy<manual_axes{"x", "y"}>` or `{"x", "y"}`.
Result<std::vector<std::string>> ParseManualAxes(std::string_view text);

// `#sdy.sharding<@mesh, [{"x"}, {}]>`; parses back to an equal value.
std::string PrintShardySharding(const ShardySharding& sharding);

// The layout `sharding` gives on `mesh` (the one it names): tiles along each
// dimension are the product of its axes' sizes, and the devices follow the
// mesh order; axes the sharding leaves out (or lists as replicated) become a
// replicated subgroup, `manual_axes` (a manual_computation's) a manual
// one. Fails naming the axis for an axis the mesh lacks, one used twice,
// a sub-axis that does not divide its axis, and unreduced axes
// (UNIMPLEMENTED: a partial sum has no tile layout).
Result<Sharding> ToSharding(const ShardySharding& sharding, const Mesh& mesh,
                            const std::vector<std::string>& manual_axes = {});

}  // namespace berth::spmd

#endif  // BERTH_SPMD_SHARDY_HPP_
