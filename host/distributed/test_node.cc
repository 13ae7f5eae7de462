// A node program for the launcher tests: it finds its job with
// DetectJobEnvironment, connects to the coordination service and acts out
// the scenario named by argv[1]:
//   barrier  publish "hello/<id>", pass a barrier, print how many nodes it
//            sees, leave through the shutdown barrier, exit 0;
//   report   node 1 reports an error and then hangs; the others wait for a
//            key that never comes and must be told about the error (they
//            exit 7 from the error callback).
#include <unistd.h>

#include <cstdio>
#include <string>
#include <thread>

#include "common/env.hpp"
#include "distributed/coordination_client.hpp"
#include "distributed/job_environment.hpp"

using namespace berth;
using namespace berth::distributed;

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  auto job = DetectJobEnvironment(common::ProcessEnv());
  if (!job.ok() || !job->has_value()) {
    std::fprintf(stderr, "no job environment: %s\n", job.status().ToString().c_str());
    return 2;
  }
  const JobEnvironment& env = **job;
  CoordinationClientOptions options;
  options.address = env.coordinator_address;
  options.node_id = env.node_id;
  options.num_nodes = env.num_nodes;
  options.token = env.token;
  options.heartbeat_interval = std::chrono::milliseconds(200);
  options.connect_timeout = std::chrono::seconds(10);
  options.error_callback = [id = env.node_id](const Status& error) {
    std::fprintf(stderr, "node %d: job failed: %s\n", id, error.ToString().c_str());
    std::fflush(stderr);
    _exit(7);
  };
  auto client = CoordinationClient::Connect(options);
  if (!client.ok()) {
    std::fprintf(stderr, "%s\n", client.status().ToString().c_str());
    return 2;
  }
  CoordinationClient& c = **client;
  const std::string id = std::to_string(env.node_id);

  if (mode == "barrier") {
    if (Status s = c.Set("hello/" + id, id); !s.ok()) return 3;
    if (Status s = c.Barrier("all-said-hello", std::chrono::seconds(10)); !s.ok()) {
      std::fprintf(stderr, "%s\n", s.ToString().c_str());
      return 4;
    }
    auto entries = c.GetDir("hello");
    std::printf("node %s sees %zu nodes\n", id.c_str(), entries.ok() ? entries->size() : 0);
    std::fflush(stdout);
    return c.Shutdown(std::chrono::seconds(10)).ok() ? 0 : 5;
  }
  if (mode == "report") {
    if (Status s = c.Barrier("up", std::chrono::seconds(10)); !s.ok()) return 4;
    if (env.node_id == 1) {
      (void)c.ReportError(InternalError("simulated failure"));
      std::this_thread::sleep_for(std::chrono::seconds(60));  // hangs, as a broken node would
      return 0;
    }
    auto never = c.Get("never-set", std::chrono::seconds(60));
    std::fprintf(stderr, "node %s: Get returned %s\n", id.c_str(),
                 never.status().ToString().c_str());
    std::this_thread::sleep_for(std::chrono::seconds(60));
    return 0;
  }
  std::fprintf(stderr, "unknown mode '%s'\n", mode.c_str());
  return 2;
}
