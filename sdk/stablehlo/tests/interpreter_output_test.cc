// Values as the reference interpreter prints them (interpreter_output.hpp):
// the layout of FormatInterpreterValue and each element type's spelling
// from dense storage (InterpreterElementText), against texts written here.
#include <gmock/gmock.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "berth/stablehlo/interpreter_output.hpp"

namespace berth::stablehlo {
namespace {

TEST(InterpreterOutputTest, ValuesPrintAsTheReferenceInterpreterLaysThemOut) {
  const std::vector<int64_t> dims = {2, 2};
  EXPECT_EQ(FormatInterpreterValue("tensor<2x2xi8>", dims,
                                   [](int64_t i) { return std::to_string(i + 1); }),
            "tensor<2x2xi8> {\n  [\n    [1, 2],\n    [3, 4]\n  ]\n}");
  EXPECT_EQ(FormatInterpreterValue("tensor<ui8>", {}, [](int64_t) { return std::string("7"); }),
            "tensor<ui8> {7}");
}

TEST(InterpreterOutputTest, EachElementTypeSpellsItsValueFromItsStorage) {
  const uint8_t i1[] = {1, 0};
  EXPECT_EQ(InterpreterElementText(ElementType::kI1, i1, 0), "true");
  EXPECT_EQ(InterpreterElementText(ElementType::kI1, i1, 1), "false");
  // i4 held one per byte, sign-extended; ui4 zero-extended.
  const uint8_t narrow[] = {0xfd, 0x0d};
  EXPECT_EQ(InterpreterElementText(ElementType::kSI4, narrow, 0), "-3");
  EXPECT_EQ(InterpreterElementText(ElementType::kUI4, narrow, 1), "13");
  const int64_t wide[] = {INT64_MIN, 42};
  EXPECT_EQ(InterpreterElementText(ElementType::kSI64, wide, 0), "-9223372036854775808");
  const uint64_t big[] = {UINT64_MAX};
  EXPECT_EQ(InterpreterElementText(ElementType::kUI64, big, 0), "18446744073709551615");
  const uint16_t half[] = {0x3c00, 0xfc00};  // f16 1 and -inf
  EXPECT_EQ(InterpreterElementText(ElementType::kF16, half, 0), "1.000000e+00");
  EXPECT_EQ(InterpreterElementText(ElementType::kF16, half, 1), "-inf");
  const uint16_t bf16[] = {0x7fc0};  // NaN
  EXPECT_EQ(InterpreterElementText(ElementType::kBF16, bf16, 0), "nan");
  const uint8_t f8[] = {0x38};  // f8E4M3FN 1.0
  EXPECT_EQ(InterpreterElementText(ElementType::kF8E4M3FN, f8, 0), "1.000000e+00");
  const float complex[] = {1.5f, -2.0f, 0.25f, 3.0f};
  EXPECT_EQ(InterpreterElementText(ElementType::kComplex64, complex, 1),
            "[2.500000e-01, 3.000000e+00]");
  const double f64[] = {0.1};
  EXPECT_EQ(InterpreterElementText(ElementType::kF64, f64, 0), "1.000000e-01");
}

}  // namespace
}  // namespace berth::stablehlo
