// Complex-number block functions (complex<f32>, complex<f64>): arithmetic,
// maximum and minimum (lexicographic on (real, imaginary)), abs, sign,
// power, the math functions (sqrt, rsqrt, cbrt, exponential,
// exponential_minus_one, log, log_plus_one, logistic, sine, cosine, tan,
// tanh, atan2) and CHLO's (asin, acos, atan, sinh, cosh, tan, asinh, acosh,
// atanh, square, conj); and the ops that move between complex and real
// numbers: complex, real, imag (also defined on floats: real(x) = x,
// imag(x) = 0, conj(x) = x). compare, select and convert of complex numbers
// are their own files' (kernels_elementwise_compare.cc, kernels_convert.cc).
//
// The functions are the C++ library's complex ones (the C library's c* of
// the part's precision), so complex<f32> computes in float and complex<f64>
// in double; * and / follow C's Annex G (an infinite part stays infinite).
// Where the library has no function (expm1, log1p, logistic, atan2) the
// formulas are written here to keep small arguments accurate.
//
// GCC 12 turns a vectorized complex multiply into fmaddsub - a*c - b*d with
// one rounding - even under -ffp-contract=off, so the x86-64-v3 and v4
// variants of this file gave other bits than v2 (cpu_isa_test's
// ComplexOpsGiveTheSameBitsInEveryVariant). Its code is kept out of the
// straight-line (SLP) vectorizer, before any header's templates are seen.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-slp-vectorize")
#endif
#include "interpreter/elementwise_blocks.hpp"

namespace berth::cpu::elementwise {
namespace {

using stablehlo::Operation;
using stablehlo::OpKind;

template <typename T>
using Part = typename T::value_type;

// e^z - 1, accurate near 0: (expm1(x) cos y - 2 sin^2(y/2)) + i e^x sin y.
template <typename T>
T ComplexExpm1(T z) {
  using R = Part<T>;
  R x = z.real(), y = z.imag();
  R half_sin = std::sin(y / R(2));
  return T(std::expm1(x) * std::cos(y) - R(2) * half_sin * half_sin, std::exp(x) * std::sin(y));
}

// log(1 + z), accurate near 0: log|1 + z| = log1p(2x + x^2 + y^2) / 2.
template <typename T>
T ComplexLog1p(T z) {
  using R = Part<T>;
  R x = z.real(), y = z.imag();
  R magnitude = std::abs(T(R(1) + x, y));
  // Far from the unit circle the direct form is exact enough and cannot
  // overflow the way x^2 + y^2 can.
  R real = magnitude < R(0.5) || magnitude > R(2) ? std::log(magnitude)
                                                  : std::log1p(x * (R(2) + x) + y * y) / R(2);
  return T(real, std::atan2(y, R(1) + x));
}

// 1 / (1 + e^-z).
template <typename T>
T ComplexLogistic(T z) {
  return T(1) / (T(1) + std::exp(-z));
}

// atan2(y, x) = -i log((x + iy) / sqrt(x^2 + y^2)), the spec's definition
// for complex operands.
template <typename T>
T ComplexAtan2(T y, T x) {
  const T i(0, 1);
  return -i * std::log((x + i * y) / std::sqrt(x * x + y * y));
}

// z^w; 0^0 and z^0 are 1 and 0^w is 0 for Re(w) > 0, as for real numbers
// (the library's e^(w log z) would give NaN from log 0).
template <typename T>
T ComplexPower(T z, T w) {
  using R = Part<T>;
  if (w == T(0)) return T(1);
  if (z == T(0) && w.imag() == R(0) && w.real() > R(0)) return T(0);
  return std::pow(z, w);
}

// z / |z|; 0 stays 0 and a NaN part makes both parts NaN.
template <typename T>
T ComplexSign(T z) {
  using R = Part<T>;
  if (std::isnan(z.real()) || std::isnan(z.imag())) {
    R nan = std::numeric_limits<R>::quiet_NaN();
    return T(nan, nan);
  }
  if (z == T(0)) return z;
  return z / std::abs(z);
}

// Lexicographic on (real, imaginary): the larger (kMax) or smaller one of
// the two, a NaN operand winning as for floats.
template <typename T, bool kMax>
T ComplexExtreme(T a, T b) {
  auto has_nan = [](T v) { return std::isnan(v.real()) || std::isnan(v.imag()); };
  if (has_nan(a)) return a;
  if (has_nan(b)) return b;
  bool a_greater = a.real() > b.real() || (a.real() == b.real() && a.imag() > b.imag());
  bool b_greater = b.real() > a.real() || (a.real() == b.real() && b.imag() > a.imag());
  if (kMax) return b_greater ? b : a;
  return a_greater ? b : a;
}

// One per-element function per op: F::Apply(T...) -> result.
#define BERTH_COMPLEX_UNARY(Name, expr) \
  struct Name {                         \
    template <typename T>               \
    static T Apply(T z) {               \
      return expr;                      \
    }                                   \
  }

BERTH_COMPLEX_UNARY(Negate, -z);
BERTH_COMPLEX_UNARY(Sign, ComplexSign(z));
BERTH_COMPLEX_UNARY(Sqrt, std::sqrt(z));
BERTH_COMPLEX_UNARY(Rsqrt, T(1) / std::sqrt(z));
BERTH_COMPLEX_UNARY(Cbrt, std::pow(z, typename T::value_type(1) / typename T::value_type(3)));
BERTH_COMPLEX_UNARY(Exp, std::exp(z));
BERTH_COMPLEX_UNARY(Expm1, ComplexExpm1(z));
BERTH_COMPLEX_UNARY(Log, std::log(z));
BERTH_COMPLEX_UNARY(Log1p, ComplexLog1p(z));
BERTH_COMPLEX_UNARY(Logistic, ComplexLogistic(z));
BERTH_COMPLEX_UNARY(Sin, std::sin(z));
BERTH_COMPLEX_UNARY(Cos, std::cos(z));
BERTH_COMPLEX_UNARY(Tan, std::tan(z));
BERTH_COMPLEX_UNARY(Tanh, std::tanh(z));
BERTH_COMPLEX_UNARY(Asin, std::asin(z));
BERTH_COMPLEX_UNARY(Acos, std::acos(z));
BERTH_COMPLEX_UNARY(Atan, std::atan(z));
BERTH_COMPLEX_UNARY(Sinh, std::sinh(z));
BERTH_COMPLEX_UNARY(Cosh, std::cosh(z));
BERTH_COMPLEX_UNARY(Asinh, std::asinh(z));
BERTH_COMPLEX_UNARY(Acosh, std::acosh(z));
BERTH_COMPLEX_UNARY(Atanh, std::atanh(z));
BERTH_COMPLEX_UNARY(Square, z* z);
BERTH_COMPLEX_UNARY(Conj, std::conj(z));
#undef BERTH_COMPLEX_UNARY

#define BERTH_COMPLEX_BINARY(Name, expr) \
  struct Name {                          \
    template <typename T>                \
    static T Apply(T a, T b) {           \
      return expr;                       \
    }                                    \
  }

BERTH_COMPLEX_BINARY(Add, a + b);
BERTH_COMPLEX_BINARY(Subtract, a - b);
BERTH_COMPLEX_BINARY(Multiply, a* b);
BERTH_COMPLEX_BINARY(Divide, a / b);
BERTH_COMPLEX_BINARY(Power, ComplexPower(a, b));
BERTH_COMPLEX_BINARY(Maximum, (ComplexExtreme<T, true>(a, b)));
BERTH_COMPLEX_BINARY(Minimum, (ComplexExtreme<T, false>(a, b)));
BERTH_COMPLEX_BINARY(Atan2, ComplexAtan2(a, b));
#undef BERTH_COMPLEX_BINARY

template <typename F>
struct Unary {
  template <typename T>
  static void Run(BERTH_BLOCK_ARGS) {
    MapUnary<T, T>(args, out, n, [](T z) { return F::template Apply<T>(z); });
  }
};

template <typename F>
struct Binary {
  template <typename T>
  static void Run(BERTH_BLOCK_ARGS) {
    MapBinary<T, T>(args, out, n, [](T a, T b) { return F::template Apply<T>(a, b); });
  }
};

// |z| (hypot, no overflow in between), real(z), imag(z): complex -> part.
enum class Component { kAbs, kReal, kImag };

template <Component kWhich>
struct ToPart {
  template <typename T>
  static void Run(BERTH_BLOCK_ARGS) {
    MapUnary<T, Part<T>>(args, out, n, [](T z) {
      if constexpr (kWhich == Component::kAbs)
        return std::abs(z);
      else if constexpr (kWhich == Component::kReal)
        return z.real();
      else
        return z.imag();
    });
  }
};

// complex(re, im).
template <typename T>
struct MakeComplexBlock {
  static void Run(BERTH_BLOCK_ARGS) {
    MapBinary<Part<T>, T>(args, out, n, [](Part<T> re, Part<T> im) { return T(re, im); });
  }
};

// real(x) = x and conj(x) = x, imag(x) = +0 for a float x.
template <typename T>
struct FloatCopy {
  static void Run(BERTH_BLOCK_ARGS) {
    std::memcpy(out, args[0], static_cast<size_t>(n) * sizeof(T));
  }
};

template <typename T>
struct FloatZero {
  static void Run(BERTH_BLOCK_ARGS) {
    (void)args;
    T* o = static_cast<T*>(out);
    for (int64_t i = 0; i < n; ++i) o[i] = T(0.0f);
  }
};

// Sets node.fn to Block::Run<T> for the op's complex operand type.
template <typename Block>
Status SetComplex(const Operation&, std::string_view what, ElementwiseNode& node) {
  stablehlo::ElementType type = node.compute_arg[0];
  return DispatchComplexType(type, what, [&]<typename T>() -> Status {
    node.fn = &Block::template Run<T>;
    return OkStatus();
  });
}

// real, imag, conj: complex operands take the part (or the conjugate);
// float operands `FloatBlock`.
template <typename ComplexBlock, template <typename> class FloatBlock>
Status MakeComponentOp(const Operation& op, std::string_view what, ElementwiseNode& node) {
  stablehlo::ElementType type = node.compute_arg[0];
  if (stablehlo::IsComplex(type)) return SetComplex<ComplexBlock>(op, what, node);
  return SetBlock<FloatBlock, kFloatOk>(node, type, what);
}

Status MakeComplex(const Operation& op, std::string_view what, ElementwiseNode& node) {
  return DispatchComplexType(node.out_type, what, [&]<typename T>() -> Status {
    if (op.operand(0)->type().element_type() != stablehlo::ComplexComponentType(node.out_type)) {
      return InvalidArgumentError(
          std::string(what) + " takes " +
          std::string(stablehlo::ElementTypeName(stablehlo::ComplexComponentType(node.out_type))) +
          " parts for " + std::string(stablehlo::ElementTypeName(node.out_type)));
    }
    node.fn = &MakeComplexBlock<T>::Run;
    return OkStatus();
  });
}

bool InvolvesComplex(const Operation& op) {
  for (size_t i = 0; i < op.num_operands(); ++i) {
    if (stablehlo::IsComplex(op.operand(i)->type().element_type())) return true;
  }
  for (size_t i = 0; i < op.num_results(); ++i) {
    if (stablehlo::IsComplex(op.result(i)->type().element_type())) return true;
  }
  return false;
}

// The maker of an op of kind `kind` on complex numbers; NULL when it is not
// one of this file's.
MakeBlockFn FindComplexMaker(OpKind kind) {
  switch (kind) {
    case OpKind::kAdd: return SetComplex<Binary<Add>>;
    case OpKind::kSubtract: return SetComplex<Binary<Subtract>>;
    case OpKind::kMultiply: return SetComplex<Binary<Multiply>>;
    case OpKind::kDivide: return SetComplex<Binary<Divide>>;
    case OpKind::kPower: return SetComplex<Binary<Power>>;
    case OpKind::kMaximum: return SetComplex<Binary<Maximum>>;
    case OpKind::kMinimum: return SetComplex<Binary<Minimum>>;
    case OpKind::kAtan2: return SetComplex<Binary<Atan2>>;
    case OpKind::kNegate: return SetComplex<Unary<Negate>>;
    case OpKind::kSign: return SetComplex<Unary<Sign>>;
    case OpKind::kAbs: return SetComplex<ToPart<Component::kAbs>>;
    case OpKind::kSqrt: return SetComplex<Unary<Sqrt>>;
    case OpKind::kRsqrt: return SetComplex<Unary<Rsqrt>>;
    case OpKind::kCbrt: return SetComplex<Unary<Cbrt>>;
    case OpKind::kExponential: return SetComplex<Unary<Exp>>;
    case OpKind::kExponentialMinusOne: return SetComplex<Unary<Expm1>>;
    case OpKind::kLog: return SetComplex<Unary<Log>>;
    case OpKind::kLogPlusOne: return SetComplex<Unary<Log1p>>;
    case OpKind::kLogistic: return SetComplex<Unary<Logistic>>;
    case OpKind::kSine: return SetComplex<Unary<Sin>>;
    case OpKind::kCosine: return SetComplex<Unary<Cos>>;
    case OpKind::kTan:
    case OpKind::kChloTan: return SetComplex<Unary<Tan>>;
    case OpKind::kTanh: return SetComplex<Unary<Tanh>>;
    case OpKind::kChloAsin: return SetComplex<Unary<Asin>>;
    case OpKind::kChloAcos: return SetComplex<Unary<Acos>>;
    case OpKind::kChloAtan: return SetComplex<Unary<Atan>>;
    case OpKind::kChloSinh: return SetComplex<Unary<Sinh>>;
    case OpKind::kChloCosh: return SetComplex<Unary<Cosh>>;
    case OpKind::kChloAsinh: return SetComplex<Unary<Asinh>>;
    case OpKind::kChloAcosh: return SetComplex<Unary<Acosh>>;
    case OpKind::kChloAtanh: return SetComplex<Unary<Atanh>>;
    case OpKind::kChloSquare: return SetComplex<Unary<Square>>;
    default: return nullptr;
  }
}

}  // namespace

MakeBlockFn FindComplexBlock(const Operation& op) {
  OpKind kind = BroadcastBase(op.kind());
  // Defined on floats as well as complex numbers.
  switch (kind) {
    case OpKind::kComplex: return MakeComplex;
    case OpKind::kReal: return MakeComponentOp<ToPart<Component::kReal>, FloatCopy>;
    case OpKind::kImag: return MakeComponentOp<ToPart<Component::kImag>, FloatZero>;
    case OpKind::kChloConj: return MakeComponentOp<Unary<Conj>, FloatCopy>;
    default: break;
  }
  return InvolvesComplex(op) ? FindComplexMaker(kind) : nullptr;
}

}  // namespace berth::cpu::elementwise
