// The key-value store of CoordinationState.
#include <charconv>

#include "distributed/coordination_state.hpp"
#include "distributed/coordination_state_internal.hpp"
#include "distributed/format.hpp"

namespace berth::distributed {

using internal::DeadlineAfter;
using internal::OneShot;

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
    deferred.Add(
        [done = std::move(done), r = std::move(*now_result)]() mutable { done(std::move(r)); });
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

}  // namespace berth::distributed
