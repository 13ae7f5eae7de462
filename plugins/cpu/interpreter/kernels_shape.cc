// Kernels that rearrange whole tensors: reshape, transpose, broadcasts,
// reverse, concatenate, pad and their dynamic forms, get_dimension_size.
// All of them move bytes (by element size) through StridedCopy, so every
// element type works alike.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "interpreter/data_movement.hpp"
#include "interpreter/element_types.hpp"
#include "interpreter/strided_copy.hpp"

namespace berth::cpu {
namespace {

using stablehlo::kDynamic;
using stablehlo::OpKind;

int64_t Product(std::span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// The operand's element type must be one the plugin computes with.
Result<const Tensor*> TensorOperand(const KernelCall& call, size_t i) {
  if (i >= call.operands.size() || !call.operands[i].is_tensor()) {
    return InvalidArgumentError("operand #" + std::to_string(i) + " must be a tensor");
  }
  BERTH_RETURN_IF_ERROR(CheckSupported(call.operands[i].type(), call.op.name()));
  return &call.operands[i];
}

// Values of a 1-D shape operand (output_shape, output_dimensions ...),
// each of which must be non-negative.
Result<std::vector<int64_t>> ShapeOperand(const KernelCall& call, size_t i, std::string_view what) {
  BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ReadIndices(call.operands[i], what));
  for (int64_t d : dims) {
    if (d < 0) return InvalidArgumentError(std::string(what) + " " + DimsString(dims) + " is negative");
  }
  return dims;
}

Status ReshapeTo(KernelCall& call, const Tensor& in, std::vector<int64_t> dims) {
  if (Product(dims) != in.num_elements()) {
    return InvalidArgumentError("cannot reshape " + in.TypeString() + " to " + DimsString(dims) +
                                ": the element counts differ");
  }
  BERTH_RETURN_IF_ERROR(CheckResultDims(call, 0, dims));
  call.results.push_back(in.Reshaped(std::move(dims)));
  return OkStatus();
}

Status Reshape(KernelCall& call) {
  BERTH_ASSIGN_OR_RETURN(const Tensor* in, TensorOperand(call, 0));
  stablehlo::Type type = call.op.result(0)->type();
  std::vector<int64_t> dims(type.shape().begin(), type.shape().end());
  // One dynamic dimension takes what the element count leaves.
  int64_t dynamic = std::count(dims.begin(), dims.end(), kDynamic);
  if (dynamic > 1) {
    return InvalidArgumentError("cannot infer more than one dynamic dimension of " + type.ToString());
  }
  if (dynamic == 1) {
    int64_t known = 1;
    for (int64_t d : dims) known *= d == kDynamic ? 1 : d;
    auto it = std::find(dims.begin(), dims.end(), kDynamic);
    *it = known == 0 ? 0 : in->num_elements() / known;
  }
  return ReshapeTo(call, *in, std::move(dims));
}

Status DynamicReshape(KernelCall& call) {
  BERTH_ASSIGN_OR_RETURN(const Tensor* in, TensorOperand(call, 0));
  BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ShapeOperand(call, 1, "output_shape"));
  return ReshapeTo(call, *in, std::move(dims));
}

Status Transpose(KernelCall& call) {
  BERTH_ASSIGN_OR_RETURN(const Tensor* in, TensorOperand(call, 0));
  std::span<const int64_t> perm = call.op.GetI64Array("permutation");
  const int64_t rank = in->rank();
  std::vector<bool> seen(static_cast<size_t>(rank));
  bool valid = static_cast<int64_t>(perm.size()) == rank;
  for (size_t i = 0; valid && i < perm.size(); ++i) {
    valid = perm[i] >= 0 && perm[i] < rank && !seen[perm[i]];
    if (valid) seen[perm[i]] = true;
  }
  if (!valid) {
    return InvalidArgumentError("permutation " + DimsString(perm) + " is not a permutation of " +
                                std::to_string(rank) + " dimensions");
  }
  std::vector<int64_t> in_strides = RowMajorStrides(in->dims());
  std::vector<int64_t> dims(perm.size()), src_strides(perm.size());
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) {
    dims[i] = in->dims()[perm[i]];
    src_strides[i] = in_strides[perm[i]];
    identity = identity && perm[i] == static_cast<int64_t>(i);
  }
  if (identity) {
    BERTH_RETURN_IF_ERROR(CheckResultDims(call, 0, dims));
    call.results.push_back(*in);
    return OkStatus();
  }
  BERTH_ASSIGN_OR_RETURN(Tensor out, AllocateResult(call, 0, dims));
  StridedCopy copy(ElementBytes(in->type()), dims, RowMajorStrides(dims), src_strides);
  copy.RunParallel(call.ctx.pool(), out.bytes(), in->bytes());
  call.results.push_back(std::move(out));
  return OkStatus();
}

// Broadcasts `in` into `out_dims`, operand dimension i going to result
// dimension `mapping[i]` (size 1 expands).
Status BroadcastInto(KernelCall& call, const Tensor& in, std::span<const int64_t> mapping,
                     std::vector<int64_t> out_dims) {
  const int64_t rank = static_cast<int64_t>(out_dims.size());
  if (static_cast<int64_t>(mapping.size()) != in.rank()) {
    return InvalidArgumentError("broadcast_dimensions " + DimsString(mapping) +
                                " must have one entry per operand dimension of " +
                                in.TypeString());
  }
  std::vector<int64_t> in_strides = RowMajorStrides(in.dims());
  std::vector<int64_t> src_strides(static_cast<size_t>(rank), 0);
  std::vector<bool> used(static_cast<size_t>(rank));
  for (size_t i = 0; i < mapping.size(); ++i) {
    int64_t d = mapping[i];
    if (d < 0 || d >= rank || used[d]) {
      return InvalidArgumentError("broadcast_dimensions " + DimsString(mapping) +
                                  " must be unique dimensions of the result " + DimsString(out_dims));
    }
    used[d] = true;
    int64_t size = in.dims()[i];
    if (size != 1 && size != out_dims[d]) {
      return InvalidArgumentError("operand dimension " + std::to_string(i) + " (size " +
                                  std::to_string(size) + ") cannot broadcast to result dimension " +
                                  std::to_string(d) + " (size " + std::to_string(out_dims[d]) + ")");
    }
    src_strides[d] = size == 1 ? 0 : in_strides[i];
  }
  if (out_dims == in.dims() && std::is_sorted(mapping.begin(), mapping.end())) {
    BERTH_RETURN_IF_ERROR(CheckResultDims(call, 0, out_dims));
    call.results.push_back(in);
    return OkStatus();
  }
  BERTH_ASSIGN_OR_RETURN(Tensor out, AllocateResult(call, 0, out_dims));
  StridedCopy copy(ElementBytes(in.type()), out_dims, RowMajorStrides(out_dims), src_strides);
  copy.RunParallel(call.ctx.pool(), out.bytes(), in.bytes());
  call.results.push_back(std::move(out));
  return OkStatus();
}

Status BroadcastInDim(KernelCall& call) {
  BERTH_ASSIGN_OR_RETURN(const Tensor* in, TensorOperand(call, 0));
  std::span<const int64_t> mapping = call.op.GetI64Array("broadcast_dimensions");
  stablehlo::Type type = call.op.result(0)->type();
  std::vector<int64_t> dims(type.shape().begin(), type.shape().end());
  // A dynamic result dimension fed by an operand dimension takes its size.
  for (size_t i = 0; i < mapping.size() && i < static_cast<size_t>(in->rank()); ++i) {
    if (mapping[i] >= 0 && mapping[i] < type.rank() && dims[mapping[i]] == kDynamic) {
      dims[mapping[i]] = in->dims()[i];
    }
  }
  if (std::count(dims.begin(), dims.end(), kDynamic) > 0) {
    return InvalidArgumentError("the result type " + type.ToString() +
                                " has a dynamic dimension no operand dimension gives");
  }
  return BroadcastInto(call, *in, mapping, std::move(dims));
}

Status DynamicBroadcastInDim(KernelCall& call) {
  BERTH_ASSIGN_OR_RETURN(const Tensor* in, TensorOperand(call, 0));
  BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ShapeOperand(call, 1, "output_dimensions"));
  return BroadcastInto(call, *in, call.op.GetI64Array("broadcast_dimensions"), std::move(dims));
}

// The legacy stablehlo.broadcast: `broadcast_sizes` dimensions in front.
Status Broadcast(KernelCall& call) {
  BERTH_ASSIGN_OR_RETURN(const Tensor* in, TensorOperand(call, 0));
  std::span<const int64_t> sizes = call.op.GetI64Array("broadcast_sizes");
  std::vector<int64_t> dims(sizes.begin(), sizes.end());
  std::vector<int64_t> mapping;
  for (int64_t i = 0; i < in->rank(); ++i) {
    mapping.push_back(static_cast<int64_t>(dims.size()));
    dims.push_back(in->dims()[i]);
  }
  for (int64_t s : sizes) {
    if (s < 0) return InvalidArgumentError("broadcast_sizes " + DimsString(sizes) + " is negative");
  }
  return BroadcastInto(call, *in, mapping, std::move(dims));
}

Status GetDimensionSize(KernelCall& call) {
  const Tensor& in = call.operands[0];
  std::optional<int64_t> dim = call.op.GetInt("dimension");
  if (!in.is_tensor() || !dim || *dim < 0 || *dim >= in.rank()) {
    return InvalidArgumentError("dimension is outside the operand's rank");
  }
  BERTH_ASSIGN_OR_RETURN(Tensor out, AllocateResult(call, 0, {}));
  if (out.type() != ElementType::kSI32) return InvalidArgumentError("the result must be tensor<i32>");
  int32_t size = static_cast<int32_t>(in.dims()[*dim]);
  std::memcpy(out.bytes(), &size, sizeof(size));
  call.results.push_back(std::move(out));
  return OkStatus();
}

Status Reverse(KernelCall& call) {
  BERTH_ASSIGN_OR_RETURN(const Tensor* in, TensorOperand(call, 0));
  std::span<const int64_t> dims = call.op.GetI64Array("dimensions");
  std::vector<bool> flip(static_cast<size_t>(in->rank()));
  for (int64_t d : dims) {
    if (d < 0 || d >= in->rank()) {
      return InvalidArgumentError("dimensions " + DimsString(dims) + " are outside the rank of " +
                                  in->TypeString());
    }
    flip[d] = !flip[d];
  }
  std::vector<int64_t> strides = RowMajorStrides(in->dims());
  int64_t origin = 0;
  bool any = false;
  for (int64_t d = 0; d < in->rank(); ++d) {
    if (!flip[d] || in->dims()[d] <= 1) continue;
    any = true;
    origin += (in->dims()[d] - 1) * strides[d];
    strides[d] = -strides[d];
  }
  if (!any) {
    BERTH_RETURN_IF_ERROR(CheckResultDims(call, 0, in->dims()));
    call.results.push_back(*in);
    return OkStatus();
  }
  BERTH_ASSIGN_OR_RETURN(Tensor out, AllocateResult(call, 0, in->dims()));
  size_t eb = ElementBytes(in->type());
  StridedCopy copy(eb, in->dims(), RowMajorStrides(in->dims()), strides);
  copy.RunParallel(call.ctx.pool(), out.bytes(), in->bytes() + origin * static_cast<int64_t>(eb));
  call.results.push_back(std::move(out));
  return OkStatus();
}

Status Concatenate(KernelCall& call) {
  if (call.operands.empty()) return InvalidArgumentError("needs at least one operand");
  BERTH_ASSIGN_OR_RETURN(const Tensor* first, TensorOperand(call, 0));
  std::optional<int64_t> dim = call.op.GetInt("dimension");
  if (!dim || *dim < 0 || *dim >= first->rank()) {
    return InvalidArgumentError("dimension is outside the operands' rank");
  }
  std::vector<int64_t> dims = first->dims();
  dims[*dim] = 0;
  for (size_t i = 0; i < call.operands.size(); ++i) {
    BERTH_ASSIGN_OR_RETURN(const Tensor* t, TensorOperand(call, i));
    bool same = t->rank() == first->rank() && t->type() == first->type();
    for (int64_t d = 0; same && d < t->rank(); ++d) {
      same = d == *dim || t->dims()[d] == first->dims()[d];
    }
    if (!same) {
      return InvalidArgumentError("operand #" + std::to_string(i) + " " + t->TypeString() +
                                  " does not match operand #0 " + first->TypeString() +
                                  " outside dimension " + std::to_string(*dim));
    }
    dims[*dim] += t->dims()[*dim];
  }
  BERTH_ASSIGN_OR_RETURN(Tensor out, AllocateResult(call, 0, dims));
  std::vector<int64_t> out_strides = RowMajorStrides(dims);
  const int64_t eb = static_cast<int64_t>(ElementBytes(out.type()));
  int64_t offset = 0;
  for (const Tensor& t : call.operands) {
    StridedCopy copy(static_cast<size_t>(eb), t.dims(), out_strides, RowMajorStrides(t.dims()));
    copy.RunParallel(call.ctx.pool(), out.bytes() + offset * out_strides[*dim] * eb, t.bytes());
    offset += t.dims()[*dim];
  }
  call.results.push_back(std::move(out));
  return OkStatus();
}

// Pads `in` with the rank-0 `value`: per dimension `low` and `high` edge
// padding (negative crops) and `interior` padding between elements.
Status PadWith(KernelCall& call, const Tensor& in, const Tensor& value, std::span<const int64_t> low,
               std::span<const int64_t> high, std::span<const int64_t> interior) {
  const size_t rank = static_cast<size_t>(in.rank());
  if (!value.is_tensor() || value.rank() != 0 || value.type() != in.type()) {
    return InvalidArgumentError("padding_value must be a rank-0 tensor of the operand's type");
  }
  if (low.size() != rank || high.size() != rank || interior.size() != rank) {
    return InvalidArgumentError("padding needs " + std::to_string(rank) + " entries per attribute");
  }
  std::vector<int64_t> dims(rank);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t size = in.dims()[d];
    // Paddings beyond +-2^40 cannot describe a tensor that fits in memory;
    // rejecting them keeps the arithmetic below from overflowing.
    constexpr int64_t kLimit = int64_t{1} << 40;
    if (interior[d] < 0 || interior[d] > kLimit || std::abs(low[d]) > kLimit ||
        std::abs(high[d]) > kLimit) {
      return InvalidArgumentError("padding of dimension " + std::to_string(d) +
                                  " is out of range (interior must be >= 0)");
    }
    dims[d] = low[d] + high[d] + size + std::max<int64_t>(size - 1, 0) * interior[d];
    if (dims[d] < 0) {
      return InvalidArgumentError("padding makes dimension " + std::to_string(d) + " negative (" +
                                  std::to_string(dims[d]) + ")");
    }
  }
  BERTH_ASSIGN_OR_RETURN(Tensor out, AllocateResult(call, 0, dims));
  const size_t eb = ElementBytes(in.type());
  FillElementsParallel(call.ctx.pool(), out.bytes(), value.bytes(), eb, out.num_elements());

  // Operand element i of dimension d lands at low + i * (interior + 1); copy
  // the operand elements that land inside the result.
  std::vector<int64_t> out_strides = RowMajorStrides(dims);
  std::vector<int64_t> in_strides = RowMajorStrides(in.dims());
  std::vector<int64_t> sizes(rank), dst_strides(rank);
  int64_t dst_origin = 0, src_origin = 0;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t step = interior[d] + 1;
    const int64_t first = low[d] >= 0 ? 0 : (-low[d] + step - 1) / step;
    const int64_t last_pos = dims[d] - 1 - low[d];  // highest i * step that fits
    const int64_t end = last_pos < 0 ? 0 : std::min(in.dims()[d], last_pos / step + 1);
    sizes[d] = std::max<int64_t>(0, end - first);
    dst_strides[d] = out_strides[d] * step;
    dst_origin += (low[d] + first * step) * out_strides[d];
    src_origin += first * in_strides[d];
  }
  if (Product(sizes) > 0) {
    const int64_t b = static_cast<int64_t>(eb);
    StridedCopy copy(eb, sizes, dst_strides, in_strides);
    copy.RunParallel(call.ctx.pool(), out.bytes() + dst_origin * b, in.bytes() + src_origin * b);
  }
  call.results.push_back(std::move(out));
  return OkStatus();
}

Status Pad(KernelCall& call) {
  BERTH_ASSIGN_OR_RETURN(const Tensor* in, TensorOperand(call, 0));
  return PadWith(call, *in, call.operands[1], call.op.GetI64Array("edge_padding_low"),
                 call.op.GetI64Array("edge_padding_high"), call.op.GetI64Array("interior_padding"));
}

Status DynamicPad(KernelCall& call) {
  BERTH_ASSIGN_OR_RETURN(const Tensor* in, TensorOperand(call, 0));
  BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> low, ReadIndices(call.operands[2], "edge_padding_low"));
  BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> high, ReadIndices(call.operands[3], "edge_padding_high"));
  BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> interior,
                         ReadIndices(call.operands[4], "interior_padding"));
  return PadWith(call, *in, call.operands[1], low, high, interior);
}

}  // namespace

void RegisterShapeKernels(KernelRegistry& registry) {
  registry.Register({{OpKind::kReshape, Reshape},
                     {OpKind::kDynamicReshape, DynamicReshape},
                     {OpKind::kTranspose, Transpose},
                     {OpKind::kBroadcastInDim, BroadcastInDim},
                     {OpKind::kDynamicBroadcastInDim, DynamicBroadcastInDim},
                     {OpKind::kBroadcast, Broadcast},
                     {OpKind::kGetDimensionSize, GetDimensionSize},
                     {OpKind::kReverse, Reverse},
                     {OpKind::kConcatenate, Concatenate},
                     {OpKind::kPad, Pad},
                     {OpKind::kDynamicPad, DynamicPad}});
}

}  // namespace berth::cpu
