// Helpers for the cpu kernel tests: running a snippet on the CPU plugin and
// skipping a test whose program needs a kernel of another family that this
// build does not have yet (e.g. a sort comparator's stablehlo.compare).
#ifndef BERTH_TESTS_CPU_KERNEL_TEST_UTIL_HPP_
#define BERTH_TESTS_CPU_KERNEL_TEST_UTIL_HPP_

#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

#include "program_runner.hpp"

namespace berth::testing {

// True when `status` says the program uses an op of another kernel family
// that has no kernel in this build.
inline bool IsMissingForeignKernel(const Status& status) {
  if (status.code() != StatusCode::kUnimplemented) return false;
  std::string m(status.message());
  if (m.find("is not supported by the cpu plugin") == std::string::npos) return false;
  for (const char* op : {"'stablehlo.compare'", "'stablehlo.maximum'", "'stablehlo.minimum'",
                         "'stablehlo.and'", "'stablehlo.or'", "'stablehlo.select'",
                         "'stablehlo.not'", "'stablehlo.iota'", "'stablehlo.convert'"}) {
    if (m.find(op) != std::string::npos) return true;
  }
  return false;
}

// Values 0, 1, 2 ... converted to T.
template <typename T>
std::vector<T> Iota(size_t n, int64_t first = 0) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<T>(first + static_cast<int64_t>(i));
  return v;
}

}  // namespace berth::testing

// Runs `program` on `args` into `out` (a std::vector<Literal>); skips the
// test when a foreign kernel is missing, fails it on any other error.
#define BERTH_RUN_OR_SKIP(out, program, args)                                             \
  std::vector<::berth::testing::Literal> out;                                             \
  do {                                                                                    \
    auto berth_run_result_ = ::berth::testing::CpuRunner::Get().Run(program, args);       \
    if (!berth_run_result_.ok() &&                                                        \
        ::berth::testing::IsMissingForeignKernel(berth_run_result_.status())) {           \
      GTEST_SKIP() << "needs a kernel of another family: "                                \
                   << berth_run_result_.status().ToString();                              \
    }                                                                                     \
    ASSERT_TRUE(berth_run_result_.ok()) << berth_run_result_.status().ToString();         \
    out = std::move(berth_run_result_).value();                                           \
  } while (0)

#endif  // BERTH_TESTS_CPU_KERNEL_TEST_UTIL_HPP_
