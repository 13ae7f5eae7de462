// Copying a rectangular block between a dense global array and a dense
// shard buffer (both row-major): what splitting a global array into its
// shards and gathering them back are made of (ShardedArray, berth run).
#ifndef BERTH_HOST_CLIENT_ARRAY_BLOCK_HPP_
#define BERTH_HOST_CLIENT_ARRAY_BLOCK_HPP_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace berth::core {

// The number of elements of an array of `dims` (1 for a scalar).
int64_t ElementCount(std::span<const int64_t> dims);
// "[8x6]", for messages.
std::string ShapeText(std::span<const int64_t> dims);

enum class BlockDirection { kGlobalToShard, kShardToGlobal };

// The block of `global` (of `global_dims`) starting at `offsets`, `sizes`
// long, and the block of `shard` (of `shard_dims`, each at least `sizes`)
// starting at its origin: copied one way or the other, `element` bytes per
// element. Nothing for an empty block.
void CopyBlock(BlockDirection direction, std::byte* global, std::span<const int64_t> global_dims,
               std::span<const int64_t> offsets, std::span<const int64_t> sizes, std::byte* shard,
               std::span<const int64_t> shard_dims, size_t element);

}  // namespace berth::core

#endif  // BERTH_HOST_CLIENT_ARRAY_BLOCK_HPP_
