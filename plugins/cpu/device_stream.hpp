// The execution queue of one CPU device: a thread running launched program
// instances in order, like a device's stream. Programs with collectives need
// every instance of a launch running at once, which one thread per device
// gives without tying up the shared thread pool.
#ifndef BERTH_PLUGINS_CPU_DEVICE_STREAM_HPP_
#define BERTH_PLUGINS_CPU_DEVICE_STREAM_HPP_

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace berth::cpu {

class DeviceStream {
 public:
  DeviceStream();
  // Runs what is queued, then stops the thread.
  ~DeviceStream();
  DeviceStream(const DeviceStream&) = delete;
  DeviceStream& operator=(const DeviceStream&) = delete;

  void Enqueue(std::function<void()> work);
  // Runs `work` on the calling thread when nothing is queued or running on
  // this stream, so the stream's order holds (work enqueued meanwhile waits
  // for it); returns false without running it otherwise.
  bool TryRunInline(const std::function<void()>& work);

 private:
  void Loop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  bool busy_ = false;  // the thread or an inline caller runs work
  std::thread thread_;
};

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_DEVICE_STREAM_HPP_
