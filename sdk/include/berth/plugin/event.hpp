// A one-shot completion signal with a Status, shared between the code that
// completes it and everyone waiting for it. Copies share state. Thread-safe.
#ifndef BERTH_PLUGIN_EVENT_HPP_
#define BERTH_PLUGIN_EVENT_HPP_

#include <functional>
#include <memory>
#include <vector>

#include "berth/status.hpp"

namespace berth::plugin {

class Event {
 public:
  // A new event, not ready until Set is called.
  Event();
  // An event that is already ready with `status`.
  static Event Ready(Status status = OkStatus());
  // Ready when all of `events` are; carries the first error among them.
  static Event AfterAll(const std::vector<Event>& events);

  // Makes the event ready. Only the first call has an effect; callbacks run on
  // the calling thread, outside any lock.
  void Set(Status status) const;

  bool IsReady() const;
  // Blocks until ready; returns the event's status.
  Status Await() const;
  // The status; FAILED_PRECONDITION when not ready yet.
  Status status() const;
  // Runs `callback` once with the status when ready: now, on this thread, if
  // already ready; else on the thread that calls Set.
  void OnReady(std::function<void(const Status&)> callback) const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace berth::plugin

#endif  // BERTH_PLUGIN_EVENT_HPP_
