// Helpers every kernel family uses on whole tensors: one element as a rank-0
// tensor (to run a region on it) and back, and element type conversion with
// the semantics of stablehlo.convert.
#ifndef BERTH_PLUGINS_CPU_INTERPRETER_TENSOR_UTIL_HPP_
#define BERTH_PLUGINS_CPU_INTERPRETER_TENSOR_UTIL_HPP_

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "berth/stablehlo/types.hpp"
#include "interpreter/element_types.hpp"
#include "interpreter/tensor.hpp"

namespace berth::cpu {

class ThreadPool;

// A rank-0 tensor holding element `offset` of `t`.
Result<Tensor> ScalarAt(const Tensor& t, int64_t offset);

// Writes the only element of `scalar` (a region's result) to element `offset`
// of `out`; INTERNAL when it is not one element of out's type.
Status StoreScalar(const Tensor& scalar, Tensor& out, int64_t offset);

// `t` with its elements converted to `to` (integers wrap, bool is x != 0,
// floats round to nearest even, floats to integers truncate and saturate,
// NaN to 0). Returns `t` itself when the types are equal.
Result<Tensor> ConvertTensor(const Tensor& t, ElementType to, ThreadPool* pool);

// One element converted between C++ element types as ConvertTensor does.
template <typename To, typename From>
inline To ConvertElement(From x) {
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (std::is_same_v<To, bool>) {
    return static_cast<double>(x) != 0.0;
  } else if constexpr (std::is_same_v<From, bool>) {
    return static_cast<To>(x ? 1 : 0);
  } else if constexpr (std::is_integral_v<To> && std::is_integral_v<From>) {
    return static_cast<To>(x);
  } else if constexpr (std::is_integral_v<To>) {
    double v = static_cast<double>(x);
    if (std::isnan(v)) return To{0};
    if (v <= static_cast<double>(std::numeric_limits<To>::min())) {
      return std::numeric_limits<To>::min();
    }
    if (v >= static_cast<double>(std::numeric_limits<To>::max())) {
      return std::numeric_limits<To>::max();
    }
    return static_cast<To>(v);
  } else if constexpr (std::is_same_v<To, half> || std::is_same_v<To, bfloat16>) {
    if constexpr (std::is_same_v<From, float> || std::is_same_v<From, half> ||
                  std::is_same_v<From, bfloat16>) {
      return static_cast<To>(static_cast<float>(x));
    } else {
      // One rounding from the exact value (through float could round twice).
      constexpr ElementType kTo = std::is_same_v<To, half> ? ElementType::kF16 : ElementType::kBF16;
      return std::bit_cast<To>(
          static_cast<uint16_t>(stablehlo::EncodeFloat(kTo, static_cast<double>(x))));
    }
  } else if constexpr (std::is_integral_v<From>) {
    return static_cast<To>(x);
  } else {
    return static_cast<To>(static_cast<double>(x));
  }
}

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_INTERPRETER_TENSOR_UTIL_HPP_
