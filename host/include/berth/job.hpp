// A process's membership in a multi-process job: the connection to the
// coordination service, and the key-value stores handed to plugin clients.
//
//   auto job = berth::Job::JoinFromEnvironment();      // nullptr: single-process
//   berth::ClientOptions options = (*job)->ClientOptionsFor("cpu");
//   auto client = host.CreateClient("cpu", options);   // sees every node's devices
//   ...
//   (*job)->Shutdown();                                // leave cleanly
//
// The Job must outlive every client made with its options.
#ifndef BERTH_JOB_HPP_
#define BERTH_JOB_HPP_

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "berth/api.hpp"
#include "berth/host.hpp"
#include "berth/status.hpp"

namespace berth {

// Where this process sits in a job and how to reach the coordinator.
struct JobConfig {
  int node_id = 0;
  int num_nodes = 1;
  std::string coordinator_address;  // HOST:PORT
  std::string token;                // shared secret; empty: none
  // Start the coordination service in this process (at coordinator_address)
  // before connecting. Only node 0 may.
  bool host_service = false;
  // Heartbeat timeout of a hosted service (zero: the default, 10 s).
  std::chrono::milliseconds heartbeat_timeout{0};
  // How long joining waits for the service.
  std::chrono::milliseconds connect_timeout{30000};
  // Devices each node's clients make (`berth launch --devices-per-node K`,
  // BERTH_DEVICES_PER_NODE): ClientOptionsFor passes it as the client option
  // `device_count`. Unset: the plugin's own default or the manifest's.
  std::optional<int> devices_per_node;
  // The IP address other nodes reach this one at, passed to plugins as the
  // client option `node_address`. Empty: BERTH_NODE_ADDRESS, else the first
  // address of BERTH_NODE_INTERFACE, else the local address of the route to
  // the coordinator (host/distributed/README.md, "Node addresses").
  std::string node_address;
  // The job's slices (groups of nodes on a fast fabric joined by a slower
  // network; `berth launch --slices S`, BERTH_NUM_SLICES and BERTH_SLICE_ID)
  // and this node's: ClientOptionsFor passes them to plugins that take them
  // (the multi_slice extension, berth/ext/multi_slice.h).
  int num_slices = 1;
  int slice_id = 0;
};

struct JobOptions {
  // Called at most once, from a background thread, with the job's first
  // fatal error (a node died or failed, the coordinator is gone). It may
  // terminate the process; it must not destroy the Job. Null: the error is
  // logged and kept in error().
  std::function<void(const Status& error)> on_error;
};

class BERTH_API Job {
 public:
  // Joins the job the environment describes (BERTH_COORDINATOR,
  // BERTH_NODE_ID, BERTH_NUM_NODES, BERTH_COORDINATOR_TOKEN[_FILE], or
  // OpenMPI / PMI / SLURM variables). Returns nullptr when no multi-process
  // job is configured. Node 0 hosts the service itself only under an
  // external launcher (OpenMPI, PMI, SLURM); with BERTH_NODE_ID set the
  // service is expected to run already (`berth launch`, `berth coordinator`).
  static Result<std::unique_ptr<Job>> JoinFromEnvironment(const JobOptions& options = {});
  static Result<std::unique_ptr<Job>> Join(const JobConfig& config, const JobOptions& options = {});

  // Leaves without the shutdown barrier when Shutdown was not called (the
  // others then see this node die).
  ~Job();
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  int node_id() const;
  int num_nodes() const;
  // JobConfig::devices_per_node (from BERTH_DEVICES_PER_NODE when joined
  // from the environment).
  std::optional<int> devices_per_node() const;
  std::chrono::milliseconds heartbeat_timeout() const;
  // The address other nodes reach this one at (JobConfig::node_address, or
  // as resolved when joining).
  const std::string& node_address() const;
  int num_slices() const;
  int slice_id() const;

  // Options for Host::CreateClient: the reserved `node_id` and `num_nodes`,
  // `node_address` in a job of several nodes (the host passes it on only to
  // plugins of C API 1.3 and later),
  // `device_count` when the job has devices_per_node (a plugin that cannot
  // choose its device count refuses it as an unknown option), and a
  // key-value store whose keys live under `plugin/<name>/<k>/`, k
  // counting this process's clients of that plugin (so SPMD processes that
  // create clients in the same order share namespaces). The store lives as
  // long as the Job.
  ClientOptions ClientOptionsFor(std::string_view plugin_name);

  // Marks the job failed: every other node's error callback gets it.
  Status ReportError(const Status& error);
  // The shutdown barrier with every other node; call once before exiting.
  Status Shutdown(std::chrono::milliseconds timeout = std::chrono::seconds(30));

  // The job's first fatal error, if one arrived.
  std::optional<Status> error() const;
  // Waits up to `timeout` for a fatal error; nullopt when none came.
  std::optional<Status> AwaitError(std::chrono::milliseconds timeout) const;

  struct BERTH_LOCAL Impl;

 private:
  explicit Job(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace berth

#endif  // BERTH_JOB_HPP_
