#include "codegen/elementwise_codegen.hpp"

#include <algorithm>
#include <unordered_map>

#include "codegen/kernel_prelude.hpp"

namespace berth::cuda {
namespace {

using stablehlo::ElementType;
using stablehlo::Operation;
using stablehlo::OpKind;

enum class Class { kBool, kSigned, kUnsigned, kFloat, kNone };

Class ClassOf(ElementType type) {
  switch (type) {
    case ElementType::kI1: return Class::kBool;
    case ElementType::kSI8:
    case ElementType::kSI16:
    case ElementType::kSI32:
    case ElementType::kSI64: return Class::kSigned;
    case ElementType::kUI8:
    case ElementType::kUI16:
    case ElementType::kUI32:
    case ElementType::kUI64: return Class::kUnsigned;
    case ElementType::kF16:
    case ElementType::kBF16:
    case ElementType::kF32:
    case ElementType::kF64: return Class::kFloat;
    default: return Class::kNone;
  }
}

bool IsHalf(ElementType type) { return type == ElementType::kF16 || type == ElementType::kBF16; }

// How an element is held in device memory.
const char* StorageType(ElementType type) {
  switch (type) {
    case ElementType::kI1: return "berth_u8";
    case ElementType::kSI8: return "berth_s8";
    case ElementType::kSI16: return "berth_s16";
    case ElementType::kSI32: return "berth_s32";
    case ElementType::kSI64: return "berth_s64";
    case ElementType::kUI8: return "berth_u8";
    case ElementType::kUI16: return "berth_u16";
    case ElementType::kUI32: return "berth_u32";
    case ElementType::kUI64: return "berth_u64";
    case ElementType::kF16:
    case ElementType::kBF16: return "berth_u16";
    case ElementType::kF32: return "float";
    case ElementType::kF64: return "double";
    default: return nullptr;
  }
}

// What it is computed in.
const char* ComputeType(ElementType type) {
  switch (type) {
    case ElementType::kI1: return "bool";
    case ElementType::kF16:
    case ElementType::kBF16: return "float";
    default: return StorageType(type);
  }
}

std::string Load(ElementType type, const std::string& element) {
  switch (type) {
    case ElementType::kI1: return "(" + element + " != 0)";
    case ElementType::kF16: return "berth_f16_to_f32(" + element + ")";
    case ElementType::kBF16: return "berth_bf16_to_f32(" + element + ")";
    default: return element;
  }
}

std::string Store(ElementType type, const std::string& value) {
  switch (type) {
    case ElementType::kI1: return "(berth_u8)" + value;
    case ElementType::kF16: return "berth_f32_to_f16(" + value + ")";
    case ElementType::kBF16: return "berth_f32_to_bf16(" + value + ")";
    default: return value;
  }
}

// A float value computed in float, rounded to the result's half type.
std::string RoundTo(ElementType type, const std::string& value) {
  if (type == ElementType::kF16) return "berth_round_f16(" + value + ")";
  if (type == ElementType::kBF16) return "berth_round_bf16(" + value + ")";
  return value;
}

std::string Call(const std::string& fn, const std::string& a) { return fn + "(" + a + ")"; }
std::string Call(const std::string& fn, const std::string& a, const std::string& b) {
  return fn + "(" + a + ", " + b + ")";
}
std::string Infix(const std::string& a, const char* op, const std::string& b) {
  return "(" + a + " " + op + " " + b + ")";
}

std::string Where(const Operation& op) {
  return std::string(op.name()) + " at " + op.location().ToString();
}

Status Unsupported(const Operation& op, const std::string& why) {
  return UnimplementedError("the cuda plugin cannot generate " + Where(op) + ": " + why);
}

// convert: `a` (computed as ComputeType(from)) as a `to` compute value.
std::string ConvertExpression(ElementType from, ElementType to, const std::string& a) {
  const Class source = ClassOf(from), target = ClassOf(to);
  if (from == to) return a;
  if (target == Class::kBool) return source == Class::kBool ? a : "(" + a + " != 0)";
  if (source == Class::kBool) {
    return target == Class::kFloat
               ? "(" + a + " ? (" + ComputeType(to) + ")1 : (" + ComputeType(to) + ")0)"
               : "(" + std::string(ComputeType(to)) + ")(" + a + " ? 1 : 0)";
  }
  if (target == Class::kFloat) {
    if (to == ElementType::kF16 || to == ElementType::kBF16) {
      const char* half = to == ElementType::kF16 ? "f16" : "bf16";
      if (source != Class::kFloat) {
        return "berth_" + std::string(half) + "_to_f32(berth_int_to_" + half + "(" + a + "))";
      }
      if (from == ElementType::kF64)
        return "berth_" + std::string(half) + "_to_f32(berth_f64_to_" + half + "(" + a + "))";
      return RoundTo(to, a);  // from f16/bf16/f32, exact in float: one rounding
    }
    return "(" + std::string(ComputeType(to)) + ")" + a;
  }
  // To an integer.
  if (source == Class::kFloat)
    return "berth_float_to_int<" + std::string(ComputeType(to)) + ">(" + a + ")";
  return "(" + std::string(ComputeType(to)) + ")" + a;  // wraps modulo 2^N
}

std::string CompareExpression(const Operation& op, ElementType type, const std::string& a,
                              const std::string& b, Status& status) {
  using stablehlo::ComparisonDirection;
  using stablehlo::ComparisonType;
  std::optional<ComparisonDirection> direction = op.comparison_direction();
  if (!direction) {
    status = Unsupported(op, "no comparison_direction");
    return "";
  }
  ComparisonType compare = op.compare_type().value_or(ComparisonType::kNoType);
  std::string x = a, y = b;
  if (compare == ComparisonType::kTotalOrder && ClassOf(type) == Class::kFloat) {
    x = "berth_total_key(" + a + ")";
    y = "berth_total_key(" + b + ")";
  }
  const char* symbol = "==";
  switch (*direction) {
    case ComparisonDirection::kEq: symbol = "=="; break;
    case ComparisonDirection::kNe: symbol = "!="; break;
    case ComparisonDirection::kGe: symbol = ">="; break;
    case ComparisonDirection::kGt: symbol = ">"; break;
    case ComparisonDirection::kLe: symbol = "<="; break;
    case ComparisonDirection::kLt: symbol = "<"; break;
  }
  return Infix(x, symbol, y);
}

// Float-only ops that are one function of the operand.
const char* FloatFunctionOf(OpKind kind) {
  switch (kind) {
    case OpKind::kExponential: return "exp";
    case OpKind::kExponentialMinusOne: return "expm1";
    case OpKind::kLog: return "log";
    case OpKind::kLogPlusOne: return "log1p";
    case OpKind::kLogistic: return "berth_logistic";
    case OpKind::kSqrt: return "sqrt";
    case OpKind::kCbrt: return "cbrt";
    case OpKind::kCeil: return "ceil";
    case OpKind::kFloor: return "floor";
    case OpKind::kRoundNearestEven: return "rint";
    case OpKind::kRoundNearestAfz: return "round";
    case OpKind::kSine: return "sin";
    case OpKind::kCosine: return "cos";
    case OpKind::kTan: return "tan";
    case OpKind::kTanh: return "tanh";
    case OpKind::kIsFinite: return "isfinite";
    case OpKind::kChloErf: return "erf";
    case OpKind::kChloErfc: return "erfc";
    case OpKind::kChloAsin: return "asin";
    case OpKind::kChloAcos: return "acos";
    case OpKind::kChloAtan: return "atan";
    case OpKind::kChloSinh: return "sinh";
    case OpKind::kChloCosh: return "cosh";
    case OpKind::kChloTan: return "tan";
    case OpKind::kChloAsinh: return "asinh";
    case OpKind::kChloAcosh: return "acosh";
    case OpKind::kChloAtanh: return "atanh";
    default: return nullptr;
  }
}

// bitcast_convert between element types of one width (no shape change):
// integers reinterpret, f32/f64 through their bit patterns. Not i1, and
// not f16/bf16: their values are held as floats, whose NaNs would not keep
// every payload bit the cpu plugin keeps.
Result<std::string> BitcastExpression(const Operation& op, const std::string& a) {
  const ElementType from = op.operand(0)->type().element_type(),
                    to = op.result(0)->type().element_type();
  const Class source = ClassOf(from), target = ClassOf(to);
  if (stablehlo::BitWidth(from) != stablehlo::BitWidth(to) || source == Class::kBool ||
      target == Class::kBool || IsHalf(from) || IsHalf(to)) {
    return Unsupported(
        op, "only bitcasts between integers, f32 and f64 of one width are generated, not " +
                std::string(stablehlo::ElementTypeName(from)) + " to " +
                std::string(stablehlo::ElementTypeName(to)));
  }
  const bool wide = stablehlo::BitWidth(from) == 64;
  // As an unsigned integer of the width, then as the target.
  std::string bits = a;
  if (source == Class::kFloat)
    bits = wide ? "(berth_u64)__double_as_longlong(" + a + ")"
                : "(berth_u32)__float_as_uint(" + a + ")";
  if (target == Class::kFloat) {
    if (source == Class::kFloat) return a;
    return wide ? "__longlong_as_double((long long)(berth_u64)" + bits + ")"
                : "__uint_as_float((berth_u32)" + bits + ")";
  }
  return "(" + std::string(ComputeType(to)) + ")" + bits;
}

// The expression of `op` over its operands' compute values, in the
// result's compute type (before rounding to a half type).
Result<std::string> OpExpression(const Operation& op, const std::vector<std::string>& args) {
  const ElementType operand = op.num_operands() > 0
                                  ? op.operand(op.num_operands() - 1)->type().element_type()
                                  : ElementType::kF32;
  const ElementType result = op.result(0)->type().element_type();
  const Class c = ClassOf(operand);
  const std::string t = ComputeType(operand);
  auto a = [&] { return args[0]; };
  auto b = [&] { return args[1]; };
  auto by_class = [&](std::string for_bool, std::string for_int,
                      std::string for_float) -> Result<std::string> {
    const std::string& chosen = c == Class::kBool    ? for_bool
                                : c == Class::kFloat ? for_float
                                                     : for_int;
    if (chosen.empty()) {
      return Unsupported(op, "not defined on " + std::string(stablehlo::ElementTypeName(operand)));
    }
    return chosen;
  };
  auto tmpl = [&](const char* fn) { return std::string(fn) + "<" + t + ">"; };
  if (const char* function = FloatFunctionOf(op.kind()))
    return by_class("", "", Call(function, a()));
  switch (op.kind()) {
    case OpKind::kAdd:
      return by_class(Infix(a(), "||", b()), Call(tmpl("berth_iadd"), a(), b()),
                      Infix(a(), "+", b()));
    case OpKind::kSubtract:
      return by_class("", Call(tmpl("berth_isub"), a(), b()), Infix(a(), "-", b()));
    case OpKind::kMultiply:
      return by_class(Infix(a(), "&&", b()), Call(tmpl("berth_imul"), a(), b()),
                      Infix(a(), "*", b()));
    case OpKind::kDivide:
      return by_class("", Call(tmpl("berth_idiv"), a(), b()), Infix(a(), "/", b()));
    case OpKind::kRemainder:
      return by_class("", Call(tmpl("berth_irem"), a(), b()), Call("fmod", a(), b()));
    case OpKind::kPower:
      return by_class("", Call(tmpl("berth_ipow"), a(), b()), Call("pow", a(), b()));
    case OpKind::kMaximum:
      return by_class(Infix(a(), "||", b()),
                      "(" + a() + " > " + b() + " ? " + a() + " : " + b() + ")",
                      Call("berth_fmax", a(), b()));
    case OpKind::kMinimum:
      return by_class(Infix(a(), "&&", b()),
                      "(" + a() + " < " + b() + " ? " + a() + " : " + b() + ")",
                      Call("berth_fmin", a(), b()));
    case OpKind::kAtan2: return by_class("", "", Call("atan2", a(), b()));
    case OpKind::kAnd:
      return by_class(Infix(a(), "&&", b()), "(" + t + ")" + Infix(a(), "&", b()), "");
    case OpKind::kOr:
      return by_class(Infix(a(), "||", b()), "(" + t + ")" + Infix(a(), "|", b()), "");
    case OpKind::kXor:
      return by_class(Infix(a(), "!=", b()), "(" + t + ")" + Infix(a(), "^", b()), "");
    case OpKind::kNot: return by_class("(!" + a() + ")", "(" + t + ")(~" + a() + ")", "");
    case OpKind::kShiftLeft: return by_class("", Call(tmpl("berth_shl"), a(), b()), "");
    case OpKind::kShiftRightLogical:
      return by_class("", Call(tmpl("berth_shr_logical"), a(), b()), "");
    case OpKind::kShiftRightArithmetic:
      return by_class("", Call(tmpl("berth_shr_arithmetic"), a(), b()), "");
    case OpKind::kChloMulhi: return by_class("", Call(tmpl("berth_mulhi"), a(), b()), "");
    case OpKind::kPopcnt: return by_class("", Call(tmpl("berth_popcnt"), a()), "");
    case OpKind::kCountLeadingZeros: return by_class("", Call(tmpl("berth_clz"), a()), "");
    case OpKind::kAbs:
      return by_class("", c == Class::kUnsigned ? a() : Call(tmpl("berth_iabs"), a()),
                      Call("fabs", a()));
    case OpKind::kNegate: return by_class("", Call(tmpl("berth_ineg"), a()), "(-" + a() + ")");
    case OpKind::kSign:
      return by_class("",
                      c == Class::kUnsigned ? "(" + t + ")(" + a() + " != 0)"
                                            : Call(tmpl("berth_isign"), a()),
                      Call("berth_fsign", a()));
    case OpKind::kRsqrt: return by_class("", "", "((" + t + ")1 / sqrt(" + a() + "))");
    case OpKind::kCompare: {
      Status status;
      std::string expression =
          CompareExpression(op, op.operand(0)->type().element_type(), a(), b(), status);
      if (!status.ok()) return status;
      return expression;
    }
    case OpKind::kSelect: return "(" + args[0] + " ? " + args[1] + " : " + args[2] + ")";
    case OpKind::kClamp: {
      // min(max(operand, min), max), with the ops' own semantics.
      const std::string x = args[1], lo = args[0], hi = args[2];
      if (c == Class::kFloat) return Call("berth_fmin", Call("berth_fmax", x, lo), hi);
      if (c == Class::kBool) return Infix(Infix(x, "||", lo), "&&", hi);
      const std::string raised = "(" + x + " > " + lo + " ? " + x + " : " + lo + ")";
      return "(" + raised + " < " + hi + " ? " + raised + " : " + hi + ")";
    }
    case OpKind::kConvert:
      return ConvertExpression(op.operand(0)->type().element_type(), result, a());
    case OpKind::kBitcastConvert: return BitcastExpression(op, a());
    case OpKind::kChloSquare: return by_class("", "", Infix(a(), "*", a()));
    case OpKind::kChloIsInf: return by_class("", "", Call("isinf", a()));
    case OpKind::kChloIsPosInf: return by_class("", "", "(isinf(" + a() + ") && " + a() + " > 0)");
    case OpKind::kChloIsNegInf: return by_class("", "", "(isinf(" + a() + ") && " + a() + " < 0)");
    default: break;
  }
  return Unsupported(op, "not an elementwise op the code generator knows");
}

bool IsRankZeroOf(stablehlo::Type type) { return type.IsTensor() && type.rank() == 0; }

std::vector<int64_t> RowMajorStrides(std::span<const int64_t> shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

// The row-major element index, in `shape`, of the multi-index whose
// dimensions `index` spells (one expression each).
std::string LinearIndex(const std::vector<std::string>& index, std::span<const int64_t> shape) {
  const std::vector<int64_t> strides = RowMajorStrides(shape);
  std::string linear = "0LL";
  for (size_t d = 0; d < index.size(); ++d) {
    linear += " + (" + index[d] + ") * " + std::to_string(strides[d]) + "LL";
  }
  return linear;
}

// Code computing, from the element index `at` of `view.value`, the source's
// element index (`index` gets its name) or, for an iota chain, the iota's
// value as an i64 (`iota` gets its name). Each step names its multi-index
// "<prefix><step>_<dim>".
std::string EmitViewIndex(const ViewRead& view, const std::string& at, const std::string& prefix,
                          std::string& index, std::string& iota) {
  std::string code;
  std::vector<std::string> current;
  stablehlo::Type type = view.value->type();
  {
    const std::vector<int64_t> strides = RowMajorStrides(type.shape());
    for (int64_t d = 0; d < type.rank(); ++d) {
      const std::string name = prefix + "0_" + std::to_string(d);
      code += "    const berth_s64 " + name + " = " + at + " / " + std::to_string(strides[d]) +
              "LL % " + std::to_string(type.dim(d)) + "LL;\n";
      current.push_back(name);
    }
  }
  int step = 0;
  for (const Operation* op : view.chain) {
    ++step;
    if (op->kind() == OpKind::kIota) {
      iota = current[static_cast<size_t>(*op->GetInt("iota_dimension"))];
      return code;
    }
    const stablehlo::Type operand = op->operand(0)->type();
    std::vector<std::string> next(static_cast<size_t>(operand.rank()));
    auto name = [&](size_t d) { return prefix + std::to_string(step) + "_" + std::to_string(d); };
    std::vector<std::string> exprs(next.size());
    switch (op->kind()) {
      case OpKind::kTranspose: {
        std::span<const int64_t> permutation = op->GetI64Array("permutation");
        for (size_t d = 0; d < permutation.size(); ++d)
          exprs[static_cast<size_t>(permutation[d])] = current[d];
        break;
      }
      case OpKind::kBroadcastInDim: {
        std::span<const int64_t> dims = op->GetI64Array("broadcast_dimensions");
        for (size_t k = 0; k < dims.size(); ++k) {
          exprs[k] = operand.dim(static_cast<int64_t>(k)) == 1
                         ? "0LL"
                         : current[static_cast<size_t>(dims[k])];
        }
        break;
      }
      case OpKind::kReshape: {
        const std::string linear = LinearIndex(current, type.shape());
        const std::string flat = prefix + std::to_string(step) + "_flat";
        code += "    const berth_s64 " + flat + " = " + linear + ";\n";
        const std::vector<int64_t> operand_strides = RowMajorStrides(operand.shape());
        for (size_t d = 0; d < exprs.size(); ++d) {
          exprs[d] = flat + " / " + std::to_string(operand_strides[d]) + "LL % " +
                     std::to_string(operand.dim(static_cast<int64_t>(d))) + "LL";
        }
        break;
      }
      case OpKind::kSlice: {
        std::span<const int64_t> start = op->GetI64Array("start_indices");
        std::span<const int64_t> strides = op->GetI64Array("strides");
        for (size_t d = 0; d < exprs.size(); ++d) {
          const int64_t stride = d < strides.size() ? strides[d] : 1;
          exprs[d] = std::to_string(start[d]) + "LL + " + current[d] + " * " +
                     std::to_string(stride) + "LL";
        }
        break;
      }
      case OpKind::kReverse: {
        std::span<const int64_t> dims = op->GetI64Array("dimensions");
        for (size_t d = 0; d < exprs.size(); ++d) {
          const bool reversed =
              std::find(dims.begin(), dims.end(), static_cast<int64_t>(d)) != dims.end();
          exprs[d] = reversed ? std::to_string(operand.dim(static_cast<int64_t>(d)) - 1) + "LL - " +
                                    current[d]
                              : current[d];
        }
        break;
      }
      default: break;
    }
    for (size_t d = 0; d < next.size(); ++d) {
      next[d] = name(d);
      code += "    const berth_s64 " + next[d] + " = " + exprs[d] + ";\n";
    }
    current = std::move(next);
    type = operand;
  }
  const std::string linear = LinearIndex(current, type.shape());
  index = prefix + "_at";
  code += "    const berth_s64 " + index + " = " + linear + ";\n";
  return code;
}

// The kernel's parameters but the element count: each input
// (`const T* inK`), then each output (`T* outJ`), in their storage types.
std::string KernelParams(const FusedKernel& kernel) {
  std::string params;
  for (size_t k = 0; k < kernel.inputs.size(); ++k) {
    params += "const " + std::string(StorageType(kernel.inputs[k]->type().element_type())) +
              "* __restrict__ in" + std::to_string(k) + ", ";
  }
  for (size_t j = 0; j < kernel.outputs.size(); ++j) {
    params += std::string(StorageType(kernel.outputs[j]->type().element_type())) +
              "* __restrict__ out" + std::to_string(j) + ", ";
  }
  return params;
}

// The translation unit: the prelude, then the kernel `name` with
// `params` (and the element count n) running `body` in a grid-stride loop
// over the element index i.
std::string WrapKernel(const std::string& name, const std::string& params,
                       const std::string& body) {
  std::string source(KernelPrelude());
  source += "\nextern \"C\" __global__ void " + name + "(" + params + "berth_s64 n) {\n";
  source += "  for (berth_s64 i = (berth_s64)blockIdx.x * blockDim.x + threadIdx.x; i < n;\n";
  source += "       i += (berth_s64)gridDim.x * blockDim.x) {\n";
  source += body;
  source += "  }\n}\n";
  return source;
}

// Appends `ops` (elementwise, checked) to `body` as locals v<next>...,
// reading `names` and recording their results there.
Status EmitOps(const std::string& kernel, std::span<const Operation* const> ops,
               const std::string& indent,
               std::unordered_map<const stablehlo::Value*, std::string>& names, int& next,
               std::string& body) {
  for (const Operation* op : ops) {
    BERTH_RETURN_IF_ERROR(CheckFusible(*op));
    std::vector<std::string> args;
    for (const stablehlo::Value* operand : op->operands()) {
      auto it = names.find(operand);
      if (it == names.end()) {
        return InvalidArgumentError(
            "kernel '" + kernel + "': " + Where(*op) +
            " reads a value that is neither an input nor computed before it");
      }
      args.push_back(it->second);
    }
    BERTH_ASSIGN_OR_RETURN(std::string expression, OpExpression(*op, args));
    const ElementType type = op->result(0)->type().element_type();
    if (op->kind() != OpKind::kConvert && IsHalf(type)) expression = RoundTo(type, expression);
    const std::string local = "v" + std::to_string(next++);
    body += indent + "const " + std::string(ComputeType(type)) + " " + local + " = " + expression +
            ";\n";
    names[op->result(0)] = local;
  }
  return OkStatus();
}

// EmitOps of the ops of `block` but its terminator (a region's body).
Status EmitBlockOps(const std::string& kernel, const stablehlo::Block& block,
                    const std::string& indent,
                    std::unordered_map<const stablehlo::Value*, std::string>& names, int& next,
                    std::string& body) {
  std::vector<const Operation*> ops;
  for (const Operation* inner : block.operations()) {
    if (inner != block.terminator()) ops.push_back(inner);
  }
  return EmitOps(kernel, ops, indent, names, next, body);
}

}  // namespace

std::vector<berth::ElementType> GeneratedBufferTypes() {
  std::vector<berth::ElementType> types;
  for (int t = 0; t <= static_cast<int>(ElementType::kComplex128); ++t) {
    const auto type = static_cast<ElementType>(t);
    if (StorageType(type) == nullptr) continue;
    if (std::optional<berth::ElementType> buffer =
            ParseElementType(stablehlo::ElementTypeName(type))) {
      types.push_back(*buffer);
    }
  }
  return types;
}

bool IsGeneratedElementwiseKind(OpKind kind) {
  if (FloatFunctionOf(kind) != nullptr) return true;
  switch (kind) {
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
    case OpKind::kChloIsNegInf: return true;
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
    case OpKind::kIota: return true;
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
    case OpKind::kSlice: return needs("start_indices", operand_rank);
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

Status CheckFusible(const Operation& op) {
  if (!IsGeneratedElementwiseKind(op.kind()))
    return Unsupported(op, "not an elementwise op the code generator knows");
  if (op.num_results() != 1 || op.num_regions() != 0)
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
  if (op.kind() == OpKind::kConvert || op.kind() == OpKind::kCompare ||
      op.kind() == OpKind::kIsFinite)
    return OkStatus();
  // The expression must exist for the operand type (e.g. no sqrt of integers).
  std::vector<std::string> args(op.num_operands(), "x");
  return OpExpression(op, args).status();
}

Status CheckReduce(const Operation& op) {
  if (op.kind() != OpKind::kReduce && op.kind() != OpKind::kReduceWindow) {
    return Unsupported(op, "not a reduce or reduce_window");
  }
  const size_t n = op.num_results();
  if (n == 0 || op.num_operands() != 2 * n || op.num_regions() != 1 ||
      op.region(0).blocks().size() != 1) {
    return Unsupported(op, "not N operands, N init values, N results and one body block");
  }
  for (const stablehlo::Value* value : op.operands()) {
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, value->type()));
  }
  for (size_t j = n; j < 2 * n; ++j) {
    if (op.operand(j)->type().rank() != 0) return Unsupported(op, "init values must be rank 0");
  }
  const int64_t rank = op.operand(0)->type().rank();
  for (size_t j = 0; j < n; ++j) {
    const std::span<const int64_t> shape = op.operand(j)->type().shape(),
                                   first = op.operand(0)->type().shape();
    if (!std::equal(shape.begin(), shape.end(), first.begin(), first.end())) {
      return Unsupported(op, "its operands must have one shape");
    }
  }
  if (op.kind() == OpKind::kReduce) {
    for (int64_t d : op.GetI64Array("dimensions")) {
      if (d < 0 || d >= rank)
        return Unsupported(op, "dimensions must be dimensions of the operands");
    }
  } else {
    // Window attributes: one positive entry per dimension (all but the
    // window's own optional), padding one pair per dimension.
    for (const char* name :
         {"window_dimensions", "window_strides", "base_dilations", "window_dilations"}) {
      const std::span<const int64_t> values = op.GetI64Array(name);
      if (values.empty() && rank > 0 && std::string_view(name) != "window_dimensions") continue;
      if (static_cast<int64_t>(values.size()) != rank ||
          std::any_of(values.begin(), values.end(), [](int64_t v) { return v <= 0; })) {
        return Unsupported(op, std::string(name) + " must hold one positive value per dimension");
      }
    }
    const std::vector<std::pair<int64_t, int64_t>> padding = op.GetPairs("padding");
    if (!padding.empty() && static_cast<int64_t>(padding.size()) != rank) {
      return Unsupported(op, "padding must hold one pair per dimension");
    }
    for (size_t j = 0; j < n; ++j) {
      if (op.result(j)->type().rank() != rank)
        return Unsupported(op, "results must have the operands' rank");
    }
  }
  const stablehlo::Block& body = op.region(0).entry_block();
  if (body.num_arguments() != 2 * n || body.terminator() == nullptr ||
      body.terminator()->num_operands() != n) {
    return Unsupported(op, "its body must take 2N values and return N");
  }
  for (size_t j = 0; j < 2 * n; ++j) {
    if (body.argument(j)->type().element_type() != op.operand(j)->type().element_type()) {
      return Unsupported(op, "its body must take the operands' element types");
    }
  }
  for (const Operation* inner : body.operations()) {
    if (inner == body.terminator()) continue;
    BERTH_RETURN_IF_ERROR(CheckFusible(*inner).WithContext("in the body of " + Where(op)));
  }
  return OkStatus();
}

namespace {

// Declares <prefix><k> = the index along dimension dims[k] of `shape` of
// position `linear` in the row-major order over those dimensions, and
// records each name at at[dims[k]].
void EmitDecompose(const std::string& linear, std::span<const int64_t> dims,
                   std::span<const int64_t> shape, const std::string& prefix,
                   const std::string& indent, std::string& body, std::vector<std::string>& at) {
  int64_t stride = 1;
  for (size_t k = dims.size(); k-- > 0;) {
    const std::string name = prefix + std::to_string(k);
    const int64_t extent = shape[static_cast<size_t>(dims[k])];
    body += indent + "const berth_s64 " + name + " = " + linear + " / " + std::to_string(stride) +
            "LL % " + std::to_string(extent) + "LL;\n";
    at[static_cast<size_t>(dims[k])] = name;
    stride *= extent;
  }
}

// Declares <prefix><d> = the index along each dimension d of `shape` of
// the kernel's element i; their names.
std::vector<std::string> EmitResultIndex(std::span<const int64_t> shape, const std::string& prefix,
                                         std::string& body) {
  std::vector<int64_t> all(shape.size());
  for (size_t d = 0; d < all.size(); ++d) all[d] = static_cast<int64_t>(d);
  std::vector<std::string> names(all.size());
  EmitDecompose("i", all, shape, prefix, "    ", body, names);
  return names;
}

// One output element per thread: the accumulators start at the init values
// and take each reduced element in row-major order through the body.
Status EmitElementLoad(const FusedKernel& kernel, const stablehlo::Value* value,
                       const std::vector<std::string>& index, const std::string& target,
                       ElementType type, const std::string& indent, int& reads, std::string& body);

// The end of a reduction loop's iteration - the body's ops on the
// accumulators acc<j> and the loaded elements (`names`), the accumulators
// taking the body's results - and, after the loop, the accumulators
// stored to the outputs.
Status EmitFold(const FusedKernel& kernel, const Operation& op,
                std::unordered_map<const stablehlo::Value*, std::string>& names,
                std::string& body) {
  const size_t n = op.num_results();
  const stablehlo::Block& block = op.region(0).entry_block();
  int next = 0;
  BERTH_RETURN_IF_ERROR(EmitBlockOps(kernel.name, block, "      ", names, next, body));
  // All new values first, then the assignments: a body may swap its accumulators.
  for (size_t j = 0; j < n; ++j) {
    body += "      const " + std::string(ComputeType(op.result(j)->type().element_type())) +
            " next" + std::to_string(j) + " = " + names.at(block.terminator()->operand(j)) + ";\n";
  }
  for (size_t j = 0; j < n; ++j)
    body += "      acc" + std::to_string(j) + " = next" + std::to_string(j) + ";\n";
  body += "    }\n";
  for (size_t j = 0; j < kernel.outputs.size(); ++j) {
    const size_t result = static_cast<size_t>(kernel.outputs[j]->index());
    body += "    out" + std::to_string(j) + "[i] = " +
            Store(kernel.outputs[j]->type().element_type(), "acc" + std::to_string(result)) + ";\n";
  }
  return OkStatus();
}

Result<std::string> EmitReduceKernel(const FusedKernel& kernel) {
  const Operation& op = *kernel.reduce;
  BERTH_RETURN_IF_ERROR(CheckReduce(op));
  const size_t n = op.num_results();
  const stablehlo::Type operand = op.operand(0)->type();
  const std::span<const int64_t> dims = op.GetI64Array("dimensions");
  auto reduced = [&](int64_t d) { return std::find(dims.begin(), dims.end(), d) != dims.end(); };
  std::string params = KernelParams(kernel), body;
  auto input_index = [&](const stablehlo::Value* value) -> Result<size_t> {
    auto it = std::find(kernel.inputs.begin(), kernel.inputs.end(), value);
    if (it == kernel.inputs.end()) {
      return InvalidArgumentError("reduction kernel '" + kernel.name +
                                  "': a value it reads is not an input");
    }
    return static_cast<size_t>(it - kernel.inputs.begin());
  };
  // The output element's index in each kept dimension.
  std::vector<int64_t> kept, reduced_dims;
  for (int64_t d = 0; d < operand.rank(); ++d) (reduced(d) ? reduced_dims : kept).push_back(d);
  std::vector<std::string> at(static_cast<size_t>(operand.rank()));
  EmitDecompose("i", kept, operand.shape(), "o", "    ", body, at);
  int64_t count = 1;
  for (int64_t d : reduced_dims) count *= operand.dim(d);
  for (size_t j = 0; j < n; ++j) {
    const stablehlo::Value* init = op.operand(n + j);
    BERTH_ASSIGN_OR_RETURN(size_t k, input_index(init));
    const ElementType type = init->type().element_type();
    body += "    " + std::string(ComputeType(type)) + " acc" + std::to_string(j) + " = " +
            Load(type, "in" + std::to_string(k) + "[0]") + ";\n";
  }
  body += "    for (berth_s64 r = 0; r < " + std::to_string(count) + "LL; ++r) {\n";
  EmitDecompose("r", reduced_dims, operand.shape(), "q", "      ", body, at);
  body += "      const berth_s64 at = " + LinearIndex(at, operand.shape()) + ";\n";
  const stablehlo::Block& block = op.region(0).entry_block();
  std::unordered_map<const stablehlo::Value*, std::string> names;
  for (size_t j = 0; j < n; ++j) {
    const stablehlo::Value* value = op.operand(j);
    const ElementType type = value->type().element_type();
    const std::string local = "x" + std::to_string(j);
    const ViewRead* view = nullptr;
    for (const ViewRead& candidate : kernel.views) {
      if (candidate.value == value) view = &candidate;
    }
    if (view == nullptr) {
      BERTH_ASSIGN_OR_RETURN(size_t k, input_index(value));
      body += "      const " + std::string(ComputeType(type)) + " " + local + " = " +
              Load(type, "in" + std::to_string(k) + "[at]") + ";\n";
    } else {
      std::string index, iota;
      body += EmitViewIndex(*view, "at", "w" + std::to_string(j) + "_", index, iota);
      if (!iota.empty()) {
        body += "      const " + std::string(ComputeType(type)) + " " + local + " = " +
                ConvertExpression(ElementType::kSI64, type, iota) + ";\n";
      } else {
        BERTH_ASSIGN_OR_RETURN(size_t k, input_index(view->source));
        body += "      const " + std::string(ComputeType(type)) + " " + local + " = " +
                Load(type, "in" + std::to_string(k) + "[" + index + "]") + ";\n";
      }
    }
    names[block.argument(j)] = "acc" + std::to_string(j);
    names[block.argument(n + j)] = local;
  }
  BERTH_RETURN_IF_ERROR(EmitFold(kernel, op, names, body));
  return WrapKernel(kernel.name, params, body);
}

// reduce_window: each thread one output element, folding its window of the
// padded, base-dilated operands in row-major order; a window element on
// padding or a hole of base dilation folds in the init value (as the cpu
// plugin and the spec do).
Result<std::string> EmitReduceWindowKernel(const FusedKernel& kernel) {
  const Operation& op = *kernel.reduce;
  BERTH_RETURN_IF_ERROR(CheckReduce(op));
  const size_t n = op.num_results();
  const stablehlo::Type operand = op.operand(0)->type();
  const size_t rank = static_cast<size_t>(operand.rank());
  auto attribute = [&](const char* name) {
    std::span<const int64_t> values = op.GetI64Array(name);
    return values.empty() ? std::vector<int64_t>(rank, 1)
                          : std::vector<int64_t>(values.begin(), values.end());
  };
  const std::vector<int64_t> window = attribute("window_dimensions"),
                             strides = attribute("window_strides"),
                             base = attribute("base_dilations"),
                             dilation = attribute("window_dilations");
  std::vector<std::pair<int64_t, int64_t>> padding = op.GetPairs("padding");
  if (padding.empty()) padding.assign(rank, {0, 0});
  std::string params = KernelParams(kernel), body;
  const std::vector<std::string> o = EmitResultIndex(op.result(0)->type().shape(), "o", body);
  for (size_t j = 0; j < n; ++j) {
    const stablehlo::Value* init = op.operand(n + j);
    auto it = std::find(kernel.inputs.begin(), kernel.inputs.end(), init);
    if (it == kernel.inputs.end()) {
      return InvalidArgumentError("reduce_window kernel '" + kernel.name +
                                  "': an init value is not an input");
    }
    const ElementType type = init->type().element_type();
    const std::string t = ComputeType(type), k = std::to_string(it - kernel.inputs.begin());
    body += "    const " + t + " init" + std::to_string(j) + " = " + Load(type, "in" + k + "[0]") +
            ";\n";
    body += "    " + t + " acc" + std::to_string(j) + " = init" + std::to_string(j) + ";\n";
  }
  int64_t count = 1;
  for (int64_t w : window) count *= w;
  body += "    for (berth_s64 r = 0; r < " + std::to_string(count) + "LL; ++r) {\n";
  std::vector<int64_t> all(rank);
  for (size_t d = 0; d < rank; ++d) all[d] = static_cast<int64_t>(d);
  std::vector<std::string> w(rank), index(rank);
  EmitDecompose("r", all, window, "w", "      ", body, w);
  body += "      bool valid = true;\n";
  for (size_t d = 0; d < rank; ++d) {
    const std::string p = "p" + std::to_string(d);
    const int64_t dilated = operand.dim(static_cast<int64_t>(d)) == 0
                                ? 0
                                : (operand.dim(static_cast<int64_t>(d)) - 1) * base[d] + 1;
    body += "      const berth_s64 " + p + " = " + o[d] + " * " + std::to_string(strides[d]) +
            "LL + " + w[d] + " * " + std::to_string(dilation[d]) + "LL - (" +
            std::to_string(padding[d].first) + "LL);\n";
    body += "      valid = valid && " + p + " >= 0 && " + p + " < " + std::to_string(dilated) +
            "LL && " + p + " % " + std::to_string(base[d]) + "LL == 0;\n";
    index[d] = p + " / " + std::to_string(base[d]) + "LL";
  }
  const stablehlo::Block& block = op.region(0).entry_block();
  std::unordered_map<const stablehlo::Value*, std::string> names;
  int reads = 0;
  for (size_t j = 0; j < n; ++j) {
    const ElementType type = op.operand(j)->type().element_type();
    const std::string x = "x" + std::to_string(j);
    body +=
        "      " + std::string(ComputeType(type)) + " " + x + " = init" + std::to_string(j) + ";\n";
    body += "      if (valid) {\n";
    BERTH_RETURN_IF_ERROR(
        EmitElementLoad(kernel, op.operand(j), index, x, type, "        ", reads, body));
    body += "      }\n";
    names[block.argument(j)] = "acc" + std::to_string(j);
    names[block.argument(n + j)] = x;
  }
  BERTH_RETURN_IF_ERROR(EmitFold(kernel, op, names, body));
  return WrapKernel(kernel.name, params, body);
}

}  // namespace

namespace {

// Whether `list` holds distinct dimensions in [0, rank).
bool DistinctDims(std::span<const int64_t> list, int64_t rank) {
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(rank, 0)));
  for (int64_t d : list) {
    if (d < 0 || d >= rank || seen[static_cast<size_t>(d)]) return false;
    seen[static_cast<size_t>(d)] = true;
  }
  return true;
}

// dynamic_slice, dynamic_update_slice: one rank-0 integer start index per
// dimension after the moved operands; slice sizes within the operand.
Status CheckDynamicSlice(const Operation& op) {
  const stablehlo::Type operand = op.operand(0)->type();
  const size_t first_index = op.kind() == OpKind::kDynamicSlice ? 1 : 2;
  if (op.num_operands() != first_index + static_cast<size_t>(operand.rank())) {
    return Unsupported(op, "it needs one start index per dimension of the operand");
  }
  for (size_t j = first_index; j < op.num_operands(); ++j) {
    const stablehlo::Type index = op.operand(j)->type();
    if (index.rank() != 0 || !stablehlo::IsInteger(index.element_type())) {
      return Unsupported(op, "start indices must be rank-0 integers, not " + index.ToString());
    }
  }
  std::span<const int64_t> sizes = op.kind() == OpKind::kDynamicSlice
                                       ? op.GetI64Array("slice_sizes")
                                       : op.operand(1)->type().shape();
  if (static_cast<int64_t>(sizes.size()) != operand.rank()) {
    return Unsupported(op, "the slice must have the operand's rank");
  }
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (sizes[static_cast<size_t>(d)] < 0 || sizes[static_cast<size_t>(d)] > operand.dim(d)) {
      return Unsupported(op, "the slice must fit in the operand");
    }
  }
  return OkStatus();
}

Status CheckGather(const Operation& op) {
  const stablehlo::GatherDimensionNumbers* numbers = op.gather_dimension_numbers();
  if (numbers == nullptr || op.num_operands() != 2) {
    return Unsupported(op, "it needs an operand, start indices and dimension numbers");
  }
  const stablehlo::Type operand = op.operand(0)->type(), indices = op.operand(1)->type(),
                        result = op.result(0)->type();
  if (!stablehlo::IsInteger(indices.element_type()))
    return Unsupported(op, "start indices must be integers");
  const std::span<const int64_t> sizes = op.GetI64Array("slice_sizes");
  const int64_t r = operand.rank(), s = indices.rank(), ivd = numbers->index_vector_dim;
  if (static_cast<int64_t>(sizes.size()) != r || ivd < 0 || ivd > s) {
    return Unsupported(op, "slice_sizes or index_vector_dim do not fit the operands");
  }
  for (int64_t d = 0; d < r; ++d) {
    if (sizes[static_cast<size_t>(d)] < 0 || sizes[static_cast<size_t>(d)] > operand.dim(d)) {
      return Unsupported(op, "slice_sizes exceed the operand");
    }
  }
  std::vector<int64_t> not_window = numbers->collapsed_slice_dims;
  not_window.insert(not_window.end(), numbers->operand_batching_dims.begin(),
                    numbers->operand_batching_dims.end());
  std::vector<int64_t> batching = numbers->start_indices_batching_dims;
  batching.push_back(ivd);  // distinct from the batching dimensions
  const int64_t index_count = ivd < s ? indices.dim(ivd) : 1;
  const int64_t window = r - static_cast<int64_t>(not_window.size());
  if (!DistinctDims(not_window, r) || !DistinctDims(numbers->start_index_map, r) ||
      !DistinctDims(batching, s + 1) ||
      numbers->operand_batching_dims.size() != numbers->start_indices_batching_dims.size() ||
      static_cast<int64_t>(numbers->start_index_map.size()) != index_count ||
      static_cast<int64_t>(numbers->offset_dims.size()) != window ||
      !DistinctDims(numbers->offset_dims, result.rank()) ||
      result.rank() != window + s - (ivd < s ? 1 : 0)) {
    return Unsupported(op, "its dimension numbers do not fit its operands and result");
  }
  return OkStatus();
}

}  // namespace

Status CheckMove(const Operation& op) {
  const OpKind kind = op.kind();
  if (kind != OpKind::kConcatenate && kind != OpKind::kPad && kind != OpKind::kDynamicSlice &&
      kind != OpKind::kDynamicUpdateSlice && kind != OpKind::kGather) {
    return Unsupported(op, "not data movement the code generator writes as a kernel");
  }
  std::vector<stablehlo::Type> types = {op.result(0)->type()};
  for (const stablehlo::Value* operand : op.operands()) types.push_back(operand->type());
  for (stablehlo::Type type : types) BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, type));
  if (op.num_operands() == 0) return Unsupported(op, "it has no operands");
  if (kind == OpKind::kDynamicSlice || kind == OpKind::kDynamicUpdateSlice)
    return CheckDynamicSlice(op);
  if (kind == OpKind::kGather) return CheckGather(op);
  const int64_t rank = op.result(0)->type().rank();
  if (op.kind() == OpKind::kConcatenate) {
    std::optional<int64_t> dimension = op.GetInt("dimension");
    if (!dimension || *dimension < 0 || *dimension >= rank || op.num_operands() == 0) {
      return Unsupported(op, "no dimension of the result to concatenate along");
    }
    return OkStatus();
  }
  if (op.num_operands() != 2 || op.operand(1)->type().rank() != 0) {
    return Unsupported(op, "the padding value must be rank 0");
  }
  for (const char* name : {"edge_padding_low", "edge_padding_high", "interior_padding"}) {
    if (static_cast<int64_t>(op.GetI64Array(name).size()) != rank) {
      return Unsupported(op,
                         std::string("attribute ") + name + " must hold one value per dimension");
    }
  }
  return OkStatus();
}

namespace {

// Appends to `body` (at `indent`) code setting `target` (declared, of
// `type`'s compute type) to the element of `value` at `index` (one
// expression per dimension): from its kernel input, or through its view
// (whose iota computes the value). `reads` numbers the locals.
Status EmitElementLoad(const FusedKernel& kernel, const stablehlo::Value* value,
                       const std::vector<std::string>& index, const std::string& target,
                       ElementType type, const std::string& indent, int& reads, std::string& body) {
  const std::string linear = LinearIndex(index, value->type().shape());
  const std::string at = "at" + std::to_string(reads++);
  body += indent + "const berth_s64 " + at + " = " + linear + ";\n";
  const ViewRead* view = nullptr;
  for (const ViewRead& candidate : kernel.views) {
    if (candidate.value == value) view = &candidate;
  }
  std::string source_index = at;
  const stablehlo::Value* source = value;
  if (view != nullptr) {
    std::string iota;
    const std::string code =
        EmitViewIndex(*view, at, "w" + std::to_string(reads) + "_", source_index, iota);
    for (size_t start = 0; start < code.size();) {  // re-indented
      const size_t end = code.find('\n', start);
      body += indent + code.substr(start + 4, end - start - 4) + "\n";
      start = end + 1;
    }
    if (!iota.empty()) {
      body += indent + target + " = " + ConvertExpression(ElementType::kSI64, type, iota) + ";\n";
      return OkStatus();
    }
    source = view->source;
  }
  auto it = std::find(kernel.inputs.begin(), kernel.inputs.end(), source);
  if (it == kernel.inputs.end()) {
    return InvalidArgumentError("kernel '" + kernel.name + "': a value it reads is not an input");
  }
  body += indent + target + " = " +
          Load(type, "in" + std::to_string(it - kernel.inputs.begin()) + "[" + source_index + "]") +
          ";\n";
  return OkStatus();
}

// One output element per thread: the element of the operand it comes from,
// or (pad) the padding value.
Result<std::string> EmitMoveKernel(const FusedKernel& kernel) {
  const Operation& op = *kernel.mover;
  BERTH_RETURN_IF_ERROR(CheckMove(op));
  const stablehlo::Type result = op.result(0)->type();
  const ElementType type = result.element_type();
  std::string params = KernelParams(kernel), body;
  const std::vector<std::string> m = EmitResultIndex(result.shape(), "m", body);
  body += "    " + std::string(ComputeType(type)) + " y;\n";
  int reads = 0;
  auto load = [&](size_t j, const std::vector<std::string>& index, const std::string& indent) {
    return EmitElementLoad(kernel, op.operand(j), index, "y", type, indent, reads, body);
  };
  // `target` (declared berth_s64) = the index `value` holds at `index`,
  // as the cpu plugin reads indices (unsigned ones above the largest i64
  // saturate), clamped to [0, limit].
  auto index_load = [&](const stablehlo::Value* value, const std::vector<std::string>& index,
                        const std::string& target, int64_t limit) -> Status {
    const ElementType index_type = value->type().element_type();
    body += "    {\n      " + std::string(ComputeType(index_type)) + " q;\n";
    BERTH_RETURN_IF_ERROR(
        EmitElementLoad(kernel, value, index, "q", index_type, "      ", reads, body));
    body += "      " + target + " = berth_clamp_index(berth_to_index(q), " + std::to_string(limit) +
            "LL);\n    }\n";
    return OkStatus();
  };
  if (op.kind() == OpKind::kDynamicSlice || op.kind() == OpKind::kDynamicUpdateSlice) {
    const stablehlo::Type operand = op.operand(0)->type();
    const bool update = op.kind() == OpKind::kDynamicUpdateSlice;
    const std::span<const int64_t> sizes =
        update ? op.operand(1)->type().shape() : op.GetI64Array("slice_sizes");
    const size_t first_index = update ? 2 : 1;
    std::vector<std::string> moved(m.size());
    std::string inside = "true";
    for (size_t d = 0; d < m.size(); ++d) {
      const std::string start = "start" + std::to_string(d);
      body += "    berth_s64 " + start + ";\n";
      BERTH_RETURN_IF_ERROR(index_load(op.operand(first_index + d), {}, start,
                                       operand.dim(static_cast<int64_t>(d)) - sizes[d]));
      moved[d] = update ? m[d] + " - " + start : m[d] + " + " + start;
      inside +=
          " && " + moved[d] + " >= 0 && " + moved[d] + " < " + std::to_string(sizes[d]) + "LL";
    }
    if (!update) {
      BERTH_RETURN_IF_ERROR(load(0, moved, "    "));
    } else {
      body += "    if (" + inside + ") {\n";
      BERTH_RETURN_IF_ERROR(load(1, moved, "      "));
      body += "    } else {\n";
      BERTH_RETURN_IF_ERROR(load(0, m, "      "));
      body += "    }\n";
    }
  } else if (op.kind() == OpKind::kGather) {
    // The result's batch dimensions index start_indices (all of its
    // dimensions but index_vector_dim, in order), its offset dimensions the
    // operand's window dimensions (neither collapsed nor batching).
    const stablehlo::GatherDimensionNumbers& numbers = *op.gather_dimension_numbers();
    const stablehlo::Type operand = op.operand(0)->type(), indices = op.operand(1)->type();
    const std::span<const int64_t> sizes = op.GetI64Array("slice_sizes");
    const int64_t s = indices.rank(), ivd = numbers.index_vector_dim;
    auto contains = [](const std::vector<int64_t>& list, int64_t d) {
      return std::find(list.begin(), list.end(), d) != list.end();
    };
    std::vector<std::string> batch;
    for (size_t d = 0; d < m.size(); ++d) {
      if (!contains(numbers.offset_dims, static_cast<int64_t>(d))) batch.push_back(m[d]);
    }
    std::vector<std::string> position(static_cast<size_t>(operand.rank()), "0LL");
    for (size_t k = 0; k < numbers.start_index_map.size(); ++k) {
      std::vector<std::string> at = batch;
      if (ivd < s) at.insert(at.begin() + ivd, std::to_string(k) + "LL");
      const int64_t d = numbers.start_index_map[k];
      const std::string start = "start" + std::to_string(k);
      body += "    berth_s64 " + start + ";\n";
      BERTH_RETURN_IF_ERROR(
          index_load(op.operand(1), at, start, operand.dim(d) - sizes[static_cast<size_t>(d)]));
      position[static_cast<size_t>(d)] += " + " + start;
    }
    for (size_t i = 0; i < numbers.operand_batching_dims.size(); ++i) {
      const int64_t from = numbers.start_indices_batching_dims[i];
      position[static_cast<size_t>(numbers.operand_batching_dims[i])] +=
          " + " + batch[static_cast<size_t>(from < ivd ? from : from - 1)];
    }
    size_t next_offset = 0;
    for (int64_t d = 0; d < operand.rank(); ++d) {
      if (contains(numbers.collapsed_slice_dims, d) || contains(numbers.operand_batching_dims, d))
        continue;
      position[static_cast<size_t>(d)] +=
          " + " + m[static_cast<size_t>(numbers.offset_dims[next_offset++])];
    }
    BERTH_RETURN_IF_ERROR(load(0, position, "    "));
  } else if (op.kind() == OpKind::kConcatenate) {
    const size_t dimension = static_cast<size_t>(*op.GetInt("dimension"));
    int64_t offset = 0;
    for (size_t j = 0; j < op.num_operands(); ++j) {
      const int64_t size = op.operand(j)->type().dim(static_cast<int64_t>(dimension));
      std::vector<std::string> index = m;
      index[dimension] = m[dimension] + " - " + std::to_string(offset) + "LL";
      const bool last = j + 1 == op.num_operands();
      body += std::string(j == 0 ? "    " : " else ") +
              (last ? "{\n"
                    : "if (" + m[dimension] + " < " + std::to_string(offset + size) + "LL) {\n");
      BERTH_RETURN_IF_ERROR(load(j, index, "      "));
      body += "    }";
      offset += size;
    }
    body += "\n";
  } else {
    const std::span<const int64_t> low = op.GetI64Array("edge_padding_low");
    const std::span<const int64_t> interior = op.GetI64Array("interior_padding");
    const stablehlo::Type operand = op.operand(0)->type();
    std::vector<std::string> index(m.size());
    body += "    bool inside = true;\n";
    for (size_t d = 0; d < m.size(); ++d) {
      const std::string t = "t" + std::to_string(d);
      const int64_t step = interior[d] + 1;
      body +=
          "    const berth_s64 " + t + " = " + m[d] + " - (" + std::to_string(low[d]) + "LL);\n";
      body += "    inside = inside && " + t + " >= 0 && " + t + " % " + std::to_string(step) +
              "LL == 0 && " + t + " / " + std::to_string(step) + "LL < " +
              std::to_string(operand.dim(static_cast<int64_t>(d))) + "LL;\n";
      index[d] = t + " / " + std::to_string(step) + "LL";
    }
    body += "    if (inside) {\n";
    BERTH_RETURN_IF_ERROR(load(0, index, "      "));
    body += "    } else {\n";
    BERTH_RETURN_IF_ERROR(load(1, {}, "      "));
    body += "    }\n";
  }
  body += "    out0[i] = " + Store(type, "y") + ";\n";
  return WrapKernel(kernel.name, params, body);
}

}  // namespace

Status CheckDot(const Operation& op) {
  if (op.kind() != OpKind::kDotGeneral || op.num_operands() != 2)
    return Unsupported(op, "not a dot_general");
  for (stablehlo::Type type :
       {op.operand(0)->type(), op.operand(1)->type(), op.result(0)->type()}) {
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, type));
  }
  if (op.dot_dimension_numbers() == nullptr) return Unsupported(op, "no dot_dimension_numbers");
  if (op.dot_algorithm() != nullptr) return Unsupported(op, "dot algorithms are not generated yet");
  return OkStatus();
}

namespace {

// One output element per thread: the sum over the contracting elements of
// lhs x rhs, each converted to the result's type first.
Result<std::string> EmitDotKernel(const FusedKernel& kernel) {
  const Operation& op = *kernel.dot;
  BERTH_RETURN_IF_ERROR(CheckDot(op));
  const stablehlo::DotDimensionNumbers& numbers = *op.dot_dimension_numbers();
  const stablehlo::Type lhs = op.operand(0)->type(), rhs = op.operand(1)->type(),
                        result = op.result(0)->type();
  const ElementType type = result.element_type();
  const Class c = ClassOf(type);
  std::string params = KernelParams(kernel), body;
  const std::vector<std::string> r = EmitResultIndex(result.shape(), "r", body);
  // Where each operand dimension's index comes from: the result's batch and
  // free dimensions, in order, or the contracting loop.
  auto is_in = [](const std::vector<int64_t>& list, int64_t d) {
    return std::find(list.begin(), list.end(), d) != list.end();
  };
  std::vector<std::string> lhs_index(static_cast<size_t>(lhs.rank())),
      rhs_index(static_cast<size_t>(rhs.rank()));
  size_t next = 0;
  for (size_t b = 0; b < numbers.lhs_batching_dimensions.size(); ++b, ++next) {
    lhs_index[static_cast<size_t>(numbers.lhs_batching_dimensions[b])] = r[next];
    rhs_index[static_cast<size_t>(numbers.rhs_batching_dimensions[b])] = r[next];
  }
  for (int64_t d = 0; d < lhs.rank(); ++d) {
    if (!is_in(numbers.lhs_batching_dimensions, d) &&
        !is_in(numbers.lhs_contracting_dimensions, d)) {
      lhs_index[static_cast<size_t>(d)] = r[next++];
    }
  }
  for (int64_t d = 0; d < rhs.rank(); ++d) {
    if (!is_in(numbers.rhs_batching_dimensions, d) &&
        !is_in(numbers.rhs_contracting_dimensions, d)) {
      rhs_index[static_cast<size_t>(d)] = r[next++];
    }
  }
  int64_t count = 1;
  for (int64_t d : numbers.lhs_contracting_dimensions) count *= lhs.dim(d);
  const std::string t = ComputeType(type);
  body += "    " + t + " acc = " + (c == Class::kBool ? "false" : "(" + t + ")0") + ";\n";
  body += "    for (berth_s64 k = 0; k < " + std::to_string(count) + "LL; ++k) {\n";
  std::vector<std::string> contracted(static_cast<size_t>(lhs.rank()));
  EmitDecompose("k", numbers.lhs_contracting_dimensions, lhs.shape(), "c", "      ", body,
                contracted);
  for (size_t k = 0; k < numbers.lhs_contracting_dimensions.size(); ++k) {
    const std::string& name =
        contracted[static_cast<size_t>(numbers.lhs_contracting_dimensions[k])];
    lhs_index[static_cast<size_t>(numbers.lhs_contracting_dimensions[k])] = name;
    rhs_index[static_cast<size_t>(numbers.rhs_contracting_dimensions[k])] = name;
  }
  int reads = 0;
  const ElementType lhs_type = lhs.element_type(), rhs_type = rhs.element_type();
  body += "      " + std::string(ComputeType(lhs_type)) + " a;\n";
  body += "      " + std::string(ComputeType(rhs_type)) + " b;\n";
  BERTH_RETURN_IF_ERROR(
      EmitElementLoad(kernel, op.operand(0), lhs_index, "a", lhs_type, "      ", reads, body));
  BERTH_RETURN_IF_ERROR(
      EmitElementLoad(kernel, op.operand(1), rhs_index, "b", rhs_type, "      ", reads, body));
  // Each operand in the result's type; halves stay in float until the end.
  const ElementType wide = IsHalf(type) ? ElementType::kF32 : type;
  const std::string x = ConvertExpression(lhs_type, wide, "a"),
                    y = ConvertExpression(rhs_type, wide, "b");
  if (c == Class::kBool) {
    body += "      acc = acc || (" + x + " && " + y + ");\n";
  } else if (c == Class::kFloat) {
    body += "      acc = acc + " + x + " * " + y + ";\n";
  } else {
    body +=
        "      acc = berth_iadd<" + t + ">(acc, berth_imul<" + t + ">(" + x + ", " + y + "));\n";
  }
  body += "    }\n";
  body += "    out0[i] = " + Store(type, "acc") + ";\n";
  return WrapKernel(kernel.name, params, body);
}

}  // namespace

Status CheckTriangularSolve(const Operation& op) {
  if (op.kind() != OpKind::kTriangularSolve || op.num_operands() != 2)
    return Unsupported(op, "not a triangular_solve");
  const stablehlo::Type a = op.operand(0)->type(), b = op.operand(1)->type();
  for (stablehlo::Type type : {a, b, op.result(0)->type()}) {
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, type));
  }
  const ElementType type = a.element_type();
  if (type != ElementType::kF32 && type != ElementType::kF64) {
    // f16/bf16 would need the solution's elements in float until the end.
    return Unsupported(op, "a triangular_solve of " +
                               std::string(stablehlo::ElementTypeName(type)) +
                               " is not generated yet (f32 and f64 are)");
  }
  const int64_t rank = a.rank();
  if (rank < 2 || b.rank() != rank || b.element_type() != type ||
      a.dim(rank - 1) != a.dim(rank - 2) ||
      (op.GetBool("left_side") ? b.dim(rank - 2) : b.dim(rank - 1)) != a.dim(rank - 1)) {
    return Unsupported(op, "a must be a batch of square matrices matching b");
  }
  return OkStatus();
}

namespace {

// One vector of the solution per thread - a column of x (left_side:
// op(a) x = b) or a row (x op(a) = b) of one batch element - by forward or
// backward substitution with the matrix M that system is M y = c for: op(a)
// for the left side, its transpose for the right. The elements of y are
// written to the output as they are found and read back from it; only the
// triangle `lower` names is read (with unit_diagonal, not the diagonal).
Result<std::string> EmitSolveKernel(const FusedKernel& kernel) {
  const Operation& op = *kernel.solve;
  BERTH_RETURN_IF_ERROR(CheckTriangularSolve(op));
  const stablehlo::Type b = op.operand(1)->type();
  const ElementType type = b.element_type();
  const int64_t rank = b.rank();
  const bool left = op.GetBool("left_side"), lower = op.GetBool("lower"),
             unit = op.GetBool("unit_diagonal");
  const bool transposed = op.transpose_a().value_or(stablehlo::Transpose::kNoTranspose) !=
                          stablehlo::Transpose::kNoTranspose;
  // M[r][k] is a[r][k], or a[k][r] when exactly one of "right side" and
  // "transposed" holds; M is lower triangular when a is, unless swapped.
  const bool swap = left == transposed;
  const bool forward = swap ? !lower : lower;
  const int64_t m = b.dim(left ? rank - 2 : rank - 1);
  const int64_t vectors = b.dim(left ? rank - 1 : rank - 2);
  std::string params = KernelParams(kernel), body;
  // The thread's batch indices and vector.
  std::vector<int64_t> shape(b.shape().begin(), b.shape().end() - 2), dims(shape.size() + 1);
  shape.push_back(vectors);
  for (size_t d = 0; d < dims.size(); ++d) dims[d] = static_cast<int64_t>(d);
  std::vector<std::string> at(dims.size());
  EmitDecompose("i", dims, shape, "s", "    ", body, at);
  const std::string v = at.back();
  at.pop_back();
  auto b_index = [&](const std::string& r) {
    std::vector<std::string> index = at;
    index.push_back(left ? r : v);
    index.push_back(left ? v : r);
    return index;
  };
  auto a_index = [&](const std::string& r, const std::string& k) {
    std::vector<std::string> index = at;
    index.push_back(swap ? k : r);
    index.push_back(swap ? r : k);
    return index;
  };
  auto out_at = [&](const std::string& r) {
    return "out0[" + LinearIndex(b_index(r), b.shape()) + "]";
  };
  const std::string t = ComputeType(type), count = std::to_string(m) + "LL";
  int reads = 0;
  body += "    for (berth_s64 step = 0; step < " + count + "; ++step) {\n";
  body +=
      "      const berth_s64 r = " + std::string(forward ? "step" : count + " - 1 - step") + ";\n";
  body += "      " + t + " acc;\n";
  BERTH_RETURN_IF_ERROR(
      EmitElementLoad(kernel, op.operand(1), b_index("r"), "acc", type, "      ", reads, body));
  body += forward ? "      for (berth_s64 k = 0; k < r; ++k) {\n"
                  : "      for (berth_s64 k = r + 1; k < " + count + "; ++k) {\n";
  body += "        " + t + " mk;\n";
  BERTH_RETURN_IF_ERROR(EmitElementLoad(kernel, op.operand(0), a_index("r", "k"), "mk", type,
                                        "        ", reads, body));
  body += "        acc = acc - mk * " + out_at("k") + ";\n";
  body += "      }\n";
  if (!unit) {
    body += "      " + t + " diagonal;\n";
    BERTH_RETURN_IF_ERROR(EmitElementLoad(kernel, op.operand(0), a_index("r", "r"), "diagonal",
                                          type, "      ", reads, body));
    body += "      acc = acc / diagonal;\n";
  }
  body += "      " + out_at("r") + " = acc;\n";
  body += "    }\n";
  return WrapKernel(kernel.name, params, body);
}

}  // namespace

Status CheckScatter(const Operation& op) {
  const stablehlo::ScatterDimensionNumbers* numbers = op.scatter_dimension_numbers();
  const size_t n = op.num_results();
  if (op.kind() != OpKind::kScatter || numbers == nullptr || n == 0 ||
      op.num_operands() != 2 * n + 1 || op.num_regions() != 1 ||
      op.region(0).blocks().size() != 1) {
    return Unsupported(op, "not N inputs, scatter indices, N updates and an update computation");
  }
  for (const stablehlo::Value* value : op.operands())
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, value->type()));
  const stablehlo::Type input = op.operand(0)->type(), indices = op.operand(n)->type(),
                        updates = op.operand(n + 1)->type();
  if (!stablehlo::IsInteger(indices.element_type()))
    return Unsupported(op, "scatter indices must be integers");
  const int64_t r = input.rank(), s = indices.rank(), ivd = numbers->index_vector_dim;
  for (size_t j = 0; j < n; ++j) {
    const std::span<const int64_t> a = op.operand(j)->type().shape(),
                                   b = op.operand(n + 1 + j)->type().shape();
    if (!std::equal(a.begin(), a.end(), input.shape().begin(), input.shape().end()) ||
        !std::equal(b.begin(), b.end(), updates.shape().begin(), updates.shape().end())) {
      return Unsupported(op, "its inputs, and its updates, must each have one shape");
    }
  }
  std::vector<int64_t> not_window = numbers->inserted_window_dims;
  not_window.insert(not_window.end(), numbers->input_batching_dims.begin(),
                    numbers->input_batching_dims.end());
  std::vector<int64_t> batching = numbers->scatter_indices_batching_dims;
  batching.push_back(ivd);
  const int64_t index_count = ivd < s ? indices.dim(ivd) : 1;
  const int64_t scatter_rank = s - (ivd < s ? 1 : 0);
  if (ivd < 0 || ivd > s || !DistinctDims(not_window, r) ||
      !DistinctDims(numbers->scatter_dims_to_operand_dims, r) || !DistinctDims(batching, s + 1) ||
      numbers->input_batching_dims.size() != numbers->scatter_indices_batching_dims.size() ||
      static_cast<int64_t>(numbers->scatter_dims_to_operand_dims.size()) != index_count ||
      !DistinctDims(numbers->update_window_dims, updates.rank()) ||
      static_cast<int64_t>(numbers->update_window_dims.size()) !=
          r - static_cast<int64_t>(not_window.size()) ||
      updates.rank() != scatter_rank + static_cast<int64_t>(numbers->update_window_dims.size())) {
    return Unsupported(op, "its dimension numbers do not fit its operands");
  }
  const stablehlo::Block& body = op.region(0).entry_block();
  if (body.num_arguments() != 2 * n || body.terminator() == nullptr ||
      body.terminator()->num_operands() != n) {
    return Unsupported(op, "its update computation must take 2N values and return N");
  }
  for (size_t j = 0; j < n; ++j) {
    if (body.argument(j)->type().element_type() != op.operand(j)->type().element_type() ||
        body.argument(n + j)->type().element_type() !=
            op.operand(n + 1 + j)->type().element_type()) {
      return Unsupported(op,
                         "its update computation must take the inputs' and updates' element types");
    }
  }
  for (const Operation* inner : body.operations()) {
    if (inner == body.terminator()) continue;
    BERTH_RETURN_IF_ERROR(
        CheckFusible(*inner).WithContext("in the update computation of " + Where(op)));
  }
  return OkStatus();
}

namespace {

// scatter, in one thread (kernel.num_elements is 1): the results start as
// the inputs; then for each scatter position of the updates (row-major over
// their scatter dimensions) and each element of its window (row-major), the
// result element it names - start index (not clamped) + batching position +
// window offset - takes update_computation(result, update), or is skipped
// when out of bounds. This is the cpu plugin's order, so later updates see
// earlier ones alike; it is correct for any indices and any computation,
// and slow: every element is handled by the one thread.
Result<std::string> EmitScatterKernel(const FusedKernel& kernel) {
  const Operation& op = *kernel.scatter;
  BERTH_RETURN_IF_ERROR(CheckScatter(op));
  const stablehlo::ScatterDimensionNumbers& numbers = *op.scatter_dimension_numbers();
  const size_t n = op.num_results();
  const stablehlo::Type input = op.operand(0)->type(), indices = op.operand(n)->type(),
                        updates = op.operand(n + 1)->type();
  const int64_t r = input.rank(), s = indices.rank(), ivd = numbers.index_vector_dim;
  std::string params = KernelParams(kernel), body;
  int reads = 0;
  auto contains = [](const std::vector<int64_t>& list, int64_t d) {
    return std::find(list.begin(), list.end(), d) != list.end();
  };
  std::vector<int64_t> all(static_cast<size_t>(r));
  for (int64_t d = 0; d < r; ++d) all[static_cast<size_t>(d)] = d;
  // The results start as the inputs.
  body += "    for (berth_s64 e = 0; e < " + std::to_string(input.NumElements()) + "LL; ++e) {\n";
  std::vector<std::string> at(static_cast<size_t>(r));
  EmitDecompose("e", all, input.shape(), "c", "      ", body, at);
  for (size_t j = 0; j < n; ++j) {
    const ElementType type = op.operand(j)->type().element_type();
    const std::string y = "y" + std::to_string(j);
    body += "      " + std::string(ComputeType(type)) + " " + y + ";\n";
    BERTH_RETURN_IF_ERROR(
        EmitElementLoad(kernel, op.operand(j), at, y, type, "      ", reads, body));
    body += "      out" + std::to_string(j) + "[e] = " + Store(type, y) + ";\n";
  }
  body += "    }\n";
  // The scatter positions, then each window element.
  std::vector<int64_t> scatter_dims, window_dims;
  for (int64_t d = 0; d < updates.rank(); ++d) {
    (contains(numbers.update_window_dims, d) ? window_dims : scatter_dims).push_back(d);
  }
  int64_t positions = 1, window = 1;
  for (int64_t d : scatter_dims) positions *= updates.dim(d);
  for (int64_t d : window_dims) window *= updates.dim(d);
  std::vector<std::string> u(static_cast<size_t>(updates.rank()));
  body += "    for (berth_s64 q = 0; q < " + std::to_string(positions) + "LL; ++q) {\n";
  EmitDecompose("q", scatter_dims, updates.shape(), "b", "      ", body, u);
  std::vector<std::string> batch;
  for (int64_t d : scatter_dims) batch.push_back(u[static_cast<size_t>(d)]);
  std::vector<std::string> start(static_cast<size_t>(r), "0LL");
  for (size_t k = 0; k < numbers.scatter_dims_to_operand_dims.size(); ++k) {
    std::vector<std::string> index = batch;
    if (ivd < s) index.insert(index.begin() + ivd, std::to_string(k) + "LL");
    const ElementType index_type = indices.element_type();
    const std::string name = "start" + std::to_string(k);
    body += "      berth_s64 " + name + ";\n      {\n        " +
            std::string(ComputeType(index_type)) + " v;\n";
    BERTH_RETURN_IF_ERROR(
        EmitElementLoad(kernel, op.operand(n), index, "v", index_type, "        ", reads, body));
    // Bounded so that adding window offsets cannot overflow.
    body += "        " + name + " = berth_to_index(v);\n";
    body += "        " + name + " = " + name + " < -(1LL << 48) ? -(1LL << 48) : " + name +
            " > (1LL << 48) ? (1LL << 48) : " + name + ";\n      }\n";
    start[static_cast<size_t>(numbers.scatter_dims_to_operand_dims[k])] = name;
  }
  for (size_t k = 0; k < numbers.input_batching_dims.size(); ++k) {
    const int64_t from = numbers.scatter_indices_batching_dims[k];
    start[static_cast<size_t>(numbers.input_batching_dims[k])] =
        batch[static_cast<size_t>(from < ivd ? from : from - 1)];
  }
  body += "      for (berth_s64 w = 0; w < " + std::to_string(window) + "LL; ++w) {\n";
  EmitDecompose("w", window_dims, updates.shape(), "v", "        ", body, u);
  std::vector<std::string> result_index(static_cast<size_t>(r));
  size_t next_window = 0;
  std::string inside = "true";
  for (int64_t d = 0; d < r; ++d) {
    std::string index = start[static_cast<size_t>(d)];
    if (!contains(numbers.inserted_window_dims, d) && !contains(numbers.input_batching_dims, d)) {
      index += " + " + u[static_cast<size_t>(window_dims[next_window++])];
    }
    const std::string name = "t" + std::to_string(d);
    body += "        const berth_s64 " + name + " = " + index + ";\n";
    inside += " && " + name + " >= 0 && " + name + " < " + std::to_string(input.dim(d)) + "LL";
    result_index[static_cast<size_t>(d)] = name;
  }
  body += "        if (" + inside + ") {\n";
  body += "          const berth_s64 to = " + LinearIndex(result_index, input.shape()) + ";\n";
  const stablehlo::Block& block = op.region(0).entry_block();
  std::unordered_map<const stablehlo::Value*, std::string> names;
  for (size_t j = 0; j < n; ++j) {
    const ElementType type = op.operand(j)->type().element_type(),
                      update_type = op.operand(n + 1 + j)->type().element_type();
    const std::string old_value = "old" + std::to_string(j), x = "x" + std::to_string(j);
    body += "          const " + std::string(ComputeType(type)) + " " + old_value + " = " +
            Load(type, "out" + std::to_string(j) + "[to]") + ";\n";
    body += "          " + std::string(ComputeType(update_type)) + " " + x + ";\n";
    BERTH_RETURN_IF_ERROR(EmitElementLoad(kernel, op.operand(n + 1 + j), u, x, update_type,
                                          "          ", reads, body));
    names[block.argument(j)] = old_value;
    names[block.argument(n + j)] = x;
  }
  int next = 0;
  BERTH_RETURN_IF_ERROR(EmitBlockOps(kernel.name, block, "          ", names, next, body));
  for (size_t j = 0; j < n; ++j) {
    const std::string value = names.at(block.terminator()->operand(j));
    body += "          const " + std::string(ComputeType(op.result(j)->type().element_type())) +
            " new" + std::to_string(j) + " = " + value + ";\n";
  }
  for (size_t j = 0; j < n; ++j) {
    body += "          out" + std::to_string(j) +
            "[to] = " + Store(op.result(j)->type().element_type(), "new" + std::to_string(j)) +
            ";\n";
  }
  body += "        }\n      }\n    }\n";
  return WrapKernel(kernel.name, params, body);
}

}  // namespace

Status CheckSelectAndScatter(const Operation& op) {
  if (op.kind() != OpKind::kSelectAndScatter || op.num_operands() != 3 || op.num_results() != 1 ||
      op.num_regions() != 2) {
    return Unsupported(op,
                       "not an operand, a source, an init value, a select and a scatter region");
  }
  for (const stablehlo::Value* value : op.operands())
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, value->type()));
  BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, op.result(0)->type()));
  const stablehlo::Type operand = op.operand(0)->type(), source = op.operand(1)->type();
  const ElementType type = operand.element_type();
  const int64_t rank = operand.rank();
  if (source.element_type() != type || op.operand(2)->type().element_type() != type ||
      op.operand(2)->type().rank() != 0 || op.result(0)->type().element_type() != type ||
      source.rank() != rank) {
    return Unsupported(op,
                       "its operand, source, init value and result must share one element type");
  }
  for (const char* name : {"window_dimensions", "window_strides"}) {
    const std::span<const int64_t> values = op.GetI64Array(name);
    if (values.empty() && rank > 0 && std::string_view(name) == "window_strides") continue;
    if (static_cast<int64_t>(values.size()) != rank ||
        std::any_of(values.begin(), values.end(), [](int64_t v) { return v <= 0; })) {
      return Unsupported(op, std::string(name) + " must hold one positive value per dimension");
    }
  }
  const std::vector<std::pair<int64_t, int64_t>> padding = op.GetPairs("padding");
  if (!padding.empty() && static_cast<int64_t>(padding.size()) != rank) {
    return Unsupported(op, "padding must hold one pair per dimension");
  }
  for (size_t r = 0; r < 2; ++r) {
    const stablehlo::Region& region = op.region(r);
    if (region.blocks().size() != 1) return Unsupported(op, "its regions must be one block each");
    const stablehlo::Block& body = region.entry_block();
    if (body.num_arguments() != 2 || body.terminator() == nullptr ||
        body.terminator()->num_operands() != 1 || body.argument(0)->type().element_type() != type ||
        body.argument(1)->type().element_type() != type) {
      return Unsupported(
          op, "its select and scatter regions must take two elements and return one value");
    }
    for (const Operation* inner : body.operations()) {
      if (inner == body.terminator()) continue;
      BERTH_RETURN_IF_ERROR(CheckFusible(*inner).WithContext("in a region of " + Where(op)));
    }
  }
  if (op.region(0).entry_block().terminator()->operand(0)->type().element_type() !=
      ElementType::kI1) {
    return Unsupported(op, "its select region must return an i1");
  }
  return OkStatus();
}

namespace {

// select_and_scatter, in one thread (kernel.num_elements is 1): the result
// starts as the init value; for each source element (row-major) the
// in-bounds operand elements of its window are scanned in row-major order,
// the first selected and each later one taking its place unless
// select(selected, candidate) holds; the source element is then scattered
// into the selected position with the scatter region. A window all on
// padding scatters nothing. The cpu plugin's order and rules.
Result<std::string> EmitSelectAndScatterKernel(const FusedKernel& kernel) {
  const Operation& op = *kernel.select_and_scatter;
  BERTH_RETURN_IF_ERROR(CheckSelectAndScatter(op));
  const stablehlo::Type operand = op.operand(0)->type(), source = op.operand(1)->type();
  const ElementType type = operand.element_type();
  const std::string t = ComputeType(type);
  const size_t rank = static_cast<size_t>(operand.rank());
  const std::span<const int64_t> window = op.GetI64Array("window_dimensions");
  std::vector<int64_t> strides(rank, 1);
  if (!op.GetI64Array("window_strides").empty()) {
    strides.assign(op.GetI64Array("window_strides").begin(),
                   op.GetI64Array("window_strides").end());
  }
  std::vector<std::pair<int64_t, int64_t>> padding = op.GetPairs("padding");
  if (padding.empty()) padding.assign(rank, {0, 0});
  std::string params = KernelParams(kernel), body;
  int reads = 0, next = 0;
  body += "    " + t + " init;\n";
  BERTH_RETURN_IF_ERROR(
      EmitElementLoad(kernel, op.operand(2), {}, "init", type, "    ", reads, body));
  body += "    for (berth_s64 e = 0; e < " + std::to_string(operand.NumElements()) +
          "LL; ++e) out0[e] = " + Store(type, "init") + ";\n";
  std::vector<int64_t> all(rank);
  for (size_t d = 0; d < rank; ++d) all[d] = static_cast<int64_t>(d);
  std::vector<std::string> at(rank), w(rank), p(rank);
  body += "    for (berth_s64 q = 0; q < " + std::to_string(source.NumElements()) + "LL; ++q) {\n";
  EmitDecompose("q", all, source.shape(), "s", "      ", body, at);
  body +=
      "      bool have = false;\n      berth_s64 chosen = 0;\n      " + t + " selected = init;\n";
  int64_t count = 1;
  for (int64_t size : window) count *= size;
  body += "      for (berth_s64 r = 0; r < " + std::to_string(count) + "LL; ++r) {\n";
  EmitDecompose("r", all, window, "w", "        ", body, w);
  std::string valid = "true";
  for (size_t d = 0; d < rank; ++d) {
    p[d] = "p" + std::to_string(d);
    body += "        const berth_s64 " + p[d] + " = " + at[d] + " * " + std::to_string(strides[d]) +
            "LL + " + w[d] + " - (" + std::to_string(padding[d].first) + "LL);\n";
    valid += " && " + p[d] + " >= 0 && " + p[d] + " < " +
             std::to_string(operand.dim(static_cast<int64_t>(d))) + "LL";
  }
  body += "        if (" + valid + ") {\n          " + t + " candidate;\n";
  BERTH_RETURN_IF_ERROR(
      EmitElementLoad(kernel, op.operand(0), p, "candidate", type, "          ", reads, body));
  body += "          const berth_s64 where = " + LinearIndex(p, operand.shape()) + ";\n";
  body += "          if (!have) {\n            have = true;\n            selected = candidate;\n"
          "            chosen = where;\n          } else {\n";
  const stablehlo::Block& select = op.region(0).entry_block();
  std::unordered_map<const stablehlo::Value*, std::string> names = {
      {select.argument(0), "selected"}, {select.argument(1), "candidate"}};
  BERTH_RETURN_IF_ERROR(EmitBlockOps(kernel.name, select, "            ", names, next, body));
  body +=
      "            if (!(" + names.at(select.terminator()->operand(0)) +
      ")) {\n              selected = candidate;\n              chosen = where;\n            }\n";
  body += "          }\n        }\n      }\n";
  body += "      if (have) {\n        const " + t + " old = " + Load(type, "out0[chosen]") +
          ";\n        " + t + " update;\n";
  BERTH_RETURN_IF_ERROR(
      EmitElementLoad(kernel, op.operand(1), at, "update", type, "        ", reads, body));
  const stablehlo::Block& scatter = op.region(1).entry_block();
  names = {{scatter.argument(0), "old"}, {scatter.argument(1), "update"}};
  BERTH_RETURN_IF_ERROR(EmitBlockOps(kernel.name, scatter, "        ", names, next, body));
  body +=
      "        out0[chosen] = " + Store(type, names.at(scatter.terminator()->operand(0))) + ";\n";
  body += "      }\n    }\n";
  return WrapKernel(kernel.name, params, body);
}

}  // namespace

Result<std::string> EmitFusedKernel(const FusedKernel& kernel) {
  if (kernel.scatter != nullptr) return EmitScatterKernel(kernel);
  if (kernel.select_and_scatter != nullptr) return EmitSelectAndScatterKernel(kernel);
  if (kernel.solve != nullptr) return EmitSolveKernel(kernel);
  if (kernel.dot != nullptr) return EmitDotKernel(kernel);
  if (kernel.reduce != nullptr) {
    return kernel.reduce->kind() == OpKind::kReduceWindow ? EmitReduceWindowKernel(kernel)
                                                          : EmitReduceKernel(kernel);
  }
  if (kernel.mover != nullptr) return EmitMoveKernel(kernel);
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
      auto input = std::find(kernel.inputs.begin(), kernel.inputs.end(), view.source);
      if (view.source == nullptr || input == kernel.inputs.end()) {
        return InvalidArgumentError("fused kernel '" + kernel.name +
                                    "': a view's source is not an input");
      }
      const std::string param = "in" + std::to_string(input - kernel.inputs.begin());
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
