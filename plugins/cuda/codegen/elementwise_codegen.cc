#include "codegen/elementwise_codegen.hpp"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "codegen/kernel_emitters.hpp"

namespace berth::cuda {

using namespace codegen;  // kernel_emitters.hpp

std::vector<berth::ElementType> GeneratedBufferTypes() {
  std::vector<berth::ElementType> types;
  for (int t = 0; t <= static_cast<int>(ElementType::kComplex128); ++t) {
    const auto type = static_cast<ElementType>(t);
    if (StorageType(type) != nullptr) types.push_back(stablehlo::ToBufferType(type));
  }
  return types;
}

bool IsGeneratedElementwiseKind(OpKind kind) {
  if (FloatFunctionOf(kind) != nullptr) return true;
  switch (kind) {
    case OpKind::kMap:
    case OpKind::kComplex:
    case OpKind::kReal:
    case OpKind::kImag:
    case OpKind::kAdd:
    case OpKind::kSubtract:
    case OpKind::kMultiply:
    case OpKind::kDivide:
    case OpKind::kRemainder:
    case OpKind::kPower:
    case OpKind::kMaximum:
    case OpKind::kMinimum:
    case OpKind::kAtan2:
    case OpKind::kAnd:
    case OpKind::kOr:
    case OpKind::kXor:
    case OpKind::kNot:
    case OpKind::kShiftLeft:
    case OpKind::kShiftRightLogical:
    case OpKind::kShiftRightArithmetic:
    case OpKind::kChloMulhi:
    case OpKind::kPopcnt:
    case OpKind::kCountLeadingZeros:
    case OpKind::kAbs:
    case OpKind::kNegate:
    case OpKind::kSign:
    case OpKind::kRsqrt:
    case OpKind::kCompare:
    case OpKind::kSelect:
    case OpKind::kClamp:
    case OpKind::kConvert:
    case OpKind::kBitcastConvert:
    case OpKind::kReducePrecision:
    case OpKind::kChloErf:
    case OpKind::kChloErfc:
    case OpKind::kChloAsin:
    case OpKind::kChloAcos:
    case OpKind::kChloAtan:
    case OpKind::kChloSinh:
    case OpKind::kChloCosh:
    case OpKind::kChloTan:
    case OpKind::kChloAsinh:
    case OpKind::kChloAcosh:
    case OpKind::kChloAtanh:
    case OpKind::kChloSquare:
    case OpKind::kChloIsInf:
    case OpKind::kChloIsPosInf:
    case OpKind::kChloIsNegInf:
    case OpKind::kChloErfInv:
    case OpKind::kChloLgamma:
    case OpKind::kChloDigamma:
    case OpKind::kChloBesselI1e:
    case OpKind::kChloPolygamma:
    case OpKind::kChloZeta:
    case OpKind::kChloNextAfter:
    case OpKind::kChloConj:
    case OpKind::kReplicaId:
    case OpKind::kPartitionId: return true;
    default: return false;
  }
}

bool IsViewKind(OpKind kind) {
  switch (kind) {
    case OpKind::kTranspose:
    case OpKind::kBroadcastInDim:
    case OpKind::kReshape:
    case OpKind::kSlice:
    case OpKind::kReverse:
    case OpKind::kIota:
    case OpKind::kDynamicIota:
    case OpKind::kDynamicReshape:
    case OpKind::kDynamicBroadcastInDim:
    case OpKind::kBroadcast:
    case OpKind::kRealDynamicSlice: return true;
    default: return false;
  }
}

Status CheckGeneratedType(const Operation& op, stablehlo::Type type) {
  if (!type.IsTensor() || !type.HasStaticShape()) {
    return Unsupported(op, "its values must be statically shaped tensors, not " + type.ToString());
  }
  if (type.IsQuantized() || StorageType(type.element_type()) == nullptr) {
    return Unsupported(op, "element type " + type.ToString() + " is not generated yet");
  }
  return OkStatus();
}

// OK when operand `index` of dynamic_iota, dynamic_reshape or
// dynamic_broadcast_in_dim - the result's shape - is a constant holding
// the result type's static dimensions: then the op is its static form.
// INVALID_ARGUMENT (the cpu plugin's words) when it holds others;
// UNIMPLEMENTED when it is computed (a shape known only when the program
// runs).
Status CheckStaticShapeOperand(const Operation& op, size_t index) {
  const stablehlo::Value* shape = op.operand(index);
  const stablehlo::Type result = op.result(0)->type();
  const std::optional<std::vector<int64_t>> sizes = ConstantIntegers(shape);
  if (!sizes)
    return Unsupported(op,
                       "its shape operand is not a constant (dynamic shapes are not generated)");
  if (shape->type().rank() != 1 || shape->type().NumElements() != result.rank()) {
    return InvalidArgumentError(Where(op) + ": its shape " + shape->type().ToString() +
                                " must hold one size per dimension of " + result.ToString());
  }
  for (int64_t d = 0; d < result.rank(); ++d) {
    if ((*sizes)[static_cast<size_t>(d)] != result.dim(d)) {
      return InvalidArgumentError(Where(op) + ": its shape[" + std::to_string(d) +
                                  "] = " + std::to_string((*sizes)[static_cast<size_t>(d)]) +
                                  " does not fit " + result.ToString());
    }
  }
  return OkStatus();
}

Status CheckView(const Operation& op) {
  if (!IsViewKind(op.kind())) return Unsupported(op, "not data movement the code generator folds");
  const stablehlo::Type result = op.result(0)->type();
  std::vector<stablehlo::Type> types = {result};
  for (const stablehlo::Value* operand : op.operands()) types.push_back(operand->type());
  for (stablehlo::Type type : types) BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, type));
  const size_t operand_rank =
      op.num_operands() > 0 ? static_cast<size_t>(op.operand(0)->type().rank()) : 0;
  auto needs = [&](const char* name, size_t size) -> Status {
    if (op.GetI64Array(name).size() != size) {
      return Unsupported(op, std::string("attribute ") + name + " must hold " +
                                 std::to_string(size) + " values");
    }
    return OkStatus();
  };
  switch (op.kind()) {
    case OpKind::kTranspose: return needs("permutation", operand_rank);
    case OpKind::kBroadcastInDim: return needs("broadcast_dimensions", operand_rank);
    case OpKind::kDynamicBroadcastInDim:
      BERTH_RETURN_IF_ERROR(CheckStaticShapeOperand(op, 1));
      return needs("broadcast_dimensions", operand_rank);
    case OpKind::kDynamicReshape: return CheckStaticShapeOperand(op, 1);
    case OpKind::kSlice: return needs("start_indices", operand_rank);
    case OpKind::kBroadcast: {
      const std::span<const int64_t> sizes = op.GetI64Array("broadcast_sizes");
      if (result.rank() != static_cast<int64_t>(sizes.size() + operand_rank))
        return Unsupported(op, "its result must be broadcast_sizes then the operand's dimensions");
      return OkStatus();
    }
    case OpKind::kRealDynamicSlice: {
      // start_indices, limit_indices and strides: constants that give the result.
      const stablehlo::Type operand = op.operand(0)->type();
      std::vector<std::vector<int64_t>> bounds;
      for (const char* name : {"start_indices", "limit_indices", "strides"}) {
        std::optional<std::vector<int64_t>> values = StaticArray(op, name);
        if (!values)
          return Unsupported(op, std::string(name) +
                                     " is not a constant (dynamic shapes are not generated)");
        if (values->size() != operand_rank)
          return Unsupported(op, std::string(name) + " must hold one value per dimension");
        bounds.push_back(std::move(*values));
      }
      for (size_t d = 0; d < operand_rank; ++d) {
        const int64_t start = bounds[0][d], limit = bounds[1][d], stride = bounds[2][d];
        if (start < 0 || limit < start || limit > operand.dim(static_cast<int64_t>(d)) ||
            stride <= 0 ||
            (limit - start + stride - 1) / stride != result.dim(static_cast<int64_t>(d))) {
          return InvalidArgumentError(Where(op) + ": its slice of dimension " + std::to_string(d) +
                                      " does not fit its operand and result");
        }
      }
      return OkStatus();
    }
    case OpKind::kDynamicIota:
      BERTH_RETURN_IF_ERROR(CheckStaticShapeOperand(op, 0));
      [[fallthrough]];
    case OpKind::kIota: {
      std::optional<int64_t> dimension = op.GetInt("iota_dimension");
      if (!dimension || *dimension < 0 || *dimension >= result.rank()) {
        return Unsupported(op, "iota_dimension is not a dimension of the result");
      }
      return OkStatus();
    }
    default: return OkStatus();
  }
}

// stablehlo.map: over every dimension in order, its computation taking one
// rank-0 element of each operand and returning one of the result, by
// elementwise ops (EmitOps inlines it).
Status CheckMap(const Operation& op) {
  const stablehlo::Type result = op.result(0)->type();
  const std::span<const int64_t> dimensions = op.GetI64Array("dimensions");
  for (int64_t d = 0; d < result.rank(); ++d) {
    if (static_cast<int64_t>(dimensions.size()) != result.rank() ||
        dimensions[static_cast<size_t>(d)] != d) {
      return Unsupported(op, "its dimensions must be every dimension in order");
    }
  }
  if (op.num_regions() != 1 || op.region(0).blocks().size() != 1)
    return Unsupported(op, "its computation must be one block");
  const stablehlo::Block& block = op.region(0).entry_block();
  if (block.num_arguments() != op.num_operands() || block.terminator() == nullptr ||
      block.terminator()->num_operands() != 1 ||
      block.terminator()->operand(0)->type().element_type() != result.element_type()) {
    return Unsupported(op, "its computation must take an element of each operand and return one");
  }
  for (size_t a = 0; a < op.num_operands(); ++a) {
    const stablehlo::Type arg = block.argument(a)->type();
    if (!IsRankZeroOf(arg) || arg.element_type() != op.operand(a)->type().element_type())
      return Unsupported(op, "its computation must take rank-0 elements of its operands' types");
  }
  for (const Operation* inner : block.operations()) {
    if (inner == block.terminator()) continue;
    BERTH_RETURN_IF_ERROR(CheckFusible(*inner).WithContext("in the computation of " + Where(op)));
  }
  return OkStatus();
}

Status CheckFusible(const Operation& op) {
  if (!IsGeneratedElementwiseKind(op.kind()))
    return Unsupported(op, "not an elementwise op the code generator knows");
  if (op.num_results() != 1 || (op.num_regions() != 0 && op.kind() != OpKind::kMap))
    return Unsupported(op, "not one result without regions");
  const stablehlo::Type result = op.result(0)->type();
  BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, result));
  for (const stablehlo::Value* value : op.operands()) {
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, value->type()));
    if (value->type().NumElements() != result.NumElements() && !IsRankZeroOf(value->type())) {
      return Unsupported(op, "an operand of " + value->type().ToString() + " against a result of " +
                                 result.ToString());
    }
  }
  if (op.kind() == OpKind::kMap) return CheckMap(op);
  if (op.kind() == OpKind::kConvert || op.kind() == OpKind::kCompare ||
      op.kind() == OpKind::kIsFinite)
    return OkStatus();
  // The expression must exist for the operand type (e.g. no sqrt of integers).
  std::vector<std::string> args(op.num_operands(), "x");
  return OpExpression(op, args).status();
}

bool IsChloBroadcastKind(OpKind kind) { return ElementwiseKindOf(kind) != kind; }

Status CheckChloBroadcast(const Operation& op) {
  if (!IsChloBroadcastKind(op.kind()) || op.num_results() != 1)
    return Unsupported(op, "not a chlo.broadcast_* op");
  const stablehlo::Type result = op.result(0)->type();
  BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, result));
  for (size_t k = 0; k < op.num_operands(); ++k) {
    const stablehlo::Type operand = op.operand(k)->type();
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, operand));
    const std::vector<int64_t> map = op.chlo_broadcast_dimensions(k);
    bool fits = map.size() == static_cast<size_t>(operand.rank());
    for (size_t d = 0; fits && d < map.size(); ++d) {
      const int64_t size = operand.dim(static_cast<int64_t>(d));
      fits = map[d] >= 0 && map[d] < result.rank() && (size == 1 || size == result.dim(map[d]));
    }
    if (!fits) {
      return InvalidArgumentError(Where(op) + ": operand #" + std::to_string(k) + " " +
                                  operand.ToString() + " does not broadcast to the result " +
                                  result.ToString());
    }
  }
  // The expression must exist for the operand type (as CheckFusible).
  std::vector<std::string> args(op.num_operands(), "x");
  return OpExpression(op, args).status();
}

// chlo.broadcast_*: each thread one result element; each operand's element
// where the broadcast maps it (dimensions of size 1 at 0), then the
// elementwise kind's expression, rounded to the result type as any op.
Result<std::string> codegen::EmitChloBroadcastKernel(const FusedKernel& kernel) {
  const Operation& op = *kernel.root;
  BERTH_RETURN_IF_ERROR(CheckChloBroadcast(op));
  const stablehlo::Type result = op.result(0)->type();
  std::string body;
  const std::vector<std::string> r = EmitResultIndex(result.shape(), "r", body);
  std::vector<std::string> args;
  int reads = 0;
  for (size_t k = 0; k < op.num_operands(); ++k) {
    const stablehlo::Type operand = op.operand(k)->type();
    const std::vector<int64_t> map = op.chlo_broadcast_dimensions(k);
    std::vector<std::string> index(map.size());
    for (size_t d = 0; d < map.size(); ++d)
      index[d] = operand.dim(static_cast<int64_t>(d)) == 1 ? "0LL" : r[static_cast<size_t>(map[d])];
    const std::string x = "x" + std::to_string(k);
    body += "    " + std::string(ComputeType(operand.element_type())) + " " + x + ";\n";
    BERTH_RETURN_IF_ERROR(EmitElementLoad(kernel, op.operand(k), index, x, operand.element_type(),
                                          "    ", reads, body));
    args.push_back(x);
  }
  BERTH_ASSIGN_OR_RETURN(std::string expression, OpExpression(op, args));
  const ElementType type = result.element_type();
  if (RoundsAfterEachOp(type)) expression = RoundTo(type, expression);
  body += "    out0[i] = " + Store(type, expression) + ";\n";
  return WrapKernel(kernel.name, KernelParams(kernel), body);
}

Result<std::string> EmitFusedKernel(const FusedKernel& kernel) {
  using Family = FusedKernel::Family;
  if (kernel.family != Family::kElementwise && kernel.root == nullptr) {
    return InvalidArgumentError("fused kernel '" + kernel.name + "' has no root op");
  }
  switch (kernel.family) {
    case Family::kScatter: return EmitScatterKernel(kernel);
    case Family::kSelectAndScatter: return EmitSelectAndScatterKernel(kernel);
    case Family::kSolve: return EmitSolveKernel(kernel);
    case Family::kDot: return EmitDotKernel(kernel);
    case Family::kConvolution: return EmitConvolutionKernel(kernel);
    case Family::kReduce:
      return kernel.root->kind() == OpKind::kReduceWindow ? EmitReduceWindowKernel(kernel)
                                                          : EmitReduceKernel(kernel);
    case Family::kMove: return EmitMoveKernel(kernel);
    case Family::kRandomBits: return EmitRandomBitsKernel(kernel);
    case Family::kSort: return EmitSortKernel(kernel);
    case Family::kBitcast: return EmitBitcastKernel(kernel);
    case Family::kTopK: return EmitTopKKernel(kernel);
    case Family::kCollective: return EmitCollectiveKernel(kernel);
    case Family::kFft: return EmitFftKernel(kernel);
    case Family::kScan: return EmitScanKernel(kernel);
    case Family::kRaggedDot: return EmitRaggedDotKernel(kernel);
    case Family::kCholesky: return EmitCholeskyKernel(kernel);
    case Family::kBatchNorm: return EmitBatchNormKernel(kernel);
    case Family::kChloBroadcast: return EmitChloBroadcastKernel(kernel);
    case Family::kElementwise: break;
  }
  if ((kernel.ops.empty() && kernel.views.empty()) || kernel.outputs.empty()) {
    return InvalidArgumentError("fused kernel '" + kernel.name +
                                "' has nothing to compute or no outputs");
  }
  std::unordered_map<const stablehlo::Value*, std::string> names;
  std::string params = KernelParams(kernel), body;
  for (size_t i = 0; i < kernel.inputs.size(); ++i) {
    const stablehlo::Value* value = kernel.inputs[i];
    const ElementType type = value->type().element_type();
    const std::string param = "in" + std::to_string(i);
    const std::string local = "x" + std::to_string(i);
    // Loaded per element only when an op reads it as it is (a view's
    // source may have another element count).
    const bool direct = std::any_of(kernel.ops.begin(), kernel.ops.end(), [&](const Operation* op) {
      return std::find(op->operands().begin(), op->operands().end(), value) != op->operands().end();
    });
    if (!direct) continue;
    const bool scalar = IsRankZeroOf(value->type()) && kernel.num_elements != 1;
    body += "    const " + std::string(ComputeType(type)) + " " + local + " = " +
            Load(type, param + (scalar ? "[0]" : "[i]")) + ";\n";
    names[value] = local;
  }
  for (size_t k = 0; k < kernel.views.size(); ++k) {
    const ViewRead& view = kernel.views[k];
    const ElementType type = view.value->type().element_type();
    std::string index, iota;
    body += EmitViewIndex(view, "i", "w" + std::to_string(k) + "_", index, iota);
    const std::string local = "y" + std::to_string(k);
    if (!iota.empty()) {
      body += "    const " + std::string(ComputeType(type)) + " " + local + " = " +
              ConvertExpression(ElementType::kSI64, type, iota) + ";\n";
    } else {
      BERTH_ASSIGN_OR_RETURN(const std::string param, InputParam(kernel, view.source));
      body += "    const " + std::string(ComputeType(type)) + " " + local + " = " +
              Load(type, param + "[" + index + "]") + ";\n";
    }
    names[view.value] = local;
  }
  int next = 0;
  BERTH_RETURN_IF_ERROR(EmitOps(kernel.name, kernel.ops, "    ", names, next, body));
  for (size_t i = 0; i < kernel.outputs.size(); ++i) {
    auto it = names.find(kernel.outputs[i]);
    if (it == names.end()) {
      return InvalidArgumentError("fused kernel '" + kernel.name + "': output " +
                                  std::to_string(i) + " is not computed by its ops");
    }
    body += "    out" + std::to_string(i) +
            "[i] = " + Store(kernel.outputs[i]->type().element_type(), it->second) + ";\n";
  }
  return WrapKernel(kernel.name, params, body);
}

}  // namespace berth::cuda
