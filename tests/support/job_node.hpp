// A node program of a multi-process test (started by `berth launch`): joins
// the job from the environment and makes a client of the plugin of one
// manifest, with the job's client options.
#ifndef BERTH_TESTS_SUPPORT_JOB_NODE_HPP_
#define BERTH_TESTS_SUPPORT_JOB_NODE_HPP_

#include <memory>
#include <optional>
#include <string>

#include "berth/berth.hpp"
#include "berth/job.hpp"

namespace berth::testing {

struct JobNode {
  std::unique_ptr<Job> job;  // declared first: destroyed after the client
  std::optional<Host> host;
  std::optional<Client> client;
};

// FAILED_PRECONDITION when the process was not started as a node of a job.
inline Result<JobNode> JoinJobNode(const std::string& manifest, const std::string& plugin = "cpu") {
  JobNode node;
  BERTH_ASSIGN_OR_RETURN(node.job, Job::JoinFromEnvironment());
  if (node.job == nullptr) return FailedPreconditionError("not started by berth launch");
  HostOptions options;
  options.only_manifests = {manifest};
  BERTH_ASSIGN_OR_RETURN(Host host, Host::Create(options));
  node.host.emplace(std::move(host));
  BERTH_ASSIGN_OR_RETURN(Client client,
                         node.host->CreateClient(plugin, node.job->ClientOptionsFor(plugin)));
  node.client.emplace(std::move(client));
  return node;
}

}  // namespace berth::testing

#endif  // BERTH_TESTS_SUPPORT_JOB_NODE_HPP_
