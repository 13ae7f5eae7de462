// Local job launcher (`berth launch -n N -- CMD...`): runs a coordination
// service on loopback and N copies of a command as the job's nodes, prefixes
// their output, and stops the whole job when one node fails.
#ifndef BERTH_HOST_DISTRIBUTED_LAUNCHER_HPP_
#define BERTH_HOST_DISTRIBUTED_LAUNCHER_HPP_

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "berth/status.hpp"
#include "distributed/clock.hpp"
#include "distributed/coordination_state.hpp"
#include "distributed/job_environment.hpp"

namespace berth::distributed {

struct LaunchOptions {
  int num_nodes = 1;
  // The program and its arguments, run directly (no shell); a name without
  // '/' is looked up in PATH.
  std::vector<std::string> command;
  std::optional<int> devices_per_node;  // exported as BERTH_DEVICES_PER_NODE
  // Slices of the job (exported as BERTH_NUM_SLICES, and BERTH_SLICE_ID =
  // SliceOfNode): 1 exports neither.
  int num_slices = 1;
  // After a node fails (or a signal arrives): SIGTERM to the others, then
  // SIGKILL to whatever is left after this long.
  Duration grace_period = std::chrono::seconds(3);
  // Heartbeat timeout of the job's coordination service.
  Duration heartbeat_timeout = kDefaultHeartbeatTimeout;
  // Catch SIGINT and SIGTERM while the job runs and pass them to every node
  // (the nodes run in process groups of their own, so the terminal's ^C would
  // not reach them). The previous handlers are restored on return.
  bool forward_signals = true;
  // Where prefixed output goes.
  int stdout_fd = 1;
  int stderr_fd = 2;
  // More variables for every node's environment (after the inherited ones).
  std::vector<std::pair<std::string, std::string>> extra_env;
};

// The slice `berth launch --slices` puts node `node` of `num_nodes` in:
// contiguous blocks of nodes, as even as they divide (node * slices / nodes).
int SliceOfNode(int node, int num_nodes, int num_slices);

// How one node ended.
struct NodeExit {
  int node_id = 0;
  pid_t pid = 0;
  bool signaled = false;  // killed by `signal` (else exited with exit_code)
  int exit_code = 0;
  int signal = 0;
  bool stopped_by_launcher = false;  // it got SIGTERM/SIGKILL from the launcher
  std::string Describe() const;      // "node 2 exited with code 3", "... was killed by SIGKILL"
};

struct LaunchResult {
  // 0 when every node exited 0. Otherwise the first failed node's exit code,
  // or 128 + its signal; 128 + signal as well when the launcher was
  // interrupted by a signal it forwarded.
  int exit_code = 0;
  std::vector<NodeExit> nodes;  // by node id
  std::string failure;          // what went wrong, empty on success
  std::string coordinator_address;
};

// Runs the job to completion. Returns an error only when the job could not
// be started (bad options, the service cannot listen, the command cannot be
// executed); failures of the nodes are in LaunchResult. Every node runs in
// its own process group, and every group is killed before returning, so no
// process of the job outlives the call. Not re-entrant with forward_signals.
Result<LaunchResult> LaunchJob(const LaunchOptions& options);

// "SIGKILL", "SIGTERM", ... or "signal 42".
std::string SignalName(int signal);

}  // namespace berth::distributed

#endif  // BERTH_HOST_DISTRIBUTED_LAUNCHER_HPP_
