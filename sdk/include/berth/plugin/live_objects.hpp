// Counts of the plugin's live clients, buffers, loaded executables and
// events: each of the SDK's base classes (and the C event handle) holds a
// LiveObject of its kind. Every plugin built on the SDK reports the counts to
// the host through the `live_objects` extension (berth/ext/live_objects.h),
// which `berth conformance` checks are 0 once every handle has been destroyed.
#ifndef BERTH_PLUGIN_LIVE_OBJECTS_HPP_
#define BERTH_PLUGIN_LIVE_OBJECTS_HPP_

#include <cstdint>

namespace berth::plugin {

enum class LiveObjectKind { kClient, kBuffer, kExecutable, kEvent };

// Counts one object of its kind for as long as it lives. A copy counts too.
class LiveObject {
 public:
  explicit LiveObject(LiveObjectKind kind) noexcept;
  LiveObject(const LiveObject& other) noexcept;
  LiveObject& operator=(const LiveObject&) noexcept { return *this; }
  ~LiveObject();

 private:
  LiveObjectKind kind_;
};

struct LiveObjectCounts {
  int64_t clients = 0;
  int64_t buffers = 0;
  int64_t executables = 0;
  int64_t events = 0;
};

// Objects alive in this plugin library now.
LiveObjectCounts LiveObjects();

}  // namespace berth::plugin

#endif  // BERTH_PLUGIN_LIVE_OBJECTS_HPP_
