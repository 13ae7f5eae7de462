// The suite in a child process: a plugin that crashes or hangs ends the child,
// not `berth conformance`, which reports it as a failed check. The child sends
// one JSON line per result, then one line with the negotiated version (or the
// error that stopped the suite), through a pipe.
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>

#include "common/child_process.hpp"
#include "conformance/conformance.hpp"
#include "manifest/manifest.hpp"

namespace berth::conformance {
namespace {

constexpr const char* kFinished = "suite.finished";

// In the child: the suite, a JSON line per result, then the end line.
void RunChild(const std::filesystem::path& manifest, const common::SendLine& send) {
  auto send_result = [&send](const CheckResult& result) {
    send(nlohmann::json{{"name", result.name},
                        {"outcome", OutcomeName(result.outcome)},
                        {"message", result.message}}
             .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  };
  Result<Report> report = Run(manifest, send_result);
  nlohmann::json end;
  if (report.ok()) {
    end = {{"end", "report"}, {"negotiated_version", report->negotiated_version}};
  } else {
    end = {{"end", "error"},
           {"code", static_cast<int>(report.status().code())},
           {"message", report.status().message()}};
  }
  send(end.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace

Result<Report> RunIsolated(const std::filesystem::path& manifest,
                           const std::function<void(const CheckResult&)>& on_result,
                           std::chrono::seconds idle_timeout) {
  Report report;
  report.manifest = manifest.string();
  // The child reports results and the negotiated version; the plugin's name
  // comes from the manifest here, so a report names it even after a crash.
  core::ManifestParseResult parsed = core::LoadManifestFile(manifest);
  if (parsed.manifest) report.plugin = parsed.manifest->name;
  std::optional<nlohmann::json> end;
  std::string last_check;
  auto handle_line = [&](const std::string& line) {
    nlohmann::json message = nlohmann::json::parse(line, nullptr, false);
    if (!message.is_object()) return;
    if (message.contains("end")) {
      end = std::move(message);
      return;
    }
    CheckResult result;
    result.name = message.value("name", "");
    result.outcome =
        ParseOutcome(message.value("outcome", std::string())).value_or(Outcome::kFail);
    result.message = message.value("message", "");
    last_check = result.name;
    if (on_result) on_result(result);
    report.results.push_back(std::move(result));
  };
  BERTH_ASSIGN_OR_RETURN(
      common::ChildOutcome child,
      common::RunInChild([&](const common::SendLine& send) { RunChild(manifest, send); },
                       idle_timeout, handle_line));

  if (end && end->value("end", "") == "error") {
    return Status(StatusCodeFromInt(end->value("code", static_cast<int>(StatusCode::kInternal))),
                  end->value("message", "the suite stopped"));
  }
  if (end) {
    report.negotiated_version = end->value("negotiated_version", "");
    return report;
  }
  std::string where = last_check.empty() ? "before the first check ended"
                                         : "after check '" + last_check + "'";
  std::string why = child.timed_out
                        ? "no check ended for " + std::to_string(idle_timeout.count()) + " s " +
                              where + "; the plugin's process was killed (a hang?)"
                        : "the plugin's process " +
                              (child.exited_cleanly ? std::string("exited in the middle of the suite")
                                                    : child.end) +
                              " " + where;
  CheckResult crashed{kFinished, Outcome::kFail, why + "; the checks after it did not run"};
  if (on_result) on_result(crashed);
  report.results.push_back(std::move(crashed));
  return report;
}

}  // namespace berth::conformance
