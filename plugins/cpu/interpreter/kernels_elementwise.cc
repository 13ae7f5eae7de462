// The elementwise kernel family's entry points: which ops are elementwise,
// how a node is made for one (by the themed files, see elementwise_blocks.hpp,
// in the selected ISA variant, isa/isa.hpp),
// and the kernels that run an elementwise op on its own when the plan does
// not fuse (compile option fuse_elementwise = false).
#include <algorithm>
#include <string>

#include "interpreter/elementwise_blocks.hpp"
#include "isa/isa.hpp"

namespace berth::cpu {

using stablehlo::OpKind;
using stablehlo::Operation;

namespace elementwise {

Status NotDefinedOn(std::string_view what, stablehlo::ElementType type) {
  return InvalidArgumentError(std::string(what) + " is not defined on element type " +
                              std::string(stablehlo::ElementTypeName(type)));
}

}  // namespace elementwise

namespace {

// The themed files are compiled once per ISA variant; the selected one's
// block functions compute.
elementwise::MakeBlockFn FindMaker(const Operation& op) {
  return isa::Active().find_elementwise(op);
}

// The types the block function of `op` computes with (ElementwiseNode):
// narrow operands and results are decoded into and encoded from wider ones.
void ChooseComputeTypes(const Operation& op, ElementwiseNode& node) {
  for (int i = 0; i < node.num_args; ++i) {
    node.compute_arg[static_cast<size_t>(i)] =
        WideComputeType(node.arg_type[static_cast<size_t>(i)]);
  }
  node.compute_out = WideComputeType(node.out_type);
  const bool narrow_int_out = IsNarrowInteger(node.out_type);
  switch (op.kind()) {
    case OpKind::kBitcastConvert:
      // Bits as they are; a narrow integer result is re-extended.
      node.compute_arg = node.arg_type;
      node.compute_out = node.out_type;
      node.widened = narrow_int_out;
      return;
    case OpKind::kConvert:
      // To a float format: from f64, one rounding. To a narrow integer
      // from a float: saturating, as convert is for wider integers.
      if (IsNarrowType(node.out_type) && !narrow_int_out) node.compute_out = ElementType::kF64;
      if (narrow_int_out && stablehlo::IsFloat(node.arg_type[0]))
        node.encode = NarrowEncode::kSaturate;
      break;
    case OpKind::kPopcnt:
    case OpKind::kCountLeadingZeros:
    case OpKind::kShiftRightLogical:
    case OpKind::kChloBroadcastShiftRightLogical:
      // On the bit pattern: a signed narrow integer's bits zero-extended.
      if (IsNarrowInteger(node.arg_type[0])) {
        node.decode_bits = true;
        for (int i = 0; i < node.num_args; ++i)
          node.compute_arg[static_cast<size_t>(i)] = ElementType::kUI8;
        node.compute_out = ElementType::kUI8;
        if (op.kind() == OpKind::kCountLeadingZeros) node.encode = NarrowEncode::kLeadingZeros;
      }
      break;
    default: break;
  }
  node.widened = node.compute_out != node.out_type;
  for (int i = 0; i < node.num_args; ++i) {
    node.widened = node.widened || node.compute_arg[static_cast<size_t>(i)] !=
                                       node.arg_type[static_cast<size_t>(i)];
  }
}

Result<ElementwiseNode> MakeNode(const Operation& op, std::string_view what) {
  elementwise::MakeBlockFn make = FindMaker(op);
  if (make == nullptr || op.num_results() != 1 || op.num_operands() > 3) {
    return InternalError(std::string(what) + " is not an elementwise op");
  }
  ElementwiseNode node;
  node.op = &op;
  node.num_args = static_cast<int>(op.num_operands());
  stablehlo::Type result = op.result(0)->type();
  if (!result.IsTensor()) return InvalidArgumentError(std::string(what) + " must produce a tensor");
  node.out_type = result.element_type();
  if (!IsSupportedElementType(node.out_type)) return UnsupportedElementType(node.out_type, what);
  for (size_t i = 0; i < op.num_operands(); ++i) {
    stablehlo::Type type = op.operand(i)->type();
    if (!type.IsTensor()) {
      return InvalidArgumentError(std::string(what) + " takes tensors, operand #" +
                                  std::to_string(i) + " is " + type.ToString());
    }
    if (!IsSupportedElementType(type.element_type())) {
      return UnsupportedElementType(type.element_type(), what);
    }
    node.arg_type[i] = type.element_type();
    node.scalar_arg[i] = type.rank() == 0 && result.rank() > 0;
  }
  ChooseComputeTypes(op, node);
  BERTH_RETURN_IF_ERROR(make(op, what, node));
  return node;
}

// Runs one elementwise op as a fused step of one node.
Status RunElementwise(KernelCall& call) {
  BERTH_ASSIGN_OR_RETURN(ElementwiseNode node, MakeNode(call.op, call.op.name()));
  std::vector<FusedElementwise::Node> nodes(1);
  nodes[0].node = node;
  for (int i = 0; i < node.num_args; ++i) nodes[0].args[static_cast<size_t>(i)] = -1 - i;
  std::span<const int64_t> shape = call.op.result(0)->type().shape();
  FusedElementwise step(std::move(nodes), node.num_args,
                        std::vector<int64_t>(shape.begin(), shape.end()));
  BERTH_ASSIGN_OR_RETURN(Tensor out, step.Run(call.operands, call.ctx.pool()));
  call.results.push_back(std::move(out));
  return OkStatus();
}

// Every op some themed file may compute elementwise.
constexpr OpKind kElementwiseKinds[] = {
    OpKind::kAdd,
    OpKind::kSubtract,
    OpKind::kMultiply,
    OpKind::kDivide,
    OpKind::kRemainder,
    OpKind::kPower,
    OpKind::kMaximum,
    OpKind::kMinimum,
    OpKind::kAtan2,
    OpKind::kAnd,
    OpKind::kOr,
    OpKind::kXor,
    OpKind::kShiftLeft,
    OpKind::kShiftRightArithmetic,
    OpKind::kShiftRightLogical,
    OpKind::kCompare,
    OpKind::kSelect,
    OpKind::kClamp,
    OpKind::kAbs,
    OpKind::kNegate,
    OpKind::kSign,
    OpKind::kNot,
    OpKind::kPopcnt,
    OpKind::kCountLeadingZeros,
    OpKind::kCeil,
    OpKind::kFloor,
    OpKind::kRoundNearestAfz,
    OpKind::kRoundNearestEven,
    OpKind::kSqrt,
    OpKind::kRsqrt,
    OpKind::kCbrt,
    OpKind::kExponential,
    OpKind::kExponentialMinusOne,
    OpKind::kLog,
    OpKind::kLogPlusOne,
    OpKind::kLogistic,
    OpKind::kSine,
    OpKind::kCosine,
    OpKind::kTan,
    OpKind::kTanh,
    OpKind::kIsFinite,
    OpKind::kConvert,
    OpKind::kReducePrecision,
    OpKind::kComplex,
    OpKind::kReal,
    OpKind::kImag,
    // CHLO (kernels_elementwise_special.cc); chlo.broadcast_* are kernels_chlo.cc's.
    OpKind::kChloErf,
    OpKind::kChloErfc,
    OpKind::kChloErfInv,
    OpKind::kChloLgamma,
    OpKind::kChloDigamma,
    OpKind::kChloBesselI1e,
    OpKind::kChloPolygamma,
    OpKind::kChloZeta,
    OpKind::kChloAsin,
    OpKind::kChloAcos,
    OpKind::kChloAtan,
    OpKind::kChloSinh,
    OpKind::kChloCosh,
    OpKind::kChloTan,
    OpKind::kChloAsinh,
    OpKind::kChloAcosh,
    OpKind::kChloAtanh,
    OpKind::kChloSquare,
    OpKind::kChloIsInf,
    OpKind::kChloIsPosInf,
    OpKind::kChloIsNegInf,
    OpKind::kChloNextAfter,
    OpKind::kChloMulhi,
    OpKind::kChloConj,
};

// Whether every operand of a chlo.broadcast_* op already has the result's
// shape (select's predicate may be rank 0), so its block function runs on
// the operands as they are; otherwise its kernel broadcasts them first.
bool NeedsNoBroadcast(const Operation& op) {
  stablehlo::Type result = op.result(0)->type();
  for (size_t i = 0; i < op.num_operands(); ++i) {
    stablehlo::Type type = op.operand(i)->type();
    if (i == 0 && op.kind() == OpKind::kChloBroadcastSelect && type.rank() == 0) continue;
    if (!type.IsTensor() || !std::ranges::equal(type.shape(), result.shape())) return false;
    if (std::ranges::count(type.shape(), stablehlo::kDynamic) > 0) return false;
  }
  return true;
}

}  // namespace

bool IsFusibleElementwise(const Operation& op) {
  if (IsChloBroadcast(op.kind()) && !NeedsNoBroadcast(op)) return false;
  return FindMaker(op) != nullptr;
}

Result<ElementwiseNode> MakeElementwiseNode(const Operation& op) {
  // Errors name the op with its location; that text is built only for an op
  // that fails (for every op it was a tenth of loading a large plan).
  Result<ElementwiseNode> node = MakeNode(op, op.name());
  if (node.ok()) return node;
  return MakeNode(op, op.location().ToString() + ": '" + std::string(op.name()) + "'");
}

void RegisterElementwiseKernels(KernelRegistry& registry) {
  for (OpKind kind : kElementwiseKinds) registry.Register(kind, RunElementwise);
  RegisterBitcastConvertKernel(registry);
  RegisterIotaKernels(registry);
}

}  // namespace berth::cpu
