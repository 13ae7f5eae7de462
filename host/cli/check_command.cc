// berth check FILE... [--plugin NAME] [--json] [--parse-only]
//
// Runs every case of StableHLO interpreter test files: with the arguments
// the file's RUN line gives (`--interpret --args="[...]"`), and, for a case
// whose entry returns values and that has CHECK lines, matching those lines
// against the results printed as the reference interpreter prints them
// (interpreter_test_file.*). interpreter.print's lines go to the host's log
// and are not matched.
#include <fstream>
#include <map>
#include <iostream>
#include <sstream>

#include "berth/stablehlo/parser.hpp"
#include "berth/stablehlo/quantization.hpp"
#include "cli/command.hpp"
#include "cli/host_array.hpp"
#include "cli/interpreter_test_file.hpp"
#include "cli/session.hpp"

namespace berth::cli {

namespace po = boost::program_options;

namespace {

struct CaseResult {
  std::string file;
  int index = 0;
  int line = 0;
  std::string status;  // pass, fail, error, unsupported
  std::string message;
};

// How a run's outcome is reported: a check that did not hold is a failure
// (plugins report it as FAILED_PRECONDITION "check failed: ..."), an
// UNIMPLEMENTED feature is unsupported, anything else is an error.
std::string Classify(const Status& status) {
  if (status.ok()) return "pass";
  if (status.code() == StatusCode::kUnimplemented) return "unsupported";
  if (status.code() == StatusCode::kFailedPrecondition &&
      status.message().find("check failed:") != std::string::npos) {
    return "fail";
  }
  return "error";
}

}  // namespace

int RunCheck(const std::vector<std::string>& args, Context& context) {
  po::options_description options("options");
  std::vector<std::string> files;
  std::string plugin;
  options.add_options()
      ("file", po::value<std::vector<std::string>>(&files)->required(), "test files (.mlir)")
      ("plugin", po::value<std::string>(&plugin), "plugin to run on (default: highest priority)")
      ("parse-only", "only parse and verify every case")
      ("json", "print the report as JSON");
  po::positional_options_description positional;
  positional.add("file", -1);
  po::variables_map vm;
  int exit_code = kExitOk;
  if (!ParseArgs("check", "FILE... [--plugin NAME] [--json] [--parse-only]", options, &positional,
                 args, vm, context, exit_code)) {
    return exit_code;
  }
  const bool parse_only = vm.count("parse-only") > 0;
  std::optional<Session> session;
  if (!parse_only) {
    Result<Session> opened = Session::Open(plugin);
    if (!opened.ok()) {
      context.err << "berth check: " << opened.status().message() << "\n";
      return kExitFailure;
    }
    session.emplace(std::move(opened).value());
  }

  std::vector<CaseResult> results;
  for (const std::string& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      results.push_back({file, 0, 0, "error", "cannot read " + file});
      continue;
    }
    std::stringstream contents;
    contents << in.rdbuf();
    const std::string text = contents.str();
    Result<std::vector<HostArray>> run_args = RunLineArgs(text);
    for (const stablehlo::TestChunk& chunk : stablehlo::SplitTestFile(text)) {
      CaseResult result{file, chunk.index, chunk.first_line, "pass", ""};
      stablehlo::ParseOptions parse_options;
      parse_options.first_line = chunk.first_line;
      Result<stablehlo::Module> module = stablehlo::ParseModule(chunk.text, file, parse_options);
      if (module.ok()) module = stablehlo::VerifyLoweringQuantizedTypes(std::move(module).value());
      Status status = module.status();
      // A case without functions (comments only) has nothing to run.
      const bool runnable = module.ok() && !module->functions().empty();
      if (status.ok() && !parse_only && runnable) status = run_args.status();
      if (status.ok() && !parse_only && runnable) {
        // Pad with newlines so the plugin's diagnostics name lines of the file.
        std::string padded(static_cast<size_t>(chunk.first_line - 1), '\n');
        padded += chunk.text;
        Result<RunOutput> output = session->Run(padded, file, "", *run_args);
        status = output.status();
        std::vector<CheckLine> checks = CheckLines(chunk.text, chunk.first_line);
        if (output.ok() && !output->results.empty() && !output->results.front().empty() &&
            !checks.empty()) {
          std::string printed;
          for (const HostArray& value : output->results.front()) {
            printed += FormatInterpreterResult(value) + "\n";
          }
          status = MatchCheckLines(checks, printed);
        }
      }
      if (!status.ok()) {
        result.status = module.ok() ? Classify(status) : "error";
        result.message = status.message();
      }
      results.push_back(std::move(result));
    }
  }

  std::map<std::string, int> summary = {{"pass", 0}, {"fail", 0}, {"error", 0}, {"unsupported", 0}};
  for (const CaseResult& r : results) ++summary[r.status];
  if (vm.count("json")) {
    nlohmann::json cases = nlohmann::json::array();
    for (const CaseResult& r : results) {
      cases.push_back({{"file", r.file}, {"case", r.index}, {"line", r.line}, {"status", r.status},
                       {"message", r.message}});
    }
    PrintJson(context.out, {{"cases", cases}, {"summary", summary}});
  } else {
    for (const CaseResult& r : results) {
      context.out << r.file << ":" << r.line << ": case " << r.index << ": " << r.status;
      if (!r.message.empty()) context.out << ": " << r.message;
      context.out << "\n";
    }
    context.out << summary["pass"] << " passed, " << summary["fail"] << " failed, "
                << summary["error"] << " errors, " << summary["unsupported"] << " unsupported\n";
  }
  return summary["pass"] == static_cast<int>(results.size()) ? kExitOk : kExitFailure;
}

}  // namespace berth::cli
