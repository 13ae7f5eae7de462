// The `berth` command: one function per subcommand, sharing option parsing,
// exit codes and host set-up.
#ifndef BERTH_HOST_CLI_COMMAND_HPP_
#define BERTH_HOST_CLI_COMMAND_HPP_

#include <iosfwd>
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "berth/host.hpp"

namespace berth::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

struct Context {
  std::ostream& out;
  std::ostream& err;
};

// A subcommand: `args` excludes "berth" and the subcommand's own name.
using CommandFn = int (*)(const std::vector<std::string>& args, Context& context);

struct Command {
  const char* name;
  const char* summary;
  CommandFn run;
};

const std::vector<Command>& Commands();

int RunPlugins(const std::vector<std::string>& args, Context& context);
int RunInfo(const std::vector<std::string>& args, Context& context);
int RunValidate(const std::vector<std::string>& args, Context& context);
int RunRun(const std::vector<std::string>& args, Context& context);
int RunCompile(const std::vector<std::string>& args, Context& context);
int RunConformance(const std::vector<std::string>& args, Context& context);
int RunCheck(const std::vector<std::string>& args, Context& context);
int RunCoordinator(const std::vector<std::string>& args, Context& context);
int RunLaunch(const std::vector<std::string>& args, Context& context);
int RunBench(const std::vector<std::string>& args, Context& context);

// Parses `args` against `options` (and `positional`). On --help prints usage
// and returns kExitOk through `exit_code`; on a usage error prints it and
// returns kExitUsage. Returns true when the command should go on.
bool ParseArgs(const std::string& command, const std::string& usage,
               const boost::program_options::options_description& options,
               const boost::program_options::positional_options_description* positional,
               const std::vector<std::string>& args, boost::program_options::variables_map& vm,
               Context& context, int& exit_code);

// A host that also searches the build tree's manifests when this `berth` is
// the one built there.
Result<Host> MakeHost();

// JSON forms shared by several commands.
nlohmann::json NamedValuesJson(const NamedValueMap& values);
nlohmann::json PluginInfoJson(const PluginInfo& info);

// Writes a JSON value followed by a newline.
void PrintJson(std::ostream& out, const nlohmann::json& value);

}  // namespace berth::cli

#endif  // BERTH_HOST_CLI_COMMAND_HPP_
