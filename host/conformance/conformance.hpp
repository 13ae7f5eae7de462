// `berth conformance`: a suite any plugin can be run against (ABI rules,
// the library's exports and attributes, reserved options, object
// lifecycles, host <-> device round trips and a program per element type it
// takes, compile and execute, refusals, concurrency, leaks). One result per
// check; the suite passes when no check fails. A program the plugin answers
// UNIMPLEMENTED for, naming the op (or the format), is *unsupported*: reported,
// not a failure, unless the plugin lists the op in its "supported_ops".
#ifndef BERTH_HOST_CONFORMANCE_CONFORMANCE_HPP_
#define BERTH_HOST_CONFORMANCE_CONFORMANCE_HPP_

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "berth/status.hpp"

namespace berth::conformance {

enum class Outcome { kPass, kFail, kSkip, kUnsupported };

std::string_view OutcomeName(Outcome outcome);  // "pass", "fail", "skip", "unsupported"
std::optional<Outcome> ParseOutcome(std::string_view name);

struct CheckResult {
  std::string name;     // "abi.smaller_struct_rejected", "buffer.round_trip.f32" ...
  Outcome outcome = Outcome::kPass;
  std::string message;  // why it failed or was skipped; empty on a pass
};

struct Report {
  std::string plugin;
  std::string manifest;
  std::string negotiated_version;
  std::vector<CheckResult> results;
  bool passed() const;  // some results, none failed
  int Count(Outcome outcome) const;
};

// What a plugin project expects of checks whose outcome is not a pass (a
// feature it lacks on purpose): check name -> outcome.
using Expectations = std::map<std::string, Outcome, std::less<>>;

// Reads {"check.name": "unsupported", ...}; errors name `where` and the entry.
Result<Expectations> ParseExpectations(std::string_view json_text, std::string_view where);

// One check judged against the expectations: a check with an expectation
// must have that outcome, any other must not fail, and an expected check
// must have run.
struct Verdict {
  CheckResult result;  // as reported (a check that never ran: kFail)
  bool ok = true;
  std::string why;     // when not ok
};
std::vector<Verdict> Judge(const Report& report, const Expectations& expected);

// Runs the suite on the plugin `manifest` describes (it alone is searched).
// `on_result` sees each result as it is made (progress output). An error
// only when the plugin cannot be loaded at all.
Result<Report> Run(const std::filesystem::path& manifest,
                   const std::function<void(const CheckResult&)>& on_result);

// Run in a child process (isolated.cc): a plugin that crashes, exits or
// makes no progress for `idle_timeout` ends the child, and the report gets a
// failed `suite.finished` check saying how and after which check.
Result<Report> RunIsolated(const std::filesystem::path& manifest,
                           const std::function<void(const CheckResult&)>& on_result,
                           std::chrono::seconds idle_timeout);

}  // namespace berth::conformance

#endif  // BERTH_HOST_CONFORMANCE_CONFORMANCE_HPP_
