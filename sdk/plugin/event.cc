#include "berth/plugin/event.hpp"

#include <atomic>
#include <condition_variable>
#include <mutex>

namespace berth::plugin {

struct Event::State {
  std::mutex mutex;
  std::condition_variable ready_cv;
  bool ready = false;
  Status status;
  std::vector<std::function<void(const Status&)>> callbacks;
};

Event::Event() : state_(std::make_shared<State>()) {}

Event Event::Ready(Status status) {
  Event event;
  event.state_->ready = true;
  event.state_->status = std::move(status);
  return event;
}

Event Event::AfterAll(const std::vector<Event>& events) {
  if (events.empty()) return Ready();
  struct Join {
    std::atomic<size_t> remaining;
    std::mutex mutex;
    Status first_error;
    Event done;
  };
  auto join = std::make_shared<Join>();
  join->remaining = events.size();
  Event done = join->done;
  for (const Event& event : events) {
    event.OnReady([join](const Status& status) {
      if (!status.ok()) {
        std::lock_guard lock(join->mutex);
        if (join->first_error.ok()) join->first_error = status;
      }
      if (join->remaining.fetch_sub(1) == 1) {
        Status result;
        {
          std::lock_guard lock(join->mutex);
          result = join->first_error;
        }
        join->done.Set(std::move(result));
      }
    });
  }
  return done;
}

void Event::Set(Status status) const {
  std::vector<std::function<void(const Status&)>> callbacks;
  {
    std::lock_guard lock(state_->mutex);
    if (state_->ready) return;
    state_->ready = true;
    state_->status = std::move(status);
    callbacks.swap(state_->callbacks);
  }
  state_->ready_cv.notify_all();
  // The status no longer changes once ready, so reading it unlocked is safe.
  for (auto& callback : callbacks) callback(state_->status);
}

bool Event::IsReady() const {
  std::lock_guard lock(state_->mutex);
  return state_->ready;
}

Status Event::Await() const {
  std::unique_lock lock(state_->mutex);
  state_->ready_cv.wait(lock, [this] { return state_->ready; });
  return state_->status;
}

Status Event::status() const {
  std::lock_guard lock(state_->mutex);
  if (!state_->ready) return FailedPreconditionError("event is not ready yet");
  return state_->status;
}

void Event::OnReady(std::function<void(const Status&)> callback) const {
  {
    std::lock_guard lock(state_->mutex);
    if (!state_->ready) {
      state_->callbacks.push_back(std::move(callback));
      return;
    }
  }
  callback(state_->status);
}

}  // namespace berth::plugin
