#include "device_stream.hpp"

namespace berth::cpu {

DeviceStream::DeviceStream() : thread_([this] { Loop(); }) {}

DeviceStream::~DeviceStream() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void DeviceStream::Enqueue(std::function<void()> work) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(work));
  }
  wake_.notify_one();
}

bool DeviceStream::TryRunInline(const std::function<void()>& work) {
  {
    std::lock_guard lock(mutex_);
    if (busy_ || !queue_.empty()) return false;
    busy_ = true;
  }
  work();
  bool pending;
  {
    std::lock_guard lock(mutex_);
    busy_ = false;
    pending = !queue_.empty();
  }
  // Wake the thread only for work queued meanwhile: a wake per inline run
  // would cost a context switch each.
  if (pending) wake_.notify_one();
  return true;
}

void DeviceStream::Loop() {
  while (true) {
    std::function<void()> work;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return !busy_ && (stopping_ || !queue_.empty()); });
      if (queue_.empty()) return;
      work = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
    }
    work();
    std::lock_guard lock(mutex_);
    busy_ = false;
  }
}

}  // namespace berth::cpu
