// An asynchronous completion from a plugin (a transfer, an execution).
#ifndef BERTH_EVENT_HPP_
#define BERTH_EVENT_HPP_

#include <functional>
#include <memory>

#include "berth/api.hpp"
#include "berth/c_api.h"
#include "berth/status.hpp"

namespace berth {
namespace core {
class PluginLibrary;
}

// Move-only owner of a plugin event. A default-constructed Event is ready
// and OK. Thread-safe: Await/IsReady/OnReady may be called from any thread.
class BERTH_API Event {
 public:
  Event() = default;
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  ~Event();

  bool IsReady() const;
  // Blocks until ready; returns the error of the work, if any.
  Status Await() const;
  // Runs `callback` once when ready, on an unspecified thread (this one if
  // already ready). The callback must not block.
  Status OnReady(std::function<void(Status)> callback) const;

  // Takes ownership of a C event of `library`.
  Event(std::shared_ptr<const core::PluginLibrary> library, BERTH_Event* event);

 private:
  void Reset();
  std::shared_ptr<const core::PluginLibrary> library_;
  BERTH_Event* event_ = nullptr;
};

}  // namespace berth

#endif  // BERTH_EVENT_HPP_
