// Parsing the pretty (custom assembly) forms of ops into the same operands,
// attributes (under their generic names) and types as the generic form.
#include "src/parser_impl.hpp"

namespace berth::stablehlo::detail {
namespace {

TypePolicy PolicyFor(OpKind kind) {
  switch (kind) {
    case OpKind::kSelect: return TypePolicy::kSelect;
    case OpKind::kCompare: return TypePolicy::kCompare;
    case OpKind::kComplex:
    case OpKind::kTuple:
    case OpKind::kGetTupleElement: return TypePolicy::kResultOnly;
    case OpKind::kReturn:
    case OpKind::kFuncReturn:
    case OpKind::kSdyReturn:
    case OpKind::kCheckExpectEq:
    case OpKind::kCheckExpectAlmostEq:
    case OpKind::kCheckExpectClose:
    case OpKind::kCheckExpectSerializedEq:
    case OpKind::kInterpreterPrint: return TypePolicy::kOperandsOnly;
    case OpKind::kOptimizationBarrier: return TypePolicy::kOperandsAndResults;
    default: return TypePolicy::kSame;
  }
}

}  // namespace

// Duplicates are reported when the op is finished (after sorting).
Status Parser::AddAttr(OpState& st, std::string_view name, const Attribute* value) {
  st.attrs.push_back({name, value});
  return OkStatus();
}

Status Parser::ParseOptionalAttrDict(OpState& st) {
  if (Peek() != '{') return OkStatus();
  return ParseAttrDict(&st.attrs);
}

Status Parser::ParsePrettyOp(OpState& st, size_t num_results) {
  switch (st.kind) {
    case OpKind::kConstant:
    case OpKind::kChloConstant: return ParsePrettyConstant(st);
    case OpKind::kCompare: return ParsePrettyCompare(st, num_results);
    case OpKind::kSlice: return ParsePrettySlice(st, num_results);
    case OpKind::kGetTupleElement: return ParsePrettyGetTupleElement(st, num_results);
    case OpKind::kCustomCall: return ParsePrettyCustomCall(st, num_results);
    case OpKind::kComposite: return ParsePrettyComposite(st, num_results);
    case OpKind::kFuncCall: return ParsePrettyCall(st, num_results);
    case OpKind::kCheckExpectEqConst:
    case OpKind::kCheckExpectAlmostEqConst: return ParsePrettyCheckConst(st);
    case OpKind::kConvolution:
    case OpKind::kDynamicConv: return ParsePrettyConvolution(st, num_results);
    case OpKind::kReduce: return ParsePrettyReduce(st, num_results);
    case OpKind::kWhile: return ParsePrettyWhile(st, num_results);
    case OpKind::kIf: return ParsePrettyIf(st, num_results);
    case OpKind::kChloTopK: return ParsePrettyTopK(st, num_results);
    case OpKind::kChloScan: return ParsePrettyScan(st, num_results);
    case OpKind::kSdyShardingConstraint:
    case OpKind::kSdyReshard: return ParsePrettySharding(st, num_results);
    case OpKind::kSdyManualComputation: return ParsePrettyManualComputation(st, num_results);
    default: return ParsePrettyDefault(st, num_results);
  }
}

// `op %a, %b, key = value, ... {attrs} : types`
Status Parser::ParsePrettyDefault(OpState& st, size_t num_results) {
  std::vector<int64_t> lhs_batch, rhs_batch, lhs_contract, rhs_contract;
  bool has_dot_dims = false;
  char c = Peek();
  bool terminator = IsTerminator(st.kind);
  // A terminator's items are values only; a bare word after it is the next op.
  bool has_items = c == '%' || (!terminator && IsBareIdStart(c) && PeekBareId() != "loc");
  if (has_items) {
    do {
      SkipWs();
      if (Peek() == '%') {
        BERTH_RETURN_IF_ERROR(ParseOperand(st));
        continue;
      }
      size_t key_pos = pos_;
      std::string_view key = LexBareId();
      if (key.empty()) return Error("expected an operand or 'name = value'");
      if (!TryConsume('=')) {
        return ErrorAt(key_pos, "expected an operand ('%" + std::string(key) + "'?) or '" +
                                    std::string(key) + " = value'");
      }
      BERTH_RETURN_IF_ERROR(ParseKeywordItem(st, key, key_pos, &lhs_batch, &rhs_batch,
                                             &lhs_contract, &rhs_contract, &has_dot_dims));
    } while (TryConsume(','));
  }
  if (has_dot_dims) {
    DotDimensionNumbers dims;
    dims.lhs_batching_dimensions = std::move(lhs_batch);
    dims.rhs_batching_dimensions = std::move(rhs_batch);
    dims.lhs_contracting_dimensions = std::move(lhs_contract);
    dims.rhs_contracting_dimensions = std::move(rhs_contract);
    BERTH_RETURN_IF_ERROR(
        AddAttr(st, "dot_dimension_numbers", b_.Make<DotDimensionNumbersAttr>(std::move(dims))));
  }
  BERTH_RETURN_IF_ERROR(ParseOptionalAttrDict(st));
  if (terminator && st.operands.empty() && Peek() != ':') return OkStatus();
  return ParseTypeClause(st, PolicyFor(st.kind), num_results);
}

Status Parser::ParseKeywordItem(OpState& st, std::string_view key, size_t key_pos,
                                std::vector<int64_t>* lhs_batch, std::vector<int64_t>* rhs_batch,
                                std::vector<int64_t>* lhs_contract,
                                std::vector<int64_t>* rhs_contract, bool* has_dot_dims) {
  const OpKind k = st.kind;
  std::string context = "for '" + std::string(key) + "'";
  auto int_list = [&](std::string_view name) -> Status {
    std::vector<int64_t> v;
    BERTH_RETURN_IF_ERROR(ParseIntList(&v, context));
    return AddAttr(st, name, MakeI64Array(std::move(v)));
  };
  auto int_value = [&](std::string_view name) -> Status {
    int64_t v;
    BERTH_RETURN_IF_ERROR(LexInt64(&v, context));
    return AddAttr(st, name, b_.Int(v, ElementType::kSI64));
  };
  auto enum_value = [&](EnumKind kind, std::string_view name) -> Status {
    size_t p = pos_;
    SkipWs();
    p = pos_;
    std::string_view word = LexBareId();
    std::optional<uint8_t> v = EnumValue(kind, word);
    if (!v) {
      return ErrorAt(p, "unknown " + std::string(EnumKindName(kind)) + " '" + std::string(word) +
                            "'");
    }
    return AddAttr(st, name, b_.Enum(kind, *v));
  };
  if (key == "dims") {
    std::string_view name = (k == OpKind::kBroadcastInDim || k == OpKind::kDynamicBroadcastInDim)
                                ? "broadcast_dimensions"
                            : k == OpKind::kTranspose ? "permutation"
                                                      : "dimensions";
    return int_list(name);
  }
  if (key == "sizes") {
    return int_list(k == OpKind::kBroadcast      ? "broadcast_sizes"
                    : k == OpKind::kDynamicSlice ? "slice_sizes"
                                                 : "sizes");
  }
  if (key == "dim") {
    std::string_view name = (k == OpKind::kIota || k == OpKind::kDynamicIota) ? "iota_dimension"
                            : k == OpKind::kTorchIndexSelect                 ? "dim"
                                                                             : "dimension";
    return int_value(name);
  }
  if (key == "batch_dims" && k == OpKind::kTorchIndexSelect) return int_value("batch_dims");
  if (k == OpKind::kPad && (key == "low" || key == "high" || key == "interior")) {
    return int_list(key == "low"    ? "edge_padding_low"
                    : key == "high" ? "edge_padding_high"
                                    : "interior_padding");
  }
  if (key == "batching_dims" || key == "contracting_dims") {
    std::vector<int64_t>* lhs = key == "batching_dims" ? lhs_batch : lhs_contract;
    std::vector<int64_t>* rhs = key == "batching_dims" ? rhs_batch : rhs_contract;
    BERTH_RETURN_IF_ERROR(ParseIntList(lhs, context));
    SkipWs();
    if (PeekAt(0) != 'x') return Error("expected 'x' between the lhs and rhs dimensions");
    ++pos_;
    BERTH_RETURN_IF_ERROR(ParseIntList(rhs, context));
    *has_dot_dims = true;
    return OkStatus();
  }
  if (key == "precision") {
    BERTH_RETURN_IF_ERROR(Expect('[', context));
    std::vector<const Attribute*> values;
    if (!TryConsume(']')) {
      do {
        SkipWs();
        size_t p = pos_;
        std::string_view word = LexBareId();
        std::optional<uint8_t> v = EnumValue(EnumKind::kPrecision, word);
        if (!v) return ErrorAt(p, "unknown precision '" + std::string(word) + "'");
        values.push_back(b_.Enum(EnumKind::kPrecision, *v));
      } while (TryConsume(','));
      BERTH_RETURN_IF_ERROR(Expect(']', context));
    }
    return AddAttr(st, "precision_config", b_.Make<ArrayAttr>(std::move(values)));
  }
  if (key == "algorithm") {
    if (k == OpKind::kRngBitGenerator) return enum_value(EnumKind::kRngAlgorithm, "rng_algorithm");
    if (Peek() != '<') return Error("expected '<' to start the dot algorithm");
    const Attribute* a;
    BERTH_RETURN_IF_ERROR(ParseStructuredAttr("stablehlo.dot_algorithm", key_pos, &a));
    return AddAttr(st, "algorithm", a);
  }
  if (key == "distribution") return enum_value(EnumKind::kRngDistribution, "rng_distribution");
  if (key == "type" && k == OpKind::kFft) return enum_value(EnumKind::kFftType, "fft_type");
  if (key == "length" && k == OpKind::kFft) return int_list("fft_length");
  if (key == "transpose_a") return enum_value(EnumKind::kTranspose, "transpose_a");
  if (key == "format" && k == OpKind::kReducePrecision) {
    SkipWs();
    size_t p = pos_;
    std::string_view word = LexBareId();
    // e<exponent bits>m<mantissa bits>
    size_t m = word.find('m');
    uint64_t e_bits, m_bits;
    if (word.size() < 4 || word[0] != 'e' || m == std::string_view::npos ||
        !ParseUnsigned(word.substr(1, m - 1), false, &e_bits) ||
        !ParseUnsigned(word.substr(m + 1), false, &m_bits) || e_bits > 1024 || m_bits > 1024) {
      return ErrorAt(p, "expected a format such as e5m10");
    }
    BERTH_RETURN_IF_ERROR(AddAttr(
        st, "exponent_bits", b_.Int(static_cast<int64_t>(e_bits), ElementType::kSI32)));
    return AddAttr(st, "mantissa_bits",
                   b_.Int(static_cast<int64_t>(m_bits), ElementType::kSI32));
  }
  if (key == "config" && (k == OpKind::kEinsum || k == OpKind::kUnaryEinsum)) {
    std::string s;
    BERTH_RETURN_IF_ERROR(LexString(&s));
    return AddAttr(st, "einsum_config", b_.Str(s));
  }
  if (key == "tolerance") {
    const Attribute* a;
    size_t p = pos_;
    BERTH_RETURN_IF_ERROR(ParseNumberAttr(&a, false));
    double v;
    if (auto* f = a->dyn_cast<FloatAttr>()) {
      v = f->value();
    } else if (auto* i = a->dyn_cast<IntegerAttr>()) {
      v = static_cast<double>(i->value());
    } else {
      return ErrorAt(p, "expected a number for 'tolerance'");
    }
    return AddAttr(st, "tolerance", b_.Make<FloatAttr>(v, ElementType::kF64));
  }
  if (key == "max_ulp_difference" || key == "min_ulp_difference" || key == "iter") {
    return int_value(key == "iter" ? "iter" : b_.Save(key));
  }
  // Anything else: `name = [ints]` as array<i64>, or an attribute value.
  std::string_view name = b_.Save(key);
  if (Peek() == '[') {
    size_t save = pos_;
    ++pos_;
    char next = Peek();
    pos_ = save;
    if (next == ']' || next == '-' || (next >= '0' && next <= '9')) return int_list(name);
  }
  const Attribute* value;
  BERTH_RETURN_IF_ERROR(ParseAttribute(&value, /*typed_numbers=*/false));
  return AddAttr(st, name, value);
}

// stablehlo.constant {attrs} dense<...> : tensor<...>
Status Parser::ParsePrettyConstant(OpState& st) {
  BERTH_RETURN_IF_ERROR(ParseOptionalAttrDict(st));
  SkipWs();
  size_t p = pos_;
  const Attribute* value;
  BERTH_RETURN_IF_ERROR(ParseAttribute(&value));
  auto* dense = value->dyn_cast<DenseElementsAttr>();
  if (!dense) return ErrorAt(p, "expected a dense<...> literal for the constant");
  BERTH_RETURN_IF_ERROR(AddAttr(st, "value", value));
  BERTH_RETURN_IF_ERROR(ParseOptionalAttrDict(st));
  st.result_types = {dense->type()};
  return OkStatus();
}

// stablehlo.compare LT, %a, %b [, SIGNED] {attrs} : types
Status Parser::ParsePrettyCompare(OpState& st, size_t num_results) {
  SkipWs();
  size_t p = pos_;
  std::string_view dir = LexBareId();
  std::optional<uint8_t> d = EnumValue(EnumKind::kComparisonDirection, dir);
  if (!d) return ErrorAt(p, "expected a comparison direction (EQ, NE, GE, GT, LE, LT)");
  BERTH_RETURN_IF_ERROR(AddAttr(st, "comparison_direction",
                                b_.Enum(EnumKind::kComparisonDirection, *d)));
  BERTH_RETURN_IF_ERROR(Expect(',', "after the comparison direction"));
  BERTH_RETURN_IF_ERROR(ParseOperand(st));
  BERTH_RETURN_IF_ERROR(Expect(',', "between the compared values"));
  BERTH_RETURN_IF_ERROR(ParseOperand(st));
  if (TryConsume(',')) {
    SkipWs();
    size_t tp = pos_;
    std::string_view word = LexBareId();
    std::optional<uint8_t> t = EnumValue(EnumKind::kComparisonType, word);
    if (!t) return ErrorAt(tp, "expected a comparison type (FLOAT, TOTALORDER, SIGNED, UNSIGNED)");
    BERTH_RETURN_IF_ERROR(
        AddAttr(st, "compare_type", b_.Enum(EnumKind::kComparisonType, *t)));
  }
  BERTH_RETURN_IF_ERROR(ParseOptionalAttrDict(st));
  return ParseTypeClause(st, TypePolicy::kCompare, num_results);
}

// stablehlo.slice %x [1:3, 0:8:2] : types
Status Parser::ParsePrettySlice(OpState& st, size_t num_results) {
  SkipWs();
  size_t operand_start = pos_;
  BERTH_RETURN_IF_ERROR(ParseOperand(st));
  if (Peek() != '[') {
    // Older spellings list the attributes by name.
    if (Peek() == ',') {
      pos_ = operand_start;
      st.operands.clear();
      st.operand_pos.clear();
      return ParsePrettyDefault(st, num_results);
    }
    BERTH_RETURN_IF_ERROR(ParseOptionalAttrDict(st));
    return ParseTypeClause(st, TypePolicy::kSame, num_results);
  }
  ++pos_;
  std::vector<int64_t> start, limit, strides;
  if (!TryConsume(']')) {
    do {
      int64_t a, b, s = 1;
      BERTH_RETURN_IF_ERROR(LexInt64(&a, "for the slice start"));
      BERTH_RETURN_IF_ERROR(Expect(':', "between slice start and limit"));
      BERTH_RETURN_IF_ERROR(LexInt64(&b, "for the slice limit"));
      if (TryConsume(':')) BERTH_RETURN_IF_ERROR(LexInt64(&s, "for the slice stride"));
      start.push_back(a);
      limit.push_back(b);
      strides.push_back(s);
    } while (TryConsume(','));
    BERTH_RETURN_IF_ERROR(Expect(']', "to close the slice ranges"));
  }
  BERTH_RETURN_IF_ERROR(AddAttr(st, "start_indices", MakeI64Array(std::move(start))));
  BERTH_RETURN_IF_ERROR(AddAttr(st, "limit_indices", MakeI64Array(std::move(limit))));
  BERTH_RETURN_IF_ERROR(AddAttr(st, "strides", MakeI64Array(std::move(strides))));
  BERTH_RETURN_IF_ERROR(ParseOptionalAttrDict(st));
  return ParseTypeClause(st, TypePolicy::kSame, num_results);
}

// stablehlo.get_tuple_element %t[0] : (tuple<...>) -> T
Status Parser::ParsePrettyGetTupleElement(OpState& st, size_t num_results) {
  BERTH_RETURN_IF_ERROR(ParseOperand(st));
  BERTH_RETURN_IF_ERROR(Expect('[', "before the tuple index"));
  int64_t index;
  BERTH_RETURN_IF_ERROR(LexInt64(&index, "for the tuple index"));
  if (index < 0 || index > INT32_MAX) return Error("tuple index is out of range");
  BERTH_RETURN_IF_ERROR(Expect(']', "after the tuple index"));
  BERTH_RETURN_IF_ERROR(AddAttr(st, "index", b_.Int(index, ElementType::kSI32)));
  BERTH_RETURN_IF_ERROR(ParseOptionalAttrDict(st));
  return ParseTypeClause(st, TypePolicy::kResultOnly, num_results);
}

// stablehlo.custom_call @target(%a, %b) {attrs} : (A, B) -> R
Status Parser::ParsePrettyCustomCall(OpState& st, size_t num_results) {
  std::string target;
  if (TryConsume('@')) {
    if (PeekAt(0) == '"') {
      BERTH_RETURN_IF_ERROR(LexString(&target));
    } else {
      target = std::string(LexSuffixId());
    }
  } else if (Peek() == '"') {
    BERTH_RETURN_IF_ERROR(LexString(&target));
  } else {
    return Error("expected '@target' after stablehlo.custom_call");
  }
  if (target.empty()) return Error("expected a custom call target name");
  BERTH_RETURN_IF_ERROR(ParseOperandList(st, "custom call operands"));
  BERTH_RETURN_IF_ERROR(ParseOptionalAttrDict(st));
  BERTH_RETURN_IF_ERROR(AddAttr(st, "call_target_name", b_.Str(target)));
  return ParseTypeClause(st, TypePolicy::kSame, num_results);
}

// stablehlo.composite "name" %a, %b {attrs} : (A, B) -> R
Status Parser::ParsePrettyComposite(OpState& st, size_t num_results) {
  std::string name;
  BERTH_RETURN_IF_ERROR(LexString(&name));
  BERTH_RETURN_IF_ERROR(AddAttr(st, "name", b_.Str(name)));
  if (Peek() == '%') {
    do {
      BERTH_RETURN_IF_ERROR(ParseOperand(st));
    } while (TryConsume(','));
  }
  BERTH_RETURN_IF_ERROR(ParseOptionalAttrDict(st));
  return ParseTypeClause(st, TypePolicy::kSame, num_results);
}

// func.call @f(%a) {attrs} : (A) -> R
Status Parser::ParsePrettyCall(OpState& st, size_t num_results) {
  if (Peek() != '@') return Error("expected '@callee'");
  const Attribute* callee;
  BERTH_RETURN_IF_ERROR(ParseAttribute(&callee));
  BERTH_RETURN_IF_ERROR(AddAttr(st, "callee", callee));
  BERTH_RETURN_IF_ERROR(ParseOperandList(st, "call operands"));
  BERTH_RETURN_IF_ERROR(ParseOptionalAttrDict(st));
  BERTH_RETURN_IF_ERROR(Expect(':', "and the call's function type"));
  SkipWs();
  size_t type_pos = pos_;
  Type type;
  BERTH_RETURN_IF_ERROR(ParseType(&type));
  if (!type.IsFunction()) return ErrorAt(type_pos, "expected a function type for the call");
  if (type.inputs().size() != st.operands.size()) {
    return ErrorAt(type_pos, "the call's function type has " +
                                 std::to_string(type.inputs().size()) + " inputs but " +
                                 std::to_string(st.operands.size()) + " operands are passed");
  }
  BERTH_RETURN_IF_ERROR(CheckOperandTypes(st, type.inputs()));
  st.result_types.assign(type.results().begin(), type.results().end());
  (void)num_results;
  return OkStatus();
}

// check.expect_eq_const %x, dense<...> : T [, tolerance = 0.1] {attrs}
Status Parser::ParsePrettyCheckConst(OpState& st) {
  BERTH_RETURN_IF_ERROR(ParseOperand(st));
  BERTH_RETURN_IF_ERROR(Expect(',', "before the expected value"));
  SkipWs();
  size_t p = pos_;
  const Attribute* value;
  BERTH_RETURN_IF_ERROR(ParseAttribute(&value));
  if (!value->isa<DenseElementsAttr>()) return ErrorAt(p, "expected a dense<...> literal");
  BERTH_RETURN_IF_ERROR(AddAttr(st, "value", value));
  while (TryConsume(',')) {
    SkipWs();
    size_t key_pos = pos_;
    std::string_view key = LexBareId();
    if (key.empty() || !TryConsume('=')) return ErrorAt(key_pos, "expected 'name = value'");
    std::vector<int64_t> a, b, c, d;
    bool dot_dims = false;
    BERTH_RETURN_IF_ERROR(ParseKeywordItem(st, key, key_pos, &a, &b, &c, &d, &dot_dims));
    if (dot_dims) return ErrorAt(key_pos, "unexpected dot dimensions");
  }
  return ParseOptionalAttrDict(st);
}

// sdy.sharding_constraint %x <@mesh, [{"x"}, {}]> : T
Status Parser::ParsePrettySharding(OpState& st, size_t num_results) {
  BERTH_RETURN_IF_ERROR(ParseOperand(st));
  if (Peek() != '<') return Error("expected '<' to start the sharding");
  size_t start = pos_;
  size_t end;
  BERTH_RETURN_IF_ERROR(ScanBalanced(&end));
  pos_ = end;
  BERTH_RETURN_IF_ERROR(AddAttr(
      st, "sharding",
      b_.Make<OpaqueAttr>("#sdy.sharding" + std::string(src_.substr(start, end - start)))));
  BERTH_RETURN_IF_ERROR(ParseOptionalAttrDict(st));
  return ParseTypeClause(st, TypePolicy::kSame, num_results);
}

}  // namespace berth::stablehlo::detail
