#include "berth/spmd/mesh.hpp"

#include <algorithm>

#include <set>

#include "berth/spmd/sharding.hpp"
#include "src/parse_mesh.hpp"

namespace berth::spmd {

Result<Mesh> Mesh::Create(std::vector<MeshAxis> axes, std::vector<int64_t> device_ids) {
  std::set<std::string, std::less<>> names;
  int64_t count = 1;
  for (const MeshAxis& axis : axes) {
    if (axis.name.empty()) return InvalidArgumentError("mesh: an axis has an empty name");
    if (!names.insert(axis.name).second) {
      return InvalidArgumentError("mesh: axis \"" + axis.name + "\" appears twice");
    }
    if (axis.size < 1) {
      return InvalidArgumentError("mesh: axis \"" + axis.name + "\" has size " + std::to_string(axis.size) +
                                  "; sizes are at least 1");
    }
    if (axis.size > kMaxDevices || count * axis.size > kMaxDevices) {
      return InvalidArgumentError("mesh: more than " + std::to_string(kMaxDevices) + " devices");
    }
    count *= axis.size;
  }
  Mesh mesh;
  mesh.axes_ = std::move(axes);
  if (device_ids.empty()) {
    for (int64_t id = 0; id < count; ++id) mesh.device_ids_.push_back(id);
    return mesh;
  }
  if (static_cast<int64_t>(device_ids.size()) != count) {
    return InvalidArgumentError("mesh: " + std::to_string(device_ids.size()) + " device ids for " +
                                std::to_string(count) + " mesh positions");
  }
  if (mesh.axes_.empty()) {
    // A maximal mesh: one device, any id.
    if (device_ids[0] < 0) return InvalidArgumentError("mesh: negative device id");
  } else {
    std::vector<bool> seen(static_cast<size_t>(count), false);
    for (int64_t id : device_ids) {
      if (id < 0 || id >= count || seen[static_cast<size_t>(id)]) {
        return InvalidArgumentError("mesh: device_ids must be a permutation of 0.." +
                                    std::to_string(count - 1) + " (bad or repeated id " +
                                    std::to_string(id) + ")");
      }
      seen[static_cast<size_t>(id)] = true;
    }
  }
  // Ids written in the default order 0..N-1 are the default (Shardy omits
  // them); a maximal mesh always shows its one id.
  mesh.explicit_ids_ = mesh.axes_.empty();
  for (int64_t i = 0; i < count; ++i) {
    if (device_ids[static_cast<size_t>(i)] != i) mesh.explicit_ids_ = true;
  }
  mesh.device_ids_ = std::move(device_ids);
  return mesh;
}

std::optional<size_t> Mesh::AxisIndex(std::string_view name) const {
  for (size_t i = 0; i < axes_.size(); ++i) {
    if (axes_[i].name == name) return i;
  }
  return std::nullopt;
}

std::string Mesh::ToString() const {
  std::string out = "<[";
  for (size_t i = 0; i < axes_.size(); ++i) {
    out += (i ? ", \"" : "\"") + axes_[i].name + "\"=" + std::to_string(axes_[i].size);
  }
  out += "]";
  if (explicit_ids_) {
    out += ", device_ids=[";
    for (size_t i = 0; i < device_ids_.size(); ++i) out += (i ? ", " : "") + std::to_string(device_ids_[i]);
    out += "]";
  }
  return out + ">";
}

namespace internal {

Result<Mesh> ParseMeshBody(TextCursor& cursor) {
  BERTH_RETURN_IF_ERROR(cursor.Expect("<", "to open the mesh"));
  BERTH_RETURN_IF_ERROR(cursor.Expect("[", "before the mesh axes"));
  std::vector<MeshAxis> axes;
  if (!cursor.Consume("]")) {
    do {
      BERTH_ASSIGN_OR_RETURN(std::string name, cursor.QuotedName("in the mesh"));
      BERTH_RETURN_IF_ERROR(cursor.Expect("=", "after the axis name"));
      BERTH_ASSIGN_OR_RETURN(int64_t size, cursor.Integer("for the axis size"));
      axes.push_back({std::move(name), size});
    } while (cursor.Consume(","));
    BERTH_RETURN_IF_ERROR(cursor.Expect("]", "after the mesh axes"));
  }
  std::vector<int64_t> device_ids;
  if (cursor.Consume(",")) {
    BERTH_RETURN_IF_ERROR(cursor.Expect("device_ids", "after the mesh axes"));
    BERTH_RETURN_IF_ERROR(cursor.Expect("=", "after device_ids"));
    BERTH_ASSIGN_OR_RETURN(device_ids, cursor.IntegerList("for device_ids"));
    if (device_ids.empty()) return cursor.Error("device_ids is empty");
  }
  BERTH_RETURN_IF_ERROR(cursor.Expect(">", "to close the mesh"));
  Result<Mesh> mesh = Mesh::Create(std::move(axes), std::move(device_ids));
  if (!mesh.ok()) return cursor.Error(mesh.status().message());
  return mesh;
}

}  // namespace internal

Result<Mesh> ParseMesh(std::string_view text) {
  internal::TextCursor cursor(text, "Shardy mesh");
  if (!cursor.Consume("#sdy.mesh")) cursor.Consume("mesh");
  BERTH_ASSIGN_OR_RETURN(Mesh mesh, internal::ParseMeshBody(cursor));
  BERTH_RETURN_IF_ERROR(cursor.ExpectEnd());
  return mesh;
}

Result<Mesh> ParseMeshFlag(std::string_view text) {
  const std::string what = "mesh '" + std::string(text) + "': ";
  std::vector<MeshAxis> axes;
  int64_t devices = 1;
  for (size_t at = 0; at <= text.size();) {
    size_t comma = text.find(',', at);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view item = text.substr(at, comma - at);
    const size_t equals = item.find('=');
    if (equals == std::string_view::npos || equals == 0 || equals + 1 == item.size()) {
      return InvalidArgumentError(what + "expected NAME=SIZE, not '" + std::string(item) + "'");
    }
    const std::string_view size_text = item.substr(equals + 1);
    if (size_text.size() > 7 || !std::all_of(size_text.begin(), size_text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return InvalidArgumentError(what + "the size of '" + std::string(item.substr(0, equals)) +
                                  "' is not a number from 1 to " + std::to_string(kMaxDevices));
    }
    const int64_t size = std::stoll(std::string(size_text));
    devices *= size;
    if (size < 1 || devices > kMaxDevices) {
      return InvalidArgumentError(what + "sizes must be >= 1 and name at most " + std::to_string(kMaxDevices) +
                                  " devices");
    }
    axes.push_back({std::string(item.substr(0, equals)), size});
    at = comma + 1;
  }
  Result<Mesh> mesh = Mesh::Create(std::move(axes));
  if (!mesh.ok()) return InvalidArgumentError(what + mesh.status().message());
  return mesh;
}

}  // namespace berth::spmd
