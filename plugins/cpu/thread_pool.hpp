// A fixed pool of worker threads running queued tasks in FIFO order.
#ifndef BERTH_PLUGINS_CPU_THREAD_POOL_HPP_
#define BERTH_PLUGINS_CPU_THREAD_POOL_HPP_

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace berth::cpu {

class ThreadPool {
 public:
  explicit ThreadPool(size_t num_threads);
  // Runs every task already queued, then joins the workers.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Schedule(std::function<void()> task);
  size_t size() const { return workers_.size(); }

 private:
  void WorkerLoop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_THREAD_POOL_HPP_
