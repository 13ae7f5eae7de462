// stablehlo.reduce_window and stablehlo.select_and_scatter.
//
// reduce_window: each result element folds one window of the padded,
// base-dilated inputs into the init values, `acc = body(acc, x)`, window
// elements in lexicographic order; padding and the holes of base dilation
// hold the init values (so they take part in the fold, as the spec says).
// Negative padding trims the input. Single-op bodies run as typed loops.
//
// select_and_scatter: for each source element (lexicographic order) the
// window's in-bounds operand elements are scanned in lexicographic order;
// the first is selected, then each later candidate replaces it unless
// `select(selected, candidate)` is true. The result starts as init_value
// everywhere and each source element is folded into the selected position
// with `scatter(result, source)`. Padding is never selected; a window with
// no in-bounds element (all padding) scatters nothing (the spec leaves this
// case open). Selects that are one comparison (GE/GT/LE/LT, not TOTALORDER)
// with a single-op scatter run as typed loops.
#include <algorithm>
#include <cstring>
#include <optional>

#include "interpreter/parallel.hpp"
#include "interpreter/reduction.hpp"

namespace berth::cpu {
namespace {

using stablehlo::ComparisonDirection;
using stablehlo::OpKind;

constexpr int64_t kMinParallelWork = 1 << 15;

// Where the windows of an op lie over its input.
struct WindowGeometry {
  std::vector<int64_t> in_dims;
  std::vector<int64_t> in_strides;
  std::vector<int64_t> out_dims;
  std::vector<int64_t> window;
  std::vector<int64_t> strides;
  std::vector<int64_t> base_dilations;
  std::vector<int64_t> window_dilations;
  std::vector<int64_t> pad_low;
  int64_t window_count = 1;

  // For output coordinate `o` of dim `d`: per window position, the element
  // offset along that dim, or -1 where the window lies on padding or a hole.
  void Positions(size_t d, int64_t o, std::vector<int64_t>& out) const {
    out.resize(static_cast<size_t>(window[d]));
    int64_t dilated = in_dims[d] == 0 ? 0 : (in_dims[d] - 1) * base_dilations[d] + 1;
    for (int64_t w = 0; w < window[d]; ++w) {
      int64_t p = o * strides[d] + w * window_dilations[d] - pad_low[d];
      bool valid = p >= 0 && p < dilated && p % base_dilations[d] == 0;
      out[static_cast<size_t>(w)] = valid ? (p / base_dilations[d]) * in_strides[d] : -1;
    }
  }
};

Result<WindowGeometry> ReadGeometry(const stablehlo::Operation& op, std::span<const int64_t> dims) {
  WindowGeometry g;
  const size_t rank = dims.size();
  g.in_dims.assign(dims.begin(), dims.end());
  g.in_strides = RowMajorStrides(dims);
  auto read = [&](std::string_view name, std::vector<int64_t>& out) -> Status {
    std::span<const int64_t> v = op.GetI64Array(name);
    if (v.empty() && rank > 0 && name != "window_dimensions") {
      out.assign(rank, 1);
      return OkStatus();
    }
    if (v.size() != rank) {
      return InvalidArgumentError(std::string(name) + " needs " + std::to_string(rank) + " entries");
    }
    out.assign(v.begin(), v.end());
    for (int64_t x : out) {
      if (x <= 0) return InvalidArgumentError(std::string(name) + " must be positive");
    }
    return OkStatus();
  };
  BERTH_RETURN_IF_ERROR(read("window_dimensions", g.window));
  BERTH_RETURN_IF_ERROR(read("window_strides", g.strides));
  BERTH_RETURN_IF_ERROR(read("base_dilations", g.base_dilations));
  BERTH_RETURN_IF_ERROR(read("window_dilations", g.window_dilations));
  std::vector<std::pair<int64_t, int64_t>> padding = op.GetPairs("padding");
  if (padding.empty()) padding.assign(rank, {0, 0});
  if (padding.size() != rank) {
    return InvalidArgumentError("padding needs " + std::to_string(rank) + " rows");
  }
  for (size_t d = 0; d < rank; ++d) {
    g.pad_low.push_back(padding[d].first);
    int64_t dilated = dims[d] == 0 ? 0 : (dims[d] - 1) * g.base_dilations[d] + 1;
    int64_t padded = dilated + padding[d].first + padding[d].second;
    int64_t dilated_window = (g.window[d] - 1) * g.window_dilations[d] + 1;
    g.out_dims.push_back(padded <= 0 || dilated_window > padded
                             ? 0
                             : (padded - dilated_window) / g.strides[d] + 1);
    g.window_count *= g.window[d];
  }
  return g;
}

// Calls visit(valid, offset) for every window element in lexicographic order.
template <typename F>
void ForEachInWindow(const std::vector<std::vector<int64_t>>& positions, size_t d, int64_t offset,
                     bool valid, F& visit) {
  if (d == positions.size()) {
    visit(valid, offset);
    return;
  }
  for (int64_t p : positions[d]) {
    ForEachInWindow(positions, d + 1, p >= 0 ? offset + p : offset, valid && p >= 0, visit);
  }
}

// Fills `positions` for the window of output element `index`.
void WindowAt(const WindowGeometry& g, const std::vector<int64_t>& index,
              std::vector<std::vector<int64_t>>& positions) {
  positions.resize(g.in_dims.size());
  for (size_t d = 0; d < g.in_dims.size(); ++d) g.Positions(d, index[d], positions[d]);
}

template <Reducer R, typename T>
void FastReduceWindow(const WindowGeometry& g, const T* in, T init, T* out, int64_t num_out,
                      ThreadPool* pool) {
  auto body = [&](int64_t begin, int64_t end) {
    Odometer index(g.out_dims, std::vector<int64_t>(g.out_dims.size(), 0));
    index.Seek(begin);
    std::vector<std::vector<int64_t>> positions;
    for (int64_t o = begin; o < end; ++o, index.Next()) {
      WindowAt(g, index.index(), positions);
      T acc = init;
      auto visit = [&](bool valid, int64_t offset) {
        acc = Combine<R, T>(acc, valid ? in[offset] : init);
      };
      ForEachInWindow(positions, 0, 0, true, visit);
      out[o] = acc;
    }
  };
  int64_t work = num_out * std::max<int64_t>(1, g.window_count);
  if (work < kMinParallelWork) {
    body(0, num_out);
  } else {
    ParallelFor(pool, num_out, std::max<int64_t>(1, kMinParallelWork / std::max<int64_t>(1, g.window_count)),
                body);
  }
}

Status ReduceWindow(KernelCall& call) {
  const stablehlo::Operation& op = call.op;
  const size_t n = call.operands.size() / 2;
  if (n == 0 || call.operands.size() != 2 * n || op.num_regions() != 1) {
    return InvalidArgumentError("reduce_window takes N inputs, N init values and a body");
  }
  const stablehlo::Block& body = op.region(0).entry_block();
  BERTH_ASSIGN_OR_RETURN(WindowGeometry g, ReadGeometry(op, call.operands[0].dims()));
  std::vector<Tensor> inputs(n), inits(n), outs(n);
  for (size_t i = 0; i < n; ++i) {
    ElementType type = body.argument(i)->type().element_type();
    if (!IsSupportedElementType(type)) return UnsupportedElementType(type, "reduce_window");
    if (call.operands[i].dims() != call.operands[0].dims()) {
      return InvalidArgumentError("inputs must have the same shape");
    }
    BERTH_ASSIGN_OR_RETURN(inputs[i], ConvertTensor(call.operands[i], type, call.ctx.pool()));
    BERTH_ASSIGN_OR_RETURN(inits[i], ConvertTensor(call.operands[n + i], type, call.ctx.pool()));
    BERTH_ASSIGN_OR_RETURN(outs[i], Tensor::Allocate(type, g.out_dims));
  }
  const int64_t num_out = outs[0].num_elements();
  Reducer reducer = n == 1 ? DetectReducer(op.region(0)) : Reducer::kNone;
  if (reducer != Reducer::kNone) {
    Status status = DispatchElementType(inputs[0].type(), "reduce_window", [&]<typename T>() -> Status {
      DispatchReducer(reducer, [&]<Reducer R>() {
        FastReduceWindow<R, T>(g, inputs[0].data<T>(), inits[0].data<T>()[0], outs[0].data<T>(),
                               num_out, call.ctx.pool());
      });
      return OkStatus();
    });
    BERTH_RETURN_IF_ERROR(status);
  } else {
    Odometer index(g.out_dims, std::vector<int64_t>(g.out_dims.size(), 0));
    std::vector<std::vector<int64_t>> positions;
    std::vector<Tensor> args(2 * n);
    Status status;
    for (int64_t o = 0; o < num_out; ++o, index.Next()) {
      WindowAt(g, index.index(), positions);
      for (size_t i = 0; i < n; ++i) args[i] = inits[i];
      auto visit = [&](bool valid, int64_t offset) {
        if (!status.ok()) return;
        for (size_t i = 0; i < n; ++i) {
          if (!valid) {
            args[n + i] = inits[i];
            continue;
          }
          Result<Tensor> x = ScalarAt(inputs[i], offset);
          if (!x.ok()) {
            status = x.status();
            return;
          }
          args[n + i] = std::move(x).value();
        }
        Result<std::vector<Tensor>> acc = call.RunRegion(0, args);
        if (!acc.ok()) {
          status = acc.status();
        } else if (acc->size() != n) {
          status = InternalError("the body returned the wrong number of values");
        } else {
          for (size_t i = 0; i < n; ++i) args[i] = std::move((*acc)[i]);
        }
      };
      ForEachInWindow(positions, 0, 0, true, visit);
      BERTH_RETURN_IF_ERROR(status);
      for (size_t i = 0; i < n; ++i) BERTH_RETURN_IF_ERROR(StoreScalar(args[i], outs[i], o));
    }
  }
  for (Tensor& out : outs) call.results.push_back(std::move(out));
  return OkStatus();
}

// A select region that is `compare dir, arg0, arg1` (or with the arguments
// swapped), FLOAT/SIGNED/UNSIGNED comparison; nullopt otherwise.
std::optional<ComparisonDirection> DetectSelect(const stablehlo::Region& region) {
  if (region.empty()) return std::nullopt;
  const stablehlo::Block& block = region.entry_block();
  std::span<stablehlo::Operation* const> ops = block.operations();
  if (block.num_arguments() != 2 || ops.size() != 2 || block.terminator() != ops[1]) {
    return std::nullopt;
  }
  const stablehlo::Operation& cmp = *ops[0];
  if (cmp.kind() != OpKind::kCompare || cmp.num_operands() != 2 ||
      ops[1]->num_operands() != 1 || ops[1]->operand(0) != cmp.result(0)) {
    return std::nullopt;
  }
  std::optional<ComparisonDirection> dir = cmp.comparison_direction();
  std::optional<stablehlo::ComparisonType> type = cmp.compare_type();
  if (!dir || (type && *type == stablehlo::ComparisonType::kTotalOrder)) return std::nullopt;
  if (*dir == ComparisonDirection::kEq || *dir == ComparisonDirection::kNe) return std::nullopt;
  if (block.argument(0)->type() != block.argument(1)->type()) return std::nullopt;
  if (cmp.operand(0) == block.argument(0) && cmp.operand(1) == block.argument(1)) return dir;
  if (cmp.operand(0) == block.argument(1) && cmp.operand(1) == block.argument(0)) {
    switch (*dir) {  // b OP a is a MIRROR(OP) b
      case ComparisonDirection::kGe: return ComparisonDirection::kLe;
      case ComparisonDirection::kGt: return ComparisonDirection::kLt;
      case ComparisonDirection::kLe: return ComparisonDirection::kGe;
      default: return ComparisonDirection::kGt;
    }
  }
  return std::nullopt;
}

template <typename T>
bool Compare(ComparisonDirection dir, T a, T b) {
  switch (dir) {
    case ComparisonDirection::kGe: return a >= b;
    case ComparisonDirection::kGt: return a > b;
    case ComparisonDirection::kLe: return a <= b;
    default: return a < b;
  }
}

// The operand offset selected in the window of `positions`; -1 when the
// window holds no operand element. `keep(selected, candidate)` is select.
template <typename Keep>
Result<int64_t> SelectInWindow(const std::vector<std::vector<int64_t>>& positions, Keep&& keep) {
  int64_t selected = -1;
  Status status;
  auto visit = [&](bool valid, int64_t offset) {
    if (!valid || !status.ok()) return;
    if (selected < 0) {
      selected = offset;
      return;
    }
    Result<bool> k = keep(selected, offset);
    if (!k.ok()) {
      status = k.status();
    } else if (!*k) {
      selected = offset;
    }
  };
  ForEachInWindow(positions, 0, 0, true, visit);
  BERTH_RETURN_IF_ERROR(status);
  return selected;
}

Status SelectAndScatter(KernelCall& call) {
  const stablehlo::Operation& op = call.op;
  if (call.operands.size() != 3 || op.num_regions() != 2) {
    return InvalidArgumentError("select_and_scatter takes operand, source, init_value, select "
                                "and scatter");
  }
  const Tensor& operand = call.operands[0];
  const Tensor& source = call.operands[1];
  const Tensor& init = call.operands[2];
  ElementType type = operand.type();
  if (!IsSupportedElementType(type)) return UnsupportedElementType(type, "select_and_scatter");
  if (source.type() != type || init.type() != type || init.num_elements() != 1) {
    return InvalidArgumentError("source and init_value must have the operand's element type");
  }
  BERTH_ASSIGN_OR_RETURN(WindowGeometry g, ReadGeometry(op, operand.dims()));
  if (g.out_dims != source.dims()) {
    return InvalidArgumentError("source has shape " + source.TypeString() +
                                ", not the number of windows");
  }
  BERTH_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(type, operand.dims()));
  Odometer index(g.out_dims, std::vector<int64_t>(g.out_dims.size(), 0));
  std::vector<std::vector<int64_t>> positions;
  std::optional<ComparisonDirection> dir = DetectSelect(op.region(0));
  Reducer scatter = DetectReducer(op.region(1));

  if (dir && scatter != Reducer::kNone) {
    return DispatchElementType(type, "select_and_scatter", [&]<typename T>() -> Status {
      const T* in = operand.data<T>();
      const T* src = source.data<T>();
      T* o = out.data<T>();
      std::fill(o, o + out.num_elements(), init.data<T>()[0]);
      DispatchReducer(scatter, [&]<Reducer R>() {
        for (int64_t s = 0; s < source.num_elements(); ++s, index.Next()) {
          WindowAt(g, index.index(), positions);
          Result<int64_t> selected = SelectInWindow(
              positions, [&](int64_t a, int64_t b) -> Result<bool> { return Compare(*dir, in[a], in[b]); });
          if (*selected >= 0) o[*selected] = Combine<R, T>(o[*selected], src[s]);
        }
      });
      call.results.push_back(std::move(out));
      return OkStatus();
    });
  }

  for (int64_t i = 0; i < out.num_elements(); ++i) {
    std::memcpy(out.bytes() + i * stablehlo::StorageBytes(type), init.bytes(),
                stablehlo::StorageBytes(type));
  }
  std::vector<Tensor> args(2);
  auto keep = [&](int64_t a, int64_t b) -> Result<bool> {
    BERTH_ASSIGN_OR_RETURN(args[0], ScalarAt(operand, a));
    BERTH_ASSIGN_OR_RETURN(args[1], ScalarAt(operand, b));
    BERTH_ASSIGN_OR_RETURN(std::vector<Tensor> r, call.RunRegion(0, args));
    if (r.size() != 1 || !r[0].is_tensor() || r[0].type() != ElementType::kI1 ||
        r[0].num_elements() != 1) {
      return InternalError("select must return one tensor<i1>");
    }
    return r[0].data<bool>()[0];
  };
  for (int64_t s = 0; s < source.num_elements(); ++s, index.Next()) {
    WindowAt(g, index.index(), positions);
    BERTH_ASSIGN_OR_RETURN(int64_t selected, SelectInWindow(positions, keep));
    if (selected < 0) continue;
    BERTH_ASSIGN_OR_RETURN(args[0], ScalarAt(out, selected));
    BERTH_ASSIGN_OR_RETURN(args[1], ScalarAt(source, s));
    BERTH_ASSIGN_OR_RETURN(std::vector<Tensor> r, call.RunRegion(1, args));
    if (r.size() != 1) return InternalError("scatter must return one value");
    BERTH_RETURN_IF_ERROR(StoreScalar(r[0], out, selected));
  }
  call.results.push_back(std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterWindowKernels(KernelRegistry& registry) {
  registry.Register(
      {{OpKind::kReduceWindow, ReduceWindow}, {OpKind::kSelectAndScatter, SelectAndScatter}});
}

}  // namespace berth::cpu
