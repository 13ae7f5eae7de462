#include "interpreter/storage.hpp"

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <new>

namespace berth::cpu {
namespace {

constexpr size_t kAlignment = 64;
// Allocations at least this large go through the pool; smaller ones are
// cheap for malloc and would only fragment it.
constexpr size_t kPoolMinBytes = 64 * 1024;
// The pool keeps at most this many bytes of freed storage.
constexpr size_t kPoolMaxCachedBytes = size_t{1} << 30;

// Rounds up to a size class: 4 KiB granularity up to 1 MiB, then 1/8 steps
// of the next power of two, so a slightly different size still reuses.
size_t SizeClass(size_t size) {
  if (size <= (size_t{1} << 20)) return (size + 4095) & ~size_t{4095};
  size_t power = size_t{1} << (63 - __builtin_clzll(size - 1) + 1);
  size_t step = power / 8;
  return (size + step - 1) / step * step;
}

class Pool {
 public:
  std::byte* Take(size_t capacity) {
    std::lock_guard lock(mutex_);
    auto it = free_.find(capacity);
    if (it == free_.end()) return nullptr;
    std::byte* data = it->second;
    free_.erase(it);
    cached_ -= capacity;
    return data;
  }

  // Keeps `data` for reuse, or frees it when the pool is full.
  void Give(std::byte* data, size_t capacity) {
    {
      std::lock_guard lock(mutex_);
      if (cached_ + capacity <= kPoolMaxCachedBytes) {
        free_.emplace(capacity, data);
        cached_ += capacity;
        return;
      }
    }
    std::free(data);
  }

  size_t cached() {
    std::lock_guard lock(mutex_);
    return cached_;
  }

  // Frees everything cached.
  void Clear() {
    std::lock_guard lock(mutex_);
    for (auto& [capacity, data] : free_) std::free(data);
    free_.clear();
    cached_ = 0;
  }

 private:
  std::mutex mutex_;
  std::multimap<size_t, std::byte*> free_;
  size_t cached_ = 0;
};

// False once the pool is destroyed (library unload or exit); storage freed
// after that goes straight back to the system.
std::atomic<bool> pool_alive{false};

class PoolHolder {
 public:
  PoolHolder() { pool_alive = true; }
  ~PoolHolder() {
    pool_alive = false;
    pool.Clear();
  }
  Pool pool;
};

Pool* GlobalPool() {
  static PoolHolder holder;
  return pool_alive ? &holder.pool : nullptr;
}

}  // namespace

std::shared_ptr<Storage> Storage::Allocate(size_t size) {
  size_t capacity = size < kPoolMinBytes ? (std::max<size_t>(size, 1) + kAlignment - 1) /
                                               kAlignment * kAlignment
                                         : SizeClass(size);
  Pool* pool = capacity >= kPoolMinBytes ? GlobalPool() : nullptr;
  std::byte* data = pool != nullptr ? pool->Take(capacity) : nullptr;
  if (data == nullptr) {
    data = static_cast<std::byte*>(std::aligned_alloc(kAlignment, capacity));
    if (data == nullptr) throw std::bad_alloc();
  }
  return std::shared_ptr<Storage>(new Storage(data, size, capacity));
}

Storage::~Storage() {
  Pool* pool = capacity_ >= kPoolMinBytes ? GlobalPool() : nullptr;
  if (pool != nullptr) {
    pool->Give(data_, capacity_);
  } else {
    std::free(data_);
  }
}

size_t StoragePoolCachedBytes() {
  Pool* pool = GlobalPool();
  return pool != nullptr ? pool->cached() : 0;
}

}  // namespace berth::cpu
