#include "berth/spmd/sharding.hpp"

#include <algorithm>
#include <numeric>

#include "src/text_cursor.hpp"
#include "src/tile_math.hpp"

namespace berth::spmd {

const char* SubgroupKindName(SubgroupKind kind) {
  return kind == SubgroupKind::kManual ? "manual" : "replicated";
}

Sharding Sharding::Manual() {
  Sharding sharding;
  sharding.kind_ = ShardingKind::kManual;
  return sharding;
}

Result<Sharding> Sharding::Maximal(int64_t device) {
  if (device < 0) return InvalidArgumentError("maximal sharding: negative device " + std::to_string(device));
  Sharding sharding;
  sharding.kind_ = ShardingKind::kMaximal;
  sharding.maximal_device_ = device;
  return sharding;
}

Result<Sharding> Sharding::Tiled(std::vector<int64_t> tile_dims, std::vector<int64_t> devices,
                                 std::vector<SubgroupKind> subgroups) {
  if (tile_dims.empty()) return InvalidArgumentError("tiled sharding: no tile dimensions");
  if (subgroups.size() > tile_dims.size()) {
    return InvalidArgumentError("tiled sharding: " + std::to_string(subgroups.size()) + " subgroups for " +
                                std::to_string(tile_dims.size()) + " tile dimensions");
  }
  for (int64_t dim : tile_dims) {
    if (dim < 1) return InvalidArgumentError("tiled sharding: tile dimension " + std::to_string(dim) + " < 1");
  }
  std::optional<int64_t> count = internal::CheckedProduct(tile_dims);
  if (!count) return InvalidArgumentError("tiled sharding: the tile dimensions' product of sizes overflows");
  if (*count != static_cast<int64_t>(devices.size())) {
    return InvalidArgumentError("tiled sharding: " + std::to_string(devices.size()) + " devices for " +
                                std::to_string(*count) + " tiles");
  }
  std::vector<int64_t> sorted = devices;
  std::sort(sorted.begin(), sorted.end());
  if (!sorted.empty() && sorted.front() < 0) {
    return InvalidArgumentError("tiled sharding: negative device " + std::to_string(sorted.front()));
  }
  auto repeated = std::adjacent_find(sorted.begin(), sorted.end());
  if (repeated != sorted.end()) {
    return InvalidArgumentError("tiled sharding: device " + std::to_string(*repeated) + " appears twice");
  }
  return TiledFrom(std::move(tile_dims), std::move(devices), std::move(subgroups));
}

Sharding Sharding::TiledFrom(std::vector<int64_t> tile_dims, std::vector<int64_t> devices,
                             std::vector<SubgroupKind> subgroups) {
  Sharding sharding;
  sharding.kind_ = ShardingKind::kTiled;
  sharding.tile_dims_ = std::move(tile_dims);
  sharding.devices_ = std::move(devices);
  sharding.subgroups_ = std::move(subgroups);
  return sharding;
}

Sharding Sharding::Tuple(std::vector<Sharding> elements) {
  Sharding sharding;
  sharding.kind_ = ShardingKind::kTuple;
  sharding.tuple_elements_ = std::move(elements);
  return sharding;
}

int64_t Sharding::TilesAlong(int64_t dim) const {
  if (!IsTiled() || dim < 0 || dim >= tensor_rank()) return 1;
  return tile_dims_[static_cast<size_t>(dim)];
}

int64_t Sharding::SubgroupSize(SubgroupKind kind) const {
  int64_t size = 1;
  for (size_t i = 0; i < subgroups_.size(); ++i) {
    if (subgroups_[i] == kind) size *= tile_dims_[static_cast<size_t>(tensor_rank()) + i];
  }
  return size;
}

bool Sharding::HoldsData(int64_t device) const {
  switch (kind_) {
    case ShardingKind::kReplicated:
    case ShardingKind::kManual: return true;
    case ShardingKind::kMaximal: return device == maximal_device_;
    case ShardingKind::kTiled: return std::find(devices_.begin(), devices_.end(), device) != devices_.end();
    case ShardingKind::kTuple:
      return std::any_of(tuple_elements_.begin(), tuple_elements_.end(),
                         [device](const Sharding& e) { return e.HoldsData(device); });
  }
  return false;
}

std::optional<std::vector<int64_t>> Sharding::TileIndexOf(int64_t device) const {
  if (!IsTiled()) return std::nullopt;
  auto it = std::find(devices_.begin(), devices_.end(), device);
  if (it == devices_.end()) return std::nullopt;
  return internal::Unravel(it - devices_.begin(), tile_dims_);
}

Status Sharding::CheckRank(int64_t rank) const {
  if (IsTuple()) return InvalidArgumentError("a tuple sharding does not lay out one array");
  if (IsTiled() && rank != tensor_rank()) {
    return InvalidArgumentError("a sharding tiling " + std::to_string(tensor_rank()) +
                                " dimension(s) cannot lay out an array of rank " + std::to_string(rank));
  }
  return OkStatus();
}

Result<ShardRegion> Sharding::RegionOf(int64_t device, std::span<const int64_t> global_shape) const {
  BERTH_RETURN_IF_ERROR(CheckRank(static_cast<int64_t>(global_shape.size())));
  ShardRegion region;
  region.offsets.assign(global_shape.size(), 0);
  region.sizes.assign(global_shape.begin(), global_shape.end());
  if (!HoldsData(device)) {
    region.sizes.assign(global_shape.size(), 0);
    return region;
  }
  if (!IsTiled()) return region;
  std::vector<int64_t> index = *TileIndexOf(device);
  for (size_t d = 0; d < global_shape.size(); ++d) {
    int64_t size = global_shape[d];
    int64_t chunk = (size + tile_dims_[d] - 1) / tile_dims_[d];
    int64_t offset = std::min(index[d] * chunk, size);
    region.offsets[d] = offset;
    region.sizes[d] = std::min(chunk, size - offset);
  }
  return region;
}

Result<std::vector<int64_t>> Sharding::ShardShape(std::span<const int64_t> global_shape) const {
  BERTH_RETURN_IF_ERROR(CheckRank(static_cast<int64_t>(global_shape.size())));
  std::vector<int64_t> shape(global_shape.begin(), global_shape.end());
  if (!IsTiled()) return shape;
  for (size_t d = 0; d < shape.size(); ++d) shape[d] = (shape[d] + tile_dims_[d] - 1) / tile_dims_[d];
  return shape;
}

Sharding Sharding::Canonical() const {
  if (IsTuple()) {
    std::vector<Sharding> elements;
    for (const Sharding& e : tuple_elements_) elements.push_back(e.Canonical());
    return Tuple(std::move(elements));
  }
  if (!IsTiled()) return *this;
  // Subgroups merged by kind, manual before replicated, size-1 ones dropped:
  // a transposition of the device array.
  const size_t rank = static_cast<size_t>(tensor_rank());
  std::vector<int64_t> perm(rank);
  std::iota(perm.begin(), perm.end(), 0);
  std::vector<int64_t> dims(tile_dims_.begin(), tile_dims_.begin() + static_cast<std::ptrdiff_t>(rank));
  std::vector<SubgroupKind> kinds;
  for (SubgroupKind kind : {SubgroupKind::kManual, SubgroupKind::kReplicated}) {
    int64_t size = 1;
    for (size_t i = 0; i < subgroups_.size(); ++i) {
      if (subgroups_[i] != kind) continue;
      perm.push_back(static_cast<int64_t>(rank + i));
      size *= tile_dims_[rank + i];
    }
    if (size > 1) {
      dims.push_back(size);
      kinds.push_back(kind);
    }
  }
  std::vector<int64_t> devices = internal::Transpose(devices_, tile_dims_, perm);
  bool one_tile = std::all_of(dims.begin(), dims.begin() + static_cast<std::ptrdiff_t>(rank),
                              [](int64_t d) { return d == 1; });
  bool manual = std::find(kinds.begin(), kinds.end(), SubgroupKind::kManual) != kinds.end();
  bool replicated = std::find(kinds.begin(), kinds.end(), SubgroupKind::kReplicated) != kinds.end();
  if (one_tile && !manual) return Replicated();
  if (one_tile && manual && !replicated) return Manual();
  return TiledFrom(std::move(dims), std::move(devices), std::move(kinds));
}

bool Sharding::StructurallyEqual(const Sharding& other) const {
  if (kind_ != other.kind_) return false;
  switch (kind_) {
    case ShardingKind::kReplicated:
    case ShardingKind::kManual: return true;
    case ShardingKind::kMaximal: return maximal_device_ == other.maximal_device_;
    case ShardingKind::kTiled:
      return tile_dims_ == other.tile_dims_ && devices_ == other.devices_ && subgroups_ == other.subgroups_;
    case ShardingKind::kTuple:
      if (tuple_elements_.size() != other.tuple_elements_.size()) return false;
      for (size_t i = 0; i < tuple_elements_.size(); ++i) {
        if (!tuple_elements_[i].StructurallyEqual(other.tuple_elements_[i])) return false;
      }
      return true;
  }
  return false;
}

bool Sharding::operator==(const Sharding& other) const {
  return Canonical().StructurallyEqual(other.Canonical());
}

}  // namespace berth::spmd
