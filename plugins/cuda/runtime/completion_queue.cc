#include "runtime/completion_queue.hpp"

#include "cuda_status.hpp"

namespace berth::cuda {

CompletionQueue::CompletionQueue(int ordinal) : ordinal_(ordinal), thread_([this] { Run(); }) {}

CompletionQueue::~CompletionQueue() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

Status CompletionQueue::Enqueue(cudaStream_t stream, std::function<void(const Status&)> done) {
  Entry entry;
  Status status =
      CudaStatus(cudaEventCreateWithFlags(&entry.event, cudaEventDisableTiming), "cudaEventCreate");
  if (status.ok()) status = CudaStatus(cudaEventRecord(entry.event, stream), "cudaEventRecord");
  if (!status.ok()) {
    if (entry.event != nullptr) cudaEventDestroy(entry.event);
    done(status);
    return status;
  }
  entry.done = std::move(done);
  {
    std::lock_guard lock(mutex_);
    entries_.push_back(std::move(entry));
  }
  wake_.notify_one();
  return OkStatus();
}

void CompletionQueue::Run() {
  cudaSetDevice(ordinal_);
  for (;;) {
    Entry entry;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !entries_.empty(); });
      if (entries_.empty()) return;  // stopping, and everything has run
      entry = std::move(entries_.front());
      entries_.pop_front();
    }
    const Status status =
        CudaStatus(cudaEventSynchronize(entry.event),
                   "cuda device " + std::to_string(ordinal_) + ": the stream failed");
    cudaEventDestroy(entry.event);
    entry.done(status);
  }
}

}  // namespace berth::cuda
