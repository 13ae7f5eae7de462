#include "interpreter/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>

namespace berth::cpu {

void ParallelFor(ThreadPool* pool, int64_t total, int64_t min_chunk,
                 const std::function<void(int64_t, int64_t)>& body) {
  if (total <= 0) return;
  min_chunk = std::max<int64_t>(1, min_chunk);
  const int64_t workers = pool != nullptr ? static_cast<int64_t>(pool->size()) + 1 : 1;
  // A few chunks per worker balance uneven progress without much overhead.
  int64_t chunks = std::min<int64_t>((total + min_chunk - 1) / min_chunk, workers * 4);
  if (chunks <= 1 || pool == nullptr) {
    body(0, total);
    return;
  }
  const int64_t chunk_size = (total + chunks - 1) / chunks;
  chunks = (total + chunk_size - 1) / chunk_size;

  // Shared with helper tasks that may start after this call returned (they
  // then find nothing left to claim and exit), hence the shared_ptr.
  struct Shared {
    std::atomic<int64_t> next{0};
    std::atomic<int64_t> done{0};
    std::mutex mutex;
    std::condition_variable all_done;
  };
  auto shared = std::make_shared<Shared>();
  const std::function<void(int64_t, int64_t)>* body_ptr = &body;
  auto run = [shared, body_ptr, total, chunk_size, chunks] {
    while (true) {
      int64_t chunk = shared->next.fetch_add(1);
      if (chunk >= chunks) return;
      int64_t begin = chunk * chunk_size;
      (*body_ptr)(begin, std::min(total, begin + chunk_size));
      if (shared->done.fetch_add(1) + 1 == chunks) {
        std::lock_guard lock(shared->mutex);
        shared->all_done.notify_all();
      }
    }
  };
  int64_t helpers = std::min<int64_t>(chunks - 1, static_cast<int64_t>(pool->size()));
  for (int64_t i = 0; i < helpers; ++i) pool->Schedule(run);
  run();
  // Every chunk is claimed now; wait for the ones other threads are running.
  std::unique_lock lock(shared->mutex);
  shared->all_done.wait(lock, [&] { return shared->done.load() == chunks; });
}

}  // namespace berth::cpu
