// Parsing operations in blocks: result lists, the generic op form, regions
// and blocks, SSA value scopes, and the `: types` clause of pretty forms.
#include "src/parser_impl.hpp"

namespace berth::stablehlo::detail {
namespace {

struct Leave {
  Parser* p;
  ~Leave() { p->LeaveNesting(); }
};

}  // namespace

void Parser::PushScope() { scope_marks_.push_back(scope_names_.size()); }

void Parser::PopScope() {
  size_t mark = scope_marks_.back();
  scope_marks_.pop_back();
  for (size_t i = mark; i < scope_names_.size(); ++i) values_.Erase(scope_names_[i]);
  scope_names_.resize(mark);
}

Status Parser::DefineValue(std::string_view name, size_t pos, Value* value, Value* const* group,
                           uint32_t count) {
  if (!values_.Insert(name, ValueEntry{value, group, count})) {
    return ErrorAt(pos, "redefinition of SSA value '%" + std::string(name) + "'");
  }
  scope_names_.push_back(name);
  return OkStatus();
}

// `%name` defining a value; `what` ("a result", ...) names it in errors.
Status Parser::LexValueName(std::string_view what, std::string_view* name) {
  SkipWs();
  size_t start = pos_;
  if (Peek() != '%') return Error("expected '%name' for " + std::string(what));
  ++pos_;
  *name = LexSuffixId();
  if (name->empty()) return ErrorAt(start, "expected a name after '%' for " + std::string(what));
  return OkStatus();
}

Status Parser::ParseValueUse(Value** out) {
  SkipWs();
  size_t start = pos_;
  if (Peek() != '%') return Error("expected an SSA value ('%name')");
  ++pos_;
  std::string_view name = LexSuffixId();
  if (name.empty()) return ErrorAt(start, "expected a value name after '%'");
  int64_t index = -1;
  if (PeekAt(0) == '#') {
    ++pos_;
    size_t e = pos_;
    while (e < src_.size() && src_[e] >= '0' && src_[e] <= '9') ++e;
    uint64_t v;
    if (e == pos_ || !ParseUnsigned(src_.substr(pos_, e - pos_), false, &v) || v > UINT32_MAX) {
      return Error("expected a result number after '#'");
    }
    pos_ = e;
    index = static_cast<int64_t>(v);
  }
  const ValueEntry* found = values_.Lookup(name);
  if (!found) return ErrorAt(start, "use of undefined value '%" + std::string(name) + "'");
  const ValueEntry& entry = *found;
  uint32_t i = index < 0 ? 0 : static_cast<uint32_t>(index);
  if (i >= entry.count) {
    return ErrorAt(start, "'%" + std::string(name) + "' has only " + std::to_string(entry.count) +
                              " result(s)");
  }
  if (entry.group) {
    if (index < 0 && entry.count > 1) {
      return ErrorAt(start, "'%" + std::string(name) + "' names " + std::to_string(entry.count) +
                                " results; use '%" + std::string(name) + "#N'");
    }
    *out = entry.group[i];
  } else {
    *out = entry.value;
  }
  return OkStatus();
}

Status Parser::ParseOperand(OpState& st) {
  SkipWs();
  size_t p = pos_;
  Value* v;
  BERTH_RETURN_IF_ERROR(ParseValueUse(&v));
  st.operands.push_back(v);
  st.operand_pos.push_back(p);
  return OkStatus();
}

// `(%a, %b)`: the operands of `what` ("call operands", ...) in parentheses.
Status Parser::ParseOperandList(OpState& st, std::string_view what) {
  BERTH_RETURN_IF_ERROR(Expect('(', "to start the " + std::string(what)));
  if (TryConsume(')')) return OkStatus();
  do {
    BERTH_RETURN_IF_ERROR(ParseOperand(st));
  } while (TryConsume(','));
  return Expect(')', "to close the " + std::string(what));
}

Status Parser::ParseBlockBody(Block* block) {
  while (true) {
    char c = Peek();
    if (c == '}') {
      ++pos_;
      return OkStatus();
    }
    if (c == '\0' && pos_ >= src_.size()) return Error("expected '}' to close the region");
    if (c == '^') return Error("regions with more than one block are not supported");
    BERTH_RETURN_IF_ERROR(ParseOperation(block));
  }
}

Status Parser::ParseOperation(Block* block) {
  SkipWs();
  if (op_depth_ == op_states_.size()) {
    op_states_.push_back(std::make_unique<OpState>());
    result_names_.push_back(std::make_unique<std::vector<ResultName>>());
  }
  OpState& st = *op_states_[op_depth_];
  std::vector<ResultName>& names = *result_names_[op_depth_];
  ++op_depth_;
  struct Release {
    size_t& depth;
    ~Release() { --depth; }
  } release{op_depth_};
  st.Clear();
  names.clear();
  size_t num_results = 0;
  if (Peek() == '%') {
    do {
      SkipWs();
      size_t name_pos = pos_;
      std::string_view name;
      BERTH_RETURN_IF_ERROR(LexValueName("a result", &name));
      uint32_t count = 1;
      if (PeekAt(0) == ':') {
        ++pos_;
        int64_t n;
        BERTH_RETURN_IF_ERROR(LexInt64(&n, "for the result count"));
        if (n < 1 || n > 65536) return ErrorAt(name_pos, "invalid result count");
        count = static_cast<uint32_t>(n);
      }
      names.push_back({name, name_pos, count});
      num_results += count;
    } while (TryConsume(','));
    BERTH_RETURN_IF_ERROR(Expect('=', "after the result list"));
  }
  SkipWs();
  st.pos = pos_;
  if (Peek() == '"') {
    std::string name;
    BERTH_RETURN_IF_ERROR(LexString(&name));
    std::optional<OpKind> kind;
    if (name.find('.') != std::string::npos) kind = LookupOpKind(name);
    if (!kind || *kind == OpKind::kSdyMesh) {
      return ErrorAt(st.pos, "unknown operation '" + name + "'");
    }
    st.kind = *kind;
    BERTH_RETURN_IF_ERROR(ParseGenericOp(st));
  } else {
    std::string_view name = LexBareId();
    if (name.empty()) return ErrorAt(st.pos, "expected an operation");
    std::optional<OpKind> kind = LookupOpKind(name);
    if (!kind) return ErrorAt(st.pos, "unknown operation '" + std::string(name) + "'");
    if (*kind == OpKind::kSdyMesh) return ErrorAt(st.pos, "sdy.mesh belongs at module level");
    st.kind = *kind;
    BERTH_RETURN_IF_ERROR(ParsePrettyOp(st, num_results));
  }
  BERTH_RETURN_IF_ERROR(SkipTrailingLocation());
  return FinishOp(st, block, names, num_results);
}

Status Parser::FinishOp(OpState& st, Block* block, std::span<const ResultName> names,
                        size_t num_results) {
  if (st.result_types.size() != num_results) {
    return ErrorAt(st.pos, "operation defines " + std::to_string(st.result_types.size()) +
                               " results but was provided " + std::to_string(num_results) +
                               " to bind");
  }
  BERTH_RETURN_IF_ERROR(Canonicalize(st));
  std::string_view dup = SortAttributes(st.attrs);
  if (!dup.empty()) return ErrorAt(st.pos, "duplicate attribute '" + std::string(dup) + "'");
  std::string_view first_name = names.empty() ? std::string_view() : b_.Save(names[0].name);
  Operation* op = b_.NewOp(st.kind, LocationAt(st.pos), st.operands, st.result_types, st.attrs,
                           st.regions, first_name);
  b_.Append(block, op);
  uint32_t offset = 0;
  for (size_t g = 0; g < names.size(); ++g) {
    const ResultName& n = names[g];
    if (g > 0) {
      std::string_view saved = b_.Save(n.name);
      for (uint32_t i = 0; i < n.count; ++i) b_.SetName(op->result(offset + i), saved);
    }
    if (n.count == 1) {
      BERTH_RETURN_IF_ERROR(DefineValue(n.name, n.pos, op->result(offset), nullptr, 1));
    } else {
      BERTH_RETURN_IF_ERROR(DefineValue(n.name, n.pos, nullptr, op->results().data() + offset,
                                        n.count));
    }
    offset += n.count;
  }
  return OkStatus();
}

// "dialect.op"(%a, %b) <{props}> ({regions}) {attrs} : (A, B) -> R
Status Parser::ParseGenericOp(OpState& st) {
  BERTH_RETURN_IF_ERROR(ParseOperandList(st, "operand list"));
  if (Peek() == '[') return Error("successor blocks (branches) are not supported");
  if (Peek() == '<') {
    if (PeekAt(1) != '{' && !(PeekAt(1) == ' ' || PeekAt(1) == '\n')) {
      return Error("expected '<{' to start the properties");
    }
    ++pos_;
    if (Peek() != '{') return Error("expected '{' after '<' for the properties");
    BERTH_RETURN_IF_ERROR(ParseAttrDict(&st.attrs));
    BERTH_RETURN_IF_ERROR(Expect('>', "to close the properties"));
  }
  if (Peek() == '(') BERTH_RETURN_IF_ERROR(ParseRegionList(&st.regions));
  if (Peek() == '{') BERTH_RETURN_IF_ERROR(ParseAttrDict(&st.attrs));
  BERTH_RETURN_IF_ERROR(Expect(':', "and the op's function type"));
  SkipWs();
  size_t type_pos = pos_;
  Type type;
  BERTH_RETURN_IF_ERROR(ParseType(&type));
  if (!type.IsFunction()) return ErrorAt(type_pos, "expected a function type '(...) -> ...'");
  std::span<const Type> inputs = type.inputs();
  if (inputs.size() != st.operands.size()) {
    return ErrorAt(type_pos, "the function type has " + std::to_string(inputs.size()) +
                                 " inputs but the op has " + std::to_string(st.operands.size()) +
                                 " operands");
  }
  BERTH_RETURN_IF_ERROR(CheckOperandTypes(st, inputs));
  st.result_types.assign(type.results().begin(), type.results().end());
  return OkStatus();
}

Status Parser::ParseRegionList(std::vector<Region*>* out) {
  BERTH_RETURN_IF_ERROR(Expect('(', "to start the region list"));
  do {
    Region* r;
    BERTH_RETURN_IF_ERROR(ParseRegion(&r));
    out->push_back(r);
  } while (TryConsume(','));
  return Expect(')', "to close the region list");
}

Status Parser::ParseRegion(Region** out, std::span<const Type> arg_types,
                           std::span<const std::string_view> arg_names) {
  BERTH_RETURN_IF_ERROR(EnterNesting());
  Leave leave{this};
  BERTH_RETURN_IF_ERROR(Expect('{', "to start a region"));
  Region* region = b_.NewRegion();
  *out = region;
  if (Peek() == '}' && arg_types.empty()) {
    ++pos_;
    return OkStatus();
  }
  PushScope();
  Block* block = b_.NewBlock(region);
  for (size_t i = 0; i < arg_types.size(); ++i) {
    Value* v = b_.AddArgument(block, arg_types[i], b_.Save(arg_names[i]));
    BERTH_RETURN_IF_ERROR(DefineValue(arg_names[i], pos_, v, nullptr, 1));
  }
  if (Peek() == '^') {
    size_t label_pos = pos_;
    ++pos_;
    if (LexSuffixId().empty()) return ErrorAt(label_pos, "expected a block name after '^'");
    if (TryConsume('(')) {
      if (!arg_types.empty()) {
        return ErrorAt(label_pos, "this region's block arguments are given by the op");
      }
      if (!TryConsume(')')) {
        do {
          SkipWs();
          size_t arg_pos = pos_;
          std::string_view name;
          BERTH_RETURN_IF_ERROR(LexValueName("a block argument", &name));
          BERTH_RETURN_IF_ERROR(Expect(':', "and the block argument type"));
          Type t;
          BERTH_RETURN_IF_ERROR(ParseType(&t));
          BERTH_RETURN_IF_ERROR(SkipTrailingLocation());
          Value* v = b_.AddArgument(block, t, b_.Save(name));
          BERTH_RETURN_IF_ERROR(DefineValue(name, arg_pos, v, nullptr, 1));
        } while (TryConsume(','));
        BERTH_RETURN_IF_ERROR(Expect(')', "to close the block arguments"));
      }
    }
    BERTH_RETURN_IF_ERROR(Expect(':', "after the block label"));
  }
  BERTH_RETURN_IF_ERROR(ParseBlockBody(block));
  PopScope();
  return OkStatus();
}

Status Parser::CheckOperandTypes(const OpState& st, std::span<const Type> types) {
  for (size_t i = 0; i < types.size() && i < st.operands.size(); ++i) {
    Type actual = st.operands[i]->type();
    if (actual != types[i]) {
      return ErrorAt(st.operand_pos[i], "operand #" + std::to_string(i) + " has type " +
                                            actual.ToString() + " but the op's types say " +
                                            types[i].ToString());
    }
  }
  return OkStatus();
}

// `: T`, `: T1, T2`, `: (A, B) -> R` or `: A -> R` after a pretty form.
Status Parser::ParseTypeClause(OpState& st, TypePolicy policy, size_t num_results) {
  BERTH_RETURN_IF_ERROR(Expect(':', "and the op's types"));
  SkipWs();
  size_t types_pos = pos_;
  std::vector<Type> types;
  BERTH_RETURN_IF_ERROR(ParseTypeList(&types));
  // `A -> R` and `A, B -> R` (CHLO's next_after, polygamma, zeta) are
  // function types whose inputs are written without parentheses.
  if (!types.empty() && !(types.size() == 1 && types[0].IsFunction()) && TryConsumeArrow()) {
    for (const Type& t : types) {
      if (t.IsFunction()) return ErrorAt(types_pos, "expected operand types before '->'");
    }
    std::vector<Type> results;
    BERTH_RETURN_IF_ERROR(ParseFunctionResults(&results));
    std::vector<Type> inputs = std::move(types);
    types.assign(1, b_.types().Function(inputs, results));
  }
  if (types.size() == 1 && types[0].IsFunction()) {
    std::span<const Type> inputs = types[0].inputs();
    if (inputs.size() != st.operands.size()) {
      return ErrorAt(types_pos, "the function type has " + std::to_string(inputs.size()) +
                                    " inputs but the op has " +
                                    std::to_string(st.operands.size()) + " operands");
    }
    BERTH_RETURN_IF_ERROR(CheckOperandTypes(st, inputs));
    st.result_types.assign(types[0].results().begin(), types[0].results().end());
    return OkStatus();
  }
  auto expect_count = [&](size_t n) -> Status {
    if (types.size() == n) return OkStatus();
    return ErrorAt(types_pos, "expected " + std::to_string(n) + " type(s) here, found " +
                                  std::to_string(types.size()));
  };
  // One type stands for one result; more results need a function type.
  if (num_results > 1 && (policy == TypePolicy::kSame || policy == TypePolicy::kCompare ||
                          policy == TypePolicy::kSelect)) {
    return ErrorAt(types_pos, "an op with " + std::to_string(num_results) +
                                  " results needs a function type '(...) -> (...)'");
  }
  switch (policy) {
    case TypePolicy::kSame: {
      BERTH_RETURN_IF_ERROR(expect_count(1));
      std::vector<Type> all(st.operands.size(), types[0]);
      BERTH_RETURN_IF_ERROR(CheckOperandTypes(st, all));
      st.result_types.assign(num_results, types[0]);
      return OkStatus();
    }
    case TypePolicy::kCompare: {
      BERTH_RETURN_IF_ERROR(expect_count(1));
      std::vector<Type> all(st.operands.size(), types[0]);
      BERTH_RETURN_IF_ERROR(CheckOperandTypes(st, all));
      if (!types[0].IsTensor()) return ErrorAt(types_pos, "expected a tensor type");
      st.result_types.assign(num_results,
                             b_.types().Tensor(ElementType::kI1, types[0].shape(), types[0].bounds()));
      return OkStatus();
    }
    case TypePolicy::kSelect: {
      if (types.size() == 1) {
        std::vector<Type> all(st.operands.size(), types[0]);
        BERTH_RETURN_IF_ERROR(CheckOperandTypes(st, all));
        st.result_types.assign(num_results, types[0]);
        return OkStatus();
      }
      BERTH_RETURN_IF_ERROR(expect_count(2));
      std::vector<Type> all(st.operands.size(), types[1]);
      if (!all.empty()) all[0] = types[0];
      BERTH_RETURN_IF_ERROR(CheckOperandTypes(st, all));
      st.result_types.assign(num_results, types[1]);
      return OkStatus();
    }
    case TypePolicy::kResultOnly:
      if (types.size() != num_results) {
        return ErrorAt(types_pos, "expected " + std::to_string(num_results) +
                                      " result type(s), found " + std::to_string(types.size()));
      }
      st.result_types = types;
      return OkStatus();
    case TypePolicy::kOperandsOnly:
    case TypePolicy::kOperandsAndResults: {
      if (types.size() == 1 && st.operands.size() > 1) {
        types.assign(st.operands.size(), types[0]);
      }
      BERTH_RETURN_IF_ERROR(expect_count(st.operands.size()));
      BERTH_RETURN_IF_ERROR(CheckOperandTypes(st, types));
      if (policy == TypePolicy::kOperandsAndResults) st.result_types = types;
      return OkStatus();
    }
  }
  return OkStatus();
}

}  // namespace berth::stablehlo::detail
