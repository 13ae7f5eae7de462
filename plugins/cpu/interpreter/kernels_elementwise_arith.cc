// Arithmetic block functions: add, subtract, multiply, divide, remainder,
// power, maximum, minimum, negate, abs, sign.
//
// Integers wrap (computed in an unsigned type). Integer division or remainder
// by zero, and INT_MIN / -1 and INT_MIN % -1, are implementation-defined by
// the spec; like the StableHLO reference interpreter they give 0. f16 and
// bf16 compute in float and round to nearest even when stored, which for
// + - * / gives the correctly rounded result.
#include "interpreter/elementwise_blocks.hpp"

namespace berth::cpu::elementwise {
namespace {

using stablehlo::OpKind;
using stablehlo::Operation;

template <typename T>
struct AddBlock {
  static void Run(BERTH_BLOCK_ARGS) {
    if constexpr (kIsBool<T>) {
      MapBinary<T, T>(args, out, n, [](T a, T b) { return static_cast<T>(a | b); });
    } else if constexpr (kIsInteger<T>) {
      MapBinary<T, T>(args, out, n,
                      [](T a, T b) { return static_cast<T>(UWide<T>(a) + UWide<T>(b)); });
    } else {
      MapBinary<T, T>(args, out, n, [](T a, T b) { return Store<T>(Calc<T>(a) + Calc<T>(b)); });
    }
  }
};

template <typename T>
struct SubtractBlock {
  static void Run(BERTH_BLOCK_ARGS) {
    if constexpr (kIsInteger<T>) {
      MapBinary<T, T>(args, out, n,
                      [](T a, T b) { return static_cast<T>(UWide<T>(a) - UWide<T>(b)); });
    } else {
      MapBinary<T, T>(args, out, n, [](T a, T b) { return Store<T>(Calc<T>(a) - Calc<T>(b)); });
    }
  }
};

template <typename T>
struct MultiplyBlock {
  static void Run(BERTH_BLOCK_ARGS) {
    if constexpr (kIsBool<T>) {
      MapBinary<T, T>(args, out, n, [](T a, T b) { return static_cast<T>(a & b); });
    } else if constexpr (kIsInteger<T>) {
      MapBinary<T, T>(args, out, n,
                      [](T a, T b) { return static_cast<T>(UWide<T>(a) * UWide<T>(b)); });
    } else {
      MapBinary<T, T>(args, out, n, [](T a, T b) { return Store<T>(Calc<T>(a) * Calc<T>(b)); });
    }
  }
};

// Integer quotient, 0 where C++ division is undefined.
template <typename T>
T IntDivide(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return static_cast<T>(a == std::numeric_limits<T>::min() ? 0 : -a);
  }
  return static_cast<T>(a / b);
}

template <typename T>
struct DivideBlock {
  static void Run(BERTH_BLOCK_ARGS) {
    if constexpr (kIsInteger<T>) {
      MapBinary<T, T>(args, out, n, IntDivide<T>);
    } else {
      MapBinary<T, T>(args, out, n, [](T a, T b) { return Store<T>(Calc<T>(a) / Calc<T>(b)); });
    }
  }
};

// Integer remainder with the dividend's sign, 0 where C++ is undefined.
template <typename T>
T IntRemainder(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;
  }
  return static_cast<T>(a % b);
}

template <typename T>
struct RemainderBlock {
  static void Run(BERTH_BLOCK_ARGS) {
    if constexpr (kIsInteger<T>) {
      MapBinary<T, T>(args, out, n, IntRemainder<T>);
    } else {
      // fmod is exact: lhs - trunc(lhs / rhs) * rhs with the dividend's sign.
      MapBinary<T, T>(args, out, n,
                      [](T a, T b) { return Store<T>(std::fmod(Calc<T>(a), Calc<T>(b))); });
    }
  }
};

// base^exponent by squaring, wrapping. A negative exponent gives 1/base^-e
// truncated: 1 for base 1, +-1 for base -1, 0 otherwise.
template <typename T>
T IntPower(T base, T exponent) {
  if constexpr (std::is_signed_v<T>) {
    if (exponent < 0) {
      if (base == 1) return 1;
      if (base == -1) return static_cast<T>((exponent & 1) ? -1 : 1);
      return 0;
    }
  }
  UWide<T> result = 1;
  UWide<T> square = static_cast<UWide<T>>(base);
  for (std::make_unsigned_t<T> e = static_cast<std::make_unsigned_t<T>>(exponent); e != 0;
       e >>= 1) {
    if (e & 1) result = static_cast<UWide<T>>(result * square);
    square = static_cast<UWide<T>>(square * square);
  }
  return static_cast<T>(result);
}

template <typename T>
struct PowerBlock {
  static void Run(BERTH_BLOCK_ARGS) {
    if constexpr (kIsInteger<T>) {
      MapBinary<T, T>(args, out, n, IntPower<T>);
    } else {
      MapBinary<T, T>(args, out, n,
                      [](T a, T b) { return Store<T>(std::pow(Calc<T>(a), Calc<T>(b))); });
    }
  }
};

// IEEE 754 maximum and minimum: a NaN operand is the result, and +0 > -0.
// The result is one of the operands, bit for bit.
template <typename T>
T FloatMaximum(T a, T b) {
  Calc<T> x = static_cast<Calc<T>>(a), y = static_cast<Calc<T>>(b);
  T r = x > y ? a : b;
  r = x == y ? (std::signbit(x) ? b : a) : r;
  return x != x ? a : r;
}

template <typename T>
T FloatMinimum(T a, T b) {
  Calc<T> x = static_cast<Calc<T>>(a), y = static_cast<Calc<T>>(b);
  T r = x < y ? a : b;
  r = x == y ? (std::signbit(x) ? a : b) : r;
  return x != x ? a : r;
}

template <typename T>
struct MaximumBlock {
  static void Run(BERTH_BLOCK_ARGS) {
    if constexpr (kIsBool<T>) {
      MapBinary<T, T>(args, out, n, [](T a, T b) { return static_cast<T>(a | b); });
    } else if constexpr (kIsInteger<T>) {
      MapBinary<T, T>(args, out, n, [](T a, T b) { return a > b ? a : b; });
    } else {
      MapBinary<T, T>(args, out, n, FloatMaximum<T>);
    }
  }
};

template <typename T>
struct MinimumBlock {
  static void Run(BERTH_BLOCK_ARGS) {
    if constexpr (kIsBool<T>) {
      MapBinary<T, T>(args, out, n, [](T a, T b) { return static_cast<T>(a & b); });
    } else if constexpr (kIsInteger<T>) {
      MapBinary<T, T>(args, out, n, [](T a, T b) { return a < b ? a : b; });
    } else {
      MapBinary<T, T>(args, out, n, FloatMinimum<T>);
    }
  }
};

// Sign bit of a float format's storage.
template <typename T>
constexpr FloatBits<T> kSignBit = FloatBits<T>(FloatBits<T>(1) << (sizeof(T) * 8 - 1));

template <typename T>
struct NegateBlock {
  static void Run(BERTH_BLOCK_ARGS) {
    if constexpr (kIsInteger<T>) {
      MapUnary<T, T>(args, out, n, [](T a) { return static_cast<T>(UWide<T>(0) - UWide<T>(a)); });
    } else if constexpr (kIsHalf<T>) {
      MapUnary<T, T>(args, out, n, [](T a) { return FromBits<T>(ToBits(a) ^ kSignBit<T>); });
    } else {
      MapUnary<T, T>(args, out, n, [](T a) { return -a; });
    }
  }
};

template <typename T>
struct AbsBlock {
  static void Run(BERTH_BLOCK_ARGS) {
    if constexpr (kIsInteger<T>) {
      // |INT_MIN| wraps to INT_MIN.
      MapUnary<T, T>(args, out, n, [](T a) {
        return a < 0 ? static_cast<T>(UWide<T>(0) - UWide<T>(a)) : a;
      });
    } else if constexpr (kIsHalf<T>) {
      MapUnary<T, T>(args, out, n, [](T a) {
        return FromBits<T>(static_cast<FloatBits<T>>(ToBits(a) & ~kSignBit<T>));
      });
    } else {
      MapUnary<T, T>(args, out, n, [](T a) { return std::fabs(a); });
    }
  }
};

// -1, 0 or 1; floats keep NaN and signed zeros as they are.
template <typename T>
struct SignBlock {
  static void Run(BERTH_BLOCK_ARGS) {
    if constexpr (kIsInteger<T>) {
      MapUnary<T, T>(args, out, n, [](T a) { return static_cast<T>((a > 0) - (a < 0)); });
    } else {
      MapUnary<T, T>(args, out, n, [](T a) {
        Calc<T> x = static_cast<Calc<T>>(a);
        return x != x || x == 0 ? a : Store<T>(x < 0 ? Calc<T>(-1) : Calc<T>(1));
      });
    }
  }
};

}  // namespace

MakeBlockFn FindArithmeticBlock(OpKind kind) {
  switch (kind) {
    case OpKind::kAdd: return SetBlockForOperandType<AddBlock, kAllOk>;
    case OpKind::kSubtract: return SetBlockForOperandType<SubtractBlock, kIntOk | kFloatOk>;
    case OpKind::kMultiply: return SetBlockForOperandType<MultiplyBlock, kAllOk>;
    case OpKind::kDivide: return SetBlockForOperandType<DivideBlock, kIntOk | kFloatOk>;
    case OpKind::kRemainder: return SetBlockForOperandType<RemainderBlock, kIntOk | kFloatOk>;
    case OpKind::kPower: return SetBlockForOperandType<PowerBlock, kIntOk | kFloatOk>;
    case OpKind::kMaximum: return SetBlockForOperandType<MaximumBlock, kAllOk>;
    case OpKind::kMinimum: return SetBlockForOperandType<MinimumBlock, kAllOk>;
    case OpKind::kNegate: return SetBlockForOperandType<NegateBlock, kIntOk | kFloatOk>;
    case OpKind::kAbs: return SetBlockForOperandType<AbsBlock, kSignedOk | kFloatOk>;
    case OpKind::kSign: return SetBlockForOperandType<SignBlock, kSignedOk | kFloatOk>;
    default: return nullptr;
  }
}

}  // namespace berth::cpu::elementwise
