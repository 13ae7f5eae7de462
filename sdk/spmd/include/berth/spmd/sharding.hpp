// How one array is laid out over the devices of a partitioned program.
//
// One model for both forms JAX writes (GSPMD strings, Shardy attributes):
// a tile assignment, as GSPMD's. The array is cut into tiles along its
// dimensions (`tile_dims()[d]` tiles along dimension d); trailing dimensions
// of the assignment beyond the array's rank are subgroups (replicated: the
// devices along them hold the same tile; manual: a shard_map region's own
// devices). `devices()` lists the device of each position of the assignment,
// row-major.
//
// Uneven dimensions are cut as GSPMD cuts them: every tile is
// ceil(size / tiles) long and the last ones are short or empty (10 rows over
// 4 devices: 3, 3, 3, 1).
#ifndef BERTH_SPMD_SHARDING_HPP_
#define BERTH_SPMD_SHARDING_HPP_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "berth/status.hpp"

namespace berth::spmd {

// The most devices a mesh or tile assignment may name: text asking for more
// is refused before anything is allocated for it.
inline constexpr int64_t kMaxDevices = int64_t{1} << 20;

enum class ShardingKind : uint8_t {
  kReplicated,  // every device holds the whole array
  kMaximal,     // one device holds it (`{maximal device=N}`)
  kManual,      // the program is already per device here (shard_map)
  kTiled,       // cut into tiles (`{devices=[...]...}`)
  kTuple,       // one sharding per element of a tuple
};

enum class SubgroupKind : uint8_t { kReplicated, kManual };

const char* SubgroupKindName(SubgroupKind kind);

// One device's part of an array: per dimension, where its tile starts in the
// global array and how many elements of it the device holds (0 for an empty
// tile of an uneven dimension).
struct ShardRegion {
  std::vector<int64_t> offsets;
  std::vector<int64_t> sizes;

  bool operator==(const ShardRegion&) const = default;
};

class Sharding {
 public:
  // Replicated.
  Sharding() = default;

  static Sharding Replicated() { return Sharding(); }
  static Sharding Manual();
  // Checks device >= 0.
  static Result<Sharding> Maximal(int64_t device);
  // Checks: every tile dim >= 1, `devices` holds product(tile_dims) distinct
  // ids >= 0, `subgroups` no longer than `tile_dims`.
  static Result<Sharding> Tiled(std::vector<int64_t> tile_dims, std::vector<int64_t> devices,
                                std::vector<SubgroupKind> subgroups = {});
  static Sharding Tuple(std::vector<Sharding> elements);

  ShardingKind kind() const { return kind_; }
  bool IsReplicated() const { return kind_ == ShardingKind::kReplicated; }
  bool IsManual() const { return kind_ == ShardingKind::kManual; }
  bool IsMaximal() const { return kind_ == ShardingKind::kMaximal; }
  bool IsTiled() const { return kind_ == ShardingKind::kTiled; }
  bool IsTuple() const { return kind_ == ShardingKind::kTuple; }

  int64_t maximal_device() const { return maximal_device_; }
  // The whole assignment: the array's dimensions, then the subgroups.
  const std::vector<int64_t>& tile_dims() const { return tile_dims_; }
  const std::vector<int64_t>& devices() const { return devices_; }
  const std::vector<SubgroupKind>& subgroups() const { return subgroups_; }
  const std::vector<Sharding>& tuple_elements() const { return tuple_elements_; }

  // Tiled only: the rank of the array it cuts.
  int64_t tensor_rank() const {
    return static_cast<int64_t>(tile_dims_.size() - subgroups_.size());
  }
  // Tiles along array dimension `dim` (1 for any dimension of an untiled
  // sharding).
  int64_t TilesAlong(int64_t dim) const;
  // The product of the subgroup dims of `kind` (1 when there is none).
  int64_t SubgroupSize(SubgroupKind kind) const;

  // Whether `device` holds a part of the array.
  bool HoldsData(int64_t device) const;
  // Tiled only: the assignment coordinates of `device` (one per tile dim), or
  // nullopt when the device is not in the assignment.
  std::optional<std::vector<int64_t>> TileIndexOf(int64_t device) const;
  // The region of a `global_shape` array that `device` holds: the whole
  // array when replicated, maximal on it, or manual; nothing (every size 0)
  // for a device a maximal or tiled sharding leaves out. Fails for a tuple
  // or a rank other than tensor_rank().
  Result<ShardRegion> RegionOf(int64_t device, std::span<const int64_t> global_shape) const;
  // The per-device (padded) shape: ceil(global / tiles) per dimension.
  Result<std::vector<int64_t>> ShardShape(std::span<const int64_t> global_shape) const;
  // Whether the sharding can cut an array of `rank` dimensions.
  Status CheckRank(int64_t rank) const;

  // The same layout in its simplest form: subgroup dims of size 1 dropped,
  // a tiled sharding with one tile per dimension and only replicated
  // subgroups turned into Replicated, and a tiled sharding whose
  // assignment is all manual into Manual. Equality compares these forms.
  Sharding Canonical() const;
  bool operator==(const Sharding& other) const;

 private:
  // A tiled sharding from checked parts (Tiled() checks, Canonical() derives).
  static Sharding TiledFrom(std::vector<int64_t> tile_dims, std::vector<int64_t> devices,
                            std::vector<SubgroupKind> subgroups);
  bool StructurallyEqual(const Sharding& other) const;

  ShardingKind kind_ = ShardingKind::kReplicated;
  int64_t maximal_device_ = 0;
  std::vector<int64_t> tile_dims_;
  std::vector<int64_t> devices_;
  std::vector<SubgroupKind> subgroups_;
  std::vector<Sharding> tuple_elements_;
};

}  // namespace berth::spmd

#endif  // BERTH_SPMD_SHARDING_HPP_
