#include "interpreter/collective_group.hpp"

#include "interpreter/kernel.hpp"

namespace berth::cpu {

void CollectiveGroup::Attach(int64_t instance, ExecContext* ctx) {
  std::lock_guard lock(mutex_);
  if (instance >= 0 && instance < num_instances()) instances_[static_cast<size_t>(instance)] = ctx;
  if (aborted_ && ctx != nullptr) ctx->Cancel(abort_reason_);
}

void CollectiveGroup::Detach(int64_t instance) {
  std::lock_guard lock(mutex_);
  if (instance >= 0 && instance < num_instances()) instances_[static_cast<size_t>(instance)] = nullptr;
}

void CollectiveGroup::Abort(const Status& reason) {
  {
    std::lock_guard lock(mutex_);
    if (aborted_) return;
    aborted_ = true;
    abort_reason_ = reason;
    for (ExecContext* ctx : instances_) {
      if (ctx != nullptr) ctx->Cancel(reason);
    }
  }
  changed_.notify_all();
}

Result<std::vector<Tensor>> CollectiveGroup::Exchange(const std::string& key, int64_t instance,
                                                      const std::vector<int64_t>& participants,
                                                      Tensor value,
                                                      std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  if (aborted_) return abort_reason_;
  Meeting& meeting = meetings_[key];
  meeting.expected = participants.size();
  if (!meeting.values.emplace(instance, std::move(value)).second) {
    return InternalError("instance " + std::to_string(instance) + " joined collective '" + key +
                         "' twice");
  }
  if (meeting.values.size() == meeting.expected) changed_.notify_all();
  auto deadline = std::chrono::steady_clock::now() + timeout;
  bool complete = changed_.wait_until(lock, deadline, [&] {
    return aborted_ || meeting.values.size() == meeting.expected;
  });
  if (aborted_) return abort_reason_;
  if (!complete) {
    std::string missing;
    for (int64_t p : participants) {
      if (!meeting.values.count(p)) missing += (missing.empty() ? "" : ", ") + std::to_string(p);
    }
    return DeadlineExceededError("collective '" + key + "' timed out after " +
                                 std::to_string(timeout.count() / 1000) +
                                 " s waiting for instances " + missing);
  }
  std::vector<Tensor> out;
  out.reserve(participants.size());
  for (int64_t p : participants) out.push_back(meeting.values.at(p));
  if (++meeting.collected == meeting.expected) meetings_.erase(key);
  return out;
}

}  // namespace berth::cpu
