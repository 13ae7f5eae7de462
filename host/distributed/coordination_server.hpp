// The coordination service over gRPC: a CoordinationState behind a
// callback-API gRPC server. Embeddable (node 0 hosts it in-process) and
// standalone (`berth coordinator`). See README.md.
#ifndef BERTH_HOST_DISTRIBUTED_COORDINATION_SERVER_HPP_
#define BERTH_HOST_DISTRIBUTED_COORDINATION_SERVER_HPP_

#include <cstddef>
#include <memory>
#include <string>

#include "berth/status.hpp"
#include "distributed/clock.hpp"
#include "distributed/coordination_state.hpp"

namespace berth::distributed {

inline constexpr size_t kDefaultMaxMessageBytes = 8 * 1024 * 1024;
inline constexpr Duration kDefaultWatchPollTimeout = std::chrono::seconds(30);

struct CoordinationServerOptions {
  // "HOST:PORT", "[IPv6]:PORT" or "0.0.0.0:PORT". Port 0 picks a free port
  // (read it back with BoundPort()).
  std::string listen_address = "127.0.0.1:0";
  int num_nodes = 0;
  // Shared secret every call must carry; empty: no authentication.
  std::string token;
  Duration heartbeat_timeout = kDefaultHeartbeatTimeout;
  // How long a WatchJob long poll is held before it is answered "no error".
  Duration watch_poll_timeout = kDefaultWatchPollTimeout;
  size_t max_message_bytes = kDefaultMaxMessageBytes;  // each direction
  size_t max_key_bytes = kDefaultMaxKeyBytes;
  size_t max_value_bytes = kDefaultMaxValueBytes;
  Clock* clock = nullptr;  // borrowed; null: the real clock
};

class CoordinationServer {
 public:
  // Binds and starts serving. INVALID_ARGUMENT for bad options (a value limit
  // that does not fit in a message, a token that cannot be metadata);
  // UNAVAILABLE naming the address when it cannot be bound.
  static Result<std::unique_ptr<CoordinationServer>> Start(CoordinationServerOptions options);

  // Shutdown().
  ~CoordinationServer();

  CoordinationServer(const CoordinationServer&) = delete;
  CoordinationServer& operator=(const CoordinationServer&) = delete;

  // The port actually bound.
  int BoundPort() const;

  // An address clients can dial: the listen host with the bound port
  // ("0.0.0.0" and "[::]" become the loopback address).
  std::string address() const;

  // Ends every pending wait (watches are told the service is stopping), then
  // stops the server, waiting at most ~2 s for calls in flight. Idempotent.
  void Shutdown();

  // Blocks until Shutdown() has been called (standalone coordinator).
  void Wait();

  // The semantics behind the transport (live nodes, job error...).
  CoordinationState& state();

 private:
  struct Impl;
  explicit CoordinationServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace berth::distributed

#endif  // BERTH_HOST_DISTRIBUTED_COORDINATION_SERVER_HPP_
