// CHLO ops that are not plain elementwise block functions: the
// broadcasting binary ops (chlo.broadcast_*) when an operand needs
// broadcasting, chlo.top_k, chlo.constant_like and chlo.scan
// (chlo.ragged_dot is kernels_ragged_dot.cc's). The elementwise CHLO ops
// (erf, lgamma, next_after, ...) are block functions of the elementwise
// family (kernels_elementwise_special.cc).
#include <algorithm>
#include <bit>
#include <cstring>
#include <numeric>

#include "interpreter/data_movement.hpp"
#include "interpreter/element_types.hpp"
#include "interpreter/elementwise.hpp"
#include "interpreter/elementwise_blocks.hpp"
#include "interpreter/parallel.hpp"
#include "interpreter/strided_copy.hpp"

namespace berth::cpu {
namespace {

using stablehlo::OpKind;
using stablehlo::Operation;

// The broadcast of every operand to the result's shape, then the StableHLO
// op's block function over equal shapes (one FusedElementwise step).
Status ChloBroadcast(KernelCall& call) {
  const Operation& op = call.op;
  stablehlo::Type result_type = op.result(0)->type();
  BERTH_RETURN_IF_ERROR(CheckSupported(result_type.element_type(), op.name()));
  const size_t rank = static_cast<size_t>(result_type.rank());
  // The result's dims: each the size of the operand dims mapped to it that
  // are not 1 (they agree), else 1.
  std::vector<std::vector<int64_t>> mappings(call.operands.size());
  std::vector<int64_t> dims(rank, 1);
  for (size_t i = 0; i < call.operands.size(); ++i) {
    const Tensor& in = call.operands[i];
    BERTH_RETURN_IF_ERROR(CheckSupported(in.type(), op.name()));
    mappings[i] = op.chlo_broadcast_dimensions(i);
    if (!in.is_tensor() || mappings[i].size() != static_cast<size_t>(in.rank())) {
      return InvalidArgumentError("operand #" + std::to_string(i) + " " + in.TypeString() +
                                  " does not broadcast to the result " + result_type.ToString());
    }
    for (size_t k = 0; k < mappings[i].size(); ++k) {
      int64_t size = in.dims()[k];
      int64_t& target = dims[static_cast<size_t>(mappings[i][k])];
      if (size == 1 || size == target) continue;
      if (target != 1) {
        return InvalidArgumentError("operand #" + std::to_string(i) + " " + in.TypeString() +
                                    " does not broadcast with the others: dimension " +
                                    std::to_string(k) + " is " + std::to_string(size) +
                                    ", another operand has " + std::to_string(target));
      }
      target = size;
    }
  }
  BERTH_RETURN_IF_ERROR(CheckResultDims(call, 0, dims));
  std::vector<int64_t> out_strides = RowMajorStrides(dims);
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < call.operands.size(); ++i) {
    const Tensor& in = call.operands[i];
    if (in.dims() == dims) {
      inputs.push_back(in);
      continue;
    }
    std::vector<int64_t> in_strides = RowMajorStrides(in.dims());
    std::vector<int64_t> src_strides(rank, 0);
    for (size_t k = 0; k < mappings[i].size(); ++k) {
      if (in.dims()[k] != 1) src_strides[static_cast<size_t>(mappings[i][k])] = in_strides[k];
    }
    BERTH_ASSIGN_OR_RETURN(Tensor expanded, Tensor::Allocate(in.type(), dims));
    StridedCopy copy(ElementBytes(in.type()), dims, out_strides, src_strides);
    copy.RunParallel(call.ctx.pool(), expanded.bytes(), in.bytes());
    inputs.push_back(std::move(expanded));
  }
  BERTH_ASSIGN_OR_RETURN(ElementwiseNode node, MakeElementwiseNode(op));
  // Every input has the result's shape now, rank-0 operands included.
  node.scalar_arg = {};
  std::vector<FusedElementwise::Node> nodes(1);
  nodes[0].node = node;
  for (int i = 0; i < node.num_args; ++i) nodes[0].args[static_cast<size_t>(i)] = -1 - i;
  FusedElementwise step(std::move(nodes), node.num_args, dims);
  BERTH_ASSIGN_OR_RETURN(Tensor out, step.Run(inputs, call.ctx.pool()));
  call.results.push_back(std::move(out));
  return OkStatus();
}

// A key ordering T as IEEE totalOrder (-NaN < -inf < ... < -0 < +0 < ...
// < +inf < +NaN) for floats, by value otherwise.
template <typename T>
auto OrderKey(T value) {
  if constexpr (kIsFloat<T>) {
    using Bits = std::conditional_t<sizeof(T) == 2, int16_t, std::conditional_t<sizeof(T) == 4, int32_t, int64_t>>;
    using UBits = std::make_unsigned_t<Bits>;
    Bits bits = std::bit_cast<Bits>(value);
    // Negative floats order backwards: flip every bit but the sign.
    return bits < 0 ? static_cast<Bits>(bits ^ static_cast<Bits>(~(UBits(1) << (sizeof(T) * 8 - 1))))
                    : bits;
  } else {
    return value;
  }
}

// chlo.top_k: the k largest elements of each row (the last dimension) in
// descending order, and their indices; equal elements in index order. Floats
// order as totalOrder, so NaNs come first and -0 after +0.
Status TopK(KernelCall& call) {
  const Tensor& in = call.operands[0];
  std::optional<int64_t> k = call.op.GetInt("k");
  if (!in.is_tensor() || in.rank() < 1) return InvalidArgumentError("operand must have rank >= 1");
  const int64_t n = in.dims().back();
  if (!k || *k < 0 || *k > n) {
    return InvalidArgumentError("k = " + std::to_string(k.value_or(-1)) + " is outside [0, " +
                                std::to_string(n) + "]");
  }
  std::vector<int64_t> out_dims = in.dims();
  out_dims.back() = *k;
  BERTH_ASSIGN_OR_RETURN(Tensor values, AllocateResult(call, 0, out_dims));
  BERTH_ASSIGN_OR_RETURN(Tensor indices, AllocateResult(call, 1, out_dims));
  const ElementType index_type = indices.type();
  const int64_t rows = n == 0 ? 0 : in.num_elements() / n;
  const int64_t kk = *k;
  Status status = DispatchElementType(in.type(), "chlo.top_k", [&]<typename T>() -> Status {
    return DispatchElementType(index_type, "chlo.top_k", [&]<typename I>() -> Status {
      if constexpr (!kIsInteger<I>) {
        return InvalidArgumentError("indices must be integers, are " + indices.TypeString());
      } else {
        const T* src = in.data<T>();
        T* out_values = values.data<T>();
        I* out_indices = indices.data<I>();
        ParallelFor(call.ctx.pool(), rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(n, 1)),
                    [&](int64_t begin, int64_t end) {
          std::vector<int64_t> order(static_cast<size_t>(n));
          using Key = decltype(OrderKey(T{}));
          std::vector<Key> keys(static_cast<size_t>(n));
          for (int64_t r = begin; r < end; ++r) {
            const T* row = src + r * n;
            for (int64_t j = 0; j < n; ++j) keys[static_cast<size_t>(j)] = OrderKey(row[j]);
            std::iota(order.begin(), order.end(), int64_t{0});
            // Larger first, the lower index first among equals: a strict
            // total order, so partial_sort's result is unique.
            auto before = [&](int64_t a, int64_t b) {
              Key ka = keys[static_cast<size_t>(a)], kb = keys[static_cast<size_t>(b)];
              return ka > kb || (ka == kb && a < b);
            };
            std::partial_sort(order.begin(), order.begin() + kk, order.end(), before);
            for (int64_t j = 0; j < kk; ++j) {
              int64_t index = order[static_cast<size_t>(j)];
              out_values[r * kk + j] = row[index];
              out_indices[r * kk + j] = static_cast<I>(index);
            }
          }
        });
        return OkStatus();
      }
    });
  });
  BERTH_RETURN_IF_ERROR(status);
  call.results.push_back(std::move(values));
  call.results.push_back(std::move(indices));
  return OkStatus();
}

// chlo.constant_like: `value` converted to the result's element type (as
// stablehlo.convert would), in every element of the operand's shape.
Status ConstantLike(KernelCall& call) {
  const Tensor& like = call.operands[0];
  BERTH_ASSIGN_OR_RETURN(Tensor out, AllocateResult(call, 0, like.dims()));
  const stablehlo::Attribute* value = call.op.attr("value");
  if (value == nullptr) return InvalidArgumentError("no 'value' attribute");
  const size_t element_bytes = ElementBytes(out.type());
  std::vector<std::byte> element(element_bytes);
  if (const auto* dense = value->dyn_cast<stablehlo::DenseElementsAttr>()) {
    if (!dense->is_splat() || dense->element_type() != out.type() ||
        !dense->CopyTo(element.data(), element_bytes)) {
      return InvalidArgumentError("'value' must be a splat of the result's element type");
    }
  } else {
    Status status = DispatchElementType(out.type(), "chlo.constant_like", [&]<typename T>() -> Status {
      T v;
      if (const auto* f = value->dyn_cast<stablehlo::FloatAttr>()) {
        v = elementwise::ConvertValue<T, double>(f->value());
      } else if (const auto* i = value->dyn_cast<stablehlo::IntegerAttr>()) {
        v = stablehlo::IsUnsignedInteger(i->type())
                ? elementwise::ConvertValue<T, uint64_t>(i->unsigned_value())
                : elementwise::ConvertValue<T, int64_t>(i->value());
      } else if (const auto* b = value->dyn_cast<stablehlo::BoolAttr>()) {
        v = elementwise::ConvertValue<T, bool>(b->value());
      } else {
        return InvalidArgumentError("'value' must be a number, a boolean or a splat dense<...>");
      }
      std::memcpy(element.data(), &v, element_bytes);
      return OkStatus();
    });
    BERTH_RETURN_IF_ERROR(status);
  }
  FillElementsParallel(call.ctx.pool(), out.bytes(), element.data(), element_bytes,
                       out.num_elements());
  call.results.push_back(std::move(out));
  return OkStatus();
}

// Rows of the slice at `index` along `dim` of `t` (dims before `dim` the
// outer count, after it the row): calls copy(slice offset, t offset, bytes)
// for each.
template <typename F>
void ForEachSliceRow(const Tensor& t, int64_t dim, int64_t index, F copy) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= t.dims()[static_cast<size_t>(d)];
  for (int64_t d = dim + 1; d < t.rank(); ++d) inner *= t.dims()[static_cast<size_t>(d)];
  const int64_t size = t.dims()[static_cast<size_t>(dim)];
  const size_t row = static_cast<size_t>(inner) * ElementBytes(t.type());
  for (int64_t o = 0; o < outer; ++o) copy(static_cast<size_t>(o) * row, static_cast<size_t>(o * size + index) * row, row);
}

std::vector<int64_t> DropDim(const std::vector<int64_t>& dims, int64_t dim) {
  std::vector<int64_t> out = dims;
  out.erase(out.begin() + dim);
  return out;
}

// chlo.scan: the body runs once per position along `dimension` (from the
// end when is_reverse), on that slice of each input and the carries; each
// output collects the body's slices at their positions, and the carries
// end as the body last left them.
Status Scan(KernelCall& call) {
  std::span<const int64_t> segments = call.op.GetI64Array("operandSegmentSizes");
  std::optional<int64_t> dim = call.op.GetInt("dimension");
  if (segments.size() != 2 || !dim) return InvalidArgumentError("no operandSegmentSizes or dimension");
  const size_t num_inputs = static_cast<size_t>(segments[0]);
  const size_t num_inits = static_cast<size_t>(segments[1]);
  const size_t num_outputs = call.op.num_results() - num_inits;
  const bool reverse = call.op.GetBool("is_reverse", false);
  // The scan's length: the inputs' size along `dimension`, else the outputs'.
  int64_t length = -1;
  for (size_t i = 0; i < num_inputs; ++i) {
    const Tensor& in = call.operands[i];
    BERTH_RETURN_IF_ERROR(CheckSupported(in.type(), "chlo.scan"));
    int64_t size = in.dims()[static_cast<size_t>(*dim)];
    if (length >= 0 && size != length) {
      return InvalidArgumentError("the inputs differ in size along dimension " + std::to_string(*dim));
    }
    length = size;
  }
  if (length < 0 && num_outputs > 0) {
    length = call.op.result(0)->type().dim(*dim);
    if (length == stablehlo::kDynamic) return InvalidArgumentError("the scan's length is not known");
  }
  if (length < 0) length = 0;
  std::vector<Tensor> carries(call.operands.begin() + static_cast<std::ptrdiff_t>(num_inputs),
                              call.operands.end());
  std::vector<Tensor> outputs(num_outputs);
  for (int64_t step = 0; step < length; ++step) {
    const int64_t index = reverse ? length - 1 - step : step;
    std::vector<Tensor> args;
    for (size_t i = 0; i < num_inputs; ++i) {
      const Tensor& in = call.operands[i];
      BERTH_ASSIGN_OR_RETURN(Tensor slice, Tensor::Allocate(in.type(), DropDim(in.dims(), *dim)));
      ForEachSliceRow(in, *dim, index, [&](size_t at, size_t from, size_t bytes) {
        std::memcpy(slice.bytes() + at, in.bytes() + from, bytes);
      });
      args.push_back(std::move(slice));
    }
    args.insert(args.end(), carries.begin(), carries.end());
    BERTH_ASSIGN_OR_RETURN(std::vector<Tensor> results, call.RunRegion(0, args));
    if (results.size() != num_outputs + num_inits) {
      return InvalidArgumentError("the body returned " + std::to_string(results.size()) +
                                  " values, expected " + std::to_string(num_outputs + num_inits));
    }
    for (size_t j = 0; j < num_outputs; ++j) {
      const Tensor& slice = results[j];
      if (!slice.is_tensor()) return InvalidArgumentError("the body's outputs must be tensors");
      if (step == 0) {
        std::vector<int64_t> dims = slice.dims();
        dims.insert(dims.begin() + *dim, length);
        BERTH_ASSIGN_OR_RETURN(outputs[j], AllocateResult(call, j, dims));
      }
      if (slice.type() != outputs[j].type() || DropDim(outputs[j].dims(), *dim) != slice.dims()) {
        return InvalidArgumentError("output #" + std::to_string(j) + " changed shape during the scan");
      }
      Tensor& out = outputs[j];
      ForEachSliceRow(out, *dim, index, [&](size_t from, size_t at, size_t bytes) {
        std::memcpy(out.bytes() + at, slice.bytes() + from, bytes);
      });
    }
    carries.assign(results.begin() + static_cast<std::ptrdiff_t>(num_outputs), results.end());
  }
  if (length == 0) {
    for (size_t j = 0; j < num_outputs; ++j) {
      stablehlo::Type type = call.op.result(j)->type();
      BERTH_ASSIGN_OR_RETURN(outputs[j], AllocateResult(call, j, std::vector<int64_t>(type.shape().begin(), type.shape().end())));
    }
  }
  for (Tensor& t : outputs) call.results.push_back(std::move(t));
  for (Tensor& t : carries) call.results.push_back(std::move(t));
  return OkStatus();
}

constexpr OpKind kBroadcastKinds[] = {
    OpKind::kChloBroadcastAdd, OpKind::kChloBroadcastAnd, OpKind::kChloBroadcastAtan2,
    OpKind::kChloBroadcastCompare, OpKind::kChloBroadcastComplex, OpKind::kChloBroadcastDivide,
    OpKind::kChloBroadcastMax, OpKind::kChloBroadcastMin, OpKind::kChloBroadcastMultiply,
    OpKind::kChloBroadcastNextAfter, OpKind::kChloBroadcastOr, OpKind::kChloBroadcastPolygamma,
    OpKind::kChloBroadcastPower, OpKind::kChloBroadcastRemainder, OpKind::kChloBroadcastSelect,
    OpKind::kChloBroadcastShiftLeft, OpKind::kChloBroadcastShiftRightArithmetic,
    OpKind::kChloBroadcastShiftRightLogical, OpKind::kChloBroadcastSubtract,
    OpKind::kChloBroadcastXor, OpKind::kChloBroadcastZeta,
};

}  // namespace

bool IsChloBroadcast(OpKind kind) {
  return std::find(std::begin(kBroadcastKinds), std::end(kBroadcastKinds), kind) !=
         std::end(kBroadcastKinds);
}

void RegisterChloKernels(KernelRegistry& registry) {
  for (OpKind kind : kBroadcastKinds) registry.Register(kind, ChloBroadcast);
  registry.Register(OpKind::kChloTopK, TopK);
  registry.Register(OpKind::kChloConstantLike, ConstantLike);
  registry.Register(OpKind::kChloScan, Scan);
}

}  // namespace berth::cpu
