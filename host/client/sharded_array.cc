// ShardedArray and Executable::ExecuteSharded: global arrays split into and
// gathered from per-partition shards, with the SDK's sharding model
// (berth/spmd) reading the layouts.
#include "berth/sharded_array.hpp"

#include <algorithm>
#include <numeric>

#include "berth/client.hpp"
#include "berth/executable.hpp"
#include "berth/spmd/gspmd.hpp"
#include "client/array_block.hpp"

namespace berth {
namespace {

// The layout `text` gives an array of `dims`, checked to fit it and to name
// no partition at or past `partitions`.
Result<spmd::Sharding> LayoutOf(const std::string& text, const std::vector<int64_t>& dims, size_t partitions) {
  Result<spmd::Sharding> sharding = spmd::ParseGspmdSharding(text);
  if (!sharding.ok()) return InvalidArgumentError("sharding '" + text + "': " + sharding.status().message());
  spmd::Sharding canonical = sharding->Canonical();
  if (canonical.IsTuple() || canonical.IsManual()) {
    return InvalidArgumentError("sharding '" + text + "': a sharded array takes a replicated, maximal or tiled layout");
  }
  if (canonical.IsTiled()) {
    Status rank = canonical.CheckRank(static_cast<int64_t>(dims.size()));
    if (!rank.ok()) return InvalidArgumentError("sharding '" + text + "': " + rank.message());
  }
  std::vector<int64_t> named = canonical.IsTiled() ? canonical.devices() : std::vector<int64_t>{};
  if (canonical.IsMaximal()) named.push_back(canonical.maximal_device());
  for (int64_t partition : named) {
    if (partition >= static_cast<int64_t>(partitions)) {
      return InvalidArgumentError("sharding '" + text + "' names partition " + std::to_string(partition) + ", but " +
                                  std::to_string(partitions) + " device(s) are given");
    }
  }
  return canonical;
}

// The number of partitions a layout spans (at least 1).
size_t PartitionsOf(const spmd::Sharding& sharding) {
  if (sharding.IsMaximal()) return static_cast<size_t>(sharding.maximal_device()) + 1;
  if (!sharding.IsTiled()) return 1;
  return static_cast<size_t>(*std::max_element(sharding.devices().begin(), sharding.devices().end())) + 1;
}

}  // namespace

Result<ShardedArray> ShardedArray::FromHost(const Client& client, const void* data, size_t size, ElementType type,
                                            std::vector<int64_t> dims, std::string sharding,
                                            const std::vector<Device>& devices) {
  const size_t element = ElementTypeByteSize(type);
  if (element == 0) {
    return UnimplementedError("ShardedArray::FromHost: element type " + std::string(ElementTypeName(type)) +
                              " is not byte-sized");
  }
  if (std::any_of(dims.begin(), dims.end(), [](int64_t d) { return d < 0; })) {
    return InvalidArgumentError("ShardedArray::FromHost: negative dimension in " + core::ShapeText(dims));
  }
  if (size != static_cast<size_t>(core::ElementCount(dims)) * element || (data == nullptr && size > 0)) {
    return InvalidArgumentError("ShardedArray::FromHost: " + std::to_string(size) + " bytes given for a " +
                                std::string(ElementTypeName(type)) + core::ShapeText(dims) + " array of " +
                                std::to_string(static_cast<size_t>(core::ElementCount(dims)) * element) + " bytes");
  }
  Result<spmd::Sharding> layout = LayoutOf(sharding, dims, devices.size());
  if (!layout.ok()) return Status(layout.status().code(), "ShardedArray::FromHost: " + layout.status().message());
  const size_t partitions = std::max(PartitionsOf(*layout), layout->IsReplicated() ? devices.size() : size_t{1});
  if (devices.size() < partitions || devices.empty()) {
    return InvalidArgumentError("ShardedArray::FromHost: sharding '" + sharding + "' spans " +
                                std::to_string(partitions) + " partition(s), " + std::to_string(devices.size()) +
                                " device(s) given");
  }
  BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> local, layout->ShardShape(dims));
  ShardedArray array;
  array.type_ = type;
  array.dims_ = std::move(dims);
  array.sharding_ = std::move(sharding);
  std::vector<std::byte> staging;
  auto* global = const_cast<std::byte*>(static_cast<const std::byte*>(data));
  for (size_t p = 0; p < partitions; ++p) {
    array.device_ids_.push_back(devices[p].id());
    if (!devices[p].is_addressable()) {
      array.shards_.emplace_back();
      continue;
    }
    BERTH_ASSIGN_OR_RETURN(spmd::ShardRegion region, layout->RegionOf(static_cast<int64_t>(p), array.dims_));
    const bool holds = std::any_of(region.sizes.begin(), region.sizes.end(), [](int64_t s) { return s > 0; }) ||
                       region.sizes.empty();
    // A device a maximal layout leaves out holds nothing: no buffer.
    if (!holds && layout->IsMaximal()) {
      array.shards_.emplace_back();
      continue;
    }
    staging.assign(static_cast<size_t>(core::ElementCount(local)) * element, std::byte{0});
    core::CopyBlock(core::BlockDirection::kGlobalToShard, global, array.dims_, region.offsets, region.sizes,
                    staging.data(), local, element);
    BERTH_ASSIGN_OR_RETURN(Buffer buffer, client.BufferFromHost(staging.data(), type, local, devices[p]));
    array.shards_.emplace_back(std::move(buffer));
  }
  return array;
}

Result<ShardedArray> ShardedArray::FromShards(ElementType type, std::vector<int64_t> dims, std::string sharding,
                                              std::vector<int64_t> device_ids,
                                              std::vector<std::optional<Buffer>> shards) {
  if (device_ids.size() != shards.size() || device_ids.empty()) {
    return InvalidArgumentError("ShardedArray::FromShards: " + std::to_string(shards.size()) + " shard(s) for " +
                                std::to_string(device_ids.size()) + " device(s)");
  }
  Result<spmd::Sharding> layout = LayoutOf(sharding, dims, device_ids.size());
  if (!layout.ok()) return Status(layout.status().code(), "ShardedArray::FromShards: " + layout.status().message());
  BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> local, layout->ShardShape(dims));
  for (size_t p = 0; p < shards.size(); ++p) {
    if (shards[p] && (shards[p]->dims() != local || shards[p]->element_type() != type)) {
      return InvalidArgumentError("ShardedArray::FromShards: partition " + std::to_string(p) + "'s shard is " +
                                  std::string(ElementTypeName(shards[p]->element_type())) +
                                  core::ShapeText(shards[p]->dims()) + ", the layout's " + std::string(ElementTypeName(type)) +
                                  core::ShapeText(local));
    }
  }
  ShardedArray array;
  array.type_ = type;
  array.dims_ = std::move(dims);
  array.sharding_ = std::move(sharding);
  array.device_ids_ = std::move(device_ids);
  array.shards_ = std::move(shards);
  return array;
}

const Buffer* ShardedArray::shard(size_t partition) const {
  return partition < shards_.size() && shards_[partition] ? &*shards_[partition] : nullptr;
}

size_t ShardedArray::num_addressable_shards() const {
  return static_cast<size_t>(std::count_if(shards_.begin(), shards_.end(), [](const auto& s) { return s.has_value(); }));
}

Result<ShardedArray::Region> ShardedArray::RegionOf(size_t partition) const {
  if (partition >= device_ids_.size()) {
    return OutOfRangeError("ShardedArray::RegionOf: partition " + std::to_string(partition) + " of " +
                           std::to_string(device_ids_.size()));
  }
  BERTH_ASSIGN_OR_RETURN(spmd::Sharding layout, LayoutOf(sharding_, dims_, device_ids_.size()));
  BERTH_ASSIGN_OR_RETURN(spmd::ShardRegion region, layout.RegionOf(static_cast<int64_t>(partition), dims_));
  return Region{std::move(region.offsets), std::move(region.sizes)};
}

Status ShardedArray::ToHost(void* data, size_t size) const {
  const size_t element = ElementTypeByteSize(type_);
  const size_t bytes = static_cast<size_t>(core::ElementCount(dims_)) * element;
  if (size != bytes || (data == nullptr && size > 0)) {
    return InvalidArgumentError("ShardedArray::ToHost: " + std::to_string(size) + " bytes given for " +
                                std::to_string(bytes));
  }
  BERTH_ASSIGN_OR_RETURN(spmd::Sharding layout, LayoutOf(sharding_, dims_, device_ids_.size()));
  BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> local, layout.ShardShape(dims_));
  // Each part of the array from the first addressable partition holding it:
  // every partition is asked which region it holds; replicated and
  // partially replicated layouts give several equal copies.
  std::vector<std::vector<int64_t>> copied;  // the regions' offsets already written
  std::string missing;
  for (size_t p = 0; p < shards_.size(); ++p) {
    BERTH_ASSIGN_OR_RETURN(spmd::ShardRegion region, layout.RegionOf(static_cast<int64_t>(p), dims_));
    if (core::ElementCount(region.sizes) == 0 && !region.sizes.empty()) continue;
    if (std::find(copied.begin(), copied.end(), region.offsets) != copied.end()) continue;
    if (!shards_[p]) {
      missing = missing.empty() ? std::to_string(p) : missing;
      continue;
    }
    BERTH_ASSIGN_OR_RETURN(std::vector<std::byte> shard, shards_[p]->ToHostBytes());
    core::CopyBlock(core::BlockDirection::kShardToGlobal, static_cast<std::byte*>(data), dims_, region.offsets,
                    region.sizes, shard.data(), local, element);
    copied.push_back(region.offsets);
  }
  // A region held only by another process's partitions is missing.
  for (size_t p = 0; p < shards_.size(); ++p) {
    BERTH_ASSIGN_OR_RETURN(spmd::ShardRegion region, layout.RegionOf(static_cast<int64_t>(p), dims_));
    if (core::ElementCount(region.sizes) == 0 && !region.sizes.empty()) continue;
    if (std::find(copied.begin(), copied.end(), region.offsets) == copied.end()) {
      return FailedPreconditionError("ShardedArray::ToHost: partition " + std::to_string(p) +
                                     "'s part of the array is on device " + std::to_string(device_ids_[p]) +
                                     " of another process; gather there, or lay the array out replicated");
    }
  }
  return OkStatus();
}

Result<std::vector<ShardedArray>> Executable::ExecuteSharded(const std::vector<const ShardedArray*>& arguments,
                                                            const ExecuteOptions& options) const {
  if (num_replicas_ != 1) {
    return UnimplementedError("ExecuteSharded: '" + name_ + "' has " + std::to_string(num_replicas_) +
                              " replicas; sharded execution takes one");
  }
  if (output_shardings_.size() != output_types_.size() ||
      (parameter_shardings_.empty() && !arguments.empty())) {
    return FailedPreconditionError("ExecuteSharded: '" + name_ +
                                   "' reports no layouts: its plugin did not partition it (compile a sharded "
                                   "module over more than one partition with a plugin of ABI 1.2 or later)");
  }
  if (arguments.size() != parameter_shardings_.size()) {
    return InvalidArgumentError("ExecuteSharded: '" + name_ + "' takes " + std::to_string(parameter_shardings_.size()) +
                                " argument(s), " + std::to_string(arguments.size()) + " given");
  }
  const size_t partitions = static_cast<size_t>(num_partitions_);
  std::vector<int64_t> device_ids(partitions);
  std::iota(device_ids.begin(), device_ids.end(), int64_t{0});
  if (!arguments.empty() && arguments[0] != nullptr) device_ids = arguments[0]->device_ids();
  for (size_t i = 0; i < arguments.size(); ++i) {
    const std::string which = "ExecuteSharded: argument " + std::to_string(i) + ": ";
    const ShardedArray* arg = arguments[i];
    if (arg == nullptr) return InvalidArgumentError(which + "NULL");
    const ValueSharding& wanted = parameter_shardings_[i];
    if (arg->dims() != wanted.global_dims) {
      return InvalidArgumentError(which + "a global array of shape " + core::ShapeText(wanted.global_dims) +
                                  " is taken, " + core::ShapeText(arg->dims()) + " given");
    }
    Result<spmd::Sharding> have = spmd::ParseGspmdSharding(arg->sharding());
    Result<spmd::Sharding> want = spmd::ParseGspmdSharding(wanted.sharding);
    if (!have.ok() || !want.ok() || !(*have == *want)) {
      return InvalidArgumentError(which + "laid out as " + arg->sharding() + ", the program takes " + wanted.sharding +
                                  " (make it with that sharding)");
    }
    if (arg->device_ids() != device_ids) {
      return InvalidArgumentError(which + "its partitions are on other devices than argument 0's");
    }
  }
  if (device_ids.size() != partitions) {
    return InvalidArgumentError("ExecuteSharded: the arguments span " + std::to_string(device_ids.size()) +
                                " partition(s); '" + name_ + "' runs on " + std::to_string(partitions));
  }
  // Each addressable device of the executable runs the partition whose
  // shards it holds.
  std::vector<size_t> partition_of;
  std::vector<std::vector<const Buffer*>> lists;
  for (const Device& device : devices_) {
    auto found = std::find(device_ids.begin(), device_ids.end(), device.id());
    if (found == device_ids.end()) {
      return InvalidArgumentError("ExecuteSharded: '" + name_ + "' runs on device " + std::to_string(device.id()) +
                                  ", which holds no partition of the arguments");
    }
    const size_t p = static_cast<size_t>(found - device_ids.begin());
    partition_of.push_back(p);
    std::vector<const Buffer*> list;
    for (size_t i = 0; i < arguments.size(); ++i) {
      const Buffer* shard = arguments[i]->shard(p);
      if (shard == nullptr) {
        return InvalidArgumentError("ExecuteSharded: argument " + std::to_string(i) + " has no shard of partition " +
                                    std::to_string(p) + " on device " + std::to_string(device.id()));
      }
      list.push_back(shard);
    }
    lists.push_back(std::move(list));
  }
  BERTH_ASSIGN_OR_RETURN(ExecuteResult result, Execute(lists, options));
  for (Event& done : result.completion) BERTH_RETURN_IF_ERROR(done.Await());
  std::vector<ShardedArray> outputs;
  for (size_t o = 0; o < output_shardings_.size(); ++o) {
    std::vector<std::optional<Buffer>> shards(partitions);
    for (size_t d = 0; d < result.outputs.size(); ++d) shards[partition_of[d]] = std::move(result.outputs[d][o]);
    BERTH_ASSIGN_OR_RETURN(ShardedArray output,
                           ShardedArray::FromShards(output_types_[o], output_shardings_[o].global_dims,
                                                    output_shardings_[o].sharding, device_ids, std::move(shards)));
    outputs.push_back(std::move(output));
  }
  return outputs;
}

}  // namespace berth
