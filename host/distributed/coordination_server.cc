#include "distributed/coordination_server.hpp"

#include <cstring>

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <utility>

#include "berth/log.hpp"
#include "coordination.grpc.pb.h"
#include "distributed/format.hpp"
#include "distributed/grpc_common.hpp"

namespace berth::distributed {
namespace {

// The host of a gRPC peer string: "ipv4:10.0.0.2:5000" -> "10.0.0.2",
// "ipv6:%5B::1%5D:5000" -> "::1"; other forms as they are.
std::string PeerHost(const std::string& peer) {
  std::string text = peer;
  for (const char* scheme : {"ipv4:", "ipv6:"}) {
    if (text.rfind(scheme, 0) == 0) {
      text = text.substr(std::strlen(scheme));
      const size_t colon = text.rfind(':');
      if (colon != std::string::npos) text = text.substr(0, colon);
      for (const char* bracket : {"%5B", "%5D", "[", "]"}) {
        for (size_t at; (at = text.find(bracket)) != std::string::npos;) text.erase(at, std::strlen(bracket));
      }
      return text;
    }
  }
  return text;
}


namespace pb = ::berth::coordination;

constexpr std::string_view kLogCategory = "distributed";

// Requests carry timeouts in milliseconds; anything beyond ~100 years is
// "forever" and must not overflow nanoseconds.
Duration FromMillis(int64_t ms) {
  constexpr int64_t kMax = int64_t{100} * 365 * 24 * 3600 * 1000;
  return std::chrono::milliseconds(std::clamp<int64_t>(ms, 0, kMax));
}

// A unary call whose answer comes later, from a CoordinationState callback.
// Cancellation by the client (deadline, disconnect) ends the state's wait so
// nothing lingers until its own timeout.
class WaitReactor final : public grpc::ServerUnaryReactor {
 public:
  explicit WaitReactor(CoordinationState* state) : state_(state) {}

  // Called by the handler once the *Async call returned (id 0: nothing to
  // cancel), before the reactor is handed to gRPC.
  void Started(CoordinationState::WaitId id) {
    bool cancelled = false;
    {
      std::lock_guard lock(mu_);
      id_ = id;
      cancelled = cancelled_;
    }
    if (cancelled && id != 0) state_->Cancel(id);
    Unref();
  }

  void OnCancel() override {
    CoordinationState::WaitId id = 0;
    {
      std::lock_guard lock(mu_);
      cancelled_ = true;
      id = id_;
    }
    if (id != 0) state_->Cancel(id);
  }

  void OnDone() override { Unref(); }

 private:
  // One reference for the handler that starts the wait, one for gRPC.
  void Unref() {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

  CoordinationState* const state_;
  std::atomic<int> refs_{2};
  std::mutex mu_;
  CoordinationState::WaitId id_ = 0;
  bool cancelled_ = false;
};

class Service final : public pb::CoordinationService::CallbackService {
 public:
  Service(CoordinationState* state, const CoordinationServerOptions& options)
      : state_(state),
        token_(options.token),
        watch_poll_timeout_(options.watch_poll_timeout),
        max_message_bytes_(options.max_message_bytes) {}

  grpc::ServerUnaryReactor* Register(grpc::CallbackServerContext* ctx,
                                     const pb::RegisterRequest* request,
                                     pb::RegisterResponse* response) override {
    return Unary(ctx, [&]() -> Status {
      const int expected = request->expected_num_nodes();
      if (expected > 0 && expected != state_->num_nodes()) {
        return InvalidArgumentError("node " + std::to_string(request->node().node_id()) +
                                    " expects a job of " + std::to_string(expected) +
                                    " nodes but the coordination service was started for " +
                                    std::to_string(state_->num_nodes()) +
                                    " (check BERTH_NUM_NODES)");
      }
      BERTH_RETURN_IF_ERROR(
          state_->Register(request->node().node_id(), request->node().incarnation(), PeerHost(ctx->peer())));
      response->set_num_nodes(state_->num_nodes());
      response->set_heartbeat_timeout_ms(ToMillisCeil(state_->heartbeat_timeout()));
      response->set_watch_poll_timeout_ms(ToMillisCeil(watch_poll_timeout_));
      return OkStatus();
    });
  }

  grpc::ServerUnaryReactor* Heartbeat(grpc::CallbackServerContext* ctx,
                                      const pb::HeartbeatRequest* request,
                                      pb::HeartbeatResponse* /*response*/) override {
    return Unary(ctx, [&]() -> Status {
      return state_->Heartbeat(request->node().node_id(), request->node().incarnation());
    });
  }

  grpc::ServerUnaryReactor* WatchJob(grpc::CallbackServerContext* ctx,
                                     const pb::WatchJobRequest* request,
                                     pb::WatchJobResponse* response) override {
    return WaitAsNode(ctx, request->node(), [&](WaitReactor* reactor) {
      auto done = [reactor, response](WatchEvent event) {
        switch (event.kind) {
          case WatchEvent::Kind::kNoError: break;
          case WatchEvent::Kind::kJobFailed:
            response->set_job_failed(true);
            response->set_error_code(static_cast<int>(event.error.status.code()));
            response->set_error_message(event.error.status.message());
            response->set_error_node_id(event.error.node_id);
            break;
          case WatchEvent::Kind::kServiceStopping: response->set_service_stopping(true); break;
          case WatchEvent::Kind::kCancelled:
            reactor->Finish(grpc::Status(grpc::StatusCode::CANCELLED, "watch cancelled"));
            return;
        }
        reactor->Finish(grpc::Status::OK);
      };
      return state_->WatchAsync(request->node().node_id(), watch_poll_timeout_, std::move(done));
    });
  }

  grpc::ServerUnaryReactor* ReportError(grpc::CallbackServerContext* ctx,
                                        const pb::ReportErrorRequest* request,
                                        pb::ReportErrorResponse* /*response*/) override {
    return UnaryAsNode(ctx, request->node(), [&]() -> Status {
      StatusCode code = StatusCodeFromInt(request->error_code());
      if (code == StatusCode::kOk) code = StatusCode::kUnknown;
      std::string message = request->error_message();
      if (message.size() > kMaxStatusMessageBytes / 2) {
        message.resize(kMaxStatusMessageBytes / 2);
        message += "... (truncated)";
      }
      return state_->ReportError(request->node().node_id(), Status(code, std::move(message)));
    });
  }

  grpc::ServerUnaryReactor* Set(grpc::CallbackServerContext* ctx, const pb::SetRequest* request,
                                pb::SetResponse* /*response*/) override {
    return UnaryAsNode(ctx, request->node(), [&]() -> Status {
      return state_->Set(request->key(), request->value(), request->allow_overwrite());
    });
  }

  grpc::ServerUnaryReactor* Get(grpc::CallbackServerContext* ctx, const pb::GetRequest* request,
                                pb::GetResponse* response) override {
    return WaitAsNode(ctx, request->node(), [&](WaitReactor* reactor) {
      return state_->GetAsync(request->key(), FromMillis(request->timeout_ms()),
                              [reactor, response](Result<std::string> value) {
                                if (value.ok()) response->set_value(std::move(*value));
                                reactor->Finish(ToGrpcStatus(value.status()));
                              });
    });
  }

  grpc::ServerUnaryReactor* TryGet(grpc::CallbackServerContext* ctx,
                                   const pb::TryGetRequest* request,
                                   pb::TryGetResponse* response) override {
    return UnaryAsNode(ctx, request->node(), [&]() -> Status {
      BERTH_ASSIGN_OR_RETURN(std::string value, state_->TryGet(request->key()));
      response->set_value(std::move(value));
      return OkStatus();
    });
  }

  grpc::ServerUnaryReactor* GetDir(grpc::CallbackServerContext* ctx,
                                   const pb::GetDirRequest* request,
                                   pb::GetDirResponse* response) override {
    return UnaryAsNode(ctx, request->node(), [&]() -> Status {
      BERTH_ASSIGN_OR_RETURN(auto entries, state_->GetDir(request->prefix()));
      for (auto& [key, value] : entries) {
        pb::KeyValue* entry = response->add_entries();
        entry->set_key(std::move(key));
        entry->set_value(std::move(value));
      }
      const size_t bytes = response->ByteSizeLong();
      if (bytes + 1024 > max_message_bytes_) {
        const size_t count = static_cast<size_t>(response->entries_size());
        response->Clear();
        return ResourceExhaustedError(
            "directory " + Quote(request->prefix()) + " holds " + std::to_string(count) +
            " entries totalling " + FormatBytes(bytes) + ", over the message limit of " +
            FormatBytes(max_message_bytes_) + "; read it in smaller directories or key by key");
      }
      return OkStatus();
    });
  }

  grpc::ServerUnaryReactor* Delete(grpc::CallbackServerContext* ctx,
                                   const pb::DeleteRequest* request,
                                   pb::DeleteResponse* /*response*/) override {
    return UnaryAsNode(ctx, request->node(),
                       [&]() -> Status { return state_->Delete(request->key()); });
  }

  grpc::ServerUnaryReactor* Increment(grpc::CallbackServerContext* ctx,
                                      const pb::IncrementRequest* request,
                                      pb::IncrementResponse* response) override {
    return UnaryAsNode(ctx, request->node(), [&]() -> Status {
      BERTH_ASSIGN_OR_RETURN(int64_t value, state_->Increment(request->key(), request->delta()));
      response->set_value(value);
      return OkStatus();
    });
  }

  grpc::ServerUnaryReactor* Barrier(grpc::CallbackServerContext* ctx,
                                    const pb::BarrierRequest* request,
                                    pb::BarrierResponse* /*response*/) override {
    std::vector<int> participants(request->participants().begin(), request->participants().end());
    return WaitAsNode(ctx, request->node(), [&](WaitReactor* reactor) {
      return state_->BarrierAsync(request->node().node_id(), request->barrier_id(),
                                  FromMillis(request->timeout_ms()), std::move(participants),
                                  FinishWith(reactor));
    });
  }

  grpc::ServerUnaryReactor* GetLiveNodes(grpc::CallbackServerContext* ctx,
                                         const pb::GetLiveNodesRequest* request,
                                         pb::GetLiveNodesResponse* response) override {
    return UnaryAsNode(ctx, request->node(), [&]() -> Status {
      for (const NodeInfo& info : state_->GetLiveNodes()) {
        pb::NodeInfo* node = response->add_nodes();
        node->set_node_id(info.node_id);
        node->set_incarnation(info.incarnation);
        node->set_restarts(info.restarts);
      }
      return OkStatus();
    });
  }

  grpc::ServerUnaryReactor* Shutdown(grpc::CallbackServerContext* ctx,
                                     const pb::ShutdownRequest* request,
                                     pb::ShutdownResponse* /*response*/) override {
    return WaitAsNode(ctx, request->node(), [&](WaitReactor* reactor) {
      return state_->ShutdownAsync(request->node().node_id(), FromMillis(request->timeout_ms()),
                                   FinishWith(reactor));
    });
  }

 private:
  Status Authenticate(grpc::CallbackServerContext* ctx) const {
    ctx->AddTrailingMetadata(kServiceMarkerKey, "1");
    if (token_.empty()) return OkStatus();
    const auto& metadata = ctx->client_metadata();
    auto it = metadata.find(kTokenMetadataKey);
    if (it != metadata.end() &&
        ConstantTimeEquals(std::string_view(it->second.data(), it->second.size()), token_)) {
      return OkStatus();
    }
    Log(LogLevel::kWarning, kLogCategory,
        "refused a call from " + ctx->peer() + ": wrong or missing coordination token");
    return UnauthenticatedError(
        "wrong or missing coordination token; the node must use the token the coordination "
        "service was started with (BERTH_COORDINATOR_TOKEN or BERTH_COORDINATOR_TOKEN_FILE)");
  }

  // Authentication, then the caller must be a connected node with this
  // incarnation.
  Status Admit(grpc::CallbackServerContext* ctx, const pb::NodeRef& node) const {
    BERTH_RETURN_IF_ERROR(Authenticate(ctx));
    return state_->CheckCaller(node.node_id(), node.incarnation());
  }

  // A call answered at once: fn()'s status, once the caller is authenticated
  // (Unary) or admitted as a node (UnaryAsNode).
  template <typename Fn>
  grpc::ServerUnaryReactor* Unary(grpc::CallbackServerContext* ctx, Fn&& fn) {
    return Answer(ctx, Authenticate(ctx), fn);
  }

  template <typename Fn>
  grpc::ServerUnaryReactor* UnaryAsNode(grpc::CallbackServerContext* ctx, const pb::NodeRef& node,
                                        Fn&& fn) {
    return Answer(ctx, Admit(ctx, node), fn);
  }

  template <typename Fn>
  static grpc::ServerUnaryReactor* Answer(grpc::CallbackServerContext* ctx, Status admitted,
                                          Fn& fn) {
    grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
    if (admitted.ok()) admitted = fn();
    reactor->Finish(ToGrpcStatus(admitted));
    return reactor;
  }

  // A call that waits in the state: `start(reactor)` begins the wait and
  // returns its id; a caller that is not admitted is answered at once.
  template <typename Start>
  grpc::ServerUnaryReactor* WaitAsNode(grpc::CallbackServerContext* ctx, const pb::NodeRef& node,
                                       Start&& start) {
    auto* reactor = new WaitReactor(state_);
    if (Status refused = Admit(ctx, node); !refused.ok()) {
      reactor->Finish(ToGrpcStatus(refused));
      reactor->Started(0);
      return reactor;
    }
    reactor->Started(start(reactor));
    return reactor;
  }

  static CoordinationState::StatusCallback FinishWith(WaitReactor* reactor) {
    return [reactor](Status status) { reactor->Finish(ToGrpcStatus(status)); };
  }

  CoordinationState* const state_;
  const std::string token_;
  const Duration watch_poll_timeout_;
  const size_t max_message_bytes_;
};

// "host:port" -> (host, port text); IPv6 hosts keep their brackets.
std::pair<std::string, std::string> SplitHostPort(const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) return {address, ""};
  return {address.substr(0, colon), address.substr(colon + 1)};
}

}  // namespace

struct CoordinationServer::Impl {
  CoordinationServerOptions options;
  std::unique_ptr<CoordinationState> state;
  std::unique_ptr<Service> service;
  std::unique_ptr<grpc::Server> server;
  int port = 0;
  std::string address;

  std::mutex mu;
  std::condition_variable finished_cv;
  bool stopping = false;  // Shutdown() has begun
  bool finished = false;  // Shutdown() has completed
};

Result<std::unique_ptr<CoordinationServer>> CoordinationServer::Start(
    CoordinationServerOptions options) {
  const std::string where = "coordination service on " + options.listen_address;
  if (options.listen_address.empty()) {
    return InvalidArgumentError("coordination service: the listen address is empty");
  }
  if (Status bad = ValidateToken(options.token); !bad.ok()) return bad.WithContext(where);
  if (options.watch_poll_timeout <= Duration::zero()) {
    return InvalidArgumentError(where + ": the watch poll timeout must be positive");
  }
  if (options.max_key_bytes + options.max_value_bytes + 1024 > options.max_message_bytes) {
    return InvalidArgumentError(where + ": a key of " + FormatBytes(options.max_key_bytes) +
                                " and a value of " + FormatBytes(options.max_value_bytes) +
                                " do not fit in the message limit of " +
                                FormatBytes(options.max_message_bytes));
  }
  CoordinationStateOptions state_options;
  state_options.num_nodes = options.num_nodes;
  state_options.heartbeat_timeout = options.heartbeat_timeout;
  state_options.max_key_bytes = options.max_key_bytes;
  state_options.max_value_bytes = options.max_value_bytes;
  state_options.clock = options.clock;
  auto state = CoordinationState::Create(state_options);
  if (!state.ok()) return state.status().WithContext(where);

  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->state = std::move(*state);
  impl->service = std::make_unique<Service>(impl->state.get(), options);

  grpc::ServerBuilder builder;
  builder.AddListeningPort(options.listen_address, grpc::InsecureServerCredentials(), &impl->port);
  builder.RegisterService(impl->service.get());
  builder.SetMaxReceiveMessageSize(static_cast<int>(options.max_message_bytes));
  builder.SetMaxSendMessageSize(static_cast<int>(options.max_message_bytes));
  // gRPC sets SO_REUSEPORT by default, which would let a second coordinator
  // silently share the port with the first.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  impl->server = builder.BuildAndStart();
  if (impl->server == nullptr || impl->port == 0) {
    return UnavailableError(where +
                            ": cannot listen there (port in use, or not an address of "
                            "this machine?)");
  }
  auto [host, port_text] = SplitHostPort(options.listen_address);
  if (host.empty() || host == "0.0.0.0") host = "127.0.0.1";
  if (host == "[::]") host = "[::1]";
  impl->address = host + ":" + std::to_string(impl->port);
  Log(LogLevel::kInfo, kLogCategory,
      "coordination service for " + std::to_string(options.num_nodes) + " nodes listening on " +
          host + ":" + std::to_string(impl->port) +
          (options.token.empty() ? " (no authentication)" : " (token required)"));
  return std::unique_ptr<CoordinationServer>(new CoordinationServer(std::move(impl)));
}

CoordinationServer::CoordinationServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

CoordinationServer::~CoordinationServer() {
  Shutdown();
  impl_->server.reset();
  impl_->service.reset();
  impl_->state.reset();
}

int CoordinationServer::BoundPort() const { return impl_->port; }

std::string CoordinationServer::address() const { return impl_->address; }

CoordinationState& CoordinationServer::state() { return *impl_->state; }

void CoordinationServer::Shutdown() {
  {
    std::unique_lock lock(impl_->mu);
    if (impl_->stopping) {
      impl_->finished_cv.wait(lock, [this] { return impl_->finished; });
      return;
    }
    impl_->stopping = true;
  }
  // Answer every long poll and blocked call first, so Shutdown below does not
  // have to wait for them.
  impl_->state->Stop(
      UnavailableError("the coordination service at " + impl_->address + " is shutting down"));
  impl_->server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  impl_->server->Wait();
  Log(LogLevel::kInfo, kLogCategory, "coordination service on " + impl_->address + " stopped");
  {
    std::lock_guard lock(impl_->mu);
    impl_->finished = true;
  }
  impl_->finished_cv.notify_all();
}

void CoordinationServer::Wait() {
  std::unique_lock lock(impl_->mu);
  impl_->finished_cv.wait(lock, [this] { return impl_->finished; });
}

}  // namespace berth::distributed
