// stablehlo.cholesky: the Cholesky factor of each matrix of a batch
// [..., n, n]. lower = true gives L with a = L L^H, reading only the lower
// triangle of a; lower = false (the default) gives U with a = U^H U,
// reading only the upper triangle (^H: the conjugate transpose, the
// transpose for real types). The other triangle of the result is
// zero. A matrix that is not positive definite (a pivot that is not > 0,
// NaN included) gives NaN in every element of its result, as JAX's
// cholesky reports failure.
//
// f16, bf16, f32 and f64 factor in double (Cholesky-Banachiewicz, row by
// row, each sum in index order) and round each element once; complex<f32>
// and complex<f64> in complex<double> the same way (the diagonal's
// imaginary parts are ignored, the pivots real). Plain scalar code in the plugin's
// baseline build, so the same bits on every CPU.
#include <cmath>
#include <complex>
#include <limits>

#include "interpreter/data_movement.hpp"
#include "interpreter/element_types.hpp"
#include "interpreter/elementwise_blocks.hpp"
#include "interpreter/parallel.hpp"

namespace berth::cpu {
namespace {

double Conj(double x) { return x; }
std::complex<double> Conj(std::complex<double> x) { return std::conj(x); }
double RealPart(double x) { return x; }
double RealPart(std::complex<double> x) { return x.real(); }

// Factors the symmetric (Hermitian) matrix held in `m` (n x n, row-major;
// only the lower triangle read) in place into L. False when it is not
// positive definite. W is double or std::complex<double>.
template <typename W>
bool FactorLower(W* m, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    W* row_i = m + i * n;
    for (int64_t j = 0; j <= i; ++j) {
      const W* row_j = m + j * n;
      W sum = row_i[j];
      for (int64_t k = 0; k < j; ++k) sum -= row_i[k] * Conj(row_j[k]);
      if (i == j) {
        const double pivot = RealPart(sum);
        if (!(pivot > 0)) return false;
        row_i[i] = W(std::sqrt(pivot));
      } else {
        row_i[j] = sum / RealPart(row_j[j]);
      }
    }
  }
  return true;
}

// T's value in the work type W, and back (rounded once).
template <typename T>
auto ToWork(T v) {
  if constexpr (kIsComplex<T>) {
    return std::complex<double>(v.real(), v.imag());
  } else {
    return static_cast<double>(static_cast<elementwise::Calc<T>>(v));
  }
}

template <typename T, typename W>
T FromWork(W v) {
  if constexpr (kIsComplex<T>) {
    using R = typename T::value_type;
    return T(static_cast<R>(v.real()), static_cast<R>(v.imag()));
  } else {
    return elementwise::FromDouble<T>(v);
  }
}

template <typename T>
void CholeskyBatch(const T* in, T* out, int64_t n, bool lower, int64_t begin, int64_t end) {
  using W = decltype(ToWork(T{}));
  std::vector<W> m(static_cast<size_t>(n * n));
  for (int64_t b = begin; b < end; ++b) {
    const T* a = in + b * n * n;
    T* r = out + b * n * n;
    // m's lower triangle: a's lower triangle, or the conjugate transpose of
    // its upper.
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j <= i; ++j) {
        W v = lower ? ToWork(a[i * n + j]) : Conj(ToWork(a[j * n + i]));
        m[static_cast<size_t>(i * n + j)] = v;
      }
    }
    if (!FactorLower(m.data(), n)) {
      T nan = FromWork<T>(W(std::numeric_limits<double>::quiet_NaN()));
      if constexpr (kIsComplex<T>) nan = T(nan.real(), nan.real());
      std::fill(r, r + n * n, nan);
      continue;
    }
    const T zero = FromWork<T>(W(0.0));
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        // L[i][j] for i >= j; U = L^H.
        int64_t li = lower ? i : j, lj = lower ? j : i;
        W v = m[static_cast<size_t>(li * n + lj)];
        r[i * n + j] = lj <= li ? FromWork<T>(lower ? v : Conj(v)) : zero;
      }
    }
  }
}

Status Cholesky(KernelCall& call) {
  const Tensor& a = call.operands[0];
  if (!a.is_tensor() || a.rank() < 2 || a.dims()[a.rank() - 1] != a.dims()[a.rank() - 2]) {
    return InvalidArgumentError("operand must be a batch of square matrices, is " + a.TypeString());
  }
  BERTH_RETURN_IF_ERROR(CheckSupported(a.type(), "stablehlo.cholesky"));
  const bool lower = call.op.GetBool("lower", false);
  const int64_t n = a.dims().back();
  const int64_t batch = n == 0 ? 0 : a.num_elements() / (n * n);
  BERTH_ASSIGN_OR_RETURN(Tensor out, AllocateResult(call, 0, a.dims()));
  Status status =
      DispatchElementTypeOrComplex(a.type(), "stablehlo.cholesky", [&]<typename T>() -> Status {
        if constexpr (!kIsFloat<T> && !kIsComplex<T>) {
          return InvalidArgumentError("stablehlo.cholesky is not defined on " + a.TypeString());
        } else {
          const T* in = a.data<T>();
          T* result = out.data<T>();
          // Small matrices several to a task, large ones one each.
          int64_t per_task = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, n * n * n));
          ParallelFor(call.ctx.pool(), batch, per_task, [&](int64_t begin, int64_t end) {
            CholeskyBatch<T>(in, result, n, lower, begin, end);
          });
          return OkStatus();
        }
      });
  BERTH_RETURN_IF_ERROR(status);
  call.results.push_back(std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterCholeskyKernel(KernelRegistry& registry) {
  registry.Register(stablehlo::OpKind::kCholesky, Cholesky);
}

}  // namespace berth::cpu
