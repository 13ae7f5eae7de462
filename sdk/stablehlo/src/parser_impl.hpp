// Internal: the recursive-descent parser over MLIR text. One Parser parses
// one module; its methods are split over parser_*.cc by topic (lexing,
// types, attributes, dense literals, module structure, ops).
#ifndef BERTH_STABLEHLO_SRC_PARSER_IMPL_HPP_
#define BERTH_STABLEHLO_SRC_PARSER_IMPL_HPP_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "berth/status.hpp"
#include "berth/stablehlo/parser.hpp"
#include "src/storage.hpp"
#include "src/value_map.hpp"

namespace berth::stablehlo::detail {

inline constexpr int kMaxNestingDepth = 256;

// A numeric literal as written: [-](digits[.digits][e[+-]digits] | 0xHEX).
struct NumberLit {
  bool negative = false;
  bool hex = false;
  bool is_float = false;
  size_t pos = 0;          // where the literal starts (incl. '-')
  std::string_view text;   // the whole literal, incl. '-'
  std::string_view digits; // digits only (hex digits without "0x")
};

// An op being parsed, before it is created.
struct OpState {
  OpKind kind = OpKind::kAbs;
  size_t pos = 0;
  std::vector<Value*> operands;
  std::vector<size_t> operand_pos;  // where each operand was written
  std::vector<Type> result_types;
  std::vector<NamedAttribute> attrs;
  std::vector<Region*> regions;
  // Empties the vectors but keeps their capacity for the next op.
  void Clear() {
    operands.clear();
    operand_pos.clear();
    result_types.clear();
    attrs.clear();
    regions.clear();
  }
};

// How a pretty form's `: T1, T2` type list (not a function type) is applied.
enum class TypePolicy : uint8_t {
  kSame,                // one type for every operand and result
  kSelect,              // `pred_type, value_type`
  kResultOnly,          // the result types
  kOperandsOnly,        // the operand types, no results
  kOperandsAndResults,  // operand types, results the same
  kCompare,             // one operand type; results are i1 of its shape
};

class Parser {
 public:
  Parser(std::string_view text, std::string_view filename, const ParseOptions& options);
  Result<Module> Run();

  // ---- lexing (parser_lexer.cc)
  void SkipWs();
  char Peek();      // next non-blank char, '\0' at the end
  char PeekAt(size_t offset) const;  // raw char at pos_ + offset, '\0' past the end
  bool AtEnd();
  bool TryConsume(char c);
  bool TryConsumeArrow();
  Status Expect(char c, std::string_view context);
  Status ExpectArrow(std::string_view context);
  bool TryKeyword(std::string_view keyword);
  Status ExpectKeyword(std::string_view keyword, std::string_view context);
  std::string_view PeekBareId();
  std::string_view LexBareId();    // [A-Za-z_][A-Za-z0-9_$.]*
  std::string_view LexSuffixId();  // [A-Za-z0-9_$.-]+ right at pos_
  // `@name` or `@"any name"` (a symbol), `what` naming it in errors.
  Status LexSymbolName(std::string* out, std::string_view what);
  Status LexString(std::string* out);
  Status LexNumber(NumberLit* out);
  Status LexInt64(int64_t* out, std::string_view context);
  Status ParseIntList(std::vector<int64_t>* out, std::string_view context);  // [1, 2]
  Status SkipLocation();           // loc(...)
  Status SkipTrailingLocation();   // optional loc(...)
  Status ScanBalanced(size_t* end);  // from '<' past the matching '>'

  Status Error(std::string_view message);
  Status ErrorAt(size_t pos, std::string_view message);
  Location LocationAt(size_t pos) const;
  size_t pos() const { return pos_; }

  Status EnterNesting();
  void LeaveNesting() { --depth_; }

  // ---- types (parser_types.cc)
  Status ParseType(Type* out);
  Status ParseTypeList(std::vector<Type>* out);        // T1, T2 (no parens)
  Status ParseParenTypeList(std::vector<Type>* out);   // (T1, T2)
  Status ParseFunctionResults(std::vector<Type>* out);  // T or (T1, T2)
  Status ParseElementType(ElementType* out, std::string* opaque);

  // ---- attributes (parser_attributes.cc)
  // `typed_numbers`: whether `5 : i32` takes the `: i32` (not in pretty
  // keyword values, where `:` starts the op's types).
  Status ParseAttribute(const Attribute** out, bool typed_numbers = true);
  Status ParseAttrDict(std::vector<NamedAttribute>* out);  // {a = 1, b}
  Status ParseDictAttr(const DictionaryAttr** out);
  Status ParseNumberAttr(const Attribute** out, bool typed_numbers);
  Status ParseHashAttr(const Attribute** out);
  Status ParseEnumBody(std::string_view dialect, size_t start, const Attribute** out);
  Status ParseStructuredAttr(std::string_view name, size_t start, const Attribute** out);
  Status ParseConvDimsCompact(ConvDimensionNumbers* out);
  Status ParseDenseArray(const Attribute** out);
  const Attribute* MakeI64Array(std::vector<int64_t> values);
  const Attribute* MakeI64Matrix(const std::vector<int64_t>& flat, int64_t rows, int64_t cols);

  // ---- dense literals (parser_dense.cc)
  Status ParseDense(const Attribute** out);

  // ---- module structure (parser_module.cc)
  Status ParseTopLevel();
  Status ParseAliasDefinition();
  Status ParseModule();
  Status ParseGenericHead(std::string_view op, std::string_view what,
                          std::vector<NamedAttribute>* attrs);
  Status ParseGenericModule();
  Status ParseSignatureEntry(std::vector<Type>* types, std::vector<const DictionaryAttr*>* attrs);
  Status ParseModuleBody();
  Status ParseFunc();
  Status ParseGenericFunc();
  Status ParseSdyMesh();
  Status ParseGenericTopLevelOp();
  Status AddFunction(std::string_view name, size_t pos, Visibility visibility, Type type,
                     std::vector<const DictionaryAttr*> arg_attrs,
                     std::vector<const DictionaryAttr*> res_attrs,
                     std::vector<NamedAttribute> attrs, Region* body);

  // ---- ops and regions (parser_ops.cc)
  Status ParseBlockBody(Block* block);
  Status ParseOperation(Block* block);
  Status ParseGenericOp(OpState& st);
  Status ParseRegionList(std::vector<Region*>* out);
  Status ParseRegion(Region** out, std::span<const Type> arg_types = {},
                     std::span<const std::string_view> arg_names = {});
  Status ParseValueUse(Value** out);
  Status ParseOperand(OpState& st);
  Status LexValueName(std::string_view what, std::string_view* name);
  Status ParseOperandList(OpState& st, std::string_view what);
  Status CheckOperandTypes(const OpState& st, std::span<const Type> types);
  Status ParseTypeClause(OpState& st, TypePolicy policy, size_t num_results);
  struct ResultName {
    std::string_view name;
    size_t pos;
    uint32_t count;
  };
  Status FinishOp(OpState& st, Block* block, std::span<const ResultName> names,
                  size_t num_results);
  void PushScope();
  void PopScope();
  // Makes `%name` refer to `value`, or to `count` values starting at `group`.
  Status DefineValue(std::string_view name, size_t pos, Value* value, Value* const* group,
                     uint32_t count);

  // ---- pretty forms (parser_pretty.cc, parser_pretty_regions.cc)
  Status ParsePrettyOp(OpState& st, size_t num_results);
  Status ParsePrettyDefault(OpState& st, size_t num_results);
  Status ParseKeywordItem(OpState& st, std::string_view key, size_t key_pos,
                          std::vector<int64_t>* lhs_batch, std::vector<int64_t>* rhs_batch,
                          std::vector<int64_t>* lhs_contract, std::vector<int64_t>* rhs_contract,
                          bool* has_dot_dims);
  Status ParsePrettyConstant(OpState& st);
  Status ParsePrettyCompare(OpState& st, size_t num_results);
  Status ParsePrettySlice(OpState& st, size_t num_results);
  Status ParsePrettyGetTupleElement(OpState& st, size_t num_results);
  Status ParsePrettyCustomCall(OpState& st, size_t num_results);
  Status ParsePrettyComposite(OpState& st, size_t num_results);
  Status ParsePrettyCall(OpState& st, size_t num_results);
  Status ParsePrettyCheckConst(OpState& st);
  Status ParsePrettyConvolution(OpState& st, size_t num_results);
  Status ParsePrettyReduce(OpState& st, size_t num_results);
  Status ParsePrettyWhile(OpState& st, size_t num_results);
  Status ParsePrettyIf(OpState& st, size_t num_results);
  Status ParsePrettyTopK(OpState& st, size_t num_results);
  Status ParsePrettyScan(OpState& st, size_t num_results);
  Status ParsePrettySharding(OpState& st, size_t num_results);
  Status ParsePrettyManualComputation(OpState& st, size_t num_results);
  Status ParseTypedArgument(std::string_view what, std::string_view* name, Type* type);
  Status ParseOptionalAttrDict(OpState& st);
  Status AddAttr(OpState& st, std::string_view name, const Attribute* value);

  // ---- canonical attribute forms (parser_canonical.cc)
  Status Canonicalize(OpState& st);

  IrBuilder& builder() { return b_; }

 private:
  std::string_view src_;
  size_t pos_ = 0;
  int first_line_ = 1;
  bool verify_ = false;
  int max_depth_ = kMaxNestingDepth;
  int depth_ = 0;
  std::vector<size_t> line_starts_;
  Module module_;
  IrBuilder b_;
  bool module_seen_ = false;     // an explicit `module`
  bool implicit_module_ = false;  // top-level func.func
  // SSA names visible at this point, and the names each scope added.
  struct ValueEntry {
    Value* value = nullptr;          // a single value, or
    Value* const* group = nullptr;   // `count` results of one op
    uint32_t count = 1;
  };
  StringViewMap<ValueEntry> values_;
  std::vector<std::string_view> scope_names_;
  std::vector<size_t> scope_marks_;
  std::unordered_map<std::string, const Attribute*> attr_aliases_;
  std::unordered_map<std::string, Type> type_aliases_;
  std::unordered_map<std::string_view, Type> type_cache_;
  // Reused per nesting level so parsing an op allocates little.
  std::vector<std::unique_ptr<OpState>> op_states_;
  std::vector<std::unique_ptr<std::vector<ResultName>>> result_names_;
  size_t op_depth_ = 0;
};

// Helpers shared by the parser files.
bool ElementTypeFromKeyword(std::string_view keyword, ElementType* out);
bool IsBareIdStart(char c);
bool IsBareIdChar(char c);
bool ParseUnsigned(std::string_view digits, bool hex, uint64_t* out);

}  // namespace berth::stablehlo::detail

#endif  // BERTH_STABLEHLO_SRC_PARSER_IMPL_HPP_
