#include "interpreter/reduction.hpp"

#include <cmath>
#include <type_traits>

#include "interpreter/element_types.hpp"

namespace berth::cpu {

using stablehlo::OpKind;

std::optional<OpKind> MatchBinaryReducer(const stablehlo::Region& body) {
  if (body.empty()) return std::nullopt;
  const stablehlo::Block& block = body.entry_block();
  if (block.num_arguments() != 2 || block.operations().size() != 2) return std::nullopt;
  const stablehlo::Operation* op = block.operations()[0];
  const stablehlo::Operation* ret = block.operations()[1];
  if (ret->num_operands() != 1 || ret->operand(0) != op->result(0) || op->num_operands() != 2) {
    return std::nullopt;
  }
  bool args_in_order = op->operand(0) == block.argument(0) && op->operand(1) == block.argument(1);
  bool args_swapped = op->operand(0) == block.argument(1) && op->operand(1) == block.argument(0);
  if (!args_in_order && !args_swapped) return std::nullopt;
  switch (op->kind()) {
    case OpKind::kAdd: case OpKind::kMultiply: case OpKind::kMaximum: case OpKind::kMinimum:
    case OpKind::kAnd: case OpKind::kOr: case OpKind::kXor:
      return op->kind();
    default:
      return std::nullopt;
  }
}

namespace {

template <typename T>
T Combine(OpKind op, T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    switch (op) {
      case OpKind::kAdd: case OpKind::kOr: case OpKind::kMaximum: return a || b;
      case OpKind::kMultiply: case OpKind::kAnd: case OpKind::kMinimum: return a && b;
      default: return a != b;  // xor
    }
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    switch (op) {
      case OpKind::kAdd: return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
      case OpKind::kMultiply: return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
      case OpKind::kMaximum: return a > b ? a : b;
      case OpKind::kMinimum: return a < b ? a : b;
      case OpKind::kAnd: return static_cast<T>(a & b);
      case OpKind::kOr: return static_cast<T>(a | b);
      default: return static_cast<T>(a ^ b);
    }
  } else {
    // Floats: f16/bf16 compute in float and round when stored.
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
    C x = static_cast<C>(a), y = static_cast<C>(b);
    switch (op) {
      case OpKind::kAdd: return static_cast<T>(x + y);
      case OpKind::kMultiply: return static_cast<T>(x * y);
      case OpKind::kMaximum:
        if (std::isnan(x) || std::isnan(y)) return static_cast<T>(std::isnan(x) ? x : y);
        if (x == y) return static_cast<T>(std::signbit(x) ? y : x);  // max(-0, +0) = +0
        return static_cast<T>(x > y ? x : y);
      case OpKind::kMinimum:
        if (std::isnan(x) || std::isnan(y)) return static_cast<T>(std::isnan(x) ? x : y);
        if (x == y) return static_cast<T>(std::signbit(x) ? x : y);  // min(-0, +0) = -0
        return static_cast<T>(x < y ? x : y);
      default: return a;  // and/or/xor are not defined on floats (the verifier rejects them)
    }
  }
}

}  // namespace

Status CombineInto(OpKind op, ElementType type, void* acc, const void* value, int64_t n) {
  return DispatchElementType(type, "reduction", [&]<typename T>() -> Status {
    if constexpr (kIsFloat<T>) {
      if (op == OpKind::kAnd || op == OpKind::kOr || op == OpKind::kXor) {
        return InvalidArgumentError("bitwise reduction on a floating-point type");
      }
    }
    T* a = static_cast<T*>(acc);
    const T* v = static_cast<const T*>(value);
    for (int64_t i = 0; i < n; ++i) a[i] = Combine<T>(op, a[i], v[i]);
    return OkStatus();
  });
}

}  // namespace berth::cpu
