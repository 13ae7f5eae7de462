// Matrix products for the float paths of dot_general and convolution, and
// the rows of fma steps of depthwise convolutions, compiled once per ISA
// variant (isa.hpp).
//
// What they compute is fixed, so that every variant, block size and thread
// count gives the same bits: each result element is the chain of fused
// multiply-adds over k in order, starting from +0,
//
//   c = +0;  for p in 0 .. k-1:  c = fma(A(i, p), B(p, j), c)
//
// (one rounding per step, as std::fma). AVX2 and AVX-512 variants use the
// FMA instructions; x86-64-v2 has none and emulates them exactly in SSE
// (exact_fma.hpp). A test's scalar loop over std::fma is therefore an exact
// reference; only the payload of a NaN may differ.
#ifndef BERTH_PLUGINS_CPU_ISA_GEMM_HPP_
#define BERTH_PLUGINS_CPU_ISA_GEMM_HPP_

#include <cstdint>

#include "berth/status.hpp"
#include "thread_pool.hpp"

namespace berth::cpu::isa {

// C = A . B for an m x k A and a k x n B with any element strides (a
// transposed operand is only other strides). C must not overlap A or B.
template <typename T>
struct GemmProblem {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  const T* a = nullptr;  // A(i, p) = a[i * a_row_stride + p * a_col_stride]
  int64_t a_row_stride = 0;
  int64_t a_col_stride = 0;
  const T* b = nullptr;  // B(p, j) = b[p * b_row_stride + j * b_col_stride]
  int64_t b_row_stride = 0;
  int64_t b_col_stride = 0;
  T* c = nullptr;        // C(i, j) = c[i * c_row_stride + j * c_col_stride]
  int64_t c_row_stride = 0;
  int64_t c_col_stride = 0;
};

// Splits large products over `pool` (NULL: the calling thread alone).
// RESOURCE_EXHAUSTED when the packing buffers cannot be allocated.
using GemmF32Fn = Status (*)(const GemmProblem<float>& problem, ThreadPool* pool);
using GemmF64Fn = Status (*)(const GemmProblem<double>& problem, ThreadPool* pool);

// For i in [0, k) in order, and every j in [0, m), x in [0, n):
//   c[j * n + x] = fma(a[i * n + x], b[(i * m + j) * n + x], c[j * n + x])
// k steps of m * n independent fma chains (grouped and depthwise
// convolutions: i is the group's input feature, j its output feature, x the
// group), one rounding each, the same bits in every variant (emulated
// exactly on x86-64-v2 as above). `c` must not overlap `a` or `b`.
using FmaRowsF32Fn = void (*)(const float* a, const float* b, float* c, int64_t k, int64_t m,
                              int64_t n);
using FmaRowsF64Fn = void (*)(const double* a, const double* b, double* c, int64_t k, int64_t m,
                              int64_t n);

}  // namespace berth::cpu::isa

#endif  // BERTH_PLUGINS_CPU_ISA_GEMM_HPP_
