// Copying a box of elements between two strided layouts: the engine under
// transpose, broadcast, slice, reverse, concatenate, pad, dynamic slices,
// gather and scatter.
//
// A box is described per dimension by its size and a stride (in elements)
// on each side; source strides may be 0 (broadcast) or negative (reverse).
// The box is normalized once (size-1 dimensions dropped, dimensions that are
// contiguous on both sides merged) so that the inner loop is a memcpy, a
// fill or a strided loop, and the outer dimensions are walked with a
// counter that carries instead of dividing.
#ifndef BERTH_PLUGINS_CPU_INTERPRETER_STRIDED_COPY_HPP_
#define BERTH_PLUGINS_CPU_INTERPRETER_STRIDED_COPY_HPP_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "thread_pool.hpp"

namespace berth::cpu {

// A box normalized for iteration: the last dimension is the inner run, the
// others are walked in row-major order.
struct StridedBox {
  std::vector<int64_t> sizes;
  std::vector<int64_t> dst_strides;
  std::vector<int64_t> src_strides;
  bool empty = false;  // some dimension has size 0

  // `sizes`, `dst_strides` and `src_strides` have one entry per dimension.
  static StridedBox Make(std::span<const int64_t> sizes, std::span<const int64_t> dst_strides,
                         std::span<const int64_t> src_strides);

  int64_t num_elements() const;
  // Elements of the inner run (1 for a rank-0 box).
  int64_t inner_size() const { return sizes.empty() ? 1 : sizes.back(); }
  int64_t inner_dst_stride() const { return dst_strides.empty() ? 1 : dst_strides.back(); }
  int64_t inner_src_stride() const { return src_strides.empty() ? 1 : src_strides.back(); }
  // Number of inner runs.
  int64_t num_runs() const;
};

// Calls `run(dst_offset, src_offset)` (offsets in elements) for the inner
// runs [begin, end) of `box`, in row-major order.
template <typename F>
void ForEachRun(const StridedBox& box, int64_t begin, int64_t end, F&& run) {
  if (box.empty || begin >= end) return;
  const int64_t outer = static_cast<int64_t>(box.sizes.size()) - 1;
  if (outer <= 0) {
    for (int64_t r = begin; r < end; ++r) run(int64_t{0}, int64_t{0});
    return;
  }
  // Position of run `begin` (divisions once per call, not per run).
  std::vector<int64_t> pos(static_cast<size_t>(outer));
  int64_t dst = 0, src = 0;
  int64_t rest = begin;
  for (int64_t d = outer - 1; d >= 0; --d) {
    pos[d] = rest % box.sizes[d];
    rest /= box.sizes[d];
    dst += pos[d] * box.dst_strides[d];
    src += pos[d] * box.src_strides[d];
  }
  for (int64_t r = begin; r < end; ++r) {
    run(dst, src);
    for (int64_t d = outer - 1; d >= 0; --d) {
      dst += box.dst_strides[d];
      src += box.src_strides[d];
      if (++pos[d] < box.sizes[d]) break;
      pos[d] = 0;
      dst -= box.dst_strides[d] * box.sizes[d];
      src -= box.src_strides[d] * box.sizes[d];
    }
  }
}

// A prepared copy of one box shape; run it at many origins (gather windows)
// or once over a whole tensor.
class StridedCopy {
 public:
  StridedCopy(size_t element_bytes, std::span<const int64_t> sizes,
              std::span<const int64_t> dst_strides, std::span<const int64_t> src_strides);

  int64_t num_elements() const { return box_.num_elements(); }

  // `dst` and `src` point at the box origin on each side.
  void Run(std::byte* dst, const std::byte* src) const;
  // Splits large copies across `pool` (may be NULL).
  void RunParallel(ThreadPool* pool, std::byte* dst, const std::byte* src) const;

 private:
  enum class Inner : uint8_t { kMemcpy, kFill, kStrided, kTile };

  // Units [begin, end): inner runs, or for kTile (run, block of rows) pairs.
  void RunUnits(std::byte* dst, const std::byte* src, int64_t begin, int64_t end) const;
  int64_t num_units() const;

  size_t element_bytes_;
  StridedBox box_;
  Inner inner_ = Inner::kStrided;
  // kTile: the box without the dimension whose source stride is 1, which
  // is kept apart (size, destination stride) and walked in blocks.
  StridedBox tile_outer_;
  int64_t tile_size_ = 0;
  int64_t tile_dst_stride_ = 0;
};

// Fills `count` elements of `element_bytes` each at `dst` with `value`.
void FillElements(std::byte* dst, const std::byte* value, size_t element_bytes, int64_t count);
// FillElements split across `pool` when large.
void FillElementsParallel(ThreadPool* pool, std::byte* dst, const std::byte* value,
                          size_t element_bytes, int64_t count);
// memcpy split across `pool` when large.
void CopyBytesParallel(ThreadPool* pool, std::byte* dst, const std::byte* src, size_t bytes);

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_INTERPRETER_STRIDED_COPY_HPP_
