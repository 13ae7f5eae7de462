#include "distributed/coordination_state.hpp"

#include <algorithm>
#include <charconv>

#include "berth/log.hpp"
#include "distributed/format.hpp"

namespace berth::distributed {
namespace {

constexpr std::string_view kLogCategory = "distributed";

TimePoint DeadlineAfter(TimePoint now, Duration timeout) {
  if (timeout <= Duration::zero()) return now;
  if (timeout >= TimePoint::max() - now) return TimePoint::max();
  return now + timeout;
}

// Blocks until a callback delivers one value. The waits it serves are ended
// by other threads (a Set, the checker, Stop), so real time is fine here.
template <typename T>
class OneShot {
 public:
  void Set(T value) {
    {
      std::lock_guard lock(mu_);
      value_.emplace(std::move(value));
    }
    cv_.notify_all();
  }
  T Wait() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return value_.has_value(); });
    return std::move(*value_);
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::optional<T> value_;
};

std::vector<int> Difference(const std::vector<int>& all, const std::set<int>& arrived) {
  std::vector<int> missing;
  for (int node : all) {
    if (!arrived.contains(node)) missing.push_back(node);
  }
  return missing;
}

std::string FormatNodeSet(const std::vector<int>& nodes) {
  std::string out = "(";
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(nodes[i]);
  }
  return out + ")";
}

}  // namespace

// ------------------------------------------------------------------ Deferred

CoordinationState::Deferred::~Deferred() { RunNow(); }

void CoordinationState::Deferred::RunNow() {
  std::vector<std::function<void()>> fns;
  fns.swap(fns_);
  for (auto& fn : fns) fn();
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
    node.death_reason = "node " + std::to_string(i) + " (incarnation " +
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
        CompleteBarrierLocked(barrier->second,
                              BarrierTimeoutStatusLocked(barrier->first, barrier->second), deferred);
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
      std::vector<int> missing = Difference(connected, shutdown_.arrived);
      CompleteShutdownLocked(
          DeadlineExceededError("shutdown barrier timed out after " +
                                FormatSeconds(shutdown_.timeout) + "; " +
                                FormatNodeList(missing) + " did not arrive"),
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
      FinishWatchLocked(id, WatchEvent{WatchEvent::Kind::kJobFailed, JobError{ended, -1}}, deferred);
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

Status CoordinationState::Register(int node_id, uint64_t incarnation) {
  BERTH_RETURN_IF_ERROR(ValidateNodeId(node_id));
  Deferred deferred;
  std::lock_guard lock(mu_);
  const bool any_connected = std::any_of(nodes_.begin(), nodes_.end(), [](const Node& n) {
    return n.state == NodeState::kConnected;
  });
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

// ----------------------------------------------------------- key-value store

Status CoordinationState::ValidateKey(std::string_view key, std::string_view what) const {
  if (key.empty()) return InvalidArgumentError(std::string(what) + " is empty");
  if (key.size() > options_.max_key_bytes) {
    return InvalidArgumentError(std::string(what) + " of " + std::to_string(key.size()) +
                                " bytes is over the limit of " +
                                std::to_string(options_.max_key_bytes) + " bytes: " + Quote(key));
  }
  return OkStatus();
}

Status CoordinationState::Set(std::string_view key, std::string_view value, bool allow_overwrite) {
  BERTH_RETURN_IF_ERROR(ValidateKey(key, "key"));
  if (value.size() > options_.max_value_bytes) {
    return InvalidArgumentError("value of " + FormatBytes(value.size()) + " for key " + Quote(key) +
                                " is over the limit of " + FormatBytes(options_.max_value_bytes));
  }
  Deferred deferred;
  std::lock_guard lock(mu_);
  auto it = kv_.find(key);
  size_t old_bytes = 0;
  if (it != kv_.end()) {
    if (!allow_overwrite) {
      return AlreadyExistsError("key " + Quote(key) +
                                " already exists (set it with allow_overwrite to replace it)");
    }
    old_bytes = it->first.size() + it->second.size();
  }
  const size_t new_total = kv_bytes_ - old_bytes + key.size() + value.size();
  if (new_total > options_.max_total_bytes) {
    return ResourceExhaustedError("setting key " + Quote(key) + " would grow the store to " +
                                  FormatBytes(new_total) + ", over its limit of " +
                                  FormatBytes(options_.max_total_bytes));
  }
  kv_bytes_ = new_total;
  if (it != kv_.end()) {
    it->second.assign(value);
  } else {
    kv_.emplace(std::string(key), std::string(value));
  }
  std::vector<WaitId> woken;
  auto [first, last] = key_waiters_.equal_range(key);
  for (auto w = first; w != last; ++w) woken.push_back(w->second);
  for (WaitId id : woken) FinishGetLocked(id, std::string(value), deferred);
  return OkStatus();
}

Result<std::string> CoordinationState::TryGet(std::string_view key) const {
  BERTH_RETURN_IF_ERROR(ValidateKey(key, "key"));
  std::lock_guard lock(mu_);
  auto it = kv_.find(key);
  if (it == kv_.end()) return NotFoundError("key " + Quote(key) + " not found");
  return it->second;
}

CoordinationState::WaitId CoordinationState::GetAsync(std::string_view key, Duration timeout,
                                                      ValueCallback done) {
  Deferred deferred;
  Status invalid = ValidateKey(key, "key");
  if (!invalid.ok()) {
    deferred.Add([done = std::move(done), invalid]() { done(invalid); });
    return 0;
  }
  std::lock_guard lock(mu_);
  auto it = kv_.find(key);
  std::optional<Result<std::string>> now_result;
  if (it != kv_.end()) {
    now_result.emplace(it->second);
  } else if (stopped_) {
    now_result.emplace(*stopped_);
  } else if (job_error_) {
    now_result.emplace(job_error_->status);
  } else if (timeout <= Duration::zero()) {
    now_result.emplace(DeadlineExceededError("key " + Quote(key) + " is not set (timeout 0)"));
  }
  if (now_result) {
    deferred.Add([done = std::move(done), r = std::move(*now_result)]() mutable { done(std::move(r)); });
    return 0;
  }
  Waiter waiter;
  waiter.kind = Waiter::Kind::kGet;
  waiter.key = std::string(key);
  waiter.deadline = DeadlineAfter(clock_.Now(), timeout);
  waiter.timeout = timeout;
  waiter.on_value = std::move(done);
  return AddWaiterLocked(std::move(waiter));
}

Result<std::string> CoordinationState::Get(std::string_view key, Duration timeout) {
  auto slot = std::make_shared<OneShot<Result<std::string>>>();
  GetAsync(key, timeout, [slot](Result<std::string> r) { slot->Set(std::move(r)); });
  return slot->Wait();
}

Result<std::vector<std::pair<std::string, std::string>>> CoordinationState::GetDir(
    std::string_view prefix) const {
  while (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
  if (prefix.size() > options_.max_key_bytes) {
    return InvalidArgumentError("directory of " + std::to_string(prefix.size()) +
                                " bytes is over the key limit of " +
                                std::to_string(options_.max_key_bytes) + " bytes");
  }
  std::lock_guard lock(mu_);
  std::vector<std::pair<std::string, std::string>> entries;
  if (prefix.empty()) {
    entries.assign(kv_.begin(), kv_.end());
    return entries;
  }
  const std::string dir = std::string(prefix) + "/";
  for (auto it = kv_.lower_bound(dir); it != kv_.end() && it->first.starts_with(dir); ++it) {
    entries.emplace_back(it->first, it->second);
  }
  return entries;
}

Status CoordinationState::Delete(std::string_view key) {
  BERTH_RETURN_IF_ERROR(ValidateKey(key, "key"));
  std::lock_guard lock(mu_);
  auto erase = [this](auto it) {
    kv_bytes_ -= it->first.size() + it->second.size();
    return kv_.erase(it);
  };
  if (auto it = kv_.find(key); it != kv_.end()) erase(it);
  const std::string dir = std::string(key) + "/";
  for (auto it = kv_.lower_bound(dir); it != kv_.end() && it->first.starts_with(dir);) {
    it = erase(it);
  }
  return OkStatus();
}

Result<int64_t> CoordinationState::Increment(std::string_view key, int64_t delta) {
  BERTH_RETURN_IF_ERROR(ValidateKey(key, "key"));
  Deferred deferred;
  std::lock_guard lock(mu_);
  int64_t current = 0;
  auto it = kv_.find(key);
  if (it != kv_.end()) {
    const std::string& text = it->second;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, current);
    if (text.empty() || ec != std::errc() || ptr != end) {
      return InvalidArgumentError("cannot increment key " + Quote(key) +
                                  ": its value is not a decimal int64: " + Quote(text));
    }
  }
  int64_t next = 0;
  if (__builtin_add_overflow(current, delta, &next)) {
    return OutOfRangeError("incrementing key " + Quote(key) + " (" + std::to_string(current) +
                           ") by " + std::to_string(delta) + " overflows int64");
  }
  std::string text = std::to_string(next);
  if (it != kv_.end()) {
    kv_bytes_ = kv_bytes_ - it->second.size() + text.size();
    it->second = text;
  } else {
    kv_bytes_ += key.size() + text.size();
    kv_.emplace(std::string(key), text);
  }
  std::vector<WaitId> woken;
  auto [first, last] = key_waiters_.equal_range(key);
  for (auto w = first; w != last; ++w) woken.push_back(w->second);
  for (WaitId id : woken) FinishGetLocked(id, text, deferred);
  return next;
}

// ------------------------------------------------------------------ barriers

Status CoordinationState::BarrierTimeoutStatusLocked(std::string_view barrier_id,
                                                     const BarrierRecord& barrier) const {
  std::vector<int> missing = Difference(barrier.participants, barrier.arrived);
  std::string message = "barrier " + Quote(barrier_id) + " timed out after " +
                        FormatSeconds(barrier.timeout) + "; " + FormatNodeList(missing) +
                        " did not arrive";
  std::vector<int> unregistered;
  for (int node : missing) {
    if (nodes_[static_cast<size_t>(node)].state == NodeState::kUnregistered) {
      unregistered.push_back(node);
    }
  }
  if (!unregistered.empty()) {
    message += " (" + FormatNodeList(unregistered) +
               (unregistered.size() == 1 ? " has" : " have") + " not registered)";
  }
  return DeadlineExceededError(message);
}

void CoordinationState::CompleteBarrierLocked(BarrierRecord& barrier, Status result,
                                              Deferred& deferred) {
  barrier.result = result;
  std::vector<WaitId> waiters;
  waiters.swap(barrier.waiters);
  for (WaitId id : waiters) FinishStatusLocked(id, result, deferred);
}

CoordinationState::WaitId CoordinationState::BarrierAsync(int node_id, std::string_view barrier_id,
                                                          Duration timeout,
                                                          std::vector<int> participants,
                                                          StatusCallback done) {
  Deferred deferred;
  auto fail = [&deferred, &done](Status status) {
    deferred.Add([done = std::move(done), status = std::move(status)]() { done(status); });
    return WaitId{0};
  };
  if (Status s = ValidateNodeId(node_id); !s.ok()) return fail(s);
  if (Status s = ValidateKey(barrier_id, "barrier id"); !s.ok()) return fail(s);
  for (int p : participants) {
    if (p < 0 || p >= options_.num_nodes) {
      return fail(InvalidArgumentError("barrier " + Quote(barrier_id) + ": participant " +
                                       std::to_string(p) + " is out of range (the job has " +
                                       std::to_string(options_.num_nodes) + " nodes)"));
    }
  }
  std::sort(participants.begin(), participants.end());
  participants.erase(std::unique(participants.begin(), participants.end()), participants.end());
  if (participants.empty()) {
    for (int i = 0; i < options_.num_nodes; ++i) participants.push_back(i);
  }
  if (!std::binary_search(participants.begin(), participants.end(), node_id)) {
    return fail(InvalidArgumentError("node " + std::to_string(node_id) + " called barrier " +
                                     Quote(barrier_id) + " but is not one of its participants " +
                                     FormatNodeSet(participants)));
  }

  std::lock_guard lock(mu_);
  if (stopped_) return fail(*stopped_);
  if (nodes_[static_cast<size_t>(node_id)].state != NodeState::kConnected) {
    return fail(FailedPreconditionError("node " + std::to_string(node_id) + " called barrier " +
                                        Quote(barrier_id) +
                                        " but is not connected to the coordination service"));
  }
  if (job_error_) return fail(job_error_->status);

  const TimePoint now = clock_.Now();
  auto it = barriers_.find(barrier_id);
  if (it == barriers_.end()) it = barriers_.emplace(std::string(barrier_id), BarrierRecord()).first;
  BarrierRecord& barrier = it->second;
  if (barrier.instance == 0 || (barrier.result && barrier.result->ok())) {
    ++barrier.instance;
    barrier.participants = participants;
    barrier.timeout = timeout;
    barrier.deadline = DeadlineAfter(now, timeout);
    barrier.arrived.clear();
    barrier.result.reset();
    barrier.waiters.clear();
  } else if (barrier.result) {
    return fail(*barrier.result);
  } else if (barrier.participants != participants) {
    Status mismatch = InvalidArgumentError(
        "barrier " + Quote(barrier_id) + ": node " + std::to_string(node_id) +
        " named participants " + FormatNodeSet(participants) +
        " but the barrier was started with " + FormatNodeSet(barrier.participants));
    CompleteBarrierLocked(barrier, mismatch, deferred);
    return fail(mismatch);
  }

  Waiter waiter;
  waiter.kind = Waiter::Kind::kBarrier;
  waiter.node_id = node_id;
  waiter.key = std::string(barrier_id);
  waiter.instance = barrier.instance;
  waiter.deadline = barrier.deadline;
  waiter.on_status = std::move(done);
  const WaitId id = AddWaiterLocked(std::move(waiter));
  barrier.waiters.push_back(id);
  barrier.arrived.insert(node_id);
  if (barrier.arrived.size() == barrier.participants.size()) {
    CompleteBarrierLocked(barrier, OkStatus(), deferred);
  } else if (now >= barrier.deadline) {
    CompleteBarrierLocked(barrier, BarrierTimeoutStatusLocked(barrier_id, barrier), deferred);
  }
  return id;
}

Status CoordinationState::Barrier(int node_id, std::string_view barrier_id, Duration timeout,
                                  std::vector<int> participants) {
  auto slot = std::make_shared<OneShot<Status>>();
  BarrierAsync(node_id, barrier_id, timeout, std::move(participants),
               [slot](Status s) { slot->Set(std::move(s)); });
  return slot->Wait();
}

// ------------------------------------------------------------------ shutdown

void CoordinationState::CompleteShutdownLocked(Status result, Deferred& deferred) {
  shutdown_.result = result;
  std::vector<WaitId> waiters;
  waiters.swap(shutdown_.waiters);
  std::vector<int> left;
  for (WaitId id : waiters) {
    auto it = waiters_.find(id);
    if (it == waiters_.end()) continue;
    Node& node = nodes_[static_cast<size_t>(it->second.node_id)];
    if (node.state == NodeState::kConnected) {
      node.state = NodeState::kDisconnected;
      left.push_back(it->second.node_id);
    }
    FinishStatusLocked(id, result, deferred);
  }
  if (!left.empty()) {
    std::sort(left.begin(), left.end());
    Log(result.ok() ? LogLevel::kInfo : LogLevel::kWarning, kLogCategory,
        FormatNodeList(left) + " left the job through the shutdown barrier (" + result.ToString() +
            ")");
  }
}

CoordinationState::WaitId CoordinationState::ShutdownAsync(int node_id, Duration timeout,
                                                           StatusCallback done) {
  Deferred deferred;
  auto fail = [&deferred, &done](Status status) {
    deferred.Add([done = std::move(done), status = std::move(status)]() { done(status); });
    return WaitId{0};
  };
  if (Status s = ValidateNodeId(node_id); !s.ok()) return fail(s);
  std::lock_guard lock(mu_);
  if (stopped_) return fail(*stopped_);
  Node& node = nodes_[static_cast<size_t>(node_id)];
  if (node.state != NodeState::kConnected) {
    return fail(NodeRefusalLocked(node_id, node.incarnation));
  }
  if (job_error_ || shutdown_.result) {
    node.state = NodeState::kDisconnected;
    Status result = job_error_ ? job_error_->status : *shutdown_.result;
    Log(LogLevel::kInfo, kLogCategory,
        "node " + std::to_string(node_id) + " left the job (" + result.ToString() + ")");
    return fail(std::move(result));
  }
  const TimePoint now = clock_.Now();
  if (!shutdown_.started) {
    shutdown_.started = true;
    shutdown_.timeout = timeout;
    shutdown_.deadline = DeadlineAfter(now, timeout);
  }
  Waiter waiter;
  waiter.kind = Waiter::Kind::kShutdown;
  waiter.node_id = node_id;
  waiter.deadline = shutdown_.deadline;
  waiter.on_status = std::move(done);
  const WaitId id = AddWaiterLocked(std::move(waiter));
  shutdown_.waiters.push_back(id);
  shutdown_.arrived.insert(node_id);
  bool all_arrived = true;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].state == NodeState::kConnected &&
        !shutdown_.arrived.contains(static_cast<int>(i))) {
      all_arrived = false;
    }
  }
  if (all_arrived) {
    CompleteShutdownLocked(OkStatus(), deferred);
  } else if (now >= shutdown_.deadline) {
    ExpireWaiterLocked(id, deferred);
  }
  return id;
}

Status CoordinationState::Shutdown(int node_id, Duration timeout) {
  auto slot = std::make_shared<OneShot<Status>>();
  ShutdownAsync(node_id, timeout, [slot](Status s) { slot->Set(std::move(s)); });
  return slot->Wait();
}

// --------------------------------------------------------------------- watch

CoordinationState::WaitId CoordinationState::WatchAsync(int node_id, Duration poll_timeout,
                                                        WatchCallback done) {
  Deferred deferred;
  auto now_event = [&deferred, &done](WatchEvent event) {
    deferred.Add([done = std::move(done), event = std::move(event)]() mutable {
      done(std::move(event));
    });
    return WaitId{0};
  };
  if (Status s = ValidateNodeId(node_id); !s.ok()) {
    return now_event(WatchEvent{WatchEvent::Kind::kCancelled, JobError{s, -1}});
  }
  std::lock_guard lock(mu_);
  if (stopped_) return now_event(WatchEvent{WatchEvent::Kind::kServiceStopping, {*stopped_, -1}});
  if (job_error_) return now_event(WatchEvent{WatchEvent::Kind::kJobFailed, *job_error_});
  Waiter waiter;
  waiter.kind = Waiter::Kind::kWatch;
  waiter.node_id = node_id;
  waiter.deadline = DeadlineAfter(clock_.Now(), poll_timeout);
  waiter.on_watch = std::move(done);
  return AddWaiterLocked(std::move(waiter));
}

}  // namespace berth::distributed
