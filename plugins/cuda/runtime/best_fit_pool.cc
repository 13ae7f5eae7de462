#include "runtime/best_fit_pool.hpp"

#include <algorithm>

namespace berth::cuda {
namespace {

uint64_t RoundUp(uint64_t bytes) {
  return (std::max<uint64_t>(bytes, 1) + BestFitPool::kAlignment - 1) / BestFitPool::kAlignment *
         BestFitPool::kAlignment;
}

}  // namespace

BestFitPool::BestFitPool(ChunkSource source, uint64_t limit, std::string what)
    : source_(std::move(source)), limit_(limit / kAlignment * kAlignment), what_(std::move(what)) {}

BestFitPool::~BestFitPool() {
  for (const auto& [address, size] : chunks_) source_.give_back(address, size);
}

Status BestFitPool::Preallocate() {
  std::lock_guard lock(mutex_);
  if (stats_.reserved >= limit_) return OkStatus();
  return TakeChunkLocked(limit_ - stats_.reserved);
}

Status BestFitPool::TakeChunkLocked(uint64_t bytes) {
  BERTH_ASSIGN_OR_RETURN(uintptr_t address, source_.take(bytes));
  if (address % kAlignment != 0) {
    source_.give_back(address, bytes);
    return InternalError(what_ + ": the device gave a chunk that is not " +
                         std::to_string(kAlignment) + "-byte aligned");
  }
  chunks_.emplace_back(address, bytes);
  stats_.reserved += bytes;
  Range range{bytes, true, address};
  ranges_[address] = range;
  InsertFreeLocked(address, range);
  return OkStatus();
}

void BestFitPool::InsertFreeLocked(uintptr_t address, const Range& range) {
  free_by_size_.emplace(range.size, address);
}

void BestFitPool::EraseFreeLocked(uintptr_t address, uint64_t size) {
  auto [first, last] = free_by_size_.equal_range(size);
  for (auto it = first; it != last; ++it) {
    if (it->second == address) {
      free_by_size_.erase(it);
      return;
    }
  }
}

uint64_t BestFitPool::LargestFreeLocked() const {
  return free_by_size_.empty() ? 0 : free_by_size_.rbegin()->first;
}

Result<uintptr_t> BestFitPool::Allocate(uint64_t bytes) {
  if (bytes > limit_) {
    return ResourceExhaustedError(what_ + ": out of memory: " + std::to_string(bytes) +
                                  " bytes asked, more than the limit of " + std::to_string(limit_) +
                                  " bytes (memory_fraction)");
  }
  const uint64_t size = RoundUp(bytes);
  std::lock_guard lock(mutex_);
  auto fit = free_by_size_.lower_bound(size);
  if (fit == free_by_size_.end()) {
    const uint64_t room = limit_ - stats_.reserved;
    const uint64_t chunk = std::min(room, std::max(size, kMinChunk));
    if (chunk < size) {
      return ResourceExhaustedError(what_ + ": out of memory: " + std::to_string(bytes) +
                                    " bytes asked; " + std::to_string(limit_ - stats_.in_use) +
                                    " of the limit of " + std::to_string(limit_) +
                                    " bytes are free, the largest free range " +
                                    std::to_string(LargestFreeLocked()) + " bytes");
    }
    BERTH_RETURN_IF_ERROR(TakeChunkLocked(chunk));
    fit = free_by_size_.lower_bound(size);
  }
  const uintptr_t address = fit->second;
  free_by_size_.erase(fit);
  Range& range = ranges_.at(address);
  if (range.size > size) {
    Range rest{range.size - size, true, range.chunk};
    ranges_[address + size] = rest;
    InsertFreeLocked(address + size, rest);
    range.size = size;
  }
  range.free = false;
  stats_.in_use += size;
  stats_.peak_in_use = std::max(stats_.peak_in_use, stats_.in_use);
  ++stats_.allocations;
  return address;
}

Status BestFitPool::Free(uintptr_t address) {
  std::lock_guard lock(mutex_);
  auto it = ranges_.find(address);
  if (it == ranges_.end() || it->second.free) {
    return InvalidArgumentError(what_ + ": freeing an address the pool did not hand out");
  }
  it->second.free = true;
  stats_.in_use -= it->second.size;
  --stats_.allocations;
  // Merge with the next range, then the previous, within the same chunk.
  auto next = std::next(it);
  if (next != ranges_.end() && next->second.free && next->second.chunk == it->second.chunk &&
      it->first + it->second.size == next->first) {
    EraseFreeLocked(next->first, next->second.size);
    it->second.size += next->second.size;
    ranges_.erase(next);
  }
  if (it != ranges_.begin()) {
    auto previous = std::prev(it);
    if (previous->second.free && previous->second.chunk == it->second.chunk &&
        previous->first + previous->second.size == it->first) {
      EraseFreeLocked(previous->first, previous->second.size);
      previous->second.size += it->second.size;
      ranges_.erase(it);
      it = previous;
    }
  }
  InsertFreeLocked(it->first, it->second);
  return OkStatus();
}

PoolStats BestFitPool::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace berth::cuda
