// berth launch -n N [--devices-per-node K] [--slices S] [--heartbeat-timeout S] -- CMD...
#include <algorithm>
#include <iostream>

#include "cli/command.hpp"
#include "distributed/launcher.hpp"

namespace berth::cli {

namespace po = boost::program_options;

bool SecondsOption(double seconds, distributed::Duration& out);  // coordinator_command.cc

int RunLaunch(const std::vector<std::string>& args, Context& context) {
  const std::string usage =
      "-n N [--devices-per-node K] [--slices S] [--heartbeat-timeout S] -- CMD...";
  // Everything after "--" is the nodes' command, never parsed as options.
  auto separator = std::find(args.begin(), args.end(), "--");
  std::vector<std::string> own(args.begin(), separator);
  std::vector<std::string> command;
  if (separator != args.end()) command.assign(separator + 1, args.end());

  po::options_description options("options");
  int nodes = 0;
  int devices_per_node = 0;
  int slices = 1;
  double heartbeat_timeout = 0;
  options.add_options()("nodes,n", po::value<int>(&nodes)->required(), "number of node processes")(
      "devices-per-node", po::value<int>(&devices_per_node),
      "devices per node (exported as BERTH_DEVICES_PER_NODE)")(
      "slices", po::value<int>(&slices),
      "slices of the job: contiguous blocks of nodes (exported as BERTH_NUM_SLICES and "
      "BERTH_SLICE_ID)")("heartbeat-timeout", po::value<double>(&heartbeat_timeout),
                         "seconds without heartbeats before a node is declared dead (default 10)");
  po::variables_map vm;
  int exit_code = kExitOk;
  if (!ParseArgs("launch", usage, options, nullptr, own, vm, context, exit_code)) return exit_code;
  if (command.empty()) {
    context.err << "berth launch: no command after '--'\nusage: berth launch " << usage << "\n";
    return kExitUsage;
  }
  if (nodes < 1 || nodes > 4096) {
    context.err << "berth launch: -n must be between 1 and 4096, not " << nodes << "\n";
    return kExitUsage;
  }
  distributed::LaunchOptions launch;
  launch.num_nodes = nodes;
  launch.command = command;
  if (slices < 1 || slices > nodes) {
    context.err << "berth launch: --slices must be between 1 and the node count " << nodes
                << ", not " << slices << "\n";
    return kExitUsage;
  }
  launch.num_slices = slices;
  if (vm.count("devices-per-node")) {
    if (devices_per_node < 1) {
      context.err << "berth launch: --devices-per-node must be at least 1\n";
      return kExitUsage;
    }
    launch.devices_per_node = devices_per_node;
  }
  if (vm.count("heartbeat-timeout") &&
      !SecondsOption(heartbeat_timeout, launch.heartbeat_timeout)) {
    context.err << "berth launch: --heartbeat-timeout must be a positive number of seconds\n";
    return kExitUsage;
  }
  context.out.flush();
  Result<distributed::LaunchResult> result = distributed::LaunchJob(launch);
  if (!result.ok()) {
    context.err << "berth launch: " << result.status().message() << "\n";
    return kExitFailure;
  }
  // The launcher has said why ("berth launch: job failed: ..."), once.
  if (result->exit_code != 0) return std::clamp(result->exit_code, 1, 255);
  return kExitOk;
}

}  // namespace berth::cli
