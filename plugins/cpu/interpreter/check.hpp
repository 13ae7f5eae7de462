// Comparing a tensor with expected values, as the check.* ops do (shared by
// the check ops and the check.* custom-call targets).
#ifndef BERTH_PLUGINS_CPU_INTERPRETER_CHECK_HPP_
#define BERTH_PLUGINS_CPU_INTERPRETER_CHECK_HPP_

#include <cstdint>
#include <string>

#include "interpreter/tensor.hpp"

namespace berth::cpu {

// Default absolute tolerance of check.expect_almost_eq*.
inline constexpr double kDefaultTolerance = 1e-4;
// Tolerance of the check.expect_almost_eq custom call (as JAX tests use it).
inline constexpr double kCustomCallTolerance = 1e-3;
inline constexpr int64_t kDefaultMaxUlps = 3;

struct CheckSpec {
  enum Kind { kEqual, kAlmostEqual, kClose };
  Kind kind = kEqual;
  double tolerance = kDefaultTolerance;
  int64_t min_ulps = 0;
  int64_t max_ulps = kDefaultMaxUlps;
  std::string name;  // for the message, e.g. "check.expect_eq"
};

// OK when `actual` matches `expected` (same element type and count, dense
// bytes). Integers and i1 compare exactly; floats per `spec` (NaN matches
// NaN). Otherwise FAILED_PRECONDITION "check failed: <name>: element [i, j]
// is x, expected y (n of m elements differ)".
Status CheckTensors(const Tensor& actual, const void* expected, const CheckSpec& spec);

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_INTERPRETER_CHECK_HPP_
