// Parsing the module structure: aliases, `module`, `func.func` (custom and
// generic forms), module-level sdy.mesh; and the public entry points.
#include "berth/stablehlo/parser.hpp"

#include "berth/stablehlo/verifier.hpp"
#include "src/parser_impl.hpp"

namespace berth::stablehlo {
namespace detail {

Result<Module> Parser::Run() {
  Status status = ParseTopLevel();
  if (!status.ok()) return status;
  if (verify_) {
    BERTH_RETURN_IF_ERROR(Verify(module_));
  }
  return std::move(module_);
}

Status Parser::ParseTopLevel() {
  while (!AtEnd()) {
    char c = Peek();
    if (c == '#' || c == '!') {
      BERTH_RETURN_IF_ERROR(ParseAliasDefinition());
      continue;
    }
    // A module, or a function or mesh of the implicit module around them;
    // in the generic form (a quoted op name) or the pretty one.
    size_t start = pos_;
    const bool generic = c == '"';
    std::string name;
    if (generic) {
      BERTH_RETURN_IF_ERROR(LexString(&name));
      pos_ = start;
    } else {
      name = PeekBareId();
    }
    const bool module = name == (generic ? "builtin.module" : "module");
    const bool mesh = name == "sdy.mesh";
    if (!module && !mesh && name != "func.func") {
      std::string what = "expected 'module' or 'func.func' at the top level";
      return ErrorAt(start, generic ? what + ", found \"" + name + "\"" : what);
    }
    if (module_seen_ || (module && implicit_module_)) {
      return ErrorAt(start, "only one module per file (chunk) is supported");
    }
    (module ? module_seen_ : implicit_module_) = true;
    if (module) {
      BERTH_RETURN_IF_ERROR(generic ? ParseGenericModule() : ParseModule());
    } else if (mesh) {
      BERTH_RETURN_IF_ERROR(generic ? ParseGenericTopLevelOp() : ParseSdyMesh());
    } else {
      BERTH_RETURN_IF_ERROR(generic ? ParseGenericFunc() : ParseFunc());
    }
  }
  return OkStatus();
}

// `#name = loc(...)`, `#name = <attribute>`, `!name = <type>`.
Status Parser::ParseAliasDefinition() {
  size_t start = pos_;
  char sigil = src_[pos_];
  ++pos_;
  std::string_view name = LexSuffixId();
  if (name.empty()) return ErrorAt(start, "expected an alias name");
  BERTH_RETURN_IF_ERROR(Expect('=', "in an alias definition"));
  if (sigil == '!') {
    Type t;
    BERTH_RETURN_IF_ERROR(ParseType(&t));
    type_aliases_[std::string(name)] = t;
    return OkStatus();
  }
  if (PeekBareId() == "loc") return SkipLocation();
  const Attribute* value;
  BERTH_RETURN_IF_ERROR(ParseAttribute(&value));
  attr_aliases_[std::string(name)] = value;
  return OkStatus();
}

// module @name attributes {...} { ... } loc(...)
Status Parser::ParseModule() {
  BERTH_RETURN_IF_ERROR(ExpectKeyword("module", ""));
  ModuleStorage& s = b_.storage();
  if (Peek() == '@') {
    ++pos_;
    if (Peek() == '"') {
      std::string name;
      BERTH_RETURN_IF_ERROR(LexString(&name));
      s.name = b_.Save(name);
    } else {
      s.name = b_.Save(LexSuffixId());
    }
  }
  if (TryKeyword("attributes")) {
    size_t attrs_pos = pos_;
    BERTH_RETURN_IF_ERROR(ParseAttrDict(&s.module_attrs));
    std::string_view dup = SortAttributes(s.module_attrs);
    if (!dup.empty()) return ErrorAt(attrs_pos, "duplicate attribute '" + std::string(dup) + "'");
  }
  BERTH_RETURN_IF_ERROR(Expect('{', "to start the module body"));
  BERTH_RETURN_IF_ERROR(ParseModuleBody());
  return SkipTrailingLocation();
}

Status Parser::ParseModuleBody() {
  while (true) {
    char c = Peek();
    if (c == '}') {
      ++pos_;
      return OkStatus();
    }
    if (c == '\0' && pos_ >= src_.size()) return Error("expected '}' to close the module");
    size_t start = pos_;
    if (c == '"') {
      std::string name;
      BERTH_RETURN_IF_ERROR(LexString(&name));
      pos_ = start;
      if (name == "func.func") {
        BERTH_RETURN_IF_ERROR(ParseGenericFunc());
        continue;
      }
      if (name == "builtin.module") return ErrorAt(start, "nested modules are not supported");
      if (name == "sdy.mesh") {
        BERTH_RETURN_IF_ERROR(ParseGenericTopLevelOp());
        continue;
      }
      return ErrorAt(start, "expected a function in the module body, found \"" + name + "\"");
    }
    std::string_view word = PeekBareId();
    if (word == "func.func") {
      BERTH_RETURN_IF_ERROR(ParseFunc());
    } else if (word == "sdy.mesh") {
      BERTH_RETURN_IF_ERROR(ParseSdyMesh());
    } else if (word == "module") {
      return ErrorAt(start, "nested modules are not supported");
    } else if (word.empty()) {
      return ErrorAt(start, "expected a function or '}' in the module body");
    } else {
      return ErrorAt(start, "expected a function in the module body, found '" +
                                std::string(word) + "'");
    }
  }
}

// `"op"() <{properties}>` of a top-level op with no operands (`what` says
// which); the properties go to `attrs`.
Status Parser::ParseGenericHead(std::string_view op, std::string_view what,
                                std::vector<NamedAttribute>* attrs) {
  std::string name;
  BERTH_RETURN_IF_ERROR(LexString(&name));
  BERTH_RETURN_IF_ERROR(Expect('(', "after \"" + std::string(op) + "\""));
  BERTH_RETURN_IF_ERROR(Expect(')', "(" + std::string(what) + " has no operands)"));
  if (Peek() == '<' && PeekAt(1) == '{') {
    ++pos_;
    BERTH_RETURN_IF_ERROR(ParseAttrDict(attrs));
    BERTH_RETURN_IF_ERROR(Expect('>', "to close the properties"));
  }
  return OkStatus();
}

// "builtin.module"() <{sym_name = "m"}> ({ ... }) {attrs} : () -> ()
Status Parser::ParseGenericModule() {
  std::vector<NamedAttribute> attrs;
  BERTH_RETURN_IF_ERROR(ParseGenericHead("builtin.module", "a module", &attrs));
  BERTH_RETURN_IF_ERROR(Expect('(', "to start the module region"));
  BERTH_RETURN_IF_ERROR(Expect('{', "to start the module region"));
  BERTH_RETURN_IF_ERROR(ParseModuleBody());
  BERTH_RETURN_IF_ERROR(Expect(')', "to close the module region"));
  if (Peek() == '{') BERTH_RETURN_IF_ERROR(ParseAttrDict(&attrs));
  BERTH_RETURN_IF_ERROR(Expect(':', "and the module's type '() -> ()'"));
  Type t;
  BERTH_RETURN_IF_ERROR(ParseType(&t));
  ModuleStorage& s = b_.storage();
  for (const NamedAttribute& a : attrs) {
    if (a.name == "sym_name") {
      if (auto* str = a.value->dyn_cast<StringAttr>()) s.name = b_.Save(str->value());
      continue;
    }
    s.module_attrs.push_back(a);
  }
  std::string_view dup = SortAttributes(s.module_attrs);
  if (!dup.empty()) return Error("duplicate attribute '" + std::string(dup) + "'");
  return SkipTrailingLocation();
}

Status Parser::AddFunction(std::string_view name, size_t pos, Visibility visibility, Type type,
                           std::vector<const DictionaryAttr*> arg_attrs,
                           std::vector<const DictionaryAttr*> res_attrs,
                           std::vector<NamedAttribute> attrs, Region* body) {
  if (b_.storage().function_map.count(name)) {
    return ErrorAt(pos, "redefinition of function '@" + std::string(name) + "'");
  }
  std::string_view dup = SortAttributes(attrs);
  if (!dup.empty()) return ErrorAt(pos, "duplicate attribute '" + std::string(dup) + "'");
  b_.NewFunction(name, visibility, type, std::move(arg_attrs), std::move(res_attrs),
                 std::move(attrs), body, LocationAt(pos));
  return OkStatus();
}

// One argument or result of a function signature: `type {attrs} loc(...)`
// (attributes and location optional).
Status Parser::ParseSignatureEntry(std::vector<Type>* types,
                                   std::vector<const DictionaryAttr*>* attrs) {
  Type t;
  BERTH_RETURN_IF_ERROR(ParseType(&t));
  types->push_back(t);
  const DictionaryAttr* dict = nullptr;
  if (Peek() == '{') BERTH_RETURN_IF_ERROR(ParseDictAttr(&dict));
  attrs->push_back(dict);
  return SkipTrailingLocation();
}

// func.func [public|private|nested] @name(%a: T {attrs} loc(..), ...)
//     [-> T | -> (T {attrs}, ...)] [attributes {...}] [{ body }] [loc(...)]
Status Parser::ParseFunc() {
  size_t start = pos_;
  BERTH_RETURN_IF_ERROR(ExpectKeyword("func.func", ""));
  Visibility visibility = Visibility::kPublic;
  if (TryKeyword("private")) {
    visibility = Visibility::kPrivate;
  } else if (TryKeyword("nested")) {
    visibility = Visibility::kNested;
  } else {
    TryKeyword("public");
  }
  std::string symbol;
  BERTH_RETURN_IF_ERROR(LexSymbolName(&symbol, "a function name"));
  std::string_view name = b_.Save(symbol);
  // Arguments.
  BERTH_RETURN_IF_ERROR(Expect('(', "to start the function arguments"));
  std::vector<Type> arg_types;
  std::vector<std::string_view> arg_names;
  std::vector<size_t> arg_pos;
  std::vector<const DictionaryAttr*> arg_attrs;
  bool named = Peek() == '%';
  if (!TryConsume(')')) {
    do {
      SkipWs();
      arg_pos.push_back(pos_);
      if (named) {
        std::string_view arg_name;
        BERTH_RETURN_IF_ERROR(LexValueName("a function argument", &arg_name));
        arg_names.push_back(arg_name);
        BERTH_RETURN_IF_ERROR(Expect(':', "and the argument type"));
      }
      BERTH_RETURN_IF_ERROR(ParseSignatureEntry(&arg_types, &arg_attrs));
    } while (TryConsume(','));
    BERTH_RETURN_IF_ERROR(Expect(')', "to close the function arguments"));
  }
  // Results.
  std::vector<Type> result_types;
  std::vector<const DictionaryAttr*> res_attrs;
  if (TryConsumeArrow()) {
    if (TryConsume('(')) {
      if (!TryConsume(')')) {
        do {
          BERTH_RETURN_IF_ERROR(ParseSignatureEntry(&result_types, &res_attrs));
        } while (TryConsume(','));
        BERTH_RETURN_IF_ERROR(Expect(')', "to close the function results"));
      }
    } else {
      Type t;
      BERTH_RETURN_IF_ERROR(ParseType(&t));
      result_types.push_back(t);
      res_attrs.push_back(nullptr);
    }
  }
  std::vector<NamedAttribute> attrs;
  if (TryKeyword("attributes")) BERTH_RETURN_IF_ERROR(ParseAttrDict(&attrs));
  Type type = b_.types().Function(arg_types, result_types);
  Region* body = nullptr;
  if (Peek() == '{') {
    if (!named && !arg_types.empty()) {
      return ErrorAt(start, "a function with a body needs named arguments (%name: type)");
    }
    // Functions are isolated: nothing from outside is visible inside.
    values_.Clear();
    scope_names_.clear();
    scope_marks_.clear();
    body = b_.NewRegion();
    Block* block = b_.NewBlock(body);
    PushScope();
    for (size_t i = 0; i < arg_types.size(); ++i) {
      Value* v = b_.AddArgument(block, arg_types[i], b_.Save(arg_names[i]));
      BERTH_RETURN_IF_ERROR(DefineValue(arg_names[i], arg_pos[i], v, nullptr, 1));
    }
    ++pos_;  // '{'
    BERTH_RETURN_IF_ERROR(ParseBlockBody(block));
    PopScope();
  }
  BERTH_RETURN_IF_ERROR(AddFunction(name, start, visibility, type, std::move(arg_attrs),
                                    std::move(res_attrs), std::move(attrs), body));
  return SkipTrailingLocation();
}

// "func.func"() <{function_type = ..., sym_name = "f", ...}> ({...}) : () -> ()
Status Parser::ParseGenericFunc() {
  size_t start = pos_;
  std::vector<NamedAttribute> attrs;
  BERTH_RETURN_IF_ERROR(ParseGenericHead("func.func", "a function", &attrs));
  values_.Clear();
  scope_names_.clear();
  scope_marks_.clear();
  std::vector<Region*> regions;
  if (Peek() == '(') BERTH_RETURN_IF_ERROR(ParseRegionList(&regions));
  if (Peek() == '{') BERTH_RETURN_IF_ERROR(ParseAttrDict(&attrs));
  BERTH_RETURN_IF_ERROR(Expect(':', "and the type '() -> ()'"));
  Type op_type;
  BERTH_RETURN_IF_ERROR(ParseType(&op_type));
  BERTH_RETURN_IF_ERROR(SkipTrailingLocation());
  if (regions.size() > 1) return ErrorAt(start, "a function has one region");
  std::string_view name;
  Type type;
  Visibility visibility = Visibility::kPublic;
  std::vector<const DictionaryAttr*> arg_attrs;
  std::vector<const DictionaryAttr*> res_attrs;
  std::vector<NamedAttribute> rest;
  auto dict_list = [&](const Attribute* a, std::vector<const DictionaryAttr*>* out) -> Status {
    auto* array = a->dyn_cast<ArrayAttr>();
    if (!array) return ErrorAt(start, "arg_attrs/res_attrs must be arrays of dictionaries");
    for (const Attribute* e : array->elements()) {
      auto* d = e->dyn_cast<DictionaryAttr>();
      if (!d) return ErrorAt(start, "arg_attrs/res_attrs must be arrays of dictionaries");
      out->push_back(d->empty() ? nullptr : d);
    }
    return OkStatus();
  };
  for (const NamedAttribute& a : attrs) {
    if (a.name == "sym_name") {
      auto* s = a.value->dyn_cast<StringAttr>();
      if (!s) return ErrorAt(start, "sym_name must be a string");
      name = b_.Save(s->value());
    } else if (a.name == "function_type") {
      auto* t = a.value->dyn_cast<TypeAttr>();
      if (!t || !t->type().IsFunction()) return ErrorAt(start, "function_type must be a function type");
      type = t->type();
    } else if (a.name == "sym_visibility") {
      auto* s = a.value->dyn_cast<StringAttr>();
      std::string_view v = s ? s->value() : std::string_view();
      if (v == "private") {
        visibility = Visibility::kPrivate;
      } else if (v == "nested") {
        visibility = Visibility::kNested;
      } else if (v != "public") {
        return ErrorAt(start, "sym_visibility must be \"public\", \"private\" or \"nested\"");
      }
    } else if (a.name == "arg_attrs") {
      BERTH_RETURN_IF_ERROR(dict_list(a.value, &arg_attrs));
    } else if (a.name == "res_attrs") {
      BERTH_RETURN_IF_ERROR(dict_list(a.value, &res_attrs));
    } else {
      rest.push_back(a);
    }
  }
  if (name.empty()) return ErrorAt(start, "\"func.func\" needs a sym_name");
  if (!type) return ErrorAt(start, "\"func.func\" needs a function_type");
  Region* body = regions.empty() ? nullptr : regions[0];
  if (body && !body->empty()) {
    Block& entry = body->entry_block();
    std::span<const Type> inputs = type.inputs();
    bool match = entry.num_arguments() == inputs.size();
    for (size_t i = 0; match && i < inputs.size(); ++i) match = entry.argument(i)->type() == inputs[i];
    if (!match) {
      return ErrorAt(start, "the entry block arguments of @" + std::string(name) +
                                " do not match its function_type");
    }
  }
  return AddFunction(name, start, visibility, type, std::move(arg_attrs), std::move(res_attrs),
                     std::move(rest), body);
}

// "sdy.mesh"() {mesh = #sdy.mesh<...>, sym_name = "mesh"} : () -> ()
Status Parser::ParseGenericTopLevelOp() {
  OpState st;
  st.pos = pos_;
  std::string name;
  BERTH_RETURN_IF_ERROR(LexString(&name));
  st.kind = OpKind::kSdyMesh;
  BERTH_RETURN_IF_ERROR(ParseGenericOp(st));
  BERTH_RETURN_IF_ERROR(SkipTrailingLocation());
  if (!st.operands.empty() || !st.result_types.empty() || !st.regions.empty()) {
    return ErrorAt(st.pos, "sdy.mesh takes no operands, results or regions");
  }
  std::string_view dup = SortAttributes(st.attrs);
  if (!dup.empty()) return ErrorAt(st.pos, "duplicate attribute '" + std::string(dup) + "'");
  Operation* op = b_.NewOp(st.kind, LocationAt(st.pos), {}, {}, st.attrs, {}, {});
  b_.storage().top_level_ops.push_back(op);
  return OkStatus();
}

// sdy.mesh @name = <["x"=2, "y"=4]>
Status Parser::ParseSdyMesh() {
  size_t start = pos_;
  BERTH_RETURN_IF_ERROR(ExpectKeyword("sdy.mesh", ""));
  std::string name;
  BERTH_RETURN_IF_ERROR(LexSymbolName(&name, "a mesh name"));
  BERTH_RETURN_IF_ERROR(Expect('=', "after the mesh name"));
  if (Peek() != '<') return Error("expected '<' to start the mesh");
  size_t mesh_start = pos_;
  size_t end;
  BERTH_RETURN_IF_ERROR(ScanBalanced(&end));
  pos_ = end;
  std::vector<NamedAttribute> attrs;
  if (Peek() == '{') BERTH_RETURN_IF_ERROR(ParseAttrDict(&attrs));
  attrs.push_back({"mesh", b_.Make<OpaqueAttr>("#sdy.mesh" +
                                               std::string(src_.substr(mesh_start, end - mesh_start)))});
  attrs.push_back({"sym_name", b_.Make<StringAttr>(std::move(name))});
  std::string_view dup = SortAttributes(attrs);
  if (!dup.empty()) return ErrorAt(start, "duplicate attribute '" + std::string(dup) + "'");
  Operation* op = b_.NewOp(OpKind::kSdyMesh, LocationAt(start), {}, {}, attrs, {}, {});
  b_.storage().top_level_ops.push_back(op);
  return SkipTrailingLocation();
}

}  // namespace detail

Result<Module> ParseModule(std::string_view text, std::string_view filename) {
  return ParseModule(text, filename, ParseOptions());
}

Result<Module> ParseModule(std::string_view text, std::string_view filename,
                           const ParseOptions& options) {
  detail::Parser parser(text, filename, options);
  return parser.Run();
}

}  // namespace berth::stablehlo
