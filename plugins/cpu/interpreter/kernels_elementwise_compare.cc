// Comparing and choosing: compare, select, clamp.
//
// compare reads its direction and compare type when the node is made
// (int_param0 = direction, int_param1 = compare type, as the enums' values)
// and picks a block function for exactly that pair:
//   - FLOAT (the default for floats): IEEE quiet comparisons, so every
//     comparison with a NaN is false except NE; -0 == +0.
//   - TOTALORDER: IEEE totalOrder on the bits: -NaN < -Inf < ... < -0 < +0 <
//     ... < +Inf < +NaN, NaNs ordered by payload; EQ means identical bits.
//   - SIGNED / UNSIGNED: integers (and i1, false < true) compared as that.
//   - complex numbers: lexicographic on (real, imaginary), each part as a
//     float of its type (FLOAT or TOTALORDER): EQ when both parts are
//     equal, so a NaN part makes EQ false.
// select's pred and clamp's bounds may be rank 0 (one value for all).
#include "interpreter/elementwise_blocks.hpp"

namespace berth::cpu::elementwise {
namespace {

using stablehlo::ComparisonDirection;
using stablehlo::ComparisonType;
using stablehlo::OpKind;
using stablehlo::Operation;

// How compare turns an element into something C++ compares.
enum class Order { kNatural, kSigned, kUnsigned, kTotal };

template <typename T, Order kOrder>
auto OrderKey(T value) {
  if constexpr (kOrder == Order::kTotal) {
    using S = std::make_signed_t<FloatBits<T>>;
    S bits = static_cast<S>(ToBits(value));
    // Negative values: flip the magnitude so larger magnitudes sort lower.
    return bits < 0 ? static_cast<S>(bits ^ std::numeric_limits<S>::max()) : bits;
  } else if constexpr (kOrder == Order::kSigned && kIsInteger<T>) {
    return static_cast<std::make_signed_t<T>>(value);
  } else if constexpr (kOrder == Order::kUnsigned && kIsInteger<T>) {
    return static_cast<std::make_unsigned_t<T>>(value);
  } else {
    return static_cast<Calc<T>>(value);
  }
}

template <ComparisonDirection kDir, typename K>
bool Compare(K a, K b) {
  if constexpr (kDir == ComparisonDirection::kEq) return a == b;
  else if constexpr (kDir == ComparisonDirection::kNe) return a != b;
  else if constexpr (kDir == ComparisonDirection::kGe) return a >= b;
  else if constexpr (kDir == ComparisonDirection::kGt) return a > b;
  else if constexpr (kDir == ComparisonDirection::kLe) return a <= b;
  else return a < b;
}

// a kDir b for complex numbers, lexicographic on (real, imaginary).
template <ComparisonDirection kDir, typename K>
bool ComparePairs(K ar, K ai, K br, K bi) {
  if constexpr (kDir == ComparisonDirection::kEq)
    return ar == br && ai == bi;
  else if constexpr (kDir == ComparisonDirection::kNe)
    return !(ar == br && ai == bi);
  else
    return ar == br ? Compare<kDir>(ai, bi) : Compare<kDir>(ar, br);
}

template <typename T, ComparisonDirection kDir, Order kOrder>
struct CompareBlock {
  static void Run(const ElementwiseNode&, const void* const* args, void* out, int64_t n) {
    if constexpr (kIsComplex<T>) {
      using R = typename T::value_type;
      MapBinary<T, bool>(args, out, n, [](T a, T b) {
        return ComparePairs<kDir>(OrderKey<R, kOrder>(a.real()), OrderKey<R, kOrder>(a.imag()),
                                  OrderKey<R, kOrder>(b.real()), OrderKey<R, kOrder>(b.imag()));
      });
    } else {
      MapBinary<T, bool>(args, out, n, [](T a, T b) {
        return Compare<kDir>(OrderKey<T, kOrder>(a), OrderKey<T, kOrder>(b));
      });
    }
  }
};

template <typename T, Order kOrder>
BlockFn CompareFn(ComparisonDirection direction) {
  switch (direction) {
    case ComparisonDirection::kEq: return &CompareBlock<T, ComparisonDirection::kEq, kOrder>::Run;
    case ComparisonDirection::kNe: return &CompareBlock<T, ComparisonDirection::kNe, kOrder>::Run;
    case ComparisonDirection::kGe: return &CompareBlock<T, ComparisonDirection::kGe, kOrder>::Run;
    case ComparisonDirection::kGt: return &CompareBlock<T, ComparisonDirection::kGt, kOrder>::Run;
    case ComparisonDirection::kLe: return &CompareBlock<T, ComparisonDirection::kLe, kOrder>::Run;
    case ComparisonDirection::kLt: return &CompareBlock<T, ComparisonDirection::kLt, kOrder>::Run;
  }
  return nullptr;
}

Status MakeCompare(const Operation& op, std::string_view what, ElementwiseNode& node) {
  std::optional<ComparisonDirection> direction = op.comparison_direction();
  if (!direction) return InvalidArgumentError(std::string(what) + " has no comparison_direction");
  ComparisonType type = op.compare_type().value_or(ComparisonType::kNoType);
  node.int_param0 = static_cast<int64_t>(*direction);
  node.int_param1 = static_cast<int64_t>(type);
  stablehlo::ElementType element = node.compute_arg[0];
  auto choose = [&]<typename T>() -> Status {
    bool fits = true;
    if constexpr (kIsFloat<T> || kIsComplex<T>) {
      if (type == ComparisonType::kTotalOrder) {
        node.fn = CompareFn<T, Order::kTotal>(*direction);
      } else {
        fits = type == ComparisonType::kFloat || type == ComparisonType::kNoType;
        node.fn = CompareFn<T, Order::kNatural>(*direction);
      }
    } else if constexpr (kIsInteger<T>) {
      if (type == ComparisonType::kSigned) {
        node.fn = CompareFn<T, Order::kSigned>(*direction);
      } else if (type == ComparisonType::kUnsigned) {
        node.fn = CompareFn<T, Order::kUnsigned>(*direction);
      } else {
        fits = type == ComparisonType::kNoType;
        node.fn = CompareFn<T, Order::kNatural>(*direction);
      }
    } else {
      fits = type == ComparisonType::kUnsigned || type == ComparisonType::kNoType;
      node.fn = CompareFn<T, Order::kNatural>(*direction);
    }
    if (!fits) {
      return InvalidArgumentError(
          std::string(what) + ": compare_type " +
          std::string(stablehlo::EnumKeyword(stablehlo::EnumKind::kComparisonType,
                                             static_cast<uint8_t>(type))) +
          " does not fit element type " + std::string(stablehlo::ElementTypeName(element)));
    }
    return OkStatus();
  };
  return DispatchElementTypeOrComplex(element, what, choose);
}

template <typename T>
struct SelectBlock {
  static void Run(const ElementwiseNode& node, const void* const* args, void* out, int64_t n) {
    const bool* __restrict pred = static_cast<const bool*>(args[0]);
    const T* __restrict on_true = static_cast<const T*>(args[1]);
    const T* __restrict on_false = static_cast<const T*>(args[2]);
    T* __restrict o = static_cast<T*>(out);
    if (node.scalar_arg[0]) {
      std::memcpy(o, pred[0] ? on_true : on_false, static_cast<size_t>(n) * sizeof(T));
      return;
    }
    for (int64_t i = 0; i < n; ++i) o[i] = pred[i] ? on_true[i] : on_false[i];
  }
};

Status MakeSelect(const Operation&, std::string_view what, ElementwiseNode& node) {
  stablehlo::ElementType type = node.compute_arg[1];
  auto choose = [&]<typename T>() -> Status {
    node.fn = &SelectBlock<T>::Run;
    return OkStatus();
  };
  return DispatchElementTypeOrComplex(type, what, choose);
}

// max(operand, lo) then min(., hi), with maximum's and minimum's semantics
// (a NaN anywhere gives NaN).
template <typename T>
T ClampValue(T lo, T x, T hi) {
  if constexpr (kIsFloat<T>) {
    Calc<T> l = static_cast<Calc<T>>(lo), v = static_cast<Calc<T>>(x);
    T r = v > l ? x : lo;
    r = v == l ? (std::signbit(v) ? lo : x) : r;
    r = v != v ? x : r;
    Calc<T> m = static_cast<Calc<T>>(r), h = static_cast<Calc<T>>(hi);
    T s = m < h ? r : hi;
    s = m == h ? (std::signbit(m) ? r : hi) : s;
    return m != m ? r : s;
  } else {
    T r = x > lo ? x : lo;
    return r < hi ? r : hi;
  }
}

template <typename T, bool kScalarLo, bool kScalarHi>
void ClampLoop(const void* const* args, void* out, int64_t n) {
  const T* __restrict lo = static_cast<const T*>(args[0]);
  const T* __restrict x = static_cast<const T*>(args[1]);
  const T* __restrict hi = static_cast<const T*>(args[2]);
  T* __restrict o = static_cast<T*>(out);
  for (int64_t i = 0; i < n; ++i) {
    o[i] = ClampValue<T>(lo[kScalarLo ? 0 : i], x[i], hi[kScalarHi ? 0 : i]);
  }
}

template <typename T>
struct ClampBlock {
  static void Run(const ElementwiseNode& node, const void* const* args, void* out, int64_t n) {
    if (node.scalar_arg[0]) {
      if (node.scalar_arg[2]) ClampLoop<T, true, true>(args, out, n);
      else ClampLoop<T, true, false>(args, out, n);
    } else {
      if (node.scalar_arg[2]) ClampLoop<T, false, true>(args, out, n);
      else ClampLoop<T, false, false>(args, out, n);
    }
  }
};

Status MakeClamp(const Operation&, std::string_view what, ElementwiseNode& node) {
  return SetBlock<ClampBlock, kAllOk>(node, node.compute_arg[1], what);
}

}  // namespace

MakeBlockFn FindCompareBlock(OpKind kind) {
  switch (kind) {
    case OpKind::kCompare: return MakeCompare;
    case OpKind::kSelect: return MakeSelect;
    case OpKind::kClamp: return MakeClamp;
    default: return nullptr;
  }
}

}  // namespace berth::cpu::elementwise
