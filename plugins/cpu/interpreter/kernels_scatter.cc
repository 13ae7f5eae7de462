// stablehlo.scatter: results start as copies of the inputs; every element of
// the updates is combined into the result element its index selects, in
// row-major order of the updates (so later updates see earlier ones), with
// update_computation. Elements whose result index is out of bounds are
// skipped one by one, as the spec says: per update window that is the
// window clipped to the result.
//
// When the body just returns the update, or combines the old value and the
// update with one add / multiply / maximum / minimum / and / or, the kernel
// computes that natively; any other body runs per element through
// call.RunRegion.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "interpreter/data_movement.hpp"
#include "interpreter/element_types.hpp"
#include "interpreter/strided_copy.hpp"

namespace berth::cpu {
namespace {

using stablehlo::OpKind;
using stablehlo::Operation;
using stablehlo::ScatterDimensionNumbers;

// What the body computes for one result.
enum class Combine : uint8_t { kReplace, kKeep, kAdd, kMultiply, kMax, kMin, kAnd, kOr, kRegion };

Combine BinaryCombine(OpKind kind) {
  switch (kind) {
    case OpKind::kAdd: return Combine::kAdd;
    case OpKind::kMultiply: return Combine::kMultiply;
    case OpKind::kMaximum: return Combine::kMax;
    case OpKind::kMinimum: return Combine::kMin;
    case OpKind::kAnd: return Combine::kAnd;
    case OpKind::kOr: return Combine::kOr;
    default: return Combine::kRegion;
  }
}

// Recognizes bodies whose result i is update i, input i, or one commutative
// binary op of the two; anything else (or any other op in the body) is
// kRegion.
std::vector<Combine> AnalyzeBody(const Operation& op, size_t n) {
  std::vector<Combine> combine(n, Combine::kRegion);
  if (op.num_regions() != 1 || op.region(0).empty()) return combine;
  const stablehlo::Block& block = op.region(0).entry_block();
  const Operation* ret = block.terminator();
  if (ret == nullptr || ret->num_operands() != n || block.num_arguments() != 2 * n) return combine;
  auto arg_index = [&](const stablehlo::Value* v) -> int64_t {
    if (!v->IsBlockArgument() || v->owner_block() != &block) return -1;
    return static_cast<int64_t>(v->index());
  };
  size_t binary_ops = 0;
  for (size_t i = 0; i < n; ++i) {
    const stablehlo::Value* v = ret->operand(i);
    const int64_t old_arg = static_cast<int64_t>(i);
    const int64_t update_arg = static_cast<int64_t>(n + i);
    int64_t a = arg_index(v);
    if (a == update_arg) {
      combine[i] = Combine::kReplace;
    } else if (a == old_arg) {
      combine[i] = Combine::kKeep;
    } else if (const Operation* def = v->defining_op();
               def != nullptr && def->parent_block() == &block && def->num_operands() == 2 &&
               def->num_regions() == 0) {
      int64_t x = arg_index(def->operand(0));
      int64_t y = arg_index(def->operand(1));
      if ((x == old_arg && y == update_arg) || (x == update_arg && y == old_arg)) {
        combine[i] = BinaryCombine(def->kind());
        ++binary_ops;
      }
    }
  }
  // Every op besides the terminator must be one of the recognized ones.
  if (block.operations().size() != binary_ops + 1) combine.assign(n, Combine::kRegion);
  return combine;
}

// Floats compute in float (f16, bf16) or their own type.
template <typename T>
using Compute = std::conditional_t<std::is_same_v<T, half> || std::is_same_v<T, bfloat16>, float, T>;

// maximum (kMax) or minimum of a and b as the elementwise ops: floats
// propagate NaN and order -0 below +0.
template <bool kMax, typename T>
T Extremum(T a, T b) {
  if constexpr (kIsFloat<T>) {
    Compute<T> x = static_cast<Compute<T>>(a), y = static_cast<Compute<T>>(b);
    if (std::isnan(x)) return a;
    if (std::isnan(y)) return b;
    if (x == y) return std::signbit(x) == kMax ? b : a;  // maximum(-0, +0) = +0
    return (kMax ? x > y : x < y) ? a : b;
  } else {
    return (kMax ? a > b : a < b) ? a : b;
  }
}

template <typename T, Combine K>
T Apply(T old, T update) {
  if constexpr (K == Combine::kReplace) {
    return update;
  } else if constexpr (kIsBool<T>) {
    if constexpr (K == Combine::kAdd || K == Combine::kMax || K == Combine::kOr) return old || update;
    else return old && update;
  } else if constexpr (K == Combine::kAdd || K == Combine::kMultiply) {
    if constexpr (kIsFloat<T>) {
      Compute<T> x = static_cast<Compute<T>>(old), y = static_cast<Compute<T>>(update);
      return static_cast<T>(K == Combine::kAdd ? x + y : x * y);
    } else {
      // Wraps: computed in an unsigned type at least as wide as int (so
      // that narrow types do not promote to a signed int and overflow).
      using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
      return static_cast<T>(K == Combine::kAdd ? static_cast<U>(static_cast<U>(old) + static_cast<U>(update))
                                               : static_cast<U>(static_cast<U>(old) * static_cast<U>(update)));
    }
  } else if constexpr (K == Combine::kMax) {
    return Extremum<true>(old, update);
  } else if constexpr (K == Combine::kMin) {
    return Extremum<false>(old, update);
  } else if constexpr (K == Combine::kAnd) {
    return static_cast<T>(old & update);
  } else {
    return static_cast<T>(old | update);
  }
}

// Combines `n` updates (stride `ss`) into results (stride `ds`).
using RunFn = void (*)(std::byte* dst, const std::byte* src, int64_t n, int64_t ds, int64_t ss);

template <typename T, Combine K>
void CombineRun(std::byte* dst, const std::byte* src, int64_t n, int64_t ds, int64_t ss) {
  T* d = reinterpret_cast<T*>(dst);
  const T* s = reinterpret_cast<const T*>(src);
  for (int64_t i = 0; i < n; ++i) d[i * ds] = Apply<T, K>(d[i * ds], s[i * ss]);
}

// The native combine of `kind` on `type`; NULL when the body must run
// (kRegion, or and/or of floats, which the body's op would reject).
RunFn MakeRunFn(ElementType type, Combine kind) {
  RunFn fn = nullptr;
  (void)DispatchElementType(type, "scatter", [&]<typename T>() -> Status {
    switch (kind) {
      case Combine::kReplace: fn = CombineRun<T, Combine::kReplace>; break;
      case Combine::kAdd: fn = CombineRun<T, Combine::kAdd>; break;
      case Combine::kMultiply: fn = CombineRun<T, Combine::kMultiply>; break;
      case Combine::kMax: fn = CombineRun<T, Combine::kMax>; break;
      case Combine::kMin: fn = CombineRun<T, Combine::kMin>; break;
      case Combine::kAnd:
      case Combine::kOr:
        if constexpr (!kIsFloat<T>) {
          fn = kind == Combine::kAnd ? CombineRun<T, Combine::kAnd> : CombineRun<T, Combine::kOr>;
        }
        break;
      default: break;
    }
    return OkStatus();
  });
  return fn;
}

Status Scatter(KernelCall& call) {
  const size_t total = call.operands.size();
  if (total < 3 || (total - 1) % 2 != 0) {
    return InvalidArgumentError("expects inputs, scatter_indices and as many updates as inputs");
  }
  const size_t n = (total - 1) / 2;
  const ScatterDimensionNumbers* dn = call.op.scatter_dimension_numbers();
  if (dn == nullptr) return InvalidArgumentError("has no scatter_dimension_numbers");
  const Tensor& indices = call.operands[n];
  const std::vector<int64_t>& rd = call.operands[0].dims();
  const std::vector<int64_t>& ud = call.operands[n + 1].dims();
  const std::vector<int64_t>& sd = indices.dims();
  const int64_t r = static_cast<int64_t>(rd.size());
  const int64_t s = static_cast<int64_t>(sd.size());
  const int64_t u = static_cast<int64_t>(ud.size());
  const int64_t ivd = dn->index_vector_dim;

  // ---- results start as the inputs (promoted to the body's types)
  std::vector<Tensor> results(n), updates(n);
  for (size_t i = 0; i < n; ++i) {
    const Tensor& input = call.operands[i];
    const Tensor& update = call.operands[n + 1 + i];
    ElementType type = call.op.result(i)->type().element_type();
    BERTH_RETURN_IF_ERROR(CheckSupported(input.type(), call.op.name()));
    BERTH_RETURN_IF_ERROR(CheckSupported(type, call.op.name()));
    if (input.dims() != rd || update.dims() != ud) {
      return InvalidArgumentError("inputs must share one shape and updates another");
    }
    const bool same_kind =
        (stablehlo::IsInteger(input.type()) && stablehlo::IsInteger(type) &&
         stablehlo::IsInteger(update.type())) ||
        (stablehlo::IsFloat(input.type()) && stablehlo::IsFloat(type) &&
         stablehlo::IsFloat(update.type()));
    if (!same_kind && (input.type() != type || update.type() != type)) {
      return InvalidArgumentError("cannot promote " +
                                  std::string(stablehlo::ElementTypeName(input.type())) + " to " +
                                  std::string(stablehlo::ElementTypeName(type)));
    }
    BERTH_ASSIGN_OR_RETURN(Tensor promoted, ConvertTensor(input, type, call.ctx.pool()));
    BERTH_ASSIGN_OR_RETURN(results[i], AllocateResult(call, i, rd));
    CopyBytesParallel(call.ctx.pool(), results[i].bytes(), promoted.bytes(), promoted.byte_size());
    BERTH_ASSIGN_OR_RETURN(updates[i], ConvertTensor(update, type, call.ctx.pool()));
  }

  // ---- dimension numbers against the actual shapes
  if (ivd < 0 || ivd > s) {
    return InvalidArgumentError("index_vector_dim " + std::to_string(ivd) + " is outside [0, " +
                                std::to_string(s) + "]");
  }
  const int64_t index_count = ivd < s ? sd[ivd] : 1;
  if (static_cast<int64_t>(dn->scatter_dims_to_operand_dims.size()) != index_count) {
    return InvalidArgumentError("scatter_dims_to_operand_dims must have " +
                                std::to_string(index_count) + " entries");
  }
  std::vector<bool> not_window(static_cast<size_t>(r));
  BERTH_RETURN_IF_ERROR(CheckDims(dn->inserted_window_dims, r, not_window, "inserted_window_dims"));
  BERTH_RETURN_IF_ERROR(CheckDims(dn->input_batching_dims, r, not_window,
                                  "inserted_window_dims and input_batching_dims"));
  std::vector<bool> mapped(static_cast<size_t>(r));
  for (int64_t d : dn->input_batching_dims) mapped[d] = true;
  BERTH_RETURN_IF_ERROR(CheckDims(dn->scatter_dims_to_operand_dims, r, mapped,
                                  "scatter_dims_to_operand_dims and input_batching_dims"));
  std::vector<bool> index_taken(static_cast<size_t>(s) + 1);
  index_taken[ivd] = true;
  BERTH_RETURN_IF_ERROR(CheckDims(dn->scatter_indices_batching_dims, s, index_taken,
                                  "scatter_indices_batching_dims (and index_vector_dim)"));
  if (dn->input_batching_dims.size() != dn->scatter_indices_batching_dims.size()) {
    return InvalidArgumentError("input_batching_dims and scatter_indices_batching_dims differ in size");
  }
  for (size_t i = 0; i < dn->input_batching_dims.size(); ++i) {
    if (rd[dn->input_batching_dims[i]] != sd[dn->scatter_indices_batching_dims[i]]) {
      return InvalidArgumentError("batching dimension sizes of the inputs and scatter_indices differ");
    }
  }
  std::vector<bool> is_window(static_cast<size_t>(u));
  BERTH_RETURN_IF_ERROR(CheckDims(dn->update_window_dims, u, is_window, "update_window_dims"));
  std::vector<int64_t> window_dims, batch_dims, update_scatter_dims;
  for (int64_t d = 0; d < r; ++d) {
    if (!not_window[d]) window_dims.push_back(d);
  }
  for (int64_t d = 0; d < s; ++d) {
    if (d != ivd) batch_dims.push_back(d);
  }
  for (int64_t d = 0; d < u; ++d) {
    if (!is_window[d]) update_scatter_dims.push_back(d);
  }
  if (window_dims.size() != dn->update_window_dims.size() ||
      update_scatter_dims.size() != batch_dims.size() ||
      !std::is_sorted(dn->update_window_dims.begin(), dn->update_window_dims.end())) {
    return InvalidArgumentError("the updates' shape does not fit the dimension numbers");
  }
  for (size_t k = 0; k < batch_dims.size(); ++k) {
    if (ud[update_scatter_dims[k]] != sd[batch_dims[k]]) {
      return InvalidArgumentError("update scatter dimension sizes must match scatter_indices");
    }
  }
  for (size_t j = 0; j < window_dims.size(); ++j) {
    if (ud[dn->update_window_dims[j]] > rd[window_dims[j]]) {
      return InvalidArgumentError("an update window is larger than the input");
    }
  }

  int64_t num_updates = 1;
  for (int64_t d : ud) num_updates *= d;
  if (num_updates == 0 || results[0].num_elements() == 0) {
    for (Tensor& t : results) call.results.push_back(std::move(t));
    return OkStatus();
  }

  // ---- how each result combines
  std::vector<Combine> combine = AnalyzeBody(call.op, n);
  std::vector<RunFn> fns(n, nullptr);
  bool native = true;
  for (size_t i = 0; i < n; ++i) {
    if (combine[i] == Combine::kKeep) continue;
    fns[i] = MakeRunFn(results[i].type(), combine[i]);
    native = native && fns[i] != nullptr;
  }

  BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> index_values, ReadIndices(indices, "scatter_indices"));
  const std::vector<int64_t> rs = RowMajorStrides(rd);
  const std::vector<int64_t> us = RowMajorStrides(ud);
  const std::vector<int64_t> is = RowMajorStrides(sd);
  const int64_t index_step = ivd < s ? is[ivd] : 0;
  const size_t nb = batch_dims.size();
  const size_t nw = window_dims.size();
  // Which update scatter position feeds each input batching dim.
  std::vector<int64_t> batching_pos(dn->input_batching_dims.size());
  for (size_t i = 0; i < batching_pos.size(); ++i) {
    int64_t d_start = dn->scatter_indices_batching_dims[i];
    batching_pos[i] = d_start < ivd ? d_start : d_start - 1;
  }

  std::vector<int64_t> pos(nb, 0), start(static_cast<size_t>(r)), lo(nw), size(nw), wpos(nw);
  std::vector<int64_t> w_dst(nw), w_src(nw);
  for (size_t j = 0; j < nw; ++j) {
    w_dst[j] = rs[window_dims[j]];
    w_src[j] = us[dn->update_window_dims[j]];
  }
  std::vector<const std::byte*> update_bytes(n);
  std::vector<std::byte*> result_bytes(n);
  std::vector<size_t> eb(n);
  for (size_t i = 0; i < n; ++i) {
    update_bytes[i] = updates[i].bytes();
    result_bytes[i] = results[i].bytes();
    eb[i] = ElementBytes(results[i].type());
  }
  std::vector<Tensor> args(2 * n);

  // Applies the body to `count` elements from (dst, src) on, strides ds / ss.
  auto apply_run = [&](int64_t dst, int64_t src, int64_t count, int64_t ds, int64_t ss) -> Status {
    if (native) {
      for (size_t i = 0; i < n; ++i) {
        if (fns[i] == nullptr) continue;
        const int64_t b = static_cast<int64_t>(eb[i]);
        fns[i](result_bytes[i] + dst * b, update_bytes[i] + src * b, count, ds, ss);
      }
      return OkStatus();
    }
    for (int64_t e = 0; e < count; ++e) {
      const int64_t de = dst + e * ds, se = src + e * ss;
      for (size_t i = 0; i < n; ++i) {
        BERTH_ASSIGN_OR_RETURN(args[i], ScalarAt(results[i], de));
        BERTH_ASSIGN_OR_RETURN(args[n + i], ScalarAt(updates[i], se));
      }
      BERTH_ASSIGN_OR_RETURN(std::vector<Tensor> values, call.RunRegion(0, args));
      if (values.size() != n) {
        return InvalidArgumentError("update_computation returned " + std::to_string(values.size()) +
                                    " values, expected " + std::to_string(n));
      }
      for (size_t i = 0; i < n; ++i) {
        if (!values[i].is_tensor() || values[i].rank() != 0 || values[i].type() != results[i].type()) {
          return InvalidArgumentError("update_computation must return " + results[i].TypeString() +
                                      " element values, returned " + values[i].TypeString());
        }
        std::memcpy(result_bytes[i] + de * static_cast<int64_t>(eb[i]), values[i].bytes(), eb[i]);
      }
    }
    return OkStatus();
  };

  // ---- every update scatter position, in row-major order
  int64_t num_positions = 1;
  for (size_t k = 0; k < nb; ++k) num_positions *= ud[update_scatter_dims[k]];
  // Index values beyond +-2^48 are out of range for any tensor; bounding
  // them keeps the offsets below from overflowing.
  constexpr int64_t kIndexBound = int64_t{1} << 48;
  for (int64_t p = 0; p < num_positions; ++p) {
    int64_t update_off = 0, index_off = 0;
    for (size_t k = 0; k < nb; ++k) {
      update_off += pos[k] * us[update_scatter_dims[k]];
      index_off += pos[k] * is[batch_dims[k]];
    }
    std::fill(start.begin(), start.end(), 0);
    for (size_t j = 0; j < dn->scatter_dims_to_operand_dims.size(); ++j) {
      int64_t v = index_values[static_cast<size_t>(index_off + static_cast<int64_t>(j) * index_step)];
      start[dn->scatter_dims_to_operand_dims[j]] = std::clamp(v, -kIndexBound, kIndexBound);
    }
    for (size_t i = 0; i < batching_pos.size(); ++i) {
      start[dn->input_batching_dims[i]] = pos[static_cast<size_t>(batching_pos[i])];
    }
    // Clip the window to the result; skip it when nothing is left.
    bool inside = true;
    int64_t dst = 0, src = update_off;
    for (int64_t d = 0; d < r && inside; ++d) {
      if (not_window[d]) inside = start[d] >= 0 && start[d] < rd[d];
      dst += start[d] * rs[d];
    }
    for (size_t j = 0; j < nw && inside; ++j) {
      int64_t d = window_dims[j];
      lo[j] = std::max<int64_t>(0, -start[d]);
      int64_t hi = std::min<int64_t>(ud[dn->update_window_dims[j]], rd[d] - start[d]);
      size[j] = hi - lo[j];
      inside = size[j] > 0;
      dst += lo[j] * w_dst[j];
      src += lo[j] * w_src[j];
    }
    if (inside) {
      // Walk the clipped window, inner runs along its last dimension.
      if (nw == 0) {
        BERTH_RETURN_IF_ERROR(apply_run(dst, src, 1, 1, 1));
      } else {
        std::fill(wpos.begin(), wpos.end(), 0);
        int64_t runs = 1;
        for (size_t j = 0; j + 1 < nw; ++j) runs *= size[j];
        int64_t wd = dst, ws = src;
        for (int64_t run = 0; run < runs; ++run) {
          BERTH_RETURN_IF_ERROR(apply_run(wd, ws, size[nw - 1], w_dst[nw - 1], w_src[nw - 1]));
          for (size_t j = nw - 1; j-- > 0;) {
            wd += w_dst[j];
            ws += w_src[j];
            if (++wpos[j] < size[j]) break;
            wpos[j] = 0;
            wd -= w_dst[j] * size[j];
            ws -= w_src[j] * size[j];
          }
        }
      }
    }
    for (size_t k = nb; k-- > 0;) {
      if (++pos[k] < ud[update_scatter_dims[k]]) break;
      pos[k] = 0;
    }
  }
  for (Tensor& t : results) call.results.push_back(std::move(t));
  return OkStatus();
}

}  // namespace

void RegisterScatterKernels(KernelRegistry& registry) {
  registry.Register(OpKind::kScatter, Scatter);
}

}  // namespace berth::cpu
