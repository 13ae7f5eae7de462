// stablehlo.sort: sorts the 1-D slices of its operands along `dimension`
// together, ordered by the comparator region.
//
// Every sort is a stable merge sort of positions (std::stable_sort, which
// stays in bounds whatever the comparator answers, unlike std::sort), so
// is_stable costs nothing and ties keep their order. When the comparator
// is a single `compare` of one operand's pair of arguments, the kernel
// evaluates that comparison natively on precomputed keys and sorts rows in
// parallel; it asks exactly the same questions as the region would, so
// NaNs order as the comparator says (FLOAT: unordered, TOTALORDER: -NaN
// first, +NaN last). Any other comparator runs per comparison through
// call.RunRegion.
#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>

#include "interpreter/data_movement.hpp"
#include "interpreter/element_types.hpp"
#include "interpreter/parallel.hpp"

namespace berth::cpu {
namespace {

using stablehlo::ComparisonDirection;
using stablehlo::ComparisonType;
using stablehlo::OpKind;
using stablehlo::Operation;

// A comparator that is `compare DIR, lhs, rhs, TYPE` of operand `operand`'s
// two elements (swapped when it compares rhs with lhs).
struct SimpleComparator {
  size_t operand = 0;
  bool swapped = false;
  ComparisonDirection direction = ComparisonDirection::kLt;
  ComparisonType type = ComparisonType::kNoType;
};

// The comparison type a compare without one uses for `element`.
ComparisonType DefaultCompareType(ElementType element) {
  if (stablehlo::IsFloat(element)) return ComparisonType::kFloat;
  if (stablehlo::IsSignedInteger(element)) return ComparisonType::kSigned;
  return ComparisonType::kUnsigned;
}

std::optional<SimpleComparator> AnalyzeComparator(const Operation& op,
                                                  std::span<const Tensor> operands) {
  if (op.num_regions() != 1 || op.region(0).empty()) return std::nullopt;
  const stablehlo::Block& block = op.region(0).entry_block();
  if (block.operations().size() != 2) return std::nullopt;
  const Operation* compare = block.operations()[0];
  const Operation* ret = block.terminator();
  if (compare->kind() != OpKind::kCompare || ret == nullptr || ret->num_operands() != 1 ||
      ret->operand(0) != compare->result(0) || compare->num_operands() != 2) {
    return std::nullopt;
  }
  const stablehlo::Value* a = compare->operand(0);
  const stablehlo::Value* b = compare->operand(1);
  if (!a->IsBlockArgument() || !b->IsBlockArgument() || a->owner_block() != &block ||
      b->owner_block() != &block || a->index() / 2 != b->index() / 2 || a->index() == b->index()) {
    return std::nullopt;
  }
  SimpleComparator c;
  c.operand = a->index() / 2;
  c.swapped = a->index() % 2 == 1;
  if (c.operand >= operands.size()) return std::nullopt;
  std::optional<ComparisonDirection> direction = compare->comparison_direction();
  if (!direction || (*direction != ComparisonDirection::kLt && *direction != ComparisonDirection::kGt &&
                     *direction != ComparisonDirection::kLe && *direction != ComparisonDirection::kGe)) {
    return std::nullopt;
  }
  c.direction = *direction;
  ElementType element = operands[c.operand].type();
  ComparisonType type = compare->compare_type().value_or(ComparisonType::kNoType);
  if (type == ComparisonType::kNoType) type = DefaultCompareType(element);
  // Only the comparison types that fit the element type; others are left
  // to the compare kernel to judge.
  bool fits = stablehlo::IsFloat(element)
                  ? (type == ComparisonType::kFloat || type == ComparisonType::kTotalOrder)
                  : type == DefaultCompareType(element);
  if (!fits) return std::nullopt;
  c.type = type;
  return c;
}

// One slice along the sorted dimension: `length` elements from `base`,
// `stride` apart (offsets in elements).
struct RowLayout {
  int64_t rows = 0;
  int64_t length = 0;
  int64_t inner = 1;  // stride between elements of a row
  int64_t Base(int64_t row) const { return (row / inner) * length * inner + row % inner; }
};

// out[base + k * stride] = in[base + perm[k] * stride] for every operand.
void PermuteRow(const RowLayout& layout, int64_t row, std::span<const int64_t> perm,
                std::span<const Tensor> operands, std::vector<Tensor>& results) {
  const int64_t base = layout.Base(row);
  for (size_t j = 0; j < operands.size(); ++j) {
    const int64_t eb = static_cast<int64_t>(ElementBytes(operands[j].type()));
    const std::byte* src = operands[j].bytes();
    std::byte* dst = results[j].bytes();
    for (int64_t k = 0; k < layout.length; ++k) {
      std::memcpy(dst + (base + k * layout.inner) * eb,
                  src + (base + perm[k] * layout.inner) * eb, static_cast<size_t>(eb));
    }
  }
}

// Integer keys ordering floats totally: -NaN < -inf < ... < -0 < +0 < ...
// < +inf < +NaN.
template <typename T>
auto TotalOrderKey(T value) {
  using Bits = std::conditional_t<sizeof(T) == 2, int16_t,
                                  std::conditional_t<sizeof(T) == 4, int32_t, int64_t>>;
  Bits bits;
  std::memcpy(&bits, &value, sizeof(bits));
  constexpr Bits kMagnitude = std::numeric_limits<Bits>::max();
  return bits < 0 ? static_cast<Bits>(bits ^ kMagnitude) : bits;
}

template <typename K>
bool Less(K x, K y, ComparisonDirection direction) {
  switch (direction) {
    case ComparisonDirection::kLt: return x < y;
    case ComparisonDirection::kGt: return x > y;
    case ComparisonDirection::kLe: return x <= y;
    default: return x >= y;
  }
}

// Sorts every row with keys `key(T)` of operand `c.operand`.
template <typename T, typename KeyFn>
void SortRowsNative(const KernelCall& call, const SimpleComparator& c, const RowLayout& layout,
                    std::vector<Tensor>& results, KeyFn key) {
  using K = decltype(key(T{}));
  const T* keys = call.operands[c.operand].data<T>();
  const int64_t min_rows = std::max<int64_t>(1, 4096 / std::max<int64_t>(1, layout.length));
  ParallelFor(call.ctx.pool(), layout.rows, min_rows, [&](int64_t begin, int64_t end) {
    struct Entry {
      K key;
      int64_t index;
    };
    std::vector<Entry> entries(static_cast<size_t>(layout.length));
    std::vector<int64_t> perm(static_cast<size_t>(layout.length));
    for (int64_t row = begin; row < end; ++row) {
      const int64_t base = layout.Base(row);
      for (int64_t k = 0; k < layout.length; ++k) {
        entries[k] = {key(keys[base + k * layout.inner]), k};
      }
      std::stable_sort(entries.begin(), entries.end(), [&](const Entry& x, const Entry& y) {
        return c.swapped ? Less(y.key, x.key, c.direction) : Less(x.key, y.key, c.direction);
      });
      for (int64_t k = 0; k < layout.length; ++k) perm[k] = entries[k].index;
      PermuteRow(layout, row, perm, call.operands, results);
    }
  });
}

Status SortNative(const KernelCall& call, const SimpleComparator& c, const RowLayout& layout,
                  std::vector<Tensor>& results) {
  return DispatchElementType(call.operands[c.operand].type(), call.op.name(), [&]<typename T>() -> Status {
    if constexpr (kIsFloat<T>) {
      if (c.type == ComparisonType::kTotalOrder) {
        SortRowsNative<T>(call, c, layout, results, [](T v) { return TotalOrderKey(v); });
      } else if constexpr (std::is_same_v<T, double>) {
        SortRowsNative<T>(call, c, layout, results, [](T v) { return v; });
      } else {
        SortRowsNative<T>(call, c, layout, results, [](T v) { return static_cast<float>(v); });
      }
    } else if constexpr (kIsBool<T>) {
      SortRowsNative<T>(call, c, layout, results, [](T v) { return static_cast<uint8_t>(v); });
    } else {
      SortRowsNative<T>(call, c, layout, results, [](T v) { return v; });
    }
    return OkStatus();
  });
}

// Runs the comparator region for every comparison (serially: regions run on
// the calling thread).
Status SortWithRegion(const KernelCall& call, const RowLayout& layout, std::vector<Tensor>& results) {
  const size_t n = call.operands.size();
  std::vector<int64_t> perm(static_cast<size_t>(layout.length));
  std::vector<Tensor> args(2 * n);
  Status error;
  auto compare = [&](int64_t base, int64_t x, int64_t y) -> bool {
    if (!error.ok()) return false;
    for (size_t j = 0; j < n; ++j) {
      Result<Tensor> lhs = ScalarAt(call.operands[j], base + x * layout.inner);
      Result<Tensor> rhs = ScalarAt(call.operands[j], base + y * layout.inner);
      if (!lhs.ok() || !rhs.ok()) {
        error = !lhs.ok() ? lhs.status() : rhs.status();
        return false;
      }
      args[2 * j] = std::move(lhs).value();
      args[2 * j + 1] = std::move(rhs).value();
    }
    Result<std::vector<Tensor>> out = call.RunRegion(0, args);
    if (!out.ok()) {
      error = out.status();
      return false;
    }
    if (out->size() != 1 || !(*out)[0].is_tensor() || (*out)[0].type() != ElementType::kI1 ||
        (*out)[0].num_elements() != 1) {
      error = InvalidArgumentError("the comparator must return one tensor<i1>");
      return false;
    }
    return (*out)[0].data<bool>()[0];
  };
  for (int64_t row = 0; row < layout.rows; ++row) {
    const int64_t base = layout.Base(row);
    std::iota(perm.begin(), perm.end(), int64_t{0});
    std::stable_sort(perm.begin(), perm.end(),
                     [&](int64_t x, int64_t y) { return compare(base, x, y); });
    BERTH_RETURN_IF_ERROR(error);
    PermuteRow(layout, row, perm, call.operands, results);
  }
  return OkStatus();
}

Status Sort(KernelCall& call) {
  if (call.operands.empty()) return InvalidArgumentError("needs at least one operand");
  const Tensor& first = call.operands[0];
  for (size_t j = 0; j < call.operands.size(); ++j) {
    const Tensor& t = call.operands[j];
    BERTH_RETURN_IF_ERROR(CheckSupported(t.type(), call.op.name()));
    if (t.dims() != first.dims()) {
      return InvalidArgumentError("operand #" + std::to_string(j) + " " + t.TypeString() +
                                  " differs in shape from operand #0 " + first.TypeString());
    }
  }
  const int64_t rank = first.rank();
  int64_t dim = call.op.GetInt("dimension").value_or(-1);
  if (dim < -rank || dim >= rank || rank == 0) {
    if (rank == 0) {
      // Nothing to sort in a scalar.
      call.results.assign(call.operands.begin(), call.operands.end());
      return OkStatus();
    }
    return InvalidArgumentError("dimension " + std::to_string(dim) + " is outside [" +
                                std::to_string(-rank) + ", " + std::to_string(rank) + ")");
  }
  if (dim < 0) dim += rank;
  RowLayout layout;
  layout.length = first.dims()[dim];
  for (int64_t d = dim + 1; d < rank; ++d) layout.inner *= first.dims()[d];
  layout.rows = layout.length == 0 ? 0 : first.num_elements() / layout.length;
  if (layout.length <= 1 || layout.rows == 0) {
    for (size_t j = 0; j < call.operands.size(); ++j) {
      BERTH_RETURN_IF_ERROR(CheckResultDims(call, j, call.operands[j].dims()));
    }
    call.results.assign(call.operands.begin(), call.operands.end());
    return OkStatus();
  }
  std::vector<Tensor> results;
  for (size_t j = 0; j < call.operands.size(); ++j) {
    BERTH_ASSIGN_OR_RETURN(Tensor out, AllocateResult(call, j, call.operands[j].dims()));
    results.push_back(std::move(out));
  }
  std::optional<SimpleComparator> simple = AnalyzeComparator(call.op, call.operands);
  // Complex and narrow keys have no native order here: the comparator runs.
  if (simple && !IsSupportedByDispatch(call.operands[simple->operand].type())) simple.reset();
  if (simple) {
    BERTH_RETURN_IF_ERROR(SortNative(call, *simple, layout, results));
  } else {
    BERTH_RETURN_IF_ERROR(SortWithRegion(call, layout, results));
  }
  for (Tensor& t : results) call.results.push_back(std::move(t));
  return OkStatus();
}

}  // namespace

void RegisterSortKernels(KernelRegistry& registry) { registry.Register(OpKind::kSort, Sort); }

}  // namespace berth::cpu
