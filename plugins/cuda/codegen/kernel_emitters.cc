#include "codegen/kernel_emitters.hpp"

#include <algorithm>
#include <cstring>

#include "codegen/kernel_prelude.hpp"

namespace berth::cuda::codegen {
namespace {

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
  if (ClassOf(type) == Class::kComplex) {
    // Lexicographic on (real, imaginary), each part as a float.
    const std::string ar = a + ".re", ai = a + ".im", br = b + ".re", bi = b + ".im";
    auto part = [&](const std::string& x, const std::string& y) {
      return compare == ComparisonType::kTotalOrder
                 ? std::pair{"berth_total_key(" + x + ")", "berth_total_key(" + y + ")"}
                 : std::pair{x, y};
    };
    const auto [xr, yr] = part(ar, br);
    const auto [xi, yi] = part(ai, bi);
    const std::string same = Infix(Infix(xr, "==", yr), "&&", Infix(xi, "==", yi));
    switch (*direction) {
      case ComparisonDirection::kEq: return same;
      case ComparisonDirection::kNe: return "(!" + same + ")";
      default: break;
    }
    const char* symbol = *direction == ComparisonDirection::kGe   ? ">="
                         : *direction == ComparisonDirection::kGt ? ">"
                         : *direction == ComparisonDirection::kLe ? "<="
                                                                  : "<";
    return "(" + Infix(xr, "==", yr) + " ? " + Infix(xi, symbol, yi) + " : " +
           Infix(xr, symbol, yr) + ")";
  }
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

// bitcast_convert between element types of one width (no shape change):
// integers reinterpret, f32/f64 through their bit patterns. Not i1, and
// not f16/bf16: their values are held as floats, whose NaNs would not keep
// every payload bit the cpu plugin keeps.
Result<std::string> BitcastExpression(const Operation& op, const std::string& a) {
  const ElementType from = op.operand(0)->type().element_type(),
                    to = op.result(0)->type().element_type();
  const Class source = ClassOf(from), target = ClassOf(to);
  if (stablehlo::BitWidth(from) != stablehlo::BitWidth(to) || source == Class::kBool ||
      target == Class::kBool || source == Class::kComplex || target == Class::kComplex ||
      IsHalf(from) || IsHalf(to) || IsNarrowFloat(from) || IsNarrowInteger(from) ||
      IsNarrowFloat(to) || IsNarrowInteger(to)) {
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

}  // namespace

bool IsNarrowInteger(ElementType type) {
  return type == ElementType::kSI2 || type == ElementType::kSI4 || type == ElementType::kUI2 ||
         type == ElementType::kUI4;
}

std::string NarrowFloatFormat(ElementType type) {
  switch (type) {
    case ElementType::kF8E5M2: return "5, 2, 15, 0";
    case ElementType::kF8E4M3: return "4, 3, 7, 0";
    case ElementType::kF8E3M4: return "3, 4, 3, 0";
    case ElementType::kF8E4M3FN: return "4, 3, 7, 1";
    case ElementType::kF8E4M3FNUZ: return "4, 3, 8, 2";
    case ElementType::kF8E5M2FNUZ: return "5, 2, 16, 2";
    case ElementType::kF8E4M3B11FNUZ: return "4, 3, 11, 2";
    case ElementType::kF6E2M3FN: return "2, 3, 1, 3";
    case ElementType::kF6E3M2FN: return "3, 2, 3, 3";
    case ElementType::kF4E2M1FN: return "2, 1, 1, 3";
    default: return "";
  }
}

bool IsNarrowFloat(ElementType type) {
  return type == ElementType::kF8E8M0FNU || !NarrowFloatFormat(type).empty();
}

Class ClassOf(ElementType type) {
  switch (type) {
    case ElementType::kI1: return Class::kBool;
    case ElementType::kSI2:
    case ElementType::kSI4:
    case ElementType::kSI8:
    case ElementType::kSI16:
    case ElementType::kSI32:
    case ElementType::kSI64: return Class::kSigned;
    case ElementType::kUI2:
    case ElementType::kUI4:
    case ElementType::kUI8:
    case ElementType::kUI16:
    case ElementType::kUI32:
    case ElementType::kUI64: return Class::kUnsigned;
    case ElementType::kF16:
    case ElementType::kBF16:
    case ElementType::kF32:
    case ElementType::kF64: return Class::kFloat;
    case ElementType::kComplex64:
    case ElementType::kComplex128: return Class::kComplex;
    default: return IsNarrowFloat(type) ? Class::kFloat : Class::kNone;
  }
}

const char* StorageType(ElementType type) {
  switch (type) {
    case ElementType::kI1: return "berth_u8";
    case ElementType::kSI2:
    case ElementType::kSI4:
    case ElementType::kSI8: return "berth_s8";
    case ElementType::kSI16: return "berth_s16";
    case ElementType::kSI32: return "berth_s32";
    case ElementType::kSI64: return "berth_s64";
    case ElementType::kUI2:
    case ElementType::kUI4:
    case ElementType::kUI8: return "berth_u8";
    case ElementType::kUI16: return "berth_u16";
    case ElementType::kUI32: return "berth_u32";
    case ElementType::kUI64: return "berth_u64";
    case ElementType::kF16:
    case ElementType::kBF16: return "berth_u16";
    case ElementType::kF32: return "float";
    case ElementType::kF64: return "double";
    case ElementType::kComplex64: return "berth_c64";
    case ElementType::kComplex128: return "berth_c128";
    default: return IsNarrowFloat(type) ? "berth_u8" : nullptr;
  }
}

const char* ComputeType(ElementType type) {
  if (type == ElementType::kI1) return "bool";
  if (IsHalf(type) || IsNarrowFloat(type)) return "float";
  return StorageType(type);
}

namespace {

// A narrow integer's template arguments: "<BITS, SIGNED>".
std::string NarrowIntegerArgs(ElementType type) {
  return "<" + std::to_string(stablehlo::BitWidth(type)) + ", " +
         (stablehlo::IsSignedInteger(type) ? "true" : "false") + ">";
}

// A float value (double or float) encoded in narrow float `type`.
std::string EncodeNarrowFloat(ElementType type, const std::string& value) {
  if (type == ElementType::kF8E8M0FNU) return "berth_f64_to_e8m0((double)(" + value + "))";
  return "berth_f64_to_narrow<" + NarrowFloatFormat(type) + ">((double)(" + value + "))";
}

// A narrow integer's value of the low bits of `value`, in its 8-bit type.
std::string WrapNarrowInteger(ElementType type, const std::string& value) {
  return "(" + std::string(StorageType(type)) + ")berth_narrow_wrap" + NarrowIntegerArgs(type) +
         "(" + value + ")";
}

std::string DecodeNarrowFloat(ElementType type, const std::string& bits) {
  if (type == ElementType::kF8E8M0FNU) return "berth_e8m0_to_f32(" + bits + ")";
  return "berth_narrow_to_f32<" + NarrowFloatFormat(type) + ">(" + bits + ")";
}

}  // namespace

std::string Load(ElementType type, const std::string& element) {
  if (IsNarrowFloat(type)) return DecodeNarrowFloat(type, element);
  // Whatever a narrow integer's byte holds above its bits, their value.
  if (IsNarrowInteger(type)) return WrapNarrowInteger(type, element);
  switch (type) {
    case ElementType::kI1: return "(" + element + " != 0)";
    case ElementType::kF16: return "berth_f16_to_f32(" + element + ")";
    case ElementType::kBF16: return "berth_bf16_to_f32(" + element + ")";
    default: return element;
  }
}

std::string Store(ElementType type, const std::string& value) {
  if (IsNarrowFloat(type)) return EncodeNarrowFloat(type, value);
  if (IsNarrowInteger(type)) return WrapNarrowInteger(type, value);
  switch (type) {
    case ElementType::kI1: return "(berth_u8)" + value;
    case ElementType::kF16: return "berth_f32_to_f16(" + value + ")";
    case ElementType::kBF16: return "berth_f32_to_bf16(" + value + ")";
    default: return value;
  }
}

bool RoundsAfterEachOp(ElementType type) {
  return IsHalf(type) || IsNarrowFloat(type) || IsNarrowInteger(type);
}

std::string RoundTo(ElementType type, const std::string& value) {
  if (type == ElementType::kF16) return "berth_round_f16(" + value + ")";
  if (type == ElementType::kBF16) return "berth_round_bf16(" + value + ")";
  if (IsNarrowFloat(type)) return DecodeNarrowFloat(type, EncodeNarrowFloat(type, value));
  if (IsNarrowInteger(type)) return WrapNarrowInteger(type, value);
  return value;
}

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

std::string ConvertExpression(ElementType from, ElementType to, const std::string& a) {
  const Class source = ClassOf(from), target = ClassOf(to);
  if (from == to) return a;
  // A complex number converts through its real part (the imaginary part
  // dropped, as XLA does); a real value becomes the real part (imaginary
  // +0); between complex types each part converts as a float does.
  if (source == Class::kComplex || target == Class::kComplex) {
    const ElementType from_part =
        source == Class::kComplex ? stablehlo::ComplexComponentType(from) : from;
    const std::string real = source == Class::kComplex ? a + ".re" : a;
    if (target != Class::kComplex) return ConvertExpression(from_part, to, real);
    const ElementType to_part = stablehlo::ComplexComponentType(to);
    const std::string imaginary = source == Class::kComplex
                                      ? ConvertExpression(from_part, to_part, a + ".im")
                                      : "(" + std::string(ComputeType(to_part)) + ")0";
    return "berth_complex(" + ConvertExpression(from_part, to_part, real) + ", " + imaginary + ")";
  }
  // Narrow types, as the cpu plugin converts them: a narrow value is its
  // compute value (a float, an 8-bit integer); to a narrow float the value
  // goes through double and rounds once; to a narrow integer a float
  // truncates and saturates, an integer wraps.
  if (IsNarrowFloat(from)) return ConvertExpression(ElementType::kF32, to, a);
  if (IsNarrowInteger(from)) {
    return ConvertExpression(source == Class::kSigned ? ElementType::kSI8 : ElementType::kUI8, to,
                             a);
  }
  if (IsNarrowFloat(to)) {
    const std::string value =
        source == Class::kBool ? "(" + a + " ? 1.0 : 0.0)" : "(double)(" + a + ")";
    return RoundTo(to, value);
  }
  if (IsNarrowInteger(to)) {
    const std::string value =
        source == Class::kFloat
            ? "berth_float_to_narrow" + NarrowIntegerArgs(to) + "((double)(" + a + "))"
        : source == Class::kBool ? "(" + a + " ? 1 : 0)"
                                 : "(berth_s64)(" + a + ")";
    return WrapNarrowInteger(to, value);
  }
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

OpKind ElementwiseKindOf(OpKind kind) {
  switch (kind) {
    case OpKind::kChloBroadcastAdd: return OpKind::kAdd;
    case OpKind::kChloBroadcastAnd: return OpKind::kAnd;
    case OpKind::kChloBroadcastAtan2: return OpKind::kAtan2;
    case OpKind::kChloBroadcastCompare: return OpKind::kCompare;
    case OpKind::kChloBroadcastComplex: return OpKind::kComplex;
    case OpKind::kChloBroadcastDivide: return OpKind::kDivide;
    case OpKind::kChloBroadcastMax: return OpKind::kMaximum;
    case OpKind::kChloBroadcastMin: return OpKind::kMinimum;
    case OpKind::kChloBroadcastMultiply: return OpKind::kMultiply;
    case OpKind::kChloBroadcastNextAfter: return OpKind::kChloNextAfter;
    case OpKind::kChloBroadcastOr: return OpKind::kOr;
    case OpKind::kChloBroadcastPolygamma: return OpKind::kChloPolygamma;
    case OpKind::kChloBroadcastPower: return OpKind::kPower;
    case OpKind::kChloBroadcastRemainder: return OpKind::kRemainder;
    case OpKind::kChloBroadcastSelect: return OpKind::kSelect;
    case OpKind::kChloBroadcastShiftLeft: return OpKind::kShiftLeft;
    case OpKind::kChloBroadcastShiftRightArithmetic: return OpKind::kShiftRightArithmetic;
    case OpKind::kChloBroadcastShiftRightLogical: return OpKind::kShiftRightLogical;
    case OpKind::kChloBroadcastSubtract: return OpKind::kSubtract;
    case OpKind::kChloBroadcastXor: return OpKind::kXor;
    case OpKind::kChloBroadcastZeta: return OpKind::kChloZeta;
    default: return kind;
  }
}

Result<std::string> OpExpression(const Operation& op, const std::vector<std::string>& args) {
  // A chlo.broadcast_* op computes as its elementwise kind.
  const OpKind kind = ElementwiseKindOf(op.kind());
  const ElementType operand = op.num_operands() > 0
                                  ? op.operand(op.num_operands() - 1)->type().element_type()
                                  : ElementType::kF32;
  const ElementType result = op.result(0)->type().element_type();
  const Class c = ClassOf(operand);
  const std::string t = ComputeType(operand);
  auto a = [&] { return args[0]; };
  auto b = [&] { return args[1]; };
  auto by_class = [&](std::string for_bool, std::string for_int, std::string for_float,
                      std::string for_complex = "") -> Result<std::string> {
    const std::string& chosen = c == Class::kBool      ? for_bool
                                : c == Class::kFloat   ? for_float
                                : c == Class::kComplex ? for_complex
                                                       : for_int;
    if (chosen.empty()) {
      return Unsupported(
          op, std::string(c == Class::kComplex ? "not generated for " : "not defined on ") +
                  std::string(stablehlo::ElementTypeName(operand)) +
                  (c == Class::kComplex ? " yet" : ""));
    }
    return chosen;
  };
  auto tmpl = [&](const char* fn) { return std::string(fn) + "<" + t + ">"; };
  // A narrow integer's bit pattern, zero-extended to 8 bits (what the cpu
  // plugin's popcnt, count_leading_zeros and shift_right_logical take).
  auto bits = [&](const std::string& x) {
    return "(berth_u8)(" + x + " & " + std::to_string((1 << stablehlo::BitWidth(operand)) - 1) +
           ")";
  };
  if (c == Class::kComplex) {
    // The functions of complex numbers the prelude has, as the cpu plugin
    // computes them (C's cexp, csin, ccos, csinh, ccosh, ctanh, ctan,
    // csqrt, clog; its own expm1, log1p, logistic and rsqrt; power and
    // atan2 below).
    const char* function = nullptr;
    switch (kind) {
      case OpKind::kExponential: function = "berth_cexp"; break;
      case OpKind::kExponentialMinusOne: function = "berth_cexpm1"; break;
      case OpKind::kLogPlusOne: function = "berth_clog1p"; break;
      case OpKind::kLogistic: function = "berth_clogistic"; break;
      case OpKind::kSine: function = "berth_csin"; break;
      case OpKind::kCosine: function = "berth_ccos"; break;
      case OpKind::kChloSinh: function = "berth_csinh"; break;
      case OpKind::kChloCosh: function = "berth_ccosh"; break;
      case OpKind::kTanh: function = "berth_ctanh"; break;
      case OpKind::kSqrt: function = "berth_csqrt"; break;
      case OpKind::kLog: function = "berth_clog"; break;
      case OpKind::kCbrt: function = "berth_ccbrt"; break;
      case OpKind::kRsqrt: function = "berth_crsqrt"; break;
      case OpKind::kTan:
      case OpKind::kChloTan: function = "berth_ctan"; break;
      default: break;
    }
    if (function != nullptr) return Call(function, a());
  }
  if (const char* function = FloatFunctionOf(kind)) return by_class("", "", Call(function, a()));
  switch (kind) {
    case OpKind::kComplex: return Call("berth_complex", a(), b());
    case OpKind::kReal: return c == Class::kComplex ? a() + ".re" : a();
    case OpKind::kImag: return c == Class::kComplex ? a() + ".im" : "(" + t + ")0";
    case OpKind::kAdd:
      return by_class(Infix(a(), "||", b()), Call(tmpl("berth_iadd"), a(), b()),
                      Infix(a(), "+", b()), Call("berth_cadd", a(), b()));
    case OpKind::kSubtract:
      return by_class("", Call(tmpl("berth_isub"), a(), b()), Infix(a(), "-", b()),
                      Call("berth_csub", a(), b()));
    case OpKind::kMultiply:
      return by_class(Infix(a(), "&&", b()), Call(tmpl("berth_imul"), a(), b()),
                      Infix(a(), "*", b()), Call("berth_cmul", a(), b()));
    case OpKind::kDivide:
      return by_class("", Call(tmpl("berth_idiv"), a(), b()), Infix(a(), "/", b()),
                      Call("berth_cdiv", a(), b()));
    case OpKind::kRemainder:
      return by_class("", Call(tmpl("berth_irem"), a(), b()), Call("fmod", a(), b()));
    case OpKind::kPower:
      return by_class("", Call(tmpl("berth_ipow"), a(), b()), Call("pow", a(), b()),
                      Call("berth_cpow", a(), b()));
    case OpKind::kMaximum:
      return by_class(Infix(a(), "||", b()),
                      "(" + a() + " > " + b() + " ? " + a() + " : " + b() + ")",
                      Call("berth_fmax", a(), b()), Call("berth_cmax", a(), b()));
    case OpKind::kMinimum:
      return by_class(Infix(a(), "&&", b()),
                      "(" + a() + " < " + b() + " ? " + a() + " : " + b() + ")",
                      Call("berth_fmin", a(), b()), Call("berth_cmin", a(), b()));
    case OpKind::kAtan2:
      return by_class("", "", Call("atan2", a(), b()), Call("berth_catan2", a(), b()));
    case OpKind::kAnd:
      return by_class(Infix(a(), "&&", b()), "(" + t + ")" + Infix(a(), "&", b()), "");
    case OpKind::kOr:
      return by_class(Infix(a(), "||", b()), "(" + t + ")" + Infix(a(), "|", b()), "");
    case OpKind::kXor:
      return by_class(Infix(a(), "!=", b()), "(" + t + ")" + Infix(a(), "^", b()), "");
    case OpKind::kNot: return by_class("(!" + a() + ")", "(" + t + ")(~" + a() + ")", "");
    case OpKind::kShiftLeft: return by_class("", Call(tmpl("berth_shl"), a(), b()), "");
    case OpKind::kShiftRightLogical:
      if (IsNarrowInteger(operand))
        return Call("berth_shr_logical<berth_u8>", bits(a()), bits(b()));
      return by_class("", Call(tmpl("berth_shr_logical"), a(), b()), "");
    case OpKind::kShiftRightArithmetic:
      return by_class("", Call(tmpl("berth_shr_arithmetic"), a(), b()), "");
    case OpKind::kChloMulhi: return by_class("", Call(tmpl("berth_mulhi"), a(), b()), "");
    case OpKind::kPopcnt:
      if (IsNarrowInteger(operand)) return Call("berth_popcnt<berth_u8>", bits(a()));
      return by_class("", Call(tmpl("berth_popcnt"), a()), "");
    case OpKind::kCountLeadingZeros:
      if (IsNarrowInteger(operand)) {
        return "(" + Call("berth_clz<berth_u8>", bits(a())) + " - " +
               std::to_string(8 - stablehlo::BitWidth(operand)) + ")";
      }
      return by_class("", Call(tmpl("berth_clz"), a()), "");
    case OpKind::kAbs:
      return by_class("", c == Class::kUnsigned ? a() : Call(tmpl("berth_iabs"), a()),
                      Call("fabs", a()), Call("berth_cabs", a()));
    case OpKind::kNegate:
      return by_class("", Call(tmpl("berth_ineg"), a()), "(-" + a() + ")", Call("berth_cneg", a()));
    case OpKind::kSign:
      return by_class("",
                      c == Class::kUnsigned ? "(" + t + ")(" + a() + " != 0)"
                                            : Call(tmpl("berth_isign"), a()),
                      Call("berth_fsign", a()), Call("berth_csign", a()));
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
      if (c == Class::kComplex) return Unsupported(op, "clamp of complex numbers is not generated");
      const std::string raised = "(" + x + " > " + lo + " ? " + x + " : " + lo + ")";
      return "(" + raised + " < " + hi + " ? " + raised + " : " + hi + ")";
    }
    case OpKind::kConvert:
      return ConvertExpression(op.operand(0)->type().element_type(), result, a());
    case OpKind::kBitcastConvert: return BitcastExpression(op, a());
    case OpKind::kReducePrecision: {
      const std::optional<int64_t> exponent = op.GetInt("exponent_bits"),
                                   mantissa = op.GetInt("mantissa_bits");
      if (!exponent || !mantissa || *exponent < 1 || *mantissa < 0)
        return Unsupported(op, "it needs exponent_bits >= 1 and mantissa_bits >= 0");
      // Beyond the widest format nothing changes (as the cpu plugin clamps).
      const std::string e = std::to_string(std::min<int64_t>(*exponent, 64)),
                        m = std::to_string(std::min<int64_t>(*mantissa, 64));
      auto on = [&](const std::string& format, const std::string& bits) {
        return "berth_reduce_precision<" + format + ">(" + bits + ", " + e + ", " + m + ")";
      };
      // On the operand's own format; narrow floats on f32, as the cpu plugin.
      switch (operand) {
        case ElementType::kF64:
          return "__longlong_as_double((long long)" +
                 on("berth_u64, 52, 11", "(berth_u64)__double_as_longlong(" + a() + ")") + ")";
        case ElementType::kF16:
          return "berth_f16_to_f32(" + on("berth_u16, 10, 5", "berth_f32_to_f16(" + a() + ")") +
                 ")";
        case ElementType::kBF16:
          return "berth_bf16_to_f32(" + on("berth_u16, 7, 8", "berth_f32_to_bf16(" + a() + ")") +
                 ")";
        default:
          if (c != Class::kFloat) return Unsupported(op, "reduce_precision takes floats");
          return "__uint_as_float(" + on("berth_u32, 23, 8", "__float_as_uint(" + a() + ")") + ")";
      }
    }
    case OpKind::kChloErfInv:
    case OpKind::kChloLgamma:
    case OpKind::kChloDigamma:
    case OpKind::kChloBesselI1e:
    case OpKind::kChloPolygamma:
    case OpKind::kChloZeta: {
      // In double, rounded once to the element type as the cpu plugin does
      // (narrow floats to f32 first: they compute as f32 there). The cpu
      // plugin computes f64 results in x87 long double, which a GPU lacks:
      // erf_inv, lgamma and bessel_i1e lose at most a few ulps in double,
      // digamma, polygamma and zeta many near their zeros and poles.
      if (operand == ElementType::kF64 &&
          (kind == OpKind::kChloDigamma || kind == OpKind::kChloPolygamma ||
           kind == OpKind::kChloZeta)) {
        return Unsupported(op, "of f64 is not generated yet (the cpu plugin computes it in long "
                               "double; in double it loses many bits near its zeros)");
      }
      const char* function = kind == OpKind::kChloErfInv      ? "berth_erf_inv"
                             : kind == OpKind::kChloLgamma    ? "lgamma"
                             : kind == OpKind::kChloDigamma   ? "berth_digamma"
                             : kind == OpKind::kChloBesselI1e ? "berth_bessel_i1e"
                             : kind == OpKind::kChloPolygamma ? "berth_polygamma"
                                                              : "berth_zeta";
      const std::string value = args.size() == 2
                                    ? Call(function, "(double)" + a(), "(double)" + b())
                                    : Call(function, "(double)" + a());
      return by_class("", "",
                      ConvertExpression(ElementType::kF64,
                                        IsNarrowFloat(operand) ? ElementType::kF32 : operand,
                                        value));
    }
    case OpKind::kChloNextAfter: {
      // On the bits of the compute type's format (narrow floats compute as
      // f32, as on the cpu plugin).
      const std::string unordered = "(" + a() + " != " + a() + " || " + b() + " != " + b() + ")",
                        equal = "(" + a() + " == " + b() + ")";
      auto step = [&](const std::string& bits_type, int mantissa, const std::string& x,
                      const std::string& y) {
        return "berth_next_after_bits<" + bits_type + ", " + std::to_string(mantissa) + ">(" + x +
               ", " + y + ", " + unordered + ", " + equal + ")";
      };
      switch (operand) {
        case ElementType::kF64:
          return "__longlong_as_double((long long)" +
                 step("berth_u64", 52, "(berth_u64)__double_as_longlong(" + a() + ")",
                      "(berth_u64)__double_as_longlong(" + b() + ")") +
                 ")";
        case ElementType::kF16:
          return "berth_f16_to_f32(" +
                 step("berth_u16", 10, "berth_f32_to_f16(" + a() + ")",
                      "berth_f32_to_f16(" + b() + ")") +
                 ")";
        case ElementType::kBF16:
          return "berth_bf16_to_f32(" +
                 step("berth_u16", 7, "berth_f32_to_bf16(" + a() + ")",
                      "berth_f32_to_bf16(" + b() + ")") +
                 ")";
        default:
          return by_class("", "",
                          "__uint_as_float(" +
                              step("berth_u32", 23, "__float_as_uint(" + a() + ")",
                                   "__float_as_uint(" + b() + ")") +
                              ")");
      }
    }
    // A program runs on one device (the client refuses more replicas or
    // partitions at compile time): replica and partition 0.
    case OpKind::kReplicaId:
    case OpKind::kPartitionId: return std::string("(berth_u32)0");
    case OpKind::kChloSquare:
      return by_class("", "", Infix(a(), "*", a()), Call("berth_cmul", a(), a()));
    case OpKind::kChloConj:
      return by_class("", "", a(), "berth_complex(" + a() + ".re, -" + a() + ".im)");
    case OpKind::kChloIsInf: return by_class("", "", Call("isinf", a()));
    case OpKind::kChloIsPosInf: return by_class("", "", "(isinf(" + a() + ") && " + a() + " > 0)");
    case OpKind::kChloIsNegInf: return by_class("", "", "(isinf(" + a() + ") && " + a() + " < 0)");
    default: break;
  }
  return Unsupported(op, "not an elementwise op the code generator knows");
}

std::vector<int64_t> RowMajorStrides(std::span<const int64_t> shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

std::string LinearIndex(const std::vector<std::string>& index, std::span<const int64_t> shape) {
  const std::vector<int64_t> strides = RowMajorStrides(shape);
  std::string linear = "0LL";
  for (size_t d = 0; d < index.size(); ++d) {
    linear += " + (" + index[d] + ") * " + std::to_string(strides[d]) + "LL";
  }
  return linear;
}

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
    if (op->kind() == OpKind::kIota || op->kind() == OpKind::kDynamicIota) {
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
      case OpKind::kBroadcastInDim:
      case OpKind::kDynamicBroadcastInDim: {
        std::span<const int64_t> dims = op->GetI64Array("broadcast_dimensions");
        for (size_t k = 0; k < dims.size(); ++k) {
          exprs[k] = operand.dim(static_cast<int64_t>(k)) == 1
                         ? "0LL"
                         : current[static_cast<size_t>(dims[k])];
        }
        break;
      }
      case OpKind::kReshape:
      case OpKind::kDynamicReshape: {
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
      case OpKind::kBroadcast: {
        const size_t sizes = op->GetI64Array("broadcast_sizes").size();
        for (size_t d = 0; d < exprs.size(); ++d) exprs[d] = current[sizes + d];
        break;
      }
      case OpKind::kSlice:
      case OpKind::kRealDynamicSlice: {
        const std::vector<int64_t> start = StaticArray(*op, "start_indices").value();
        const std::vector<int64_t> strides = StaticArray(*op, "strides").value();
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
  if (!kernel.launches.empty()) params += "char* __restrict__ scratch, berth_s64 pass, ";
  return params;
}

std::string WrapKernel(const std::string& name, const std::string& params, const std::string& body,
                       std::string_view helpers) {
  std::string source(KernelHeader());
  source += helpers;
  source += "\nextern \"C\" __global__ void " + name + "(" + params + "berth_s64 n) {\n";
  source += "  for (berth_s64 i = (berth_s64)blockIdx.x * blockDim.x + threadIdx.x; i < n;\n";
  source += "       i += (berth_s64)gridDim.x * blockDim.x) {\n";
  source += body;
  source += "  }\n}\n";
  return source;
}

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
    if (op->kind() == OpKind::kMap) {
      // Its computation inlined, on the operands' elements.
      const stablehlo::Block& block = op->region(0).entry_block();
      for (size_t a = 0; a < args.size(); ++a) names[block.argument(a)] = args[a];
      BERTH_RETURN_IF_ERROR(EmitBlockOps(kernel, block, indent, names, next, body));
      names[op->result(0)] = names.at(block.terminator()->operand(0));
      continue;
    }
    BERTH_ASSIGN_OR_RETURN(std::string expression, OpExpression(*op, args));
    const ElementType type = op->result(0)->type().element_type();
    if (op->kind() != OpKind::kConvert && RoundsAfterEachOp(type))
      expression = RoundTo(type, expression);
    const std::string local = "v" + std::to_string(next++);
    body += indent + "const " + std::string(ComputeType(type)) + " " + local + " = " + expression +
            ";\n";
    names[op->result(0)] = local;
  }
  return OkStatus();
}

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

std::vector<std::string> EmitResultIndex(std::span<const int64_t> shape, const std::string& prefix,
                                         std::string& body) {
  std::vector<int64_t> all(shape.size());
  for (size_t d = 0; d < all.size(); ++d) all[d] = static_cast<int64_t>(d);
  std::vector<std::string> names(all.size());
  EmitDecompose("i", all, shape, prefix, "    ", body, names);
  return names;
}

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
  BERTH_ASSIGN_OR_RETURN(const std::string input, InputParam(kernel, source));
  body += indent + target + " = " + Load(type, input + "[" + source_index + "]") + ";\n";
  return OkStatus();
}

Result<std::string> InputParam(const FusedKernel& kernel, const stablehlo::Value* value) {
  auto it = std::find(kernel.inputs.begin(), kernel.inputs.end(), value);
  if (it == kernel.inputs.end()) {
    return InvalidArgumentError("kernel '" + kernel.name +
                                "': a value it reads is not an input in memory");
  }
  return "in" + std::to_string(it - kernel.inputs.begin());
}

std::optional<std::vector<int64_t>> ConstantIntegers(const stablehlo::Value* value) {
  const Operation* producer = value->defining_op();
  const stablehlo::DenseElementsAttr* dense =
      producer != nullptr && producer->kind() == OpKind::kConstant ? producer->GetDense("value")
                                                                   : nullptr;
  const ElementType type = value->type().element_type();
  if (dense == nullptr || !stablehlo::IsInteger(type)) return std::nullopt;
  const std::vector<uint8_t> bytes = dense->ExpandedData();
  const size_t size = stablehlo::StorageBytes(type);
  std::vector<int64_t> values(static_cast<size_t>(value->type().NumElements()));
  for (size_t e = 0; e < values.size() && (e + 1) * size <= bytes.size(); ++e) {
    uint64_t raw = 0;
    std::memcpy(&raw, bytes.data() + e * size, size);
    const int unused = 64 - 8 * static_cast<int>(size);
    values[e] = stablehlo::IsSignedInteger(type) ? static_cast<int64_t>(raw << unused) >> unused
                                                 : static_cast<int64_t>(raw);
  }
  return values;
}

std::optional<std::vector<int64_t>> StaticArray(const Operation& op, std::string_view name) {
  size_t operand = 0;
  if (op.kind() == OpKind::kDynamicGather && name == "slice_sizes") operand = 2;
  if (op.kind() == OpKind::kRealDynamicSlice) {
    if (name == "start_indices") operand = 1;
    if (name == "limit_indices") operand = 2;
    if (name == "strides") operand = 3;
  }
  if (op.kind() == OpKind::kDynamicConv && name == "padding") operand = 2;
  if (op.kind() == OpKind::kDynamicPad) {
    if (name == "edge_padding_low") operand = 2;
    if (name == "edge_padding_high") operand = 3;
    if (name == "interior_padding") operand = 4;
  }
  if (operand == 0) {
    const std::span<const int64_t> values = op.GetI64Array(name);
    if (name == "padding" && op.has_attr("padding")) {
      std::vector<int64_t> flat;
      for (const auto& [low, high] : op.GetPairs("padding")) {
        flat.push_back(low);
        flat.push_back(high);
      }
      return flat;
    }
    return std::vector<int64_t>(values.begin(), values.end());
  }
  if (operand >= op.num_operands()) return std::nullopt;
  return ConstantIntegers(op.operand(operand));
}

std::vector<std::pair<int64_t, int64_t>> StaticPadding(const Operation& op) {
  std::vector<std::pair<int64_t, int64_t>> pairs;
  const std::optional<std::vector<int64_t>> flat = StaticArray(op, "padding");
  if (!flat) return pairs;
  for (size_t k = 0; k + 1 < flat->size(); k += 2) pairs.emplace_back((*flat)[k], (*flat)[k + 1]);
  return pairs;
}

Status CheckWindowAttributes(const Operation& op, int64_t rank,
                             std::initializer_list<const char*> optional) {
  auto check = [&](const char* name, bool required) -> Status {
    const std::span<const int64_t> values = op.GetI64Array(name);
    if (values.empty() && rank > 0 && !required) return OkStatus();
    if (static_cast<int64_t>(values.size()) != rank ||
        std::any_of(values.begin(), values.end(), [](int64_t v) { return v <= 0; })) {
      return Unsupported(op, std::string(name) + " must hold one positive value per dimension");
    }
    return OkStatus();
  };
  BERTH_RETURN_IF_ERROR(check("window_dimensions", true));
  for (const char* name : optional) BERTH_RETURN_IF_ERROR(check(name, false));
  const std::vector<std::pair<int64_t, int64_t>> padding = op.GetPairs("padding");
  if (!padding.empty() && static_cast<int64_t>(padding.size()) != rank) {
    return Unsupported(op, "padding must hold one pair per dimension");
  }
  return OkStatus();
}

}  // namespace berth::cuda::codegen
