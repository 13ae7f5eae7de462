// Pretty forms with regions or nested syntax: reduce, while, convolution,
// chlo.top_k, chlo.scan and sdy.manual_computation.
#include "src/parser_impl.hpp"

namespace berth::stablehlo::detail {

// `%name: type [loc(...)]`, `what` naming the argument in errors.
Status Parser::ParseTypedArgument(std::string_view what, std::string_view* name, Type* type) {
  BERTH_RETURN_IF_ERROR(LexValueName("a " + std::string(what), name));
  BERTH_RETURN_IF_ERROR(Expect(':', "and the " + std::string(what) + " type"));
  BERTH_RETURN_IF_ERROR(ParseType(type));
  return SkipTrailingLocation();
}

// stablehlo.convolution(%lhs, %rhs) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
//     window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1],
//               rhs_dilate = [1, 1], reverse = [false, false]} {attrs} : (A, B) -> R
Status Parser::ParsePrettyConvolution(OpState& st, size_t num_results) {
  BERTH_RETURN_IF_ERROR(ParseOperandList(st, "convolution operands"));
  BERTH_RETURN_IF_ERROR(ExpectKeyword("dim_numbers", "after the convolution operands"));
  BERTH_RETURN_IF_ERROR(Expect('=', "after 'dim_numbers'"));
  ConvDimensionNumbers dims;
  BERTH_RETURN_IF_ERROR(ParseConvDimsCompact(&dims));
  BERTH_RETURN_IF_ERROR(
      AddAttr(st, "dimension_numbers", b_.Make<ConvDimensionNumbersAttr>(std::move(dims))));
  if (TryConsume(',')) {
    BERTH_RETURN_IF_ERROR(ExpectKeyword("window", "after 'dim_numbers'"));
    BERTH_RETURN_IF_ERROR(Expect('=', "after 'window'"));
    BERTH_RETURN_IF_ERROR(Expect('{', "to start the window"));
    if (!TryConsume('}')) {
      do {
        SkipWs();
        size_t key_pos = pos_;
        std::string_view key = LexBareId();
        BERTH_RETURN_IF_ERROR(Expect('=', "in the convolution window"));
        std::string context = "for the window's '" + std::string(key) + "'";
        if (key == "stride" || key == "lhs_dilate" || key == "rhs_dilate") {
          std::vector<int64_t> v;
          BERTH_RETURN_IF_ERROR(ParseIntList(&v, context));
          std::string_view name = key == "stride"       ? "window_strides"
                                  : key == "lhs_dilate" ? "lhs_dilation"
                                                        : "rhs_dilation";
          BERTH_RETURN_IF_ERROR(AddAttr(st, name, MakeI64Array(std::move(v))));
        } else if (key == "pad") {
          BERTH_RETURN_IF_ERROR(Expect('[', context));
          std::vector<int64_t> flat;
          int64_t rows = 0;
          if (!TryConsume(']')) {
            do {
              std::vector<int64_t> pair;
              BERTH_RETURN_IF_ERROR(ParseIntList(&pair, context));
              if (pair.size() != 2) return Error("each window padding entry needs [low, high]");
              flat.insert(flat.end(), pair.begin(), pair.end());
              ++rows;
            } while (TryConsume(','));
            BERTH_RETURN_IF_ERROR(Expect(']', context));
          }
          BERTH_RETURN_IF_ERROR(AddAttr(st, "padding", MakeI64Matrix(flat, rows, 2)));
        } else if (key == "reverse") {
          BERTH_RETURN_IF_ERROR(Expect('[', context));
          std::vector<int64_t> v;
          if (!TryConsume(']')) {
            do {
              std::string_view word = PeekBareId();
              if (word == "true" || word == "false") {
                pos_ += word.size();
                v.push_back(word == "true");
              } else {
                int64_t x;
                BERTH_RETURN_IF_ERROR(LexInt64(&x, context));
                if (x != 0 && x != 1) return Error("window reversal values must be 0 or 1");
                v.push_back(x);
              }
            } while (TryConsume(','));
            BERTH_RETURN_IF_ERROR(Expect(']', context));
          }
          BERTH_RETURN_IF_ERROR(AddAttr(
              st, "window_reversal",
              b_.Make<DenseArrayAttr>(ElementType::kI1, std::move(v), std::vector<double>{})));
        } else {
          return ErrorAt(key_pos, "unknown convolution window field '" + std::string(key) + "'");
        }
      } while (TryConsume(','));
      BERTH_RETURN_IF_ERROR(Expect('}', "to close the window"));
    }
  }
  BERTH_RETURN_IF_ERROR(ParseOptionalAttrDict(st));
  return ParseTypeClause(st, TypePolicy::kSame, num_results);
}

// stablehlo.reduce(%x init: %i), (%y init: %j) applies stablehlo.add across dimensions = [1]
//     {attrs} : (X, Y, I, J) -> (R, S)
// stablehlo.reduce(%x init: %i) across dimensions = [1] : (X, I) -> R
//     reducer(%a: T, %b: T) { ... }
Status Parser::ParsePrettyReduce(OpState& st, size_t num_results) {
  std::vector<Value*> inputs, inits;
  std::vector<size_t> input_pos, init_pos;
  do {
    BERTH_RETURN_IF_ERROR(Expect('(', "to start a reduce input"));
    OpState tmp;
    BERTH_RETURN_IF_ERROR(ParseOperand(tmp));
    BERTH_RETURN_IF_ERROR(ExpectKeyword("init", "after the reduce input"));
    BERTH_RETURN_IF_ERROR(Expect(':', "after 'init'"));
    BERTH_RETURN_IF_ERROR(ParseOperand(tmp));
    BERTH_RETURN_IF_ERROR(Expect(')', "to close a reduce input"));
    inputs.push_back(tmp.operands[0]);
    inits.push_back(tmp.operands[1]);
    input_pos.push_back(tmp.operand_pos[0]);
    init_pos.push_back(tmp.operand_pos[1]);
  } while (TryConsume(','));
  st.operands = inputs;
  st.operands.insert(st.operands.end(), inits.begin(), inits.end());
  st.operand_pos = input_pos;
  st.operand_pos.insert(st.operand_pos.end(), init_pos.begin(), init_pos.end());
  std::optional<OpKind> applies;
  size_t applies_pos = 0;
  if (TryKeyword("applies")) {
    SkipWs();
    applies_pos = pos_;
    std::string_view name = LexBareId();
    applies = LookupOpKind(name);
    if (!applies) return ErrorAt(applies_pos, "unknown operation '" + std::string(name) + "'");
    if (inputs.size() != 1) {
      return ErrorAt(applies_pos, "'applies' takes a single reduce input; write a reducer region");
    }
  }
  BERTH_RETURN_IF_ERROR(ExpectKeyword("across", "in stablehlo.reduce"));
  BERTH_RETURN_IF_ERROR(ExpectKeyword("dimensions", "after 'across'"));
  BERTH_RETURN_IF_ERROR(Expect('=', "after 'dimensions'"));
  std::vector<int64_t> dims;
  BERTH_RETURN_IF_ERROR(ParseIntList(&dims, "for the reduce dimensions"));
  BERTH_RETURN_IF_ERROR(AddAttr(st, "dimensions", MakeI64Array(std::move(dims))));
  BERTH_RETURN_IF_ERROR(ParseOptionalAttrDict(st));
  BERTH_RETURN_IF_ERROR(ParseTypeClause(st, TypePolicy::kSame, num_results));
  if (applies) {
    // The body: ^bb0(%a: I, %b: I): %r = <op> %a, %b : I; stablehlo.return %r
    Type t = inits[0]->type();
    if (!t.IsTensor()) return ErrorAt(init_pos[0], "the reduce init value must be a tensor");
    Type scalar = b_.types().Tensor(t.element_type(), {}, {}, t.opaque_text());
    Region* region = b_.NewRegion();
    Block* block = b_.NewBlock(region);
    Value* a = b_.AddArgument(block, scalar, {});
    Value* b = b_.AddArgument(block, scalar, {});
    Location loc = LocationAt(applies_pos);
    Value* operands[2] = {a, b};
    Operation* body_op = b_.NewOp(*applies, loc, operands, std::span<const Type>(&scalar, 1), {}, {}, {});
    b_.Append(block, body_op);
    Value* result = body_op->result(0);
    Operation* ret = b_.NewOp(OpKind::kReturn, loc, std::span<Value* const>(&result, 1), {}, {}, {}, {});
    b_.Append(block, ret);
    st.regions.push_back(region);
    return OkStatus();
  }
  BERTH_RETURN_IF_ERROR(ExpectKeyword("reducer", "(or 'applies') in stablehlo.reduce"));
  size_t n = inputs.size();
  std::vector<Type> types(2 * n);
  std::vector<std::string_view> names(2 * n);
  for (size_t i = 0; i < n; ++i) {
    BERTH_RETURN_IF_ERROR(Expect('(', "to start a reducer argument pair"));
    for (size_t j = 0; j < 2; ++j) {
      if (j) BERTH_RETURN_IF_ERROR(Expect(',', "between reducer arguments"));
      BERTH_RETURN_IF_ERROR(ParseTypedArgument("reducer argument", &names[i + j * n], &types[i + j * n]));
    }
    BERTH_RETURN_IF_ERROR(Expect(')', "to close a reducer argument pair"));
  }
  Region* region;
  BERTH_RETURN_IF_ERROR(ParseRegion(&region, types, names));
  st.regions.push_back(region);
  return OkStatus();
}

// stablehlo.while(%iterArg = %init, ...) : T, ... [attributes {...}]
//     cond { ... } do { ... }
Status Parser::ParsePrettyWhile(OpState& st, size_t num_results) {
  BERTH_RETURN_IF_ERROR(Expect('(', "to start the while arguments"));
  std::vector<std::string_view> names;
  if (!TryConsume(')')) {
    do {
      std::string_view name;
      BERTH_RETURN_IF_ERROR(LexValueName("an iteration argument (%name = %value)", &name));
      names.push_back(name);
      BERTH_RETURN_IF_ERROR(Expect('=', "after the iteration argument name"));
      BERTH_RETURN_IF_ERROR(ParseOperand(st));
    } while (TryConsume(','));
    BERTH_RETURN_IF_ERROR(Expect(')', "to close the while arguments"));
  }
  std::vector<Type> types;
  if (TryConsume(':')) {
    SkipWs();
    size_t types_pos = pos_;
    if (!names.empty()) BERTH_RETURN_IF_ERROR(ParseTypeList(&types));
    if (types.size() != names.size()) {
      return ErrorAt(types_pos, "expected one type per while argument");
    }
    BERTH_RETURN_IF_ERROR(CheckOperandTypes(st, types));
  } else if (!names.empty()) {
    return Error("expected ':' and the while argument types");
  }
  if (TryKeyword("attributes")) BERTH_RETURN_IF_ERROR(ParseAttrDict(&st.attrs));
  BERTH_RETURN_IF_ERROR(ExpectKeyword("cond", "in stablehlo.while"));
  Region* cond;
  BERTH_RETURN_IF_ERROR(ParseRegion(&cond, types, names));
  BERTH_RETURN_IF_ERROR(ExpectKeyword("do", "after the while condition"));
  Region* body;
  BERTH_RETURN_IF_ERROR(ParseRegion(&body, types, names));
  st.regions = {cond, body};
  st.result_types = types;
  (void)num_results;
  return OkStatus();
}

// stablehlo.if %pred -> (T, ...) { ... } else { ... }
Status Parser::ParsePrettyIf(OpState& st, size_t num_results) {
  BERTH_RETURN_IF_ERROR(ParseOperand(st));
  if (TryConsumeArrow()) BERTH_RETURN_IF_ERROR(ParseFunctionResults(&st.result_types));
  Region* then_region;
  BERTH_RETURN_IF_ERROR(ParseRegion(&then_region));
  BERTH_RETURN_IF_ERROR(ExpectKeyword("else", "after the true branch of stablehlo.if"));
  Region* else_region;
  BERTH_RETURN_IF_ERROR(ParseRegion(&else_region));
  st.regions = {then_region, else_region};
  (void)num_results;
  return OkStatus();
}

// chlo.top_k(%x, k = 4) {attrs} : T -> (V, I)
Status Parser::ParsePrettyTopK(OpState& st, size_t num_results) {
  BERTH_RETURN_IF_ERROR(Expect('(', "after chlo.top_k"));
  BERTH_RETURN_IF_ERROR(ParseOperand(st));
  BERTH_RETURN_IF_ERROR(Expect(',', "before 'k ='"));
  BERTH_RETURN_IF_ERROR(ExpectKeyword("k", "in chlo.top_k"));
  BERTH_RETURN_IF_ERROR(Expect('=', "after 'k'"));
  int64_t k;
  BERTH_RETURN_IF_ERROR(LexInt64(&k, "for k"));
  BERTH_RETURN_IF_ERROR(AddAttr(st, "k", b_.Int(k, ElementType::kSI64)));
  BERTH_RETURN_IF_ERROR(Expect(')', "to close chlo.top_k"));
  BERTH_RETURN_IF_ERROR(ParseOptionalAttrDict(st));
  return ParseTypeClause(st, TypePolicy::kSame, num_results);
}

// chlo.scan(%xs) inits(%inits) dimension=0 [attributes {...}] { region } : (..) -> (..)
Status Parser::ParsePrettyScan(OpState& st, size_t num_results) {
  BERTH_RETURN_IF_ERROR(Expect('(', "after chlo.scan"));
  if (!TryConsume(')')) {
    do {
      BERTH_RETURN_IF_ERROR(ParseOperand(st));
    } while (TryConsume(','));
    BERTH_RETURN_IF_ERROR(Expect(')', "to close the scan inputs"));
  }
  const int64_t num_inputs = static_cast<int64_t>(st.operands.size());
  if (TryKeyword("inits")) {
    BERTH_RETURN_IF_ERROR(Expect('(', "after 'inits'"));
    if (!TryConsume(')')) {
      do {
        BERTH_RETURN_IF_ERROR(ParseOperand(st));
      } while (TryConsume(','));
      BERTH_RETURN_IF_ERROR(Expect(')', "to close the scan inits"));
    }
  }
  BERTH_RETURN_IF_ERROR(ExpectKeyword("dimension", "in chlo.scan"));
  BERTH_RETURN_IF_ERROR(Expect('=', "after 'dimension'"));
  int64_t dim;
  BERTH_RETURN_IF_ERROR(LexInt64(&dim, "for the scan dimension"));
  BERTH_RETURN_IF_ERROR(AddAttr(st, "dimension", b_.Int(dim, ElementType::kSI64)));
  // How the operands split into inputs and inits, as the generic form says it.
  const int64_t num_inits = static_cast<int64_t>(st.operands.size()) - num_inputs;
  BERTH_RETURN_IF_ERROR(AddAttr(st, "operandSegmentSizes",
                                b_.Make<DenseArrayAttr>(ElementType::kSI32,
                                                        std::vector<int64_t>{num_inputs, num_inits},
                                                        std::vector<double>{})));
  if (TryKeyword("attributes")) BERTH_RETURN_IF_ERROR(ParseAttrDict(&st.attrs));
  Region* body;
  BERTH_RETURN_IF_ERROR(ParseRegion(&body));
  st.regions.push_back(body);
  return ParseTypeClause(st, TypePolicy::kSame, num_results);
}

// sdy.manual_computation(%x, ...) in_shardings=[<@m, [{"x"}, {}]>, ...]
//     out_shardings=[<@m, [...]>, ...] manual_axes={"x", ...}
//     (%arg1: T, ...) { ... sdy.return %v, ... : R, ... } : (Ts) -> Rs
// The shardings and axes are kept under their generic names as the generic
// form writes them: in_shardings = #sdy.sharding_per_value<[...]>,
// manual_axes = #sdy<manual_axes{...}>.
Status Parser::ParsePrettyManualComputation(OpState& st, size_t num_results) {
  BERTH_RETURN_IF_ERROR(Expect('(', "after sdy.manual_computation"));
  if (!TryConsume(')')) {
    do {
      BERTH_RETURN_IF_ERROR(ParseOperand(st));
    } while (TryConsume(','));
    BERTH_RETURN_IF_ERROR(Expect(')', "to close the manual computation's operands"));
  }
  auto bracketed = [&](std::string_view key, char open, std::string_view prefix,
                       std::string_view suffix) -> Status {
    BERTH_RETURN_IF_ERROR(ExpectKeyword(key, "in sdy.manual_computation"));
    BERTH_RETURN_IF_ERROR(Expect('=', "after '" + std::string(key) + "'"));
    SkipWs();
    if (Peek() != open) return Error("expected '" + std::string(1, open) + "' after '" + std::string(key) + " ='");
    size_t start = pos_;
    size_t end;
    BERTH_RETURN_IF_ERROR(ScanBalanced(&end));
    pos_ = end;
    return AddAttr(st, key,
                   b_.Make<OpaqueAttr>(std::string(prefix) + std::string(src_.substr(start, end - start)) +
                                       std::string(suffix)));
  };
  BERTH_RETURN_IF_ERROR(bracketed("in_shardings", '[', "#sdy.sharding_per_value<", ">"));
  BERTH_RETURN_IF_ERROR(bracketed("out_shardings", '[', "#sdy.sharding_per_value<", ">"));
  BERTH_RETURN_IF_ERROR(bracketed("manual_axes", '{', "#sdy<manual_axes", ">"));
  BERTH_RETURN_IF_ERROR(Expect('(', "to start the manual computation's block arguments"));
  std::vector<Type> types;
  std::vector<std::string_view> names;
  if (!TryConsume(')')) {
    do {
      BERTH_RETURN_IF_ERROR(ParseTypedArgument("block argument", &names.emplace_back(), &types.emplace_back()));
    } while (TryConsume(','));
    BERTH_RETURN_IF_ERROR(Expect(')', "to close the block arguments"));
  }
  Region* body;
  BERTH_RETURN_IF_ERROR(ParseRegion(&body, types, names));
  st.regions.push_back(body);
  BERTH_RETURN_IF_ERROR(ParseOptionalAttrDict(st));
  return ParseTypeClause(st, TypePolicy::kSame, num_results);
}

}  // namespace berth::stablehlo::detail
