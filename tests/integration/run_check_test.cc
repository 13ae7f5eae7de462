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

TEST_F(RunCheckTest, CheckExitsZeroWhenAllPass) {
  std::string file = std::string(BERTH_SOURCE_ROOT) + "/../shared/conformance/stablehlo/check.mlir";
  if (!std::ifstream(file)) GTEST_SKIP() << "no conformance sample";
  testing::CommandResult result = RunCommand(Berth("check " + ShellQuote(file)));
  EXPECT_EQ(result.exit_code, 0) << result.out;
  EXPECT_THAT(result.out, HasSubstr("0 failed, 0 errors, 0 unsupported"));
}

}  // namespace
}  // namespace berth
