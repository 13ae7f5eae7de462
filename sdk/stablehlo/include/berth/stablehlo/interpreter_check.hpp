// What the test harness ops of the StableHLO interpreter suite check
// (check.expect_eq, expect_almost_eq, expect_close and their _const forms):
// how each compares a value with the expected one, and the message a failed
// check gives. Shared by the plugins, so that a case passes or fails alike on
// each of them; `berth check` reports an execution failing with "check
// failed: ..." as a failed (not an erroring) case.
#ifndef BERTH_STABLEHLO_INTERPRETER_CHECK_HPP_
#define BERTH_STABLEHLO_INTERPRETER_CHECK_HPP_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "berth/stablehlo/ir.hpp"
#include "berth/status.hpp"

namespace berth::stablehlo {

// Default absolute tolerance of check.expect_almost_eq*.
inline constexpr double kDefaultCheckTolerance = 1e-4;
// Tolerance of the check.expect_almost_eq custom call (as JAX tests use it).
inline constexpr double kCustomCallCheckTolerance = 1e-3;
inline constexpr int64_t kDefaultCheckMaxUlps = 3;

struct CheckSpec {
  enum Kind { kEqual, kAlmostEqual, kClose };
  Kind kind = kEqual;
  double tolerance = kDefaultCheckTolerance;  // kAlmostEqual: |actual - expected| <= tolerance
  int64_t min_ulps = 0;                       // kClose: ULPs apart within [min, max]
  int64_t max_ulps = kDefaultCheckMaxUlps;
  std::string name;  // for the message, e.g. "check.expect_eq"
};

// Whether `op` is one of the comparing check ops above (not
// check.expect_serialized_eq, which compares with a probed value).
bool IsComparingCheck(const Operation& op);
// The comparison `op` (a comparing check op) asks for: its kind, tolerance
// or ULP range from its attributes, and its name.
CheckSpec CheckSpecOf(const Operation& op);

// Whether CompareForCheck takes values of `type`: i1, the integers (i2 to
// i64, ui2 to ui64), the floats (f4, f6, f8 formats to f64) and the complex
// types.
bool IsCheckableType(ElementType type);

// OK when the dense row-major values `actual` and `expected` (both of
// `type` and `dims`) match: integers and i1 exactly; floats per `spec` (NaN
// matches NaN, and only NaN); narrow types (one element per byte) as the
// i8/ui8 or f32 values they stand for; complex numbers part by part (part k of
// element [i, j] is reported as [i, j, k]). Otherwise FAILED_PRECONDITION
// "check failed: <name>: element [i, j] is x, expected y (n of m elements
// differ)", naming the first difference; INVALID_ARGUMENT for a type
// IsCheckableType refuses.
Status CompareForCheck(ElementType type, std::span<const int64_t> dims, const void* actual,
                       const void* expected, const CheckSpec& spec);

// check.expect_serialized_eq of a value of `actual` against iteration
// `iteration` of probe `id`, whose value (interpreter.probe's, as probed
// before the check) is of `probed` - NULL when none was probed as `id` at
// that iteration: empty when the two can be compared (CompareForCheck with
// an exact spec then decides), else why the check fails ("check failed:
// check.expect_serialized_eq: no value was probed as 'ID' at iteration N",
// or "... 'ID' was T, the value is U").
std::string SerializedCheckFailure(std::string_view id, int64_t iteration, const Type* probed,
                                   const Type& actual);

}  // namespace berth::stablehlo

#endif  // BERTH_STABLEHLO_INTERPRETER_CHECK_HPP_
