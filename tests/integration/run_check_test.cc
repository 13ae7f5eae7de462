// `berth run` and `berth check` end to end, through the real binary and the
// cpu plugin found in the build tree.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "cli/host_array.hpp"
#include "test_util.hpp"

namespace berth {
namespace {

using ::testing::HasSubstr;
using testing::RunCommand;
using testing::ShellQuote;

constexpr char kAdd[] = R"(func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %c = stablehlo.add %a, %b : tensor<3xf32>
  return %c : tensor<3xf32>
}
)";

class RunCheckTest : public ::testing::Test {
 protected:
  std::string Berth(const std::string& args) { return std::string(BERTH_EXE) + " " + args; }
  testing::TempDir dir_;
};

TEST_F(RunCheckTest, RunPrintsResultsAsMlirLiterals) {
  std::string program = dir_.Write("add.mlir", kAdd).string();
  testing::CommandResult result = RunCommand(Berth(
      "run " + ShellQuote(program) + " --arg 'dense<[1.0, 2.5, -3.0]> : tensor<3xf32>'" +
      " --arg 'dense<[1.0, 0.5, 0x7FC00000]> : tensor<3xf32>'"));
  ASSERT_EQ(result.exit_code, 0) << result.out;
  EXPECT_EQ(result.out, "dense<[2.0, 3.0, 0x7FC00000]> : tensor<3xf32>\n");
}

TEST_F(RunCheckTest, RunPrintsJsonAndWritesNpy) {
  std::string program = dir_.Write("add.mlir", kAdd).string();
  std::string out = (dir_ / "out.npy").string();
  testing::CommandResult result = RunCommand(Berth(
      "run " + ShellQuote(program) + " --json --out " + ShellQuote(out) +
      " --arg 'dense<[1.0, 2.0, 3.0]> : tensor<3xf32>' --arg 'dense<1.0> : tensor<3xf32>'"));
  ASSERT_EQ(result.exit_code, 0) << result.out;
  nlohmann::json report = nlohmann::json::parse(result.out);
  ASSERT_EQ(report["results"].size(), 1u);
  EXPECT_EQ(report["results"][0]["dtype"], "f32");
  EXPECT_EQ(report["results"][0]["shape"], nlohmann::json::array({3}));
  EXPECT_EQ(report["results"][0]["data"], nlohmann::json::array({2.0, 3.0, 4.0}));
  Result<cli::HostArray> array = cli::ReadNpy(out);
  ASSERT_TRUE(array.ok()) << array.status().ToString();
  EXPECT_EQ(array->type, ElementType::kF32);
  EXPECT_EQ(array->dims, std::vector<int64_t>{3});
  float values[3];
  std::memcpy(values, array->bytes.data(), sizeof(values));
  EXPECT_EQ(values[2], 4.0f);
}

TEST_F(RunCheckTest, RunTakesNpyArguments) {
  std::string program = dir_.Write("add.mlir", kAdd).string();
  cli::HostArray input{ElementType::kF32, {3}, std::vector<std::byte>(12)};
  float values[3] = {10, 20, 30};
  std::memcpy(input.bytes.data(), values, sizeof(values));
  std::string npy = (dir_ / "in.npy").string();
  ASSERT_TRUE(cli::WriteNpy(npy, input).ok());
  testing::CommandResult result = RunCommand(Berth(
      "run " + ShellQuote(program) + " --arg " + ShellQuote(npy) + " --arg " + ShellQuote(npy)));
  ASSERT_EQ(result.exit_code, 0) << result.out;
  EXPECT_EQ(result.out, "dense<[20.0, 40.0, 60.0]> : tensor<3xf32>\n");
}

TEST_F(RunCheckTest, RunReportsParseErrorsWithFileLineAndColumn) {
  std::string program = dir_.Write("bad.mlir", "func.func @main() {\n  %x = stablehlo.constant dense<1> : tensor<i32\n}\n").string();
  testing::CommandResult result = RunCommand(Berth("run " + ShellQuote(program) + " 2>&1"));
  EXPECT_EQ(result.exit_code, 1);
  // The missing '>' is found at the '}' that follows it.
  EXPECT_THAT(result.out, HasSubstr(program + ":3:1: error: "));
}

TEST_F(RunCheckTest, RunRejectsAMalformedArgumentAsUsage) {
  std::string program = dir_.Write("add.mlir", kAdd).string();
  testing::CommandResult result =
      RunCommand(Berth("run " + ShellQuote(program) + " --arg 'dense<[1.0, oops]> : tensor<2xf32>' 2>&1"));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.out, HasSubstr("--arg 0"));
}

TEST_F(RunCheckTest, RunRejectsWrongArgumentTypes) {
  std::string program = dir_.Write("add.mlir", kAdd).string();
  testing::CommandResult result = RunCommand(Berth(
      "run " + ShellQuote(program) + " --arg 'dense<1> : tensor<3xi32>' --arg 'dense<1> : tensor<3xi32>' 2>&1"));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.out, HasSubstr("argument 0 must be tensor<3xf32>"));
}

constexpr char kCases[] = R"(// a passing case
func.func @main() {
  %c = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  check.expect_eq_const %c, dense<[1, 2]> : tensor<2xi32>
  func.return
}

// -----

func.func @main() {
  %c = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  check.expect_eq_const %c, dense<[1, 3]> : tensor<2xi32>
  func.return
}

// -----

func.func @main() {
  %c = stablehlo.constant dense<[1, 2]> : tensor<2xi32
}

// -----

func.func @main() {
  %c = stablehlo.constant dense<1.0> : tensor<f32>
  %d = stablehlo.custom_call @vendor.magic(%c) : (tensor<f32>) -> tensor<f32>
  func.return
}
)";

TEST_F(RunCheckTest, CheckClassifiesEveryCase) {
  std::string file = dir_.Write("cases.mlir", kCases).string();
  testing::CommandResult result = RunCommand(Berth("check --json " + ShellQuote(file)));
  EXPECT_EQ(result.exit_code, 1);
  nlohmann::json report = nlohmann::json::parse(result.out);
  ASSERT_EQ(report["cases"].size(), 4u);
  EXPECT_EQ(report["cases"][0]["status"], "pass");
  EXPECT_EQ(report["cases"][0]["line"], 1);
  EXPECT_EQ(report["cases"][1]["status"], "fail");
  EXPECT_THAT(report["cases"][1]["message"].get<std::string>(), HasSubstr("element [1] is 2, expected 3"));
  EXPECT_EQ(report["cases"][2]["status"], "error");
  EXPECT_THAT(report["cases"][2]["message"].get<std::string>(),
              ::testing::ContainsRegex(file + ":(19|20):[0-9]+: error"));
  EXPECT_EQ(report["cases"][3]["status"], "unsupported");
  EXPECT_THAT(report["cases"][3]["message"].get<std::string>(), HasSubstr("vendor.magic"));
  EXPECT_EQ(report["summary"]["pass"], 1);
  EXPECT_EQ(report["summary"]["fail"], 1);
  EXPECT_EQ(report["summary"]["error"], 1);
  EXPECT_EQ(report["summary"]["unsupported"], 1);
}

TEST_F(RunCheckTest, ParseOnlyPassesEveryParsableCase) {
  std::string file = dir_.Write("cases.mlir", kCases).string();
  testing::CommandResult result = RunCommand(Berth("check --parse-only --json " + ShellQuote(file)));
  EXPECT_EQ(result.exit_code, 1);  // the third case does not parse
  nlohmann::json report = nlohmann::json::parse(result.out);
  EXPECT_EQ(report["summary"]["pass"], 3);
  EXPECT_EQ(report["summary"]["error"], 1);
}

// A file as the interpreter suite writes one: arguments on its RUN line,
// results matched by CHECK lines in the reference interpreter's format.
std::string ArgsFile(const std::string& args, const std::string& row) {
  return "// RUN: stablehlo-translate %s --interpret --args=\"" + args +
         "\" | FileCheck %s\n"
         "// RUN: not stablehlo-translate %s --interpret --args=\"not_array\"\n"
         R"(
func.func @main(%a: tensor<2x2xi32>, %b: tensor<2x2xi32>) -> (tensor<2x2xi32>, tensor<f32>) {
  %0 = stablehlo.add %a, %b : tensor<2x2xi32>
  %1 = stablehlo.constant dense<2.5> : tensor<f32>
  return %0, %1 : tensor<2x2xi32>, tensor<f32>
}

// CHECK:      tensor<2x2xi32> {
// CHECK-NEXT:   [
// CHECK-NEXT:     [11, 22],
// CHECK-NEXT:     )" +
         row + R"(
// CHECK-NEXT:   ]
// CHECK-NEXT: }
// CHECK-NEXT: tensor<f32> {2.500000e+00}
)";
}

TEST_F(RunCheckTest, CheckRunsWithTheRunLinesArgumentsAndMatchesCheckLines) {
  const std::string args =
      "[dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>, dense<[[10, 20], [30, 40]]> : tensor<2x2xi32>]";
  std::string good = dir_.Write("good.mlir", ArgsFile(args, "[33, 44]")).string();
  testing::CommandResult result = RunCommand(Berth("check " + ShellQuote(good)));
  EXPECT_EQ(result.exit_code, 0) << result.out;
  EXPECT_THAT(result.out, HasSubstr("1 passed, 0 failed"));

  // A result that differs from its CHECK line fails, naming the line.
  std::string wrong = dir_.Write("wrong.mlir", ArgsFile(args, "[33, 45]")).string();
  result = RunCommand(Berth("check --json " + ShellQuote(wrong)));
  EXPECT_EQ(result.exit_code, 1);
  nlohmann::json report = nlohmann::json::parse(result.out);
  EXPECT_EQ(report["cases"][0]["status"], "fail");
  EXPECT_THAT(report["cases"][0]["message"].get<std::string>(), HasSubstr("CHECK-NEXT at line 13"));
  EXPECT_THAT(report["cases"][0]["message"].get<std::string>(), HasSubstr("[33, 44]"));

  // An argument that is not a dense literal is an error naming it.
  std::string bad = dir_.Write("bad.mlir", ArgsFile("[4.0 : f32]", "[33, 44]")).string();
  result = RunCommand(Berth("check --json " + ShellQuote(bad)));
  EXPECT_EQ(result.exit_code, 1);
  report = nlohmann::json::parse(result.out);
  EXPECT_EQ(report["cases"][0]["status"], "error");
  EXPECT_THAT(report["cases"][0]["message"].get<std::string>(),
              HasSubstr("'4.0 : f32' is not a dense literal"));
}

TEST_F(RunCheckTest, RunPrintsComplexAndNarrowFloatResultsAsLiterals) {
  std::string program = dir_.Write("complex.mlir", R"(
func.func @main() -> (tensor<2xcomplex<f32>>, tensor<3xf8E4M3FN>) {
  %0 = stablehlo.constant dense<[(1.5, -2.0), (0.0, 3.25)]> : tensor<2xcomplex<f32>>
  %1 = stablehlo.constant dense<[1.0, -0.5, 448.0]> : tensor<3xf8E4M3FN>
  return %0, %1 : tensor<2xcomplex<f32>>, tensor<3xf8E4M3FN>
}
)")
                            .string();
  testing::CommandResult result = RunCommand(Berth("run " + ShellQuote(program)));
  ASSERT_EQ(result.exit_code, 0) << result.out;
  EXPECT_EQ(result.out, "dense<[(1.5, -2.0), (0.0, 3.25)]> : tensor<2xcomplex<f32>>\n"
                        "dense<[1.0, -0.5, 448.0]> : tensor<3xf8E4M3FN>\n");
}

TEST_F(RunCheckTest, CheckExitsZeroWhenAllPass) {
  std::string file = std::string(BERTH_SOURCE_ROOT) + "/../shared/conformance/stablehlo/check.mlir";
  if (!std::ifstream(file)) GTEST_SKIP() << "no conformance sample";
  testing::CommandResult result = RunCommand(Berth("check " + ShellQuote(file)));
  EXPECT_EQ(result.exit_code, 0) << result.out;
  EXPECT_THAT(result.out, HasSubstr("0 failed, 0 errors, 0 unsupported"));
}

}  // namespace
}  // namespace berth
