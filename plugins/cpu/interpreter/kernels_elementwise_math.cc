// Floating-point math block functions: atan2, ceil, floor, round_nearest_afz,
// round_nearest_even, sqrt, rsqrt, cbrt, exponential, exponential_minus_one,
// log, log_plus_one, logistic, sine, cosine, tan, tanh, is_finite.
//
// f32 and f64 use the C library's functions of their own precision; f16 and
// bf16 compute in float and round to nearest even when stored. NaN inputs
// give NaN outputs that keep the input's sign and payload where the library
// does.
#include "interpreter/elementwise_blocks.hpp"

namespace berth::cpu::elementwise {
namespace {

using stablehlo::OpKind;
using stablehlo::Operation;

struct Ceil {
  template <typename C>
  static C Apply(C x) { return std::ceil(x); }
};
struct Floor {
  template <typename C>
  static C Apply(C x) { return std::floor(x); }
};
// Ties away from zero (roundToIntegralTiesToAway).
struct RoundAfz {
  template <typename C>
  static C Apply(C x) { return std::round(x); }
};
// Ties to even (roundToIntegralTiesToEven); the default rounding mode, which
// the runtime never changes.
struct RoundEven {
  template <typename C>
  static C Apply(C x) { return std::nearbyint(x); }
};
struct Sqrt {
  template <typename C>
  static C Apply(C x) { return std::sqrt(x); }
};
struct Rsqrt {
  template <typename C>
  static C Apply(C x) { return C(1) / std::sqrt(x); }
};
struct Cbrt {
  template <typename C>
  static C Apply(C x) { return std::cbrt(x); }
};
struct Exp {
  template <typename C>
  static C Apply(C x) { return std::exp(x); }
};
struct Expm1 {
  template <typename C>
  static C Apply(C x) { return std::expm1(x); }
};
struct Log {
  template <typename C>
  static C Apply(C x) { return std::log(x); }
};
struct Log1p {
  template <typename C>
  static C Apply(C x) { return std::log1p(x); }
};
// 1 / (1 + e^-x), written with e = e^-|x| <= 1 so nothing overflows: for
// x >= 0 it is 1 / (1 + e); for x < 0, e / (1 + e), which keeps tiny results
// (e.g. f32 logistic(-100) ~ 3.7e-44) instead of dividing by an infinity.
struct Logistic {
  template <typename C>
  static C Apply(C x) {
    C e = std::exp(-std::fabs(x));
    C r = C(1) / (C(1) + e);
    return x >= 0 ? r : e * r;
  }
};
struct Sin {
  template <typename C>
  static C Apply(C x) { return std::sin(x); }
};
struct Cos {
  template <typename C>
  static C Apply(C x) { return std::cos(x); }
};
struct Tan {
  template <typename C>
  static C Apply(C x) { return std::tan(x); }
};
struct Tanh {
  template <typename C>
  static C Apply(C x) { return std::tanh(x); }
};

template <typename T>
struct Atan2Block {
  static void Run(const ElementwiseNode&, const void* const* args, void* out, int64_t n) {
    MapBinary<T, T>(args, out, n, [](T a, T b) {
      return Store<T>(std::atan2(static_cast<Calc<T>>(a), static_cast<Calc<T>>(b)));
    });
  }
};

template <typename T>
struct IsFiniteBlock {
  static void Run(const ElementwiseNode&, const void* const* args, void* out, int64_t n) {
    // Finite exactly when the exponent field is not all ones.
    constexpr FloatBits<T> kExponent = static_cast<FloatBits<T>>(
        ((FloatBits<T>(1) << ExponentBits<T>()) - 1) << MantissaBits<T>());
    MapUnary<T, bool>(args, out, n, [](T a) { return (ToBits(a) & kExponent) != kExponent; });
  }
};

template <template <typename> class Block>
Status MakeFloat(const Operation&, std::string_view what, ElementwiseNode& node) {
  return SetBlock<Block, kFloatOk>(node, node.compute_arg[0], what);
}

template <typename F>
Status MakeUnary(const Operation& op, std::string_view what, ElementwiseNode& node) {
  return MakeFloat<UnaryMath<F>::template Block>(op, what, node);
}

}  // namespace

MakeBlockFn FindMathBlock(OpKind kind) {
  switch (kind) {
    case OpKind::kCeil: return MakeUnary<Ceil>;
    case OpKind::kFloor: return MakeUnary<Floor>;
    case OpKind::kRoundNearestAfz: return MakeUnary<RoundAfz>;
    case OpKind::kRoundNearestEven: return MakeUnary<RoundEven>;
    case OpKind::kSqrt: return MakeUnary<Sqrt>;
    case OpKind::kRsqrt: return MakeUnary<Rsqrt>;
    case OpKind::kCbrt: return MakeUnary<Cbrt>;
    case OpKind::kExponential: return MakeUnary<Exp>;
    case OpKind::kExponentialMinusOne: return MakeUnary<Expm1>;
    case OpKind::kLog: return MakeUnary<Log>;
    case OpKind::kLogPlusOne: return MakeUnary<Log1p>;
    case OpKind::kLogistic: return MakeUnary<Logistic>;
    case OpKind::kSine: return MakeUnary<Sin>;
    case OpKind::kCosine: return MakeUnary<Cos>;
    case OpKind::kTan: return MakeUnary<Tan>;
    case OpKind::kTanh: return MakeUnary<Tanh>;
    case OpKind::kAtan2: return MakeFloat<Atan2Block>;
    case OpKind::kIsFinite: return MakeFloat<IsFiniteBlock>;
    default: return nullptr;
  }
}

}  // namespace berth::cpu::elementwise
