// Helpers of the cpu kernel tests: running a snippet on the CPU plugin
// (tests/support/program_runner.hpp) and building inputs and expectations.
#ifndef BERTH_TESTS_CPU_KERNEL_TEST_UTIL_HPP_
#define BERTH_TESTS_CPU_KERNEL_TEST_UTIL_HPP_

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "program_runner.hpp"

namespace berth::testing {

// The gmock matchers the cpu kernel tests (in namespace berth::testing)
// name unqualified.
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

// Runs `program` on `args` into `std::vector<Literal> outputs`, asserting
// success.
#define BERTH_RUN(outputs, program, ...)                                                     \
  auto outputs##_result = ::berth::testing::CpuRunner::Get().Run(program, __VA_ARGS__);     \
  ASSERT_TRUE(outputs##_result.ok()) << outputs##_result.status().ToString();               \
  std::vector<::berth::testing::Literal> outputs = std::move(outputs##_result).value()

// The outputs of `program` on `args`; a failed run fails the test (non-fatal)
// and gives no outputs.
inline std::vector<Literal> RunProgram(const std::string& program,
                                       const std::vector<Literal>& args) {
  Result<std::vector<Literal>> out = CpuRunner::Get().Run(program, args);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? std::move(out).value() : std::vector<Literal>{};
}

// The status of running `program` (for error tests).
inline Status RunStatus(const std::string& program, const std::vector<Literal>& args) {
  return CpuRunner::Get().Run(program, args).status();
}

// As RunStatus, and the run must fail.
inline Status RunExpectingError(const std::string& program, const std::vector<Literal>& args) {
  Status status = RunStatus(program, args);
  EXPECT_FALSE(status.ok());
  return status;
}

// Values 0, 1, 2 ... converted to T.
template <typename T>
std::vector<T> Iota(size_t n, int64_t first = 0) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<T>(first + static_cast<int64_t>(i));
  return v;
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

#endif  // BERTH_TESTS_CPU_KERNEL_TEST_UTIL_HPP_
