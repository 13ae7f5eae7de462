// Internal: the parser's SSA name table. Open addressing with linear probing
// and backward-shift deletion, so defining and forgetting names allocates
// nothing once the table has grown.
#ifndef BERTH_STABLEHLO_SRC_VALUE_MAP_HPP_
#define BERTH_STABLEHLO_SRC_VALUE_MAP_HPP_

#include <cstdint>
#include <string_view>
#include <vector>

namespace berth::stablehlo::detail {

template <typename V>
class StringViewMap {
 public:
  StringViewMap() { slots_.resize(64); }

  // Inserts `key`; false (and no change) when it is present already.
  bool Insert(std::string_view key, const V& value) {
    if ((size_ + 1) * 4 > slots_.size() * 3) Grow();
    size_t i = Find(key);
    if (slots_[i].used) return false;
    slots_[i] = Slot{key, value, true};
    ++size_;
    return true;
  }

  const V* Lookup(std::string_view key) const {
    size_t i = Find(key);
    return slots_[i].used ? &slots_[i].value : nullptr;
  }

  void Erase(std::string_view key) {
    size_t mask = slots_.size() - 1;
    size_t i = Find(key);
    if (!slots_[i].used) return;
    slots_[i].used = false;
    --size_;
    // Shift later members of the probe run back into the hole.
    size_t hole = i;
    for (size_t j = (i + 1) & mask; slots_[j].used; j = (j + 1) & mask) {
      size_t home = Hash(slots_[j].key) & mask;
      bool movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
      if (movable) {
        slots_[hole] = slots_[j];
        slots_[j].used = false;
        hole = j;
      }
    }
  }

  void Clear() {
    if (size_ == 0) return;
    for (Slot& s : slots_) s.used = false;
    size_ = 0;
  }

 private:
  struct Slot {
    std::string_view key;
    V value{};
    bool used = false;
  };

  static size_t Hash(std::string_view key) {
    uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (char c : key) {
      h ^= static_cast<unsigned char>(c);
      h *= 1099511628211ull;
    }
    return static_cast<size_t>(h ^ (h >> 29));
  }

  size_t Find(std::string_view key) const {
    size_t mask = slots_.size() - 1;
    size_t i = Hash(key) & mask;
    while (slots_[i].used && slots_[i].key != key) i = (i + 1) & mask;
    return i;
  }

  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.size() * 2, Slot{});
    size_ = 0;
    for (const Slot& s : old) {
      if (s.used) Insert(s.key, s.value);
    }
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace berth::stablehlo::detail

#endif  // BERTH_STABLEHLO_SRC_VALUE_MAP_HPP_
