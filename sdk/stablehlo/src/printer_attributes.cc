// Spelling attributes and dense literals as MLIR text.
#include <bit>
#include <charconv>
#include <cmath>
#include <cctype>
#include <cstring>
#include <vector>

#include "src/printer_impl.hpp"

namespace berth::stablehlo {
namespace detail {
namespace {

const char kHexDigits[] = "0123456789ABCDEF";

void AppendHexBits(std::string& out, uint64_t bits, int bit_width) {
  int digits = (bit_width + 3) / 4;
  out += "0x";
  for (int i = digits - 1; i >= 0; --i) out += kHexDigits[(bits >> (4 * i)) & 0xF];
}

void EnsureFloatSyntax(std::string& out, size_t start) {
  // MLIR float literals need a '.': "1e+10" -> "1.0e+10", "5" -> "5.0".
  std::string_view text(out.data() + start, out.size() - start);
  if (text.find('.') != std::string_view::npos) return;
  size_t e = text.find_first_of("eE");
  if (e == std::string_view::npos) {
    out += ".0";
  } else {
    out.insert(start + e, ".0");
  }
}

bool IsBareName(std::string_view name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) {
    return false;
  }
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.')) {
      return false;
    }
  }
  return true;
}

bool IsSymbolName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.' ||
          c == '-')) {
      return false;
    }
  }
  return true;
}

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

void AppendInts(std::string& out, std::span<const int64_t> values) {
  out += '[';
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(values[i]);
  }
  out += ']';
}

// Writes `name = [...]` fields separated by commas, leaving out empty ones.
struct FieldWriter {
  std::string& out;
  bool first = true;
  void operator()(std::string_view name, const std::vector<int64_t>& v) {
    if (v.empty()) return;
    if (!first) out += ", ";
    first = false;
    out += name;
    out += " = ";
    AppendInts(out, v);
  }
};

}  // namespace

void AppendFloat(std::string& out, double value, ElementType type) {
  if (!std::isfinite(value)) {
    uint64_t bits = type == ElementType::kF64 ? std::bit_cast<uint64_t>(value)
                                              : EncodeFloat(type, value);
    AppendHexBits(out, bits, BitWidth(type));
    return;
  }
  char buf[64];
  std::to_chars_result r;
  if (type == ElementType::kF64) {
    r = std::to_chars(buf, buf + sizeof(buf), value);
  } else {
    r = std::to_chars(buf, buf + sizeof(buf), static_cast<float>(value));
  }
  size_t start = out.size();
  out.append(buf, r.ptr);
  EnsureFloatSyntax(out, start);
}

void AppendString(std::string& out, std::string_view value) {
  out += '"';
  for (char c : value) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u >= 0x20 && u < 0x7F) {
      out += c;
    } else {
      out += '\\';
      out += kHexDigits[u >> 4];
      out += kHexDigits[u & 0xF];
    }
  }
  out += '"';
}

void AppendAttrName(std::string& out, std::string_view name) {
  if (IsBareName(name)) {
    out += name;
  } else {
    AppendString(out, name);
  }
}

void AppendSymbol(std::string& out, std::string_view name) {
  out += '@';
  if (IsSymbolName(name)) {
    out += name;
  } else {
    AppendString(out, name);
  }
}

void AppendAttrDict(std::string& out, std::span<const NamedAttribute> attrs) {
  out += '{';
  for (size_t i = 0; i < attrs.size(); ++i) {
    if (i) out += ", ";
    AppendAttrName(out, attrs[i].name);
    if (!attrs[i].value->isa<UnitAttr>()) {
      out += " = ";
      AppendAttribute(out, *attrs[i].value);
    }
  }
  out += '}';
}

// One element of a dense buffer at `p`.
void AppendDenseElement(std::string& out, ElementType type, const uint8_t* p) {
  switch (type) {
    case ElementType::kI1: out += *p ? "true" : "false"; return;
    case ElementType::kSI2:
    case ElementType::kSI4:
    case ElementType::kSI8: out += std::to_string(Load<int8_t>(p)); return;
    case ElementType::kUI2:
    case ElementType::kUI4:
    case ElementType::kUI8: out += std::to_string(*p); return;
    case ElementType::kSI16: out += std::to_string(Load<int16_t>(p)); return;
    case ElementType::kUI16: out += std::to_string(Load<uint16_t>(p)); return;
    case ElementType::kSI32: out += std::to_string(Load<int32_t>(p)); return;
    case ElementType::kUI32: out += std::to_string(Load<uint32_t>(p)); return;
    case ElementType::kSI64:
    case ElementType::kIndex: out += std::to_string(Load<int64_t>(p)); return;
    case ElementType::kUI64: out += std::to_string(Load<uint64_t>(p)); return;
    case ElementType::kComplex64:
    case ElementType::kComplex128: {
      ElementType part = ComplexComponentType(type);
      out += '(';
      AppendDenseElement(out, part, p);
      out += ", ";
      AppendDenseElement(out, part, p + StorageBytes(part));
      out += ')';
      return;
    }
    default: {
      if (!IsFloat(type)) {
        out += '0';
        return;
      }
      uint64_t bits = 0;
      std::memcpy(&bits, p, StorageBytes(type));
      double v = DecodeFloat(type, bits);
      if (!std::isfinite(v)) {
        AppendHexBits(out, bits, BitWidth(type));
      } else {
        AppendFloat(out, v, type);
      }
      return;
    }
  }
}

void AppendDense(std::string& out, const DenseElementsAttr& dense) {
  Type type = dense.type();
  ElementType element = dense.storage_type();
  size_t bytes = StorageBytes(element);
  int64_t n = dense.num_elements();
  std::span<const uint8_t> data = dense.raw_data();
  out += "dense<";
  if (n == 0) {
    // nothing
  } else if (dense.is_splat()) {
    AppendDenseElement(out, element, data.data());
  } else if (n > 256 && element != ElementType::kI1) {
    out += "\"0x";
    size_t start = out.size();
    out.resize(start + 2 * data.size());
    char* dst = out.data() + start;
    for (uint8_t b : data) {
      *dst++ = kHexDigits[b >> 4];
      *dst++ = kHexDigits[b & 0xF];
    }
    out += '"';
  } else {
    std::span<const int64_t> shape = type.shape();
    size_t rank = shape.size();
    if (rank == 0) {
      AppendDenseElement(out, element, data.data());
    } else {
      // Walk the elements, opening and closing brackets at dimension edges.
      std::vector<int64_t> index(rank, 0);
      for (size_t d = 0; d < rank; ++d) out += '[';
      for (int64_t i = 0; i < n; ++i) {
        AppendDenseElement(out, element, data.data() + static_cast<size_t>(i) * bytes);
        size_t d = rank;
        while (d > 0) {
          --d;
          if (++index[d] < shape[d]) break;
          index[d] = 0;
          out += ']';
          if (d == 0) break;
        }
        if (i + 1 < n) {
          out += ", ";
          for (size_t k = rank; k > 0 && index[k - 1] == 0; --k) out += '[';
        }
      }
    }
  }
  out += "> : ";
  out += type.ToString();
}

void AppendAttribute(std::string& out, const Attribute& attr) {
  switch (attr.kind()) {
    case AttrKind::kUnit:
      out += "unit";
      return;
    case AttrKind::kBool:
      out += attr.dyn_cast<BoolAttr>()->value() ? "true" : "false";
      return;
    case AttrKind::kInteger: {
      auto* a = attr.dyn_cast<IntegerAttr>();
      if (IsUnsignedInteger(a->type())) {
        out += std::to_string(a->unsigned_value());
      } else {
        out += std::to_string(a->value());
      }
      out += " : ";
      out += ElementTypeName(a->type());
      return;
    }
    case AttrKind::kFloat: {
      auto* a = attr.dyn_cast<FloatAttr>();
      AppendFloat(out, a->value(), a->type());
      out += " : ";
      out += ElementTypeName(a->type());
      return;
    }
    case AttrKind::kString:
      AppendString(out, attr.dyn_cast<StringAttr>()->value());
      return;
    case AttrKind::kType:
      out += attr.dyn_cast<TypeAttr>()->type().ToString();
      return;
    case AttrKind::kArray: {
      auto elements = attr.dyn_cast<ArrayAttr>()->elements();
      out += '[';
      for (size_t i = 0; i < elements.size(); ++i) {
        if (i) out += ", ";
        AppendAttribute(out, *elements[i]);
      }
      out += ']';
      return;
    }
    case AttrKind::kDenseArray: {
      auto* a = attr.dyn_cast<DenseArrayAttr>();
      out += "array<";
      out += ElementTypeName(a->element_type());
      if (a->size()) {
        out += ": ";
        if (IsFloat(a->element_type())) {
          for (size_t i = 0; i < a->floats().size(); ++i) {
            if (i) out += ", ";
            AppendFloat(out, a->floats()[i], a->element_type());
          }
        } else {
          for (size_t i = 0; i < a->ints().size(); ++i) {
            if (i) out += ", ";
            if (IsBool(a->element_type())) {
              out += a->ints()[i] ? "true" : "false";
            } else {
              out += std::to_string(a->ints()[i]);
            }
          }
        }
      }
      out += '>';
      return;
    }
    case AttrKind::kDenseElements:
      AppendDense(out, *attr.dyn_cast<DenseElementsAttr>());
      return;
    case AttrKind::kDictionary:
      AppendAttrDict(out, attr.dyn_cast<DictionaryAttr>()->entries());
      return;
    case AttrKind::kSymbolRef: {
      auto path = attr.dyn_cast<SymbolRefAttr>()->path();
      for (size_t i = 0; i < path.size(); ++i) {
        if (i) out += "::";
        AppendSymbol(out, path[i]);
      }
      return;
    }
    case AttrKind::kEnum: {
      auto* a = attr.dyn_cast<EnumAttr>();
      out += "#stablehlo<";
      out += EnumKindName(a->enum_kind());
      out += ' ';
      out += a->keyword();
      out += '>';
      return;
    }
    case AttrKind::kDotDimensionNumbers: {
      const DotDimensionNumbers& d = attr.dyn_cast<DotDimensionNumbersAttr>()->value();
      out += "#stablehlo.dot<";
      FieldWriter field{out};
      field("lhs_batching_dimensions", d.lhs_batching_dimensions);
      field("rhs_batching_dimensions", d.rhs_batching_dimensions);
      field("lhs_contracting_dimensions", d.lhs_contracting_dimensions);
      field("rhs_contracting_dimensions", d.rhs_contracting_dimensions);
      out += '>';
      return;
    }
    case AttrKind::kGatherDimensionNumbers:
    case AttrKind::kScatterDimensionNumbers: {
      bool gather = attr.kind() == AttrKind::kGatherDimensionNumbers;
      out += gather ? "#stablehlo.gather<" : "#stablehlo.scatter<";
      FieldWriter field{out};
      int64_t index_vector_dim;
      if (gather) {
        const GatherDimensionNumbers& g = attr.dyn_cast<GatherDimensionNumbersAttr>()->value();
        field("offset_dims", g.offset_dims);
        field("collapsed_slice_dims", g.collapsed_slice_dims);
        field("operand_batching_dims", g.operand_batching_dims);
        field("start_indices_batching_dims", g.start_indices_batching_dims);
        field("start_index_map", g.start_index_map);
        index_vector_dim = g.index_vector_dim;
      } else {
        const ScatterDimensionNumbers& s = attr.dyn_cast<ScatterDimensionNumbersAttr>()->value();
        field("update_window_dims", s.update_window_dims);
        field("inserted_window_dims", s.inserted_window_dims);
        field("input_batching_dims", s.input_batching_dims);
        field("scatter_indices_batching_dims", s.scatter_indices_batching_dims);
        field("scatter_dims_to_operand_dims", s.scatter_dims_to_operand_dims);
        index_vector_dim = s.index_vector_dim;
      }
      if (index_vector_dim != 0) {
        if (!field.first) out += ", ";
        out += "index_vector_dim = " + std::to_string(index_vector_dim);
      }
      out += '>';
      return;
    }
    case AttrKind::kConvDimensionNumbers: {
      const ConvDimensionNumbers& c = attr.dyn_cast<ConvDimensionNumbersAttr>()->value();
      out += "#stablehlo.conv<raw input_batch_dimension = " +
             std::to_string(c.input_batch_dimension) +
             ", input_feature_dimension = " + std::to_string(c.input_feature_dimension) +
             ", input_spatial_dimensions = ";
      AppendInts(out, c.input_spatial_dimensions);
      out += ", kernel_input_feature_dimension = " +
             std::to_string(c.kernel_input_feature_dimension) +
             ", kernel_output_feature_dimension = " +
             std::to_string(c.kernel_output_feature_dimension) + ", kernel_spatial_dimensions = ";
      AppendInts(out, c.kernel_spatial_dimensions);
      out += ", output_batch_dimension = " + std::to_string(c.output_batch_dimension) +
             ", output_feature_dimension = " + std::to_string(c.output_feature_dimension) +
             ", output_spatial_dimensions = ";
      AppendInts(out, c.output_spatial_dimensions);
      out += '>';
      return;
    }
    case AttrKind::kChannelHandle: {
      const ChannelHandle& c = attr.dyn_cast<ChannelHandleAttr>()->value();
      out += "#stablehlo.channel_handle<handle = " + std::to_string(c.handle) +
             ", type = " + std::to_string(c.type) + ">";
      return;
    }
    case AttrKind::kOutputOperandAlias: {
      const OutputOperandAlias& a = attr.dyn_cast<OutputOperandAliasAttr>()->value();
      out += "#stablehlo.output_operand_alias<output_tuple_indices = ";
      AppendInts(out, a.output_tuple_indices);
      out += ", operand_index = " + std::to_string(a.operand_index) + ", operand_tuple_indices = ";
      AppendInts(out, a.operand_tuple_indices);
      out += '>';
      return;
    }
    case AttrKind::kDotAlgorithm: {
      const DotAlgorithm& a = attr.dyn_cast<DotAlgorithmAttr>()->value();
      out += "#stablehlo.dot_algorithm<lhs_precision_type = ";
      out += ElementTypeName(a.lhs_precision_type);
      out += ", rhs_precision_type = ";
      out += ElementTypeName(a.rhs_precision_type);
      out += ", accumulation_type = ";
      out += ElementTypeName(a.accumulation_type);
      out += ", lhs_component_count = " + std::to_string(a.lhs_component_count) +
             ", rhs_component_count = " + std::to_string(a.rhs_component_count) +
             ", num_primitive_operations = " + std::to_string(a.num_primitive_operations) +
             ", allow_imprecise_accumulation = " +
             (a.allow_imprecise_accumulation ? "true" : "false") + ">";
      return;
    }
    case AttrKind::kRaggedDotDimensionNumbers: {
      const RaggedDotDimensionNumbers& r = attr.dyn_cast<RaggedDotDimensionNumbersAttr>()->value();
      out += "#chlo.ragged_dot<";
      auto field = [&](std::string_view name, const std::vector<int64_t>& v, bool last = false) {
        out += name;
        out += " = ";
        AppendInts(out, v);
        if (!last) out += ", ";
      };
      field("lhs_batching_dimensions", r.dot.lhs_batching_dimensions);
      field("rhs_batching_dimensions", r.dot.rhs_batching_dimensions);
      field("lhs_contracting_dimensions", r.dot.lhs_contracting_dimensions);
      field("rhs_contracting_dimensions", r.dot.rhs_contracting_dimensions);
      field("lhs_ragged_dimensions", r.lhs_ragged_dimensions);
      field("rhs_group_dimensions", r.rhs_group_dimensions, true);
      out += '>';
      return;
    }
    case AttrKind::kOpaque:
      out += attr.dyn_cast<OpaqueAttr>()->text();
      return;
  }
}

}  // namespace detail

std::string Attribute::ToString() const {
  std::string out;
  detail::AppendAttribute(out, *this);
  return out;
}

}  // namespace berth::stablehlo
