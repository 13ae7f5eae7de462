// Time source of the coordination service. The service's semantics (heartbeat
// expiry, key and barrier deadlines) read time only through a Clock, so unit
// tests drive them with a FakeClock instead of sleeping.
#ifndef BERTH_HOST_DISTRIBUTED_CLOCK_HPP_
#define BERTH_HOST_DISTRIBUTED_CLOCK_HPP_

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <vector>

namespace berth::distributed {

using Duration = std::chrono::steady_clock::duration;
using TimePoint = std::chrono::steady_clock::time_point;

// A monotonic clock plus a way to sleep on a condition variable until a
// deadline measured on that clock.
class Clock {
 public:
  virtual ~Clock() = default;

  virtual TimePoint Now() const = 0;

  // Waits on `cv` until it is notified or Now() reaches `deadline`. `lock`
  // holds the mutex `cv` is used with, on entry and on return (it may be
  // released in between). Wakes spuriously at times: callers re-check their
  // condition and the time. TimePoint::max() waits for a notification only.
  virtual void WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                         TimePoint deadline) = 0;
};

// std::chrono::steady_clock. Process-wide; never destroyed.
Clock& RealClock();

// A clock that moves only when told to. Advance() wakes every thread blocked
// in WaitUntil so it can re-check its deadline. Thread-safe.
class FakeClock final : public Clock {
 public:
  // Starts at an arbitrary fixed time, far from the epoch, so that
  // "now - timeout" never underflows.
  FakeClock();
  ~FakeClock() override;

  TimePoint Now() const override;
  void WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                 TimePoint deadline) override;

  void Advance(Duration by);

  // Number of threads blocked in WaitUntil right now (tests wait for a
  // background thread to be asleep before advancing).
  size_t NumSleepers() const;

 private:
  struct Sleeper {
    std::condition_variable* cv;
    std::mutex* mutex;
  };

  mutable std::mutex mu_;
  std::condition_variable idle_cv_;  // notifying_ fell to 0
  TimePoint now_;
  std::vector<Sleeper*> sleepers_;
  int notifying_ = 0;  // Advance() calls currently touching sleepers_ entries
};

}  // namespace berth::distributed

#endif  // BERTH_HOST_DISTRIBUTED_CLOCK_HPP_
