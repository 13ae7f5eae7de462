// How the check.* harness ops compare values (interpreter_check.hpp): exact
// for integers and i1, NaN only matching NaN, an absolute tolerance, a ULP
// range counted across zero, complex numbers part by part, and the message
// naming the first difference. Randomized cases (seeded) are checked
// against references computed here: std::nextafter steps for ULPs, and the
// index of a planted difference.
#include <gmock/gmock.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "berth/stablehlo/interpreter_check.hpp"
#include "tests/test_util.hpp"

namespace berth::stablehlo {
namespace {

using ::testing::HasSubstr;

CheckSpec Spec(CheckSpec::Kind kind, const char* name = "check.test") {
  CheckSpec spec;
  spec.kind = kind;
  spec.name = name;
  return spec;
}

template <typename T>
Status Compare(ElementType type, std::vector<int64_t> dims, const std::vector<T>& actual,
               const std::vector<T>& expected, const CheckSpec& spec) {
  return CompareForCheck(type, dims, actual.data(), expected.data(), spec);
}

TEST(InterpreterCheckTest, IntegersOfEveryWidthCompareExactlyAndNameTheFirstDifference) {
  std::mt19937_64 random(20261207);
  for (int n : {1, 7, 8, 9, 31, 33, 64}) {
    std::vector<int64_t> a(static_cast<size_t>(n));
    for (int64_t& v : a) v = static_cast<int64_t>(random());
    std::vector<int64_t> b = a;
    EXPECT_TRUE(Compare(ElementType::kSI64, {n}, a, b, Spec(CheckSpec::kEqual)).ok());
    const size_t planted = static_cast<size_t>(random() % static_cast<uint64_t>(n));
    b[planted] ^= 1;
    Status status = Compare(ElementType::kSI64, {n}, a, b, Spec(CheckSpec::kEqual));
    EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
    EXPECT_THAT(status.message(),
                HasSubstr("check failed: check.test: element [" + std::to_string(planted) +
                          "] is " + std::to_string(a[planted]) + ", expected " +
                          std::to_string(b[planted]) + " (1 of " + std::to_string(n) +
                          " elements differ)"));
  }
  // Narrower integers: signed values print signed, unsigned ones unsigned.
  std::vector<int8_t> s8 = {-1, 5}, s8_other = {-2, 5};
  EXPECT_THAT(Compare(ElementType::kSI8, {2}, s8, s8_other, Spec(CheckSpec::kEqual)).message(),
              HasSubstr("element [0] is -1, expected -2"));
  std::vector<uint16_t> u16 = {65535, 1}, u16_other = {65534, 1};
  EXPECT_THAT(Compare(ElementType::kUI16, {2}, u16, u16_other, Spec(CheckSpec::kEqual)).message(),
              HasSubstr("element [0] is 65535, expected 65534"));
  std::vector<uint8_t> pred = {1, 0}, pred_other = {1, 1};
  EXPECT_THAT(
      Compare(ElementType::kI1, {1, 2}, pred, pred_other, Spec(CheckSpec::kEqual)).message(),
      HasSubstr("element [0, 1] is false, expected true"));
}

TEST(InterpreterCheckTest, NanMatchesOnlyNan) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> a = {nan, 1.0f}, b = {nan, 1.0f};
  for (CheckSpec::Kind kind : {CheckSpec::kEqual, CheckSpec::kAlmostEqual, CheckSpec::kClose}) {
    EXPECT_TRUE(Compare(ElementType::kF32, {2}, a, b, Spec(kind)).ok());
    std::vector<float> c = {1.0f, 1.0f};
    EXPECT_FALSE(Compare(ElementType::kF32, {2}, a, c, Spec(kind)).ok());
    EXPECT_FALSE(Compare(ElementType::kF32, {2}, c, a, Spec(kind)).ok());
  }
}

TEST(InterpreterCheckTest, AlmostEqualHoldsWithinTheToleranceOnly) {
  CheckSpec spec = Spec(CheckSpec::kAlmostEqual);
  spec.tolerance = 0.5;
  std::vector<double> a = {1.0, -3.0}, within = {1.5, -3.25}, beyond = {1.0, -3.5625};
  EXPECT_TRUE(Compare(ElementType::kF64, {2}, a, within, spec).ok());
  Status status = Compare(ElementType::kF64, {2}, a, beyond, spec);
  EXPECT_THAT(status.message(),
              HasSubstr("element [1] is -3, expected -3.5625 (difference 0.5625 > tolerance 0.5)"));
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> infinite = {inf}, same = {inf}, other = {-inf};
  EXPECT_TRUE(Compare(ElementType::kF32, {1}, infinite, same, spec).ok());
  EXPECT_FALSE(Compare(ElementType::kF32, {1}, infinite, other, spec).ok());
}

TEST(InterpreterCheckTest, UlpDistanceMatchesNextafterStepsAcrossZero) {
  std::mt19937 random(7);
  std::uniform_real_distribution<float> value(-4.0f, 4.0f);
  for (int trial = 0; trial < 200; ++trial) {
    const float x = trial % 10 == 0 ? 0.0f : value(random);
    const int steps = trial % 7;
    const float toward = trial % 2 ? std::numeric_limits<float>::infinity()
                                   : -std::numeric_limits<float>::infinity();
    float y = x;
    for (int k = 0; k < steps; ++k) y = std::nextafter(y, toward);
    CheckSpec spec = Spec(CheckSpec::kClose);
    spec.max_ulps = steps;
    std::vector<float> a = {x}, b = {y};
    EXPECT_TRUE(Compare(ElementType::kF32, {}, a, b, spec).ok()) << x << " " << y << " " << steps;
    if (steps > 0) {
      spec.max_ulps = steps - 1;
      Status status = Compare(ElementType::kF32, {}, a, b, spec);
      EXPECT_THAT(status.message(),
                  HasSubstr("(" + std::to_string(steps) + " ULPs apart, allowed 0.." +
                            std::to_string(steps - 1) + ")"));
      spec.max_ulps = steps;
      spec.min_ulps = steps + 1;
      EXPECT_FALSE(Compare(ElementType::kF32, {}, a, b, spec).ok());
    }
  }
  // +0 and -0 are equal (0 ULPs); the smallest subnormals either side of zero are 2 apart.
  CheckSpec exact = Spec(CheckSpec::kClose);
  exact.max_ulps = 0;
  std::vector<double> zero = {0.0}, negative_zero = {-0.0};
  EXPECT_TRUE(Compare(ElementType::kF64, {}, zero, negative_zero, exact).ok());
  std::vector<double> tiny = {std::numeric_limits<double>::denorm_min()},
                      negative_tiny = {-tiny[0]};
  CheckSpec two = Spec(CheckSpec::kClose);
  two.max_ulps = 2;
  EXPECT_TRUE(Compare(ElementType::kF64, {}, tiny, negative_tiny, two).ok());
  two.max_ulps = 1;
  EXPECT_FALSE(Compare(ElementType::kF64, {}, tiny, negative_tiny, two).ok());
  // Half types count steps of their own bit patterns: 1.0 and the next bf16 up.
  std::vector<uint16_t> one = {0x3F80}, next = {0x3F81};
  CheckSpec one_ulp = Spec(CheckSpec::kClose);
  one_ulp.max_ulps = 1;
  EXPECT_TRUE(Compare(ElementType::kBF16, {}, one, next, one_ulp).ok());
  std::vector<uint16_t> half_one = {0x3C00}, half_next = {0x3C02};
  EXPECT_FALSE(Compare(ElementType::kF16, {}, half_one, half_next, one_ulp).ok());
}

TEST(InterpreterCheckTest, ComplexNumbersCompareByPart) {
  std::vector<float> a = {1, 2, 3, 4}, b = {1, 2, 3, 5};  // two complex<f32>
  Status status = Compare(ElementType::kComplex64, {2}, a, b, Spec(CheckSpec::kEqual));
  EXPECT_THAT(status.message(),
              HasSubstr("element [1, 1] is 4, expected 5 (1 of 4 elements differ)"));
}

TEST(InterpreterCheckTest, TypesItDoesNotCompareAreInvalidArguments) {
  std::vector<uint8_t> a = {1}, b = {1};
  EXPECT_FALSE(IsCheckableType(ElementType::kTF32));
  EXPECT_FALSE(IsCheckableType(ElementType::kIndex));
  Status status = Compare(ElementType::kIndex, {1}, a, b, Spec(CheckSpec::kEqual));
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("index"));
}

// i4 as values (the high bits of a byte ignored, the low four sign-extended),
// f8E4M3FN as the floats its bits stand for, with the spec's tolerance.
TEST(InterpreterCheckTest, NarrowTypesCompareAsTheValuesTheirBitsStandFor) {
  std::vector<uint8_t> a = {0x0f, 0x07, 0x18}, b = {0xff, 0x07, 0x08};
  EXPECT_TRUE(IsCheckableType(ElementType::kSI4));
  EXPECT_TRUE(Compare(ElementType::kSI4, {3}, a, b, Spec(CheckSpec::kEqual)).ok());
  b[1] = 0x06;
  Status status = Compare(ElementType::kSI4, {3}, a, b, Spec(CheckSpec::kEqual));
  EXPECT_THAT(status.message(), HasSubstr("element [1] is 7, expected 6"));
  // 0x38 is 1.0 and 0x39 1.125 in f8E4M3FN; 0x7f is its NaN.
  std::vector<uint8_t> x = {0x38, 0x7f}, y = {0x39, 0x7f};
  EXPECT_THAT(Compare(ElementType::kF8E4M3FN, {2}, x, y, Spec(CheckSpec::kEqual)).message(),
              HasSubstr("element [0] is 1, expected 1.125"));
  CheckSpec loose = Spec(CheckSpec::kAlmostEqual);
  loose.tolerance = 0.2;
  EXPECT_TRUE(Compare(ElementType::kF8E4M3FN, {2}, x, y, loose).ok());
}

TEST(InterpreterCheckTest, SpecComesFromTheOpsAttributes) {
  Module module = testing::MustParse(R"(func.func @main() {
  %0 = stablehlo.constant dense<1.0> : tensor<f32>
  check.expect_almost_eq_const %0, dense<1.0> : tensor<f32> {tolerance = 0.25 : f64}
  check.expect_close %0, %0, max_ulp_difference = 5 : tensor<f32>, tensor<f32>
  check.expect_eq_const %0, dense<1.0> : tensor<f32>
  func.return
})");
  std::span<Operation* const> ops = module.functions()[0]->entry_block().operations();
  ASSERT_GE(ops.size(), 4u);
  EXPECT_TRUE(IsComparingCheck(*ops[1]));
  EXPECT_FALSE(IsComparingCheck(*ops[0]));
  CheckSpec almost = CheckSpecOf(*ops[1]);
  EXPECT_EQ(almost.kind, CheckSpec::kAlmostEqual);
  EXPECT_EQ(almost.tolerance, 0.25);
  EXPECT_EQ(almost.name, "check.expect_almost_eq_const");
  CheckSpec close = CheckSpecOf(*ops[2]);
  EXPECT_EQ(close.kind, CheckSpec::kClose);
  EXPECT_EQ(close.max_ulps, 5);
  EXPECT_EQ(CheckSpecOf(*ops[3]).kind, CheckSpec::kEqual);
}

}  // namespace
}  // namespace berth::stablehlo
