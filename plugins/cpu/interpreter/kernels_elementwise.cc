// Elementwise ops as block functions (see elementwise.hpp). Every op here is
// computed through FusedElementwise, alone or fused with its neighbours.
//
// Integer arithmetic wraps (computed in the unsigned type); f16 and bf16
// compute in float and round to nearest even when stored.
#include <cmath>
#include <type_traits>

#include "interpreter/element_types.hpp"
#include "interpreter/elementwise.hpp"

namespace berth::cpu {
namespace {

using stablehlo::OpKind;
using stablehlo::Operation;

// Integer arithmetic without signed overflow: through the unsigned type.
template <typename T, bool = std::is_integral_v<T> && !std::is_same_v<T, bool>>
struct WideOf {
  using type = T;
};
template <typename T>
struct WideOf<T, true> {
  using type = std::make_unsigned_t<T>;
};
template <typename T>
using Wide = typename WideOf<T>::type;

template <typename T, typename F>
void Binary(const void* const* args, void* out, int64_t n, F f) {
  const T* a = static_cast<const T*>(args[0]);
  const T* b = static_cast<const T*>(args[1]);
  T* o = static_cast<T*>(out);
  for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b[i]);
}

template <typename T, typename F>
void Unary(const void* const* args, void* out, int64_t n, F f) {
  const T* a = static_cast<const T*>(args[0]);
  T* o = static_cast<T*>(out);
  for (int64_t i = 0; i < n; ++i) o[i] = f(a[i]);
}

template <typename T>
struct AddBlock {
  static void Run(const ElementwiseNode&, const void* const* args, void* out, int64_t n) {
    if constexpr (std::is_same_v<T, bool>) {
      Binary<T>(args, out, n, [](T a, T b) { return static_cast<T>(a || b); });
    } else {
      Binary<T>(args, out, n, [](T a, T b) { return static_cast<T>(Wide<T>(a) + Wide<T>(b)); });
    }
  }
};

template <typename T>
struct SubtractBlock {
  static void Run(const ElementwiseNode&, const void* const* args, void* out, int64_t n) {
    Binary<T>(args, out, n, [](T a, T b) { return static_cast<T>(Wide<T>(a) - Wide<T>(b)); });
  }
};

template <typename T>
struct MultiplyBlock {
  static void Run(const ElementwiseNode&, const void* const* args, void* out, int64_t n) {
    if constexpr (std::is_same_v<T, bool>) {
      Binary<T>(args, out, n, [](T a, T b) { return static_cast<T>(a && b); });
    } else {
      Binary<T>(args, out, n, [](T a, T b) { return static_cast<T>(Wide<T>(a) * Wide<T>(b)); });
    }
  }
};

template <typename T>
struct NegateBlock {
  static void Run(const ElementwiseNode&, const void* const* args, void* out, int64_t n) {
    Unary<T>(args, out, n, [](T a) { return static_cast<T>(Wide<T>(0) - Wide<T>(a)); });
  }
};

// Which ops this family computes, and how to make their block function for
// a given element type.
using MakeFn = Result<BlockFn> (*)(stablehlo::ElementType type, std::string_view name);

template <template <typename> class Block, bool kAllowBool>
Result<BlockFn> MakeArithmetic(stablehlo::ElementType type, std::string_view name) {
  return DispatchElementType(type, name, [&]<typename E>() -> Result<BlockFn> {
    if constexpr (std::is_same_v<E, bool> && !kAllowBool) {
      return InvalidArgumentError(std::string(name) + " is not defined on i1");
    } else {
      return static_cast<BlockFn>(&Block<E>::Run);
    }
  });
}

MakeFn FindMaker(OpKind kind) {
  switch (kind) {
    case OpKind::kAdd: return MakeArithmetic<AddBlock, true>;
    case OpKind::kSubtract: return MakeArithmetic<SubtractBlock, false>;
    case OpKind::kMultiply: return MakeArithmetic<MultiplyBlock, true>;
    case OpKind::kNegate: return MakeArithmetic<NegateBlock, false>;
    default: return nullptr;
  }
}

}  // namespace

bool IsFusibleElementwise(const Operation& op) { return FindMaker(op.kind()) != nullptr; }

Result<ElementwiseNode> MakeElementwiseNode(const Operation& op) {
  MakeFn make = FindMaker(op.kind());
  if (make == nullptr) {
    return InternalError("'" + std::string(op.name()) + "' is not an elementwise op");
  }
  ElementwiseNode node;
  node.op = &op;
  node.num_args = static_cast<int>(op.num_operands());
  node.out_type = op.result(0)->type().element_type();
  stablehlo::ElementType in_type = op.operand(0)->type().element_type();
  for (size_t i = 0; i < op.num_operands() && i < 3; ++i) {
    node.scalar_arg[i] = op.operand(i)->type().rank() == 0 && op.result(0)->type().rank() > 0;
  }
  BERTH_ASSIGN_OR_RETURN(node.fn, make(in_type, op.name()));
  return node;
}

}  // namespace berth::cpu
