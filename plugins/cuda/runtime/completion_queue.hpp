// Turns a device stream's progress into host callbacks without blocking the
// thread that enqueued the work: Enqueue records a CUDA event on the stream
// and a thread of the queue waits for the events in order, then runs each
// callback with the stream's status. Callbacks may call CUDA (they run on
// the queue's thread, with the device current, never on a driver thread).
#ifndef BERTH_PLUGINS_CUDA_RUNTIME_COMPLETION_QUEUE_HPP_
#define BERTH_PLUGINS_CUDA_RUNTIME_COMPLETION_QUEUE_HPP_

#include <cuda_runtime_api.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "berth/status.hpp"

namespace berth::cuda {

class CompletionQueue {
 public:
  explicit CompletionQueue(int ordinal);
  // Waits for every enqueued callback to have run.
  ~CompletionQueue();
  CompletionQueue(const CompletionQueue&) = delete;
  CompletionQueue& operator=(const CompletionQueue&) = delete;

  // Runs `done` once the work enqueued on `stream` so far has finished (or
  // failed: `done` gets the CUDA error). The device must be current. When
  // no event can be recorded, `done` runs now with the error, which is also
  // returned.
  Status Enqueue(cudaStream_t stream, std::function<void(const Status&)> done);

 private:
  struct Entry {
    cudaEvent_t event = nullptr;
    std::function<void(const Status&)> done;
  };
  void Run();

  int ordinal_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Entry> entries_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace berth::cuda

#endif  // BERTH_PLUGINS_CUDA_RUNTIME_COMPLETION_QUEUE_HPP_
