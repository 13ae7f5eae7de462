// The verifier: module and function structure, region terminators, value
// types, then per-op checks (verify_*.cc) for every op, recursively.
#include "berth/stablehlo/verifier.hpp"

#include <algorithm>
#include <unordered_set>

#include "src/verifier_impl.hpp"

namespace berth::stablehlo {
namespace detail {

Status OpError(const Operation& op, std::string_view message) {
  std::string text = op.location().ToString();
  text += ": error: '";
  text += op.name();
  text += "' op ";
  text += message;
  return InvalidArgumentError(std::move(text));
}

std::string Str(Type type) { return type.ToString(); }

std::string Str(std::span<const int64_t> values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ", ";
    if (i == 16 && values.size() > 20) {
      out += "... (" + std::to_string(values.size()) + " values)";
      break;
    }
    out += values[i] == kDynamic ? std::string("?") : std::to_string(values[i]);
  }
  out += ']';
  return out;
}

bool ShapesCompatible(std::span<const int64_t> a, std::span<const int64_t> b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!DimsCompatible(a[i], b[i])) return false;
  }
  return true;
}

bool TypesCompatible(Type a, Type b) {
  if (a == b) return true;
  if (!a.IsTensor() || !b.IsTensor()) {
    if (a.IsTuple() && b.IsTuple() && a.types().size() == b.types().size()) {
      for (size_t i = 0; i < a.types().size(); ++i) {
        if (!TypesCompatible(a.types()[i], b.types()[i])) return false;
      }
      return true;
    }
    return false;
  }
  return a.element_type() == b.element_type() && a.opaque_text() == b.opaque_text() &&
         ShapesCompatible(a.shape(), b.shape());
}

bool IsRank0Tensor(Type t) { return t.IsTensor() && t.rank() == 0; }

Type OperandType(const Operation& op, size_t i) { return op.operand(i)->type(); }
Type ResultType(const Operation& op, size_t i) { return op.result(i)->type(); }

Status ExpectOperands(const Operation& op, size_t n) {
  if (op.num_operands() == n) return OkStatus();
  return OpError(op, "expects " + std::to_string(n) + " operand(s), has " +
                         std::to_string(op.num_operands()));
}

Status ExpectMinOperands(const Operation& op, size_t n) {
  if (op.num_operands() >= n) return OkStatus();
  return OpError(op, "expects at least " + std::to_string(n) + " operand(s), has " +
                         std::to_string(op.num_operands()));
}

Status ExpectResults(const Operation& op, size_t n) {
  if (op.num_results() == n) return OkStatus();
  return OpError(op, "expects " + std::to_string(n) + " result(s), has " +
                         std::to_string(op.num_results()));
}

Status ExpectTensorOperand(const Operation& op, size_t i) {
  if (i < op.num_operands() && OperandType(op, i).IsTensor()) return OkStatus();
  return OpError(op, "operand #" + std::to_string(i) + " must be a tensor, is " +
                         (i < op.num_operands() ? Str(OperandType(op, i)) : "missing"));
}

Status ExpectTensorOperands(const Operation& op, size_t n) {
  BERTH_RETURN_IF_ERROR(ExpectOperands(op, n));
  BERTH_RETURN_IF_ERROR(ExpectResults(op, 1));
  for (size_t i = 0; i < n; ++i) BERTH_RETURN_IF_ERROR(ExpectTensorOperand(op, i));
  return OkStatus();
}

Status OneTensorInOut(const Operation& op, size_t operands) {
  BERTH_RETURN_IF_ERROR(ExpectTensorOperands(op, operands));
  return ExpectTensorResult(op, 0);
}

Status ExpectTensorResult(const Operation& op, size_t i) {
  if (i < op.num_results() && ResultType(op, i).IsTensor()) return OkStatus();
  return OpError(op, "result #" + std::to_string(i) + " must be a tensor, is " +
                         (i < op.num_results() ? Str(ResultType(op, i)) : "missing"));
}

Status ExpectResultShape(const Operation& op, size_t i, std::span<const int64_t> expected) {
  BERTH_RETURN_IF_ERROR(ExpectTensorResult(op, i));
  Type t = ResultType(op, i);
  if (ShapesCompatible(t.shape(), expected)) return OkStatus();
  return OpError(op, "result #" + std::to_string(i) + " has shape " + Str(t.shape()) +
                         "; expected " + Str(expected));
}

Status ExpectDimsInRange(const Operation& op, std::span<const int64_t> dims, int64_t rank,
                         std::string_view what, bool unique) {
  std::vector<bool> seen(rank > 0 ? static_cast<size_t>(rank) : 0, false);
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= rank) {
      return OpError(op, std::string(what) + " " + Str(dims) + " has " +
                             std::to_string(dims[i]) + ", outside [0, " + std::to_string(rank) +
                             ")");
    }
    if (unique && seen[static_cast<size_t>(dims[i])]) {
      return OpError(op, std::string(what) + " " + Str(dims) + " repeats " +
                             std::to_string(dims[i]));
    }
    seen[static_cast<size_t>(dims[i])] = true;
  }
  return OkStatus();
}

std::vector<bool> DimMask(std::span<const int64_t> dims, int64_t rank) {
  std::vector<bool> mask(rank > 0 ? static_cast<size_t>(rank) : 0, false);
  for (int64_t d : dims) {
    if (d >= 0 && d < rank) mask[static_cast<size_t>(d)] = true;
  }
  return mask;
}

Status GetI64ArrayAttr(const Operation& op, std::string_view name, bool required,
                       std::vector<int64_t>* out, bool* present) {
  const Attribute* a = op.attr(name);
  if (present) *present = a != nullptr;
  if (!a) {
    if (required) return OpError(op, "requires attribute '" + std::string(name) + "'");
    out->clear();
    return OkStatus();
  }
  if (auto* arr = a->dyn_cast<DenseArrayAttr>()) {
    if (IsInteger(arr->element_type()) || IsBool(arr->element_type())) {
      out->assign(arr->ints().begin(), arr->ints().end());
      return OkStatus();
    }
  }
  return OpError(op, "attribute '" + std::string(name) + "' must be an array of integers");
}

Status GetIntAttr(const Operation& op, std::string_view name, bool required, int64_t* out) {
  const Attribute* a = op.attr(name);
  if (!a) {
    if (required) return OpError(op, "requires attribute '" + std::string(name) + "'");
    return OkStatus();
  }
  auto* i = a->dyn_cast<IntegerAttr>();
  if (!i) return OpError(op, "attribute '" + std::string(name) + "' must be an integer");
  *out = i->value();
  return OkStatus();
}

Result<int64_t> DimensionAttr(const Operation& op, std::string_view name, int64_t rank) {
  int64_t dim = -1;
  BERTH_RETURN_IF_ERROR(GetIntAttr(op, name, true, &dim));
  if (dim < 0 || dim >= rank) {
    return OpError(op, std::string(name) + " " + std::to_string(dim) + " is outside [0, " +
                           std::to_string(rank) + ")");
  }
  return dim;
}

const Block& RegionBlock(const Operation& op, size_t i) { return op.region(i).entry_block(); }

std::vector<Type> ReturnTypes(const Block& block) {
  std::vector<Type> out;
  if (Operation* t = block.terminator()) {
    for (Value* v : t->operands()) out.push_back(v->type());
  }
  return out;
}

Status ExpectScalarRegion(const Operation& op, size_t region, size_t args, size_t returns) {
  const Block& block = RegionBlock(op, region);
  if (block.num_arguments() != args) {
    return OpError(op, "region #" + std::to_string(region) + " must take " +
                           std::to_string(args) + " argument(s), takes " +
                           std::to_string(block.num_arguments()));
  }
  for (size_t i = 0; i < args; ++i) {
    if (!IsRank0Tensor(block.argument(i)->type())) {
      return OpError(op, "region #" + std::to_string(region) + " argument #" +
                             std::to_string(i) + " must be a rank-0 tensor, is " +
                             Str(block.argument(i)->type()));
    }
  }
  std::vector<Type> ret = ReturnTypes(block);
  if (ret.size() != returns) {
    return OpError(op, "region #" + std::to_string(region) + " must return " +
                           std::to_string(returns) + " value(s), returns " +
                           std::to_string(ret.size()));
  }
  for (size_t i = 0; i < ret.size(); ++i) {
    if (!IsRank0Tensor(ret[i])) {
      return OpError(op, "region #" + std::to_string(region) + " must return rank-0 tensors, "
                             "returns " + Str(ret[i]));
    }
  }
  return OkStatus();
}

namespace {

// Regions an op must have: -1 means one or more.
int ExpectedRegions(OpKind kind) {
  switch (kind) {
    case OpKind::kReduce:
    case OpKind::kSort:
    case OpKind::kMap:
    case OpKind::kReduceWindow:
    case OpKind::kScatter:
    case OpKind::kAllReduce:
    case OpKind::kReduceScatter:
    case OpKind::kCollectiveReduce:
    case OpKind::kChloScan:
    case OpKind::kSdyManualComputation: return 1;
    case OpKind::kWhile:
    case OpKind::kIf:
    case OpKind::kSelectAndScatter: return 2;
    case OpKind::kCase: return -1;
    default: return 0;
  }
}

// The op that ends the regions of an op of `kind`.
OpKind RegionTerminator(OpKind kind) {
  return kind == OpKind::kSdyManualComputation ? OpKind::kSdyReturn : OpKind::kReturn;
}

bool AllowsIndexElements(OpKind kind) {
  return kind == OpKind::kComputeReshapeShape || kind == OpKind::kCstrReshapable ||
         kind == OpKind::kCustomCall;
}

// `what` and `index` name the value ("operand", 2) for messages only.
Status CheckValueType(const Operation& op, Type t, const char* what, size_t index) {
  auto name = [&]() { return std::string(what) + " #" + std::to_string(index); };
  if (!t) return OpError(op, name() + " has no type");
  switch (t.kind()) {
    case TypeKind::kTensor: {
      ElementType e = t.element_type();
      if (e <= ElementType::kComplex128) return OkStatus();  // the common case
      if (t.IsQuantized()) {
        return OpError(op, name() + " has quantized type " + Str(t) +
                               "; quantized types are not supported by Verify (lower them first: "
                               "LowerQuantizedTypes)");
      }
      if (e == ElementType::kTF32 || (e == ElementType::kIndex && !AllowsIndexElements(op.kind()))) {
        return OpError(op, name() + " has element type " + std::string(ElementTypeName(e)) +
                               ", which values cannot have");
      }
      return OkStatus();
    }
    case TypeKind::kToken:
      return OkStatus();
    case TypeKind::kTuple:
      for (Type inner : t.types()) BERTH_RETURN_IF_ERROR(CheckValueType(op, inner, what, index));
      return OkStatus();
    default:
      if (op.kind() == OpKind::kCustomCall) return OkStatus();
      return OpError(op, name() + " has type " + Str(t) +
                             ", which is not a tensor, token or tuple");
  }
}

class Verifier {
 public:
  explicit Verifier(const Module& module) : module_(module) {}

  Status Run() {
    for (Operation* op : module_.top_level_ops()) {
      if (op->kind() != OpKind::kSdyMesh) return OpError(*op, "is not allowed at module level");
    }
    for (Function* f : module_.functions()) BERTH_RETURN_IF_ERROR(VerifyFunction(*f));
    return OkStatus();
  }

 private:
  Status FunctionError(const Function& f, std::string_view message) {
    std::string text = f.location().ToString();
    text += ": error: function '@";
    text += f.name();
    text += "' ";
    text += message;
    return InvalidArgumentError(std::move(text));
  }

  Status VerifyFunction(const Function& f) {
    if (f.is_declaration()) return OkStatus();
    if (f.body().blocks().size() != 1) return FunctionError(f, "must have exactly one block");
    const Block& entry = f.entry_block();
    std::span<const Type> inputs = f.argument_types();
    if (entry.num_arguments() != inputs.size()) {
      return FunctionError(f, "entry block arguments do not match the signature");
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (entry.argument(i)->type() != inputs[i]) {
        return FunctionError(f, "entry block argument #" + std::to_string(i) +
                                    " does not match the signature");
      }
    }
    for (Type t : inputs) {
      if (t.IsTensor() && t.IsQuantized()) {
        return FunctionError(f, "has quantized argument type " + Str(t) +
                                    "; quantized types are not supported by Verify (lower them "
                                    "first: LowerQuantizedTypes)");
      }
    }
    BERTH_RETURN_IF_ERROR(VerifyBlock(entry, OpKind::kFuncReturn, nullptr));
    Operation* ret = entry.terminator();
    std::span<const Type> results = f.result_types();
    if (ret->num_operands() != results.size()) {
      return OpError(*ret, "returns " + std::to_string(ret->num_operands()) +
                               " value(s) but @" + std::string(f.name()) + " has " +
                               std::to_string(results.size()) + " result(s)");
    }
    for (size_t i = 0; i < results.size(); ++i) {
      if (OperandType(*ret, i) != results[i]) {
        return OpError(*ret, "type of return operand " + std::to_string(i) + " (" +
                                 Str(OperandType(*ret, i)) +
                                 ") doesn't match function result type (" + Str(results[i]) +
                                 ")");
      }
    }
    return OkStatus();
  }

  // Every op, then the terminator at the end only.
  Status VerifyBlock(const Block& block, OpKind terminator, const Operation* parent) {
    std::span<Operation* const> ops = block.operations();
    if (ops.empty() || !IsTerminator(ops.back()->kind())) {
      std::string expected(OpKindName(terminator));
      if (parent) return OpError(*parent, "region must end with '" + expected + "'");
      return InvalidArgumentError(
          (ops.empty() ? std::string(module_.filename()) : ops.back()->location().ToString()) +
          ": error: function body must end with '" + expected + "'");
    }
    for (size_t i = 0; i < ops.size(); ++i) {
      const Operation& op = *ops[i];
      if (IsTerminator(op.kind())) {
        if (i + 1 != ops.size()) return OpError(op, "must be the last op in its block");
        if (op.kind() != terminator) {
          return OpError(op, parent ? "is not allowed here: this region ends with '" +
                                          std::string(OpKindName(terminator)) + "'"
                                    : "is not allowed here: a function ends with 'func.return'");
        }
      }
      BERTH_RETURN_IF_ERROR(VerifyOp(op));
    }
    return OkStatus();
  }

  Status VerifyOp(const Operation& op) {
    for (size_t i = 0; i < op.num_operands(); ++i) {
      BERTH_RETURN_IF_ERROR(CheckValueType(op, OperandType(op, i), "operand", i));
    }
    for (size_t i = 0; i < op.num_results(); ++i) {
      BERTH_RETURN_IF_ERROR(CheckValueType(op, ResultType(op, i), "result", i));
    }
    int expected = ExpectedRegions(op.kind());
    if (expected >= 0 && op.num_regions() != static_cast<size_t>(expected)) {
      return OpError(op, "expects " + std::to_string(expected) + " region(s), has " +
                             std::to_string(op.num_regions()));
    }
    if (expected < 0 && op.num_regions() == 0) return OpError(op, "expects at least one region");
    for (size_t r = 0; r < op.num_regions(); ++r) {
      const Region& region = op.region(r);
      if (region.blocks().size() != 1) {
        return OpError(op, "region #" + std::to_string(r) + " must have exactly one block");
      }
      const Block& block = region.entry_block();
      if (block.operations().empty() || !IsTerminator(block.operations().back()->kind())) {
        return OpError(op, "region #" + std::to_string(r) + " must end with '" +
                               std::string(OpKindName(RegionTerminator(op.kind()))) + "'");
      }
      for (Value* arg : block.arguments()) {
        BERTH_RETURN_IF_ERROR(CheckValueType(op, arg->type(), "region argument", arg->index()));
      }
    }
    BERTH_RETURN_IF_ERROR(VerifyElementwiseOp(op));
    BERTH_RETURN_IF_ERROR(VerifyShapeOp(op));
    BERTH_RETURN_IF_ERROR(VerifyLinalgOp(op));
    BERTH_RETURN_IF_ERROR(VerifyRegionOp(op, module_));
    BERTH_RETURN_IF_ERROR(VerifyMiscOp(op, module_));
    for (size_t r = 0; r < op.num_regions(); ++r) {
      BERTH_RETURN_IF_ERROR(VerifyBlock(op.region(r).entry_block(), RegionTerminator(op.kind()), &op));
    }
    return OkStatus();
  }

  const Module& module_;
};

}  // namespace
}  // namespace detail

Status Verify(const Module& module) { return detail::Verifier(module).Run(); }

}  // namespace berth::stablehlo
