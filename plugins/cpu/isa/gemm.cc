// Matrix products (gemm.hpp) for one ISA variant: the classic blocked GEMM
// of GotoBLAS and BLIS. A block of B (kc x nc) is packed into panels nr
// columns wide, a block of A (mc x kc) into panels mr rows high, and a
// register-blocked micro-kernel computes each mr x nr tile of C from one A
// panel and one B panel: per step p it loads nr values of B as vectors,
// broadcasts each of the mr values of A, and accumulates with a fused
// multiply-add. The B panel (kc x nr) stays in L1 while the kernel walks
// down the A block, the A block in L2, the B block in L3.
//
// The tile accumulators start from C's current values for every kc block
// after the first (from +0 for the first), so each element is one fma chain
// over k in order whatever the block sizes and the split over threads.
// Threads take disjoint tiles of C (whole rows of blocks), never parts of k.
#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

#include <immintrin.h>

#include "interpreter/parallel.hpp"
#include "interpreter/storage.hpp"
#include "isa/exact_fma.hpp"
#include "isa/gemm.hpp"
#include "isa/variant.hpp"

namespace berth::cpu::isa {
namespace {

// ------------------------------------------------------------------ vectors
//
// Per element type, what the kernel computes with: `P` the packed element
// (float or double; double for f32 on x86-64-v2, where the exact fma works
// in double), `V` a vector of kWidth P, and Load / Broadcast / Fma / Store.

#if defined(__AVX512F__)

struct VecF32 {
  using T = float;
  using P = float;
  using V = __m512;
  static constexpr int kWidth = 16;
  static V Zero() { return _mm512_setzero_ps(); }
  static V Load(const P* p) { return _mm512_loadu_ps(p); }
  static V Broadcast(const P* p) { return _mm512_set1_ps(*p); }
  static V Fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static void Store(P* p, V v) { _mm512_storeu_ps(p, v); }
};
struct VecF64 {
  using T = double;
  using P = double;
  using V = __m512d;
  static constexpr int kWidth = 8;
  static V Zero() { return _mm512_setzero_pd(); }
  static V Load(const P* p) { return _mm512_loadu_pd(p); }
  static V Broadcast(const P* p) { return _mm512_set1_pd(*p); }
  static V Fma(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
  static void Store(P* p, V v) { _mm512_storeu_pd(p, v); }
};

// 24 accumulators, 2 B vectors and a broadcast of the 32 registers.
constexpr int kMrF32 = 12, kVectorsF32 = 2, kKcF32 = 256, kMcF32 = 192, kNcF32 = 1024;
constexpr int kMrF64 = 12, kVectorsF64 = 2, kKcF64 = 256, kMcF64 = 96, kNcF64 = 2048;

#elif defined(__AVX2__) && defined(__FMA__)

struct VecF32 {
  using T = float;
  using P = float;
  using V = __m256;
  static constexpr int kWidth = 8;
  static V Zero() { return _mm256_setzero_ps(); }
  static V Load(const P* p) { return _mm256_loadu_ps(p); }
  static V Broadcast(const P* p) { return _mm256_broadcast_ss(p); }
  static V Fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static void Store(P* p, V v) { _mm256_storeu_ps(p, v); }
};
struct VecF64 {
  using T = double;
  using P = double;
  using V = __m256d;
  static constexpr int kWidth = 4;
  static V Zero() { return _mm256_setzero_pd(); }
  static V Load(const P* p) { return _mm256_loadu_pd(p); }
  static V Broadcast(const P* p) { return _mm256_broadcast_sd(p); }
  static V Fma(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  static void Store(P* p, V v) { _mm256_storeu_pd(p, v); }
};

// 12 accumulators, 2 B vectors and a broadcast of the 16 registers.
constexpr int kMrF32 = 6, kVectorsF32 = 2, kKcF32 = 256, kMcF32 = 120, kNcF32 = 512;
constexpr int kMrF64 = 6, kVectorsF64 = 2, kKcF64 = 256, kMcF64 = 60, kNcF64 = 2048;

#else  // x86-64-v2: SSE, no FMA instructions

template <typename Element, exact::D2 (*kFma)(exact::D2, exact::D2, exact::D2)>
struct VecExact {
  using T = Element;
  using P = double;
  using V = exact::D2;
  static constexpr int kWidth = 2;
  static V Zero() { return V{0.0, 0.0}; }
  static V Load(const P* p) {
    V v;
    std::memcpy(&v, p, sizeof(v));
    return v;
  }
  static V Broadcast(const P* p) { return V{*p, *p}; }
  static V Fma(V a, V b, V c) { return kFma(a, b, c); }
  static void Store(P* p, V v) { std::memcpy(p, &v, sizeof(v)); }
};
using VecF32 = VecExact<float, exact::FmaF32>;
using VecF64 = VecExact<double, exact::FmaF64>;

constexpr int kMrF32 = 4, kVectorsF32 = 2, kKcF32 = 256, kMcF32 = 64, kNcF32 = 2048;
constexpr int kMrF64 = 4, kVectorsF64 = 2, kKcF64 = 256, kMcF64 = 64, kNcF64 = 2048;

#endif

template <typename S>
struct Blocking;
template <>
struct Blocking<VecF32> {
  static constexpr int kMr = kMrF32, kNr = kVectorsF32 * VecF32::kWidth;
  static constexpr int64_t kKc = kKcF32, kMc = kMcF32, kNc = kNcF32;
};
template <>
struct Blocking<VecF64> {
  static constexpr int kMr = kMrF64, kNr = kVectorsF64 * VecF64::kWidth;
  static constexpr int64_t kKc = kKcF64, kMc = kMcF64, kNc = kNcF64;
};

// ------------------------------------------------------------- micro-kernel

constexpr int64_t kPrefetchSteps = 8;

// C[0..kMr) x [0..kNr) (rows `ldc` apart) from a packed A panel (kMr values
// per step) and B panel (kNr values per step) over `kc` steps; C's values
// are the chains' starting points unless `first`.
template <typename S>
__attribute__((always_inline)) inline void MicroKernel(int64_t kc, const typename S::P* a,
                                                       const typename S::P* b, typename S::P* c,
                                                       int64_t ldc, bool first) {
  using V = typename S::V;
  constexpr int kMr = Blocking<S>::kMr;
  constexpr int kVectors = Blocking<S>::kNr / S::kWidth;
  V acc[kMr][kVectors];
#pragma GCC unroll 16
  for (int i = 0; i < kMr; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) {
      acc[i][v] = first ? S::Zero() : S::Load(c + i * ldc + v * S::kWidth);
    }
  }
#pragma GCC unroll 4
  for (int64_t p = 0; p < kc; ++p) {
    // The B panel streams from L2; ask for it a few steps ahead.
    __builtin_prefetch(b + kPrefetchSteps * Blocking<S>::kNr);
    __builtin_prefetch(b + kPrefetchSteps * Blocking<S>::kNr + 64 / sizeof(*b));
    V bv[kVectors];
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) bv[v] = S::Load(b + v * S::kWidth);
#pragma GCC unroll 16
    for (int i = 0; i < kMr; ++i) {
      const V av = S::Broadcast(a + i);
#pragma GCC unroll 4
      for (int v = 0; v < kVectors; ++v) acc[i][v] = S::Fma(av, bv[v], acc[i][v]);
    }
    a += kMr;
    b += Blocking<S>::kNr;
  }
#pragma GCC unroll 16
  for (int i = 0; i < kMr; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) S::Store(c + i * ldc + v * S::kWidth, acc[i][v]);
  }
}

// ------------------------------------------------------------------ packing

// B(pc .. pc+kc, jc .. jc+nc) as panels of kNr columns, zero beyond n.
template <typename S>
void PackB(const GemmProblem<typename S::T>& g, int64_t pc, int64_t kc, int64_t jc, int64_t nc,
           typename S::P* out) {
  constexpr int kNr = Blocking<S>::kNr;
  using P = typename S::P;
  for (int64_t j0 = 0; j0 < nc; j0 += kNr) {
    const int64_t cols = std::min<int64_t>(kNr, nc - j0);
    const auto* base = g.b + pc * g.b_row_stride + (jc + j0) * g.b_col_stride;
    if (cols == kNr && g.b_col_stride == 1) {
      for (int64_t p = 0; p < kc; ++p, out += kNr) {
        const auto* row = base + p * g.b_row_stride;
        for (int j = 0; j < kNr; ++j) out[j] = static_cast<P>(row[j]);
      }
    } else {
      for (int64_t p = 0; p < kc; ++p, out += kNr) {
        const auto* row = base + p * g.b_row_stride;
        int64_t j = 0;
        for (; j < cols; ++j) out[j] = static_cast<P>(row[j * g.b_col_stride]);
        for (; j < kNr; ++j) out[j] = P{0};
      }
    }
  }
}

// A(ic .. ic+mc, pc .. pc+kc) as panels of kMr rows, zero beyond m.
template <typename S>
void PackA(const GemmProblem<typename S::T>& g, int64_t ic, int64_t mc, int64_t pc, int64_t kc,
           typename S::P* out) {
  constexpr int kMr = Blocking<S>::kMr;
  using P = typename S::P;
  for (int64_t i0 = 0; i0 < mc; i0 += kMr) {
    const int64_t rows = std::min<int64_t>(kMr, mc - i0);
    const auto* base = g.a + (ic + i0) * g.a_row_stride + pc * g.a_col_stride;
    if (g.a_row_stride == 1) {
      // Columns of A are contiguous (A is read transposed).
      for (int64_t p = 0; p < kc; ++p, out += kMr) {
        const auto* col = base + p * g.a_col_stride;
        int64_t i = 0;
        for (; i < rows; ++i) out[i] = static_cast<P>(col[i]);
        for (; i < kMr; ++i) out[i] = P{0};
      }
    } else {
      for (int64_t i = 0; i < kMr; ++i) {
        P* o = out + i;
        if (i < rows) {
          const auto* row = base + i * g.a_row_stride;
          for (int64_t p = 0; p < kc; ++p) o[p * kMr] = static_cast<P>(row[p * g.a_col_stride]);
        } else {
          for (int64_t p = 0; p < kc; ++p) o[p * kMr] = P{0};
        }
      }
      out += kc * kMr;
    }
  }
}

// ------------------------------------------------------------------- driver

// Packing buffers from the plugin's storage pool (no fresh pages per call).
template <typename P>
struct Scratch {
  std::shared_ptr<Storage> storage;
  P* data() { return reinterpret_cast<P*>(storage->data()); }
};

template <typename P>
Result<Scratch<P>> Allocate(int64_t elements) {
  try {
    return Scratch<P>{Storage::Allocate(static_cast<size_t>(elements) * sizeof(P))};
  } catch (const std::bad_alloc&) {
    return ResourceExhaustedError("dot_general: out of memory for " +
                                  std::to_string(elements * static_cast<int64_t>(sizeof(P))) +
                                  " bytes of packed operands");
  }
}

// Copies between a C tile and a dense kMr x kNr tile of P.
template <typename S>
void LoadTile(const GemmProblem<typename S::T>& g, int64_t i0, int64_t j0, int64_t rows,
              int64_t cols, typename S::P* tile) {
  constexpr int kNr = Blocking<S>::kNr;
  for (int64_t i = 0; i < rows; ++i) {
    const auto* c = g.c + (i0 + i) * g.c_row_stride + j0 * g.c_col_stride;
    for (int64_t j = 0; j < cols; ++j) tile[i * kNr + j] = static_cast<typename S::P>(c[j * g.c_col_stride]);
  }
}

template <typename S>
void StoreTile(const GemmProblem<typename S::T>& g, int64_t i0, int64_t j0, int64_t rows,
               int64_t cols, const typename S::P* tile) {
  constexpr int kNr = Blocking<S>::kNr;
  for (int64_t i = 0; i < rows; ++i) {
    auto* c = g.c + (i0 + i) * g.c_row_stride + j0 * g.c_col_stride;
    for (int64_t j = 0; j < cols; ++j) {
      c[j * g.c_col_stride] = static_cast<typename S::T>(tile[i * kNr + j]);
    }
  }
}

// C rows [row_begin, row_end) x columns [col_begin, col_end), every k.
template <typename S>
Status GemmRange(const GemmProblem<typename S::T>& g, int64_t row_begin, int64_t row_end,
                 int64_t col_begin, int64_t col_end) {
  using P = typename S::P;
  constexpr int kMr = Blocking<S>::kMr, kNr = Blocking<S>::kNr;
  constexpr bool kDirect = std::is_same_v<P, typename S::T>;
  const int64_t kc_max = std::min<int64_t>(Blocking<S>::kKc, g.k);
  const int64_t mc_max = std::min<int64_t>(Blocking<S>::kMc, row_end - row_begin);
  const int64_t nc_max = std::min<int64_t>(Blocking<S>::kNc, col_end - col_begin);
  auto round_up = [](int64_t x, int64_t to) { return (x + to - 1) / to * to; };
  BERTH_ASSIGN_OR_RETURN(Scratch<P> b_pack, Allocate<P>(kc_max * round_up(nc_max, kNr)));
  BERTH_ASSIGN_OR_RETURN(Scratch<P> a_pack, Allocate<P>(kc_max * round_up(mc_max, kMr)));
  alignas(64) P tile[kMr * kNr];
  const bool c_rows_contiguous = g.c_col_stride == 1;

  for (int64_t jc = col_begin; jc < col_end; jc += nc_max) {
    const int64_t nc = std::min(nc_max, col_end - jc);
    for (int64_t pc = 0; pc < g.k; pc += kc_max) {
      const int64_t kc = std::min(kc_max, g.k - pc);
      const bool first = pc == 0;
      PackB<S>(g, pc, kc, jc, nc, b_pack.data());
      for (int64_t ic = row_begin; ic < row_end; ic += mc_max) {
        const int64_t mc = std::min(mc_max, row_end - ic);
        PackA<S>(g, ic, mc, pc, kc, a_pack.data());
        for (int64_t ir = 0; ir < mc; ir += kMr) {
          const int64_t rows = std::min<int64_t>(kMr, mc - ir);
          const P* a_panel = a_pack.data() + ir * kc;
          for (int64_t jr = 0; jr < nc; jr += kNr) {
            const int64_t cols = std::min<int64_t>(kNr, nc - jr);
            const P* b_panel = b_pack.data() + jr * kc;
            const int64_t i0 = ic + ir, j0 = jc + jr;
            if constexpr (kDirect) {
              if (rows == kMr && cols == kNr && c_rows_contiguous) {
                MicroKernel<S>(kc, a_panel, b_panel, g.c + i0 * g.c_row_stride + j0,
                               g.c_row_stride, first);
                continue;
              }
            }
            if (!first) LoadTile<S>(g, i0, j0, rows, cols, tile);
            MicroKernel<S>(kc, a_panel, b_panel, tile, kNr, first);
            StoreTile<S>(g, i0, j0, rows, cols, tile);
          }
        }
      }
    }
  }
  return OkStatus();
}

// Below this many multiply-adds a product runs on the calling thread.
constexpr int64_t kMinParallelWork = int64_t{1} << 21;

template <typename S>
Status Gemm(const GemmProblem<typename S::T>& problem, ThreadPool* pool) {
  GemmProblem<typename S::T> g = problem;
  if (g.m <= 0 || g.n <= 0) return OkStatus();
  if (g.k <= 0) {
    for (int64_t i = 0; i < g.m; ++i) {
      for (int64_t j = 0; j < g.n; ++j) g.c[i * g.c_row_stride + j * g.c_col_stride] = 0;
    }
    return OkStatus();
  }
  // A product with few columns runs transposed (C' = B' A'), so that its
  // vectors run along the longer side.
  if (g.n < Blocking<S>::kNr && g.m > g.n) {
    std::swap(g.m, g.n);
    std::swap(g.a, g.b);
    std::swap(g.a_row_stride, g.b_col_stride);
    std::swap(g.a_col_stride, g.b_row_stride);
    std::swap(g.c_row_stride, g.c_col_stride);
  }
  const int64_t work = g.m * g.n * g.k;
  const int64_t threads = pool != nullptr ? static_cast<int64_t>(pool->size()) : 1;
  if (threads <= 1 || work < kMinParallelWork) return GemmRange<S>(g, 0, g.m, 0, g.n);

  // One tile of C per thread: the longer side split into equal runs of
  // whole register tiles.
  const bool split_rows = g.m >= g.n;
  const int64_t extent = split_rows ? g.m : g.n;
  const int64_t unit = split_rows ? Blocking<S>::kMr : Blocking<S>::kNr;
  const int64_t units = (extent + unit - 1) / unit;
  const int64_t parts = std::min(threads, units);
  const int64_t per_part = (units + parts - 1) / parts * unit;
  std::vector<Status> status(static_cast<size_t>(parts));
  ParallelFor(pool, parts, 1, [&](int64_t begin, int64_t end) {
    for (int64_t part = begin; part < end; ++part) {
      const int64_t lo = part * per_part, hi = std::min(extent, lo + per_part);
      if (lo >= hi) continue;
      status[static_cast<size_t>(part)] =
          split_rows ? GemmRange<S>(g, lo, hi, 0, g.n) : GemmRange<S>(g, 0, g.m, lo, hi);
    }
  });
  for (const Status& s : status) BERTH_RETURN_IF_ERROR(s);
  return OkStatus();
}

// ------------------------------------------------------------- fma rows

// c[x] = fma(a[x], b[x], c[x]) for x in [0, n), in vectors of S; the last,
// partial vector (and every vector where S computes in a wider type) runs on
// copies padded with zeros.
template <typename S>
inline void FmaRow(const typename S::T* a, const typename S::T* b, typename S::T* c, int64_t n) {
  using T = typename S::T;
  using P = typename S::P;
  constexpr int kWidth = S::kWidth;
  int64_t x = 0;
  if constexpr (std::is_same_v<P, T>) {
    for (; x + kWidth <= n; x += kWidth) {
      S::Store(c + x, S::Fma(S::Load(a + x), S::Load(b + x), S::Load(c + x)));
    }
  }
  while (x < n) {
    const int64_t count = std::min<int64_t>(kWidth, n - x);
    alignas(64) P pa[kWidth] = {}, pb[kWidth] = {}, pc[kWidth] = {};
    for (int64_t w = 0; w < count; ++w) {
      pa[w] = static_cast<P>(a[x + w]);
      pb[w] = static_cast<P>(b[x + w]);
      pc[w] = static_cast<P>(c[x + w]);
    }
    S::Store(pc, S::Fma(S::Load(pa), S::Load(pb), S::Load(pc)));
    for (int64_t w = 0; w < count; ++w) c[x + w] = static_cast<T>(pc[w]);
    x += count;
  }
}

template <typename S>
void FmaRows(const typename S::T* a, const typename S::T* b, typename S::T* c, int64_t k,
             int64_t m, int64_t n) {
  for (int64_t i = 0; i < k; ++i) {
    for (int64_t j = 0; j < m; ++j) FmaRow<S>(a + i * n, b + (i * m + j) * n, c + j * n, n);
  }
}

}  // namespace

void FmaRowsF32(const float* a, const float* b, float* c, int64_t k, int64_t m, int64_t n) {
  FmaRows<VecF32>(a, b, c, k, m, n);
}

void FmaRowsF64(const double* a, const double* b, double* c, int64_t k, int64_t m, int64_t n) {
  FmaRows<VecF64>(a, b, c, k, m, n);
}

Status GemmF32(const GemmProblem<float>& problem, ThreadPool* pool) {
  return Gemm<VecF32>(problem, pool);
}

Status GemmF64(const GemmProblem<double>& problem, ThreadPool* pool) {
  return Gemm<VecF64>(problem, pool);
}

}  // namespace berth::cpu::isa
