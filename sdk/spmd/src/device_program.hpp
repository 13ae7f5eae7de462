// Writing the per-device entry function: generic-form ops, one per line,
// values named %v0, %v1, ..., and the data movement between layouts
// (all-gathers, partition_id-indexed slices, all-reduces) the partitioner's
// rules ask for.
#ifndef BERTH_SPMD_SRC_DEVICE_PROGRAM_HPP_
#define BERTH_SPMD_SRC_DEVICE_PROGRAM_HPP_

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "berth/spmd/sharding.hpp"
#include "berth/stablehlo/ir.hpp"
#include "berth/stablehlo/printer.hpp"
#include "berth/stablehlo/types.hpp"
#include "src/reshard_plan.hpp"

namespace berth::spmd::internal {

std::string TensorType(std::span<const int64_t> dims, stablehlo::ElementType type);

// A value of the per-device program: its name, the global array it is a
// part of, and how it is laid out over the partitions. Replicated values
// are whole on every device; tiled ones hold ShardShape(global) (padded
// where a dimension does not divide).
struct DeviceValue {
  std::string name;
  stablehlo::Type global_type;
  Sharding sharding;

  std::vector<int64_t> GlobalShape() const;
  std::vector<int64_t> LocalShape() const;
  std::string LocalType() const;
};

class DeviceProgram {
 public:
  // The collectives it writes take channel ids from `first_channel` up
  // (above the ids the program's own collectives hold).
  explicit DeviceProgram(int64_t num_partitions, int64_t first_channel = 1)
      : num_partitions_(num_partitions), next_channel_(first_channel) {}

  int64_t num_partitions() const { return num_partitions_; }
  const std::string& body() const { return body_; }

  // Appends `op` (everything after "= ") and returns its result's name.
  std::string Emit(const std::string& op);
  // The same for an op of `count` results (%vN:count = ...): one name each.
  std::vector<std::string> Emit(const std::string& op, size_t count);
  // Appends a line with no result.
  void EmitLine(const std::string& line);
  // A fresh value name, for a line written with EmitLine (a region's
  // block arguments, an op whose regions follow on lines of their own).
  std::string NewName();

  // Values made inside a region are not seen after it: what the program
  // made once and reuses (this partition's id, its entries of offset
  // tables, padding masks) is forgotten on leaving.
  struct RegionScope {
    std::string partition_id;
    std::map<std::vector<int64_t>, std::string> lookups;
    std::map<std::string, std::string> masks;
  };
  RegionScope EnterRegion() const { return {partition_id_, lookups_, masks_}; }
  void LeaveRegion(RegionScope scope) {
    partition_id_ = std::move(scope.partition_id);
    lookups_ = std::move(scope.lookups);
    masks_ = std::move(scope.masks);
  }
  // Appends `op` printed with `rewrite`'s operands and types; returns one
  // name per result.
  std::vector<std::string> EmitRewritten(const stablehlo::Operation& op, stablehlo::OpRewrite rewrite);

  // `value` laid out as `target`, moved as PlanReshard chooses: nothing, a
  // local dynamic slice, a collective_permute, an all_to_all, all-gathers
  // along some dimensions then a slice, or all-gathers to the global array
  // then its part.
  DeviceValue Reshard(const DeviceValue& value, const Sharding& target);
  // `value` with the padding of its dimensions that do not divide evenly
  // (those among `dims`, when given) set to `fill` (a scalar's name; zero
  // when empty): a select on partition_id-indexed bounds. Every value the
  // partitioner defines has zero padding; rules whose ops would leave
  // something else there call this.
  std::string FillPadding(const DeviceValue& value, const std::string& fill = "", std::span<const size_t> dims = {});
  // Indices into a table cut along some of the dimensions they index, made
  // local: `indices` (of `shape`, integers of `type`, the index vector
  // along `vector_dim`, or one implicit component when it equals the rank)
  // clamped per component j to [0, upper[j]] as a gather clamps them, then
  // minus this device's offset offsets[j][p] of its part (none where
  // offsets[j] is empty). `inside` (of `shape` without the vector dimension)
  // holds where every component with offsets lies in [0, part[j]), the
  // rows this device holds.
  struct LocalIndices {
    std::string indices;
    std::string inside;
  };
  LocalIndices LocalizeIndices(const std::string& indices, std::span<const int64_t> shape, stablehlo::ElementType type,
                               int64_t vector_dim, std::span<const int64_t> upper,
                               const std::vector<std::vector<int64_t>>& offsets, std::span<const int64_t> part);
  // `value` (of `shape`) where `mask` (of `mask_shape`, its dimension i
  // being `value`'s dims[i]) holds, zero elsewhere.
  std::string ZeroWhereNot(const std::string& mask, std::span<const int64_t> mask_shape, const std::string& value,
                           std::span<const int64_t> shape, stablehlo::ElementType type,
                           std::span<const int64_t> dims);
  // Combines `local` (of `shape`) over each group of devices with the
  // binary op `combiner` ("stablehlo.add", "stablehlo.maximum", ...).
  std::string AllReduce(const std::string& local, std::span<const int64_t> shape, stablehlo::ElementType type,
                        const std::vector<std::vector<int64_t>>& groups, std::string_view combiner);
  // The same combination, each member i of a group keeping only the i-th
  // of as many pieces along `dim` as the group has members.
  std::string ReduceScatter(const std::string& local, std::span<const int64_t> shape, stablehlo::ElementType type,
                            const std::vector<std::vector<int64_t>>& groups, std::string_view combiner, size_t dim);

 private:
  // The two-argument region applying `combiner` to scalars of `type`.
  std::string CombinerRegion(std::string_view combiner, stablehlo::ElementType type);
  std::string I64Constant(std::span<const int64_t> values);
  const std::string& PartitionId();
  std::string Lookup(std::span<const int64_t> table);
  // `local_value` (of `local`, updated) all-gathered along `dim` of the
  // tiled `sharding`.
  std::string GatherAlong(const std::string& local_value, std::vector<int64_t>& local, stablehlo::ElementType type,
                          const Sharding& sharding, size_t dim);
  std::string GatherToGlobal(const DeviceValue& value);
  // Each device's part at `offsets` (per dimension, per device) of what it
  // holds.
  std::string LocalSlice(const std::string& value, std::span<const int64_t> from_local,
                         const std::vector<std::vector<int64_t>>& offsets, std::span<const int64_t> to_local,
                         stablehlo::ElementType type);
  // `global` (the whole array on every device) cut to this device's part of
  // `target`; padding past the array is zero.
  std::string SliceToShard(const std::string& global, const DeviceValue& shape_of, const Sharding& target);
  std::string Channel();

  int64_t num_partitions_;
  std::string body_;
  int64_t next_value_ = 0;
  int64_t next_rewrite_ = 0;
  int64_t next_channel_ = 1;
  std::string partition_id_;
  // Lookup's results by table: each device's entry of a table is read once.
  std::map<std::vector<int64_t>, std::string> lookups_;
  // FillPadding's masks (where elements are real) by local shape and
  // per-dimension bounds.
  std::map<std::string, std::string> masks_;
};

}  // namespace berth::spmd::internal

#endif  // BERTH_SPMD_SRC_DEVICE_PROGRAM_HPP_
