// CHLO's elementwise ops as block functions (compiled once per ISA variant,
// like the other themed kernels_elementwise_*.cc files):
//
// - through the C library, in the precision of the element type as the
//   other math ops (f16/bf16 in float, rounded once on store): erf, erfc,
//   asin, acos, atan, sinh, cosh, tan, asinh, acosh, atanh, square;
// - the special functions of special_functions.hpp, computed in double
//   (f32, f16, bf16) or long double (f64) and rounded once: erf_inv,
//   lgamma, digamma, bessel_i1e, polygamma, zeta (the last two in long
//   double for every type: n! and (q+k)^-s leave double's range early);
// - bit tests and bit steps: is_inf, is_pos_inf, is_neg_inf, next_after;
// - mulhi, the high half of the full integer product;
// - chlo.broadcast_* through the StableHLO op's block function, when no
//   operand needs broadcasting (others run as kernels_chlo.cc's kernel,
//   which expands the operands first and then uses the same function).
#include "interpreter/elementwise_blocks.hpp"
#include "interpreter/special_functions.hpp"

namespace berth::cpu::elementwise {
namespace {

using stablehlo::OpKind;
using stablehlo::Operation;

// The type a special function of special_functions.hpp computes in.
template <typename T>
using Wide = std::conditional_t<std::is_same_v<T, double>, long double, double>;

// A Wide<T> value rounded once to T.
template <typename T>
T FromWide(Wide<T> value) {
  if constexpr (kIsHalf<T>) return FromDouble<T>(value);
  else return static_cast<T>(value);
}

// ---------------------------------------------------------------- C library

#define BERTH_LIBM_UNARY(Name, expr) \
  struct Name {                      \
    template <typename C>            \
    static C Apply(C x) {            \
      return expr;                   \
    }                                \
  };
BERTH_LIBM_UNARY(Erf, std::erf(x))
BERTH_LIBM_UNARY(Erfc, std::erfc(x))
BERTH_LIBM_UNARY(Asin, std::asin(x))
BERTH_LIBM_UNARY(Acos, std::acos(x))
BERTH_LIBM_UNARY(Atan, std::atan(x))
BERTH_LIBM_UNARY(Sinh, std::sinh(x))
BERTH_LIBM_UNARY(Cosh, std::cosh(x))
BERTH_LIBM_UNARY(Tan, std::tan(x))
BERTH_LIBM_UNARY(Asinh, std::asinh(x))
BERTH_LIBM_UNARY(Acosh, std::acosh(x))
BERTH_LIBM_UNARY(Atanh, std::atanh(x))
BERTH_LIBM_UNARY(Square, x * x)
#undef BERTH_LIBM_UNARY

// ---------------------------------------------------------------- special functions

template <typename F>
struct WideUnary {
  template <typename T>
  struct Block {
    static void Run(const ElementwiseNode&, const void* const* args, void* out, int64_t n) {
      MapUnary<T, T>(args, out, n, [](T x) {
        return FromWide<T>(F::Apply(static_cast<Wide<T>>(static_cast<Calc<T>>(x))));
      });
    }
  };
};

struct ErfInv {
  template <typename W>
  static W Apply(W x) { return special::ErfInv(x); }
};
struct Lgamma {
  template <typename W>
  static W Apply(W x) { return special::Lgamma(x); }
};
struct Digamma {
  template <typename W>
  static W Apply(W x) { return special::Digamma(x); }
};
struct BesselI1e {
  template <typename W>
  static W Apply(W x) { return special::BesselI1e(x); }
};

// A long double rounded to double towards zero, its last bit set when
// inexact ("round to odd", as RoundToOddFloat): rounding that on to float,
// f16 or bf16 gives the value rounded once.
inline double RoundToOddDouble(long double value) {
  double nearest = static_cast<double>(value);
  if (static_cast<long double>(nearest) == value || value != value || std::isinf(nearest)) {
    return nearest;
  }
  uint64_t bits = std::bit_cast<uint64_t>(nearest);
  if ((bits & 1u) == 0) {
    bits = std::fabs(value) > std::fabs(static_cast<long double>(nearest)) ? bits + 1 : bits - 1;
  }
  return std::bit_cast<double>(bits);
}

// A long double rounded once to T.
template <typename T>
T FromLongDouble(long double value) {
  if constexpr (std::is_same_v<T, double>) return static_cast<double>(value);
  else if constexpr (std::is_same_v<T, float>) return static_cast<float>(RoundToOddDouble(value));
  else return FromDouble<T>(RoundToOddDouble(value));
}

// polygamma(n, x) and zeta(x, q): long double for every element type.
template <typename F>
struct LongDoubleBinary {
  template <typename T>
  struct Block {
    static void Run(const ElementwiseNode&, const void* const* args, void* out, int64_t n) {
      MapBinary<T, T>(args, out, n, [](T a, T b) {
        return FromLongDouble<T>(F::Apply(static_cast<long double>(static_cast<Calc<T>>(a)),
                                          static_cast<long double>(static_cast<Calc<T>>(b))));
      });
    }
  };
};

struct Polygamma {
  static long double Apply(long double n, long double x) { return special::Polygamma(n, x); }
};
struct Zeta {
  static long double Apply(long double s, long double q) { return special::Zeta(s, q); }
};

// ---------------------------------------------------------------- bits

template <typename T>
constexpr FloatBits<T> kSignBit = static_cast<FloatBits<T>>(FloatBits<T>(1) << (sizeof(T) * 8 - 1));
template <typename T>
constexpr FloatBits<T> kInfBits = static_cast<FloatBits<T>>(
    ((FloatBits<T>(1) << ExponentBits<T>()) - 1) << MantissaBits<T>());

// Which infinities an is_*inf op accepts.
enum InfKind { kAnyInf, kPosInf, kNegInf };

template <InfKind kKind>
struct IsInf {
  template <typename T>
  struct Block {
    static void Run(const ElementwiseNode&, const void* const* args, void* out, int64_t n) {
      MapUnary<T, bool>(args, out, n, [](T x) {
        FloatBits<T> bits = ToBits(x);
        if constexpr (kKind == kAnyInf) return static_cast<FloatBits<T>>(bits & ~kSignBit<T>) == kInfBits<T>;
        else if constexpr (kKind == kPosInf) return bits == kInfBits<T>;
        else return bits == static_cast<FloatBits<T>>(kSignBit<T> | kInfBits<T>);
      });
    }
  };
};

// The representable value next to x in the direction of y, as CHLO's
// decomposition computes it on the bits: y when x == y (so +-0 towards -+0
// gives y), the smallest subnormal signed like y from a zero, a quiet NaN
// when either is NaN. Exact in every float type, f16 and bf16 included.
template <typename T>
T NextAfter(T x, T y) {
  using U = FloatBits<T>;
  Calc<T> xv = static_cast<Calc<T>>(x), yv = static_cast<Calc<T>>(y);
  if (xv != xv || yv != yv) return FromBits<T>(static_cast<U>(kInfBits<T> | (U(1) << (MantissaBits<T>() - 1))));
  if (xv == yv) return y;
  U xb = ToBits(x), yb = ToBits(y);
  U x_abs = static_cast<U>(xb & ~kSignBit<T>);
  if (x_abs == 0) return FromBits<T>(static_cast<U>((yb & kSignBit<T>) | 1));
  // Towards zero when the signs differ or |x| > |y|, else away from it.
  bool smaller = (xb & kSignBit<T>) != (yb & kSignBit<T>) ||
                 x_abs > static_cast<U>(yb & ~kSignBit<T>);
  return FromBits<T>(static_cast<U>(smaller ? xb - 1 : xb + 1));
}

template <typename T>
struct NextAfterBlock {
  static void Run(const ElementwiseNode&, const void* const* args, void* out, int64_t n) {
    MapBinary<T, T>(args, out, n, NextAfter<T>);
  }
};

// High half of the double-width product (signed or unsigned as T).
template <typename T>
T MulHigh(T a, T b) {
  constexpr int kBits = static_cast<int>(sizeof(T) * 8);
  if constexpr (sizeof(T) == 8) {
    using Product = std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>;
    return static_cast<T>((static_cast<Product>(a) * static_cast<Product>(b)) >> kBits);
  } else {
    using Product = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
    return static_cast<T>((static_cast<Product>(a) * static_cast<Product>(b)) >> kBits);
  }
}

template <typename T>
struct MulhiBlock {
  static void Run(const ElementwiseNode&, const void* const* args, void* out, int64_t n) {
    MapBinary<T, T>(args, out, n, MulHigh<T>);
  }
};

// ---------------------------------------------------------------- makers

template <template <typename> class Block>
Status MakeFloat(const Operation&, std::string_view what, ElementwiseNode& node) {
  return SetBlock<Block, kFloatOk>(node, node.compute_arg[0], what);
}

MakeBlockFn FindChloBlock(OpKind kind) {
  switch (kind) {
    case OpKind::kChloErf: return MakeFloat<UnaryMath<Erf>::Block>;
    case OpKind::kChloErfc: return MakeFloat<UnaryMath<Erfc>::Block>;
    case OpKind::kChloAsin: return MakeFloat<UnaryMath<Asin>::Block>;
    case OpKind::kChloAcos: return MakeFloat<UnaryMath<Acos>::Block>;
    case OpKind::kChloAtan: return MakeFloat<UnaryMath<Atan>::Block>;
    case OpKind::kChloSinh: return MakeFloat<UnaryMath<Sinh>::Block>;
    case OpKind::kChloCosh: return MakeFloat<UnaryMath<Cosh>::Block>;
    case OpKind::kChloTan: return MakeFloat<UnaryMath<Tan>::Block>;
    case OpKind::kChloAsinh: return MakeFloat<UnaryMath<Asinh>::Block>;
    case OpKind::kChloAcosh: return MakeFloat<UnaryMath<Acosh>::Block>;
    case OpKind::kChloAtanh: return MakeFloat<UnaryMath<Atanh>::Block>;
    case OpKind::kChloSquare: return MakeFloat<UnaryMath<Square>::Block>;
    case OpKind::kChloErfInv: return MakeFloat<WideUnary<ErfInv>::Block>;
    case OpKind::kChloLgamma: return MakeFloat<WideUnary<Lgamma>::Block>;
    case OpKind::kChloDigamma: return MakeFloat<WideUnary<Digamma>::Block>;
    case OpKind::kChloBesselI1e: return MakeFloat<WideUnary<BesselI1e>::Block>;
    case OpKind::kChloPolygamma: return MakeFloat<LongDoubleBinary<Polygamma>::Block>;
    case OpKind::kChloZeta: return MakeFloat<LongDoubleBinary<Zeta>::Block>;
    case OpKind::kChloIsInf: return MakeFloat<IsInf<kAnyInf>::Block>;
    case OpKind::kChloIsPosInf: return MakeFloat<IsInf<kPosInf>::Block>;
    case OpKind::kChloIsNegInf: return MakeFloat<IsInf<kNegInf>::Block>;
    case OpKind::kChloNextAfter: return MakeFloat<NextAfterBlock>;
    case OpKind::kChloMulhi: return SetBlockForOperandType<MulhiBlock, kIntOk>;
    default: return nullptr;
  }
}

}  // namespace

OpKind BroadcastBase(OpKind kind) {
  switch (kind) {
    case OpKind::kChloBroadcastAdd: return OpKind::kAdd;
    case OpKind::kChloBroadcastSubtract: return OpKind::kSubtract;
    case OpKind::kChloBroadcastMultiply: return OpKind::kMultiply;
    case OpKind::kChloBroadcastDivide: return OpKind::kDivide;
    case OpKind::kChloBroadcastRemainder: return OpKind::kRemainder;
    case OpKind::kChloBroadcastPower: return OpKind::kPower;
    case OpKind::kChloBroadcastMax: return OpKind::kMaximum;
    case OpKind::kChloBroadcastMin: return OpKind::kMinimum;
    case OpKind::kChloBroadcastAtan2: return OpKind::kAtan2;
    case OpKind::kChloBroadcastAnd: return OpKind::kAnd;
    case OpKind::kChloBroadcastOr: return OpKind::kOr;
    case OpKind::kChloBroadcastXor: return OpKind::kXor;
    case OpKind::kChloBroadcastShiftLeft: return OpKind::kShiftLeft;
    case OpKind::kChloBroadcastShiftRightArithmetic: return OpKind::kShiftRightArithmetic;
    case OpKind::kChloBroadcastShiftRightLogical: return OpKind::kShiftRightLogical;
    case OpKind::kChloBroadcastCompare: return OpKind::kCompare;
    case OpKind::kChloBroadcastSelect: return OpKind::kSelect;
    case OpKind::kChloBroadcastNextAfter: return OpKind::kChloNextAfter;
    case OpKind::kChloBroadcastPolygamma: return OpKind::kChloPolygamma;
    case OpKind::kChloBroadcastZeta: return OpKind::kChloZeta;
    case OpKind::kChloBroadcastComplex: return OpKind::kComplex;
    default: return kind;
  }
}

MakeBlockFn FindSpecialBlock(OpKind kind) {
  OpKind base = BroadcastBase(kind);
  if (base != kind) {
    if (MakeBlockFn make = FindArithmeticBlock(base)) return make;
    if (MakeBlockFn make = FindMathBlock(base)) return make;
    if (MakeBlockFn make = FindBitsBlock(base)) return make;
    if (MakeBlockFn make = FindCompareBlock(base)) return make;
  }
  return FindChloBlock(base);
}

}  // namespace berth::cpu::elementwise
