#include "distributed/clock.hpp"

#include <algorithm>

namespace berth::distributed {
namespace {

class SteadyClock final : public Clock {
 public:
  TimePoint Now() const override { return std::chrono::steady_clock::now(); }

  void WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                 TimePoint deadline) override {
    if (deadline == TimePoint::max()) {
      cv.wait(lock);
    } else {
      cv.wait_until(lock, deadline);
    }
  }
};

}  // namespace

Clock& RealClock() {
  static SteadyClock* clock = new SteadyClock();  // never destroyed: usable at exit
  return *clock;
}

FakeClock::FakeClock() : now_(TimePoint() + std::chrono::hours(24 * 365)) {}

FakeClock::~FakeClock() = default;

TimePoint FakeClock::Now() const {
  std::lock_guard lock(mu_);
  return now_;
}

// The sleeper is registered before the time is read, and Advance() takes the
// sleeper's own mutex before notifying: either the sleeper sees the new time,
// or it is already inside cv.wait() when the notification comes. An entry is
// removed only while no Advance() is using it, and without holding the
// caller's mutex, which Advance() may be waiting for.
void FakeClock::WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                          TimePoint deadline) {
  Sleeper self{&cv, lock.mutex()};
  {
    std::lock_guard guard(mu_);
    sleepers_.push_back(&self);
  }
  if (Now() < deadline) cv.wait(lock);
  lock.unlock();
  {
    std::unique_lock guard(mu_);
    idle_cv_.wait(guard, [this] { return notifying_ == 0; });
    sleepers_.erase(std::find(sleepers_.begin(), sleepers_.end(), &self));
  }
  lock.lock();
}

void FakeClock::Advance(Duration by) {
  std::vector<Sleeper*> snapshot;
  {
    std::lock_guard guard(mu_);
    now_ += by;
    snapshot = sleepers_;
    ++notifying_;
  }
  for (Sleeper* sleeper : snapshot) {
    { std::lock_guard barrier(*sleeper->mutex); }
    sleeper->cv->notify_all();
  }
  {
    std::lock_guard guard(mu_);
    --notifying_;
  }
  idle_cv_.notify_all();
}

size_t FakeClock::NumSleepers() const {
  std::lock_guard guard(mu_);
  return sleepers_.size();
}

}  // namespace berth::distributed
