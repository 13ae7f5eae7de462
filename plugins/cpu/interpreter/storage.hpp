// Host memory for tensors and buffers: 64-byte aligned, shared between a
// buffer and the work that reads or writes it, and recycled through a pool so
// steady-state executions do not fault in fresh pages.
#ifndef BERTH_PLUGINS_CPU_INTERPRETER_STORAGE_HPP_
#define BERTH_PLUGINS_CPU_INTERPRETER_STORAGE_HPP_

#include <cstddef>
#include <memory>

namespace berth::cpu {

class Storage {
 public:
  // Uninitialized bytes; throws std::bad_alloc when memory is exhausted.
  static std::shared_ptr<Storage> Allocate(size_t size);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  std::byte* data() { return data_; }
  const std::byte* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  Storage(std::byte* data, size_t size, size_t capacity)
      : data_(data), size_(size), capacity_(capacity) {}
  std::byte* data_;
  size_t size_;
  size_t capacity_;  // bytes actually allocated (a pool size class)
};

// Bytes the pool holds for reuse right now (for tests and benchmarks).
size_t StoragePoolCachedBytes();

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_INTERPRETER_STORAGE_HPP_
