// stablehlo.reduce and stablehlo.map.
//
// reduce: every result element folds its slice of the inputs into the init
// values, `acc = body(acc, x)`, with the elements taken in lexicographic
// index order and the init values used once, first (a schedule the spec
// allows; non-commutative bodies therefore see acc on the left and the
// elements in order). Bodies that are one binary op of their arguments run as
// typed loops; there float sums and products use several partial results
// (the spec leaves the association implementation-defined), f16/bf16 round
// after every step as the body would, and integer results are exact
// (wrapping). Inputs whose element type is narrower than the body's
// (promotable, e.g. i8 into an i32 body) are converted first.
//
// map: result[i] = body(inputs[0][i], ..., inputs[N-1][i]), run per element.
#include <algorithm>

#include "interpreter/parallel.hpp"
#include "interpreter/reduction.hpp"

namespace berth::cpu {
namespace {

using stablehlo::OpKind;

// Below this many input elements a reduction runs on the calling thread.
constexpr int64_t kMinParallelElements = 1 << 15;

// Input dims after merging neighbours that are both kept or both reduced
// (dims of size 1 dropped); strides are the input's (row-major).
struct MergedDims {
  std::vector<int64_t> sizes;
  std::vector<bool> reduced;
  std::vector<int64_t> strides;
};

MergedDims Merge(std::span<const int64_t> dims, const std::vector<bool>& reduced) {
  MergedDims m;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) continue;
    if (!m.sizes.empty() && m.reduced.back() == reduced[d]) {
      m.sizes.back() *= dims[d];
    } else {
      m.sizes.push_back(dims[d]);
      m.reduced.push_back(reduced[d]);
    }
  }
  if (m.sizes.empty()) {  // rank 0 or all ones: one element, kept
    m.sizes.push_back(1);
    m.reduced.push_back(false);
  }
  m.strides = RowMajorStrides(m.sizes);
  return m;
}

// The kept (reduced == false) or reduced dims of `m`, optionally without the
// last one.
Odometer Walk(const MergedDims& m, bool reduced, bool drop_last) {
  std::vector<int64_t> sizes, strides;
  size_t end = drop_last ? m.sizes.size() - 1 : m.sizes.size();
  for (size_t d = 0; d < end; ++d) {
    if (m.reduced[d] != reduced) continue;
    sizes.push_back(m.sizes[d]);
    strides.push_back(m.strides[d]);
  }
  return Odometer(std::move(sizes), std::move(strides));
}

// Folds n contiguous elements into acc.
template <Reducer R, typename T>
T FoldRow(const T* p, int64_t n, T acc) {
  constexpr bool kLanes = !std::is_same_v<T, half> && !std::is_same_v<T, bfloat16> &&
                          !std::is_same_v<T, bool>;
  constexpr int64_t kWidth = 8;
  if constexpr (kLanes) {
    if (n >= 2 * kWidth) {
      T lane[kWidth];
      for (int64_t j = 0; j < kWidth; ++j) lane[j] = p[j];
      int64_t i = kWidth;
      for (; i + kWidth <= n; i += kWidth) {
        for (int64_t j = 0; j < kWidth; ++j) lane[j] = Combine<R, T>(lane[j], p[i + j]);
      }
      T part = lane[0];
      for (int64_t j = 1; j < kWidth; ++j) part = Combine<R, T>(part, lane[j]);
      for (; i < n; ++i) part = Combine<R, T>(part, p[i]);
      return Combine<R, T>(acc, part);
    }
  }
  for (int64_t i = 0; i < n; ++i) acc = Combine<R, T>(acc, p[i]);
  return acc;
}

template <Reducer R, typename T>
void FastReduce(const T* in, T* out, T init, const MergedDims& m, int64_t num_out,
                int64_t num_in, ThreadPool* pool) {
  if (num_out == 0) return;
  if (num_in == 0) {
    std::fill(out, out + num_out, init);
    return;
  }
  const int64_t per_out = num_in / num_out;
  const int64_t last = m.sizes.back();
  if (m.reduced.back()) {
    // The innermost dim is reduced: each result folds contiguous rows.
    Odometer kept_proto = Walk(m, false, false);
    Odometer rows_proto = Walk(m, true, true);
    auto body = [&](int64_t begin, int64_t end) {
      Odometer kept = kept_proto;
      Odometer rows = rows_proto;
      kept.Seek(begin);
      for (int64_t o = begin; o < end; ++o, kept.Next()) {
        T acc = init;
        rows.Seek(0);
        for (int64_t r = 0; r < rows.count(); ++r, rows.Next()) {
          acc = FoldRow<R, T>(in + kept.offset() + rows.offset(), last, acc);
        }
        out[o] = acc;
      }
    };
    int64_t min_chunk = std::max<int64_t>(1, kMinParallelElements / std::max<int64_t>(1, per_out));
    if (num_in < kMinParallelElements) {
      body(0, num_out);
    } else {
      ParallelFor(pool, num_out, min_chunk, body);
    }
    return;
  }
  // The innermost dim is kept: results come in contiguous groups of `last`,
  // each updated row by row (vectorizable). Work is split over groups and
  // column ranges.
  Odometer groups_proto = Walk(m, false, true);
  Odometer reduced_proto = Walk(m, true, false);
  const int64_t num_groups = num_out / last;
  constexpr int64_t kColumnChunk = 1024;
  const int64_t column_chunks = (last + kColumnChunk - 1) / kColumnChunk;
  auto body = [&](int64_t begin, int64_t end) {
    Odometer group = groups_proto;
    Odometer rows = reduced_proto;
    for (int64_t task = begin; task < end; ++task) {
      int64_t g = task / column_chunks;
      int64_t c0 = (task % column_chunks) * kColumnChunk;
      int64_t c1 = std::min(last, c0 + kColumnChunk);
      group.Seek(g);
      T* o = out + g * last;
      std::fill(o + c0, o + c1, init);
      rows.Seek(0);
      for (int64_t r = 0; r < rows.count(); ++r, rows.Next()) {
        const T* p = in + group.offset() + rows.offset();
        for (int64_t c = c0; c < c1; ++c) o[c] = Combine<R, T>(o[c], p[c]);
      }
    }
  };
  int64_t tasks = num_groups * column_chunks;
  if (num_in < kMinParallelElements) {
    body(0, tasks);
  } else {
    int64_t per_task = per_out * std::min(last, kColumnChunk);
    ParallelFor(pool, tasks, std::max<int64_t>(1, kMinParallelElements / per_task), body);
  }
}

// The body run per element: N accumulators, N elements per step.
Status GenericReduce(KernelCall& call, std::span<const Tensor> inputs,
                     std::span<const Tensor> inits, const MergedDims& m,
                     std::vector<Tensor>& outs) {
  const size_t n = inputs.size();
  const int64_t num_out = outs[0].num_elements();
  Odometer kept = Walk(m, false, false);
  Odometer reduced = Walk(m, true, false);
  std::vector<Tensor> args(2 * n);
  for (int64_t o = 0; o < num_out; ++o, kept.Next()) {
    for (size_t i = 0; i < n; ++i) args[i] = inits[i];
    reduced.Seek(0);
    for (int64_t r = 0; r < reduced.count(); ++r, reduced.Next()) {
      for (size_t i = 0; i < n; ++i) {
        BERTH_ASSIGN_OR_RETURN(args[n + i], ScalarAt(inputs[i], kept.offset() + reduced.offset()));
      }
      BERTH_ASSIGN_OR_RETURN(std::vector<Tensor> acc, call.RunRegion(0, args));
      if (acc.size() != n) return InternalError("the body returned the wrong number of values");
      for (size_t i = 0; i < n; ++i) args[i] = std::move(acc[i]);
    }
    for (size_t i = 0; i < n; ++i) BERTH_RETURN_IF_ERROR(StoreScalar(args[i], outs[i], o));
  }
  return OkStatus();
}

Status Reduce(KernelCall& call) {
  const stablehlo::Operation& op = call.op;
  const size_t n = call.operands.size() / 2;
  if (n == 0 || call.operands.size() != 2 * n || op.num_regions() != 1) {
    return InvalidArgumentError("reduce takes N inputs, N init values and a body");
  }
  const stablehlo::Block& body = op.region(0).entry_block();
  std::span<const int64_t> dims_attr = op.GetI64Array("dimensions");
  std::span<const int64_t> in_dims = call.operands[0].dims();
  std::vector<bool> reduced(in_dims.size(), false);
  for (int64_t d : dims_attr) {
    if (d < 0 || d >= static_cast<int64_t>(in_dims.size())) {
      return InvalidArgumentError("dimension " + std::to_string(d) + " is out of range");
    }
    reduced[static_cast<size_t>(d)] = true;
  }
  std::vector<int64_t> out_dims;
  for (size_t d = 0; d < in_dims.size(); ++d) {
    if (!reduced[d]) out_dims.push_back(in_dims[d]);
  }

  // Inputs in the body's element types (promotable inputs are widened).
  std::vector<Tensor> inputs(n);
  std::vector<Tensor> outs(n);
  for (size_t i = 0; i < n; ++i) {
    ElementType type = body.argument(i)->type().element_type();
    if (!IsSupportedElementType(type)) return UnsupportedElementType(type, "reduce");
    if (call.operands[i].dims() != call.operands[0].dims()) {
      return InvalidArgumentError("inputs must have the same shape");
    }
    if (call.operands[n + i].type() != type || call.operands[n + i].num_elements() != 1) {
      return InvalidArgumentError("init value #" + std::to_string(i) + " must be a tensor<" +
                                  std::string(stablehlo::ElementTypeName(type)) + ">");
    }
    BERTH_ASSIGN_OR_RETURN(inputs[i], ConvertTensor(call.operands[i], type, call.ctx.pool()));
    BERTH_ASSIGN_OR_RETURN(outs[i], Tensor::Allocate(type, out_dims));
  }
  MergedDims m = Merge(in_dims, reduced);
  Reducer reducer = n == 1 ? DetectReducer(op.region(0)) : Reducer::kNone;
  if (reducer != Reducer::kNone) {
    const Tensor& init = call.operands[1];
    Status status = DispatchElementType(inputs[0].type(), "reduce", [&]<typename T>() -> Status {
      DispatchReducer(reducer, [&]<Reducer R>() {
        FastReduce<R, T>(inputs[0].data<T>(), outs[0].data<T>(), init.data<T>()[0], m,
                         outs[0].num_elements(), inputs[0].num_elements(), call.ctx.pool());
      });
      return OkStatus();
    });
    BERTH_RETURN_IF_ERROR(status);
  } else {
    BERTH_RETURN_IF_ERROR(GenericReduce(call, inputs, call.operands.subspan(n), m, outs));
  }
  for (Tensor& out : outs) call.results.push_back(std::move(out));
  return OkStatus();
}

Status Map(KernelCall& call) {
  const stablehlo::Operation& op = call.op;
  if (call.operands.empty() || op.num_regions() != 1) {
    return InvalidArgumentError("map takes at least one input and a computation");
  }
  for (const Tensor& input : call.operands) {
    if (input.dims() != call.operands[0].dims()) {
      return InvalidArgumentError("inputs must have the same shape");
    }
  }
  ElementType type = op.result(0)->type().element_type();
  if (!IsSupportedElementType(type)) return UnsupportedElementType(type, "map");
  BERTH_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(type, call.operands[0].dims()));
  std::vector<Tensor> args(call.operands.size());
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    for (size_t k = 0; k < args.size(); ++k) {
      BERTH_ASSIGN_OR_RETURN(args[k], ScalarAt(call.operands[k], i));
    }
    BERTH_ASSIGN_OR_RETURN(std::vector<Tensor> result, call.RunRegion(0, args));
    if (result.size() != 1) return InternalError("the computation must return one value");
    BERTH_RETURN_IF_ERROR(StoreScalar(result[0], out, i));
  }
  call.results.push_back(std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterReduceKernels(KernelRegistry& registry) {
  registry.Register(OpKind::kReduce, Reduce);
  registry.Register(OpKind::kMap, Map);
}

}  // namespace berth::cpu
