#include "cli/command.hpp"

#include <unistd.h>

#include <filesystem>
#include <iostream>

namespace berth::cli {

namespace po = boost::program_options;

const std::vector<Command>& Commands() {
  static const std::vector<Command> commands = {
      {"plugins", "list plugin and extension manifests (--load opens them)", RunPlugins},
      {"info", "show one plugin: manifest, ABI, attributes, devices", RunInfo},
      {"validate", "check manifest files", RunValidate},
      {"run", "compile and run a program, print its results", RunRun},
      {"compile", "compile a program to a berth-executable file", RunCompile},
      {"conformance", "run the plugin conformance suite on one plugin", RunConformance},
      {"check", "run test files (StableHLO interpreter test format)", RunCheck},
      {"coordinator", "run the coordination service of multi-process jobs", RunCoordinator},
      {"launch", "run a command as N local nodes of one job", RunLaunch},
      {"bench", "measure a scenario (collectives): time, bandwidth, checked results", RunBench},
  };
  return commands;
}

bool ParseArgs(const std::string& command, const std::string& usage,
               const po::options_description& options,
               const po::positional_options_description* positional,
               const std::vector<std::string>& args, po::variables_map& vm, Context& context,
               int& exit_code) {
  po::options_description all(options);
  all.add_options()("help,h", "show this help");
  try {
    po::command_line_parser parser(args);
    parser.options(all);
    if (positional != nullptr) parser.positional(*positional);
    po::store(parser.run(), vm);
    if (vm.count("help")) {
      context.out << "usage: berth " << command << " " << usage << "\n\n" << all;
      exit_code = kExitOk;
      return false;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    context.err << "berth " << command << ": " << e.what() << "\nusage: berth " << command << " "
                << usage << "\n(see `berth " << command << " --help`)\n";
    exit_code = kExitUsage;
    return false;
  }
  return true;
}

namespace {

// Whether this executable is the one in the build tree (not an installed copy).
bool RunningFromBuildTree() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return false;
  std::filesystem::path root = std::filesystem::weakly_canonical(BERTH_BUILD_ROOT, ec);
  if (ec) return false;
  auto [root_end, self_it] = std::mismatch(root.begin(), root.end(), self.begin(), self.end());
  return root_end == root.end();
}

}  // namespace

Result<Host> MakeHost() {
  HostOptions options;
  if (RunningFromBuildTree()) options.extra_manifest_dirs.push_back(BERTH_BUILD_MANIFEST_DIR);
  return Host::Create(options);
}

void PrintJson(std::ostream& out, const nlohmann::json& value) {
  out << value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace berth::cli
