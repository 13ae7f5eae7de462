// Index arithmetic over row-major arrays of devices, shared by the tile
// model and both text forms.
#ifndef BERTH_SPMD_SRC_TILE_MATH_HPP_
#define BERTH_SPMD_SRC_TILE_MATH_HPP_

#include <cstdint>
#include <span>
#include <vector>

namespace berth::spmd::internal {

// The coordinates of row-major `linear` in an array of `dims`.
inline std::vector<int64_t> Unravel(int64_t linear, std::span<const int64_t> dims) {
  std::vector<int64_t> coords(dims.size());
  for (size_t i = dims.size(); i-- > 0;) {
    coords[i] = linear % dims[i];
    linear /= dims[i];
  }
  return coords;
}

inline int64_t Ravel(std::span<const int64_t> coords, std::span<const int64_t> dims) {
  int64_t linear = 0;
  for (size_t i = 0; i < dims.size(); ++i) linear = linear * dims[i] + coords[i];
  return linear;
}

// `values` (row-major over `dims`) transposed: dimension j of the result is
// dimension perm[j] of the source. perm must be a permutation of 0..rank-1.
inline std::vector<int64_t> Transpose(std::span<const int64_t> values, std::span<const int64_t> dims,
                                      std::span<const int64_t> perm) {
  std::vector<int64_t> out_dims(perm.size());
  for (size_t j = 0; j < perm.size(); ++j) out_dims[j] = dims[static_cast<size_t>(perm[j])];
  std::vector<int64_t> out(values.size());
  std::vector<int64_t> source(dims.size());
  for (size_t linear = 0; linear < values.size(); ++linear) {
    std::vector<int64_t> coords = Unravel(static_cast<int64_t>(linear), out_dims);
    for (size_t j = 0; j < perm.size(); ++j) source[static_cast<size_t>(perm[j])] = coords[j];
    out[linear] = values[static_cast<size_t>(Ravel(source, dims))];
  }
  return out;
}

// Whether perm holds each of 0..size-1 once.
inline bool IsPermutation(std::span<const int64_t> perm) {
  std::vector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(perm.size()) || seen[static_cast<size_t>(p)]) return false;
    seen[static_cast<size_t>(p)] = true;
  }
  return true;
}

}  // namespace berth::spmd::internal

#endif  // BERTH_SPMD_SRC_TILE_MATH_HPP_
