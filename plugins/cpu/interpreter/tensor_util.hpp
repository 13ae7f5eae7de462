// Helpers every kernel family uses on whole tensors: one element as a rank-0
// tensor (to run a region on it) and back, element type conversion with
// the semantics of stablehlo.convert, and transposing.
#ifndef BERTH_PLUGINS_CPU_INTERPRETER_TENSOR_UTIL_HPP_
#define BERTH_PLUGINS_CPU_INTERPRETER_TENSOR_UTIL_HPP_

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
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

// `t` with its elements converted to `to` as stablehlo.convert does
// (integers wrap, bool is x != 0, floats round to nearest even, floats to
// integers truncate and saturate, NaN to 0). Returns `t` itself when the
// types are equal.
Result<Tensor> ConvertTensor(const Tensor& t, ElementType to, ThreadPool* pool);

// Whether perm[i] == i for every i.
bool IsIdentityPermutation(std::span<const int64_t> perm);

// `t` transposed so that dim i of the result is t's dim perm[i] (`perm` a
// permutation of t's dims). Returns `t` itself when `perm` is the identity.
Result<Tensor> PermuteDims(const Tensor& t, std::span<const int64_t> perm, ThreadPool* pool);

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_INTERPRETER_TENSOR_UTIL_HPP_
