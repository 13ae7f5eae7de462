// Uniform quantized types: parsing their parameters and lowering a module to
// plain integer and float ops (see quantization.hpp).
#include "berth/stablehlo/quantization.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <tuple>

#include "berth/stablehlo/parser.hpp"
#include "berth/stablehlo/printer.hpp"
#include "berth/stablehlo/verifier.hpp"

namespace berth::stablehlo {
namespace {

// ------------------------------------------------------------------ parsing

class QuantTextReader {
 public:
  explicit QuantTextReader(std::string_view text) : text_(text) {}

  Status Fail(const std::string& why) const {
    return InvalidArgumentError("quantized type " + std::string(text_) + ": " + why);
  }
  bool Take(char c) {
    SkipSpaces();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool AtEnd() {
    SkipSpaces();
    return pos_ == text_.size();
  }
  std::string_view Word() {
    SkipSpaces();
    size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) != 0))
      ++pos_;
    return text_.substr(start, pos_ - start);
  }
  bool Integer(int64_t* out) {
    SkipSpaces();
    size_t start = pos_;
    if (pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+')) ++pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])) != 0)
      ++pos_;
    std::string_view digits = text_.substr(start, pos_ - start);
    if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
    auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), *out);
    return error == std::errc() && end == digits.data() + digits.size() && !digits.empty();
  }
  bool Float(double* out) {
    SkipSpaces();
    size_t start = pos_;
    while (pos_ < text_.size() &&
           std::string_view("0123456789.eE+-").find(text_[pos_]) != std::string_view::npos) {
      ++pos_;
    }
    std::string token(text_.substr(start, pos_ - start));
    if (token.empty()) return false;
    char* end = nullptr;
    *out = std::strtod(token.c_str(), &end);
    return end == token.c_str() + token.size();
  }

 private:
  void SkipSpaces() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])) != 0)
      ++pos_;
  }
  std::string_view text_;
  size_t pos_ = 0;
};

bool StorageTypeFromName(std::string_view name, ElementType* out) {
  static const std::pair<std::string_view, ElementType> kTypes[] = {
      {"i2", ElementType::kSI2},    {"i4", ElementType::kSI4},   {"i8", ElementType::kSI8},
      {"i16", ElementType::kSI16},  {"i32", ElementType::kSI32}, {"ui2", ElementType::kUI2},
      {"ui4", ElementType::kUI4},   {"ui8", ElementType::kUI8},  {"ui16", ElementType::kUI16},
      {"ui32", ElementType::kUI32}, {"u2", ElementType::kUI2},   {"u4", ElementType::kUI4},
      {"u8", ElementType::kUI8},    {"u16", ElementType::kUI16}, {"u32", ElementType::kUI32},
  };
  for (const auto& [spelling, type] : kTypes) {
    if (name == spelling) {
      *out = type;
      return true;
    }
  }
  return false;
}

bool ExpressedTypeFromName(std::string_view name, ElementType* out) {
  static const std::pair<std::string_view, ElementType> kTypes[] = {{"f16", ElementType::kF16},
                                                                    {"bf16", ElementType::kBF16},
                                                                    {"f32", ElementType::kF32},
                                                                    {"f64", ElementType::kF64}};
  for (const auto& [spelling, type] : kTypes) {
    if (name == spelling) {
      *out = type;
      return true;
    }
  }
  return false;
}

// The range of an integer type of at most 32 bits.
std::pair<int64_t, int64_t> IntegerRange(ElementType type) {
  const int bits = BitWidth(type);
  if (IsUnsignedInteger(type)) return {0, (int64_t{1} << bits) - 1};
  return {-(int64_t{1} << (bits - 1)), (int64_t{1} << (bits - 1)) - 1};
}

bool ContainsQuantized(Type type) {
  if (!type) return false;
  if (type.IsTensor()) return type.IsQuantized();
  if (type.IsTuple()) {
    for (Type inner : type.types()) {
      if (ContainsQuantized(inner)) return true;
    }
  }
  return false;
}

// ----------------------------------------------------------------- lowering

std::string FloatLiteral(double value) {
  char text[40];
  std::snprintf(text, sizeof(text), "%.17g", value);
  std::string literal(text);
  if (literal.find_first_of(".eEn") == std::string::npos) literal += ".0";
  return literal;
}

std::string TensorText(std::span<const int64_t> shape, ElementType element) {
  std::string text = "tensor<";
  for (int64_t d : shape) text += std::to_string(d) + "x";
  text += ElementTypeName(element);
  return text + ">";
}

std::string StorageTypeText(Type type) {
  if (type.IsTensor() && type.IsQuantized()) {
    Result<UniformQuantization> q = QuantizationOf(type);
    // Checked before printing (CheckQuantizedTypes); kept as written else.
    if (!q.ok()) return type.ToString();
    return TensorText(type.shape(), q->storage);
  }
  if (type.IsTuple() && ContainsQuantized(type)) {
    std::string text = "tuple<";
    for (size_t i = 0; i < type.types().size(); ++i) {
      if (i) text += ", ";
      text += StorageTypeText(type.types()[i]);
    }
    return text + ">";
  }
  return type.ToString();
}

// Ops that hand each value on whole, its type unchanged (operand i is
// result i, a call's argument, a region's value): always on the storage
// integers, whatever the parameters of the other values. Among them the ops
// whose body computes the results (reduce, sort ...): the body's ops are
// lowered like any others, so it computes on quantized values as the
// specification evaluates it (each op of the body dequantize - op -
// quantize).
bool PassesValuesThrough(OpKind kind) {
  switch (kind) {
    case OpKind::kReduce:
    case OpKind::kReduceWindow:
    case OpKind::kSort:
    case OpKind::kScatter:
    case OpKind::kSelectAndScatter:
    case OpKind::kMap:
    case OpKind::kAllReduce:
    case OpKind::kReduceScatter:
    case OpKind::kComposite:
    case OpKind::kTuple:
    case OpKind::kGetTupleElement:
    case OpKind::kOptimizationBarrier:
    case OpKind::kFuncCall:
    case OpKind::kReturn:
    case OpKind::kFuncReturn:
    case OpKind::kWhile:
    case OpKind::kIf:
    case OpKind::kCase:
    case OpKind::kCustomCall:
    case OpKind::kGetDimensionSize:
    case OpKind::kBitcastConvert: return true;
    default: return false;
  }
}

// Ops whose result elements are operand elements moved around: on the
// storage integers they give the quantized result when every quantized
// value has the same parameters.
bool MovesElements(OpKind kind) {
  switch (kind) {
    case OpKind::kReshape:
    case OpKind::kTranspose:
    case OpKind::kBroadcastInDim:
    case OpKind::kSlice:
    case OpKind::kDynamicSlice:
    case OpKind::kDynamicUpdateSlice:
    case OpKind::kConcatenate:
    case OpKind::kPad:
    case OpKind::kReverse:
    case OpKind::kGather:
    case OpKind::kSelect:
    case OpKind::kAllGather:
    case OpKind::kAllToAll:
    case OpKind::kCollectivePermute:
    case OpKind::kCollectiveBroadcast: return true;
    default: return false;
  }
}

// Of those, the ones that keep every element at its index (per-axis
// parameters stay with their dimension).
bool KeepsLayout(OpKind kind) {
  return kind == OpKind::kSelect || kind == OpKind::kCollectivePermute ||
         kind == OpKind::kCollectiveBroadcast;
}

// Per-axis parameters that are all the same are per-tensor ones.
UniformQuantization Simplified(UniformQuantization q) {
  if (!q.axis) return q;
  for (size_t i = 1; i < q.scales.size(); ++i) {
    if (q.scales[i] != q.scales[0] || q.zero_points[i] != q.zero_points[0]) return q;
  }
  q.axis.reset();
  q.scales.resize(1);
  q.zero_points.resize(1);
  return q;
}

struct QuantizedValue {
  UniformQuantization q;
  bool is_result;
};

class QuantizedLowering {
 public:
  // The PrintHooks::op hook.
  Result<bool> LowerOp(const Operation& op, OpPrinter& p) {
    std::vector<QuantizedValue> quantized;
    bool in_tuples = false;
    for (int side = 0; side < 2; ++side) {
      std::span<Value* const> values = side == 0 ? op.operands() : op.results();
      for (const Value* v : values) {
        if (v->type().IsTensor() && v->type().IsQuantized()) {
          BERTH_ASSIGN_OR_RETURN(UniformQuantization q, QuantizationOf(v->type()));
          quantized.push_back({std::move(q), side == 1});
        } else if (ContainsQuantized(v->type())) {
          in_tuples = true;
        }
      }
    }
    if (quantized.empty() && !in_tuples) return false;
    if (op.kind() == OpKind::kFuncReturn) BERTH_RETURN_IF_ERROR(CheckReturnedTypes(op));
    if (PassesValuesThrough(op.kind())) return false;
    if (in_tuples) {
      return Unimplemented(op, "computes with a tuple holding quantized values");
    }
    const bool one_to_one = op.num_operands() == 1 && op.num_results() == 1;
    switch (op.kind()) {
      case OpKind::kConstant:
        if (op.num_results() != 1)
          return Error(op, StatusCode::kInvalidArgument, "must have one result");
        return LowerConstant(op, p);
      case OpKind::kUniformQuantize:
      case OpKind::kUniformDequantize:
        if (!one_to_one)
          return Error(op, StatusCode::kInvalidArgument, "must have one operand and one result");
        return LowerQuantizeOrDequantize(op, p, quantized);
      default: break;
    }
    if (MovesElements(op.kind()) && SameParameters(op, quantized)) return false;
    BERTH_RETURN_IF_ERROR(CheckRegionsFree(op));
    return LowerComputation(op, p);
  }

 private:
  static Status Error(const Operation& op, StatusCode code, const std::string& why) {
    return Status(code,
                  op.location().ToString() + ": error: '" + std::string(op.name()) + "' op " + why);
  }
  static Status Unimplemented(const Operation& op, const std::string& why) {
    return Error(op, StatusCode::kUnimplemented, why + "; not supported with quantized types");
  }

  // Ops that compute (and are lowered as dequantize - op - quantize) must not
  // have quantized values inside their regions: their bodies would compute
  // on quantized scalars in a way the specification does not define.
  static Status CheckRegionsFree(const Operation& op) {
    for (const Region* region : op.regions()) {
      for (const Block* block : region->blocks()) {
        for (const Value* arg : block->arguments()) {
          if (ContainsQuantized(arg->type()))
            return Unimplemented(op, "has quantized values in its regions");
        }
        for (const Operation* inner : block->operations()) {
          for (const Value* v : inner->results()) {
            if (ContainsQuantized(v->type()))
              return Unimplemented(op, "has quantized values in its regions");
          }
          BERTH_RETURN_IF_ERROR(CheckRegionsFree(*inner));
        }
      }
    }
    return OkStatus();
  }

  // A function returns values of the quantized types it declares (once
  // lowered, only the storage types would be compared).
  static Status CheckReturnedTypes(const Operation& op) {
    const Function* f = op.parent_function();
    if (f == nullptr || f->result_types().size() != op.num_operands())
      return OkStatus();  // the verifier says
    for (size_t i = 0; i < op.num_operands(); ++i) {
      Type returned = op.operand(i)->type();
      Type declared = f->result_types()[i];
      if (ContainsQuantized(returned) && returned != declared) {
        return Error(op, StatusCode::kInvalidArgument,
                     "returns " + returned.ToString() + " as result " + std::to_string(i) +
                         " of @" + std::string(f->name()) + ", which is " + declared.ToString());
      }
    }
    return OkStatus();
  }

  // Whether the op, run on the storage integers, gives its quantized results.
  static bool SameParameters(const Operation& op, const std::vector<QuantizedValue>& quantized) {
    if (quantized.empty()) return true;
    UniformQuantization first = Simplified(quantized.front().q);
    bool all_per_tensor = true;
    for (const QuantizedValue& v : quantized) {
      UniformQuantization q = Simplified(v.q);
      if (q.storage != first.storage || q.storage_min != first.storage_min ||
          q.storage_max != first.storage_max || q.expressed != first.expressed) {
        return false;
      }
      if (q.axis) all_per_tensor = false;
    }
    if (all_per_tensor) {
      for (const QuantizedValue& v : quantized) {
        if (!(Simplified(v.q) == first)) return false;
      }
      return true;
    }
    // Per axis: the same parameters, each along the dimension its elements
    // move to.
    for (const QuantizedValue& v : quantized) {
      if (!v.q.axis || v.q.scales != first.scales || v.q.zero_points != first.zero_points)
        return false;
    }
    if (KeepsLayout(op.kind())) {
      for (const QuantizedValue& v : quantized) {
        if (v.q.axis != quantized.front().q.axis) return false;
      }
      return true;
    }
    if (quantized.size() != 2 || quantized[0].is_result || !quantized[1].is_result) return false;
    const int64_t from = *quantized[0].q.axis;
    const int64_t to = *quantized[1].q.axis;
    if (op.kind() == OpKind::kTranspose) {
      std::span<const int64_t> permutation = op.GetI64Array("permutation");
      return to >= 0 && static_cast<size_t>(to) < permutation.size() &&
             permutation[static_cast<size_t>(to)] == from;
    }
    if (op.kind() == OpKind::kBroadcastInDim) {
      std::span<const int64_t> dims = op.GetI64Array("broadcast_dimensions");
      return from >= 0 && static_cast<size_t>(from) < dims.size() &&
             dims[static_cast<size_t>(from)] == to;
    }
    return false;
  }

  // ---- text of the ops the lowering writes

  static std::string Emit(OpPrinter& p, std::string_view op,
                          std::initializer_list<std::string> operands,
                          std::initializer_list<std::string> types, const std::string& result_type,
                          const std::string& attrs = "") {
    std::string name = p.NewName();
    std::string line = name + " = \"stablehlo." + std::string(op) + "\"(";
    bool first = true;
    for (const std::string& operand : operands) {
      line += (first ? "" : ", ") + operand;
      first = false;
    }
    line += ")";
    if (!attrs.empty()) line += " {" + attrs + "}";
    line += " : (";
    first = true;
    for (const std::string& type : types) {
      line += (first ? "" : ", ") + type;
      first = false;
    }
    line += ") -> " + result_type;
    p.AddLine(line);
    return name;
  }

  static std::string Constant(OpPrinter& p, const std::string& literal, const std::string& type) {
    return Emit(p, "constant", {}, {}, type, "value = dense<" + literal + "> : " + type);
  }

  // The scales (or zero points) of `q` as a tensor of `shape` and `element`
  // type: one value broadcast, or the per-axis values along the axis.
  static std::string Parameters(OpPrinter& p, const UniformQuantization& q, bool scales,
                                std::span<const int64_t> shape, ElementType element) {
    const bool is_float = IsFloat(element);
    auto literal = [&](size_t i) {
      return scales ? FloatLiteral(q.scales[i])
                    : (is_float ? FloatLiteral(static_cast<double>(q.zero_points[i]))
                                : std::to_string(q.zero_points[i]));
    };
    std::string values;
    std::vector<int64_t> constant_shape;
    std::string dims;
    if (q.axis) {
      values = "[";
      for (size_t i = 0; i < q.scales.size(); ++i) values += (i ? ", " : "") + literal(i);
      values += "]";
      constant_shape.push_back(static_cast<int64_t>(q.scales.size()));
      dims = std::to_string(*q.axis);
    } else {
      values = literal(0);
    }
    const std::string constant_type = TensorText(constant_shape, element);
    std::string constant = Constant(p, values, constant_type);
    return Emit(p, "broadcast_in_dim", {constant}, {constant_type}, TensorText(shape, element),
                "broadcast_dimensions = array<i64" + (dims.empty() ? "" : ": " + dims) + ">");
  }

  // convert(round_nearest_even(clamp(min, x / scale + zp, max))), in x's
  // float type.
  static std::string Quantize(OpPrinter& p, const std::string& x, std::span<const int64_t> shape,
                              ElementType element, const UniformQuantization& q) {
    const std::string type = TensorText(shape, element);
    const std::string scalar = TensorText({}, element);
    std::string scales = Parameters(p, q, /*scales=*/true, shape, element);
    std::string scaled = Emit(p, "divide", {x, scales}, {type, type}, type);
    std::string zero_points = Parameters(p, q, /*scales=*/false, shape, element);
    std::string shifted = Emit(p, "add", {scaled, zero_points}, {type, type}, type);
    std::string low = Constant(p, FloatLiteral(static_cast<double>(q.storage_min)), scalar);
    std::string high = Constant(p, FloatLiteral(static_cast<double>(q.storage_max)), scalar);
    std::string clamped = Emit(p, "clamp", {low, shifted, high}, {scalar, type, scalar}, type);
    std::string rounded = Emit(p, "round_nearest_even", {clamped}, {type}, type);
    return Emit(p, "convert", {rounded}, {type}, TensorText(shape, q.storage));
  }

  // convert(q - zp) * scale: the subtraction in a type wide enough.
  static std::string Dequantize(OpPrinter& p, const std::string& storage,
                                std::span<const int64_t> shape, const UniformQuantization& q,
                                ElementType expressed) {
    const ElementType wide = BitWidth(q.storage) >= 32 ? ElementType::kSI64 : ElementType::kSI32;
    const std::string wide_type = TensorText(shape, wide);
    const std::string type = TensorText(shape, expressed);
    std::string widened = Emit(p, "convert", {storage}, {TensorText(shape, q.storage)}, wide_type);
    std::string zero_points = Parameters(p, q, /*scales=*/false, shape, wide);
    std::string centered =
        Emit(p, "subtract", {widened, zero_points}, {wide_type, wide_type}, wide_type);
    std::string real = Emit(p, "convert", {centered}, {wide_type}, type);
    std::string scales = Parameters(p, q, /*scales=*/true, shape, expressed);
    return Emit(p, "multiply", {real, scales}, {type, type}, type);
  }

  static Result<bool> LowerConstant(const Operation& op, OpPrinter& p) {
    const DenseElementsAttr* value = op.GetDense("value");
    if (value == nullptr) return Error(op, StatusCode::kInvalidArgument, "has no dense 'value'");
    std::vector<uint8_t> bytes = value->ExpandedData();
    static const char kHex[] = "0123456789ABCDEF";
    std::string literal = "\"0x";
    for (uint8_t b : bytes) {
      literal += kHex[b >> 4];
      literal += kHex[b & 15];
    }
    literal += '"';
    const std::string type = p.TypeText(op.result(0)->type());
    p.Rename(op.result(0), Constant(p, literal, type));
    return true;
  }

  static Result<bool> LowerQuantizeOrDequantize(const Operation& op, OpPrinter& p,
                                                const std::vector<QuantizedValue>& quantized) {
    Type in = op.operand(0)->type();
    Type out = op.result(0)->type();
    if (!in.IsTensor() || !out.IsTensor() || in.shape().size() != out.shape().size() ||
        !std::equal(in.shape().begin(), in.shape().end(), out.shape().begin())) {
      return Error(op, StatusCode::kInvalidArgument,
                   "takes " + in.ToString() + " to " + out.ToString() +
                       ": the shapes must be the same");
    }
    std::string value = p.NameOf(op.operand(0));
    ElementType element = in.element_type();
    if (in.IsQuantized()) {
      const UniformQuantization& q = quantized.front().q;
      value = Dequantize(p, value, in.shape(), q, q.expressed);
      element = q.expressed;
    } else if (!IsFloat(element)) {
      return Error(op, StatusCode::kInvalidArgument,
                   "operand is " + in.ToString() + "; it must be a float or quantized tensor");
    }
    if (op.kind() == OpKind::kUniformQuantize) {
      if (!out.IsQuantized()) {
        return Error(op, StatusCode::kInvalidArgument,
                     "result is " + out.ToString() + ", which is not quantized");
      }
      value = Quantize(p, value, out.shape(), element, quantized.back().q);
    } else {
      if (!in.IsQuantized() || out.IsQuantized() || !IsFloat(out.element_type())) {
        return Error(op, StatusCode::kInvalidArgument,
                     "takes " + in.ToString() + " to " + out.ToString() +
                         "; it takes a quantized tensor to a float tensor");
      }
      if (element != out.element_type()) {
        value = Emit(p, "convert", {value}, {TensorText(in.shape(), element)}, out.ToString());
      }
    }
    p.Rename(op.result(0), value);
    return true;
  }

  // dequantize - op - quantize.
  static Result<bool> LowerComputation(const Operation& op, OpPrinter& p) {
    std::vector<std::string> names;
    std::vector<std::string> types;
    for (const Value* v : op.operands()) {
      Type t = v->type();
      if (t.IsTensor() && t.IsQuantized()) {
        BERTH_ASSIGN_OR_RETURN(UniformQuantization q, QuantizationOf(t));
        names.push_back(Dequantize(p, p.NameOf(v), t.shape(), q, q.expressed));
        types.push_back(TensorText(t.shape(), q.expressed));
      } else {
        names.push_back(p.NameOf(v));
        types.push_back(p.TypeText(t));
      }
    }
    std::vector<std::string> result_types;
    // The quantization of each result that has one.
    std::vector<std::optional<UniformQuantization>> result_quantization(op.num_results());
    for (size_t i = 0; i < op.num_results(); ++i) {
      Type t = op.result(i)->type();
      if (t.IsTensor() && t.IsQuantized()) {
        BERTH_ASSIGN_OR_RETURN(result_quantization[i], QuantizationOf(t));
        result_types.push_back(TensorText(t.shape(), result_quantization[i]->expressed));
      } else {
        result_types.push_back(p.TypeText(t));
      }
    }
    std::string first = p.PrintOpAs(op, names, types, result_types);
    const std::string base = op.num_results() > 1 ? first.substr(0, first.rfind('#')) : first;
    for (size_t i = 0; i < op.num_results(); ++i) {
      if (!result_quantization[i]) continue;
      const std::string result = op.num_results() > 1 ? base + "#" + std::to_string(i) : base;
      const UniformQuantization& q = *result_quantization[i];
      p.Rename(op.result(i), Quantize(p, result, op.result(i)->type().shape(), q.expressed, q));
    }
    return true;
  }
};

// Every quantized type of `type` is valid for a value: parameters parse,
// a static shape, the per-axis dimension sized as the parameters.
Status CheckQuantizedType(Type type, const Location& where) {
  auto fail = [&](StatusCode code, const std::string& why) {
    return Status(code, where.ToString() + ": error: " + why);
  };
  if (type.IsTuple()) {
    for (Type inner : type.types()) BERTH_RETURN_IF_ERROR(CheckQuantizedType(inner, where));
    return OkStatus();
  }
  if (!type.IsTensor() || !type.IsQuantized()) return OkStatus();
  Result<UniformQuantization> q = QuantizationOf(type);
  if (!q.ok()) return fail(StatusCode::kInvalidArgument, q.status().message());
  if (!type.HasStaticShape() || !type.bounds().empty()) {
    return fail(StatusCode::kUnimplemented,
                type.ToString() + ": quantized tensors with dynamic dimensions are not supported");
  }
  if (q->axis) {
    if (*q->axis >= type.rank()) {
      return fail(StatusCode::kInvalidArgument, type.ToString() + ": the quantization axis " +
                                                    std::to_string(*q->axis) +
                                                    " is not a dimension of the tensor");
    }
    if (type.dim(*q->axis) != static_cast<int64_t>(q->scales.size())) {
      return fail(StatusCode::kInvalidArgument,
                  type.ToString() + ": " + std::to_string(q->scales.size()) +
                      " scales for dimension " + std::to_string(*q->axis) + " of size " +
                      std::to_string(type.dim(*q->axis)));
    }
  }
  return OkStatus();
}

Status CheckBlock(const Block& block, const Location& where) {
  for (const Value* arg : block.arguments())
    BERTH_RETURN_IF_ERROR(CheckQuantizedType(arg->type(), where));
  for (const Operation* op : block.operations()) {
    for (const Value* v : op->results())
      BERTH_RETURN_IF_ERROR(CheckQuantizedType(v->type(), op->location()));
    for (const Region* region : op->regions()) {
      for (const Block* inner : region->blocks())
        BERTH_RETURN_IF_ERROR(CheckBlock(*inner, op->location()));
    }
  }
  return OkStatus();
}

bool BlockHasQuantized(const Block& block) {
  for (const Value* arg : block.arguments()) {
    if (ContainsQuantized(arg->type())) return true;
  }
  for (const Operation* op : block.operations()) {
    for (const Value* v : op->results()) {
      if (ContainsQuantized(v->type())) return true;
    }
    for (const Region* region : op->regions()) {
      for (const Block* inner : region->blocks()) {
        if (BlockHasQuantized(*inner)) return true;
      }
    }
  }
  return false;
}

// "FILE:LINE:COL: error: ..." about the lowered text, said of the op of the
// original module that LINE was printed for.
Status BlameOriginalOp(const Status& status, std::string_view lowered_name,
                       const std::vector<const Operation*>& line_ops) {
  std::string_view message = status.message();
  if (!message.starts_with(lowered_name) || message.size() <= lowered_name.size() ||
      message[lowered_name.size()] != ':') {
    return status;
  }
  std::string_view rest = message.substr(lowered_name.size() + 1);
  size_t line = 0;
  auto [unused, error] = std::from_chars(rest.data(), rest.data() + rest.size(), line);
  if (error != std::errc() || line == 0 || line > line_ops.size() || line_ops[line - 1] == nullptr)
    return status;
  size_t text = rest.find(": ");
  if (text == std::string_view::npos) return status;
  const Operation& op = *line_ops[line - 1];
  return Status(status.code(), op.location().ToString() + std::string(rest.substr(text)) +
                                   " (in the program with its quantized types lowered: line " +
                                   std::to_string(line) + ")");
}

}  // namespace

Result<UniformQuantization> ParseUniformQuantization(std::string_view text) {
  QuantTextReader r(text);
  constexpr std::string_view kPrefix = "!quant.uniform<";
  if (!text.starts_with(kPrefix) || !text.ends_with('>')) {
    return r.Fail("expected !quant.uniform<...> (other quantized types are not supported)");
  }
  QuantTextReader body(text.substr(kPrefix.size(), text.size() - kPrefix.size() - 1));
  UniformQuantization q;
  std::string_view storage = body.Word();
  if (!StorageTypeFromName(storage, &q.storage)) {
    return r.Fail("storage type '" + std::string(storage) +
                  "' is not an integer type of 2 to 32 bits");
  }
  std::tie(q.storage_min, q.storage_max) = IntegerRange(q.storage);
  if (body.Take('<')) {
    int64_t low = 0;
    int64_t high = 0;
    if (!body.Integer(&low) || !body.Take(':') || !body.Integer(&high) || !body.Take('>')) {
      return r.Fail("expected <MIN:MAX> after the storage type");
    }
    if (low > high || low < q.storage_min || high > q.storage_max) {
      return r.Fail("storage range <" + std::to_string(low) + ":" + std::to_string(high) +
                    "> is not within " + std::string(storage) + "'s");
    }
    q.storage_min = low;
    q.storage_max = high;
  }
  if (!body.Take(':')) return r.Fail("expected ':' and the expressed type after the storage type");
  std::string_view expressed = body.Word();
  if (!ExpressedTypeFromName(expressed, &q.expressed)) {
    return r.Fail("expressed type '" + std::string(expressed) + "' is not f16, bf16, f32 or f64");
  }
  if (body.Take(':')) {
    int64_t axis = 0;
    if (!body.Integer(&axis) || axis < 0)
      return r.Fail("the quantization axis is not a dimension number");
    q.axis = axis;
  }
  if (!body.Take(',')) return r.Fail("expected ',' and the scale");
  const bool per_axis = body.Take('{');
  if (per_axis != q.axis.has_value()) {
    return r.Fail(per_axis ? "a list of parameters needs a quantization axis"
                           : "per-axis quantization needs a list of parameters in {...}");
  }
  do {
    double scale = 0;
    int64_t zero_point = 0;
    if (!body.Float(&scale)) return r.Fail("expected a scale");
    if (body.Take(':') && !body.Integer(&zero_point))
      return r.Fail("expected a zero point after the scale's ':'");
    if (!(scale > 0) || !std::isfinite(scale)) return r.Fail("scales must be positive and finite");
    if (zero_point < q.storage_min || zero_point > q.storage_max) {
      return r.Fail("zero point " + std::to_string(zero_point) + " is outside the storage range [" +
                    std::to_string(q.storage_min) + ", " + std::to_string(q.storage_max) + "]");
    }
    q.scales.push_back(scale);
    q.zero_points.push_back(zero_point);
  } while (per_axis && body.Take(','));
  if (per_axis && !body.Take('}')) return r.Fail("expected '}' after the parameters");
  if (!body.AtEnd()) return r.Fail("unexpected text after the parameters");
  return q;
}

Result<UniformQuantization> QuantizationOf(Type type) {
  if (!type.IsTensor() || !type.IsQuantized()) {
    return InvalidArgumentError(type.ToString() + " does not have a quantized element type");
  }
  return ParseUniformQuantization(type.opaque_text());
}

bool HasQuantizedTypes(const Module& module) {
  for (const Function* f : module.functions()) {
    for (Type t : f->argument_types()) {
      if (ContainsQuantized(t)) return true;
    }
    for (Type t : f->result_types()) {
      if (ContainsQuantized(t)) return true;
    }
    if (!f->is_declaration() && BlockHasQuantized(f->entry_block())) return true;
  }
  return false;
}

Result<Module> LowerQuantizedTypes(const Module& module) {
  for (const Function* f : module.functions()) {
    for (Type t : f->argument_types()) BERTH_RETURN_IF_ERROR(CheckQuantizedType(t, f->location()));
    for (Type t : f->result_types()) BERTH_RETURN_IF_ERROR(CheckQuantizedType(t, f->location()));
    if (!f->is_declaration()) BERTH_RETURN_IF_ERROR(CheckBlock(f->entry_block(), f->location()));
  }
  QuantizedLowering lowering;
  std::vector<const Operation*> line_ops;
  PrintHooks hooks;
  hooks.type_text = StorageTypeText;
  hooks.op = [&](const Operation& op, OpPrinter& p) { return lowering.LowerOp(op, p); };
  hooks.line_ops = &line_ops;
  BERTH_ASSIGN_OR_RETURN(std::string text, Print(module, hooks));
  const std::string filename = std::string(module.filename());
  ParseOptions options;
  options.verify = true;
  Result<Module> lowered = ParseModule(text, filename, options);
  if (!lowered.ok()) return BlameOriginalOp(lowered.status(), filename, line_ops);
  return lowered;
}

}  // namespace berth::stablehlo

namespace berth::stablehlo {

Result<Module> VerifyLoweringQuantizedTypes(Module module) {
  if (HasQuantizedTypes(module)) return LowerQuantizedTypes(module);
  BERTH_RETURN_IF_ERROR(Verify(module));
  return module;
}

}  // namespace berth::stablehlo
