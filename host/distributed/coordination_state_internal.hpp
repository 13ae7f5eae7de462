// Helpers shared by the coordination_state*.cc files. Internal.
#ifndef BERTH_HOST_DISTRIBUTED_COORDINATION_STATE_INTERNAL_HPP_
#define BERTH_HOST_DISTRIBUTED_COORDINATION_STATE_INTERNAL_HPP_

#include <condition_variable>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "distributed/clock.hpp"

namespace berth::distributed::internal {

inline constexpr std::string_view kLogCategory = "distributed";

// now + timeout, saturating at TimePoint::max(); a non-positive timeout is now.
inline TimePoint DeadlineAfter(TimePoint now, Duration timeout) {
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

// The members of `all` not in `arrived`, in order.
inline std::vector<int> Missing(const std::vector<int>& all, const std::set<int>& arrived) {
  std::vector<int> missing;
  for (int node : all) {
    if (!arrived.contains(node)) missing.push_back(node);
  }
  return missing;
}

}  // namespace berth::distributed::internal

#endif  // BERTH_HOST_DISTRIBUTED_COORDINATION_STATE_INTERNAL_HPP_
