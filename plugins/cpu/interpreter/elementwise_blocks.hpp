// Shared pieces of the elementwise kernel family (the kernels_elementwise_*.cc
// and kernels_convert.cc files): the loops block functions are built from,
// integer arithmetic without undefined behaviour, f16/bf16 rounding, value
// conversion, and how each file offers the ops it computes.
//
// Block functions are plain loops over restrict pointers with the per-element
// work inlined, so the compiler vectorizes them; anything an op decides from
// its attributes is decided when the node is made (a different instantiation),
// never per element.
#ifndef BERTH_PLUGINS_CPU_INTERPRETER_ELEMENTWISE_BLOCKS_HPP_
#define BERTH_PLUGINS_CPU_INTERPRETER_ELEMENTWISE_BLOCKS_HPP_

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include "interpreter/element_types.hpp"
#include "interpreter/elementwise.hpp"

namespace berth::cpu::elementwise {

// ---------------------------------------------------------------- types

template <typename T>
inline constexpr bool kIsHalf = std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;

// What a float element computes in: float for f16/bf16, itself otherwise.
template <typename T>
using Calc = std::conditional_t<kIsHalf<T>, float, T>;

// Unsigned arithmetic type for an integer T, at least as wide as `unsigned`
// so that products of small types never overflow a promoted `int`.
template <typename T>
using UWide = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

// Bits of a float element as an unsigned integer of the same width.
template <typename T>
using FloatBits = std::conditional_t<sizeof(T) == 2, uint16_t,
                                     std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>;

template <typename T>
FloatBits<T> ToBits(T value) {
  return Eigen::numext::bit_cast<FloatBits<T>>(value);
}

template <typename T>
T FromBits(FloatBits<T> bits) {
  return Eigen::numext::bit_cast<T>(bits);
}

// Mantissa (fraction) bits of a float format; exponent bits follow.
template <typename T>
constexpr int MantissaBits() {
  if constexpr (std::is_same_v<T, half>) return 10;
  else if constexpr (std::is_same_v<T, bfloat16>) return 7;
  else if constexpr (std::is_same_v<T, float>) return 23;
  else return 52;
}

template <typename T>
constexpr int ExponentBits() {
  return static_cast<int>(sizeof(T)) * 8 - 1 - MantissaBits<T>();
}

// ---------------------------------------------------------------- rounding

// f16/bf16 from float, rounded to nearest even. A NaN keeps its sign and the
// top of its payload (quieted), as hardware conversions do.
template <typename T>
T FromFloat(float value) {
  if constexpr (!kIsHalf<T>) {
    return static_cast<T>(value);
  } else {
    if (value != value) {
      uint32_t bits = std::bit_cast<uint32_t>(value);
      uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
      uint16_t payload = static_cast<uint16_t>((bits & 0x007FFFFFu) >> (23 - MantissaBits<T>()));
      uint16_t quiet = static_cast<uint16_t>(1u << (MantissaBits<T>() - 1));
      uint16_t exponent = static_cast<uint16_t>(((1u << ExponentBits<T>()) - 1) << MantissaBits<T>());
      return FromBits<T>(static_cast<uint16_t>(sign | exponent | quiet | payload));
    }
    return T(value);
  }
}

// A Calc<T> result stored as T (rounded to nearest even for f16/bf16).
template <typename T>
T Store(Calc<T> value) {
  if constexpr (kIsHalf<T>) return FromFloat<T>(value);
  else return value;
}

// A double rounded to float towards zero, its last bit set when inexact
// ("round to odd"): rounding that to f16/bf16 then gives the same value as
// rounding the double directly, which float's round-to-nearest would not.
inline float RoundToOddFloat(double value) {
  float nearest = static_cast<float>(value);
  if (static_cast<double>(nearest) == value || value != value || std::isinf(nearest)) return nearest;
  uint32_t bits = std::bit_cast<uint32_t>(nearest);
  if ((bits & 1u) == 0) {
    // Even: step to the odd neighbour on the value's side.
    bits = std::fabs(value) > std::fabs(static_cast<double>(nearest)) ? bits + 1 : bits - 1;
  }
  return std::bit_cast<float>(bits);
}

// f16/bf16/f32/f64 from double, one correct rounding to nearest even.
template <typename T>
T FromDouble(double value) {
  if constexpr (kIsHalf<T>) {
    return FromFloat<T>(RoundToOddFloat(value));
  } else {
    return static_cast<T>(value);
  }
}

// f16/bf16 from a 64-bit integer magnitude and sign with one correct
// rounding: to 24 bits rounded to odd (exact in float), then to T.
template <typename T>
T HalfFromInteger(uint64_t magnitude, bool negative) {
  float value;
  if (magnitude < (uint64_t{1} << 24)) {
    value = static_cast<float>(magnitude);
  } else {
    int shift = 64 - std::countl_zero(magnitude) - 24;
    uint64_t top = magnitude >> shift;
    if ((magnitude & ((uint64_t{1} << shift) - 1)) != 0) top |= 1;
    value = std::ldexp(static_cast<float>(top), shift);
  }
  return FromFloat<T>(negative ? -value : value);
}

// ---------------------------------------------------------------- conversion

// `value` converted to To as stablehlo.convert defines it: bool is 0/1 and
// "not zero"; integers wrap; floats round to nearest even; float to integer
// truncates toward zero, saturates at the type's bounds, and gives 0 for NaN.
template <typename To, typename From>
To ConvertValue(From value) {
  if constexpr (std::is_same_v<To, From>) {
    return value;
  } else if constexpr (kIsBool<To>) {
    if constexpr (kIsFloat<From>) return static_cast<Calc<From>>(value) != 0;
    else return value != 0;
  } else if constexpr (kIsBool<From>) {
    if constexpr (kIsHalf<To>) return FromFloat<To>(value ? 1.0f : 0.0f);
    else return static_cast<To>(value ? 1 : 0);
  } else if constexpr (kIsInteger<To> && kIsInteger<From>) {
    return static_cast<To>(value);  // modulo 2^N since C++20
  } else if constexpr (kIsFloat<To> && kIsInteger<From>) {
    if constexpr (kIsHalf<To>) {
      bool negative = value < 0;
      uint64_t magnitude = negative ? uint64_t{0} - static_cast<uint64_t>(value)
                                    : static_cast<uint64_t>(value);
      return HalfFromInteger<To>(magnitude, negative);
    } else {
      return static_cast<To>(value);
    }
  } else if constexpr (kIsFloat<To> && kIsFloat<From>) {
    if constexpr (std::is_same_v<From, double>) return FromDouble<To>(value);
    else return FromFloat<To>(static_cast<float>(value));  // f16/bf16/f32 are exact in float
  } else {
    // Float to integer.
    using F = std::conditional_t<std::is_same_v<From, double>, double, float>;
    F v = static_cast<F>(value);
    // Bounds as powers of two, exact in F: [lo, hi) holds the values that
    // truncate into range (lo itself is the type's minimum).
    constexpr int kDigits = std::numeric_limits<To>::digits;
    constexpr F hi = static_cast<F>(uint64_t{1} << (kDigits - 1)) * F(2);
    constexpr F lo = std::is_signed_v<To> ? -hi : F(0);
    if (v != v) return To(0);
    if (v <= lo) return std::numeric_limits<To>::min();
    if (v >= hi) return std::numeric_limits<To>::max();
    return static_cast<To>(v);
  }
}

// ---------------------------------------------------------------- loops

template <typename In, typename Out, typename F>
inline void MapUnary(const void* const* args, void* out, int64_t n, F f) {
  const In* __restrict a = static_cast<const In*>(args[0]);
  Out* __restrict o = static_cast<Out*>(out);
  for (int64_t i = 0; i < n; ++i) o[i] = f(a[i]);
}

template <typename In, typename Out, typename F>
inline void MapBinary(const void* const* args, void* out, int64_t n, F f) {
  const In* __restrict a = static_cast<const In*>(args[0]);
  const In* __restrict b = static_cast<const In*>(args[1]);
  Out* __restrict o = static_cast<Out*>(out);
  for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b[i]);
}

// A float function of one argument: computed in Calc<T>, stored in T.
template <typename T, typename F>
inline void MapFloatUnary(const void* const* args, void* out, int64_t n, F f) {
  MapUnary<T, T>(args, out, n, [f](T a) { return Store<T>(f(static_cast<Calc<T>>(a))); });
}

// The block function of a unary float op whose per-element function is
// F::Apply on Calc<T>: UnaryMath<F>::Block<T>::Run (the math functions of
// kernels_elementwise_math.cc, the C library's of _special.cc).
template <typename F>
struct UnaryMath {
  template <typename T>
  struct Block {
    static void Run(const ElementwiseNode&, const void* const* args, void* out, int64_t n) {
      MapFloatUnary<T>(args, out, n, [](Calc<T> x) { return F::Apply(x); });
    }
  };
};

// ---------------------------------------------------------------- makers

// Element categories an op accepts (a bit mask).
enum Category : unsigned {
  kBoolOk = 1,
  kSignedOk = 2,
  kUnsignedOk = 4,
  kFloatOk = 8,
  kIntOk = kSignedOk | kUnsignedOk,
  kAllOk = kBoolOk | kIntOk | kFloatOk,
};

template <typename T>
constexpr bool InCategories(unsigned categories) {
  if constexpr (kIsBool<T>) return categories & kBoolOk;
  else if constexpr (kIsFloat<T>) return categories & kFloatOk;
  else if constexpr (std::is_signed_v<T>) return categories & kSignedOk;
  else return categories & kUnsignedOk;
}

// "'stablehlo.popcnt' is not defined on f32".
Status NotDefinedOn(std::string_view what, stablehlo::ElementType type);

// The parameters of a block function (BlockFn) that reads no node
// parameters, for Block<T>::Run (kernels_elementwise_arith.cc, _bits.cc).
#define BERTH_BLOCK_ARGS const ElementwiseNode&, const void* const* args, void* out, int64_t n

// Sets node.fn to Block<T>::Run for the element type `type` when T is in
// kCategories; INVALID_ARGUMENT for other supported types, UNIMPLEMENTED for
// unsupported ones.
template <template <typename> class Block, unsigned kCategories>
Status SetBlock(ElementwiseNode& node, stablehlo::ElementType type, std::string_view what) {
  return DispatchElementType(type, what, [&]<typename T>() -> Status {
    if constexpr (InCategories<T>(kCategories)) {
      node.fn = &Block<T>::Run;
      return OkStatus();
    } else {
      return NotDefinedOn(what, type);
    }
  });
}

// SetBlock for the type the op's first operand computes in.
template <template <typename> class Block, unsigned kCategories>
Status SetBlockForOperandType(const stablehlo::Operation&, std::string_view what,
                              ElementwiseNode& node) {
  return SetBlock<Block, kCategories>(node, node.compute_arg[0], what);
}

// Each themed file says which ops it computes (NULL: not its op).
MakeBlockFn FindArithmeticBlock(stablehlo::OpKind kind);  // kernels_elementwise_arith.cc
MakeBlockFn FindMathBlock(stablehlo::OpKind kind);        // kernels_elementwise_math.cc
MakeBlockFn FindBitsBlock(stablehlo::OpKind kind);        // kernels_elementwise_bits.cc
MakeBlockFn FindCompareBlock(stablehlo::OpKind kind);     // kernels_elementwise_compare.cc
MakeBlockFn FindConvertBlock(const stablehlo::Operation& op);  // kernels_convert.cc
MakeBlockFn FindSpecialBlock(stablehlo::OpKind kind);     // kernels_elementwise_special.cc
// Complex numbers' ops, and complex/real/imag/conj on any type
// (kernels_elementwise_complex.cc); FindMaker asks it first.
MakeBlockFn FindComplexBlock(const stablehlo::Operation& op);

// The StableHLO op whose block function computes a chlo.broadcast_* op
// (`kind` itself for every other op; kernels_elementwise_special.cc).
stablehlo::OpKind BroadcastBase(stablehlo::OpKind kind);

}  // namespace berth::cpu::elementwise

namespace berth::cpu {

// Kernels of the family that are not block functions (kernels_convert.cc,
// kernels_iota.cc); RegisterElementwiseKernels calls them.
void RegisterBitcastConvertKernel(KernelRegistry& registry);
void RegisterIotaKernels(KernelRegistry& registry);

// Whether `kind` is one of CHLO's broadcasting ops, chlo.broadcast_*
// (kernels_chlo.cc).
bool IsChloBroadcast(stablehlo::OpKind kind);

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_INTERPRETER_ELEMENTWISE_BLOCKS_HPP_
