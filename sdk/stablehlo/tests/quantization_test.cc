// Uniform quantized types: their parameters read from the type's text
// (every spelling the quant dialect writes, every malformed one refused
// with what is wrong), and LowerQuantizedTypes (no quantized type left, the
// result verifies, errors name the original op; the printer hooks it uses).
#include "berth/stablehlo/quantization.hpp"

#include "tests/test_util.hpp"

namespace berth::stablehlo {
namespace {

using testing::MustParse;

TEST(QuantizationTest, ReadsPerTensorParameters) {
  Result<UniformQuantization> q = ParseUniformQuantization("!quant.uniform<i8:f32, 0.1:-30>");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->storage, ElementType::kSI8);
  EXPECT_EQ(q->storage_min, -128);
  EXPECT_EQ(q->storage_max, 127);
  EXPECT_EQ(q->expressed, ElementType::kF32);
  EXPECT_FALSE(q->axis.has_value());
  EXPECT_EQ(q->scales, std::vector<double>{0.1});
  EXPECT_EQ(q->zero_points, std::vector<int64_t>{-30});

  // No zero point: 0. Exponent scales, unsigned storage.
  q = ParseUniformQuantization("!quant.uniform<ui8:f32, 3.400000e+01>");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->storage, ElementType::kUI8);
  EXPECT_EQ(q->storage_max, 255);
  EXPECT_EQ(q->scales, std::vector<double>{34.0});
  EXPECT_EQ(q->zero_points, std::vector<int64_t>{0});
}

TEST(QuantizationTest, ReadsPerAxisParametersAndAStorageRange) {
  Result<UniformQuantization> q =
      ParseUniformQuantization("!quant.uniform<i8<-127:127>:f32:2, {0.1:-30, 0.5:-20,2.0}>");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->storage_min, -127);
  EXPECT_EQ(q->storage_max, 127);
  EXPECT_EQ(q->axis, 2);
  EXPECT_EQ(q->scales, (std::vector<double>{0.1, 0.5, 2.0}));
  EXPECT_EQ(q->zero_points, (std::vector<int64_t>{-30, -20, 0}));
  q = ParseUniformQuantization("!quant.uniform<i4:bf16, 1.5:7>");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->storage, ElementType::kSI4);
  EXPECT_EQ(q->expressed, ElementType::kBF16);
}

TEST(QuantizationTest, RefusesMalformedTypesSayingWhatIsWrong) {
  const std::pair<const char*, const char*> cases[] = {
      {"!quant.any<i8:f32>", "expected !quant.uniform"},
      {"!quant.uniform<f32:f32, 0.5>", "storage type 'f32'"},
      {"!quant.uniform<i64:f32, 0.5>", "storage type 'i64'"},
      {"!quant.uniform<i8:i32, 0.5>", "expressed type 'i32'"},
      {"!quant.uniform<i8<-200:0>:f32, 0.5>", "storage range"},
      {"!quant.uniform<i8<5:1>:f32, 0.5>", "storage range"},
      {"!quant.uniform<i8:f32, -0.5>", "positive and finite"},
      {"!quant.uniform<i8:f32, 0>", "positive and finite"},
      {"!quant.uniform<i8:f32, 0.5:300>", "zero point 300"},
      {"!quant.uniform<i8:f32, {0.5:1}>", "needs a quantization axis"},
      {"!quant.uniform<i8:f32:0, 0.5:1>", "needs a list"},
      {"!quant.uniform<i8:f32:0, {0.5:1, }>", "expected a scale"},
      {"!quant.uniform<i8:f32, 0.5:1 junk>", "unexpected text"},
      {"!quant.uniform<i8:f32 0.5>", "expected ','"},
  };
  for (const auto& [text, why] : cases) {
    Result<UniformQuantization> q = ParseUniformQuantization(text);
    ASSERT_FALSE(q.ok()) << text;
    EXPECT_EQ(q.status().code(), StatusCode::kInvalidArgument) << text;
    EXPECT_NE(q.status().message().find(why), std::string::npos)
        << text << ": " << q.status().message();
  }
}

constexpr const char* kQuantizedAdd =
    R"(func.func @main(%x: tensor<2xf32>, %y: tensor<2x!quant.uniform<i8:f32, 0.5:-20>>) -> tensor<2x!quant.uniform<i8:f32, 0.5:-20>> {
  %q = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.1:-30>>
  %s = stablehlo.add %q, %y : (tensor<2x!quant.uniform<i8:f32, 0.1:-30>>, tensor<2x!quant.uniform<i8:f32, 0.5:-20>>) -> tensor<2x!quant.uniform<i8:f32, 0.5:-20>>
  return %s : tensor<2x!quant.uniform<i8:f32, 0.5:-20>>
}
)";

TEST(QuantizationTest, LoweringLeavesNoQuantizedTypeAndVerifies) {
  Module m = MustParse(kQuantizedAdd, /*verify=*/false);
  EXPECT_TRUE(HasQuantizedTypes(m));
  Result<Module> lowered = LowerQuantizedTypes(m);
  ASSERT_TRUE(lowered.ok()) << lowered.status().ToString();
  EXPECT_FALSE(HasQuantizedTypes(*lowered));
  const Function* main = lowered->function("main");
  ASSERT_NE(main, nullptr);
  // The quantized argument and result cross as their storage type.
  EXPECT_EQ(main->argument_types()[1].ToString(), "tensor<2xi8>");
  EXPECT_EQ(main->result_types()[0].ToString(), "tensor<2xi8>");
  std::string text = Print(*lowered);
  for (const char* op : {"stablehlo.divide", "stablehlo.clamp", "stablehlo.round_nearest_even",
                         "stablehlo.subtract", "stablehlo.multiply", "stablehlo.add"}) {
    EXPECT_NE(text.find(op), std::string::npos) << op << " in\n" << text;
  }
  // A module without quantized types verifies as it is.
  Result<Module> plain = VerifyLoweringQuantizedTypes(MustParse(
      "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  return %a : tensor<2xf32>\n}\n",
      false));
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_FALSE(HasQuantizedTypes(*plain));
}

// LowerQuantizedTypes of `text` fails with INVALID_ARGUMENT, its message
// holding each of `parts`.
void ExpectLoweringError(const char* text, std::initializer_list<const char*> parts) {
  Result<Module> lowered = LowerQuantizedTypes(MustParse(text, /*verify=*/false));
  ASSERT_FALSE(lowered.ok());
  EXPECT_EQ(lowered.status().code(), StatusCode::kInvalidArgument);
  for (const char* part : parts) {
    EXPECT_NE(lowered.status().message().find(part), std::string::npos)
        << lowered.status().message();
  }
}

// A lowered program that does not verify is reported at the op of the
// original program it came from (line 3 here), not in the lowered text.
TEST(QuantizationTest, ErrorsOfTheLoweredProgramNameTheOriginalOp) {
  ExpectLoweringError(R"(func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %q = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.5>>
  %s = stablehlo.add %q, %x : (tensor<2x!quant.uniform<i8:f32, 0.5>>, tensor<2xf32>) -> tensor<3x!quant.uniform<i8:f32, 0.5>>
  %d = stablehlo.uniform_dequantize %s : (tensor<3x!quant.uniform<i8:f32, 0.5>>) -> tensor<3xf32>
  return %d : tensor<3xf32>
}
)",
                      {":3:", "quantized types lowered"});
}

// Once lowered, only storage types would be compared: a function returning
// other parameters than it declares is refused first.
TEST(QuantizationTest, ReturningOtherParametersThanDeclaredIsRefused) {
  ExpectLoweringError(
      R"(func.func @main(%x: tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.5>> {
  %q = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.25>>
  return %q : tensor<2x!quant.uniform<i8:f32, 0.25>>
}
)",
      {":3:", "as result 0 of @main"});
}

TEST(QuantizationTest, PrintHooksReplaceOpsAndTrackLines) {
  Module m = MustParse(
      "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %0 = stablehlo.negate %a : tensor<2xf32>\n  %1 = stablehlo.abs %0 : tensor<2xf32>\n"
      "  return %1 : tensor<2xf32>\n}\n");
  std::vector<const Operation*> lines;
  PrintHooks hooks;
  hooks.type_text = [](Type t) {
    return t.ToString() == "tensor<2xf32>" ? std::string("tensor<2xf64>") : t.ToString();
  };
  hooks.op = [](const Operation& op, OpPrinter& p) -> Result<bool> {
    if (op.kind() != OpKind::kNegate) return false;
    // negate(a) written as 0 - a, on two lines.
    std::string zero = p.NewName();
    p.AddLine(
        zero +
        " = \"stablehlo.constant\"() {value = dense<0.0> : tensor<2xf64>} : () -> tensor<2xf64>");
    std::string difference = p.NewName();
    p.AddLine(difference + " = \"stablehlo.subtract\"(" + zero + ", " + p.NameOf(op.operand(0)) +
              ") : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>");
    p.Rename(op.result(0), difference);
    return true;
  };
  hooks.line_ops = &lines;
  Result<std::string> text = Print(m, hooks);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  Result<Module> reparsed = ParseModule(*text, "hooked.mlir", ParseOptions{.verify = true});
  ASSERT_TRUE(reparsed.ok()) << reparsed.status().ToString() << "\n" << *text;
  EXPECT_EQ(reparsed->function("main")->argument_types()[0].ToString(), "tensor<2xf64>");
  // Lines: module, func, constant, subtract (both the negate's), abs, return, }, }.
  const Block& body = m.function("main")->entry_block();
  ASSERT_GE(lines.size(), 6u) << *text;
  EXPECT_EQ(lines[0], nullptr);
  EXPECT_EQ(lines[1], nullptr);
  EXPECT_EQ(lines[2], body.operations()[0]);
  EXPECT_EQ(lines[3], body.operations()[0]);
  EXPECT_EQ(lines[4], body.operations()[1]);
  EXPECT_NE(text->find("\"stablehlo.abs\"(%1)"), std::string::npos) << *text;

  // A hook's error ends the printing with it.
  hooks.op = [](const Operation&, OpPrinter&) -> Result<bool> { return UnimplementedError("no"); };
  EXPECT_EQ(Print(m, hooks).status().code(), StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace berth::stablehlo
