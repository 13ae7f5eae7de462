// A count of the plugin's live clients, buffers and executables: each of the
// SDK's base classes holds a LiveObject. BERTH_PLUGIN_EXPORT_LIVE_OBJECTS()
// exports the count as `int64_t BERTH_Debug_LiveObjects(void)`, which `berth
// conformance` checks is 0 once every handle has been destroyed.
#ifndef BERTH_PLUGIN_LIVE_OBJECTS_HPP_
#define BERTH_PLUGIN_LIVE_OBJECTS_HPP_

#include <cstdint>

namespace berth::plugin {

class LiveObject {
 public:
  LiveObject() noexcept;
  LiveObject(const LiveObject&) noexcept;
  LiveObject& operator=(const LiveObject&) noexcept { return *this; }
  ~LiveObject();
};

// Objects alive in this plugin now.
int64_t LiveObjects();

}  // namespace berth::plugin

#endif  // BERTH_PLUGIN_LIVE_OBJECTS_HPP_
