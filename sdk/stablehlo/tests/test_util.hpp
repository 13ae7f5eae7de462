// Helpers shared by the StableHLO library tests.
#ifndef BERTH_STABLEHLO_TESTS_TEST_UTIL_HPP_
#define BERTH_STABLEHLO_TESTS_TEST_UTIL_HPP_

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "berth/stablehlo/stablehlo.hpp"

namespace berth::stablehlo::testing {

// Parses and verifies `text`; fails the test (and returns an empty module)
// on any error.
inline Module MustParse(std::string_view text, bool verify = true) {
  ParseOptions options;
  options.verify = verify;
  Result<Module> m = ParseModule(text, "test.mlir", options);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  if (!m.ok()) return Module();
  return std::move(m).value();
}

// The status of parsing (and verifying) `text`.
inline Status ParseStatus(std::string_view text, bool verify = true) {
  ParseOptions options;
  options.verify = verify;
  return ParseModule(text, "test.mlir", options).status();
}

// Parse `a` and `b` and expect the same IR.
inline void ExpectSameIr(std::string_view a, std::string_view b) {
  Module ma = MustParse(a);
  Module mb = MustParse(b);
  std::string diff;
  EXPECT_TRUE(StructurallyEqual(ma, mb, &diff)) << diff;
}

// Print then parse again and expect the same IR.
inline void ExpectRoundTrip(const Module& m) {
  std::string printed = Print(m);
  Result<Module> again = ParseModule(printed, "printed.mlir", ParseOptions{1, true});
  ASSERT_TRUE(again.ok()) << again.status().ToString() << "\n" << printed;
  std::string diff;
  EXPECT_TRUE(StructurallyEqual(m, *again, &diff)) << diff << "\n" << printed;
}

// The same without verifying (for IR the verifier rejects).
inline void ExpectRoundTripUnverified(const Module& m) {
  std::string printed = Print(m);
  Result<Module> again = ParseModule(printed, "printed.mlir");
  ASSERT_TRUE(again.ok()) << again.status().ToString() << "\n" << printed;
  std::string diff;
  EXPECT_TRUE(StructurallyEqual(m, *again, &diff)) << diff << "\n" << printed;
}

// The first op of the entry function.
inline const Operation& FirstOp(const Module& m) {
  return *m.entry_function()->entry_block().operations().front();
}

// Wraps op text in `func.func @main(args) -> results { body }`.
inline std::string Func(std::string_view args, std::string_view results, std::string_view body) {
  std::string out = "func.func @main(";
  out += args;
  out += ")";
  if (!results.empty()) {
    out += " -> ";
    out += results;
  }
  out += " {\n";
  out += body;
  out += "\n}\n";
  return out;
}

}  // namespace berth::stablehlo::testing

#endif  // BERTH_STABLEHLO_TESTS_TEST_UTIL_HPP_
