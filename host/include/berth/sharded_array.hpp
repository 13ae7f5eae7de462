// A global array laid out over the partitions of a sharded program: per
// partition, its shard as a buffer on that partition's device (none where
// another process of a job holds it).
//
//   berth::Result<berth::Executable> exe = client.Compile(sharded_module);
//   // each parameter's layout: exe->parameter_shardings()[i].sharding
//   auto x = berth::ShardedArray::FromHost(client, data.data(), data.size() * 4, berth::ElementType::kF32,
//                                          {8, 6}, exe->parameter_shardings()[0].sharding, client.devices());
//   auto out = exe->ExecuteSharded({&*x});     // outputs laid out as output_shardings() says
//   (*out)[0].ToHost(result.data(), result.size() * 4);
//
// Shardings are GSPMD text ("{devices=[4,1]<=[4]}", "{replicated}"); the
// devices it names are partitions, and partition p's shard lives on the
// p-th device given. Shards are ceil(global / tiles) long along each
// dimension; where a dimension does not divide, the last shards are padded
// (with zeros when made from host data) and the padding is ignored when
// gathering.
#ifndef BERTH_SHARDED_ARRAY_HPP_
#define BERTH_SHARDED_ARRAY_HPP_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "berth/api.hpp"
#include "berth/buffer.hpp"
#include "berth/device.hpp"
#include "berth/element_type.hpp"
#include "berth/status.hpp"

namespace berth {

class Client;

class BERTH_API ShardedArray {
 public:
  ShardedArray() = default;

  // Splits `data` (`size` bytes, dense row-major, of `dims`) as `sharding`
  // lays it out over `devices` (partition p on devices[p]; as many devices
  // as partitions, or more: the first ones are used): a buffer on each
  // addressable device with its shard; devices of other processes get
  // none. INVALID_ARGUMENT for a malformed sharding or one that does not fit
  // the array, too few devices, or a size other than the array's.
  static Result<ShardedArray> FromHost(const Client& client, const void* data, size_t size, ElementType type,
                                       std::vector<int64_t> dims, std::string sharding,
                                       const std::vector<Device>& devices);
  // The array made of existing shards: shards[p] is partition p's (nullopt
  // where another process holds it), on the device of id device_ids[p].
  static Result<ShardedArray> FromShards(ElementType type, std::vector<int64_t> dims, std::string sharding,
                                         std::vector<int64_t> device_ids, std::vector<std::optional<Buffer>> shards);

  ElementType element_type() const { return type_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  const std::string& sharding() const { return sharding_; }
  size_t num_partitions() const { return device_ids_.size(); }
  // The device of each partition.
  const std::vector<int64_t>& device_ids() const { return device_ids_; }
  // Partition p's shard; nullptr when another process holds it.
  const Buffer* shard(size_t partition) const;
  // How many shards this process holds.
  size_t num_addressable_shards() const;

  // The part of the global array partition p holds.
  struct Region {
    std::vector<int64_t> offsets;
    std::vector<int64_t> sizes;
  };
  Result<Region> RegionOf(size_t partition) const;

  // Gathers the global array into `data` (`size` bytes) from the shards
  // this process holds. FAILED_PRECONDITION, naming the partition, when a
  // part of the array is only on another process's devices.
  Status ToHost(void* data, size_t size) const;

 private:
  ElementType type_ = ElementType::kInvalid;
  std::vector<int64_t> dims_;
  std::string sharding_;
  std::vector<int64_t> device_ids_;
  std::vector<std::optional<Buffer>> shards_;
};

}  // namespace berth

#endif  // BERTH_SHARDED_ARRAY_HPP_
