// stablehlo.dot_general and the legacy stablehlo.dot.
//
// Both operands are brought to [batch, M, K] and [batch, K, N] (batch, free
// and contracting dims each collapsed in the order the op lists them); an
// operand already laid out that way, or as [batch, K, M] / [batch, N, K],
// is used in place, otherwise it is copied once. The result is [batch, M, N],
// which is the result's own layout.
//
// Arithmetic by element types:
// - any float (operands or result): f64 when one of them is f64, else f32,
//   through the GEMM of the selected ISA variant (isa/gemm.hpp: per element
//   one fma chain over k, identical on every CPU); f16/bf16 operands are
//   widened and the result rounded once;
// - integers: exact, wrapping in the result type (operands are converted to
//   it first, which keeps the product modulo 2^bits);
// - i1: or over and, per the spec;
// - complex (an operand or the result complex): complex<f64> when one of
//   them is complex<f64> or f64, else complex<f32>; per element one sum
//   over k in order of (ar br - ai bi) + i (ar bi + ai br), each product and
//   sum rounded (no Annex G recovery of infinities, as XLA's CPU backend).
// precision_config and algorithm are accepted and ignored: the CPU always
// computes at full precision of the types above.
#include <algorithm>
#include <cstring>

#include "interpreter/narrow_types.hpp"
#include "interpreter/parallel.hpp"
#include "interpreter/reduction.hpp"
#include "isa/isa.hpp"

namespace berth::cpu {
namespace {

using stablehlo::OpKind;

// Per-batch work (M*N*K) from which a product gets all threads; smaller
// products run one per thread across the batch.
constexpr int64_t kThreadedGemmWork = int64_t{1} << 21;

struct DotDims {
  std::vector<int64_t> lhs_batch, rhs_batch, lhs_contract, rhs_contract;
};

// Dims of a rank-`rank` operand that are neither batch nor contracting.
std::vector<int64_t> FreeDims(int64_t rank, const std::vector<int64_t>& batch,
                              const std::vector<int64_t>& contract) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
        std::find(contract.begin(), contract.end(), d) == contract.end()) {
      free.push_back(d);
    }
  }
  return free;
}

std::vector<int64_t> Concat(std::initializer_list<const std::vector<int64_t>*> parts) {
  std::vector<int64_t> out;
  for (const std::vector<int64_t>* p : parts) out.insert(out.end(), p->begin(), p->end());
  return out;
}

// An operand as a batch of matrices: `data` holds `batch` row-major
// matrices of rows x cols, read transposed when `transposed` (then each
// stored matrix is cols x rows).
struct Operand {
  Tensor tensor;
  bool transposed = false;
};

// Lays `t` out as [batch, rows, cols] (dims `rows_dims`/`cols_dims`), or
// [batch, cols, rows] when that is free, in element type `type`.
Result<Operand> Canonical(const Tensor& t, const std::vector<int64_t>& batch,
                          const std::vector<int64_t>& rows, const std::vector<int64_t>& cols,
                          ElementType type, bool allow_transposed, ThreadPool* pool) {
  Operand op;
  std::vector<int64_t> straight = Concat({&batch, &rows, &cols});
  std::vector<int64_t> swapped = Concat({&batch, &cols, &rows});
  const std::vector<int64_t>* perm = &straight;
  if (!IsIdentityPermutation(straight) && allow_transposed && IsIdentityPermutation(swapped)) {
    perm = &swapped;
    op.transposed = true;
  }
  BERTH_ASSIGN_OR_RETURN(Tensor converted, ConvertTensor(t, type, pool));
  BERTH_ASSIGN_OR_RETURN(op.tensor, PermuteDims(converted, *perm, pool));
  return op;
}

// Float products through the selected ISA variant's GEMM (isa/gemm.hpp):
// each result element is one fused multiply-add chain over k, the same bits
// on every CPU. T = float or double.
template <typename T>
Status FloatDot(const Operand& lhs, const Operand& rhs, Tensor& out, int64_t batch, int64_t m,
                int64_t k, int64_t n, ThreadPool* pool) {
  const isa::Kernels& kernels = isa::Active();
  auto gemm = [&](int64_t i, ThreadPool* threads) {
    isa::GemmProblem<T> g;
    g.m = m;
    g.n = n;
    g.k = k;
    // A transposed operand is stored k x m (lhs) or n x k (rhs).
    g.a = lhs.tensor.data<T>() + i * m * k;
    g.a_row_stride = lhs.transposed ? 1 : k;
    g.a_col_stride = lhs.transposed ? m : 1;
    g.b = rhs.tensor.data<T>() + i * k * n;
    g.b_row_stride = rhs.transposed ? 1 : n;
    g.b_col_stride = rhs.transposed ? k : 1;
    g.c = out.data<T>() + i * m * n;
    g.c_row_stride = n;
    g.c_col_stride = 1;
    if constexpr (std::is_same_v<T, float>) {
      return kernels.gemm_f32(g, threads);
    } else {
      return kernels.gemm_f64(g, threads);
    }
  };
  if (batch == 1 || m * n * k >= kThreadedGemmWork) {
    for (int64_t i = 0; i < batch; ++i) BERTH_RETURN_IF_ERROR(gemm(i, pool));
    return OkStatus();
  }
  // Small products of a batch run one per thread.
  std::vector<Status> status(static_cast<size_t>(batch));
  ParallelFor(pool, batch, std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(1, m * n * k)),
              [&](int64_t begin, int64_t end) {
                for (int64_t i = begin; i < end; ++i) status[static_cast<size_t>(i)] = gemm(i, nullptr);
              });
  for (const Status& s : status) BERTH_RETURN_IF_ERROR(s);
  return OkStatus();
}

// Exact integer (wrapping) or i1 (or over and) products; operands canonical
// and not transposed.
template <typename T>
void ExactDot(const T* a, const T* b, T* c, int64_t batch, int64_t m, int64_t k, int64_t n,
              ThreadPool* pool) {
  using W = typename detail::ExactAccumulator<T>::type;
  int64_t work_per_row = std::max<int64_t>(1, k * n);
  ParallelFor(pool, batch * m, std::max<int64_t>(1, (1 << 15) / work_per_row),
              [&](int64_t begin, int64_t end) {
                std::vector<W> acc(static_cast<size_t>(n));
                for (int64_t row = begin; row < end; ++row) {
                  int64_t i = row / m;
                  const T* arow = a + row * k;
                  const T* bmat = b + i * k * n;
                  std::fill(acc.begin(), acc.end(), W{});
                  for (int64_t kk = 0; kk < k; ++kk) {
                    W x = static_cast<W>(arow[kk]);
                    const T* brow = bmat + kk * n;
                    if constexpr (std::is_same_v<T, bool>) {
                      if (!x) continue;
                      for (int64_t j = 0; j < n; ++j) acc[j] = acc[j] || brow[j];
                    } else {
                      for (int64_t j = 0; j < n; ++j) acc[j] = static_cast<W>(acc[j] + x * static_cast<W>(brow[j]));
                    }
                  }
                  T* crow = c + row * n;
                  for (int64_t j = 0; j < n; ++j) crow[j] = static_cast<T>(acc[j]);
                }
              });
}

// Complex products; operands canonical and not transposed.
template <typename T>
void ComplexDot(const T* a, const T* b, T* c, int64_t batch, int64_t m, int64_t k, int64_t n,
                ThreadPool* pool) {
  using R = typename T::value_type;
  int64_t work_per_row = std::max<int64_t>(1, k * n);
  ParallelFor(pool, batch * m, std::max<int64_t>(1, (1 << 14) / work_per_row),
              [&](int64_t begin, int64_t end) {
                std::vector<R> re(static_cast<size_t>(n)), im(static_cast<size_t>(n));
                for (int64_t row = begin; row < end; ++row) {
                  const T* arow = a + row * k;
                  const T* bmat = b + (row / m) * k * n;
                  std::fill(re.begin(), re.end(), R(0));
                  std::fill(im.begin(), im.end(), R(0));
                  for (int64_t kk = 0; kk < k; ++kk) {
                    const R ar = arow[kk].real(), ai = arow[kk].imag();
                    const T* brow = bmat + kk * n;
                    for (int64_t j = 0; j < n; ++j) {
                      const R br = brow[j].real(), bi = brow[j].imag();
                      re[j] += ar * br - ai * bi;
                      im[j] += ar * bi + ai * br;
                    }
                  }
                  T* crow = c + row * n;
                  for (int64_t j = 0; j < n; ++j) crow[j] = T(re[j], im[j]);
                }
              });
}

Status Dot(KernelCall& call, const DotDims& dims) {
  const Tensor& lhs = call.operands[0];
  const Tensor& rhs = call.operands[1];
  ThreadPool* pool = call.ctx.pool();
  const ElementType result_type = call.op.result(0)->type().element_type();
  BERTH_ASSIGN_OR_RETURN(const ElementType compute, ProductComputeType(call));
  std::vector<int64_t> lhs_free = FreeDims(lhs.rank(), dims.lhs_batch, dims.lhs_contract);
  std::vector<int64_t> rhs_free = FreeDims(rhs.rank(), dims.rhs_batch, dims.rhs_contract);
  auto product = [](const Tensor& t, const std::vector<int64_t>& ds) {
    int64_t p = 1;
    for (int64_t d : ds) p *= t.dims()[static_cast<size_t>(d)];
    return p;
  };
  for (size_t i = 0; i < dims.lhs_batch.size(); ++i) {
    if (lhs.dims()[dims.lhs_batch[i]] != rhs.dims()[dims.rhs_batch[i]]) {
      return InvalidArgumentError("batching dimension sizes differ");
    }
  }
  for (size_t i = 0; i < dims.lhs_contract.size(); ++i) {
    if (lhs.dims()[dims.lhs_contract[i]] != rhs.dims()[dims.rhs_contract[i]]) {
      return InvalidArgumentError("contracting dimension sizes differ");
    }
  }
  const int64_t batch = product(lhs, dims.lhs_batch);
  const int64_t m = product(lhs, lhs_free);
  const int64_t k = product(lhs, dims.lhs_contract);
  const int64_t n = product(rhs, rhs_free);
  std::vector<int64_t> out_dims;
  for (int64_t d : dims.lhs_batch) out_dims.push_back(lhs.dims()[static_cast<size_t>(d)]);
  for (int64_t d : lhs_free) out_dims.push_back(lhs.dims()[static_cast<size_t>(d)]);
  for (int64_t d : rhs_free) out_dims.push_back(rhs.dims()[static_cast<size_t>(d)]);

  const bool is_float = stablehlo::IsFloat(compute);
  BERTH_ASSIGN_OR_RETURN(Operand a, Canonical(lhs, dims.lhs_batch, lhs_free, dims.lhs_contract,
                                              compute, is_float, pool));
  BERTH_ASSIGN_OR_RETURN(Operand b, Canonical(rhs, dims.rhs_batch, dims.rhs_contract, rhs_free,
                                              compute, is_float, pool));
  BERTH_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(compute, out_dims));
  if (out.num_elements() > 0) {
    Status status =
        DispatchElementTypeOrComplex(compute, call.op.name(), [&]<typename T>() -> Status {
          if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
            return FloatDot<T>(a, b, out, batch, m, k, n, pool);
          } else if constexpr (kIsComplex<T>) {
            ComplexDot<T>(a.tensor.data<T>(), b.tensor.data<T>(), out.data<T>(), batch, m, k, n,
                          pool);
          } else if constexpr (!kIsFloat<T>) {
            ExactDot<T>(a.tensor.data<T>(), b.tensor.data<T>(), out.data<T>(), batch, m, k, n,
                        pool);
          }
          return OkStatus();
        });
    BERTH_RETURN_IF_ERROR(status);
  }
  BERTH_ASSIGN_OR_RETURN(Tensor result, ConvertTensor(out, result_type, pool));
  call.results.push_back(std::move(result));
  return OkStatus();
}

Status DotGeneral(KernelCall& call) {
  const stablehlo::DotDimensionNumbers* numbers = call.op.dot_dimension_numbers();
  if (numbers == nullptr) return InvalidArgumentError("dot_general has no dot_dimension_numbers");
  if (call.operands.size() != 2) return InvalidArgumentError("dot_general takes two operands");
  DotDims dims{numbers->lhs_batching_dimensions, numbers->rhs_batching_dimensions,
               numbers->lhs_contracting_dimensions, numbers->rhs_contracting_dimensions};
  if (dims.lhs_batch.size() != dims.rhs_batch.size() ||
      dims.lhs_contract.size() != dims.rhs_contract.size()) {
    return InvalidArgumentError("lhs and rhs list different numbers of dimensions");
  }
  auto in_range = [](const std::vector<int64_t>& ds, int64_t rank) {
    return std::all_of(ds.begin(), ds.end(), [&](int64_t d) { return d >= 0 && d < rank; });
  };
  int64_t lr = call.operands[0].rank(), rr = call.operands[1].rank();
  if (!in_range(dims.lhs_batch, lr) || !in_range(dims.lhs_contract, lr) ||
      !in_range(dims.rhs_batch, rr) || !in_range(dims.rhs_contract, rr)) {
    return InvalidArgumentError("a dimension number is out of range");
  }
  auto unique = [](std::vector<int64_t> ds) {
    std::sort(ds.begin(), ds.end());
    return std::adjacent_find(ds.begin(), ds.end()) == ds.end();
  };
  if (!unique(Concat({&dims.lhs_batch, &dims.lhs_contract})) ||
      !unique(Concat({&dims.rhs_batch, &dims.rhs_contract}))) {
    return InvalidArgumentError("batching and contracting dimensions must not repeat");
  }
  return Dot(call, dims);
}

// dot: lhs rank 1 or 2 contracts its last dim with rhs's first.
Status LegacyDot(KernelCall& call) {
  if (call.operands.size() != 2) return InvalidArgumentError("dot takes two operands");
  int64_t lr = call.operands[0].rank(), rr = call.operands[1].rank();
  if (lr < 1 || lr > 2 || rr < 1 || rr > 2) {
    return InvalidArgumentError("dot operands must have rank 1 or 2");
  }
  return Dot(call, DotDims{{}, {}, {lr - 1}, {0}});
}

}  // namespace

Result<ElementType> ProductComputeType(const KernelCall& call) {
  const ElementType lhs = call.operands[0].type();
  const ElementType rhs = call.operands[1].type();
  const ElementType result = call.op.result(0)->type().element_type();
  for (ElementType t : {lhs, rhs, result}) {
    if (!IsSupportedElementType(t)) return UnsupportedElementType(t, call.op.name());
  }
  using stablehlo::IsComplex;
  using stablehlo::IsFloat;
  if (IsComplex(lhs) || IsComplex(rhs) || IsComplex(result)) {
    bool wide = false;
    for (ElementType t : {lhs, rhs, result}) {
      wide = wide || t == ElementType::kComplex128 || t == ElementType::kF64;
    }
    return wide ? ElementType::kComplex128 : ElementType::kComplex64;
  }
  if (IsFloat(lhs) || IsFloat(rhs) || IsFloat(result)) {
    bool wide = lhs == ElementType::kF64 || rhs == ElementType::kF64 || result == ElementType::kF64;
    return wide ? ElementType::kF64 : ElementType::kF32;
  }
  if (result == ElementType::kI1) {
    bool all_bool = lhs == ElementType::kI1 && rhs == ElementType::kI1;
    return all_bool ? ElementType::kI1 : ElementType::kSI64;
  }
  // A narrow integer result: its byte type wraps as the products must.
  return WideComputeType(result);
}

void RegisterDotKernels(KernelRegistry& registry) {
  registry.Register({{OpKind::kDotGeneral, DotGeneral}, {OpKind::kDot, LegacyDot}});
}

}  // namespace berth::cpu
