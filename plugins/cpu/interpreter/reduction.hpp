// Shared pieces of the reduction, control-flow and linear-algebra kernels:
// reduce and map (kernels_reduce.cc), reduce_window and select_and_scatter
// (kernels_window.cc), while/if/case (kernels_control.cc), dot_general and
// dot (kernels_dot.cc), triangular_solve (kernels_triangular_solve.cc),
// convolution and dynamic_conv (kernels_convolution.cc), batch_norm_*
// (kernels_batch_norm.cc).
//
// Reductions whose body is one commutative binary op of its two arguments
// (add, multiply, maximum, minimum, and, or, xor) run as typed loops instead
// of running the body region per element; Combine<R, T> is that op, with the
// semantics of the elementwise op: integers wrap, i1 add/multiply are or/and,
// float maximum/minimum propagate NaN and order -0 below +0 (IEEE 754-2019).
#ifndef BERTH_PLUGINS_CPU_INTERPRETER_REDUCTION_HPP_
#define BERTH_PLUGINS_CPU_INTERPRETER_REDUCTION_HPP_

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

#include "berth/stablehlo/ir.hpp"
#include "interpreter/element_types.hpp"
#include "interpreter/kernel.hpp"
#include "interpreter/tensor.hpp"
#include "interpreter/tensor_util.hpp"

namespace berth::cpu {

// Registration of each file of the family; RegisterReductionKernels calls
// them all.
void RegisterReduceKernels(KernelRegistry& registry);
void RegisterWindowKernels(KernelRegistry& registry);
void RegisterControlKernels(KernelRegistry& registry);
void RegisterDotKernels(KernelRegistry& registry);
void RegisterTriangularSolveKernels(KernelRegistry& registry);
void RegisterConvolutionKernels(KernelRegistry& registry);

// The type dot_general, dot and convolution (`call`, operands lhs and rhs)
// compute their products in: f64 when an operand or the result is f64, else
// f32 when any is a float; i1 when all three are i1, si64 for an i1 result
// of integers; complex<f64> when one is complex and one complex<f64> or f64,
// else complex<f32> when one is complex; else the result's type (complex
// products: dot_general and dot only). UNIMPLEMENTED when the plugin lacks
// one of the three types.
Result<ElementType> ProductComputeType(const KernelCall& call);
void RegisterBatchNormKernels(KernelRegistry& registry);

// The op a reducer body computes when it is `return op(arg0, arg1)` (either
// argument order); kNone for any other body.
enum class Reducer : uint8_t { kNone, kAdd, kMultiply, kMaximum, kMinimum, kAnd, kOr, kXor };

// Looks at region `region` of a reduce-like op whose body takes two rank-0
// arguments of one element type.
Reducer DetectReducer(const stablehlo::Region& region);
// Whether the body is `return add(arg0, arg1)` on complex numbers, which
// reduce sums part by part with the typed loops.
bool IsComplexAddition(const stablehlo::Region& region);

namespace detail {

// Integer arithmetic in an unsigned type at least as wide as int, so that
// neither signed overflow nor promotion to int can happen.
template <typename T>
using WrapType = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

// What exact products (dot, convolution) accumulate in: unsigned (wrapping)
// integers, bool.
template <typename T>
struct ExactAccumulator {
  using type = WrapType<T>;
};
template <>
struct ExactAccumulator<bool> {
  using type = bool;
};

template <typename T>
inline bool IsNan(T x) {
  return std::isnan(static_cast<double>(x));
}

template <typename T>
inline bool SignBit(T x) {
  return std::signbit(static_cast<double>(x));
}

}  // namespace detail

// One step of reducer R on element type T.
template <Reducer R, typename T>
inline T Combine(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    if constexpr (R == Reducer::kAdd || R == Reducer::kMaximum || R == Reducer::kOr) {
      return a || b;
    } else if constexpr (R == Reducer::kMultiply || R == Reducer::kMinimum ||
                         R == Reducer::kAnd) {
      return a && b;
    } else {
      return a != b;
    }
  } else if constexpr (std::is_integral_v<T>) {
    using W = detail::WrapType<T>;
    if constexpr (R == Reducer::kAdd) return static_cast<T>(static_cast<W>(a) + static_cast<W>(b));
    if constexpr (R == Reducer::kMultiply) {
      return static_cast<T>(static_cast<W>(a) * static_cast<W>(b));
    }
    if constexpr (R == Reducer::kMaximum) return a < b ? b : a;
    if constexpr (R == Reducer::kMinimum) return b < a ? b : a;
    if constexpr (R == Reducer::kAnd) return static_cast<T>(a & b);
    if constexpr (R == Reducer::kOr) return static_cast<T>(a | b);
    if constexpr (R == Reducer::kXor) return static_cast<T>(a ^ b);
  } else {
    if constexpr (R == Reducer::kAdd) return static_cast<T>(a + b);
    if constexpr (R == Reducer::kMultiply) return static_cast<T>(a * b);
    if constexpr (R == Reducer::kMaximum || R == Reducer::kMinimum) {
      if (detail::IsNan(a)) return a;
      if (detail::IsNan(b)) return b;
      if (a == b) {  // equal, or +0 and -0
        bool take_a = detail::SignBit(a) == (R == Reducer::kMinimum);
        return take_a ? a : b;
      }
      if constexpr (R == Reducer::kMaximum) return a < b ? b : a;
      return b < a ? b : a;
    }
    // and/or/xor are never detected on floats.
    return a;
  }
}

// Calls `f.template operator()<R>()` with R the reducer as a constant.
template <typename F>
auto DispatchReducer(Reducer reducer, F&& f) {
  switch (reducer) {
    case Reducer::kAdd: return f.template operator()<Reducer::kAdd>();
    case Reducer::kMultiply: return f.template operator()<Reducer::kMultiply>();
    case Reducer::kMaximum: return f.template operator()<Reducer::kMaximum>();
    case Reducer::kMinimum: return f.template operator()<Reducer::kMinimum>();
    case Reducer::kAnd: return f.template operator()<Reducer::kAnd>();
    case Reducer::kOr: return f.template operator()<Reducer::kOr>();
    case Reducer::kXor:
    case Reducer::kNone: break;
  }
  return f.template operator()<Reducer::kXor>();
}

// out[e] = a[e] (reducer) b[e] for `n` elements of `type` (out may alias a
// or b); UNIMPLEMENTED naming `op` for a type the reducers do not take.
Status CombineArrays(std::string_view op, ElementType type, Reducer reducer, void* out,
                     const void* a, const void* b, size_t n);

// Walks a sub-space of a row-major tensor in lexicographic order: the index
// over `sizes` and the element offset it has with `strides`.
class Odometer {
 public:
  Odometer(std::vector<int64_t> sizes, std::vector<int64_t> strides);

  // Moves to the `linear`-th index (row-major over `sizes`).
  void Seek(int64_t linear);
  // Moves to the next index (wrapping to the first after the last).
  void Next() {
    for (size_t d = sizes_.size(); d-- > 0;) {
      offset_ += strides_[d];
      if (++index_[d] < sizes_[d]) return;
      offset_ -= index_[d] * strides_[d];
      index_[d] = 0;
    }
  }
  int64_t offset() const { return offset_; }
  const std::vector<int64_t>& index() const { return index_; }
  int64_t count() const { return count_; }

 private:
  std::vector<int64_t> sizes_;
  std::vector<int64_t> strides_;
  std::vector<int64_t> index_;
  int64_t offset_ = 0;
  int64_t count_ = 1;
};

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_INTERPRETER_REDUCTION_HPP_
