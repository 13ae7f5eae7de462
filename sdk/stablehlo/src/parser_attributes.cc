// Parsing attribute values: arrays, dictionaries, strings, numbers,
// symbols, array<...>, #stablehlo enums and structured attributes, and
// opaque dialect attributes kept as text.
#include <charconv>
#include <cmath>
#include <cstring>

#include "src/parser_impl.hpp"

namespace berth::stablehlo::detail {
namespace {

struct Leave {
  Parser* p;
  ~Leave() { p->LeaveNesting(); }
};

bool FitsInteger(uint64_t magnitude, bool negative, ElementType type) {
  int bits = BitWidth(type);
  if (type == ElementType::kIndex) bits = 64;
  if (type == ElementType::kI1) return magnitude <= 1;
  if (IsUnsignedInteger(type)) {
    if (negative) return magnitude == 0;
    return bits >= 64 || magnitude <= (uint64_t{1} << bits) - 1;
  }
  // Signless: the signed range for negatives, the unsigned range otherwise.
  if (negative) return bits >= 64 ? magnitude <= (uint64_t{1} << 63) : magnitude <= (uint64_t{1} << (bits - 1));
  return bits >= 64 || magnitude <= (uint64_t{1} << bits) - 1;
}

double RoundToType(double v, ElementType type) {
  if (type == ElementType::kF64) return v;
  if (type == ElementType::kF32) return static_cast<float>(v);
  return DecodeFloat(type, EncodeFloat(type, v));
}

}  // namespace

const Attribute* Parser::MakeI64Array(std::vector<int64_t> values) {
  return b_.I64Array(values);
}

const Attribute* Parser::MakeI64Matrix(const std::vector<int64_t>& flat, int64_t rows,
                                       int64_t cols) {
  int64_t shape[2] = {rows, cols};
  Type type = b_.types().Tensor(ElementType::kSI64, shape);
  std::vector<uint8_t> data(flat.size() * sizeof(int64_t));
  if (!flat.empty()) std::memcpy(data.data(), flat.data(), data.size());
  return b_.Make<DenseElementsAttr>(type, false, std::move(data));
}

Status Parser::ParseAttribute(const Attribute** out, bool typed_numbers) {
  char c = Peek();
  size_t start = pos_;
  switch (c) {
    case '[': {
      BERTH_RETURN_IF_ERROR(EnterNesting());
      Leave leave{this};
      ++pos_;
      std::vector<const Attribute*> elements;
      if (!TryConsume(']')) {
        do {
          const Attribute* e;
          BERTH_RETURN_IF_ERROR(ParseAttribute(&e));
          elements.push_back(e);
        } while (TryConsume(','));
        BERTH_RETURN_IF_ERROR(Expect(']', "to close the array"));
      }
      *out = b_.Make<ArrayAttr>(std::move(elements));
      return OkStatus();
    }
    case '{': {
      const DictionaryAttr* dict;
      BERTH_RETURN_IF_ERROR(ParseDictAttr(&dict));
      *out = dict;
      return OkStatus();
    }
    case '"': {
      std::string s;
      BERTH_RETURN_IF_ERROR(LexString(&s));
      *out = b_.Str(s);
      return OkStatus();
    }
    case '@': {
      std::vector<std::string> path;
      do {
        BERTH_RETURN_IF_ERROR(LexSymbolName(&path.emplace_back(), "a symbol name"));
      } while (Peek() == ':' && PeekAt(1) == ':' && (pos_ += 2, true));
      *out = b_.Make<SymbolRefAttr>(std::move(path));
      return OkStatus();
    }
    case '#':
      return ParseHashAttr(out);
    case '<': {
      // A dialect attribute body without its prefix, kept as text.
      size_t end;
      BERTH_RETURN_IF_ERROR(ScanBalanced(&end));
      pos_ = end;
      *out = b_.Make<OpaqueAttr>(std::string(src_.substr(start, end - start)));
      return OkStatus();
    }
    case '(':
    case '!': {
      Type t;
      BERTH_RETURN_IF_ERROR(ParseType(&t));
      *out = b_.Make<TypeAttr>(t);
      return OkStatus();
    }
    default:
      break;
  }
  if (c == '-' || (c >= '0' && c <= '9')) return ParseNumberAttr(out, typed_numbers);
  std::string_view word = PeekBareId();
  if (word.empty()) return Error("expected an attribute value");
  if (word == "true" || word == "false") {
    pos_ += word.size();
    *out = b_.Bool(word == "true");
    // `true : i1` is accepted too.
    if (typed_numbers && Peek() == ':' && PeekAt(1) != ':') {
      size_t save = pos_;
      ++pos_;
      if (PeekBareId() == "i1") {
        pos_ += 2;
      } else {
        pos_ = save;
      }
    }
    return OkStatus();
  }
  if (word == "unit") {
    pos_ += word.size();
    *out = b_.Unit();
    return OkStatus();
  }
  if (word == "dense") {
    pos_ += word.size();
    return ParseDense(out);
  }
  if (word == "array") {
    pos_ += word.size();
    return ParseDenseArray(out);
  }
  if (word == "dense_resource") {
    return Error("dense_resource literals are not supported: the data is not in the text");
  }
  if (word == "sparse") return Error("sparse literals are not supported");
  if (word == "loc" || word == "affine_map" || word == "affine_set" || word == "distinct" ||
      word == "strided") {
    pos_ += word.size();
    if (word == "distinct" && Peek() == '[') {
      size_t e;
      BERTH_RETURN_IF_ERROR(ScanBalanced(&e));
      pos_ = e;
    }
    if (Peek() != '(' && Peek() != '<') return Error("expected '(' or '<'");
    size_t e;
    BERTH_RETURN_IF_ERROR(ScanBalanced(&e));
    pos_ = e;
    *out = b_.Make<OpaqueAttr>(std::string(src_.substr(start, pos_ - start)));
    return OkStatus();
  }
  if (word == "inf" || word == "nan") return ParseNumberAttr(out, typed_numbers);
  // Otherwise a type used as an attribute (`tensor<2xf32>`, `i32`).
  Type t;
  BERTH_RETURN_IF_ERROR(ParseType(&t));
  *out = b_.Make<TypeAttr>(t);
  return OkStatus();
}

Status Parser::ParseNumberAttr(const Attribute** out, bool typed_numbers) {
  SkipWs();
  size_t start = pos_;
  NumberLit lit;
  double special = 0;
  bool is_special = false;
  bool special_negative = false;
  std::string_view word = PeekBareId();
  if (Peek() == '-' && (PeekAt(1) == 'i' || PeekAt(1) == 'n')) {
    ++pos_;
    special_negative = true;
    word = PeekBareId();
  }
  if (word == "inf" || word == "nan") {
    pos_ += word.size();
    is_special = true;
    special = word == "inf" ? INFINITY : NAN;
    if (special_negative) special = -special;
  } else {
    pos_ = start;
    BERTH_RETURN_IF_ERROR(LexNumber(&lit));
  }
  ElementType type = is_special || lit.is_float ? ElementType::kF64 : ElementType::kSI64;
  if (typed_numbers && Peek() == ':' && PeekAt(1) != ':') {
    ++pos_;
    SkipWs();
    size_t type_pos = pos_;
    std::string opaque;
    BERTH_RETURN_IF_ERROR(ParseElementType(&type, &opaque));
    if (type == ElementType::kOpaque || IsComplex(type)) {
      return ErrorAt(type_pos, "expected an integer or float type for a number");
    }
  }
  if (is_special) {
    if (!IsFloat(type)) return ErrorAt(start, "inf and nan need a float type");
    *out = b_.Make<FloatAttr>(RoundToType(special, type), type);
    return OkStatus();
  }
  if (IsFloat(type)) {
    double v;
    if (lit.hex) {
      uint64_t bits;
      if (lit.negative || !ParseUnsigned(lit.digits, true, &bits)) {
        return ErrorAt(start, "invalid hexadecimal float literal");
      }
      if (BitWidth(type) < 64 && (bits >> BitWidth(type)) != 0) {
        return ErrorAt(start, "hexadecimal float constant is out of range for its type");
      }
      v = DecodeFloat(type, bits);
    } else {
      auto r = std::from_chars(lit.text.data(), lit.text.data() + lit.text.size(), v);
      if (r.ec != std::errc() && r.ec != std::errc::result_out_of_range) {
        return ErrorAt(start, "invalid float literal");
      }
      if (r.ec == std::errc::result_out_of_range) v = lit.negative ? -INFINITY : INFINITY;
      v = RoundToType(v, type);
    }
    *out = b_.Make<FloatAttr>(v, type);
    return OkStatus();
  }
  if (lit.is_float) return ErrorAt(start, "expected an integer, found a float literal");
  uint64_t magnitude;
  if (!ParseUnsigned(lit.digits, lit.hex, &magnitude) ||
      !FitsInteger(magnitude, lit.negative, type)) {
    return ErrorAt(start, "integer literal is out of range for type " +
                              std::string(ElementTypeName(type)));
  }
  int64_t value = lit.negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  if (type == ElementType::kI1) {
    *out = b_.Int(value != 0 ? 1 : 0, type);
    return OkStatus();
  }
  *out = b_.Int(value, type);
  return OkStatus();
}

Status Parser::ParseAttrDict(std::vector<NamedAttribute>* out) {
  BERTH_RETURN_IF_ERROR(EnterNesting());
  Leave leave{this};
  BERTH_RETURN_IF_ERROR(Expect('{', "to start an attribute dictionary"));
  if (TryConsume('}')) return OkStatus();
  do {
    SkipWs();
    std::string_view name;
    if (Peek() == '"') {
      std::string s;
      BERTH_RETURN_IF_ERROR(LexString(&s));
      name = b_.Save(s);
    } else {
      name = LexBareId();
      if (name.empty()) return Error("expected an attribute name");
      name = b_.Save(name);
    }
    const Attribute* value;
    if (TryConsume('=')) {
      BERTH_RETURN_IF_ERROR(ParseAttribute(&value));
    } else {
      value = b_.Unit();
    }
    out->push_back({name, value});
  } while (TryConsume(','));
  return Expect('}', "to close the attribute dictionary");
}

Status Parser::ParseDictAttr(const DictionaryAttr** out) {
  size_t start = pos_;
  std::vector<NamedAttribute> entries;
  BERTH_RETURN_IF_ERROR(ParseAttrDict(&entries));
  std::string_view dup = SortAttributes(entries);
  if (!dup.empty()) return ErrorAt(start, "duplicate attribute '" + std::string(dup) + "'");
  *out = b_.Make<DictionaryAttr>(std::move(entries));
  return OkStatus();
}

// `array<i64: 1, 2>`, `array<i1: true>`, `array<f32: 1.0>`, `array<i64>`.
Status Parser::ParseDenseArray(const Attribute** out) {
  BERTH_RETURN_IF_ERROR(Expect('<', "after 'array'"));
  size_t type_pos = pos_;
  ElementType type;
  std::string opaque;
  BERTH_RETURN_IF_ERROR(ParseElementType(&type, &opaque));
  if (!(IsInteger(type) || IsBool(type) || IsFloat(type))) {
    return ErrorAt(type_pos, "array<...> needs an integer or float element type");
  }
  std::vector<int64_t> ints;
  std::vector<double> floats;
  if (TryConsume(':')) {
    do {
      std::string_view word = PeekBareId();
      if (word == "true" || word == "false") {
        pos_ += word.size();
        if (!IsBool(type)) return Error("boolean value in a non-i1 array");
        ints.push_back(word == "true");
        continue;
      }
      const Attribute* a;
      size_t value_pos = pos_;
      BERTH_RETURN_IF_ERROR(ParseNumberAttr(&a, false));
      if (IsFloat(type)) {
        if (auto* f = a->dyn_cast<FloatAttr>()) {
          floats.push_back(RoundToType(f->value(), type));
        } else {
          floats.push_back(static_cast<double>(a->dyn_cast<IntegerAttr>()->value()));
        }
      } else {
        auto* i = a->dyn_cast<IntegerAttr>();
        if (!i) return ErrorAt(value_pos, "expected an integer in an integer array");
        if (IsBool(type) && i->value() != 0 && i->value() != 1) {
          return ErrorAt(value_pos, "i1 array values must be 0 or 1");
        }
        ints.push_back(i->value());
      }
    } while (TryConsume(','));
  }
  BERTH_RETURN_IF_ERROR(Expect('>', "to close array<...>"));
  *out = b_.Make<DenseArrayAttr>(type, std::move(ints), std::move(floats));
  return OkStatus();
}

Status Parser::ParseHashAttr(const Attribute** out) {
  SkipWs();
  size_t start = pos_;
  ++pos_;  // '#'
  std::string_view name = LexSuffixId();
  if (name.empty()) return ErrorAt(start, "expected an attribute name after '#'");
  if (PeekAt(0) != '<') {
    auto it = attr_aliases_.find(std::string(name));
    if (it == attr_aliases_.end()) {
      return ErrorAt(start, "undefined attribute alias '#" + std::string(name) + "'");
    }
    *out = it->second;
    return OkStatus();
  }
  if (name == "stablehlo" || name == "chlo") return ParseEnumBody(name, start, out);
  if (name.starts_with("stablehlo.") || name == "chlo.ragged_dot") {
    return ParseStructuredAttr(name, start, out);
  }
  size_t end;
  BERTH_RETURN_IF_ERROR(ScanBalanced(&end));
  pos_ = end;
  *out = b_.Make<OpaqueAttr>(std::string(src_.substr(start, end - start)));
  return OkStatus();
}

// `#stablehlo<comparison_direction LT>` and the other enums.
Status Parser::ParseEnumBody(std::string_view dialect, size_t start, const Attribute** out) {
  size_t open = pos_;
  ++pos_;  // '<'
  std::string_view kind_name = LexBareId();
  EnumKind kind;
  bool known = true;
  if (kind_name == "comparison_direction") {
    kind = EnumKind::kComparisonDirection;
  } else if (kind_name == "comparison_type") {
    kind = EnumKind::kComparisonType;
  } else if (kind_name == "precision") {
    kind = EnumKind::kPrecision;
  } else if (kind_name == "fft_type") {
    kind = EnumKind::kFftType;
  } else if (kind_name == "rng_distribution") {
    kind = EnumKind::kRngDistribution;
  } else if (kind_name == "rng_algorithm") {
    kind = EnumKind::kRngAlgorithm;
  } else if (kind_name == "transpose") {
    kind = EnumKind::kTranspose;
  } else {
    known = false;
    kind = EnumKind::kPrecision;
  }
  if (!known) {
    pos_ = open;
    size_t end;
    BERTH_RETURN_IF_ERROR(ScanBalanced(&end));
    pos_ = end;
    *out = b_.Make<OpaqueAttr>(std::string(src_.substr(start, end - start)));
    return OkStatus();
  }
  size_t value_pos = pos_;
  std::string_view keyword = LexBareId();
  std::optional<uint8_t> value = EnumValue(kind, keyword);
  if (!value) {
    return ErrorAt(value_pos, "unknown " + std::string(kind_name) + " '" + std::string(keyword) +
                                  "' in #" + std::string(dialect) + "<...>");
  }
  BERTH_RETURN_IF_ERROR(Expect('>', "to close the enum attribute"));
  *out = b_.Enum(kind, *value);
  return OkStatus();
}


Status Parser::ParseStructuredAttr(std::string_view name, size_t start, const Attribute** out) {
  size_t open = pos_;
  auto opaque = [&]() -> Status {
    pos_ = open;
    size_t end;
    BERTH_RETURN_IF_ERROR(ScanBalanced(&end));
    pos_ = end;
    *out = b_.Make<OpaqueAttr>(std::string(src_.substr(start, end - start)));
    return OkStatus();
  };
  std::string context = "in #" + std::string(name);
  if (name == "stablehlo.conv") {
    ++pos_;
    ConvDimensionNumbers dims;
    if (TryKeyword("raw")) {
      do {
        size_t field_pos = pos_;
        std::string_view field = LexBareId();
        BERTH_RETURN_IF_ERROR(Expect('=', context));
        if (field == "input_batch_dimension") {
          BERTH_RETURN_IF_ERROR(LexInt64(&dims.input_batch_dimension, context));
        } else if (field == "input_feature_dimension") {
          BERTH_RETURN_IF_ERROR(LexInt64(&dims.input_feature_dimension, context));
        } else if (field == "input_spatial_dimensions") {
          BERTH_RETURN_IF_ERROR(ParseIntList(&dims.input_spatial_dimensions, context));
        } else if (field == "kernel_input_feature_dimension") {
          BERTH_RETURN_IF_ERROR(LexInt64(&dims.kernel_input_feature_dimension, context));
        } else if (field == "kernel_output_feature_dimension") {
          BERTH_RETURN_IF_ERROR(LexInt64(&dims.kernel_output_feature_dimension, context));
        } else if (field == "kernel_spatial_dimensions") {
          BERTH_RETURN_IF_ERROR(ParseIntList(&dims.kernel_spatial_dimensions, context));
        } else if (field == "output_batch_dimension") {
          BERTH_RETURN_IF_ERROR(LexInt64(&dims.output_batch_dimension, context));
        } else if (field == "output_feature_dimension") {
          BERTH_RETURN_IF_ERROR(LexInt64(&dims.output_feature_dimension, context));
        } else if (field == "output_spatial_dimensions") {
          BERTH_RETURN_IF_ERROR(ParseIntList(&dims.output_spatial_dimensions, context));
        } else {
          return ErrorAt(field_pos, "unknown field '" + std::string(field) + "' " + context);
        }
        // MLIR accepts one trailing comma before the closing '>'.
      } while (TryConsume(',') && Peek() != '>');
    } else {
      BERTH_RETURN_IF_ERROR(ParseConvDimsCompact(&dims));
    }
    BERTH_RETURN_IF_ERROR(Expect('>', context));
    *out = b_.Make<ConvDimensionNumbersAttr>(std::move(dims));
    return OkStatus();
  }
  bool is_dot = name == "stablehlo.dot";
  bool is_gather = name == "stablehlo.gather";
  bool is_scatter = name == "stablehlo.scatter";
  bool is_channel = name == "stablehlo.channel_handle";
  bool is_alias = name == "stablehlo.output_operand_alias";
  bool is_algorithm = name == "stablehlo.dot_algorithm";
  bool is_ragged = name == "chlo.ragged_dot";
  if (!(is_dot || is_gather || is_scatter || is_channel || is_alias || is_algorithm || is_ragged)) {
    return opaque();
  }
  ++pos_;  // '<'
  DotDimensionNumbers dot;
  GatherDimensionNumbers gather;
  ScatterDimensionNumbers scatter;
  ChannelHandle channel;
  OutputOperandAlias alias;
  DotAlgorithm algorithm;
  RaggedDotDimensionNumbers ragged;
  if (!TryConsume('>')) {
    do {
      size_t field_pos = pos_;
      std::string_view field = LexBareId();
      if (field.empty()) return Error("expected a field name " + context);
      BERTH_RETURN_IF_ERROR(Expect('=', context));
      bool ok = true;
      if (is_ragged) {
        // camelCase too, as some printers spell the fields.
        std::vector<int64_t>* list =
            field == "lhs_batching_dimensions" || field == "lhsBatchingDimensions"
                ? &ragged.dot.lhs_batching_dimensions
            : field == "rhs_batching_dimensions" || field == "rhsBatchingDimensions"
                ? &ragged.dot.rhs_batching_dimensions
            : field == "lhs_contracting_dimensions" || field == "lhsContractingDimensions"
                ? &ragged.dot.lhs_contracting_dimensions
            : field == "rhs_contracting_dimensions" || field == "rhsContractingDimensions"
                ? &ragged.dot.rhs_contracting_dimensions
            : field == "lhs_ragged_dimensions" || field == "lhsRaggedDimensions"
                ? &ragged.lhs_ragged_dimensions
            : field == "rhs_group_dimensions" || field == "rhsGroupDimensions"
                ? &ragged.rhs_group_dimensions
                : nullptr;
        if (list == nullptr) {
          ok = false;
        } else {
          BERTH_RETURN_IF_ERROR(ParseIntList(list, context));
        }
      } else if (is_dot) {
        if (field == "lhs_batching_dimensions") {
          BERTH_RETURN_IF_ERROR(ParseIntList(&dot.lhs_batching_dimensions, context));
        } else if (field == "rhs_batching_dimensions") {
          BERTH_RETURN_IF_ERROR(ParseIntList(&dot.rhs_batching_dimensions, context));
        } else if (field == "lhs_contracting_dimensions") {
          BERTH_RETURN_IF_ERROR(ParseIntList(&dot.lhs_contracting_dimensions, context));
        } else if (field == "rhs_contracting_dimensions") {
          BERTH_RETURN_IF_ERROR(ParseIntList(&dot.rhs_contracting_dimensions, context));
        } else {
          ok = false;
        }
      } else if (is_gather) {
        if (field == "offset_dims") {
          BERTH_RETURN_IF_ERROR(ParseIntList(&gather.offset_dims, context));
        } else if (field == "collapsed_slice_dims") {
          BERTH_RETURN_IF_ERROR(ParseIntList(&gather.collapsed_slice_dims, context));
        } else if (field == "operand_batching_dims") {
          BERTH_RETURN_IF_ERROR(ParseIntList(&gather.operand_batching_dims, context));
        } else if (field == "start_indices_batching_dims") {
          BERTH_RETURN_IF_ERROR(ParseIntList(&gather.start_indices_batching_dims, context));
        } else if (field == "start_index_map") {
          BERTH_RETURN_IF_ERROR(ParseIntList(&gather.start_index_map, context));
        } else if (field == "index_vector_dim") {
          BERTH_RETURN_IF_ERROR(LexInt64(&gather.index_vector_dim, context));
        } else {
          ok = false;
        }
      } else if (is_scatter) {
        if (field == "update_window_dims") {
          BERTH_RETURN_IF_ERROR(ParseIntList(&scatter.update_window_dims, context));
        } else if (field == "inserted_window_dims") {
          BERTH_RETURN_IF_ERROR(ParseIntList(&scatter.inserted_window_dims, context));
        } else if (field == "input_batching_dims") {
          BERTH_RETURN_IF_ERROR(ParseIntList(&scatter.input_batching_dims, context));
        } else if (field == "scatter_indices_batching_dims") {
          BERTH_RETURN_IF_ERROR(ParseIntList(&scatter.scatter_indices_batching_dims, context));
        } else if (field == "scatter_dims_to_operand_dims") {
          BERTH_RETURN_IF_ERROR(ParseIntList(&scatter.scatter_dims_to_operand_dims, context));
        } else if (field == "index_vector_dim") {
          BERTH_RETURN_IF_ERROR(LexInt64(&scatter.index_vector_dim, context));
        } else {
          ok = false;
        }
      } else if (is_channel) {
        if (field == "handle") {
          BERTH_RETURN_IF_ERROR(LexInt64(&channel.handle, context));
        } else if (field == "type") {
          BERTH_RETURN_IF_ERROR(LexInt64(&channel.type, context));
        } else {
          ok = false;
        }
      } else if (is_alias) {
        if (field == "output_tuple_indices") {
          BERTH_RETURN_IF_ERROR(ParseIntList(&alias.output_tuple_indices, context));
        } else if (field == "operand_index") {
          BERTH_RETURN_IF_ERROR(LexInt64(&alias.operand_index, context));
        } else if (field == "operand_tuple_indices") {
          BERTH_RETURN_IF_ERROR(ParseIntList(&alias.operand_tuple_indices, context));
        } else {
          ok = false;
        }
      } else {  // dot algorithm
        std::string opaque_text;
        if (field == "lhs_precision_type") {
          BERTH_RETURN_IF_ERROR(ParseElementType(&algorithm.lhs_precision_type, &opaque_text));
        } else if (field == "rhs_precision_type") {
          BERTH_RETURN_IF_ERROR(ParseElementType(&algorithm.rhs_precision_type, &opaque_text));
        } else if (field == "accumulation_type") {
          BERTH_RETURN_IF_ERROR(ParseElementType(&algorithm.accumulation_type, &opaque_text));
        } else if (field == "lhs_component_count") {
          BERTH_RETURN_IF_ERROR(LexInt64(&algorithm.lhs_component_count, context));
        } else if (field == "rhs_component_count") {
          BERTH_RETURN_IF_ERROR(LexInt64(&algorithm.rhs_component_count, context));
        } else if (field == "num_primitive_operations") {
          BERTH_RETURN_IF_ERROR(LexInt64(&algorithm.num_primitive_operations, context));
        } else if (field == "allow_imprecise_accumulation") {
          std::string_view b = LexBareId();
          if (b != "true" && b != "false") return Error("expected true or false " + context);
          algorithm.allow_imprecise_accumulation = b == "true";
        } else {
          ok = false;
        }
      }
      if (!ok) return ErrorAt(field_pos, "unknown field '" + std::string(field) + "' " + context);
      // MLIR accepts one trailing comma before the closing '>'.
    } while (TryConsume(',') && Peek() != '>');
    BERTH_RETURN_IF_ERROR(Expect('>', context));
  }
  if (is_dot) {
    *out = b_.Make<DotDimensionNumbersAttr>(std::move(dot));
  } else if (is_gather) {
    *out = b_.Make<GatherDimensionNumbersAttr>(std::move(gather));
  } else if (is_scatter) {
    *out = b_.Make<ScatterDimensionNumbersAttr>(std::move(scatter));
  } else if (is_channel) {
    *out = b_.Make<ChannelHandleAttr>(channel);
  } else if (is_alias) {
    *out = b_.Make<OutputOperandAliasAttr>(std::move(alias));
  } else if (is_ragged) {
    *out = b_.Make<RaggedDotDimensionNumbersAttr>(std::move(ragged));
  } else {
    *out = b_.Make<DotAlgorithmAttr>(algorithm);
  }
  return OkStatus();
}

// `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`.
Status Parser::ParseConvDimsCompact(ConvDimensionNumbers* out) {
  struct Entry {
    char letter;  // 0 for a spatial index
    int64_t spatial;
  };
  auto parse_list = [&](std::vector<Entry>* list) -> Status {
    BERTH_RETURN_IF_ERROR(Expect('[', "in convolution dimension numbers"));
    if (TryConsume(']')) return OkStatus();
    do {
      char c = Peek();
      if (c >= '0' && c <= '9') {
        int64_t v;
        BERTH_RETURN_IF_ERROR(LexInt64(&v, "in convolution dimension numbers"));
        list->push_back({0, v});
      } else {
        std::string_view id = LexBareId();
        if (id.size() != 1) return Error("expected b, f, i, o or a spatial index");
        list->push_back({id[0], 0});
      }
    } while (TryConsume(','));
    return Expect(']', "in convolution dimension numbers");
  };
  std::vector<Entry> in, kernel, outl;
  size_t start = pos_;
  BERTH_RETURN_IF_ERROR(parse_list(&in));
  SkipWs();
  if (PeekAt(0) != 'x') return Error("expected 'x' between convolution dimension lists");
  ++pos_;
  BERTH_RETURN_IF_ERROR(parse_list(&kernel));
  BERTH_RETURN_IF_ERROR(ExpectArrow("in convolution dimension numbers"));
  BERTH_RETURN_IF_ERROR(parse_list(&outl));
  auto assign = [&](const std::vector<Entry>& list, char a, char b, int64_t* da, int64_t* db,
                    std::vector<int64_t>* spatial) -> Status {
    bool seen_a = false, seen_b = false;
    size_t num_spatial = 0;
    for (const Entry& e : list) num_spatial += e.letter == 0;
    spatial->assign(num_spatial, -1);
    for (size_t i = 0; i < list.size(); ++i) {
      const Entry& e = list[i];
      if (e.letter == a && !seen_a) {
        *da = static_cast<int64_t>(i);
        seen_a = true;
      } else if (e.letter == b && !seen_b) {
        *db = static_cast<int64_t>(i);
        seen_b = true;
      } else if (e.letter == 0 && e.spatial >= 0 &&
                 e.spatial < static_cast<int64_t>(num_spatial) && (*spatial)[e.spatial] < 0) {
        (*spatial)[e.spatial] = static_cast<int64_t>(i);
      } else {
        return ErrorAt(start, "invalid convolution dimension numbers");
      }
    }
    if (!seen_a || !seen_b) return ErrorAt(start, "invalid convolution dimension numbers");
    return OkStatus();
  };
  BERTH_RETURN_IF_ERROR(assign(in, 'b', 'f', &out->input_batch_dimension,
                               &out->input_feature_dimension, &out->input_spatial_dimensions));
  BERTH_RETURN_IF_ERROR(assign(kernel, 'i', 'o', &out->kernel_input_feature_dimension,
                               &out->kernel_output_feature_dimension,
                               &out->kernel_spatial_dimensions));
  BERTH_RETURN_IF_ERROR(assign(outl, 'b', 'f', &out->output_batch_dimension,
                               &out->output_feature_dimension, &out->output_spatial_dimensions));
  return OkStatus();
}

}  // namespace berth::stablehlo::detail
