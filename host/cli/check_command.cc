// berth check FILE... [--plugin NAME] [--json] [--parse-only]
//
// Runs every case of StableHLO interpreter test files: with the arguments
// the file's RUN line gives (`--interpret --args="[...]"`), and, for a case
// that has CHECK lines, matching those lines against what the reference
// interpreter writes: the program's interpreter.print output (standard
// output, captured while the case runs), then the results
// (interpreter_test_file.*, berth/stablehlo/interpreter_output.hpp).
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
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

// What the process writes to standard output meanwhile (a program's
// interpreter.print, from any thread): file descriptor 1 points at a
// temporary file until Finish, which restores it and returns the text.
class StdoutCapture {
 public:
  StdoutCapture() {
    std::cout.flush();
    std::fflush(stdout);
    file_ = std::tmpfile();
    saved_ = file_ != nullptr ? ::dup(STDOUT_FILENO) : -1;
    if (saved_ >= 0 && ::dup2(::fileno(file_), STDOUT_FILENO) < 0) {
      ::close(saved_);
      saved_ = -1;
    }
  }
  StdoutCapture(const StdoutCapture&) = delete;
  StdoutCapture& operator=(const StdoutCapture&) = delete;
  ~StdoutCapture() { Finish(); }

  std::string Finish() {
    std::string text;
    if (saved_ >= 0) {
      std::fflush(stdout);
      ::dup2(saved_, STDOUT_FILENO);
      ::close(saved_);
      saved_ = -1;
      std::rewind(file_);
      char buffer[4096];
      for (size_t n; (n = std::fread(buffer, 1, sizeof(buffer), file_)) > 0;)
        text.append(buffer, n);
    }
    if (file_ != nullptr) std::fclose(file_);
    file_ = nullptr;
    return text;
  }

 private:
  std::FILE* file_ = nullptr;
  int saved_ = -1;
};

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
        StdoutCapture capture;
        Result<RunOutput> output = session->Run(padded, file, "", *run_args);
        // What the reference interpreter writes: the program's prints
        // (interpreter.print), then the results.
        std::string printed = capture.Finish();
        status = output.status();
        std::vector<CheckLine> checks = CheckLines(chunk.text, chunk.first_line);
        if (output.ok() && !output->results.empty()) {
          for (const HostArray& value : output->results.front()) {
            printed += FormatInterpreterResult(value) + "\n";
          }
        }
        if (output.ok() && !printed.empty() && !checks.empty())
          status = MatchCheckLines(checks, printed);
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
