// A device mesh: named axes over the devices of a partitioned program, as
// Shardy writes it (`sdy.mesh @m = <["x"=2, "y"=4], device_ids=[...]>`).
#ifndef BERTH_SPMD_MESH_HPP_
#define BERTH_SPMD_MESH_HPP_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "berth/status.hpp"

namespace berth::spmd {

struct MeshAxis {
  std::string name;
  int64_t size = 1;

  bool operator==(const MeshAxis&) const = default;
};

// Axes major to minor; a device's coordinates are its position in the
// device order, unravelled over the axis sizes.
class Mesh {
 public:
  Mesh() = default;
  // Checks: names unique and non-empty, sizes >= 1, `device_ids` (when given)
  // a permutation of 0..N-1 where N is the product of the sizes. An empty
  // axis list with one device id is a maximal mesh (`<[], device_ids=[3]>`):
  // the one device may then be any id.
  static Result<Mesh> Create(std::vector<MeshAxis> axes, std::vector<int64_t> device_ids = {});

  const std::vector<MeshAxis>& axes() const { return axes_; }
  // The device at each mesh position, row-major over the axes.
  const std::vector<int64_t>& device_ids() const { return device_ids_; }
  // True when the device order is not the default 0..N-1 (or the mesh is
  // maximal): ToString then writes it.
  bool has_explicit_device_ids() const { return explicit_ids_; }
  int64_t num_devices() const { return static_cast<int64_t>(device_ids_.size()); }

  // The axis called `name`, or nullopt.
  std::optional<size_t> AxisIndex(std::string_view name) const;

  // `<["x"=2, "y"=4]>`, with `, device_ids=[...]` when they are not 0..N-1.
  std::string ToString() const;

  bool operator==(const Mesh&) const = default;

 private:
  std::vector<MeshAxis> axes_;
  std::vector<int64_t> device_ids_;
  bool explicit_ids_ = false;
};

// Parses Shardy's mesh text: `<["x"=2, "y"=4]>`, `<["a"=2], device_ids=[1, 0]>`,
// `<[]>`, optionally prefixed by `#sdy.mesh` or `mesh` (as the StableHLO
// library keeps an `sdy.mesh` op's attribute).
Result<Mesh> ParseMesh(std::string_view text);

// Parses the command line's mesh, `x=2,y=4` (axis names as in the module,
// sizes >= 1): `berth run --mesh`, `berth compile --partitioned --mesh`.
Result<Mesh> ParseMeshFlag(std::string_view text);

}  // namespace berth::spmd

#endif  // BERTH_SPMD_MESH_HPP_
