// stablehlo.cholesky: the Cholesky factor of each matrix of a batch
// [..., n, n]. lower = true gives L with a = L L^T, reading only the lower
// triangle of a; lower = false (the default) gives U with a = U^T U,
// reading only the upper triangle. The other triangle of the result is
// zero. A matrix that is not positive definite (a pivot that is not > 0,
// NaN included) gives NaN in every element of its result, as JAX's
// cholesky reports failure.
//
// f16, bf16, f32 and f64 factor in double (Cholesky-Banachiewicz, row by
// row, each sum in index order) and round each element once; complex
// element types are not supported. Plain scalar code in the plugin's
// baseline build, so the same bits on every CPU.
#include <cmath>
#include <limits>

#include "interpreter/data_movement.hpp"
#include "interpreter/element_types.hpp"
#include "interpreter/elementwise_blocks.hpp"
#include "interpreter/parallel.hpp"

namespace berth::cpu {
namespace {

// Factors the symmetric matrix held in `m` (n x n, row-major; only the
// lower triangle read) in place into L. False when it is not positive
// definite.
bool FactorLower(double* m, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    double* row_i = m + i * n;
    for (int64_t j = 0; j <= i; ++j) {
      const double* row_j = m + j * n;
      double sum = row_i[j];
      for (int64_t k = 0; k < j; ++k) sum -= row_i[k] * row_j[k];
      if (i == j) {
        if (!(sum > 0)) return false;
        row_i[i] = std::sqrt(sum);
      } else {
        row_i[j] = sum / row_j[j];
      }
    }
  }
  return true;
}

template <typename T>
void CholeskyBatch(const T* in, T* out, int64_t n, bool lower, int64_t begin, int64_t end) {
  std::vector<double> m(static_cast<size_t>(n * n));
  for (int64_t b = begin; b < end; ++b) {
    const T* a = in + b * n * n;
    T* r = out + b * n * n;
    // m's lower triangle: a's lower triangle, or the transpose of its upper.
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j <= i; ++j) {
        T v = lower ? a[i * n + j] : a[j * n + i];
        m[static_cast<size_t>(i * n + j)] = static_cast<double>(static_cast<elementwise::Calc<T>>(v));
      }
    }
    if (!FactorLower(m.data(), n)) {
      T nan = elementwise::FromDouble<T>(std::numeric_limits<double>::quiet_NaN());
      std::fill(r, r + n * n, nan);
      continue;
    }
    const T zero = elementwise::FromDouble<T>(0.0);
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        // L[i][j] for i >= j; U = L^T.
        int64_t li = lower ? i : j, lj = lower ? j : i;
        r[i * n + j] = lj <= li ? elementwise::FromDouble<T>(m[static_cast<size_t>(li * n + lj)]) : zero;
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
  Status status = DispatchElementType(a.type(), "stablehlo.cholesky", [&]<typename T>() -> Status {
    if constexpr (!kIsFloat<T>) {
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
