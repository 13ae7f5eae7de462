#include "distributed/coordination_client.hpp"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "berth/log.hpp"
#include "coordination.grpc.pb.h"
#include "distributed/format.hpp"
#include "distributed/grpc_common.hpp"

namespace berth::distributed {
namespace {

namespace pb = ::berth::coordination;

constexpr std::string_view kLogCategory = "distributed";

// Extra time a waiting call's RPC deadline gets over the wait's own timeout,
// so the service's answer (which names what is missing) arrives first.
constexpr Duration kWaitGrace = std::chrono::seconds(5);
constexpr Duration kMaxDeadline = std::chrono::hours(24 * 365);

using Steady = std::chrono::steady_clock;

uint64_t RandomIncarnation() {
  std::random_device device;
  uint64_t value = 0;
  while (value == 0) {
    value = (static_cast<uint64_t>(device()) << 32) ^ static_cast<uint64_t>(device());
  }
  return value;
}

// A waiting call's RPC deadline: its timeout plus the grace, saturating.
Duration WithGrace(Duration timeout) {
  return timeout > kMaxDeadline - kWaitGrace ? kMaxDeadline : timeout + kWaitGrace;
}

std::chrono::system_clock::time_point DeadlineIn(Duration timeout) {
  return std::chrono::system_clock::now() +
         std::chrono::duration_cast<std::chrono::system_clock::duration>(
             std::clamp(timeout, Duration::zero(), kMaxDeadline));
}

// Whether an answer came from the coordination service (it marks every
// answer), as opposed to the transport failing before any answer.
bool FromService(const grpc::ClientContext& ctx) {
  const auto& trailers = ctx.GetServerTrailingMetadata();
  return trailers.find(kServiceMarkerKey) != trailers.end();
}

// Service errors that mean this node itself is refused for good.
bool IsRefusal(StatusCode code) {
  return code == StatusCode::kAborted || code == StatusCode::kFailedPrecondition ||
         code == StatusCode::kUnauthenticated || code == StatusCode::kInvalidArgument ||
         code == StatusCode::kPermissionDenied;
}

}  // namespace

struct CoordinationClient::Impl {
  CoordinationClientOptions options;
  uint64_t incarnation = 0;
  int num_nodes = 0;
  Duration heartbeat_timeout{};
  Duration watch_poll_timeout{};
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<pb::CoordinationService::Stub> stub;

  mutable std::mutex mu;
  std::condition_variable cv;
  bool stopping = false;      // the destructor runs
  bool leaving = false;       // Shutdown() was called: no more watching or callbacks
  bool disconnected = false;  // Shutdown() returned: no more heartbeats
  std::optional<Status> error;
  bool reported = false;                 // this node called ReportError
  std::set<grpc::ClientContext*> calls;  // calls in flight, cancelled on a fatal error
  grpc::ClientContext* watch_call = nullptr;
  grpc::ClientContext* heartbeat_call = nullptr;
  std::thread heartbeat_thread;
  std::thread watch_thread;

  std::string Name() const { return "node " + std::to_string(options.node_id); }

  pb::NodeRef Self() const {
    pb::NodeRef ref;
    ref.set_node_id(options.node_id);
    ref.set_incarnation(incarnation);
    return ref;
  }

  void Prepare(grpc::ClientContext& ctx, Duration timeout, bool wait_for_ready) const {
    ctx.set_deadline(DeadlineIn(timeout));
    ctx.set_wait_for_ready(wait_for_ready);
    if (!options.token.empty()) ctx.AddMetadata(kTokenMetadataKey, options.token);
  }

  // Turns a gRPC status into the caller's Status: the service's own errors
  // pass unchanged; transport failures name the address and the call.
  Status Translate(const grpc::Status& status, const grpc::ClientContext& ctx,
                   std::string_view what, Duration timeout) const {
    if (status.ok()) return OkStatus();
    Status s = FromGrpcStatus(status);
    if (FromService(ctx)) return s;
    if (s.code() == StatusCode::kDeadlineExceeded) {
      return DeadlineExceededError("coordination service at " + options.address +
                                   " did not answer " + std::string(what) + " within " +
                                   FormatSeconds(timeout));
    }
    if (s.code() == StatusCode::kResourceExhausted) {
      return ResourceExhaustedError(std::string(what) + ": " + s.message());
    }
    return Status(s.code(), "coordination service at " + options.address + " unreachable (" +
                                std::string(what) + "): " + s.message());
  }

  // How a call behaves when a fatal error comes.
  enum class OnError {
    kFailFast,  // a waiting call: fails at once, and is cancelled if in flight
    kCancel,    // cancelled if in flight when the service is lost
    kFinish,    // always runs to its own answer or deadline (ReportError, Shutdown)
  };

  // Runs one unary call.
  template <typename Fn>
  Status Invoke(std::string_view what, Duration timeout, OnError on_error, Fn&& fn) {
    grpc::ClientContext ctx;
    const bool tracked = on_error != OnError::kFinish;
    {
      std::lock_guard lock(mu);
      if (on_error == OnError::kFailFast && error) return *error;
      Prepare(ctx, timeout, /*wait_for_ready=*/!error.has_value());
      if (tracked) calls.insert(&ctx);
    }
    grpc::Status status = fn(&ctx);
    if (tracked) {
      std::lock_guard lock(mu);
      calls.erase(&ctx);
      if (!status.ok() && status.error_code() == grpc::StatusCode::CANCELLED && error) {
        return *error;
      }
    }
    return Translate(status, ctx, what, timeout);
  }

  // Records the first fatal error and calls the callback. `service_lost`:
  // the service cannot answer any more, so calls in flight are cancelled
  // (for a job error the service fails its waits itself).
  // `own_report`: the job failed because this node reported an error; it
  // knows already, so the error is recorded but the callback not called.
  void FireError(const Status& status, bool service_lost, bool own_report = false) {
    ErrorCallback callback;
    {
      std::lock_guard lock(mu);
      if (error || leaving || stopping) return;
      error = status;
      if (service_lost) {
        for (grpc::ClientContext* call : calls) call->TryCancel();
      }
      if (own_report) return;
      callback = options.error_callback;
    }
    cv.notify_all();
    Log(LogLevel::kError, kLogCategory, Name() + ": " + status.ToString());
    if (callback) callback(status);
  }

  void HeartbeatLoop() {
    const Duration rpc_timeout = std::min(
        heartbeat_timeout, std::max<Duration>(options.heartbeat_interval, std::chrono::seconds(1)));
    Steady::time_point last_ok = Steady::now();
    Steady::time_point next = last_ok + options.heartbeat_interval;
    std::unique_lock lock(mu);
    while (true) {
      cv.wait_until(lock, next, [this] { return stopping || disconnected; });
      if (stopping || disconnected) return;
      grpc::ClientContext ctx;
      Prepare(ctx, rpc_timeout, /*wait_for_ready=*/false);
      heartbeat_call = &ctx;
      lock.unlock();
      const Steady::time_point sent = Steady::now();
      pb::HeartbeatRequest request;
      *request.mutable_node() = Self();
      pb::HeartbeatResponse response;
      grpc::Status status = stub->Heartbeat(&ctx, request, &response);
      lock.lock();
      heartbeat_call = nullptr;
      if (stopping || disconnected) return;
      const Steady::time_point now = Steady::now();
      next = std::max(now, sent + options.heartbeat_interval);
      if (status.ok()) {
        last_ok = now;
        continue;
      }
      Status s = FromGrpcStatus(status);
      if (FromService(ctx) && IsRefusal(s.code())) {
        lock.unlock();
        FireError(Status(s.code(), "coordination service at " + options.address +
                                       " refused the heartbeat of " + Name() + ": " + s.message()),
                  /*service_lost=*/false);
        return;
      }
      if (now - last_ok >= heartbeat_timeout) {
        lock.unlock();
        FireError(
            UnavailableError("coordination service at " + options.address + " unreachable for " +
                             FormatSeconds(now - last_ok) + " (last error: " + s.ToString() +
                             "); " + Name() + " cannot continue"),
            /*service_lost=*/true);
        return;
      }
    }
  }

  void WatchLoop() {
    Duration backoff = std::chrono::milliseconds(100);
    std::unique_lock lock(mu);
    while (!stopping && !leaving) {
      grpc::ClientContext ctx;
      Prepare(ctx, WithGrace(watch_poll_timeout), /*wait_for_ready=*/false);
      watch_call = &ctx;
      lock.unlock();
      pb::WatchJobRequest request;
      *request.mutable_node() = Self();
      pb::WatchJobResponse response;
      grpc::Status status = stub->WatchJob(&ctx, request, &response);
      lock.lock();
      watch_call = nullptr;
      if (stopping || leaving) return;
      if (status.ok()) {
        backoff = std::chrono::milliseconds(100);
        if (response.job_failed()) {
          const bool own_report = reported && response.error_node_id() == options.node_id;
          lock.unlock();
          FireError(Status(StatusCodeFromInt(response.error_code()), response.error_message()),
                    /*service_lost=*/false, own_report);
          return;
        }
        if (response.service_stopping()) {
          lock.unlock();
          FireError(UnavailableError("the coordination service at " + options.address +
                                     " shut down while " + Name() + " was still connected"),
                    /*service_lost=*/true);
          return;
        }
        continue;
      }
      Status s = FromGrpcStatus(status);
      if (FromService(ctx) && IsRefusal(s.code())) {
        lock.unlock();
        FireError(Status(s.code(), "coordination service at " + options.address + " refused " +
                                       Name() + ": " + s.message()),
                  /*service_lost=*/false);
        return;
      }
      // A transport failure: whether the service is gone for good is the
      // heartbeat thread's call. Poll again after a pause.
      cv.wait_for(lock, backoff, [this] { return stopping || leaving; });
      backoff = std::min<Duration>(backoff * 2, std::chrono::seconds(1));
    }
  }
};

Result<std::unique_ptr<CoordinationClient>> CoordinationClient::Connect(
    CoordinationClientOptions options) {
  const std::string who = "node " + std::to_string(options.node_id);
  if (options.address.empty() || options.address.find(':') == std::string::npos) {
    return InvalidArgumentError(who + ": coordinator address " + Quote(options.address) +
                                " is not HOST:PORT (set BERTH_COORDINATOR)");
  }
  if (options.node_id < 0 || (options.num_nodes > 0 && options.node_id >= options.num_nodes)) {
    return InvalidArgumentError("node id " + std::to_string(options.node_id) +
                                " is out of range for a job of " +
                                std::to_string(options.num_nodes) + " nodes");
  }
  if (options.heartbeat_interval <= Duration::zero() ||
      options.connect_timeout <= Duration::zero() || options.rpc_timeout <= Duration::zero() ||
      options.heartbeat_timeout < Duration::zero()) {
    return InvalidArgumentError(who +
                                ": heartbeat interval, connect timeout and call timeout "
                                "must be positive");
  }
  if (Status bad = ValidateToken(options.token); !bad.ok()) return bad.WithContext(who);

  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  const CoordinationClientOptions& opts = impl->options;
  impl->incarnation = opts.incarnation.value_or(RandomIncarnation());

  grpc::ChannelArguments args;
  // gRPC honours http_proxy; the coordinator is reached directly.
  args.SetInt(GRPC_ARG_ENABLE_HTTP_PROXY, 0);
  args.SetMaxReceiveMessageSize(static_cast<int>(opts.max_message_bytes));
  args.SetMaxSendMessageSize(static_cast<int>(opts.max_message_bytes));
  // Each client its own connection (several nodes may live in one process).
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  // Find a coordinator that comes up a little after this node quickly.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  impl->channel = grpc::CreateCustomChannel(opts.address, grpc::InsecureChannelCredentials(), args);
  impl->stub = pb::CoordinationService::NewStub(impl->channel);

  grpc::ClientContext ctx;
  impl->Prepare(ctx, opts.connect_timeout, /*wait_for_ready=*/true);
  pb::RegisterRequest request;
  *request.mutable_node() = impl->Self();
  request.set_expected_num_nodes(opts.num_nodes);
  pb::RegisterResponse response;
  grpc::Status status = impl->stub->Register(&ctx, request, &response);
  if (!status.ok()) {
    Status s = FromGrpcStatus(status);
    if (!FromService(ctx)) {
      return UnavailableError(
          who + " could not reach the coordination service at " + opts.address + " within " +
          FormatSeconds(opts.connect_timeout) + " (" + s.ToString() +
          "); check that the coordinator is running (node 0 hosts it, or `berth coordinator`), "
          "that BERTH_COORDINATOR names its host and port, and that no firewall blocks the port");
    }
    return Status(s.code(), "coordination service at " + opts.address + " refused " + who + ": " +
                                s.message());
  }
  impl->num_nodes = response.num_nodes();
  if (opts.num_nodes > 0 && opts.num_nodes != impl->num_nodes) {
    return InvalidArgumentError(who + " expects a job of " + std::to_string(opts.num_nodes) +
                                " nodes but the coordination service at " + opts.address +
                                " was started for " + std::to_string(impl->num_nodes) +
                                " (check BERTH_NUM_NODES)");
  }
  const Duration service_timeout = std::chrono::milliseconds(response.heartbeat_timeout_ms());
  impl->heartbeat_timeout =
      opts.heartbeat_timeout > Duration::zero() ? opts.heartbeat_timeout : service_timeout;
  impl->watch_poll_timeout = std::chrono::milliseconds(response.watch_poll_timeout_ms());
  if (opts.heartbeat_interval * 2 > service_timeout) {
    Log(LogLevel::kWarning, kLogCategory,
        who + ": heartbeat interval " + FormatSeconds(opts.heartbeat_interval) +
            " is more than half the service's heartbeat timeout " + FormatSeconds(service_timeout) +
            "; one late heartbeat may get this node declared dead");
  }
  Log(LogLevel::kInfo, kLogCategory,
      who + " registered with the coordination service at " + opts.address + " (incarnation " +
          FormatIncarnation(impl->incarnation) + ", " + std::to_string(impl->num_nodes) +
          " nodes)");

  Impl* raw = impl.get();
  impl->heartbeat_thread = std::thread([raw] { raw->HeartbeatLoop(); });
  impl->watch_thread = std::thread([raw] { raw->WatchLoop(); });
  return std::unique_ptr<CoordinationClient>(new CoordinationClient(std::move(impl)));
}

CoordinationClient::CoordinationClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

CoordinationClient::~CoordinationClient() {
  {
    std::lock_guard lock(impl_->mu);
    impl_->stopping = true;
    if (impl_->watch_call != nullptr) impl_->watch_call->TryCancel();
    if (impl_->heartbeat_call != nullptr) impl_->heartbeat_call->TryCancel();
    for (grpc::ClientContext* call : impl_->calls) call->TryCancel();
  }
  impl_->cv.notify_all();
  if (impl_->heartbeat_thread.joinable()) impl_->heartbeat_thread.join();
  if (impl_->watch_thread.joinable()) impl_->watch_thread.join();
}

Status CoordinationClient::Set(std::string_view key, std::string_view value, bool allow_overwrite) {
  if (value.size() > impl_->options.max_value_bytes) {
    return InvalidArgumentError("value of " + FormatBytes(value.size()) + " for key " + Quote(key) +
                                " is over the limit of " +
                                FormatBytes(impl_->options.max_value_bytes));
  }
  if (key.size() > impl_->options.max_key_bytes) {
    return InvalidArgumentError(
        "key of " + std::to_string(key.size()) + " bytes is over the limit of " +
        std::to_string(impl_->options.max_key_bytes) + " bytes: " + Quote(key));
  }
  pb::SetRequest request;
  *request.mutable_node() = impl_->Self();
  request.set_key(std::string(key));
  request.set_value(std::string(value));
  request.set_allow_overwrite(allow_overwrite);
  pb::SetResponse response;
  return impl_->Invoke(
      "Set(" + Quote(key) + ")", impl_->options.rpc_timeout, Impl::OnError::kCancel,
      [&](grpc::ClientContext* ctx) { return impl_->stub->Set(ctx, request, &response); });
}

Result<std::string> CoordinationClient::Get(std::string_view key, Duration timeout) {
  pb::GetRequest request;
  *request.mutable_node() = impl_->Self();
  request.set_key(std::string(key));
  request.set_timeout_ms(ToMillisCeil(timeout));
  pb::GetResponse response;
  BERTH_RETURN_IF_ERROR(impl_->Invoke(
      "Get(" + Quote(key) + ")", WithGrace(timeout), Impl::OnError::kFailFast,
      [&](grpc::ClientContext* ctx) { return impl_->stub->Get(ctx, request, &response); }));
  return std::move(*response.mutable_value());
}

Result<std::string> CoordinationClient::TryGet(std::string_view key) {
  pb::TryGetRequest request;
  *request.mutable_node() = impl_->Self();
  request.set_key(std::string(key));
  pb::TryGetResponse response;
  BERTH_RETURN_IF_ERROR(impl_->Invoke(
      "TryGet(" + Quote(key) + ")", impl_->options.rpc_timeout, Impl::OnError::kCancel,
      [&](grpc::ClientContext* ctx) { return impl_->stub->TryGet(ctx, request, &response); }));
  return std::move(*response.mutable_value());
}

Result<std::vector<std::pair<std::string, std::string>>> CoordinationClient::GetDir(
    std::string_view prefix) {
  pb::GetDirRequest request;
  *request.mutable_node() = impl_->Self();
  request.set_prefix(std::string(prefix));
  pb::GetDirResponse response;
  BERTH_RETURN_IF_ERROR(impl_->Invoke(
      "GetDir(" + Quote(prefix) + ")", impl_->options.rpc_timeout, Impl::OnError::kCancel,
      [&](grpc::ClientContext* ctx) { return impl_->stub->GetDir(ctx, request, &response); }));
  std::vector<std::pair<std::string, std::string>> entries;
  entries.reserve(static_cast<size_t>(response.entries_size()));
  for (auto& entry : *response.mutable_entries()) {
    entries.emplace_back(std::move(*entry.mutable_key()), std::move(*entry.mutable_value()));
  }
  return entries;
}

Status CoordinationClient::Delete(std::string_view key) {
  pb::DeleteRequest request;
  *request.mutable_node() = impl_->Self();
  request.set_key(std::string(key));
  pb::DeleteResponse response;
  return impl_->Invoke(
      "Delete(" + Quote(key) + ")", impl_->options.rpc_timeout, Impl::OnError::kCancel,
      [&](grpc::ClientContext* ctx) { return impl_->stub->Delete(ctx, request, &response); });
}

Result<int64_t> CoordinationClient::Increment(std::string_view key, int64_t delta) {
  pb::IncrementRequest request;
  *request.mutable_node() = impl_->Self();
  request.set_key(std::string(key));
  request.set_delta(delta);
  pb::IncrementResponse response;
  BERTH_RETURN_IF_ERROR(impl_->Invoke(
      "Increment(" + Quote(key) + ")", impl_->options.rpc_timeout, Impl::OnError::kCancel,
      [&](grpc::ClientContext* ctx) { return impl_->stub->Increment(ctx, request, &response); }));
  return response.value();
}

Status CoordinationClient::Barrier(std::string_view barrier_id, Duration timeout,
                                   std::vector<int> participants) {
  pb::BarrierRequest request;
  *request.mutable_node() = impl_->Self();
  request.set_barrier_id(std::string(barrier_id));
  request.set_timeout_ms(ToMillisCeil(timeout));
  for (int p : participants) request.add_participants(p);
  pb::BarrierResponse response;
  return impl_->Invoke(
      "Barrier(" + Quote(barrier_id) + ")", WithGrace(timeout), Impl::OnError::kFailFast,
      [&](grpc::ClientContext* ctx) { return impl_->stub->Barrier(ctx, request, &response); });
}

Result<std::vector<NodeInfo>> CoordinationClient::GetLiveNodes() {
  pb::GetLiveNodesRequest request;
  *request.mutable_node() = impl_->Self();
  pb::GetLiveNodesResponse response;
  BERTH_RETURN_IF_ERROR(impl_->Invoke("GetLiveNodes", impl_->options.rpc_timeout,
                                      Impl::OnError::kCancel, [&](grpc::ClientContext* ctx) {
                                        return impl_->stub->GetLiveNodes(ctx, request, &response);
                                      }));
  std::vector<NodeInfo> nodes;
  for (const pb::NodeInfo& node : response.nodes()) {
    nodes.push_back(NodeInfo{node.node_id(), node.incarnation(), node.restarts()});
  }
  return nodes;
}

Status CoordinationClient::ReportError(const Status& error) {
  if (error.ok()) {
    return InvalidArgumentError("ReportError needs a failure status, not OK");
  }
  {
    std::lock_guard lock(impl_->mu);
    impl_->reported = true;
  }
  pb::ReportErrorRequest request;
  *request.mutable_node() = impl_->Self();
  request.set_error_code(static_cast<int>(error.code()));
  request.set_error_message(error.message());
  pb::ReportErrorResponse response;
  return impl_->Invoke(
      "ReportError", impl_->options.rpc_timeout, Impl::OnError::kFinish,
      [&](grpc::ClientContext* ctx) { return impl_->stub->ReportError(ctx, request, &response); });
}

Status CoordinationClient::Shutdown(Duration timeout) {
  {
    std::lock_guard lock(impl_->mu);
    if (impl_->leaving) {
      return FailedPreconditionError(impl_->Name() + " has already called Shutdown");
    }
    impl_->leaving = true;
    if (impl_->watch_call != nullptr) impl_->watch_call->TryCancel();
  }
  impl_->cv.notify_all();
  pb::ShutdownRequest request;
  *request.mutable_node() = impl_->Self();
  request.set_timeout_ms(ToMillisCeil(timeout));
  pb::ShutdownResponse response;
  // Heartbeats go on while the barrier waits: this node is still alive.
  Status status = impl_->Invoke(
      "Shutdown", WithGrace(timeout), Impl::OnError::kFinish,
      [&](grpc::ClientContext* ctx) { return impl_->stub->Shutdown(ctx, request, &response); });
  {
    std::lock_guard lock(impl_->mu);
    impl_->disconnected = true;
    if (impl_->heartbeat_call != nullptr) impl_->heartbeat_call->TryCancel();
  }
  impl_->cv.notify_all();
  if (!status.ok()) {
    Log(LogLevel::kWarning, kLogCategory, impl_->Name() + ": shutdown: " + status.ToString());
  }
  return status;
}

std::optional<Status> CoordinationClient::error() const {
  std::lock_guard lock(impl_->mu);
  return impl_->error;
}

int CoordinationClient::node_id() const { return impl_->options.node_id; }
int CoordinationClient::num_nodes() const { return impl_->num_nodes; }
uint64_t CoordinationClient::incarnation() const { return impl_->incarnation; }
const std::string& CoordinationClient::address() const { return impl_->options.address; }
Duration CoordinationClient::heartbeat_timeout() const { return impl_->heartbeat_timeout; }

}  // namespace berth::distributed
