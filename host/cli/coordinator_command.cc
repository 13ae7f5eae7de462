// berth coordinator --listen ADDR [--nodes N] [--token-file F] [--heartbeat-timeout S]
#include <signal.h>

#include <chrono>
#include <iostream>

#include "cli/command.hpp"
#include "common/env.hpp"
#include "distributed/coordination_server.hpp"
#include "distributed/job_environment.hpp"

namespace berth::cli {

namespace po = boost::program_options;

// Seconds as a Duration; false for a value that is not positive.
bool SecondsOption(double seconds, distributed::Duration& out) {
  if (!(seconds > 0) || seconds > 86400) return false;
  out = std::chrono::duration_cast<distributed::Duration>(std::chrono::duration<double>(seconds));
  return true;
}

int RunCoordinator(const std::vector<std::string>& args, Context& context) {
  po::options_description options("options");
  std::string listen, token_file;
  int nodes = 0;
  double heartbeat_timeout = 0;
  options.add_options()
      ("listen", po::value<std::string>(&listen)->required(),
       "HOST:PORT to listen at (port 0 picks a free one, printed at start)")
      ("nodes", po::value<int>(&nodes), "the job's node count (default: the first node's)")
      ("token-file", po::value<std::string>(&token_file),
       "file holding the shared secret (default: BERTH_COORDINATOR_TOKEN[_FILE], else none)")
      ("heartbeat-timeout", po::value<double>(&heartbeat_timeout),
       "seconds without heartbeats before a node is declared dead (default 10)");
  po::variables_map vm;
  int exit_code = kExitOk;
  if (!ParseArgs("coordinator", "--listen ADDR [--nodes N] [--token-file F] [--heartbeat-timeout S]",
                 options, nullptr, args, vm, context, exit_code)) {
    return exit_code;
  }
  distributed::CoordinationServerOptions server_options;
  server_options.listen_address = listen;
  if (vm.count("nodes") && nodes < 1) {
    context.err << "berth coordinator: --nodes must be at least 1, not " << nodes << "\n";
    return kExitUsage;
  }
  server_options.num_nodes = nodes;
  if (vm.count("heartbeat-timeout") &&
      !SecondsOption(heartbeat_timeout, server_options.heartbeat_timeout)) {
    context.err << "berth coordinator: --heartbeat-timeout must be a positive number of seconds\n";
    return kExitUsage;
  }
  Result<std::string> token = token_file.empty()
                                  ? distributed::TokenFromEnvironment(common::ProcessEnv())
                                  : distributed::ReadTokenFile(token_file);
  if (!token.ok()) {
    context.err << "berth coordinator: " << token.status().message() << "\n";
    return kExitFailure;
  }
  server_options.token = *token;

  // Block the stop signals before any thread starts, so that only sigwait
  // below receives them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  Result<std::unique_ptr<distributed::CoordinationServer>> server =
      distributed::CoordinationServer::Start(server_options);
  if (!server.ok()) {
    context.err << "berth coordinator: " << server.status().message() << "\n";
    return kExitFailure;
  }
  context.out << "berth coordinator: listening on " << (*server)->address()
              << (nodes > 0 ? " for " + std::to_string(nodes) + " nodes" : std::string())
              << (token->empty() ? " (no token)" : " (token required)") << std::endl;
  int signal = 0;
  sigwait(&stop_signals, &signal);
  context.out << "berth coordinator: stopping (" << (signal == SIGINT ? "SIGINT" : "SIGTERM") << ")"
              << std::endl;
  (*server)->Shutdown();
  return kExitOk;
}

}  // namespace berth::cli
