// The typed reduction loops (reduce_loops.hpp) of one ISA variant.
//
// Why integer rows fold in a plain loop: GCC 12.2 at -O3 miscompiles the
// eight-accumulator fold this file used before (an array of lanes updated in
// an inner loop over the lanes, inside the loop over rows) for integer
// types. It vectorizes the loop over steps of eight and the result keeps
// only the last step's elements: the sum of 1..24 as i32 came out as 164,
// the sum of 17..24. Which lengths fail follows the vector width in lanes (i8
// from 32 elements at x86-64-v2; i16 and i32 from 24 with AVX-512). The
// source has no undefined behaviour; -fno-tree-loop-vectorize or -O2 avoid
// it. A minimal reproducer: isa/gcc12_lane_fold_miscompile.c. A plain loop
// is also what the vectorizer reduces best, and for integers any order gives
// the same exact (wrapping) result. Float rows need their order fixed, so
// they fold into an explicit vector of eight partial results (GCC vector
// extensions, lowered to whatever registers the ISA has), not into an array
// left to the vectorizer.
#include <algorithm>
#include <cstring>
#include <vector>

#include "interpreter/element_types.hpp"
#include "interpreter/parallel.hpp"
#include "isa/variant.hpp"

namespace berth::cpu::isa {
namespace {

// Below this many input elements a reduction runs on the calling thread.
constexpr int64_t kMinParallelElements = 1 << 15;

// Input dims after merging neighbours that are both kept or both reduced
// (dims of size 1 dropped); strides are the input's (row-major).
struct MergedDims {
  std::vector<int64_t> sizes;
  std::vector<bool> reduced;
  std::vector<int64_t> strides;
};

MergedDims Merge(std::span<const int64_t> dims, std::span<const char> reduced) {
  MergedDims m;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) continue;
    const bool r = reduced[d] != 0;
    if (!m.sizes.empty() && m.reduced.back() == r) {
      m.sizes.back() *= dims[d];
    } else {
      m.sizes.push_back(dims[d]);
      m.reduced.push_back(r);
    }
  }
  if (m.sizes.empty()) {  // rank 0 or all ones: one element, kept
    m.sizes.push_back(1);
    m.reduced.push_back(false);
  }
  m.strides = RowMajorStrides(m.sizes);
  return m;
}

// The kept (reduced == false) or reduced dims of `m`, optionally without the
// last one.
Odometer Walk(const MergedDims& m, bool reduced, bool drop_last) {
  std::vector<int64_t> sizes, strides;
  size_t end = drop_last ? m.sizes.size() - 1 : m.sizes.size();
  for (size_t d = 0; d < end; ++d) {
    if (m.reduced[d] != reduced) continue;
    sizes.push_back(m.sizes[d]);
    strides.push_back(m.strides[d]);
  }
  return Odometer(std::move(sizes), std::move(strides));
}

constexpr int64_t kLanes = 8;

// Eight lanes of T, and of masks as wide as T (GCC vector extensions; a
// vector attribute cannot apply to a template parameter, hence the traits).
template <typename T>
struct LaneTypes;
template <>
struct LaneTypes<float> {
  typedef float Lanes __attribute__((vector_size(kLanes * sizeof(float))));
  typedef int32_t Mask __attribute__((vector_size(kLanes * sizeof(float))));
};
template <>
struct LaneTypes<double> {
  typedef double Lanes __attribute__((vector_size(kLanes * sizeof(double))));
  typedef int64_t Mask __attribute__((vector_size(kLanes * sizeof(double))));
};
template <typename T>
using Lanes = typename LaneTypes<T>::Lanes;
template <typename T>
using LaneMask = typename LaneTypes<T>::Mask;

template <typename T>
Lanes<T> Select(LaneMask<T> mask, Lanes<T> a, Lanes<T> b) {
  using M = LaneMask<T>;
  return reinterpret_cast<Lanes<T>>((reinterpret_cast<M>(a) & mask) |
                                    (reinterpret_cast<M>(b) & ~mask));
}

// Combine<R, T> lane by lane, with the same NaN and signed-zero rules.
template <Reducer R, typename T>
Lanes<T> CombineLanes(Lanes<T> a, Lanes<T> b) {
  if constexpr (R == Reducer::kAdd) {
    return a + b;
  } else if constexpr (R == Reducer::kMultiply) {
    return a * b;
  } else {
    static_assert(R == Reducer::kMaximum || R == Reducer::kMinimum);
    using M = LaneMask<T>;
    const M nan_a = a != a;
    const M nan_b = b != b;
    const M negative_a = reinterpret_cast<M>(a) < 0;
    // Equal (or +0 and -0): maximum keeps a unless a is -0, minimum keeps a
    // unless a is +0.
    const M keep_a_equal = R == Reducer::kMaximum ? ~negative_a : negative_a;
    const M take_b = R == Reducer::kMaximum ? (a < b) : (b < a);
    Lanes<T> r = Select<T>(take_b, b, a);
    r = Select<T>(a == b, Select<T>(keep_a_equal, a, b), r);
    r = Select<T>(nan_b, b, r);
    return Select<T>(nan_a, a, r);
  }
}

// Whether rows of T reduced by R fold in a fixed order of lanes and blocks
// (floats whose sums and products round differently in another order).
template <Reducer R, typename T>
constexpr bool kLaneFold = (std::is_same_v<T, float> ||
                            std::is_same_v<T, double>)&&(R == Reducer::kAdd ||
                                                         R == Reducer::kMultiply ||
                                                         R == Reducer::kMaximum ||
                                                         R == Reducer::kMinimum);

// Rows of at least 2 * kFoldBlock elements fold in blocks of kFoldBlock (the
// last block takes the rest): each block's part is a lane fold of its own,
// the parts fold in order. The order depends on the row's length alone,
// never on threads; a reduction with few results shares the blocks of its
// rows out over threads (the cuda plugin folds such rows the same way).
constexpr int64_t kFoldBlock = int64_t{1} << 14;

// The lane fold of n >= 2 * kLanes contiguous elements: eight lanes start at
// the first eight and each takes every eighth element after; they fold left
// to right, then the tail.
template <Reducer R, typename T>
T LanePart(const T* p, int64_t n) {
  Lanes<T> lanes, x;
  std::memcpy(&lanes, p, sizeof(lanes));
  const int64_t steps = n / kLanes;
  for (int64_t step = 1; step < steps; ++step) {
    std::memcpy(&x, p + step * kLanes, sizeof(x));
    lanes = CombineLanes<R, T>(lanes, x);
  }
  T part = lanes[0];
  for (int64_t j = 1; j < kLanes; ++j) part = Combine<R, T>(part, lanes[j]);
  for (int64_t i = steps * kLanes; i < n; ++i) part = Combine<R, T>(part, p[i]);
  return part;
}

// Block b of a row of n >= 2 * kFoldBlock elements at p, folded.
template <Reducer R, typename T>
T BlockPart(const T* p, int64_t n, int64_t b) {
  const int64_t blocks = n / kFoldBlock;
  return LanePart<R, T>(p + b * kFoldBlock, b == blocks - 1 ? n - b * kFoldBlock : kFoldBlock);
}

// Folds n contiguous elements into acc.
template <Reducer R, typename T>
T FoldRow(const T* p, int64_t n, T acc) {
  if constexpr (kLaneFold<R, T>) {
    if (n >= 2 * kFoldBlock) {
      T part = BlockPart<R, T>(p, n, 0);
      for (int64_t b = 1; b < n / kFoldBlock; ++b)
        part = Combine<R, T>(part, BlockPart<R, T>(p, n, b));
      return Combine<R, T>(acc, part);
    }
    if (n >= 2 * kLanes) return Combine<R, T>(acc, LanePart<R, T>(p, n));
  }
  for (int64_t i = 0; i < n; ++i) acc = Combine<R, T>(acc, p[i]);
  return acc;
}

// Results that fold fewer rows than this share their rows' blocks out over
// threads instead of taking a thread each.
constexpr int64_t kFewResults = 64;

template <Reducer R, typename T>
void FastReduce(const T* in, T* out, T init, const MergedDims& m, int64_t num_out,
                int64_t num_in, ThreadPool* pool) {
  if (num_out == 0) return;
  if (num_in == 0) {
    std::fill(out, out + num_out, init);
    return;
  }
  const int64_t per_out = num_in / num_out;
  const int64_t last = m.sizes.back();
  if (m.reduced.back()) {
    // The innermost dim is reduced: each result folds contiguous rows.
    Odometer kept_proto = Walk(m, false, false);
    Odometer rows_proto = Walk(m, true, true);
    auto body = [&](int64_t begin, int64_t end) {
      Odometer kept = kept_proto;
      Odometer rows = rows_proto;
      kept.Seek(begin);
      for (int64_t o = begin; o < end; ++o, kept.Next()) {
        T acc = init;
        rows.Seek(0);
        for (int64_t r = 0; r < rows.count(); ++r, rows.Next()) {
          acc = FoldRow<R, T>(in + kept.offset() + rows.offset(), last, acc);
        }
        out[o] = acc;
      }
    };
    int64_t min_chunk = std::max<int64_t>(1, kMinParallelElements / std::max<int64_t>(1, per_out));
    if (num_in < kMinParallelElements) {
      body(0, num_out);
      return;
    }
    if constexpr (kLaneFold<R, T>) {
      if (last >= 2 * kFoldBlock && num_out < kFewResults) {
        // Few results of long rows: the blocks' parts in parallel, then each
        // result folds its rows' parts in order (FoldRow's order).
        const int64_t blocks = last / kFoldBlock;
        const int64_t row_count = rows_proto.count();
        std::vector<T> parts(static_cast<size_t>(num_out * row_count * blocks));
        ParallelFor(pool, static_cast<int64_t>(parts.size()), 1, [&](int64_t begin, int64_t end) {
          Odometer kept = kept_proto;
          Odometer rows = rows_proto;
          for (int64_t t = begin; t < end; ++t) {
            kept.Seek(t / (row_count * blocks));
            rows.Seek(t / blocks % row_count);
            parts[static_cast<size_t>(t)] =
                BlockPart<R, T>(in + kept.offset() + rows.offset(), last, t % blocks);
          }
        });
        for (int64_t o = 0; o < num_out; ++o) {
          T acc = init;
          for (int64_t r = 0; r < row_count; ++r) {
            const T* part = parts.data() + (o * row_count + r) * blocks;
            T row = part[0];
            for (int64_t b = 1; b < blocks; ++b) row = Combine<R, T>(row, part[b]);
            acc = Combine<R, T>(acc, row);
          }
          out[o] = acc;
        }
        return;
      }
    }
    ParallelFor(pool, num_out, min_chunk, body);
    return;
  }
  // The innermost dim is kept: results come in contiguous groups of `last`,
  // each updated row by row (vectorizable). Work is split over groups and
  // column ranges.
  Odometer groups_proto = Walk(m, false, true);
  Odometer reduced_proto = Walk(m, true, false);
  const int64_t num_groups = num_out / last;
  constexpr int64_t kColumnChunk = 1024;
  const int64_t column_chunks = (last + kColumnChunk - 1) / kColumnChunk;
  auto body = [&](int64_t begin, int64_t end) {
    Odometer group = groups_proto;
    Odometer rows = reduced_proto;
    for (int64_t task = begin; task < end; ++task) {
      int64_t g = task / column_chunks;
      int64_t c0 = (task % column_chunks) * kColumnChunk;
      int64_t c1 = std::min(last, c0 + kColumnChunk);
      group.Seek(g);
      T* o = out + g * last;
      std::fill(o + c0, o + c1, init);
      rows.Seek(0);
      for (int64_t r = 0; r < rows.count(); ++r, rows.Next()) {
        const T* p = in + group.offset() + rows.offset();
        for (int64_t c = c0; c < c1; ++c) o[c] = Combine<R, T>(o[c], p[c]);
      }
    }
  };
  int64_t tasks = num_groups * column_chunks;
  if (num_in < kMinParallelElements) {
    body(0, tasks);
  } else {
    int64_t per_task = per_out * std::min(last, kColumnChunk);
    ParallelFor(pool, tasks, std::max<int64_t>(1, kMinParallelElements / per_task), body);
  }
}

}  // namespace

Status Reduce(const ReduceLoop& loop, ThreadPool* pool) {
  if (loop.reducer == Reducer::kNone || loop.dims.size() != loop.reduced.size()) {
    return InvalidArgumentError("reduce loop: no reducer, or reduced flags for other dims");
  }
  const MergedDims m = Merge(loop.dims, loop.reduced);
  int64_t num_in = 1, num_out = 1;
  for (size_t d = 0; d < loop.dims.size(); ++d) {
    num_in *= loop.dims[d];
    if (loop.reduced[d] == 0) num_out *= loop.dims[d];
  }
  return DispatchElementType(loop.type, "reduce", [&]<typename T>() -> Status {
    DispatchReducer(loop.reducer, [&]<Reducer R>() {
      FastReduce<R, T>(static_cast<const T*>(loop.in), static_cast<T*>(loop.out),
                       *static_cast<const T*>(loop.init), m, num_out, num_in, pool);
    });
    return OkStatus();
  });
}

}  // namespace berth::cpu::isa
