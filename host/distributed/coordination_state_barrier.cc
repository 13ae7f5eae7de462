// Barriers, the shutdown barrier and job watches of CoordinationState.
#include <algorithm>

#include "berth/log.hpp"
#include "distributed/coordination_state.hpp"
#include "distributed/coordination_state_internal.hpp"
#include "distributed/format.hpp"

namespace berth::distributed {
namespace {

// "(0, 1, 2)"
std::string FormatNodeSet(const std::vector<int>& nodes) {
  std::string out = "(";
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(nodes[i]);
  }
  return out + ")";
}

}  // namespace

using internal::DeadlineAfter;
using internal::kLogCategory;
using internal::OneShot;

// ------------------------------------------------------------------ barriers

std::string CoordinationState::AddressesLocked(const std::vector<int>& nodes) const {
  std::string list;
  for (int node : nodes) {
    const std::string& address = nodes_[static_cast<size_t>(node)].address;
    if (!address.empty()) list += (list.empty() ? "" : ", ") + ("node " + std::to_string(node) + " at " + address);
  }
  return list;
}

Status CoordinationState::BarrierTimeoutStatusLocked(std::string_view barrier_id,
                                                     const BarrierRecord& barrier) const {
  std::vector<int> missing = internal::Missing(barrier.participants, barrier.arrived);
  std::string message = "barrier " + Quote(barrier_id) + " timed out after " +
                        FormatSeconds(barrier.timeout) + "; " + FormatNodeList(missing) +
                        " did not arrive";
  std::vector<int> unregistered;
  for (int node : missing) {
    if (nodes_[static_cast<size_t>(node)].state == NodeState::kUnregistered) {
      unregistered.push_back(node);
    }
  }
  std::string notes = AddressesLocked(missing);
  if (!unregistered.empty()) {
    notes += (notes.empty() ? "" : "; ") + FormatNodeList(unregistered) +
             (unregistered.size() == 1 ? " has" : " have") + " not registered";
  }
  if (!notes.empty()) message += " (" + notes + ")";
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
  if (Status s = ValidateNodeId(node_id); !s.ok()) return deferred.Fail(done, s);
  if (Status s = ValidateKey(barrier_id, "barrier id"); !s.ok()) return deferred.Fail(done, s);
  for (int p : participants) {
    if (p < 0 || p >= options_.num_nodes) {
      return deferred.Fail(
          done, InvalidArgumentError("barrier " + Quote(barrier_id) + ": participant " +
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
    return deferred.Fail(done, InvalidArgumentError("node " + std::to_string(node_id) +
                                                    " called barrier " + Quote(barrier_id) +
                                                    " but is not one of its participants " +
                                                    FormatNodeSet(participants)));
  }

  std::lock_guard lock(mu_);
  if (stopped_) return deferred.Fail(done, *stopped_);
  if (nodes_[static_cast<size_t>(node_id)].state != NodeState::kConnected) {
    return deferred.Fail(
        done, FailedPreconditionError("node " + std::to_string(node_id) + " called barrier " +
                                      Quote(barrier_id) +
                                      " but is not connected to the coordination service"));
  }
  if (job_error_) return deferred.Fail(done, job_error_->status);

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
    return deferred.Fail(done, *barrier.result);
  } else if (barrier.participants != participants) {
    Status mismatch = InvalidArgumentError(
        "barrier " + Quote(barrier_id) + ": node " + std::to_string(node_id) +
        " named participants " + FormatNodeSet(participants) +
        " but the barrier was started with " + FormatNodeSet(barrier.participants));
    CompleteBarrierLocked(barrier, mismatch, deferred);
    return deferred.Fail(done, mismatch);
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
  if (Status s = ValidateNodeId(node_id); !s.ok()) return deferred.Fail(done, s);
  std::lock_guard lock(mu_);
  if (stopped_) return deferred.Fail(done, *stopped_);
  Node& node = nodes_[static_cast<size_t>(node_id)];
  if (node.state != NodeState::kConnected) {
    return deferred.Fail(done, NodeRefusalLocked(node_id, node.incarnation));
  }
  if (job_error_ || shutdown_.result) {
    node.state = NodeState::kDisconnected;
    Status result = job_error_ ? job_error_->status : *shutdown_.result;
    Log(LogLevel::kInfo, kLogCategory,
        "node " + std::to_string(node_id) + " left the job (" + result.ToString() + ")");
    return deferred.Fail(done, std::move(result));
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
    deferred.Add(
        [done = std::move(done), event = std::move(event)]() mutable { done(std::move(event)); });
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
