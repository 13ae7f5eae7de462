// A node's connection to the coordination service: registration, background
// heartbeats and job watching, and the key-value / barrier calls. See
// README.md for the semantics of every call.
#ifndef BERTH_HOST_DISTRIBUTED_COORDINATION_CLIENT_HPP_
#define BERTH_HOST_DISTRIBUTED_COORDINATION_CLIENT_HPP_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "berth/status.hpp"
#include "distributed/clock.hpp"
#include "distributed/coordination_state.hpp"

namespace berth::distributed {

// Called at most once per client, from a background thread, with the first
// fatal error: the job failed (a node died, restarted or reported an error),
// this node was refused (declared dead, replaced), or the service is
// unreachable or shut down. It must not destroy the client.
using ErrorCallback = std::function<void(const Status& error)>;

struct CoordinationClientOptions {
  std::string address;  // "HOST:PORT" of the coordination service
  int node_id = -1;     // 0..num_nodes-1
  // The job size this node expects; 0 accepts the service's. A mismatch is
  // INVALID_ARGUMENT at Connect.
  int num_nodes = 0;
  // Identifies this process; a random 64-bit number when unset.
  std::optional<uint64_t> incarnation;
  std::string token;  // shared secret; empty when the service has none
  Duration heartbeat_interval = std::chrono::seconds(1);
  // How long heartbeats may fail before the service counts as unreachable;
  // zero takes the service's own heartbeat timeout (default 10 s).
  Duration heartbeat_timeout = Duration::zero();
  // How long Connect waits for the service to come up and answer.
  Duration connect_timeout = std::chrono::seconds(30);
  // Deadline of calls that do not wait on purpose (Set, TryGet, ...).
  Duration rpc_timeout = std::chrono::seconds(30);
  size_t max_key_bytes = kDefaultMaxKeyBytes;      // checked before sending
  size_t max_value_bytes = kDefaultMaxValueBytes;  // checked before sending
  size_t max_message_bytes = 8 * 1024 * 1024;
  // Null: the error is logged (category "distributed") and kept in error().
  ErrorCallback error_callback;
};

class CoordinationClient {
 public:
  // Registers with the service, then starts the heartbeat and watch threads.
  // Errors: INVALID_ARGUMENT (options); UNAVAILABLE naming the address when
  // the service does not answer within connect_timeout; UNAUTHENTICATED for a
  // wrong token; ALREADY_EXISTS when another live process holds the node id.
  static Result<std::unique_ptr<CoordinationClient>> Connect(CoordinationClientOptions options);

  // Stops the background threads promptly, without the shutdown barrier: to
  // the service this looks like a crash (after the heartbeat timeout the job
  // fails). Call Shutdown() first to leave cleanly.
  ~CoordinationClient();

  CoordinationClient(const CoordinationClient&) = delete;
  CoordinationClient& operator=(const CoordinationClient&) = delete;

  // Key-value store. Keys are up to 4 KiB of any bytes, values up to 4 MiB.
  // "a/b/c" style keys form directories for GetDir and Delete.
  Status Set(std::string_view key, std::string_view value, bool allow_overwrite = false);
  Result<std::string> Get(std::string_view key, Duration timeout);
  Result<std::string> TryGet(std::string_view key);
  Result<std::vector<std::pair<std::string, std::string>>> GetDir(std::string_view prefix);
  Status Delete(std::string_view key);
  Result<int64_t> Increment(std::string_view key, int64_t delta = 1);

  // Waits until every participant (empty: every node) reached `barrier_id`.
  // Every participant should pass the same timeout; the first caller's counts.
  Status Barrier(std::string_view barrier_id, Duration timeout, std::vector<int> participants = {});

  Result<std::vector<NodeInfo>> GetLiveNodes();

  // Fails the job: every other node's error callback gets ABORTED naming this
  // node. This node's own callback is not called for its own report (error()
  // still records it).
  Status ReportError(const Status& error);

  // Passes the shutdown barrier with every other connected node, then stops
  // heartbeating. Call once, before exiting; later calls FAILED_PRECONDITION.
  Status Shutdown(Duration timeout = std::chrono::seconds(30));

  // The first fatal error seen (what the error callback got), if any.
  std::optional<Status> error() const;

  int node_id() const;
  int num_nodes() const;
  uint64_t incarnation() const;
  const std::string& address() const;
  // How long heartbeats may fail before this client gives up on the service
  // (the service's own heartbeat timeout unless the options set one).
  Duration heartbeat_timeout() const;

  // Threading: every method may be called from any thread, concurrently.
  // Get and Barrier fail at once with error() after a fatal error. When the
  // service itself is lost (unreachable, shut down) calls in flight are
  // cancelled and return that error; after a job error the service ends its
  // waits itself.

 private:
  struct Impl;
  explicit CoordinationClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace berth::distributed

#endif  // BERTH_HOST_DISTRIBUTED_COORDINATION_CLIENT_HPP_
