// Broken input gives "FILE:LINE:COL: error: ..." and never a crash or a
// hang: truncation, bad tokens, wrong types, unbalanced regions, very
// large literals and very deep nesting.
#include <string>

#include "tests/test_util.hpp"

namespace berth::stablehlo {
namespace {

using testing::ParseStatus;

constexpr std::string_view kProgram = R"(#loc = loc("f.py":1:2)
module @m attributes {mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32> {jax.result_info = "x"}, %arg1: tensor<i64>) -> (tensor<2xf32>, tensor<i64>) {
    %cst = stablehlo.constant dense<[[1.0, 2.0, 3.0], [0x7FC00000, -0.0, 1.5e-3]]> : tensor<2x3xf32>
    %0 = stablehlo.add %arg0, %cst : tensor<2x3xf32> loc(#loc)
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    %c = stablehlo.constant dense<1> : tensor<i64>
    %2:2 = stablehlo.while(%i = %c, %acc = %arg1) : tensor<i64>, tensor<i64>
     cond {
      %p = stablehlo.compare  LT, %i, %arg1,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %s = stablehlo.add %i, %c : tensor<i64>
      stablehlo.return %s, %acc : tensor<i64>, tensor<i64>
    }
    %3 = "stablehlo.custom_call"(%1) {call_target_name = "t", backend_config = "a\"b"} : (tensor<2xf32>) -> tensor<2xf32>
    return %3, %2#1 : tensor<2xf32>, tensor<i64>
  }
}
)";

void ExpectDiagnostic(const Status& s, std::string_view fragment = "") {
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("test.mlir:"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(": error: "), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(fragment), std::string::npos) << s.message();
}

TEST(BrokenInputTest, TheReferenceProgramIsValid) { EXPECT_TRUE(ParseStatus(kProgram).ok()); }

TEST(BrokenInputTest, EveryTruncationIsAnErrorNotACrash) {
  // Cutting the program anywhere before its last '}' must fail cleanly.
  size_t last = kProgram.rfind('}');
  for (size_t n = 0; n < last; ++n) {
    Status s = ParseStatus(kProgram.substr(0, n));
    if (s.ok()) continue;  // e.g. cut inside the leading #loc alias line
    ASSERT_EQ(s.code(), StatusCode::kInvalidArgument) << n;
    ASSERT_NE(s.message().find(": error: "), std::string::npos) << n << ": " << s.message();
  }
}

TEST(BrokenInputTest, EveryDeletedCharacterIsHandled) {
  // Deleting one character anywhere must never crash (most give errors).
  int errors = 0;
  for (size_t i = 0; i < kProgram.size(); ++i) {
    std::string text(kProgram);
    text.erase(i, 1);
    Status s = ParseStatus(text);
    if (!s.ok()) {
      ++errors;
      ASSERT_NE(s.message().find(": error: "), std::string::npos) << s.message();
    }
  }
  EXPECT_GT(errors, 100);
}

// kProgram with the `length` characters at the first `at` replaced by `with`.
std::string ProgramWith(std::string_view at, size_t length, std::string_view with) {
  std::string text(kProgram);
  return text.replace(text.find(at), length, with);
}

TEST(BrokenInputTest, ReportsPositionOfMissingPercent) {
  ExpectDiagnostic(ParseStatus(ProgramWith("%arg0, %cst", 5, "arg0 ")),
                   "test.mlir:5:24: error: expected an operand");
}

TEST(BrokenInputTest, WrongTypeInTypeList) {
  ExpectDiagnostic(ParseStatus(ProgramWith("tensor<2x3xf32> loc(#loc)", 15, "tensor<2x3xi32>")),
                   "has type tensor<2x3xf32> but the op's types say tensor<2x3xi32>");
}

TEST(BrokenInputTest, UnknownOp) {
  ExpectDiagnostic(ParseStatus(ProgramWith("stablehlo.add %arg0", 13, "stablehlo.sub")),
                   "unknown operation 'stablehlo.sub'");
}

TEST(BrokenInputTest, UnbalancedRegion) {
  std::string text(kProgram);
  text.erase(text.find("    } do {"), 6);
  ExpectDiagnostic(ParseStatus(text));
  ExpectDiagnostic(ParseStatus("func.func @main() {\n  return\n"), "expected '}' to close the region");
  ExpectDiagnostic(ParseStatus("func.func @main() {\n  return\n}\n}\n"), "expected 'module' or 'func.func'");
}

TEST(BrokenInputTest, UnterminatedStringAndLiteral) {
  ExpectDiagnostic(ParseStatus("func.func @main() attributes {a = \"abc} {\n return\n}\n"),
                   "unterminated string literal");
  ExpectDiagnostic(ParseStatus("func.func @main() {\n %0 = stablehlo.constant dense<[1, 2"),
                   "unterminated dense literal");
}

TEST(BrokenInputTest, GarbageBytes) {
  std::string text = "func.func @main() {\n  ";
  text += std::string("\x00\xFF\x80\x01", 4);
  text += "\n}\n";
  ExpectDiagnostic(ParseStatus(text), "expected an operation");
  ExpectDiagnostic(ParseStatus(std::string("\xEF\xBB\xBFmodule {}", 12)));
}

TEST(BrokenInputTest, HugeNumbersAndDimensions) {
  ExpectDiagnostic(ParseStatus("func.func @main(%a: tensor<99999999999999999999xf32>) { return }"),
                   "tensor dimension is too large");
  ExpectDiagnostic(ParseStatus("func.func @main(%a: tensor<1000000000x1000000000xf32>) { return }"),
                   "too many elements");
  ExpectDiagnostic(ParseStatus("func.func @main() attributes {a = 99999999999999999999 : i64} { return }"),
                   "out of range");
  ExpectDiagnostic(ParseStatus("func.func @main() {\n %0:99999999999 = stablehlo.abs %x : tensor<f32>\n}"),
                   "invalid result count");
}

TEST(BrokenInputTest, TenMegabyteLiteralParses) {
  // 2.5M floats of "1.5, " is ~12.5 MB of text.
  const int n = 2500000;
  std::string text = "func.func @main() -> tensor<2500000xf32> {\n  %0 = stablehlo.constant dense<[";
  text.reserve(static_cast<size_t>(n) * 5 + 200);
  for (int i = 0; i < n; ++i) text += i ? ", 1.5" : "1.5";
  text += "]> : tensor<2500000xf32>\n  return %0 : tensor<2500000xf32>\n}\n";
  Result<Module> m = ParseModule(text, "big.mlir", ParseOptions{1, true});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const DenseElementsAttr* d =
      m->entry_function()->entry_block().operations()[0]->GetDense("value");
  EXPECT_EQ(d->raw_data().size(), static_cast<size_t>(n) * 4);
  // One element short: a clear error, not a crash.
  std::string shorter = text;
  shorter.replace(shorter.find("[1.5, 1.5"), 9, "[1.5");
  Status s = ParseModule(shorter, "big.mlir").status();
  EXPECT_NE(s.message().find("2499999"), std::string::npos) << s.message();
}

TEST(BrokenInputTest, TenMegabyteHexBlobParses) {
  const size_t bytes = 5 * 1024 * 1024;
  std::string text = "func.func @main() -> tensor<1310720xf32> {\n  %0 = stablehlo.constant dense<\"0x";
  text.append(2 * bytes, 'A');
  text += "\"> : tensor<1310720xf32>\n  return %0 : tensor<1310720xf32>\n}\n";
  EXPECT_TRUE(ParseModule(text, "blob.mlir").ok());
  text[text.find("0x") + 100] = 'Z';
  EXPECT_NE(ParseModule(text, "blob.mlir").status().message().find("invalid hexadecimal digit"),
            std::string::npos);
}

// A function of `depth` stablehlo.if ops, each nested in the previous one's
// first branch.
std::string NestedIfs(int depth) {
  std::string text = "func.func @main(%p: tensor<i1>) {\n";
  for (int i = 0; i < depth; ++i) text += "\"stablehlo.if\"(%p) ({\n";
  text += "stablehlo.return\n";
  for (int i = 0; i < depth; ++i) {
    text += "}, {\nstablehlo.return\n}) : (tensor<i1>) -> ()\n";
    text += i + 1 < depth ? "stablehlo.return\n" : "";
  }
  text += "return\n}\n";
  return text;
}

TEST(BrokenInputTest, DeepRegionNestingIsAnError) {
  ExpectDiagnostic(ParseStatus(NestedIfs(5000)), "nesting is deeper than 256 levels");
}

TEST(BrokenInputTest, ModerateRegionNestingWorks) {
  const std::string text = NestedIfs(100);
  EXPECT_TRUE(ParseStatus(text).ok()) << ParseStatus(text).ToString();
}

TEST(BrokenInputTest, NestingLimitCanBeLoweredForSmallStacks) {
  const std::string text = NestedIfs(40);
  ParseOptions options;
  EXPECT_TRUE(ParseModule(text, "test.mlir", options).ok());
  options.max_nesting_depth = 32;
  ExpectDiagnostic(ParseModule(text, "test.mlir", options).status(), "nesting is deeper than 32 levels");
  options.max_nesting_depth = 100000;  // clamped to 256
  EXPECT_TRUE(ParseModule(text, "test.mlir", options).ok());
}

TEST(BrokenInputTest, DeepAttributeTypeAndLiteralNestingIsAnError) {
  const int depth = 100000;
  std::string arrays = "func.func @main() attributes {a = " + std::string(depth, '[') + "} { return }";
  ExpectDiagnostic(ParseStatus(arrays), "nesting is deeper than 256 levels");
  std::string dicts = "func.func @main() attributes {a = ";
  for (int i = 0; i < 2000; ++i) dicts += "{b = ";
  ExpectDiagnostic(ParseStatus(dicts), "nesting is deeper than 256 levels");
  std::string tuples = "func.func @main(%a: ";
  for (int i = 0; i < depth; ++i) tuples += "tuple<";
  ExpectDiagnostic(ParseStatus(tuples), "");
  std::string functions = "func.func @main() attributes {t = " + std::string(depth, '(') + "} { return }";
  ExpectDiagnostic(ParseStatus(functions), "");
  std::string opaque = "func.func @main() attributes {t = #sdy.x" + std::string(depth, '<') + "} { return }";
  ExpectDiagnostic(ParseStatus(opaque), "nesting is deeper than 256 levels");
  std::string locs = "func.func @main() { return } loc(" + std::string(depth, '(') + ")";
  ExpectDiagnostic(ParseStatus(locs), "nesting is deeper than 256 levels");
  std::string dense = "func.func @main() { %0 = stablehlo.constant dense<" + std::string(depth, '[') +
                      "1" + std::string(depth, ']') + "> : tensor<1xf32>\n return }";
  ExpectDiagnostic(ParseStatus(dense), "");
}

TEST(BrokenInputTest, DeepTensorRankIsHandled) {
  std::string shape;
  for (int i = 0; i < 300; ++i) shape += "1x";
  std::string text = "func.func @main(%a: tensor<" + shape + "f32>) {\n return\n}\n";
  EXPECT_TRUE(ParseStatus(text).ok());
  std::string literal = "func.func @main() {\n %0 = stablehlo.constant dense<" +
                        std::string(300, '[') + "1" + std::string(300, ']') + "> : tensor<" +
                        shape + "f32>\n return\n}\n";
  ExpectDiagnostic(ParseStatus(literal), "nesting is deeper than 256 levels");
}

TEST(BrokenInputTest, HugeSplatsAreNotExpanded) {
  // 2^48 elements: stored once, never expanded for checking.
  ExpectDiagnostic(ParseStatus(R"(func.func @main(%a: tensor<2xf32>) {
  %0 = "stablehlo.reverse"(%a) {dimensions = dense<0> : tensor<281474976710656xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  return
})"),
                   "must be an array of integers");
  ExpectDiagnostic(ParseStatus(R"(func.func @main(%a: tensor<2xf32>) {
  %0 = "stablehlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<0> : tensor<16777216x16777216xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  return
})"),
                   "replica_groups is too large");
}

TEST(BrokenInputTest, SingleTypeCannotStandForManyResults) {
  ExpectDiagnostic(ParseStatus("func.func @main(%a: tensor<f32>) {\n  %0:65536 = stablehlo.add %a, %a : tensor<f32>\n  return\n}"),
                   "needs a function type");
}

TEST(BrokenInputTest, LongListsStayLinear) {
  // Checks that compare every pair would take hours here.
  const int n = 200000;
  std::string perm;
  std::string shape;
  for (int i = 0; i < n; ++i) {
    perm += (i ? ", " : "") + std::to_string(n - 1 - i);
    shape += "1x";
  }
  std::string text = "func.func @main(%a: tensor<" + shape + "f32>) {\n  %0 = stablehlo.transpose %a, dims = [" +
                     perm + "] : (tensor<" + shape + "f32>) -> tensor<" + shape + "f32>\n  return\n}\n";
  EXPECT_TRUE(ParseStatus(text).ok());
  std::string items = "func.func @main(%a: tensor<f32>) {\n  %0 = stablehlo.abs %a";
  for (int i = 0; i < n; ++i) items += ", k" + std::to_string(i) + " = 1";
  items += " : tensor<f32>\n  return\n}\n";
  EXPECT_TRUE(ParseStatus(items, /*verify=*/false).ok());
}

TEST(BrokenInputTest, VerifierRejectsMisplacedTerminators) {
  ExpectDiagnostic(ParseStatus("func.func @main() {\n  return\n  return\n}\n"),
                   "must be the last op in its block");
  ExpectDiagnostic(ParseStatus("func.func @main(%a: tensor<f32>) {\n  %0 = stablehlo.abs %a : tensor<f32>\n}\n"),
                   "function body must end with 'func.return'");
}

}  // namespace
}  // namespace berth::stablehlo
