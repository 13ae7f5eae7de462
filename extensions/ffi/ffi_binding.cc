#include "ffi/ffi_binding.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <new>
#include <system_error>
#include <unordered_map>

#include <nlohmann/json.hpp>

namespace berth::ext::ffi {
namespace {

using nlohmann::json;

constexpr std::string_view kExpectedRoles =
    "expected operand:K, result:K, size:operand:K, size:result:K, attr:NAME:TYPE or "
    "const:TYPE:VALUE";
constexpr std::string_view kKnownFields[] = {"target", "symbol", "return", "params",
                                             "result_init"};

// ---------------------------------------------------------------- parsing

std::string Quote(std::string_view text) { return "'" + std::string(text) + "'"; }

// Splits on ':' keeping empty pieces, so "operand::f32" has an empty index.
std::vector<std::string_view> SplitColons(std::string_view text) {
  std::vector<std::string_view> pieces;
  size_t start = 0;
  while (true) {
    size_t end = text.find(':', start);
    if (end == std::string_view::npos) {
      pieces.push_back(text.substr(start));
      return pieces;
    }
    pieces.push_back(text.substr(start, end - start));
    start = end + 1;
  }
}

// A buffer index: decimal digits only (no sign, no blanks), at most 9 of them.
std::optional<size_t> ParseIndex(std::string_view text) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  if (!std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  size_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

std::optional<ScalarType> ParseScalarType(std::string_view text) {
  if (text == "i32") return ScalarType::kI32;
  if (text == "i64") return ScalarType::kI64;
  if (text == "f32") return ScalarType::kF32;
  if (text == "f64") return ScalarType::kF64;
  return std::nullopt;
}

std::string_view ScalarTypeName(ScalarType type) {
  switch (type) {
    case ScalarType::kI32: return "i32";
    case ScalarType::kI64: return "i64";
    case ScalarType::kF32: return "f32";
    case ScalarType::kF64: return "f64";
  }
  return "?";
}

bool IsInteger(ScalarType type) { return type == ScalarType::kI32 || type == ScalarType::kI64; }

Status UnknownRole(std::string_view text) {
  return InvalidArgumentError("unknown role " + Quote(text) + "; " + std::string(kExpectedRoles));
}

// The optional element type check of operand:K:TYPE and result:K:TYPE.
Result<ElementType> ParseBufferType(std::string_view text, std::string_view name) {
  std::optional<ElementType> type = ParseElementType(name);
  if (!type || *type == ElementType::kToken) {
    return InvalidArgumentError(Quote(text) + ": unknown element type " + Quote(name) +
                                "; expected a berth element type name such as f32, f64, i32, "
                                "i64, ui8, pred or bf16");
  }
  return *type;
}

// VALUE of const:TYPE:VALUE: the whole text must be one number of TYPE.
Status ParseConstValue(std::string_view text, std::string_view value, ParamSpec* param) {
  const char* begin = value.data();
  const char* end = value.data() + value.size();
  auto not_a = [&](std::string_view what) {
    return InvalidArgumentError(Quote(text) + ": " + Quote(value) + " is not " + std::string(what));
  };
  auto out_of_range = [&] {
    return InvalidArgumentError(Quote(text) + ": " + Quote(value) + " is out of range for " +
                                std::string(ScalarTypeName(param->scalar_type)));
  };
  if (IsInteger(param->scalar_type)) {
    int64_t parsed = 0;
    auto [ptr, ec] = std::from_chars(begin, end, parsed);
    if (ec == std::errc::result_out_of_range) return out_of_range();
    if (ec != std::errc() || ptr != end || value.empty()) return not_a("an integer");
    if (param->scalar_type == ScalarType::kI32 &&
        (parsed < std::numeric_limits<int32_t>::min() ||
         parsed > std::numeric_limits<int32_t>::max())) {
      return out_of_range();
    }
    param->int_value = parsed;
    return OkStatus();
  }
  double parsed = 0;
  if (param->scalar_type == ScalarType::kF32) {
    float narrow = 0;
    auto [ptr, ec] = std::from_chars(begin, end, narrow);
    if (ec == std::errc::result_out_of_range) return out_of_range();
    if (ec != std::errc() || ptr != end || value.empty()) return not_a("a number");
    parsed = narrow;
  } else {
    auto [ptr, ec] = std::from_chars(begin, end, parsed);
    if (ec == std::errc::result_out_of_range) return out_of_range();
    if (ec != std::errc() || ptr != end || value.empty()) return not_a("a number");
  }
  if (!std::isfinite(parsed)) return not_a("a finite number");
  param->float_value = parsed;
  return OkStatus();
}

// One string of "params"; errors carry no location (the caller adds it).
Result<ParamSpec> ParseParam(std::string_view text) {
  ParamSpec param;
  param.text = std::string(text);
  std::vector<std::string_view> pieces = SplitColons(text);
  std::string_view kind = pieces[0];

  if (kind == "operand" || kind == "result") {
    if (pieces.size() < 2 || pieces.size() > 3) return UnknownRole(text);
    std::optional<size_t> index = ParseIndex(pieces[1]);
    if (!index) return UnknownRole(text);
    param.role = kind == "operand" ? ParamRole::kOperand : ParamRole::kResult;
    param.index = *index;
    if (pieces.size() == 3) {
      BERTH_ASSIGN_OR_RETURN(param.element_type, ParseBufferType(text, pieces[2]));
    }
    return param;
  }

  if (kind == "size") {
    if (pieces.size() < 3 || pieces.size() > 4) return UnknownRole(text);
    if (pieces[1] != "operand" && pieces[1] != "result") return UnknownRole(text);
    std::optional<size_t> index = ParseIndex(pieces[2]);
    if (!index) return UnknownRole(text);
    param.role = pieces[1] == "operand" ? ParamRole::kOperandSize : ParamRole::kResultSize;
    param.index = *index;
    param.scalar_type = ScalarType::kI64;
    if (pieces.size() == 4) {
      if (pieces[3] != "i32" && pieces[3] != "i64") {
        return InvalidArgumentError(Quote(text) + ": size type " + Quote(pieces[3]) +
                                    "; expected i32 or i64");
      }
      param.scalar_type = pieces[3] == "i32" ? ScalarType::kI32 : ScalarType::kI64;
    }
    return param;
  }

  if (kind == "attr") {
    // NAME is everything between the first and the last ':'.
    size_t first = text.find(':');
    size_t last = text.rfind(':');
    if (pieces.size() < 3 || last == first + 1) {
      return InvalidArgumentError(Quote(text) + ": expected attr:NAME:TYPE with a non-empty NAME");
    }
    std::optional<ScalarType> type = ParseScalarType(pieces.back());
    if (!type) {
      return InvalidArgumentError(Quote(text) + ": attribute type " + Quote(pieces.back()) +
                                  "; expected i32, i64, f32 or f64");
    }
    param.role = ParamRole::kAttr;
    param.attr_name = std::string(text.substr(first + 1, last - first - 1));
    param.scalar_type = *type;
    return param;
  }

  if (kind == "const") {
    if (pieces.size() != 3) {
      return InvalidArgumentError(Quote(text) + ": expected const:TYPE:VALUE");
    }
    std::optional<ScalarType> type = ParseScalarType(pieces[1]);
    if (!type) {
      return InvalidArgumentError(Quote(text) + ": constant type " + Quote(pieces[1]) +
                                  "; expected i32, i64, f32 or f64");
    }
    param.role = ParamRole::kConst;
    param.scalar_type = *type;
    BERTH_RETURN_IF_ERROR(ParseConstValue(text, pieces[2], &param));
    return param;
  }

  return UnknownRole(text);
}

// Parses functions[entry_index]; `at` is "manifest <where>: functions[i]".
Result<FunctionSpec> ParseEntry(const json& entry, const std::string& at) {
  if (!entry.is_object()) {
    return InvalidArgumentError(at + ": expected an object, got " + entry.type_name());
  }
  for (const auto& [key, value] : entry.items()) {
    if (std::find(std::begin(kKnownFields), std::end(kKnownFields), key) ==
        std::end(kKnownFields)) {
      return InvalidArgumentError(at + ": unknown field " + Quote(key) +
                                  "; expected target, symbol, return, params or result_init");
    }
  }

  FunctionSpec spec;
  for (auto [name, out] : {std::pair{"target", &spec.target}, std::pair{"symbol", &spec.symbol}}) {
    auto it = entry.find(name);
    if (it == entry.end()) return InvalidArgumentError(at + "." + name + ": is missing");
    if (!it->is_string() || it->get_ref<const std::string&>().empty()) {
      return InvalidArgumentError(at + "." + name + ": expected a non-empty string, got " +
                                  it->dump());
    }
    *out = it->get<std::string>();
  }

  if (auto it = entry.find("return"); it != entry.end()) {
    if (!it->is_string() || (*it != "void" && *it != "i32-status")) {
      return InvalidArgumentError(at + ".return: " + it->dump() +
                                  "; expected \"void\" or \"i32-status\"");
    }
    spec.return_kind = *it == "void" ? ReturnKind::kVoid : ReturnKind::kI32Status;
  }

  auto params = entry.find("params");
  if (params == entry.end()) return InvalidArgumentError(at + ".params: is missing");
  if (!params->is_array()) {
    return InvalidArgumentError(at + ".params: expected an array of strings, got " +
                                params->type_name());
  }
  if (params->size() > kMaxParams) {
    return InvalidArgumentError(at + ".params: " + std::to_string(params->size()) +
                                " parameters; at most " + std::to_string(kMaxParams));
  }
  for (size_t i = 0; i < params->size(); ++i) {
    const json& item = (*params)[i];
    std::string field = at + ".params[" + std::to_string(i) + "]";
    if (!item.is_string()) {
      return InvalidArgumentError(field + ": expected a string, got " + item.dump());
    }
    Result<ParamSpec> param = ParseParam(item.get_ref<const std::string&>());
    if (!param.ok()) return param.status().WithContext(field);
    spec.params.push_back(std::move(param).value());
  }

  if (auto init = entry.find("result_init"); init != entry.end()) {
    if (!init->is_object()) {
      return InvalidArgumentError(at + ".result_init: expected an object mapping a result "
                                  "index to \"operand:K\", got " + std::string(init->type_name()));
    }
    for (const auto& [key, value] : init->items()) {
      std::string field = at + ".result_init." + key;
      std::optional<size_t> result = ParseIndex(key);
      if (!result) {
        return InvalidArgumentError(field + ": " + Quote(key) + " is not a result index");
      }
      std::optional<size_t> operand;
      if (value.is_string()) {
        const std::string& text = value.get_ref<const std::string&>();
        if (text.starts_with("operand:")) operand = ParseIndex(std::string_view(text).substr(8));
      }
      if (!operand) {
        return InvalidArgumentError(field + ": " + value.dump() + "; expected \"operand:K\"");
      }
      spec.result_init.push_back(ResultInit{*result, *operand});
    }
    // Object keys iterate as strings ("10" before "2"); keep result order.
    std::sort(spec.result_init.begin(), spec.result_init.end(),
              [](const ResultInit& a, const ResultInit& b) { return a.result < b.result; });
  }
  return spec;
}

// ---------------------------------------------------------------- calling

// Storage for one C argument; libffi reads the member the cif declares.
union ArgValue {
  void* pointer;
  int32_t i32;
  int64_t i64;
  float f32;
  double f64;
};

ffi_type* FfiType(ScalarType type) {
  switch (type) {
    case ScalarType::kI32: return &ffi_type_sint32;
    case ScalarType::kI64: return &ffi_type_sint64;
    case ScalarType::kF32: return &ffi_type_float;
    case ScalarType::kF64: return &ffi_type_double;
  }
  return nullptr;
}

std::string TypeName(BERTH_Buffer_Type type) {
  if (!IsValidElementType(type)) return "element type " + std::to_string(type);
  return std::string(ElementTypeName(static_cast<ElementType>(type)));
}

std::string_view NamedValueTypeName(BERTH_NamedValue_Type type) {
  switch (type) {
    case BERTH_NamedValue_Type_String: return "a string";
    case BERTH_NamedValue_Type_Int64: return "an integer";
    case BERTH_NamedValue_Type_Int64List: return "an integer list";
    case BERTH_NamedValue_Type_Float64: return "a float";
    case BERTH_NamedValue_Type_Bool: return "a bool";
  }
  return "of an unknown type";
}

BERTH_Error_Code Report(const BERTH_Ffi_CallFrame* frame, BERTH_Error_Code code,
                        const std::string& message) {
  if (frame->report_error != nullptr) {
    frame->report_error(frame->error_context, message.data(), message.size());
  }
  return code;
}

// Failures are rare: keep building their messages out of the call path.
[[gnu::cold, gnu::noinline]] BERTH_Error_Code Fail(const BERTH_Ffi_CallFrame* frame,
                                                   const FunctionSpec& spec,
                                                   BERTH_Error_Code code,
                                                   std::string_view message) {
  return Report(frame, code, "custom call " + Quote(spec.target) + ": " + std::string(message));
}

[[gnu::cold, gnu::noinline]] BERTH_Error_Code FailParam(const BERTH_Ffi_CallFrame* frame,
                                                        const FunctionSpec& spec, size_t i,
                                                        std::string_view message) {
  return Fail(frame, spec, BERTH_Error_Code_INVALID_ARGUMENT,
              "parameter " + std::to_string(i + 1) + " (\"" + spec.params[i].text + "\"): " +
                  std::string(message));
}

[[gnu::cold, gnu::noinline]] std::string MissingBuffer(std::string_view kind, size_t index,
                                                       size_t count) {
  return std::string(kind) + " " + std::to_string(index) + " is missing; the call has " +
         std::to_string(count) + " " + std::string(kind) + (count == 1 ? "" : "s");
}

// Parameter i names a buffer the call does not have.
[[gnu::cold, gnu::noinline]] BERTH_Error_Code FailMissing(const BERTH_Ffi_CallFrame* frame,
                                                          const FunctionSpec& spec, size_t i,
                                                          bool is_result) {
  return FailParam(frame, spec, i,
                   MissingBuffer(is_result ? "result" : "operand", spec.params[i].index,
                                 is_result ? frame->num_results : frame->num_operands));
}

[[gnu::cold, gnu::noinline]] std::string MissingAttribute(const BERTH_Ffi_CallFrame* frame,
                                                          const std::string& name) {
  std::string message = "attribute " + Quote(name) + " is missing; ";
  if (frame->num_attributes == 0) return message + "the call has no attributes";
  message += "the call has attributes: ";
  for (size_t i = 0; i < frame->num_attributes; ++i) {
    const BERTH_NamedValue& attribute = frame->attributes[i];
    if (i > 0) message += ", ";
    message += std::string_view(attribute.name, attribute.name_size);
  }
  return message;
}

// Operand or result `index`, or NULL when the call has no such buffer.
const BERTH_Ffi_Buffer* FindBuffer(const BERTH_Ffi_CallFrame* frame, bool result, size_t index) {
  if (result) return index < frame->num_results ? &frame->results[index] : nullptr;
  return index < frame->num_operands ? &frame->operands[index] : nullptr;
}

// The product of the dims; false for negative dims or an int64 overflow.
bool ElementCount(const BERTH_Ffi_Buffer& buffer, int64_t* count) {
  if (buffer.num_dims > 0 && buffer.dims == nullptr) return false;
  int64_t product = 1;
  for (size_t d = 0; d < buffer.num_dims; ++d) {
    if (buffer.dims[d] < 0 || __builtin_mul_overflow(product, buffer.dims[d], &product)) {
      return false;
    }
  }
  *count = product;
  return true;
}

const BERTH_NamedValue* FindAttribute(const BERTH_Ffi_CallFrame* frame, const std::string& name) {
  for (size_t i = 0; i < frame->num_attributes; ++i) {
    const BERTH_NamedValue& attribute = frame->attributes[i];
    if (attribute.name_size == name.size() &&
        std::memcmp(attribute.name, name.data(), name.size()) == 0) {
      return &attribute;
    }
  }
  return nullptr;
}

// Converts an attribute to the param's scalar type; an error message when it
// does not fit, empty on success.
std::string ConvertAttribute(const BERTH_NamedValue& attribute, const ParamSpec& param,
                             ArgValue* value) {
  ScalarType type = param.scalar_type;
  auto mismatch = [&](std::string_view what) {
    return "attribute " + Quote(param.attr_name) + " is " + std::string(what) +
           ", the binding declares " + std::string(ScalarTypeName(type));
  };
  auto out_of_range = [&](std::string value) {
    return "attribute " + Quote(param.attr_name) + " is " + value + ", out of range for " +
           std::string(ScalarTypeName(type));
  };
  int64_t integer = 0;
  switch (attribute.type) {
    case BERTH_NamedValue_Type_Int64:
      integer = attribute.int64_value;
      break;
    case BERTH_NamedValue_Type_Bool:
      integer = attribute.bool_value ? 1 : 0;
      break;
    case BERTH_NamedValue_Type_Float64: {
      double real = attribute.float64_value;
      if (IsInteger(type)) return mismatch("a float (" + std::to_string(real) + ")");
      if (type == ScalarType::kF64) {
        value->f64 = real;
      } else if (std::isfinite(real) && std::fabs(real) > std::numeric_limits<float>::max()) {
        return out_of_range(std::to_string(real));
      } else {
        value->f32 = static_cast<float>(real);
      }
      return {};
    }
    default:
      return mismatch(NamedValueTypeName(attribute.type));
  }
  switch (type) {
    case ScalarType::kI32:
      if (integer < std::numeric_limits<int32_t>::min() ||
          integer > std::numeric_limits<int32_t>::max()) {
        return out_of_range(std::to_string(integer));
      }
      value->i32 = static_cast<int32_t>(integer);
      break;
    case ScalarType::kI64: value->i64 = integer; break;
    case ScalarType::kF32: value->f32 = static_cast<float>(integer); break;
    case ScalarType::kF64: value->f64 = static_cast<double>(integer); break;
  }
  return {};
}

}  // namespace

Result<std::vector<FunctionSpec>> ParseFfiFunctions(const json& functions,
                                                    std::string_view where) {
  std::string manifest = "manifest " + std::string(where);
  if (!functions.is_array()) {
    return InvalidArgumentError(manifest + ": functions: expected an array, got " +
                                functions.type_name());
  }
  std::vector<FunctionSpec> specs;
  std::unordered_map<std::string, size_t> entry_of_target;
  for (size_t i = 0; i < functions.size(); ++i) {
    std::string at = manifest + ": functions[" + std::to_string(i) + "]";
    BERTH_ASSIGN_OR_RETURN(FunctionSpec spec, ParseEntry(functions[i], at));
    auto [it, inserted] = entry_of_target.emplace(spec.target, i);
    if (!inserted) {
      return InvalidArgumentError(at + ".target: " + Quote(spec.target) +
                                  " is already bound by functions[" + std::to_string(it->second) +
                                  "]");
    }
    specs.push_back(std::move(spec));
  }
  return specs;
}

Result<std::unique_ptr<BoundFunction>> BoundFunction::Create(FunctionSpec spec, void* symbol) {
  std::string at = "custom call " + Quote(spec.target) + ": ";
  if (symbol == nullptr) {
    return InvalidArgumentError(at + "symbol " + Quote(spec.symbol) + " has a NULL address");
  }
  if (spec.params.size() > kMaxParams) {
    return InvalidArgumentError(at + std::to_string(spec.params.size()) +
                                " parameters; at most " + std::to_string(kMaxParams));
  }
  std::unique_ptr<BoundFunction> bound(new BoundFunction(std::move(spec), symbol));
  const std::vector<ParamSpec>& params = bound->spec_.params;
  for (size_t i = 0; i < params.size(); ++i) {
    switch (params[i].role) {
      case ParamRole::kOperand:
      case ParamRole::kResult: bound->arg_types_[i] = &ffi_type_pointer; break;
      default: bound->arg_types_[i] = FfiType(params[i].scalar_type); break;
    }
  }
  ffi_type* return_type =
      bound->spec_.return_kind == ReturnKind::kVoid ? &ffi_type_void : &ffi_type_sint32;
  ffi_status prepared = ffi_prep_cif(&bound->cif_, FFI_DEFAULT_ABI,
                                     static_cast<unsigned>(params.size()), return_type,
                                     bound->arg_types_.data());
  if (prepared != FFI_OK) {
    return InternalError(at + "ffi_prep_cif failed (status " + std::to_string(prepared) +
                         ") for symbol " + Quote(bound->spec_.symbol));
  }
  return bound;
}

BERTH_Error_Code BoundFunction::Call(BERTH_Ffi_CallFrame* frame) const noexcept {
  if (frame == nullptr || frame->struct_size < BERTH_Ffi_CallFrame_STRUCT_SIZE) {
    return BERTH_Error_Code_INVALID_ARGUMENT;
  }
  try {
    return CallOrThrow(frame);
  } catch (const std::exception& e) {
    try {
      return Fail(frame, spec_, BERTH_Error_Code_INTERNAL,
                  std::string("unexpected failure in the ffi binding: ") + e.what());
    } catch (...) {
    }
  } catch (...) {
  }
  // Building a message failed too (out of memory): report a fixed one.
  static constexpr std::string_view kMessage = "ffi binding: unexpected failure (out of memory?)";
  if (frame->report_error != nullptr) {
    frame->report_error(frame->error_context, kMessage.data(), kMessage.size());
  }
  return BERTH_Error_Code_INTERNAL;
}

BERTH_Error_Code BoundFunction::CallOrThrow(BERTH_Ffi_CallFrame* frame) const {
  const bool execute = frame->stage == BERTH_Ffi_Stage_Execute;
  if (!execute && frame->stage != BERTH_Ffi_Stage_Prepare) {
    return Fail(frame, spec_, BERTH_Error_Code_INVALID_ARGUMENT,
                "unknown stage " + std::to_string(frame->stage));
  }
  if ((frame->num_operands > 0 && frame->operands == nullptr) ||
      (frame->num_results > 0 && frame->results == nullptr) ||
      (frame->num_attributes > 0 && frame->attributes == nullptr)) {
    return Fail(frame, spec_, BERTH_Error_Code_INVALID_ARGUMENT,
                "the call frame counts buffers or attributes but has no array for them");
  }

  for (const ResultInit& init : spec_.result_init) {
    const BERTH_Ffi_Buffer* result = FindBuffer(frame, true, init.result);
    const BERTH_Ffi_Buffer* operand = FindBuffer(frame, false, init.operand);
    if (result == nullptr || operand == nullptr) [[unlikely]] {
      return Fail(frame, spec_, BERTH_Error_Code_INVALID_ARGUMENT,
                  "result_init " + std::to_string(init.result) + " <- operand " +
                      std::to_string(init.operand) + ": " +
                      (result == nullptr ? MissingBuffer("result", init.result, frame->num_results)
                                         : MissingBuffer("operand", init.operand,
                                                         frame->num_operands)));
    }
    if (result->size_in_bytes != operand->size_in_bytes) [[unlikely]] {
      return Fail(frame, spec_, BERTH_Error_Code_INVALID_ARGUMENT,
                  "result_init " + std::to_string(init.result) + " <- operand " +
                      std::to_string(init.operand) + ": result " + std::to_string(init.result) +
                      " has " + std::to_string(result->size_in_bytes) + " bytes, operand " +
                      std::to_string(init.operand) + " has " +
                      std::to_string(operand->size_in_bytes));
    }
  }

  // Uninitialized on purpose: only the first params().size() are used.
  ArgValue values[kMaxParams];
  void* args[kMaxParams];
  const size_t num_params = spec_.params.size();
  for (size_t i = 0; i < num_params; ++i) {
    const ParamSpec& param = spec_.params[i];
    ArgValue& value = values[i];
    args[i] = &value;
    switch (param.role) {
      case ParamRole::kOperand:
      case ParamRole::kResult: {
        bool is_result = param.role == ParamRole::kResult;
        std::string_view kind = is_result ? "result" : "operand";
        const BERTH_Ffi_Buffer* buffer = FindBuffer(frame, is_result, param.index);
        if (buffer == nullptr) [[unlikely]] return FailMissing(frame, spec_, i, is_result);
        if (param.element_type && buffer->element_type != static_cast<int32_t>(*param.element_type))
            [[unlikely]] {
          return FailParam(frame, spec_, i,
                           std::string(kind) + " " + std::to_string(param.index) + " is " +
                               TypeName(buffer->element_type) + ", the binding declares " +
                               std::string(ElementTypeName(*param.element_type)));
        }
        if (execute && buffer->data == nullptr && buffer->size_in_bytes > 0) [[unlikely]] {
          return FailParam(frame, spec_, i,
                           std::string(kind) + " " + std::to_string(param.index) +
                               " has no data at the EXECUTE stage");
        }
        value.pointer = buffer->data;
        break;
      }
      case ParamRole::kOperandSize:
      case ParamRole::kResultSize: {
        bool is_result = param.role == ParamRole::kResultSize;
        std::string_view kind = is_result ? "result" : "operand";
        const BERTH_Ffi_Buffer* buffer = FindBuffer(frame, is_result, param.index);
        if (buffer == nullptr) [[unlikely]] return FailMissing(frame, spec_, i, is_result);
        int64_t count = 0;
        if (!ElementCount(*buffer, &count)) [[unlikely]] {
          return FailParam(frame, spec_, i,
                           std::string(kind) + " " + std::to_string(param.index) +
                               " has negative, missing or overflowing dims");
        }
        if (param.scalar_type == ScalarType::kI32) {
          if (count > std::numeric_limits<int32_t>::max()) [[unlikely]] {
            return FailParam(frame, spec_, i,
                             std::string(kind) + " " + std::to_string(param.index) + " has " +
                                 std::to_string(count) +
                                 " elements, more than an i32 size can hold (2147483647)");
          }
          value.i32 = static_cast<int32_t>(count);
        } else {
          value.i64 = count;
        }
        break;
      }
      case ParamRole::kAttr: {
        const BERTH_NamedValue* attribute = FindAttribute(frame, param.attr_name);
        if (attribute == nullptr) [[unlikely]] {
          return FailParam(frame, spec_, i, MissingAttribute(frame, param.attr_name));
        }
        std::string error = ConvertAttribute(*attribute, param, &value);
        if (!error.empty()) [[unlikely]] return FailParam(frame, spec_, i, error);
        break;
      }
      case ParamRole::kConst:
        switch (param.scalar_type) {
          case ScalarType::kI32: value.i32 = static_cast<int32_t>(param.int_value); break;
          case ScalarType::kI64: value.i64 = param.int_value; break;
          case ScalarType::kF32: value.f32 = static_cast<float>(param.float_value); break;
          case ScalarType::kF64: value.f64 = param.float_value; break;
        }
        break;
    }
  }
  if (!execute) return BERTH_Error_Code_OK;

  for (const ResultInit& init : spec_.result_init) {
    const BERTH_Ffi_Buffer& result = frame->results[init.result];
    const BERTH_Ffi_Buffer& operand = frame->operands[init.operand];
    if (result.size_in_bytes == 0 || result.data == operand.data) continue;
    if (result.data == nullptr || operand.data == nullptr) [[unlikely]] {
      return Fail(frame, spec_, BERTH_Error_Code_INVALID_ARGUMENT,
                  "result_init " + std::to_string(init.result) + " <- operand " +
                      std::to_string(init.operand) + ": a buffer has no data at the EXECUTE stage");
    }
    std::memmove(result.data, operand.data, result.size_in_bytes);
  }

  ffi_arg returned = 0;
  // ffi_call only reads the cif, so one prepared cif serves concurrent calls.
  ffi_call(const_cast<ffi_cif*>(&cif_), FFI_FN(symbol_), &returned, args);
  if (spec_.return_kind == ReturnKind::kI32Status) {
    int32_t status = static_cast<int32_t>(returned);
    if (status != 0) [[unlikely]] {
      return Fail(frame, spec_, BERTH_Error_Code_INTERNAL,
                  "function " + Quote(spec_.symbol) + " returned status " +
                      std::to_string(status));
    }
  }
  return BERTH_Error_Code_OK;
}

}  // namespace berth::ext::ffi

extern "C" BERTH_Error_Code BERTH_FfiBinding_Handler(BERTH_Ffi_CallFrame* frame) {
  if (frame == nullptr || frame->struct_size < BERTH_Ffi_CallFrame_STRUCT_SIZE) {
    return BERTH_Error_Code_INVALID_ARGUMENT;
  }
  if (frame->handler_data == nullptr) {
    static constexpr std::string_view kMessage =
        "ffi binding: handler_data is NULL; register BERTH_FfiBinding_Handler with a "
        "BoundFunction* as handler_data";
    if (frame->report_error != nullptr) {
      frame->report_error(frame->error_context, kMessage.data(), kMessage.size());
    }
    return BERTH_Error_Code_INTERNAL;
  }
  return static_cast<const berth::ext::ffi::BoundFunction*>(frame->handler_data)->Call(frame);
}

extern "C" void BERTH_FfiBinding_ReleaseData(void* handler_data) {
  delete static_cast<berth::ext::ffi::BoundFunction*>(handler_data);
}
