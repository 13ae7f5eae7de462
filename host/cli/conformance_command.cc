// berth conformance --manifest FILE [--expect FILE] [--json] [--timeout SECONDS]
//                   [--in-process]
#include <cctype>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/command.hpp"
#include "conformance/conformance.hpp"

namespace berth::cli {

namespace po = boost::program_options;

int RunConformance(const std::vector<std::string>& args, Context& context) {
  po::options_description options("options");
  std::string manifest;
  std::string expect_file;
  int64_t timeout_s = 300;
  options.add_options()
      ("manifest", po::value<std::string>(&manifest)->required(),
       "the plugin's manifest (only this plugin is loaded)")
      ("expect", po::value<std::string>(&expect_file),
       "a JSON object of check name -> expected outcome (\"unsupported\", \"skip\", ...): "
       "exit 0 when those checks have them and no other check fails")
      ("json", "print the results as JSON")
      ("timeout", po::value<int64_t>(&timeout_s),
       "seconds without a check ending before the plugin counts as hung (default 300)")
      ("in-process", "run the suite in this process, not in a child (for debuggers)");
  po::variables_map vm;
  int exit_code = kExitOk;
  if (!ParseArgs("conformance",
                 "--manifest FILE [--expect FILE] [--json] [--timeout SECONDS] [--in-process]",
                 options, nullptr, args, vm, context, exit_code)) {
    return exit_code;
  }
  if (timeout_s < 1 || timeout_s > 24 * 3600) {
    context.err << "berth conformance: --timeout must be between 1 and 86400 seconds\n";
    return kExitUsage;
  }
  conformance::Expectations expected;
  if (!expect_file.empty()) {
    std::ifstream in(expect_file);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) {
      context.err << "berth conformance: cannot read --expect file " << expect_file << "\n";
      return kExitUsage;
    }
    Result<conformance::Expectations> parsed =
        conformance::ParseExpectations(text.str(), expect_file);
    if (!parsed.ok()) {
      context.err << "berth conformance: " << parsed.status().message() << "\n";
      return kExitUsage;
    }
    expected = std::move(parsed).value();
  }
  const bool json = vm.count("json") > 0;
  auto progress = [&](const conformance::CheckResult& result) {
    if (json) return;
    std::string outcome(conformance::OutcomeName(result.outcome));
    for (char& ch : outcome) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    context.out << outcome << "  " << result.name;
    if (!result.message.empty()) context.out << ": " << result.message;
    context.out << "\n";
    context.out.flush();
  };
  Result<conformance::Report> report =
      vm.count("in-process") ? conformance::Run(manifest, progress)
                             : conformance::RunIsolated(manifest, progress,
                                                        std::chrono::seconds(timeout_s));
  if (!report.ok()) {
    context.err << "berth conformance: " << report.status().ToString() << "\n";
    return kExitFailure;
  }
  nlohmann::json results = nlohmann::json::array();
  for (const conformance::CheckResult& result : report->results) {
    results.push_back({{"name", result.name},
                       {"result", std::string(conformance::OutcomeName(result.outcome))},
                       {"message", result.message}});
  }
  // Judged against --expect (without it: passed when nothing failed).
  nlohmann::json unexpected = nlohmann::json::array();
  for (const conformance::Verdict& verdict : conformance::Judge(*report, expected)) {
    if (!verdict.ok) unexpected.push_back({{"name", verdict.result.name}, {"why", verdict.why}});
  }
  const bool passed = !report->results.empty() && unexpected.empty();
  using conformance::Outcome;
  const int pass = report->Count(Outcome::kPass), fail = report->Count(Outcome::kFail),
            skip = report->Count(Outcome::kSkip),
            unsupported = report->Count(Outcome::kUnsupported);
  if (json) {
    nlohmann::json out = {{"plugin", report->plugin},
                          {"manifest", report->manifest},
                          {"negotiated_version", report->negotiated_version},
                          {"results", results},
                          {"summary",
                           {{"pass", pass}, {"fail", fail}, {"skip", skip},
                            {"unsupported", unsupported}}},
                          {"passed", passed}};
    if (!expect_file.empty()) out["unexpected"] = unexpected;
    PrintJson(context.out, out);
  } else {
    for (const nlohmann::json& entry : unexpected) {
      if (expect_file.empty()) break;  // failures are already printed above
      context.out << "UNEXPECTED  " << entry["name"].get<std::string>() << ": "
                  << entry["why"].get<std::string>() << "\n";
    }
    context.out << "plugin '" << report->plugin << "'";
    if (!report->negotiated_version.empty()) {
      context.out << " (ABI " << report->negotiated_version << ")";
    }
    context.out << ": " << pass << " passed, " << fail << " failed, " << skip << " skipped, "
                << unsupported << " unsupported";
    if (!expect_file.empty()) context.out << "; " << unexpected.size() << " unexpected";
    context.out << "\n";
  }
  return passed ? kExitOk : kExitFailure;
}

}  // namespace berth::cli
