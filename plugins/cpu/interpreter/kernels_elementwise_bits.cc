// Bitwise block functions: and, or, xor, not, shift_left,
// shift_right_arithmetic, shift_right_logical, popcnt, count_leading_zeros.
//
// On i1 the logical ops are logical. Shift amounts are read as unsigned, so a
// negative amount counts as a huge one; an amount of the bit width or more
// shifts every bit out: 0 for left and logical right shifts, the sign (all
// zeros or all ones) for arithmetic right shifts. Arithmetic shifts of
// unsigned types treat the top bit as the sign.
#include "interpreter/elementwise_blocks.hpp"

namespace berth::cpu::elementwise {
namespace {

using stablehlo::OpKind;
using stablehlo::Operation;

template <typename T>
struct AndBlock {
  static void Run(BERTH_BLOCK_ARGS) {
    MapBinary<T, T>(args, out, n, [](T a, T b) { return static_cast<T>(a & b); });
  }
};

template <typename T>
struct OrBlock {
  static void Run(BERTH_BLOCK_ARGS) {
    MapBinary<T, T>(args, out, n, [](T a, T b) { return static_cast<T>(a | b); });
  }
};

template <typename T>
struct XorBlock {
  static void Run(BERTH_BLOCK_ARGS) {
    MapBinary<T, T>(args, out, n, [](T a, T b) { return static_cast<T>(a ^ b); });
  }
};

template <typename T>
struct NotBlock {
  static void Run(BERTH_BLOCK_ARGS) {
    if constexpr (kIsBool<T>) {
      MapUnary<T, T>(args, out, n, [](T a) { return !a; });
    } else {
      MapUnary<T, T>(args, out, n, [](T a) { return static_cast<T>(~a); });
    }
  }
};

template <typename T>
constexpr unsigned kBits = sizeof(T) * 8;

// A shift that moves zeros in: `shift(bits, amount)` on a's bits (unsigned)
// for amounts below the bit width, 0 for any larger amount.
template <typename T, typename F>
void MapZeroFillShift(const void* const* args, void* out, int64_t n, F shift) {
  using U = std::make_unsigned_t<T>;
  MapBinary<T, T>(args, out, n, [shift](T a, T b) {
    U amount = static_cast<U>(b);
    return amount >= kBits<T> ? T(0) : static_cast<T>(shift(static_cast<U>(a), amount));
  });
}

template <typename T>
struct ShiftLeftBlock {
  static void Run(BERTH_BLOCK_ARGS) {
    MapZeroFillShift<T>(args, out, n,
                        [](auto bits, auto amount) { return UWide<T>(bits) << amount; });
  }
};

template <typename T>
struct ShiftRightLogicalBlock {
  static void Run(BERTH_BLOCK_ARGS) {
    MapZeroFillShift<T>(args, out, n, [](auto bits, auto amount) { return bits >> amount; });
  }
};

template <typename T>
struct ShiftRightArithmeticBlock {
  static void Run(BERTH_BLOCK_ARGS) {
    using U = std::make_unsigned_t<T>;
    using S = std::make_signed_t<T>;
    MapBinary<T, T>(args, out, n, [](T a, T b) {
      U amount = static_cast<U>(b);
      S value = static_cast<S>(a);
      // >> on a negative signed value is arithmetic since C++20.
      return static_cast<T>(amount >= kBits<T> ? static_cast<S>(value < 0 ? -1 : 0)
                                               : static_cast<S>(value >> amount));
    });
  }
};

template <typename T>
struct PopcntBlock {
  static void Run(BERTH_BLOCK_ARGS) {
    using U = std::make_unsigned_t<T>;
    MapUnary<T, T>(args, out, n, [](T a) { return static_cast<T>(std::popcount(static_cast<U>(a))); });
  }
};

template <typename T>
struct CountLeadingZerosBlock {
  static void Run(BERTH_BLOCK_ARGS) {
    using U = std::make_unsigned_t<T>;
    MapUnary<T, T>(args, out, n,
                   [](T a) { return static_cast<T>(std::countl_zero(static_cast<U>(a))); });
  }
};

}  // namespace

MakeBlockFn FindBitsBlock(OpKind kind) {
  switch (kind) {
    case OpKind::kAnd: return SetBlockForOperandType<AndBlock, kBoolOk | kIntOk>;
    case OpKind::kOr: return SetBlockForOperandType<OrBlock, kBoolOk | kIntOk>;
    case OpKind::kXor: return SetBlockForOperandType<XorBlock, kBoolOk | kIntOk>;
    case OpKind::kNot: return SetBlockForOperandType<NotBlock, kBoolOk | kIntOk>;
    case OpKind::kShiftLeft: return SetBlockForOperandType<ShiftLeftBlock, kIntOk>;
    case OpKind::kShiftRightLogical: return SetBlockForOperandType<ShiftRightLogicalBlock, kIntOk>;
    case OpKind::kShiftRightArithmetic: return SetBlockForOperandType<ShiftRightArithmeticBlock, kIntOk>;
    case OpKind::kPopcnt: return SetBlockForOperandType<PopcntBlock, kIntOk>;
    case OpKind::kCountLeadingZeros: return SetBlockForOperandType<CountLeadingZerosBlock, kIntOk>;
    default: return nullptr;
  }
}

}  // namespace berth::cpu::elementwise
