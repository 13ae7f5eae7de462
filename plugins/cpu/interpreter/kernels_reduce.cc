// stablehlo.reduce and stablehlo.map.
//
// reduce: every result element folds its slice of the inputs into the init
// values, `acc = body(acc, x)`, with the elements taken in lexicographic
// index order and the init values used once, first (a schedule the spec
// allows; non-commutative bodies therefore see acc on the left and the
// elements in order). Bodies that are one binary op of their arguments run as
// typed loops (isa/reduce_loops.cc, compiled per ISA variant); there float
// sums and products use eight partial results (the spec leaves the
// association implementation-defined), f16/bf16 round after every step as
// the body would, and integer results are exact (wrapping). Inputs whose element type is narrower than the body's
// (promotable, e.g. i8 into an i32 body) are converted first.
//
// map: result[i] = body(inputs[0][i], ..., inputs[N-1][i]), run per element.
#include <algorithm>

#include "interpreter/reduction.hpp"
#include "isa/isa.hpp"

namespace berth::cpu {
namespace {

using stablehlo::OpKind;

// The kept (reduced == 0) or reduced dims of an input with `dims`, with the
// input's (row-major) strides.
Odometer Walk(std::span<const int64_t> dims, const std::vector<char>& reduced, bool which) {
  std::vector<int64_t> all_strides = RowMajorStrides(dims);
  std::vector<int64_t> sizes, strides;
  for (size_t d = 0; d < dims.size(); ++d) {
    if ((reduced[d] != 0) != which) continue;
    sizes.push_back(dims[d]);
    strides.push_back(all_strides[d]);
  }
  return Odometer(std::move(sizes), std::move(strides));
}

// The body run per element: N accumulators, N elements per step.
Status GenericReduce(KernelCall& call, std::span<const Tensor> inputs,
                     std::span<const Tensor> inits, const std::vector<char>& reduced_dims,
                     std::vector<Tensor>& outs) {
  const size_t n = inputs.size();
  const int64_t num_out = outs[0].num_elements();
  Odometer kept = Walk(inputs[0].dims(), reduced_dims, false);
  Odometer reduced = Walk(inputs[0].dims(), reduced_dims, true);
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

// A sum of complex numbers: the real and imaginary parts are sums of
// their own, so the typed float loops add each part (the input seen as
// parts, a trailing dimension of 2 that is kept), starting from -0 (the
// identity of +, signed zeros included); the init value is added last.
Status SumComplexByParts(KernelCall& call, const Tensor& in, const Tensor& init,
                         const std::vector<char>& reduced, Tensor& out) {
  const ElementType part = stablehlo::ComplexComponentType(in.type());
  std::vector<int64_t> dims = in.dims();
  dims.push_back(2);
  std::vector<char> reduced_parts = reduced;
  reduced_parts.push_back(0);
  const double negative_zero = -0.0;
  const float negative_zero_f = -0.0f;
  isa::ReduceLoop loop;
  loop.reducer = Reducer::kAdd;
  loop.type = part;
  loop.in = in.bytes();
  loop.out = out.bytes();
  loop.init = part == ElementType::kF64 ? static_cast<const void*>(&negative_zero)
                                        : static_cast<const void*>(&negative_zero_f);
  loop.dims = dims;
  loop.reduced = reduced_parts;
  BERTH_RETURN_IF_ERROR(isa::Active().reduce(loop, call.ctx.pool()));
  auto add_init = [&]<typename T>() {
    const T start = init.data<T>()[0];
    T* values = out.data<T>();
    for (int64_t i = 0; i < out.num_elements(); ++i) values[i] = start + values[i];
  };
  if (part == ElementType::kF64)
    add_init.template operator()<complex128>();
  else
    add_init.template operator()<complex64>();
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
  std::vector<char> reduced(in_dims.size(), 0);
  for (int64_t d : dims_attr) {
    if (d < 0 || d >= static_cast<int64_t>(in_dims.size())) {
      return InvalidArgumentError("dimension " + std::to_string(d) + " is out of range");
    }
    reduced[static_cast<size_t>(d)] = 1;
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
  Reducer reducer = n == 1 ? DetectReducer(op.region(0)) : Reducer::kNone;
  if (n == 1 && IsComplexAddition(op.region(0))) {
    BERTH_RETURN_IF_ERROR(SumComplexByParts(call, inputs[0], call.operands[1], reduced, outs[0]));
  } else if (reducer != Reducer::kNone) {
    // The typed loops of the selected ISA variant (isa/reduce_loops.hpp).
    isa::ReduceLoop loop;
    loop.reducer = reducer;
    loop.type = inputs[0].type();
    loop.in = inputs[0].bytes();
    loop.out = outs[0].bytes();
    loop.init = call.operands[1].bytes();
    loop.dims = in_dims;
    loop.reduced = reduced;
    BERTH_RETURN_IF_ERROR(isa::Active().reduce(loop, call.ctx.pool()));
  } else {
    BERTH_RETURN_IF_ERROR(GenericReduce(call, inputs, call.operands.subspan(n), reduced, outs));
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
  registry.Register({{OpKind::kReduce, Reduce}, {OpKind::kMap, Map}});
}

}  // namespace berth::cpu
