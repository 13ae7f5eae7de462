// The interpreter test harness ops on the CPU plugin: interpreter.probe and
// check.expect_serialized_eq (probes kept in memory per instance, by id and
// iteration) and interpreter.print (standard output, the reference
// interpreter's format), in the pretty forms the upstream interpreter tests
// write.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "program_runner.hpp"

namespace berth {
namespace {

using ::testing::HasSubstr;
using testing::CpuRunner;
using testing::Literal;

TEST(CpuHarnessTest, SerializedEqComparesWithTheProbedValueOfEachIteration) {
  Result<std::vector<Literal>> out = CpuRunner::Get().Run(R"(
func.func @main() {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %three = stablehlo.constant dense<3> : tensor<i64>
  %r:2 = stablehlo.while(%i = %zero, %sum = %zero) : tensor<i64>, tensor<i64>
   cond {
    %lt = stablehlo.compare LT, %i, %three : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %next = stablehlo.add %i, %one : tensor<i64>
    %s = stablehlo.add %sum, %next : tensor<i64>
    %p = interpreter.probe %s, probe_id = "sums" : tensor<i64>
    stablehlo.return %next, %p : tensor<i64>, tensor<i64>
  }
  %two = stablehlo.constant dense<3> : tensor<i64>
  %six = stablehlo.constant dense<6> : tensor<i64>
  check.expect_serialized_eq %one, probe_id = "sums" : tensor<i64>
  check.expect_serialized_eq %two, probe_id = "sums", iter = 1 : tensor<i64>
  check.expect_serialized_eq %six, probe_id = "sums", iter = 2 : tensor<i64>
  %f = stablehlo.constant dense<[0x7FC00000, -0.0, 1.5]> : tensor<3xf32>
  %q = interpreter.probe %f, probe_id = "f" : tensor<3xf32>
  check.expect_serialized_eq %q, probe_id = "f" : tensor<3xf32>
  func.return
}
)", {});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
}

TEST(CpuHarnessTest, SerializedEqFailsOnAnotherValueOrAMissingProbe) {
  // Each case probes %a = [1, 2] as "a", then checks `check` against it.
  struct Case {
    const char* check;
    const char* message;
  };
  const Case cases[] = {
      {R"(%b = stablehlo.constant dense<[1, 3]> : tensor<2xi32>
  check.expect_serialized_eq %b, probe_id = "a" : tensor<2xi32>)",
       "check failed: check.expect_serialized_eq 'a': element [1] is 3, expected 2"},
      {R"(check.expect_serialized_eq %a, probe_id = "a", iter = 1 : tensor<2xi32>)",
       "no value was probed as 'a' at iteration 1"},
      {R"(%b = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  check.expect_serialized_eq %b, probe_id = "a" : tensor<2xi64>)",
       "'a' was tensor<2xi32>, the value is tensor<2xi64>"},
  };
  for (const Case& c : cases) {
    const std::string program = std::string(R"(
func.func @main() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %p = interpreter.probe %a, probe_id = "a" : tensor<2xi32>
  )") + c.check + "\n  func.return\n}\n";
    Status status = CpuRunner::Get().Run(program, {}).status();
    EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition) << status.ToString();
    EXPECT_THAT(status.message(), HasSubstr(c.message));
  }
}

// Each print whole, named by its operand, as printing.mlir's CHECK lines
// expect: nested rows, floats as %.6e, i1 as true/false, scalars on one line.
TEST(CpuHarnessTest, PrintWritesTheValueToStandardOutputAsTheReferenceInterpreter) {
  ::testing::internal::CaptureStdout();
  Result<std::vector<Literal>> out = CpuRunner::Get().Run(R"(
func.func @main(%x: tensor<2x2xi8>) -> tensor<2x2xi8> {
  interpreter.print %x : tensor<2x2xi8>
  %b = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  "interpreter.print"(%b) : (tensor<2xi1>) -> ()
  %s = stablehlo.constant dense<1.5> : tensor<f32>
  interpreter.print %s : tensor<f32>
  return %x : tensor<2x2xi8>
}
)", {Literal::Of<int8_t>({1, 2, -3, 4}, {2, 2})});
  const std::string printed = ::testing::internal::GetCapturedStdout();
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(printed, "%x = tensor<2x2xi8> {\n  [\n    [1, 2],\n    [-3, 4]\n  ]\n}\n"
                     "%b = tensor<2xi1> {\n  [true, false]\n}\n"
                     "%s = tensor<f32> {1.500000e+00}\n");
}

// jax.export's @shape_assertion: a true condition passes; a false one fails
// the execution with error_message, its {0}, {1} the operands after the
// condition.
TEST(CpuHarnessTest, ShapeAssertionFailsWithItsMessageFilledIn) {
  const std::string program = R"mlir(
func.func @main(%b: tensor<i64>) -> tensor<i64> {
  %one = stablehlo.constant dense<1> : tensor<i64>
  %ok = stablehlo.compare GE, %b, %one, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
  stablehlo.custom_call @shape_assertion(%ok, %b, %one) {api_version = 2 : i32, error_message = "Expected value >= {1} for 'b'; got 'b' = {0} ({2} is no placeholder)", has_side_effect = true} : (tensor<i1>, tensor<i64>, tensor<i64>) -> ()
  return %b : tensor<i64>
}
)mlir";
  Result<std::vector<Literal>> out = CpuRunner::Get().Run(program, {Literal::Of<int64_t>({3}, {})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at(0).Values<int64_t>()[0], 3);
  out = CpuRunner::Get().Run(program, {Literal::Of<int64_t>({-2}, {})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), HasSubstr("shape assertion failed: Expected value >= 1 for "
                                                "'b'; got 'b' = -2 ({2} is no placeholder)"));
}

// Memory-kind placement annotations pass their operand through.
TEST(CpuHarnessTest, PlacementAnnotationsAreTheValueItself) {
  Result<std::vector<Literal>> out =
      CpuRunner::Get().Run(R"(
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.custom_call @annotate_device_placement(%x) {has_side_effect = true, mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<3xf32>) -> tensor<3xf32>
  %1 = stablehlo.custom_call @MoveToHost(%0) : (tensor<3xf32>) -> tensor<3xf32>
  %2 = stablehlo.custom_call @MoveToDevice(%1) : (tensor<3xf32>) -> tensor<3xf32>
  return %2 : tensor<3xf32>
}
)",
                           {Literal::Of<float>({1.5f, -2.0f, 0.25f}, {3})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_THAT(out->at(0).Values<float>(), ::testing::ElementsAre(1.5f, -2.0f, 0.25f));
}

}  // namespace
}  // namespace berth
