// Checks for elementwise ops: unary, binary, compare, select, clamp, and the
// CHLO elementwise ops.
#include <algorithm>

#include "src/verifier_impl.hpp"

namespace berth::stablehlo::detail {
namespace {

enum Category : unsigned {
  kBoolC = 1,
  kSignedC = 2,
  kUnsignedC = 4,
  kFloatC = 8,
  kComplexC = 16,
  kIntC = kSignedC | kUnsignedC,
  kAnyC = kBoolC | kIntC | kFloatC | kComplexC,
};

bool InCategory(ElementType e, unsigned categories) {
  if (IsBool(e)) return categories & kBoolC;
  if (IsSignedInteger(e)) return categories & kSignedC;
  if (IsUnsignedInteger(e)) return categories & kUnsignedC;
  if (IsFloat(e)) return categories & kFloatC;
  if (IsComplex(e)) return categories & kComplexC;
  return false;
}

std::string CategoryText(unsigned c) {
  std::string out;
  auto add = [&](const char* s) {
    if (!out.empty()) out += ", ";
    out += s;
  };
  if (c & kBoolC) add("boolean");
  if ((c & kIntC) == kIntC) {
    add("integer");
  } else if (c & kSignedC) {
    add("signed integer");
  } else if (c & kUnsignedC) {
    add("unsigned integer");
  }
  if (c & kFloatC) add("floating-point");
  if (c & kComplexC) add("complex");
  return out;
}

Status ExpectCategory(const Operation& op, size_t operand, unsigned categories) {
  ElementType e = OperandType(op, operand).element_type();
  if (InCategory(e, categories)) return OkStatus();
  return OpError(op, "operand #" + std::to_string(operand) + " must be a tensor of " +
                         CategoryText(categories) + " type, is " + Str(OperandType(op, operand)));
}

// Element type of a result given the operand's, for ops that change it.
enum class ResultRule { kSame, kComponent, kBool };

Status Unary(const Operation& op, unsigned categories, ResultRule rule = ResultRule::kSame) {
  BERTH_RETURN_IF_ERROR(OneTensorInOut(op, 1));
  BERTH_RETURN_IF_ERROR(ExpectCategory(op, 0, categories));
  Type in = OperandType(op, 0);
  Type out = ResultType(op, 0);
  if (!ShapesCompatible(in.shape(), out.shape())) {
    return OpError(op, "result shape " + Str(out.shape()) + " differs from operand shape " +
                           Str(in.shape()));
  }
  ElementType expected = in.element_type();
  if (rule == ResultRule::kComponent) expected = ComplexComponentType(expected);
  if (rule == ResultRule::kBool) expected = ElementType::kI1;
  if (out.element_type() != expected) {
    return OpError(op, "result element type must be " + std::string(ElementTypeName(expected)) +
                           ", is " + std::string(ElementTypeName(out.element_type())));
  }
  return OkStatus();
}

// Operands and result share one shape; operands share one element type.
Status Binary(const Operation& op, unsigned categories, ResultRule rule = ResultRule::kSame) {
  BERTH_RETURN_IF_ERROR(ExpectTensorOperands(op, 2));
  BERTH_RETURN_IF_ERROR(ExpectTensorResult(op, 0));
  Type lhs = OperandType(op, 0);
  Type rhs = OperandType(op, 1);
  Type out = ResultType(op, 0);
  if (lhs.element_type() != rhs.element_type()) {
    return OpError(op, "operands must have the same element type, have " + Str(lhs) + " and " +
                           Str(rhs));
  }
  BERTH_RETURN_IF_ERROR(ExpectCategory(op, 0, categories));
  if (!ShapesCompatible(lhs.shape(), rhs.shape()) || !ShapesCompatible(lhs.shape(), out.shape())) {
    return OpError(op, "requires the same shape for all operands and results, have " + Str(lhs) +
                           ", " + Str(rhs) + " -> " + Str(out));
  }
  ElementType expected = lhs.element_type();
  if (rule == ResultRule::kBool) expected = ElementType::kI1;
  if (rule == ResultRule::kComponent) {
    expected = lhs.element_type() == ElementType::kF32   ? ElementType::kComplex64
               : lhs.element_type() == ElementType::kF64 ? ElementType::kComplex128
                                                         : ElementType::kOpaque;
  }
  if (out.element_type() != expected) {
    return OpError(op, "result element type must be " + std::string(ElementTypeName(expected)) +
                           ", is " + std::string(ElementTypeName(out.element_type())));
  }
  return OkStatus();
}

Status Compare(const Operation& op) {
  BERTH_RETURN_IF_ERROR(Binary(op, kAnyC, ResultRule::kBool));
  if (!op.comparison_direction()) {
    return OpError(op, "requires a comparison_direction attribute");
  }
  std::optional<ComparisonType> type = op.compare_type();
  if (op.has_attr("compare_type") && !type) {
    return OpError(op, "compare_type must be a #stablehlo<comparison_type ...>");
  }
  if (!type || *type == ComparisonType::kNoType) return OkStatus();
  ElementType e = OperandType(op, 0).element_type();
  bool ok;
  switch (*type) {
    case ComparisonType::kSigned: ok = IsSignedInteger(e); break;
    case ComparisonType::kUnsigned: ok = IsUnsignedInteger(e) || IsBool(e); break;
    case ComparisonType::kFloat: ok = IsFloat(e) || IsComplex(e); break;
    case ComparisonType::kTotalOrder: ok = IsFloat(e); break;
    default: ok = true; break;
  }
  if (!ok) {
    return OpError(op, "compare_type " + std::string(EnumKeyword(EnumKind::kComparisonType,
                                                                 static_cast<uint8_t>(*type))) +
                           " does not fit element type " + std::string(ElementTypeName(e)));
  }
  return OkStatus();
}

Status Select(const Operation& op) {
  BERTH_RETURN_IF_ERROR(ExpectTensorOperands(op, 3));
  Type pred = OperandType(op, 0);
  Type on_true = OperandType(op, 1);
  Type on_false = OperandType(op, 2);
  if (pred.element_type() != ElementType::kI1) {
    return OpError(op, "pred must be a tensor of i1, is " + Str(pred));
  }
  if (!TypesCompatible(on_true, on_false)) {
    return OpError(op, "on_true and on_false must have the same type, have " + Str(on_true) +
                           " and " + Str(on_false));
  }
  if (pred.rank() != 0 && !ShapesCompatible(pred.shape(), on_true.shape())) {
    return OpError(op, "pred must be rank 0 or have the shape of on_true, is " + Str(pred));
  }
  if (!TypesCompatible(ResultType(op, 0), on_true)) {
    return OpError(op, "result type " + Str(ResultType(op, 0)) + " must match " + Str(on_true));
  }
  return OkStatus();
}

Status Clamp(const Operation& op) {
  BERTH_RETURN_IF_ERROR(ExpectTensorOperands(op, 3));
  Type operand = OperandType(op, 1);
  for (size_t i : {size_t{0}, size_t{2}}) {
    Type bound = OperandType(op, i);
    if (bound.element_type() != operand.element_type()) {
      return OpError(op, "min, operand and max must have the same element type");
    }
    if (bound.rank() != 0 && !ShapesCompatible(bound.shape(), operand.shape())) {
      return OpError(op, std::string(i == 0 ? "min" : "max") +
                             " must be rank 0 or have the operand's shape, is " + Str(bound));
    }
  }
  if (!TypesCompatible(ResultType(op, 0), operand)) {
    return OpError(op, "result type " + Str(ResultType(op, 0)) + " must match the operand " +
                           Str(operand));
  }
  return OkStatus();
}

Status ReducePrecision(const Operation& op) {
  BERTH_RETURN_IF_ERROR(Unary(op, kFloatC));
  int64_t e = -1, m = -1;
  BERTH_RETURN_IF_ERROR(GetIntAttr(op, "exponent_bits", true, &e));
  BERTH_RETURN_IF_ERROR(GetIntAttr(op, "mantissa_bits", true, &m));
  if (e < 1) return OpError(op, "exponent_bits must be at least 1");
  if (m < 0) return OpError(op, "mantissa_bits must not be negative");
  return OkStatus();
}

// The element categories a CHLO broadcasting op takes: those of the
// StableHLO op it broadcasts.
unsigned ChloBroadcastCategories(OpKind kind) {
  switch (kind) {
    case OpKind::kChloBroadcastAdd:
    case OpKind::kChloBroadcastMultiply:
    case OpKind::kChloBroadcastMax:
    case OpKind::kChloBroadcastMin:
    case OpKind::kChloBroadcastCompare:
    case OpKind::kChloBroadcastSelect: return kAnyC;
    case OpKind::kChloBroadcastSubtract:
    case OpKind::kChloBroadcastDivide:
    case OpKind::kChloBroadcastRemainder:
    case OpKind::kChloBroadcastPower: return kIntC | kFloatC | kComplexC;
    case OpKind::kChloBroadcastAtan2: return kFloatC | kComplexC;
    case OpKind::kChloBroadcastAnd:
    case OpKind::kChloBroadcastOr:
    case OpKind::kChloBroadcastXor: return kBoolC | kIntC;
    case OpKind::kChloBroadcastShiftLeft:
    case OpKind::kChloBroadcastShiftRightArithmetic:
    case OpKind::kChloBroadcastShiftRightLogical: return kIntC;
    default: return kFloatC;  // complex, next_after, polygamma, zeta
  }
}

// CHLO broadcasting ops: operands broadcast to the result (numpy style, or
// through broadcast_dimensions for the lower-rank operand of a binary op;
// Operation::chlo_broadcast_dimensions), element types as the StableHLO op.
Status ChloBroadcast(const Operation& op) {
  const bool select = op.kind() == OpKind::kChloBroadcastSelect;
  BERTH_RETURN_IF_ERROR(ExpectOperands(op, select ? 3 : 2));
  BERTH_RETURN_IF_ERROR(ExpectResults(op, 1));
  for (size_t i = 0; i < op.num_operands(); ++i) BERTH_RETURN_IF_ERROR(ExpectTensorOperand(op, i));
  BERTH_RETURN_IF_ERROR(ExpectTensorResult(op, 0));
  const size_t lhs = select ? 1 : 0;
  Type a = OperandType(op, lhs);
  Type b = OperandType(op, lhs + 1);
  if (select && OperandType(op, 0).element_type() != ElementType::kI1) {
    return OpError(op, "pred must be a tensor of i1, is " + Str(OperandType(op, 0)));
  }
  if (a.element_type() != b.element_type()) {
    return OpError(op, "operands must have the same element type, have " + Str(a) + " and " +
                           Str(b));
  }
  BERTH_RETURN_IF_ERROR(ExpectCategory(op, lhs, ChloBroadcastCategories(op.kind())));
  ElementType expected = a.element_type();
  if (op.kind() == OpKind::kChloBroadcastCompare) {
    expected = ElementType::kI1;
    if (!op.comparison_direction()) return OpError(op, "requires a comparison_direction attribute");
  }
  if (op.kind() == OpKind::kChloBroadcastComplex) {
    expected = a.element_type() == ElementType::kF32   ? ElementType::kComplex64
               : a.element_type() == ElementType::kF64 ? ElementType::kComplex128
                                                       : ElementType::kOpaque;
  }
  Type out = ResultType(op, 0);
  if (out.element_type() != expected) {
    return OpError(op, "result element type must be " + std::string(ElementTypeName(expected)) +
                           ", is " + std::string(ElementTypeName(out.element_type())));
  }
  std::vector<int64_t> bcast_dims;
  bool has_bcast_dims = false;
  BERTH_RETURN_IF_ERROR(
      GetI64ArrayAttr(op, "broadcast_dimensions", false, &bcast_dims, &has_bcast_dims));
  if (has_bcast_dims && select) return OpError(op, "takes no broadcast_dimensions");
  int64_t max_rank = 0;
  for (size_t i = 0; i < op.num_operands(); ++i) {
    max_rank = std::max(max_rank, OperandType(op, i).rank());
  }
  if (out.rank() != max_rank) {
    return OpError(op, "result rank " + std::to_string(out.rank()) +
                           " must be the highest operand rank, " + std::to_string(max_rank));
  }
  if (has_bcast_dims && a.rank() != b.rank()) {
    int64_t low = std::min(a.rank(), b.rank());
    if (static_cast<int64_t>(bcast_dims.size()) != low) {
      return OpError(op, "broadcast_dimensions " + Str(bcast_dims) +
                             " must have one entry per dimension of the lower-rank operand (" +
                             std::to_string(low) + ")");
    }
    BERTH_RETURN_IF_ERROR(ExpectDimsInRange(op, bcast_dims, out.rank(), "broadcast_dimensions"));
  }
  // Every operand dimension is 1 or the result's (numpy broadcasting); the
  // result's is the largest of those mapped to it.
  std::vector<int64_t> expected_shape(static_cast<size_t>(out.rank()), 1);
  for (size_t i = 0; i < op.num_operands(); ++i) {
    Type t = OperandType(op, i);
    std::vector<int64_t> map = op.chlo_broadcast_dimensions(i);
    if (static_cast<int64_t>(map.size()) != t.rank()) {
      return OpError(op, "operand #" + std::to_string(i) + " " + Str(t) +
                             " does not broadcast to the result " + Str(out));
    }
    for (int64_t d = 0; d < t.rank(); ++d) {
      int64_t size = t.dim(d);
      int64_t& target = expected_shape[static_cast<size_t>(map[static_cast<size_t>(d)])];
      if (size == 1 || size == target) continue;
      if (target == 1 || target == kDynamic) {
        target = size;
      } else if (size != kDynamic) {
        return OpError(op, "operands do not broadcast: dimension " + std::to_string(d) +
                               " of operand #" + std::to_string(i) + " " + Str(t) + " is " +
                               std::to_string(size) + " where another operand has " +
                               std::to_string(target));
      }
    }
  }
  if (!ShapesCompatible(out.shape(), expected_shape)) {
    return OpError(op, "result shape " + Str(out.shape()) + " must be the broadcast shape " +
                           Str(expected_shape) + " of the operands");
  }
  return OkStatus();
}

// chlo.constant_like: a splat of `value` (a typed number) with the
// operand's shape; the result's element type is the value's.
Status ConstantLike(const Operation& op) {
  BERTH_RETURN_IF_ERROR(OneTensorInOut(op, 1));
  const Attribute* value = op.attr("value");
  if (!value) return OpError(op, "requires a 'value' attribute");
  ElementType type;
  if (auto* f = value->dyn_cast<FloatAttr>()) {
    type = f->type();
  } else if (auto* i = value->dyn_cast<IntegerAttr>()) {
    type = i->type();
  } else if (value->isa<BoolAttr>()) {
    type = ElementType::kI1;
  } else if (auto* d = value->dyn_cast<DenseElementsAttr>(); d && d->is_splat()) {
    type = d->element_type();
  } else {
    return OpError(op, "'value' must be a typed number such as 1.0 : f32 or a splat dense<...>");
  }
  Type out = ResultType(op, 0);
  if (out.element_type() != type) {
    return OpError(op, "value's type " + std::string(ElementTypeName(type)) +
                           " differs from the result element type " +
                           std::string(ElementTypeName(out.element_type())));
  }
  if (!ShapesCompatible(out.shape(), OperandType(op, 0).shape())) {
    return OpError(op, "result shape " + Str(out.shape()) + " differs from operand shape " +
                           Str(OperandType(op, 0).shape()));
  }
  return OkStatus();
}

}  // namespace

Status VerifyElementwiseOp(const Operation& op) {
  switch (op.kind()) {
    case OpKind::kAbs: return Unary(op, kSignedC | kFloatC | kComplexC, ResultRule::kComponent);
    case OpKind::kCbrt:
    case OpKind::kCosine:
    case OpKind::kSine:
    case OpKind::kTan:
    case OpKind::kTanh:
    case OpKind::kExponential:
    case OpKind::kExponentialMinusOne:
    case OpKind::kLog:
    case OpKind::kLogPlusOne:
    case OpKind::kLogistic:
    case OpKind::kRsqrt:
    case OpKind::kSqrt: return Unary(op, kFloatC | kComplexC);
    case OpKind::kSquare: return Unary(op, kIntC | kFloatC | kComplexC);
    case OpKind::kCeil:
    case OpKind::kFloor:
    case OpKind::kRoundNearestAfz:
    case OpKind::kRoundNearestEven: return Unary(op, kFloatC);
    case OpKind::kCountLeadingZeros:
    case OpKind::kPopcnt: return Unary(op, kIntC);
    case OpKind::kNot: return Unary(op, kBoolC | kIntC);
    case OpKind::kNegate: return Unary(op, kIntC | kFloatC | kComplexC);
    case OpKind::kSign: return Unary(op, kSignedC | kFloatC | kComplexC);
    case OpKind::kIsFinite: return Unary(op, kFloatC, ResultRule::kBool);
    case OpKind::kReal:
    case OpKind::kImag: return Unary(op, kFloatC | kComplexC, ResultRule::kComponent);
    case OpKind::kConvert: {
      BERTH_RETURN_IF_ERROR(ExpectOperands(op, 1));
      BERTH_RETURN_IF_ERROR(ExpectResults(op, 1));
      BERTH_RETURN_IF_ERROR(ExpectTensorOperand(op, 0));
      BERTH_RETURN_IF_ERROR(ExpectTensorResult(op, 0));
      if (!ShapesCompatible(OperandType(op, 0).shape(), ResultType(op, 0).shape())) {
        return OpError(op, "result shape must equal the operand shape");
      }
      return OkStatus();
    }
    case OpKind::kReducePrecision: return ReducePrecision(op);
    case OpKind::kAdd:
    case OpKind::kMultiply:
    case OpKind::kMaximum:
    case OpKind::kMinimum: return Binary(op, kAnyC);
    case OpKind::kSubtract:
    case OpKind::kDivide:
    case OpKind::kRemainder:
    case OpKind::kPower: return Binary(op, kIntC | kFloatC | kComplexC);
    case OpKind::kAtan2: return Binary(op, kFloatC | kComplexC);
    case OpKind::kAnd:
    case OpKind::kOr:
    case OpKind::kXor: return Binary(op, kBoolC | kIntC);
    case OpKind::kShiftLeft:
    case OpKind::kShiftRightArithmetic:
    case OpKind::kShiftRightLogical: return Binary(op, kIntC);
    case OpKind::kComplex: return Binary(op, kFloatC, ResultRule::kComponent);
    case OpKind::kCompare: return Compare(op);
    case OpKind::kSelect: return Select(op);
    case OpKind::kClamp: return Clamp(op);
    case OpKind::kChloMulhi: return Binary(op, kIntC);
    case OpKind::kChloNextAfter:
    case OpKind::kChloPolygamma:
    case OpKind::kChloZeta: return Binary(op, kFloatC);
    case OpKind::kChloAcos:
    case OpKind::kChloAcosh:
    case OpKind::kChloAsin:
    case OpKind::kChloAsinh:
    case OpKind::kChloAtan:
    case OpKind::kChloAtanh:
    case OpKind::kChloCosh:
    case OpKind::kChloSinh:
    case OpKind::kChloTan:
    case OpKind::kChloSquare: return Unary(op, kFloatC | kComplexC);
    case OpKind::kChloBesselI1e:
    case OpKind::kChloDigamma:
    case OpKind::kChloErf:
    case OpKind::kChloErfInv:
    case OpKind::kChloErfc:
    case OpKind::kChloLgamma: return Unary(op, kFloatC);
    case OpKind::kChloConj: return Unary(op, kFloatC | kComplexC);
    case OpKind::kChloIsInf:
    case OpKind::kChloIsNegInf:
    case OpKind::kChloIsPosInf: return Unary(op, kFloatC, ResultRule::kBool);
    case OpKind::kChloBroadcastAdd:
    case OpKind::kChloBroadcastAnd:
    case OpKind::kChloBroadcastAtan2:
    case OpKind::kChloBroadcastCompare:
    case OpKind::kChloBroadcastComplex:
    case OpKind::kChloBroadcastDivide:
    case OpKind::kChloBroadcastMax:
    case OpKind::kChloBroadcastMin:
    case OpKind::kChloBroadcastMultiply:
    case OpKind::kChloBroadcastNextAfter:
    case OpKind::kChloBroadcastOr:
    case OpKind::kChloBroadcastPolygamma:
    case OpKind::kChloBroadcastPower:
    case OpKind::kChloBroadcastRemainder:
    case OpKind::kChloBroadcastSelect:
    case OpKind::kChloBroadcastShiftLeft:
    case OpKind::kChloBroadcastShiftRightArithmetic:
    case OpKind::kChloBroadcastShiftRightLogical:
    case OpKind::kChloBroadcastSubtract:
    case OpKind::kChloBroadcastXor:
    case OpKind::kChloBroadcastZeta: return ChloBroadcast(op);
    case OpKind::kChloConstantLike: return ConstantLike(op);
    default: return OkStatus();
  }
}

}  // namespace berth::stablehlo::detail
