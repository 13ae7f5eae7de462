#include "conformance/gtest_registration.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

namespace berth::conformance {
namespace {

// One check's verdict (Judge): a failure when not ok, skipped when the check
// was skipped or unsupported (with why), else a pass.
class CheckTest : public ::testing::Test {
 public:
  explicit CheckTest(Verdict verdict) : verdict_(std::move(verdict)) {}

  void TestBody() override {
    if (!verdict_.ok) {
      FAIL() << verdict_.result.name << ": " << verdict_.why;
    } else if (verdict_.result.outcome == Outcome::kSkip ||
               verdict_.result.outcome == Outcome::kUnsupported) {
      GTEST_SKIP() << verdict_.result.name << " ("
                   << OutcomeName(verdict_.result.outcome) << "): " << verdict_.result.message;
    }
  }

 private:
  Verdict verdict_;
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
    Verdict verdict{{"suite", Outcome::kFail, ""}, false, report.status().ToString()};
    Register(suite_name, "suite", [verdict]() -> ::testing::Test* { return new CheckTest(verdict); });
    return;
  }
  for (Verdict& verdict : Judge(*report, options.expected)) {
    const std::string test = TestName(verdict.result.name);
    Register(suite_name, test, [verdict = std::move(verdict)]() -> ::testing::Test* {
      return new CheckTest(verdict);
    });
  }
}

}  // namespace berth::conformance
