// The conformance suite as GoogleTest tests, in the manner of PJRT's
// RegisterPjRtCApiTestFactory: a test binary's main() calls
// RegisterConformanceTests for a plugin's manifest before RUN_ALL_TESTS, and
// every check of `berth conformance` becomes one test (suite
// `<suite_name>`, test `<check name with '.' as '_'>`), run in a child
// process so that a crashing plugin fails a test instead of the binary.
//
//   int main(int argc, char** argv) {
//     ::testing::InitGoogleTest(&argc, argv);
//     berth::conformance::RegisterConformanceTests("GoodFixtureConformance", manifest);
//     return RUN_ALL_TESTS();
//   }
#ifndef BERTH_HOST_CONFORMANCE_GTEST_REGISTRATION_HPP_
#define BERTH_HOST_CONFORMANCE_GTEST_REGISTRATION_HPP_

#include <chrono>
#include <filesystem>
#include <map>
#include <string>

#include "conformance/conformance.hpp"

namespace berth::conformance {

struct RegistrationOptions {
  // Checks whose outcome is known and not a pass (a fixture that lacks a
  // feature on purpose): the test passes when the check has this outcome and
  // fails otherwise. Every other check's test fails when the check fails and
  // is skipped when it is skipped or unsupported (Judge, conformance.hpp).
  Expectations expected;
  // How long the plugin may make no progress before its child is killed.
  std::chrono::seconds idle_timeout{120};
};

// Runs the suite on the plugin `manifest` describes and registers its
// results. A plugin that cannot be run at all registers one failing test,
// `<suite_name>.suite`, saying why.
void RegisterConformanceTests(const std::string& suite_name, const std::filesystem::path& manifest,
                              const RegistrationOptions& options = {});

}  // namespace berth::conformance

#endif  // BERTH_HOST_CONFORMANCE_GTEST_REGISTRATION_HPP_
