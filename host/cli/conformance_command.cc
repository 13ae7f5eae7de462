// berth conformance --manifest FILE [--json] [--timeout SECONDS] [--in-process]
#include <cctype>
#include <iostream>

#include "cli/command.hpp"
#include "conformance/conformance.hpp"

namespace berth::cli {

namespace po = boost::program_options;

int RunConformance(const std::vector<std::string>& args, Context& context) {
  po::options_description options("options");
  std::string manifest;
  int64_t timeout_s = 300;
  options.add_options()
      ("manifest", po::value<std::string>(&manifest)->required(),
       "the plugin's manifest (only this plugin is loaded)")
      ("json", "print the results as JSON")
      ("timeout", po::value<int64_t>(&timeout_s),
       "seconds without a check ending before the plugin counts as hung (default 300)")
      ("in-process", "run the suite in this process, not in a child (for debuggers)");
  po::variables_map vm;
  int exit_code = kExitOk;
  if (!ParseArgs("conformance", "--manifest FILE [--json] [--timeout SECONDS] [--in-process]",
                 options, nullptr, args, vm, context, exit_code)) {
    return exit_code;
  }
  if (timeout_s < 1 || timeout_s > 24 * 3600) {
    context.err << "berth conformance: --timeout must be between 1 and 86400 seconds\n";
    return kExitUsage;
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
  int counts[3] = {0, 0, 0};
  nlohmann::json results = nlohmann::json::array();
  for (const conformance::CheckResult& result : report->results) {
    counts[static_cast<int>(result.outcome)]++;
    results.push_back({{"name", result.name},
                       {"result", std::string(conformance::OutcomeName(result.outcome))},
                       {"message", result.message}});
  }
  if (json) {
    PrintJson(context.out, {{"plugin", report->plugin},
                            {"manifest", report->manifest},
                            {"negotiated_version", report->negotiated_version},
                            {"results", results},
                            {"summary", {{"pass", counts[0]}, {"fail", counts[1]}, {"skip", counts[2]}}},
                            {"passed", report->passed()}});
  } else {
    context.out << "plugin '" << report->plugin << "'";
    if (!report->negotiated_version.empty()) {
      context.out << " (ABI " << report->negotiated_version << ")";
    }
    context.out << ": " << counts[0] << " passed, " << counts[1] << " failed, " << counts[2]
                << " skipped\n";
  }
  return report->passed() ? kExitOk : kExitFailure;
}

}  // namespace berth::cli
