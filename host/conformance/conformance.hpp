// `berth conformance`: a suite any plugin can be run against (ABI rules,
// object lifecycles, host <-> device round trips of every element type it
// takes, compile and execute when it supports StableHLO, concurrency, leaks).
// One result per check; the suite passes when no check fails.
#ifndef BERTH_HOST_CONFORMANCE_CONFORMANCE_HPP_
#define BERTH_HOST_CONFORMANCE_CONFORMANCE_HPP_

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "berth/status.hpp"

namespace berth::conformance {

enum class Outcome { kPass, kFail, kSkip };

std::string_view OutcomeName(Outcome outcome);  // "pass", "fail", "skip"

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
  bool passed() const;
};

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
