// Helpers of the reduction / control-flow / linear-algebra kernel tests.
#ifndef BERTH_TESTS_CPU_REDUCTION_TEST_SUPPORT_HPP_
#define BERTH_TESTS_CPU_REDUCTION_TEST_SUPPORT_HPP_

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "program_runner.hpp"

namespace berth::testing {

// True when `status` says the program uses an op the cpu plugin has no
// kernel for: tests needing ops of other kernel families (compare, select,
// maximum ...) skip instead of failing where those are not built in yet.
inline bool LacksKernel(const Status& status) {
  return status.code() == StatusCode::kUnimplemented &&
         status.message().find("is not supported by the cpu plugin") != std::string::npos;
}

// Runs `program` on `args` into `std::vector<Literal> outputs`, asserting
// success.
#define BERTH_RUN(outputs, program, ...)                                                     \
  auto outputs##_result = ::berth::testing::CpuRunner::Get().Run(program, __VA_ARGS__);     \
  ASSERT_TRUE(outputs##_result.ok()) << outputs##_result.status().ToString();               \
  std::vector<::berth::testing::Literal> outputs = std::move(outputs##_result).value()

// As BERTH_RUN, but skips the test when the program needs a kernel of
// another family that this build lacks.
#define BERTH_RUN_OR_SKIP(outputs, program, ...)                                             \
  auto outputs##_result = ::berth::testing::CpuRunner::Get().Run(program, __VA_ARGS__);     \
  if (!outputs##_result.ok() && ::berth::testing::LacksKernel(outputs##_result.status())) { \
    GTEST_SKIP() << outputs##_result.status().ToString();                                  \
  }                                                                                         \
  ASSERT_TRUE(outputs##_result.ok()) << outputs##_result.status().ToString();               \
  std::vector<::berth::testing::Literal> outputs = std::move(outputs##_result).value()

// The status of running `program` (for error tests).
inline Status RunStatus(const std::string& program, const std::vector<Literal>& args) {
  return CpuRunner::Get().Run(program, args).status();
}

inline uint32_t FloatBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

inline float BitsToFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

// bfloat16 bit patterns (round to nearest even) and back.
inline uint16_t ToBf16(float f) {
  uint32_t bits = FloatBits(f);
  return static_cast<uint16_t>((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
}
inline float FromBf16(uint16_t bits) { return BitsToFloat(static_cast<uint32_t>(bits) << 16); }

}  // namespace berth::testing

#endif  // BERTH_TESTS_CPU_REDUCTION_TEST_SUPPORT_HPP_
