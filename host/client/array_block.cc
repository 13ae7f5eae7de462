#include "client/array_block.hpp"

#include <cstring>
#include <vector>

namespace berth::core {

int64_t ElementCount(std::span<const int64_t> dims) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  return count;
}

std::string ShapeText(std::span<const int64_t> dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? "x" : "") + std::to_string(dims[i]);
  return text + "]";
}

void CopyBlock(BlockDirection direction, std::byte* global, std::span<const int64_t> global_dims,
               std::span<const int64_t> offsets, std::span<const int64_t> sizes, std::byte* shard,
               std::span<const int64_t> shard_dims, size_t element) {
  const size_t rank = sizes.size();
  for (int64_t size : sizes) {
    if (size <= 0) return;
  }
  if (element == 0) return;
  // Row by row of the innermost dimension.
  std::vector<int64_t> index(rank, 0);
  const size_t row = (rank == 0 ? 1 : static_cast<size_t>(sizes[rank - 1])) * element;
  while (true) {
    int64_t in_global = 0, in_shard = 0;
    for (size_t d = 0; d < rank; ++d) {
      in_global = in_global * global_dims[d] + offsets[d] + index[d];
      in_shard = in_shard * shard_dims[d] + index[d];
    }
    std::byte* g = global + static_cast<size_t>(in_global) * element;
    std::byte* s = shard + static_cast<size_t>(in_shard) * element;
    if (direction == BlockDirection::kGlobalToShard) {
      std::memcpy(s, g, row);
    } else {
      std::memcpy(g, s, row);
    }
    size_t d = rank == 0 ? 0 : rank - 1;
    while (d > 0 && ++index[d - 1] == sizes[d - 1]) index[--d] = 0;
    if (d == 0) return;
  }
}

}  // namespace berth::core
