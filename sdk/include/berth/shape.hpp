// Element counts and dense byte sizes of shapes, with overflow checks.
// Header-only; shared by the host, the SDK helpers and plugins.
#ifndef BERTH_SHAPE_HPP_
#define BERTH_SHAPE_HPP_

#include <cstdint>
#include <limits>
#include <span>
#include <string>

#include "berth/element_type.hpp"
#include "berth/status.hpp"

namespace berth {

// Number of elements (1 for a scalar); -1 when a dim is negative or the
// product overflows int64.
inline int64_t ElementCount(std::span<const int64_t> dims) {
  int64_t count = 1;
  for (int64_t dim : dims) {
    if (dim < 0) return -1;
    if (dim != 0 && count > std::numeric_limits<int64_t>::max() / dim) return -1;
    count *= dim;
  }
  return count;
}

// "[2, 3]"; a negative (dynamic) dim prints as "?".
inline std::string DimsString(std::span<const int64_t> dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) out += ", ";
    out += dims[i] < 0 ? std::string("?") : std::to_string(dims[i]);
  }
  return out + "]";
}

// Dense major-to-minor size in bytes, or INVALID_ARGUMENT naming the problem
// (a negative dim, overflow, a type without a storage size).
inline Result<size_t> DenseByteSize(ElementType type, std::span<const int64_t> dims) {
  size_t element_size = ElementTypeByteSize(type);
  if (element_size == 0) {
    return InvalidArgumentError("element type " + std::string(ElementTypeName(type)) +
                                " has no storage size");
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      return InvalidArgumentError("dimension " + std::to_string(i) + " is negative (" +
                                  std::to_string(dims[i]) + ")");
    }
  }
  int64_t count = ElementCount(dims);
  if (count < 0 ||
      static_cast<uint64_t>(count) > std::numeric_limits<size_t>::max() / element_size) {
    return InvalidArgumentError("shape is too large: its byte size overflows");
  }
  return static_cast<size_t>(count) * element_size;
}

}  // namespace berth

#endif  // BERTH_SHAPE_HPP_
