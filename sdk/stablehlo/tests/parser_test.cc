// Parsing program structure: modules, functions, values, regions, calls,
// comments, aliases; and the errors for malformed structure.
#include "tests/test_util.hpp"

namespace berth::stablehlo {
namespace {

using testing::ExpectRoundTrip;
using testing::ExpectRoundTripUnverified;
using testing::FirstOp;
using testing::Func;
using testing::MustParse;
using testing::ParseStatus;

TEST(ParserTest, ParsesNamedModuleWithAttributes) {
  Module m = MustParse(R"(
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
  func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    return %arg0 : tensor<2xf32>
  }
}
)");
  EXPECT_EQ(m.name(), "jit_f");
  EXPECT_EQ(m.num_replicas(), 2);
  EXPECT_EQ(m.num_partitions(), 1);
  ASSERT_EQ(m.functions().size(), 1u);
  EXPECT_EQ(m.entry_function()->name(), "main");
}

TEST(ParserTest, ParsesBareFunctionsAsImplicitModule) {
  Module m = MustParse(R"(
func.func @helper(%x: tensor<i64>) -> tensor<i64> {
  func.return %x : tensor<i64>
}
func.func @main() {
  %0 = stablehlo.constant dense<1> : tensor<i64>
  %1 = func.call @helper(%0) : (tensor<i64>) -> tensor<i64>
  func.return
}
)");
  EXPECT_TRUE(m.name().empty());
  EXPECT_EQ(m.functions().size(), 2u);
  EXPECT_EQ(m.function("helper")->num_arguments(), 1u);
  EXPECT_EQ(m.entry_function()->name(), "main");
}

TEST(ParserTest, EntryIsOnlyFunctionOrOnlyPublicOne) {
  Module only = MustParse("func.func @f() {\n return\n}\n");
  EXPECT_EQ(only.entry_function()->name(), "f");
  Module one_public = MustParse(R"(
func.func private @a() { return }
func.func public @b() { return }
)");
  EXPECT_EQ(one_public.entry_function()->name(), "b");
  Module none = MustParse("func.func @a() { return }\nfunc.func @b() { return }\n");
  EXPECT_EQ(none.entry_function(), nullptr);
}

TEST(ParserTest, EmptyTextIsEmptyModule) {
  Module m = MustParse("// just a comment\n\n");
  EXPECT_TRUE(m.functions().empty());
}

TEST(ParserTest, ParsesFunctionVisibilityArgAndResultAttributes) {
  Module m = MustParse(R"(
func.func private @f(%arg0: tensor<3xf32> {mhlo.sharding = "{replicated}", jax.arg_info = "x"},
                     %arg1: tensor<i32>) -> (tensor<3xf32> {jax.result_info = "result"}, tensor<i32>)
    attributes {mhlo.frontend_attributes = {_xla_compute_type = "host"}} {
  return %arg0, %arg1 : tensor<3xf32>, tensor<i32>
}
)");
  const Function* f = m.function("f");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->visibility(), Visibility::kPrivate);
  ASSERT_NE(f->argument_attrs(0), nullptr);
  auto* sharding = f->argument_attrs(0)->Get("mhlo.sharding")->dyn_cast<StringAttr>();
  ASSERT_NE(sharding, nullptr);
  EXPECT_EQ(sharding->value(), "{replicated}");
  EXPECT_EQ(f->argument_attrs(1), nullptr);
  EXPECT_NE(f->result_attrs(0)->Get("jax.result_info"), nullptr);
  ASSERT_EQ(f->attributes().size(), 1u);
  EXPECT_EQ(f->attributes()[0].name, "mhlo.frontend_attributes");
}

TEST(ParserTest, ParsesFunctionDeclaration) {
  Module m = MustParse("func.func private @ext(tensor<f32>, tensor<2xi32>) -> tensor<f32>\n");
  EXPECT_TRUE(m.function("ext")->is_declaration());
  EXPECT_EQ(m.function("ext")->num_arguments(), 2u);
}

TEST(ParserTest, ParsesMultipleResultsBothWays) {
  Module m = MustParse(Func("%a: tensor<2xi64>, %b: tensor<2xi64>", "(tensor<2xi64>, tensor<2xi64>)", R"(
  %r:2 = stablehlo.optimization_barrier %a, %b : tensor<2xi64>, tensor<2xi64>
  %x, %y = stablehlo.optimization_barrier %r#0, %r#1 : tensor<2xi64>, tensor<2xi64>
  return %y, %x : tensor<2xi64>, tensor<2xi64>)"));
  const Block& body = m.entry_function()->entry_block();
  ASSERT_EQ(body.operations().size(), 3u);
  const Operation& second = *body.operations()[1];
  EXPECT_EQ(second.operand(0), body.operations()[0]->result(0));
  EXPECT_EQ(second.operand(1), body.operations()[0]->result(1));
  EXPECT_EQ(second.result(0)->name(), "x");
  EXPECT_EQ(second.result(1)->name(), "y");
  EXPECT_EQ(body.operations()[2]->operand(0), second.result(1));
}

TEST(ParserTest, RegionsSeeValuesOfEnclosingScope) {
  Module m = MustParse(Func("%p: tensor<i1>, %x: tensor<f32>", "tensor<f32>", R"(
  %r = "stablehlo.if"(%p) ({
    stablehlo.return %x : tensor<f32>
  }, {
    %n = stablehlo.negate %x : tensor<f32>
    stablehlo.return %n : tensor<f32>
  }) : (tensor<i1>) -> tensor<f32>
  return %r : tensor<f32>)"));
  const Operation& op = FirstOp(m);
  ASSERT_EQ(op.num_regions(), 2u);
  const Value* x = m.entry_function()->entry_block().argument(1);
  EXPECT_EQ(op.region(0).entry_block().terminator()->operand(0), x);
  EXPECT_EQ(op.region(1).entry_block().operations()[0]->parent_op(), &op);
}

TEST(ParserTest, UseListsNameEveryUse) {
  Module m = MustParse(Func("%a: tensor<f32>", "tensor<f32>", R"(
  %0 = stablehlo.add %a, %a : tensor<f32>
  %1 = stablehlo.multiply %0, %a : tensor<f32>
  return %1 : tensor<f32>)"));
  const Value* a = m.entry_function()->entry_block().argument(0);
  EXPECT_EQ(a->num_uses(), 3u);
  const Value* v0 = FirstOp(m).result(0);
  ASSERT_EQ(v0->num_uses(), 1u);
  EXPECT_EQ(v0->uses().begin()->owner->kind(), OpKind::kMultiply);
  EXPECT_EQ(v0->uses().begin()->index, 0u);
  EXPECT_TRUE(a->IsBlockArgument());
  EXPECT_EQ(v0->defining_op(), &FirstOp(m));
}

TEST(ParserTest, ShortCallAndReturnFormsMatchLongForms) {
  testing::ExpectSameIr(R"(
func.func @g(%x: tensor<f32>) -> tensor<f32> { return %x : tensor<f32> }
func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %0 = call @g(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
)",
                        R"(
func.func @g(%x: tensor<f32>) -> tensor<f32> { func.return %x : tensor<f32> }
func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %0 = func.call @g(%x) : (tensor<f32>) -> tensor<f32>
  "func.return"(%0) : (tensor<f32>) -> ()
}
)");
}

TEST(ParserTest, CallAccessorNamesCallee) {
  Module m = MustParse(R"(
func.func @g() -> tensor<f32> {
  %c = stablehlo.constant dense<1.0> : tensor<f32>
  return %c : tensor<f32>
}
func.func @main() -> tensor<f32> {
  %0 = call @g() : () -> tensor<f32>
  return %0 : tensor<f32>
}
)");
  const Operation& call = FirstOp(m);
  EXPECT_EQ(call.kind(), OpKind::kFuncCall);
  EXPECT_EQ(call.callee(), "g");
}

TEST(ParserTest, CommentsAnywhereAreIgnored) {
  MustParse(R"(// header
func.func @main(%a: tensor<f32> // the input
) -> tensor<f32> { // body
  // a comment line
  %0 = stablehlo.abs %a : tensor<f32> // trailing
  return %0 : tensor<f32>
} // end
)");
}

TEST(ParserTest, ParsesAttributeAndTypeAliases) {
  Module m = MustParse(R"(
#dims = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>
!t = tensor<2x2xf32>
func.func @main(%a: !t) -> !t {
  %0 = "stablehlo.dot_general"(%a, %a) {dot_dimension_numbers = #dims} : (!t, !t) -> !t
  return %0 : !t
}
)");
  EXPECT_EQ(FirstOp(m).dot_dimension_numbers()->lhs_contracting_dimensions,
            std::vector<int64_t>{1});
}

TEST(ParserTest, QuotedSymbolAndAttributeNames) {
  Module m = MustParse(R"(
func.func @"weird name"(%a: tensor<f32>) -> tensor<f32> attributes {"my attr" = 1 : i32} {
  return %a : tensor<f32>
}
)");
  ASSERT_NE(m.function("weird name"), nullptr);
  ExpectRoundTrip(m);
}

TEST(ParserTest, ChunkLineOffsetShiftsDiagnostics) {
  ParseOptions options;
  options.first_line = 41;
  Result<Module> m = ParseModule("func.func @main() {\n  %0 = stablehlo.bogus\n}\n", "f.mlir",
                                 options);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("f.mlir:42:8: error: unknown operation"), std::string::npos)
      << m.status().message();
}

TEST(ParserTest, SplitsTestFilesOnSeparatorLines) {
  std::string_view text = "a\nb\n// -----\nc\n  // ----- x\nd\ne\n";
  std::vector<TestChunk> chunks = SplitTestFile(text);
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0].text, "a\nb\n");
  EXPECT_EQ(chunks[0].first_line, 1);
  EXPECT_EQ(chunks[1].text, "c\n");
  EXPECT_EQ(chunks[1].first_line, 4);
  EXPECT_EQ(chunks[2].text, "d\ne\n");
  EXPECT_EQ(chunks[2].first_line, 6);
  EXPECT_EQ(chunks[2].index, 2);
}

TEST(ParserTest, RejectsMissingPercentOnOperand) {
  Status s = ParseStatus(Func("%a: tensor<f32>", "tensor<f32>", "  %0 = stablehlo.abs a : tensor<f32>\n  return %0 : tensor<f32>"));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("test.mlir:2:22: error: expected an operand ('%a'?)"), std::string::npos)
      << s.message();
}

TEST(ParserTest, RejectsUnknownOperation) {
  Status s = ParseStatus(Func("%a: tensor<f32>", "tensor<f32>", "  %0 = stablehlo.frobnicate %a : tensor<f32>\n  return %0 : tensor<f32>"));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("unknown operation 'stablehlo.frobnicate'"), std::string::npos);
  Status g = ParseStatus(Func("%a: tensor<f32>", "", R"(  "foo.bar"(%a) : (tensor<f32>) -> ()
  return)"));
  EXPECT_NE(g.message().find("unknown operation 'foo.bar'"), std::string::npos);
}

TEST(ParserTest, RejectsUndefinedValue) {
  Status s = ParseStatus(Func("", "tensor<f32>", "  return %nope : tensor<f32>"));
  EXPECT_NE(s.message().find("use of undefined value '%nope'"), std::string::npos);
}

TEST(ParserTest, RejectsValueRedefinition) {
  Status s = ParseStatus(Func("%a: tensor<f32>", "tensor<f32>", R"(  %0 = stablehlo.abs %a : tensor<f32>
  %0 = stablehlo.abs %a : tensor<f32>
  return %0 : tensor<f32>)"));
  EXPECT_NE(s.message().find("redefinition of SSA value '%0'"), std::string::npos);
}

TEST(ParserTest, RejectsWrongOperandType) {
  Status s = ParseStatus(Func("%a: tensor<f32>", "tensor<i32>", "  %0 = stablehlo.abs %a : tensor<i32>\n  return %0 : tensor<i32>"));
  EXPECT_NE(s.message().find("operand #0 has type tensor<f32> but the op's types say tensor<i32>"),
            std::string::npos)
      << s.message();
}

TEST(ParserTest, RejectsResultCountMismatch) {
  Status s = ParseStatus(Func("%a: tensor<f32>", "", R"(  %0:2 = stablehlo.custom_call @f(%a) : (tensor<f32>) -> tensor<f32>
  return)"));
  EXPECT_NE(s.message().find("operation defines 1 results but was provided 2 to bind"),
            std::string::npos)
      << s.message();
  Status unbound = ParseStatus(Func("%a: tensor<f32>", "", R"(  "stablehlo.abs"(%a) : (tensor<f32>) -> tensor<f32>
  return)"));
  EXPECT_NE(unbound.message().find("defines 1 results but was provided 0"), std::string::npos);
  // A single type stands for one result only.
  Status single = ParseStatus(Func("%a: tensor<f32>", "", "  %0:2 = stablehlo.abs %a : tensor<f32>\n  return"));
  EXPECT_NE(single.message().find("an op with 2 results needs a function type"),
            std::string::npos)
      << single.message();
}

TEST(ParserTest, RejectsMultiResultValueWithoutIndex) {
  Status s = ParseStatus(Func("%a: tensor<f32>", "tensor<f32>", R"(  %r:2 = stablehlo.optimization_barrier %a, %a : tensor<f32>, tensor<f32>
  return %r : tensor<f32>)"));
  EXPECT_NE(s.message().find("use '%r#N'"), std::string::npos) << s.message();
}

TEST(ParserTest, RejectsDuplicateFunction) {
  Status s = ParseStatus("func.func @f() { return }\nfunc.func @f() { return }\n");
  EXPECT_NE(s.message().find("redefinition of function '@f'"), std::string::npos);
}

TEST(ParserTest, RejectsTwoModules) {
  Status s = ParseStatus("module {}\nmodule {}\n");
  EXPECT_NE(s.message().find("only one module"), std::string::npos);
}

TEST(ParserTest, RejectsMultipleBlocks) {
  Status s = ParseStatus(Func("%a: tensor<f32>", "", "  return\n^bb1:\n  return"));
  EXPECT_NE(s.message().find("more than one block"), std::string::npos) << s.message();
}

TEST(ParserTest, RejectsUnknownElementType) {
  Status s = ParseStatus(Func("%a: tensor<2xq7>", "", "  return"));
  EXPECT_NE(s.message().find("unknown element type 'q7'"), std::string::npos);
}

TEST(ParserTest, ParsesDynamicDimensions) {
  Module m = MustParse(Func("%a: tensor<?x3xf32>", "tensor<?x3xf32>", R"(  %0 = stablehlo.abs %a : tensor<?x3xf32>
  return %0 : tensor<?x3xf32>)"));
  Type t = m.entry_function()->argument_types()[0];
  EXPECT_FALSE(t.HasStaticShape());
  EXPECT_EQ(t.dim(0), kDynamic);
  EXPECT_EQ(t.NumElements(), -1);
}

TEST(ParserTest, ParsesBoundedDynamicEncoding) {
  Module m = MustParse(Func("%a: tensor<?x3xf32, #stablehlo.bounds<8, ?>>", "", "  return"));
  Type t = m.entry_function()->argument_types()[0];
  ASSERT_EQ(t.bounds().size(), 2u);
  EXPECT_EQ(t.bounds()[0], 8);
  EXPECT_EQ(t.bounds()[1], kDynamic);
}

TEST(ParserTest, ParsesTokensAndTuples) {
  Module m = MustParse(Func("%t: !stablehlo.token, %x: tensor<f32>",
                            "tuple<tensor<f32>, !stablehlo.token>", R"(  %0 = stablehlo.after_all %t : !stablehlo.token
  %1 = stablehlo.tuple %x, %0 : tuple<tensor<f32>, !stablehlo.token>
  return %1 : tuple<tensor<f32>, !stablehlo.token>)"));
  Type t = m.entry_function()->result_types()[0];
  ASSERT_TRUE(t.IsTuple());
  EXPECT_TRUE(t.types()[1].IsToken());
}

TEST(ParserTest, QuantizedTypesParseButDoNotVerify) {
  std::string text = Func("%a: tensor<2x!quant.uniform<i8:f32, 1.0:0>>", "", "  return");
  EXPECT_TRUE(ParseStatus(text, /*verify=*/false).ok());
  Status s = ParseStatus(text);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("quantized types are not supported"), std::string::npos)
      << s.message();
}

TEST(ParserTest, QuantizedConstantsHoldStorageIntegers) {
  std::string text = Func("", "", R"(  %0 = stablehlo.constant dense<[1, -2]> : tensor<2x!quant.uniform<i8:f32, 0.5:3>>
  check.expect_eq_const %0, dense<[1, -2]> : tensor<2x!quant.uniform<i8:f32, 0.5:3>>
  return)");
  Result<Module> m = ParseModule(text, "q.mlir");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const DenseElementsAttr* d = FirstOp(*m).GetDense("value");
  EXPECT_EQ(d->storage_type(), ElementType::kSI8);
  EXPECT_EQ(d->IntAt(1), -2);
  ExpectRoundTripUnverified(*m);
  EXPECT_NE(ParseStatus(text).message().find("quantized types are not supported"), std::string::npos);
}

TEST(ParserTest, RejectsUnrankedTensors) {
  Status s = ParseStatus(Func("%a: tensor<*xf32>", "", "  return"));
  EXPECT_NE(s.message().find("unranked tensors are not supported"), std::string::npos);
}

// `A, B -> R`: the operand types must match the operands, one per operand.
TEST(ParserTest, RejectsMalformedChloTypeLists) {
  Status wrong = ParseStatus(Func("%a: tensor<4xf32>", "", R"(  %0 = chlo.next_after %a, %a : tensor<4xf32>, tensor<4xf64> -> tensor<4xf32>
  return)"));
  EXPECT_EQ(wrong.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(wrong.message().find("test.mlir:2:28: error: operand #1 has type tensor<4xf32> but the "
                                 "op's types say tensor<4xf64>"),
            std::string::npos)
      << wrong.message();
  Status count = ParseStatus(Func("%a: tensor<4xf32>", "", R"(  %0 = chlo.zeta %a, %a : tensor<4xf32> , tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return)"));
  EXPECT_NE(count.message().find("the function type has 3 inputs but the op has 2 operands"),
            std::string::npos)
      << count.message();
  Status no_result = ParseStatus(Func("%a: tensor<4xf32>", "", R"(  %0 = chlo.polygamma %a, %a : tensor<4xf32>, tensor<4xf32>
  return)"));
  EXPECT_NE(no_result.message().find("expected 1 type(s) here, found 2"), std::string::npos)
      << no_result.message();
  Status top_k = ParseStatus(Func("%a: tensor<8xf32>", "", R"(  %0:2 = chlo.top_k(%a, 3) : tensor<8xf32> -> (tensor<3xf32>, tensor<3xi32>)
  return)"));
  EXPECT_NE(top_k.message().find("expected 'k'"), std::string::npos) << top_k.message();
}

// One trailing comma closes a structured attribute; an empty field does not.
TEST(ParserTest, RejectsEmptyFieldsInStructuredAttributes) {
  auto dot = [](std::string_view dims) {
    return Func("%a: tensor<2x3xf32>, %b: tensor<3x4xf32>", "",
                "  %0 = \"stablehlo.dot_general\"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<" +
                    std::string(dims) +
                    ">} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>\n  return");
  };
  EXPECT_TRUE(ParseStatus(dot("lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0],")).ok());
  Status twice = ParseStatus(dot("lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0],,"));
  EXPECT_EQ(twice.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(twice.message().find("expected a field name in #stablehlo.dot"), std::string::npos)
      << twice.message();
  Status only = ParseStatus(dot(","));
  EXPECT_NE(only.message().find("expected a field name in #stablehlo.dot"), std::string::npos)
      << only.message();
  Status field = ParseStatus(dot("lhs_contracting_dimensions = [1], rhs_contracting = [0],"));
  EXPECT_NE(field.message().find("unknown field 'rhs_contracting' in #stablehlo.dot"),
            std::string::npos)
      << field.message();
}

TEST(ParserTest, RejectsPrintWithoutOperandType) {
  Status s = ParseStatus(Func("%a: tensor<2xi32>", "", "  interpreter.print %a\n  return"));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("expected ':' and the op's types"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace berth::stablehlo
