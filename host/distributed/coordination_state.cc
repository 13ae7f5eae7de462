#include "distributed/coordination_state.hpp"

#include <algorithm>

#include "berth/log.hpp"
#include "distributed/coordination_state_internal.hpp"
#include "distributed/format.hpp"

namespace berth::distributed {
using internal::DeadlineAfter;
using internal::kLogCategory;

// ------------------------------------------------------------------ Deferred

CoordinationState::Deferred::~Deferred() { RunNow(); }

void CoordinationState::Deferred::RunNow() {
  std::vector<std::function<void()>> fns;
  fns.swap(fns_);
  for (auto& fn : fns) fn();
}

CoordinationState::WaitId CoordinationState::Deferred::Fail(StatusCallback& done, Status status) {
  Add([done = std::move(done), status = std::move(status)]() { done(status); });
  return 0;
}

// -------------------------------------------------------------- construction

Result<std::unique_ptr<CoordinationState>> CoordinationState::Create(
    CoordinationStateOptions options) {
  if (options.num_nodes < 1) {
    return InvalidArgumentError("coordination service: num_nodes must be at least 1, got " +
                                std::to_string(options.num_nodes));
  }
  if (options.heartbeat_timeout <= Duration::zero()) {
    return InvalidArgumentError("coordination service: heartbeat timeout must be positive");
  }
  if (options.max_key_bytes == 0 || options.max_value_bytes == 0 || options.max_total_bytes == 0) {
    return InvalidArgumentError("coordination service: size limits must be positive");
  }
  return std::unique_ptr<CoordinationState>(new CoordinationState(std::move(options)));
}

CoordinationState::CoordinationState(CoordinationStateOptions options)
    : options_(std::move(options)),
      clock_(options_.clock != nullptr ? *options_.clock : RealClock()),
      nodes_(static_cast<size_t>(options_.num_nodes)) {
  if (options_.run_checker_thread) checker_ = std::thread([this] { CheckerLoop(); });
}

CoordinationState::~CoordinationState() {
  {
    std::lock_guard lock(mu_);
    checker_stop_ = true;
  }
  checker_cv_.notify_all();
  if (checker_.joinable()) checker_.join();
  Stop(UnavailableError("the coordination service was destroyed"));
}

// ------------------------------------------------------------------ checking

void CoordinationState::CheckerLoop() {
  std::unique_lock lock(mu_);
  while (!checker_stop_) {
    Deferred deferred;
    CheckLocked(clock_.Now(), deferred);
    if (!deferred.empty()) {
      lock.unlock();
      deferred.RunNow();
      lock.lock();
      continue;
    }
    clock_.WaitUntil(checker_cv_, lock, NextWakeLocked());
  }
}

TimePoint CoordinationState::NextWakeLocked() const {
  TimePoint next = deadlines_.empty() ? TimePoint::max() : deadlines_.begin()->first;
  for (const Node& node : nodes_) {
    if (node.state == NodeState::kConnected) {
      next = std::min(next, DeadlineAfter(node.last_heartbeat, options_.heartbeat_timeout));
    }
  }
  return next;
}

void CoordinationState::CheckNow() {
  Deferred deferred;
  std::lock_guard lock(mu_);
  CheckLocked(clock_.Now(), deferred);
}

void CoordinationState::CheckLocked(TimePoint now, Deferred& deferred) {
  for (size_t i = 0; i < nodes_.size(); ++i) {
    Node& node = nodes_[i];
    if (node.state != NodeState::kConnected) continue;
    Duration silent = now - node.last_heartbeat;
    if (silent < options_.heartbeat_timeout) continue;
    node.state = NodeState::kDead;
    node.death_reason = "node " + std::to_string(i) + (node.address.empty() ? "" : " at " + node.address) +
                        " (incarnation " +
                        FormatIncarnation(node.incarnation) + ") missed heartbeats for " +
                        FormatSeconds(silent) + "; declared dead";
    Log(LogLevel::kError, kLogCategory, node.death_reason);
    SetJobErrorLocked(UnavailableError(node.death_reason), static_cast<int>(i), deferred);
  }
  while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
    const auto entry = *deadlines_.begin();
    ExpireWaiterLocked(entry.second, deferred);
    deadlines_.erase(entry);  // normally gone already; never loop on a stray entry
  }
}

void CoordinationState::ExpireWaiterLocked(WaitId id, Deferred& deferred) {
  auto it = waiters_.find(id);
  if (it == waiters_.end()) return;
  Waiter& waiter = it->second;
  switch (waiter.kind) {
    case Waiter::Kind::kGet:
      FinishGetLocked(id,
                      DeadlineExceededError("key " + Quote(waiter.key) + " was not set within " +
                                            FormatSeconds(waiter.timeout)),
                      deferred);
      return;
    case Waiter::Kind::kBarrier: {
      auto barrier = barriers_.find(waiter.key);
      if (barrier != barriers_.end() && barrier->second.instance == waiter.instance &&
          !barrier->second.result) {
        CompleteBarrierLocked(
            barrier->second, BarrierTimeoutStatusLocked(barrier->first, barrier->second), deferred);
      } else {
        FinishStatusLocked(id, DeadlineExceededError("barrier " + Quote(waiter.key) + " timed out"),
                           deferred);
      }
      return;
    }
    case Waiter::Kind::kShutdown: {
      std::vector<int> connected;
      for (size_t i = 0; i < nodes_.size(); ++i) {
        if (nodes_[i].state == NodeState::kConnected) connected.push_back(static_cast<int>(i));
      }
      std::vector<int> missing = internal::Missing(connected, shutdown_.arrived);
      CompleteShutdownLocked(DeadlineExceededError("shutdown barrier timed out after " +
                                                   FormatSeconds(shutdown_.timeout) + "; " +
                                                   FormatNodeList(missing) + " did not arrive" +
                                                   (AddressesLocked(missing).empty()
                                                        ? std::string()
                                                        : " (" + AddressesLocked(missing) + ")")),
                             deferred);
      return;
    }
    case Waiter::Kind::kWatch:
      FinishWatchLocked(id, WatchEvent{WatchEvent::Kind::kNoError, {}}, deferred);
      return;
  }
}

// --------------------------------------------------------------------- nodes

Status CoordinationState::ValidateNodeId(int node_id) const {
  if (node_id < 0 || node_id >= options_.num_nodes) {
    return InvalidArgumentError("node id " + std::to_string(node_id) +
                                " is out of range: the job has " +
                                std::to_string(options_.num_nodes) + " nodes (ids 0.." +
                                std::to_string(options_.num_nodes - 1) + ")");
  }
  return OkStatus();
}

Status CoordinationState::NodeRefusalLocked(int node_id, uint64_t incarnation) const {
  BERTH_RETURN_IF_ERROR(ValidateNodeId(node_id));
  const Node& node = nodes_[static_cast<size_t>(node_id)];
  const std::string name = "node " + std::to_string(node_id);
  const std::string stale = name + ": incarnation " + FormatIncarnation(incarnation) +
                            " is stale; the node is now incarnation " +
                            FormatIncarnation(node.incarnation) +
                            " (this process was replaced by a restarted one)";
  switch (node.state) {
    case NodeState::kUnregistered:
      return FailedPreconditionError(name + " is not registered with the coordination service");
    case NodeState::kConnected:
      if (node.incarnation != incarnation) return AbortedError(stale);
      return OkStatus();
    case NodeState::kDead:
      if (node.incarnation != incarnation) return AbortedError(stale);
      return AbortedError(node.death_reason + "; this process must restart");
    case NodeState::kDisconnected:
      if (node.incarnation != incarnation) return AbortedError(stale);
      return FailedPreconditionError(name + " (incarnation " + FormatIncarnation(incarnation) +
                                     ") has already shut down");
  }
  return InternalError("unknown node state");
}

void CoordinationState::StartNewEpochLocked(int node_id, Deferred& deferred) {
  Log(LogLevel::kInfo, kLogCategory,
      "no node of job epoch " + std::to_string(epoch_) + " is connected any more; node " +
          std::to_string(node_id) + " starts job epoch " + std::to_string(epoch_ + 1) +
          " (key-value store, barriers and job error cleared)");
  const Status ended = AbortedError("job epoch " + std::to_string(epoch_) +
                                    " ended: every node left and a new job started");
  std::vector<WaitId> ids;
  for (const auto& [id, waiter] : waiters_) ids.push_back(id);
  for (WaitId id : ids) {
    if (waiters_.at(id).kind == Waiter::Kind::kWatch) {
      FinishWatchLocked(id, WatchEvent{WatchEvent::Kind::kJobFailed, JobError{ended, -1}},
                        deferred);
    } else {
      FinishWaiterLocked(id, ended, deferred);
    }
  }
  ++epoch_;
  epoch_used_ = false;
  kv_.clear();
  kv_bytes_ = 0;
  barriers_.clear();
  shutdown_ = ShutdownRecord();
  job_error_.reset();
  for (Node& node : nodes_) {
    node.state = NodeState::kUnregistered;
    node.restarts = 0;
    node.death_reason.clear();
  }
}

Status CoordinationState::Register(int node_id, uint64_t incarnation, std::string_view address) {
  BERTH_RETURN_IF_ERROR(ValidateNodeId(node_id));
  Deferred deferred;
  std::lock_guard lock(mu_);
  const bool any_connected = std::any_of(
      nodes_.begin(), nodes_.end(), [](const Node& n) { return n.state == NodeState::kConnected; });
  if (!any_connected && epoch_used_) StartNewEpochLocked(node_id, deferred);

  Node& node = nodes_[static_cast<size_t>(node_id)];
  const TimePoint now = clock_.Now();
  const std::string name = "node " + std::to_string(node_id);
  const uint64_t previous = node.incarnation;
  const bool known = node.state != NodeState::kUnregistered;
  switch (node.state) {
    case NodeState::kUnregistered:
      break;
    case NodeState::kConnected:
      if (node.incarnation == incarnation) {
        node.last_heartbeat = now;
        return OkStatus();
      }
      return AlreadyExistsError(
          name + " is already registered by a live process (incarnation " +
          FormatIncarnation(node.incarnation) + ", last heartbeat " +
          FormatSeconds(now - node.last_heartbeat) +
          " ago); duplicate node id? A restarted process is accepted once the old one is "
          "declared dead (" +
          FormatSeconds(options_.heartbeat_timeout) + " without heartbeats)");
    case NodeState::kDead:
    case NodeState::kDisconnected:
      if (node.incarnation == incarnation) return NodeRefusalLocked(node_id, incarnation);
      break;
  }

  node.state = NodeState::kConnected;
  node.incarnation = incarnation;
  node.last_heartbeat = now;
  node.death_reason.clear();
  node.address = std::string(address);
  epoch_used_ = true;
  checker_cv_.notify_all();
  if (!known) {
    Log(LogLevel::kInfo, kLogCategory,
        name + " registered (incarnation " + FormatIncarnation(incarnation) + ")");
    return OkStatus();
  }
  ++node.restarts;
  const std::string message = name + " restarted (incarnation " + FormatIncarnation(previous) +
                              " -> " + FormatIncarnation(incarnation) +
                              "); work in flight with its previous incarnation is lost";
  Log(LogLevel::kWarning, kLogCategory, message);
  SetJobErrorLocked(AbortedError(message), node_id, deferred);
  return OkStatus();
}

Status CoordinationState::Heartbeat(int node_id, uint64_t incarnation) {
  std::lock_guard lock(mu_);
  BERTH_RETURN_IF_ERROR(NodeRefusalLocked(node_id, incarnation));
  nodes_[static_cast<size_t>(node_id)].last_heartbeat = clock_.Now();
  return OkStatus();
}

Status CoordinationState::CheckCaller(int node_id, uint64_t incarnation) const {
  std::lock_guard lock(mu_);
  return NodeRefusalLocked(node_id, incarnation);
}

Status CoordinationState::ReportError(int node_id, const Status& error) {
  BERTH_RETURN_IF_ERROR(ValidateNodeId(node_id));
  if (error.ok()) {
    return InvalidArgumentError("node " + std::to_string(node_id) +
                                " reported an error with status OK; report a failure status");
  }
  Deferred deferred;
  std::lock_guard lock(mu_);
  const std::string message =
      "node " + std::to_string(node_id) + " reported an error: " + error.ToString();
  Log(LogLevel::kError, kLogCategory, message);
  SetJobErrorLocked(AbortedError(message), node_id, deferred);
  return OkStatus();
}

std::vector<NodeInfo> CoordinationState::GetLiveNodes() const {
  std::lock_guard lock(mu_);
  std::vector<NodeInfo> live;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& node = nodes_[i];
    if (node.state == NodeState::kConnected) {
      live.push_back(NodeInfo{static_cast<int>(i), node.incarnation, node.restarts});
    }
  }
  return live;
}

std::optional<JobError> CoordinationState::GetJobError() const {
  std::lock_guard lock(mu_);
  return job_error_;
}

uint64_t CoordinationState::epoch() const {
  std::lock_guard lock(mu_);
  return epoch_;
}

void CoordinationState::SetJobErrorLocked(Status status, int node_id, Deferred& deferred) {
  if (job_error_) {
    Log(LogLevel::kInfo, kLogCategory,
        "job already failed (" + job_error_->status.message() + "); also: " + status.message());
    return;
  }
  job_error_ = JobError{status, node_id};
  Log(LogLevel::kError, kLogCategory,
      "job failed: " + status.ToString() + "; failing every pending wait");
  for (auto& [id, barrier] : barriers_) {
    if (barrier.instance > 0 && !barrier.result) CompleteBarrierLocked(barrier, status, deferred);
  }
  if (shutdown_.started && !shutdown_.result) CompleteShutdownLocked(status, deferred);
  std::vector<WaitId> ids;
  for (const auto& [id, waiter] : waiters_) ids.push_back(id);
  for (WaitId id : ids) {
    const Waiter& waiter = waiters_.at(id);
    if (waiter.kind == Waiter::Kind::kWatch) {
      FinishWatchLocked(id, WatchEvent{WatchEvent::Kind::kJobFailed, *job_error_}, deferred);
    } else {
      FinishWaiterLocked(id, status, deferred);
    }
  }
}

// ------------------------------------------------------------------- waiters

CoordinationState::WaitId CoordinationState::AddWaiterLocked(Waiter waiter) {
  const WaitId id = next_wait_id_++;
  if (waiter.kind == Waiter::Kind::kGet) key_waiters_.emplace(waiter.key, id);
  if (waiter.deadline != TimePoint::max()) {
    const bool earliest = deadlines_.empty() || waiter.deadline < deadlines_.begin()->first;
    deadlines_.emplace(waiter.deadline, id);
    if (earliest) checker_cv_.notify_all();
  }
  waiters_.emplace(id, std::move(waiter));
  return id;
}

void CoordinationState::EraseWaiterLocked(WaitId id, Waiter& waiter) {
  if (waiter.deadline != TimePoint::max()) deadlines_.erase({waiter.deadline, id});
  if (waiter.kind == Waiter::Kind::kGet) {
    auto [first, last] = key_waiters_.equal_range(waiter.key);
    for (auto it = first; it != last; ++it) {
      if (it->second == id) {
        key_waiters_.erase(it);
        break;
      }
    }
  }
}

void CoordinationState::FinishGetLocked(WaitId id, Result<std::string> outcome,
                                        Deferred& deferred) {
  auto it = waiters_.find(id);
  if (it == waiters_.end()) return;
  EraseWaiterLocked(id, it->second);
  deferred.Add([done = std::move(it->second.on_value), outcome = std::move(outcome)]() mutable {
    done(std::move(outcome));
  });
  waiters_.erase(it);
}

void CoordinationState::FinishStatusLocked(WaitId id, Status outcome, Deferred& deferred) {
  auto it = waiters_.find(id);
  if (it == waiters_.end()) return;
  EraseWaiterLocked(id, it->second);
  deferred.Add([done = std::move(it->second.on_status), outcome = std::move(outcome)]() mutable {
    done(std::move(outcome));
  });
  waiters_.erase(it);
}

void CoordinationState::FinishWatchLocked(WaitId id, WatchEvent event, Deferred& deferred) {
  auto it = waiters_.find(id);
  if (it == waiters_.end()) return;
  EraseWaiterLocked(id, it->second);
  deferred.Add([done = std::move(it->second.on_watch), event = std::move(event)]() mutable {
    done(std::move(event));
  });
  waiters_.erase(it);
}

void CoordinationState::FinishWaiterLocked(WaitId id, const Status& status, Deferred& deferred) {
  auto it = waiters_.find(id);
  if (it == waiters_.end()) return;
  switch (it->second.kind) {
    case Waiter::Kind::kGet:
      FinishGetLocked(id, status, deferred);
      return;
    case Waiter::Kind::kBarrier:
    case Waiter::Kind::kShutdown:
      FinishStatusLocked(id, status, deferred);
      return;
    case Waiter::Kind::kWatch: {
      WatchEvent event;
      event.kind = status.code() == StatusCode::kCancelled ? WatchEvent::Kind::kCancelled
                                                           : WatchEvent::Kind::kServiceStopping;
      event.error = JobError{status, -1};
      FinishWatchLocked(id, std::move(event), deferred);
      return;
    }
  }
}

void CoordinationState::Cancel(WaitId id) {
  Deferred deferred;
  std::lock_guard lock(mu_);
  FinishWaiterLocked(id, CancelledError("the call was cancelled"), deferred);
}

void CoordinationState::Stop(const Status& reason) {
  Deferred deferred;
  std::lock_guard lock(mu_);
  const Status status =
      reason.ok() ? UnavailableError("the coordination service is shutting down") : reason;
  if (!stopped_) stopped_ = status;
  std::vector<WaitId> ids;
  for (const auto& [id, waiter] : waiters_) ids.push_back(id);
  for (WaitId id : ids) FinishWaiterLocked(id, *stopped_, deferred);
}

size_t CoordinationState::NumPendingWaits() const {
  std::lock_guard lock(mu_);
  return waiters_.size();
}

}  // namespace berth::distributed
