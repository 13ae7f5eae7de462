// Slicing kernels: slice, dynamic_slice, dynamic_update_slice and
// real_dynamic_slice. Dynamic start indices are clamped into range as the
// spec says (so that the slice fits); static and real-dynamic bounds out of
// range are errors.
#include <algorithm>

#include "interpreter/data_movement.hpp"
#include "interpreter/element_types.hpp"
#include "interpreter/strided_copy.hpp"

namespace berth::cpu {
namespace {

using stablehlo::OpKind;

// Copies the box of `in` starting at `start` with `strides` (one per
// dimension) into a new result of `dims`.
Status EmitSlice(KernelCall& call, const Tensor& in, std::span<const int64_t> start,
                 std::span<const int64_t> strides, std::vector<int64_t> dims) {
  bool whole = dims == in.dims();
  for (size_t d = 0; whole && d < dims.size(); ++d) whole = start[d] == 0;
  if (whole) {
    BERTH_RETURN_IF_ERROR(CheckResultDims(call, 0, dims));
    call.results.push_back(in);
    return OkStatus();
  }
  BERTH_ASSIGN_OR_RETURN(Tensor out, AllocateResult(call, 0, dims));
  std::vector<int64_t> in_strides = RowMajorStrides(in.dims());
  std::vector<int64_t> src_strides(dims.size());
  int64_t origin = 0;
  for (size_t d = 0; d < dims.size(); ++d) {
    src_strides[d] = in_strides[d] * strides[d];
    origin += start[d] * in_strides[d];
  }
  const size_t eb = ElementBytes(in.type());
  StridedCopy copy(eb, dims, RowMajorStrides(dims), src_strides);
  copy.RunParallel(call.ctx.pool(), out.bytes(), in.bytes() + origin * static_cast<int64_t>(eb));
  call.results.push_back(std::move(out));
  return OkStatus();
}

// Checks 0 <= start <= limit <= dim and stride > 0 per dimension and
// returns the result dims.
Result<std::vector<int64_t>> SliceDims(const Tensor& in, std::span<const int64_t> start,
                                       std::span<const int64_t> limit,
                                       std::span<const int64_t> strides) {
  const size_t rank = static_cast<size_t>(in.rank());
  if (start.size() != rank || limit.size() != rank || strides.size() != rank) {
    return InvalidArgumentError("start, limit and strides need " + std::to_string(rank) +
                                " entries each");
  }
  std::vector<int64_t> dims(rank);
  for (size_t d = 0; d < rank; ++d) {
    if (start[d] < 0 || limit[d] < start[d] || limit[d] > in.dims()[d]) {
      return InvalidArgumentError("slice [" + std::to_string(start[d]) + ":" +
                                  std::to_string(limit[d]) + "] of dimension " +
                                  std::to_string(d) + " is outside [0, " +
                                  std::to_string(in.dims()[d]) + "]");
    }
    if (strides[d] <= 0) {
      return InvalidArgumentError("strides " + DimsString(strides) + " must be positive");
    }
    dims[d] = (limit[d] - start[d] + strides[d] - 1) / strides[d];
  }
  return dims;
}

Status Slice(KernelCall& call) {
  const Tensor& in = call.operands[0];
  BERTH_RETURN_IF_ERROR(CheckSupported(in.type(), call.op.name()));
  std::span<const int64_t> start = call.op.GetI64Array("start_indices");
  std::span<const int64_t> strides = call.op.GetI64Array("strides");
  BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                         SliceDims(in, start, call.op.GetI64Array("limit_indices"), strides));
  return EmitSlice(call, in, start, strides, std::move(dims));
}

Status RealDynamicSlice(KernelCall& call) {
  const Tensor& in = call.operands[0];
  BERTH_RETURN_IF_ERROR(CheckSupported(in.type(), call.op.name()));
  BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> start, ReadIndices(call.operands[1], "start_indices"));
  BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> limit, ReadIndices(call.operands[2], "limit_indices"));
  BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> strides, ReadIndices(call.operands[3], "strides"));
  BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> dims, SliceDims(in, start, limit, strides));
  return EmitSlice(call, in, start, strides, std::move(dims));
}

// The start indices given as rank-0 operands from `first` on, clamped so
// that a box of `sizes` starting there fits in `dims`.
Result<std::vector<int64_t>> ClampedStarts(const KernelCall& call, size_t first,
                                           std::span<const int64_t> dims,
                                           std::span<const int64_t> sizes) {
  if (call.operands.size() != first + dims.size()) {
    return InvalidArgumentError("needs " + std::to_string(dims.size()) + " start indices, has " +
                                std::to_string(call.operands.size() - first));
  }
  std::vector<int64_t> start(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    const Tensor& index = call.operands[first + d];
    if (!index.is_tensor() || index.rank() != 0 || !stablehlo::IsInteger(index.type())) {
      return InvalidArgumentError("start index #" + std::to_string(d) +
                                  " must be a rank-0 integer tensor, is " + index.TypeString());
    }
    start[d] = std::clamp<int64_t>(IndexAt(index, 0), 0, dims[d] - sizes[d]);
  }
  return start;
}

Status DynamicSlice(KernelCall& call) {
  const Tensor& in = call.operands[0];
  BERTH_RETURN_IF_ERROR(CheckSupported(in.type(), call.op.name()));
  std::span<const int64_t> sizes = call.op.GetI64Array("slice_sizes");
  if (static_cast<int64_t>(sizes.size()) != in.rank()) {
    return InvalidArgumentError("slice_sizes " + DimsString(sizes) + " needs " +
                                std::to_string(in.rank()) + " entries");
  }
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] < 0 || sizes[d] > in.dims()[d]) {
      return InvalidArgumentError("slice_sizes " + DimsString(sizes) + " exceed the operand " +
                                  in.TypeString());
    }
  }
  BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> start, ClampedStarts(call, 1, in.dims(), sizes));
  std::vector<int64_t> ones(sizes.size(), 1);
  return EmitSlice(call, in, start, ones, std::vector<int64_t>(sizes.begin(), sizes.end()));
}

Status DynamicUpdateSlice(KernelCall& call) {
  const Tensor& in = call.operands[0];
  const Tensor& update = call.operands[1];
  BERTH_RETURN_IF_ERROR(CheckSupported(in.type(), call.op.name()));
  bool fits = update.is_tensor() && update.rank() == in.rank() && update.type() == in.type();
  for (int64_t d = 0; fits && d < in.rank(); ++d) fits = update.dims()[d] <= in.dims()[d];
  if (!fits) {
    return InvalidArgumentError("update " + update.TypeString() +
                                " must have the rank and element type of, and fit in, the operand " +
                                in.TypeString());
  }
  BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> start,
                         ClampedStarts(call, 2, in.dims(), update.dims()));
  if (update.dims() == in.dims()) {
    // The update covers the operand (every start clamps to 0).
    BERTH_RETURN_IF_ERROR(CheckResultDims(call, 0, in.dims()));
    call.results.push_back(update);
    return OkStatus();
  }
  BERTH_ASSIGN_OR_RETURN(Tensor out, AllocateResult(call, 0, in.dims()));
  CopyBytesParallel(call.ctx.pool(), out.bytes(), in.bytes(), in.byte_size());
  std::vector<int64_t> out_strides = RowMajorStrides(in.dims());
  int64_t origin = 0;
  for (size_t d = 0; d < start.size(); ++d) origin += start[d] * out_strides[d];
  const size_t eb = ElementBytes(in.type());
  StridedCopy copy(eb, update.dims(), out_strides, RowMajorStrides(update.dims()));
  copy.RunParallel(call.ctx.pool(), out.bytes() + origin * static_cast<int64_t>(eb), update.bytes());
  call.results.push_back(std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterSliceKernels(KernelRegistry& registry) {
  registry.Register({{OpKind::kSlice, Slice},
                     {OpKind::kRealDynamicSlice, RealDynamicSlice},
                     {OpKind::kDynamicSlice, DynamicSlice},
                     {OpKind::kDynamicUpdateSlice, DynamicUpdateSlice}});
}

}  // namespace berth::cpu
