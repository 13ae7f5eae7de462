#include "conformance/gtest_registration.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <optional>

namespace berth::conformance {
namespace {

// One check's result, judged against what was expected of it.
class CheckTest : public ::testing::Test {
 public:
  CheckTest(CheckResult result, std::optional<Outcome> expected)
      : result_(std::move(result)), expected_(expected) {}

  void TestBody() override {
    if (expected_) {
      EXPECT_EQ(OutcomeName(result_.outcome), OutcomeName(*expected_))
          << "check " << result_.name << " was expected to "
          << OutcomeName(*expected_) << "; message: " << result_.message;
      return;
    }
    switch (result_.outcome) {
      case Outcome::kPass: return;
      case Outcome::kSkip: GTEST_SKIP() << result_.name << ": " << result_.message;
      case Outcome::kFail: FAIL() << result_.name << " failed: " << result_.message;
    }
  }

 private:
  CheckResult result_;
  std::optional<Outcome> expected_;
};

// gtest test names are identifiers: '.' and other punctuation become '_'.
std::string TestName(std::string_view check) {
  std::string name(check);
  std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(
                                                            static_cast<unsigned char>(c)); },
                  '_');
  return name;
}

template <typename Factory>
void Register(const std::string& suite, const std::string& test, Factory factory) {
  ::testing::RegisterTest(suite.c_str(), test.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                          std::move(factory));
}

}  // namespace

void RegisterConformanceTests(const std::string& suite_name, const std::filesystem::path& manifest,
                              const RegistrationOptions& options) {
  Result<Report> report = RunIsolated(manifest, nullptr, options.idle_timeout);
  if (!report.ok()) {
    const std::string why = report.status().ToString();
    Register(suite_name, "suite", [why]() -> ::testing::Test* {
      return new CheckTest({"suite", Outcome::kFail, why}, std::nullopt);
    });
    return;
  }
  for (const CheckResult& result : report->results) {
    auto expected = options.expected.find(result.name);
    std::optional<Outcome> outcome;
    if (expected != options.expected.end()) outcome = expected->second;
    Register(suite_name, TestName(result.name), [result, outcome]() -> ::testing::Test* {
      return new CheckTest(result, outcome);
    });
  }
  // A check that was expected but never ran is a failure too.
  for (const auto& [name, outcome] : options.expected) {
    if (std::none_of(report->results.begin(), report->results.end(),
                     [&](const CheckResult& result) { return result.name == name; })) {
      const std::string why = "the suite did not run this check";
      Register(suite_name, TestName(name), [n = name, why]() -> ::testing::Test* {
        return new CheckTest({n, Outcome::kFail, why}, std::nullopt);
      });
    }
  }
}

}  // namespace berth::conformance
