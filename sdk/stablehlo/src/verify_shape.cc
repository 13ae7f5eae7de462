// Checks for ops that move data between shapes: broadcasts, reshapes,
// transposes, slices, concatenation, padding, iota, tuples, bitcasts and
// constants.
#include <algorithm>

#include "src/verifier_impl.hpp"

namespace berth::stablehlo::detail {
namespace {

Status SameElement(const Operation& op, Type a, Type b) {
  if (a.element_type() == b.element_type()) return OkStatus();
  return OpError(op, "result element type " + std::string(ElementTypeName(b.element_type())) +
                         " differs from operand element type " +
                         std::string(ElementTypeName(a.element_type())));
}

// One tensor operand and one tensor result of its element type; returns the
// operand's type.
Result<Type> OneTensorOfSameElement(const Operation& op) {
  BERTH_RETURN_IF_ERROR(OneTensorInOut(op, 1));
  Type in = OperandType(op, 0);
  BERTH_RETURN_IF_ERROR(SameElement(op, in, ResultType(op, 0)));
  return in;
}

Status Is1DInteger(const Operation& op, size_t i, int64_t size, std::string_view what) {
  Type t = OperandType(op, i);
  if (!t.IsTensor() || t.rank() != 1 || !(IsInteger(t.element_type()) || t.element_type() == ElementType::kIndex)) {
    return OpError(op, std::string(what) + " must be a 1-D integer tensor, is " + Str(t));
  }
  if (size >= 0 && !DimsCompatible(t.dim(0), size)) {
    return OpError(op, std::string(what) + " must have " + std::to_string(size) +
                           " elements, has " + std::to_string(t.dim(0)));
  }
  return OkStatus();
}

Status BroadcastInDim(const Operation& op, bool dynamic) {
  BERTH_RETURN_IF_ERROR(OneTensorInOut(op, dynamic ? 2 : 1));
  Type in = OperandType(op, 0);
  Type out = ResultType(op, 0);
  BERTH_RETURN_IF_ERROR(SameElement(op, in, out));
  if (dynamic) BERTH_RETURN_IF_ERROR(Is1DInteger(op, 1, out.rank(), "output_dimensions"));
  std::vector<int64_t> dims;
  BERTH_RETURN_IF_ERROR(GetI64ArrayAttr(op, "broadcast_dimensions", true, &dims));
  if (static_cast<int64_t>(dims.size()) != in.rank()) {
    return OpError(op, "broadcast_dimensions " + Str(dims) + " must have one entry per operand "
                           "dimension (" + std::to_string(in.rank()) + ")");
  }
  BERTH_RETURN_IF_ERROR(ExpectDimsInRange(op, dims, out.rank(), "broadcast_dimensions"));
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = in.dim(static_cast<int64_t>(i));
    int64_t r = out.dim(dims[i]);
    if (d != 1 && !DimsCompatible(d, r)) {
      return OpError(op, "operand dimension " + std::to_string(i) + " (size " +
                             std::to_string(d) + ") must be 1 or equal result dimension " +
                             std::to_string(dims[i]) + " (size " + std::to_string(r) + ")");
    }
  }
  return OkStatus();
}

Status Broadcast(const Operation& op) {
  BERTH_ASSIGN_OR_RETURN(Type in, OneTensorOfSameElement(op));
  std::vector<int64_t> sizes;
  BERTH_RETURN_IF_ERROR(GetI64ArrayAttr(op, "broadcast_sizes", true, &sizes));
  for (int64_t s : sizes) {
    if (s < 0) return OpError(op, "broadcast_sizes must not be negative");
  }
  std::vector<int64_t> expected = sizes;
  expected.insert(expected.end(), in.shape().begin(), in.shape().end());
  return ExpectResultShape(op, 0, expected);
}

Status Reshape(const Operation& op) {
  BERTH_RETURN_IF_ERROR(OneTensorInOut(op, op.kind() == OpKind::kDynamicReshape ? 2 : 1));
  Type in = OperandType(op, 0);
  Type out = ResultType(op, 0);
  BERTH_RETURN_IF_ERROR(SameElement(op, in, out));
  if (op.kind() == OpKind::kDynamicReshape) return Is1DInteger(op, 1, out.rank(), "output_shape");
  int64_t a = in.NumElements();
  int64_t b = out.NumElements();
  if (a >= 0 && b >= 0 && a != b) {
    return OpError(op, "operand has " + std::to_string(a) + " elements but result " + Str(out) +
                           " has " + std::to_string(b));
  }
  return OkStatus();
}

Status Transpose(const Operation& op) {
  BERTH_ASSIGN_OR_RETURN(Type in, OneTensorOfSameElement(op));
  std::vector<int64_t> perm;
  BERTH_RETURN_IF_ERROR(GetI64ArrayAttr(op, "permutation", true, &perm));
  if (static_cast<int64_t>(perm.size()) != in.rank()) {
    return OpError(op, "permutation " + Str(perm) + " must have " + std::to_string(in.rank()) +
                           " entries");
  }
  BERTH_RETURN_IF_ERROR(ExpectDimsInRange(op, perm, in.rank(), "permutation"));
  std::vector<int64_t> expected;
  for (int64_t p : perm) expected.push_back(in.dim(p));
  return ExpectResultShape(op, 0, expected);
}

Status Reverse(const Operation& op) {
  BERTH_RETURN_IF_ERROR(OneTensorInOut(op, 1));
  Type in = OperandType(op, 0);
  if (!TypesCompatible(in, ResultType(op, 0))) {
    return OpError(op, "result type must match the operand type " + Str(in));
  }
  std::vector<int64_t> dims;
  BERTH_RETURN_IF_ERROR(GetI64ArrayAttr(op, "dimensions", true, &dims));
  return ExpectDimsInRange(op, dims, in.rank(), "dimensions");
}

Status Slice(const Operation& op) {
  BERTH_ASSIGN_OR_RETURN(Type in, OneTensorOfSameElement(op));
  std::vector<int64_t> start, limit, strides;
  BERTH_RETURN_IF_ERROR(GetI64ArrayAttr(op, "start_indices", true, &start));
  BERTH_RETURN_IF_ERROR(GetI64ArrayAttr(op, "limit_indices", true, &limit));
  BERTH_RETURN_IF_ERROR(GetI64ArrayAttr(op, "strides", true, &strides));
  size_t rank = static_cast<size_t>(in.rank());
  if (start.size() != rank || limit.size() != rank || strides.size() != rank) {
    return OpError(op, "start_indices, limit_indices and strides need " + std::to_string(rank) +
                           " entries each");
  }
  std::vector<int64_t> expected(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t d = in.dim(static_cast<int64_t>(i));
    if (start[i] < 0 || limit[i] < start[i] || (d != kDynamic && limit[i] > d)) {
      return OpError(op, "slice [" + std::to_string(start[i]) + ":" + std::to_string(limit[i]) +
                             "] of dimension " + std::to_string(i) + " is outside [0, " +
                             (d == kDynamic ? std::string("?") : std::to_string(d)) + "]");
    }
    if (strides[i] <= 0) return OpError(op, "strides must be positive, are " + Str(strides));
    expected[i] = limit[i] == start[i] ? 0 : (limit[i] - start[i] - 1) / strides[i] + 1;
  }
  return ExpectResultShape(op, 0, expected);
}

Status ScalarIndices(const Operation& op, size_t first, size_t count) {
  ElementType index_type = ElementType::kOpaque;
  for (size_t i = first; i < first + count; ++i) {
    Type t = OperandType(op, i);
    if (!t.IsTensor() || t.rank() != 0 || !IsInteger(t.element_type())) {
      return OpError(op, "start index operand #" + std::to_string(i) +
                             " must be a rank-0 integer tensor, is " + Str(t));
    }
    if (i > first && t.element_type() != index_type) {
      return OpError(op, "start indices must all have the same type");
    }
    index_type = t.element_type();
  }
  return OkStatus();
}

Status DynamicSlice(const Operation& op) {
  BERTH_RETURN_IF_ERROR(ExpectMinOperands(op, 1));
  BERTH_RETURN_IF_ERROR(ExpectResults(op, 1));
  BERTH_RETURN_IF_ERROR(ExpectTensorOperand(op, 0));
  Type in = OperandType(op, 0);
  BERTH_RETURN_IF_ERROR(SameElement(op, in, ResultType(op, 0)));
  if (static_cast<int64_t>(op.num_operands()) != 1 + in.rank()) {
    return OpError(op, "needs " + std::to_string(in.rank()) + " start indices, has " +
                           std::to_string(op.num_operands() - 1));
  }
  BERTH_RETURN_IF_ERROR(ScalarIndices(op, 1, static_cast<size_t>(in.rank())));
  std::vector<int64_t> sizes;
  BERTH_RETURN_IF_ERROR(GetI64ArrayAttr(op, "slice_sizes", true, &sizes));
  if (static_cast<int64_t>(sizes.size()) != in.rank()) {
    return OpError(op, "slice_sizes " + Str(sizes) + " needs " + std::to_string(in.rank()) +
                           " entries");
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    int64_t d = in.dim(static_cast<int64_t>(i));
    if (sizes[i] < 0 || (d != kDynamic && sizes[i] > d)) {
      return OpError(op, "slice_sizes " + Str(sizes) + " exceed the operand shape " +
                             Str(in.shape()));
    }
  }
  return ExpectResultShape(op, 0, sizes);
}

Status DynamicUpdateSlice(const Operation& op) {
  BERTH_RETURN_IF_ERROR(ExpectMinOperands(op, 2));
  BERTH_RETURN_IF_ERROR(ExpectResults(op, 1));
  BERTH_RETURN_IF_ERROR(ExpectTensorOperand(op, 0));
  BERTH_RETURN_IF_ERROR(ExpectTensorOperand(op, 1));
  Type in = OperandType(op, 0);
  Type update = OperandType(op, 1);
  if (update.rank() != in.rank() || update.element_type() != in.element_type()) {
    return OpError(op, "update " + Str(update) + " must have the rank and element type of " +
                           Str(in));
  }
  for (int64_t i = 0; i < in.rank(); ++i) {
    if (in.dim(i) != kDynamic && update.dim(i) != kDynamic && update.dim(i) > in.dim(i)) {
      return OpError(op, "update " + Str(update) + " is larger than the operand " + Str(in));
    }
  }
  if (static_cast<int64_t>(op.num_operands()) != 2 + in.rank()) {
    return OpError(op, "needs " + std::to_string(in.rank()) + " start indices, has " +
                           std::to_string(op.num_operands() - 2));
  }
  BERTH_RETURN_IF_ERROR(ScalarIndices(op, 2, static_cast<size_t>(in.rank())));
  if (!TypesCompatible(ResultType(op, 0), in)) {
    return OpError(op, "result type must match the operand type " + Str(in));
  }
  return OkStatus();
}

Status RealDynamicSlice(const Operation& op) {
  BERTH_RETURN_IF_ERROR(OneTensorInOut(op, 4));
  Type in = OperandType(op, 0);
  BERTH_RETURN_IF_ERROR(SameElement(op, in, ResultType(op, 0)));
  BERTH_RETURN_IF_ERROR(Is1DInteger(op, 1, in.rank(), "start_indices"));
  BERTH_RETURN_IF_ERROR(Is1DInteger(op, 2, in.rank(), "limit_indices"));
  return Is1DInteger(op, 3, in.rank(), "strides");
}

Status Concatenate(const Operation& op) {
  BERTH_RETURN_IF_ERROR(ExpectMinOperands(op, 1));
  BERTH_RETURN_IF_ERROR(ExpectResults(op, 1));
  for (size_t i = 0; i < op.num_operands(); ++i) BERTH_RETURN_IF_ERROR(ExpectTensorOperand(op, i));
  Type first = OperandType(op, 0);
  BERTH_ASSIGN_OR_RETURN(int64_t dim, DimensionAttr(op, "dimension", first.rank()));
  std::vector<int64_t> expected(first.shape().begin(), first.shape().end());
  expected[dim] = 0;
  for (size_t i = 0; i < op.num_operands(); ++i) {
    Type t = OperandType(op, i);
    if (t.rank() != first.rank() || t.element_type() != first.element_type()) {
      return OpError(op, "operands must have the same rank and element type; #" +
                             std::to_string(i) + " is " + Str(t));
    }
    for (int64_t d = 0; d < t.rank(); ++d) {
      if (d == dim) continue;
      if (!DimsCompatible(t.dim(d), first.dim(d))) {
        return OpError(op, "operand #" + std::to_string(i) + " " + Str(t) +
                               " differs from operand #0 outside dimension " +
                               std::to_string(dim));
      }
    }
    if (expected[dim] != kDynamic) {
      expected[dim] = t.dim(dim) == kDynamic ? kDynamic : Narrow(Wide(expected[dim]) + t.dim(dim));
    }
  }
  BERTH_RETURN_IF_ERROR(SameElement(op, first, ResultType(op, 0)));
  return ExpectResultShape(op, 0, expected);
}

Status Pad(const Operation& op) {
  BERTH_RETURN_IF_ERROR(OneTensorInOut(op, 2));
  Type in = OperandType(op, 0);
  Type value = OperandType(op, 1);
  if (value.rank() != 0 || value.element_type() != in.element_type()) {
    return OpError(op, "padding_value must be a rank-0 tensor of the operand's element type, is " +
                           Str(value));
  }
  BERTH_RETURN_IF_ERROR(SameElement(op, in, ResultType(op, 0)));
  std::vector<int64_t> low, high, interior;
  BERTH_RETURN_IF_ERROR(GetI64ArrayAttr(op, "edge_padding_low", true, &low));
  BERTH_RETURN_IF_ERROR(GetI64ArrayAttr(op, "edge_padding_high", true, &high));
  BERTH_RETURN_IF_ERROR(GetI64ArrayAttr(op, "interior_padding", true, &interior));
  size_t rank = static_cast<size_t>(in.rank());
  if (low.size() != rank || high.size() != rank || interior.size() != rank) {
    return OpError(op, "padding attributes need " + std::to_string(rank) + " entries each");
  }
  std::vector<int64_t> expected(rank);
  for (size_t i = 0; i < rank; ++i) {
    if (interior[i] < 0) return OpError(op, "interior_padding must not be negative");
    int64_t d = in.dim(static_cast<int64_t>(i));
    if (d == kDynamic) {
      expected[i] = kDynamic;
      continue;
    }
    int64_t size = Narrow(Wide(low[i]) + high[i] + d + Wide(std::max<int64_t>(d - 1, 0)) * interior[i]);
    if (size < 0) return OpError(op, "padding makes dimension " + std::to_string(i) + " negative");
    expected[i] = size;
  }
  return ExpectResultShape(op, 0, expected);
}

Status Iota(const Operation& op) {
  bool dynamic = op.kind() == OpKind::kDynamicIota;
  BERTH_RETURN_IF_ERROR(ExpectOperands(op, dynamic ? 1 : 0));
  BERTH_RETURN_IF_ERROR(ExpectResults(op, 1));
  BERTH_RETURN_IF_ERROR(ExpectTensorResult(op, 0));
  Type out = ResultType(op, 0);
  if (dynamic) BERTH_RETURN_IF_ERROR(Is1DInteger(op, 0, out.rank(), "output_shape"));
  BERTH_RETURN_IF_ERROR(DimensionAttr(op, "iota_dimension", out.rank()).status());
  if (IsBool(out.element_type())) return OpError(op, "result must not be a tensor of i1");
  return OkStatus();
}

Status DimensionSize(const Operation& op) {
  bool set = op.kind() == OpKind::kSetDimensionSize;
  BERTH_RETURN_IF_ERROR(OneTensorInOut(op, set ? 2 : 1));
  Type in = OperandType(op, 0);
  BERTH_RETURN_IF_ERROR(DimensionAttr(op, "dimension", in.rank()).status());
  Type size = set ? OperandType(op, 1) : ResultType(op, 0);
  if (size.rank() != 0 || size.element_type() != ElementType::kSI32) {
    return OpError(op, std::string(set ? "size operand" : "result") + " must be tensor<i32>, is " +
                           Str(size));
  }
  return OkStatus();
}

Status GetTupleElement(const Operation& op) {
  BERTH_RETURN_IF_ERROR(ExpectOperands(op, 1));
  BERTH_RETURN_IF_ERROR(ExpectResults(op, 1));
  Type in = OperandType(op, 0);
  if (!in.IsTuple()) return OpError(op, "operand must be a tuple, is " + Str(in));
  int64_t index = -1;
  BERTH_RETURN_IF_ERROR(GetIntAttr(op, "index", true, &index));
  if (index < 0 || index >= static_cast<int64_t>(in.types().size())) {
    return OpError(op, "index " + std::to_string(index) + " is out of range for " + Str(in));
  }
  if (!TypesCompatible(in.types()[index], ResultType(op, 0))) {
    return OpError(op, "result type " + Str(ResultType(op, 0)) + " must be " +
                           Str(in.types()[index]));
  }
  return OkStatus();
}

Status Tuple(const Operation& op) {
  BERTH_RETURN_IF_ERROR(ExpectResults(op, 1));
  Type out = ResultType(op, 0);
  if (!out.IsTuple() || out.types().size() != op.num_operands()) {
    return OpError(op, "result must be a tuple of the operand types, is " + Str(out));
  }
  for (size_t i = 0; i < op.num_operands(); ++i) {
    if (!TypesCompatible(OperandType(op, i), out.types()[i])) {
      return OpError(op, "tuple element #" + std::to_string(i) + " must be " +
                             Str(OperandType(op, i)));
    }
  }
  return OkStatus();
}

Status BitcastConvert(const Operation& op) {
  BERTH_RETURN_IF_ERROR(OneTensorInOut(op, 1));
  Type in = OperandType(op, 0);
  Type out = ResultType(op, 0);
  int a = BitWidth(in.element_type());
  int b = BitWidth(out.element_type());
  std::vector<int64_t> in_shape(in.shape().begin(), in.shape().end());
  std::vector<int64_t> out_shape(out.shape().begin(), out.shape().end());
  if (a == b) {
    if (!ShapesCompatible(in_shape, out_shape)) {
      return OpError(op, "result shape must equal the operand shape when bit widths match");
    }
    return OkStatus();
  }
  if (a > b) {
    // The result has one more dimension, of size a / b.
    if (a % b != 0 || out_shape.empty() || !DimsCompatible(out_shape.back(), a / b)) {
      return OpError(op, "result " + Str(out) + " must add a last dimension of " +
                             std::to_string(a / std::max(b, 1)) + " to " + Str(in));
    }
    out_shape.pop_back();
    if (!ShapesCompatible(in_shape, out_shape)) {
      return OpError(op, "result " + Str(out) + " does not match the operand " + Str(in));
    }
    return OkStatus();
  }
  if (b % a != 0 || in_shape.empty() || !DimsCompatible(in_shape.back(), b / a)) {
    return OpError(op, "operand " + Str(in) + " must end in a dimension of " +
                           std::to_string(b / std::max(a, 1)) + " to make " + Str(out));
  }
  in_shape.pop_back();
  if (!ShapesCompatible(in_shape, out_shape)) {
    return OpError(op, "result " + Str(out) + " does not match the operand " + Str(in));
  }
  return OkStatus();
}

Status Constant(const Operation& op) {
  BERTH_RETURN_IF_ERROR(ExpectOperands(op, 0));
  BERTH_RETURN_IF_ERROR(ExpectResults(op, 1));
  const DenseElementsAttr* value = op.GetDense("value");
  if (!value) return OpError(op, "requires a dense 'value' attribute");
  if (!TypesCompatible(value->type(), ResultType(op, 0))) {
    return OpError(op, "value type " + Str(value->type()) + " differs from result type " +
                           Str(ResultType(op, 0)));
  }
  return OkStatus();
}

}  // namespace

Status VerifyShapeOp(const Operation& op) {
  switch (op.kind()) {
    case OpKind::kBroadcastInDim: return BroadcastInDim(op, false);
    case OpKind::kDynamicBroadcastInDim: return BroadcastInDim(op, true);
    case OpKind::kBroadcast: return Broadcast(op);
    case OpKind::kReshape:
    case OpKind::kDynamicReshape: return Reshape(op);
    case OpKind::kTranspose: return Transpose(op);
    case OpKind::kReverse: return Reverse(op);
    case OpKind::kSlice: return Slice(op);
    case OpKind::kDynamicSlice: return DynamicSlice(op);
    case OpKind::kDynamicUpdateSlice: return DynamicUpdateSlice(op);
    case OpKind::kRealDynamicSlice: return RealDynamicSlice(op);
    case OpKind::kConcatenate: return Concatenate(op);
    case OpKind::kPad: return Pad(op);
    case OpKind::kDynamicPad: {
      BERTH_RETURN_IF_ERROR(OneTensorInOut(op, 5));
      int64_t rank = OperandType(op, 0).rank();
      BERTH_RETURN_IF_ERROR(Is1DInteger(op, 2, rank, "edge_padding_low"));
      BERTH_RETURN_IF_ERROR(Is1DInteger(op, 3, rank, "edge_padding_high"));
      return Is1DInteger(op, 4, rank, "interior_padding");
    }
    case OpKind::kIota:
    case OpKind::kDynamicIota: return Iota(op);
    case OpKind::kGetDimensionSize:
    case OpKind::kSetDimensionSize: return DimensionSize(op);
    case OpKind::kGetTupleElement: return GetTupleElement(op);
    case OpKind::kTuple: return Tuple(op);
    case OpKind::kBitcastConvert: return BitcastConvert(op);
    case OpKind::kConstant:
    case OpKind::kChloConstant: return Constant(op);
    default: return OkStatus();
  }
}

}  // namespace berth::stablehlo::detail
