// berth: the command line of the Berth plugin host.
#include <iostream>
#include <string>
#include <vector>

#include "berth/c_api.h"
#include "berth/log.hpp"
#include "cli/command.hpp"
#include "common/env.hpp"

namespace {

void PrintUsage(std::ostream& out) {
  out << "usage: berth [--version] [--help] COMMAND [ARGS...]\n\ncommands:\n";
  for (const berth::cli::Command& command : berth::cli::Commands()) {
    out << "  " << command.name << std::string(12 - std::string(command.name).size(), ' ')
        << command.summary << "\n";
  }
  out << "\n`berth COMMAND --help` describes each command. Environment: BERTH_PLUGIN_PATH,\n"
         "BERTH_ADD_PLUGIN_PATH, BERTH_PLUGINS_SELECT, BERTH_PLUGINS_DISABLE, BERTH_LOG,\n"
         "BERTH_NO_UNLOAD.\n";
}

}  // namespace

int main(int argc, char** argv) {
  berth::cli::Context context{std::cout, std::cerr};
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    PrintUsage(context.err);
    return berth::cli::kExitUsage;
  }
  const std::string& first = args.front();
  if (first == "--help" || first == "-h" || first == "help") {
    PrintUsage(context.out);
    return berth::cli::kExitOk;
  }
  if (first == "--version") {
    context.out << "berth " << BERTH_VERSION << " (plugin ABI " << BERTH_API_MAJOR << "."
                << BERTH_API_MINOR << ")\n";
    return berth::cli::kExitOk;
  }
  for (const berth::cli::Command& command : berth::cli::Commands()) {
    if (first == command.name) {
      std::vector<std::string> rest(args.begin() + 1, args.end());
      try {
        return command.run(rest, context);
      } catch (const std::exception& e) {
        context.err << "berth " << first << ": internal error: " << e.what() << "\n";
        return berth::cli::kExitFailure;
      }
    }
  }
  context.err << "berth: unknown command '" << first << "'\n";
  PrintUsage(context.err);
  return berth::cli::kExitUsage;
}
