// The `default` allocator's bookkeeping: device memory taken from CUDA in
// large chunks and handed out best fit (the smallest free range that holds
// the request), neighbours merged again when freed. Pure host logic over
// addresses: the chunks come from a ChunkSource, so tests drive it without a
// GPU.
//
// Sizes are rounded up to kAlignment (256 bytes, as cudaMalloc aligns).
// With `preallocate`, one chunk of `limit` bytes is taken when the pool is
// made; otherwise chunks of at least kMinChunk are taken as needed, never
// more than `limit` in all. Out of memory is RESOURCE_EXHAUSTED naming the
// bytes asked, the largest free range and the limit. Thread-safe.
#ifndef BERTH_PLUGINS_CUDA_RUNTIME_BEST_FIT_POOL_HPP_
#define BERTH_PLUGINS_CUDA_RUNTIME_BEST_FIT_POOL_HPP_

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "berth/status.hpp"

namespace berth::cuda {

struct PoolStats {
  uint64_t in_use = 0;  // bytes handed out (rounded sizes)
  uint64_t peak_in_use = 0;
  uint64_t reserved = 0;    // bytes of chunks taken from the source
  int64_t allocations = 0;  // live
};

class BestFitPool {
 public:
  static constexpr uint64_t kAlignment = 256;
  static constexpr uint64_t kMinChunk = uint64_t{64} << 20;  // 64 MiB

  // Takes `bytes` from the device (the address, or an error); gives a chunk back.
  struct ChunkSource {
    std::function<Result<uintptr_t>(uint64_t bytes)> take;
    std::function<void(uintptr_t address, uint64_t bytes)> give_back;
  };

  BestFitPool(ChunkSource source, uint64_t limit, std::string what);
  ~BestFitPool();  // gives every chunk back
  BestFitPool(const BestFitPool&) = delete;
  BestFitPool& operator=(const BestFitPool&) = delete;

  // Takes the whole limit now (the `preallocate` option).
  Status Preallocate();

  // An address of at least `bytes` (0 gives a distinct non-null address of
  // kAlignment bytes), aligned to kAlignment.
  Result<uintptr_t> Allocate(uint64_t bytes);
  // Gives back an address Allocate returned; INVALID_ARGUMENT for any other.
  Status Free(uintptr_t address);

  PoolStats stats() const;
  uint64_t limit() const { return limit_; }

 private:
  struct Range {
    uint64_t size = 0;
    bool free = true;
    uintptr_t chunk = 0;  // the chunk it lies in (ranges of two chunks never merge)
  };

  Status TakeChunkLocked(uint64_t bytes);
  uint64_t LargestFreeLocked() const;
  void InsertFreeLocked(uintptr_t address, const Range& range);
  void EraseFreeLocked(uintptr_t address, uint64_t size);

  ChunkSource source_;
  uint64_t limit_;
  std::string what_;
  mutable std::mutex mutex_;
  std::map<uintptr_t, Range> ranges_;                // every range, by address
  std::multimap<uint64_t, uintptr_t> free_by_size_;  // free ranges
  std::vector<std::pair<uintptr_t, uint64_t>> chunks_;
  PoolStats stats_;
};

}  // namespace berth::cuda

#endif  // BERTH_PLUGINS_CUDA_RUNTIME_BEST_FIT_POOL_HPP_
