#include "interpreter/strided_copy.hpp"

#include <algorithm>
#include <cstring>

#include "interpreter/parallel.hpp"

namespace berth::cpu {
namespace {

// Elements per parallel chunk: large enough that scheduling is noise.
constexpr int64_t kGrainElements = int64_t{1} << 15;
// Rows and columns of a transposing tile.
constexpr int64_t kTile = 32;

// Loads and stores through memcpy: element bytes of any type moved as words
// without aliasing questions (compiles to plain moves).
template <typename U>
inline U Load(const std::byte* p) {
  U v;
  std::memcpy(&v, p, sizeof(U));
  return v;
}
template <typename U>
inline void Store(std::byte* p, U v) {
  std::memcpy(p, &v, sizeof(U));
}

// Calls f.template operator()<U>() with U the unsigned word of `bytes`, or
// with U = void for sizes without one.
template <typename F>
void WithWord(size_t bytes, F&& f) {
  switch (bytes) {
    case 1: f.template operator()<uint8_t>(); break;
    case 2: f.template operator()<uint16_t>(); break;
    case 4: f.template operator()<uint32_t>(); break;
    case 8: f.template operator()<uint64_t>(); break;
    default: f.template operator()<void>(); break;
  }
}

// dst[i * dst_stride] = src[i * src_stride] for i in [0, n).
template <typename U>
void StridedRun(std::byte* dst, const std::byte* src, int64_t n, int64_t dst_stride,
                int64_t src_stride, size_t bytes) {
  if constexpr (std::is_void_v<U>) {
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(dst + i * dst_stride * static_cast<int64_t>(bytes),
                  src + i * src_stride * static_cast<int64_t>(bytes), bytes);
    }
  } else {
    const int64_t ds = dst_stride * static_cast<int64_t>(sizeof(U));
    const int64_t ss = src_stride * static_cast<int64_t>(sizeof(U));
    for (int64_t i = 0; i < n; ++i) Store<U>(dst + i * ds, Load<U>(src + i * ss));
  }
}

template <typename U>
void FillRun(std::byte* dst, const std::byte* value, int64_t n, size_t bytes) {
  if constexpr (std::is_void_v<U>) {
    for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * static_cast<int64_t>(bytes), value, bytes);
  } else if constexpr (sizeof(U) == 1) {
    std::memset(dst, static_cast<int>(Load<U>(value)), static_cast<size_t>(n));
  } else {
    const U v = Load<U>(value);
    for (int64_t i = 0; i < n; ++i) Store<U>(dst + i * static_cast<int64_t>(sizeof(U)), v);
  }
}

}  // namespace

StridedBox StridedBox::Make(std::span<const int64_t> sizes, std::span<const int64_t> dst_strides,
                            std::span<const int64_t> src_strides) {
  StridedBox box;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) box.empty = true;
    if (sizes[d] <= 1) continue;
    if (!box.sizes.empty()) {
      // Merge with the previous (outer) dimension when it steps exactly over
      // this one on both sides.
      int64_t& prev_size = box.sizes.back();
      if (box.dst_strides.back() == dst_strides[d] * sizes[d] &&
          box.src_strides.back() == src_strides[d] * sizes[d]) {
        prev_size *= sizes[d];
        box.dst_strides.back() = dst_strides[d];
        box.src_strides.back() = src_strides[d];
        continue;
      }
    }
    box.sizes.push_back(sizes[d]);
    box.dst_strides.push_back(dst_strides[d]);
    box.src_strides.push_back(src_strides[d]);
  }
  if (box.empty) {
    box.sizes.clear();
    box.dst_strides.clear();
    box.src_strides.clear();
  }
  return box;
}

int64_t StridedBox::num_elements() const {
  if (empty) return 0;
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

int64_t StridedBox::num_runs() const {
  if (empty) return 0;
  int64_t n = 1;
  for (size_t d = 0; d + 1 < sizes.size(); ++d) n *= sizes[d];
  return n;
}

StridedCopy::StridedCopy(size_t element_bytes, std::span<const int64_t> sizes,
                         std::span<const int64_t> dst_strides,
                         std::span<const int64_t> src_strides)
    : element_bytes_(element_bytes), box_(StridedBox::Make(sizes, dst_strides, src_strides)) {
  const int64_t dst_inner = box_.inner_dst_stride();
  const int64_t src_inner = box_.inner_src_stride();
  if (dst_inner == 1 && src_inner == 1) {
    inner_ = Inner::kMemcpy;
  } else if (dst_inner == 1 && src_inner == 0) {
    inner_ = Inner::kFill;
  } else {
    inner_ = Inner::kStrided;
    // A transpose: the source is contiguous along another dimension. Walk
    // that dimension and the inner one in square tiles so that both sides
    // stay in cache.
    const int64_t rank = static_cast<int64_t>(box_.sizes.size());
    if (dst_inner == 1 && box_.inner_size() >= 4) {
      for (int64_t k = rank - 2; k >= 0; --k) {
        if (box_.src_strides[k] != 1 || box_.sizes[k] < 4) continue;
        inner_ = Inner::kTile;
        tile_size_ = box_.sizes[k];
        tile_dst_stride_ = box_.dst_strides[k];
        tile_outer_ = box_;
        tile_outer_.sizes.erase(tile_outer_.sizes.begin() + k);
        tile_outer_.dst_strides.erase(tile_outer_.dst_strides.begin() + k);
        tile_outer_.src_strides.erase(tile_outer_.src_strides.begin() + k);
        break;
      }
    }
  }
}

int64_t StridedCopy::num_units() const {
  if (inner_ == Inner::kTile) return tile_outer_.num_runs() * ((tile_size_ + kTile - 1) / kTile);
  return box_.num_runs();
}

void StridedCopy::RunUnits(std::byte* dst, const std::byte* src, int64_t begin,
                           int64_t end) const {
  const int64_t eb = static_cast<int64_t>(element_bytes_);
  const int64_t n = box_.inner_size();
  const int64_t ds = box_.inner_dst_stride();
  const int64_t ss = box_.inner_src_stride();
  switch (inner_) {
    case Inner::kMemcpy: {
      const size_t run_bytes = static_cast<size_t>(n * eb);
      ForEachRun(box_, begin, end, [&](int64_t d, int64_t s) {
        std::memcpy(dst + d * eb, src + s * eb, run_bytes);
      });
      return;
    }
    case Inner::kFill:
      WithWord(element_bytes_, [&]<typename U>() {
        ForEachRun(box_, begin, end, [&](int64_t d, int64_t s) {
          FillRun<U>(dst + d * eb, src + s * eb, n, element_bytes_);
        });
      });
      return;
    case Inner::kStrided:
      WithWord(element_bytes_, [&]<typename U>() {
        ForEachRun(box_, begin, end, [&](int64_t d, int64_t s) {
          StridedRun<U>(dst + d * eb, src + s * eb, n, ds, ss, element_bytes_);
        });
      });
      return;
    case Inner::kTile: {
      const int64_t blocks = (tile_size_ + kTile - 1) / kTile;
      const int64_t first_run = begin / blocks;
      const int64_t last_run = (end - 1) / blocks;
      WithWord(element_bytes_, [&]<typename U>() {
        int64_t run = first_run;
        ForEachRun(tile_outer_, first_run, last_run + 1, [&](int64_t d, int64_t s) {
          int64_t b0 = run == first_run ? begin % blocks : 0;
          int64_t b1 = run == last_run ? (end - 1) % blocks + 1 : blocks;
          for (int64_t b = b0; b < b1; ++b) {
            int64_t row_end = std::min(tile_size_, (b + 1) * kTile);
            for (int64_t col = 0; col < n; col += kTile) {
              int64_t cols = std::min(kTile, n - col);
              for (int64_t row = b * kTile; row < row_end; ++row) {
                StridedRun<U>(dst + (d + row * tile_dst_stride_ + col) * eb,
                              src + (s + row + col * ss) * eb, cols, 1, ss, element_bytes_);
              }
            }
          }
          ++run;
        });
      });
      return;
    }
  }
}

void StridedCopy::Run(std::byte* dst, const std::byte* src) const {
  if (box_.empty) return;
  RunUnits(dst, src, 0, num_units());
}

void StridedCopy::RunParallel(ThreadPool* pool, std::byte* dst, const std::byte* src) const {
  if (box_.empty) return;
  const int64_t units = num_units();
  const int64_t per_unit = std::max<int64_t>(1, box_.num_elements() / std::max<int64_t>(1, units));
  if (pool == nullptr || box_.num_elements() < 2 * kGrainElements || units < 2) {
    RunUnits(dst, src, 0, units);
    return;
  }
  const int64_t min_chunk = std::max<int64_t>(1, kGrainElements / per_unit);
  ParallelFor(pool, units, min_chunk,
              [&](int64_t begin, int64_t end) { RunUnits(dst, src, begin, end); });
}

void FillElements(std::byte* dst, const std::byte* value, size_t element_bytes, int64_t count) {
  if (count <= 0) return;
  WithWord(element_bytes, [&]<typename U>() { FillRun<U>(dst, value, count, element_bytes); });
}

void FillElementsParallel(ThreadPool* pool, std::byte* dst, const std::byte* value,
                          size_t element_bytes, int64_t count) {
  if (pool == nullptr || count < 4 * kGrainElements) {
    FillElements(dst, value, element_bytes, count);
    return;
  }
  const int64_t eb = static_cast<int64_t>(element_bytes);
  ParallelFor(pool, count, kGrainElements, [&](int64_t begin, int64_t end) {
    FillElements(dst + begin * eb, value, element_bytes, end - begin);
  });
}

void CopyBytesParallel(ThreadPool* pool, std::byte* dst, const std::byte* src, size_t bytes) {
  constexpr int64_t kGrainBytes = int64_t{1} << 18;
  if (bytes == 0) return;
  if (pool == nullptr || static_cast<int64_t>(bytes) < 4 * kGrainBytes) {
    std::memcpy(dst, src, bytes);
    return;
  }
  ParallelFor(pool, static_cast<int64_t>(bytes), kGrainBytes, [&](int64_t begin, int64_t end) {
    std::memcpy(dst + begin, src + begin, static_cast<size_t>(end - begin));
  });
}

}  // namespace berth::cpu
