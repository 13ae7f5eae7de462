// chlo.ragged_dot: dot_general whose lhs has one ragged dimension cut into
// consecutive groups of `group_sizes` elements (per batch element when
// group_sizes is [batch..., g]); the mode is the ragged dimension's kind:
//
// - mode 1, an lhs free dimension m: the rows of group j multiply the rhs's
//   group j (its group dimension); rows past the groups give 0;
// - mode 2, a contracting dimension k: result [g, batch..., m, n], group j
//   summing over its part of k only;
// - mode 3, a batching dimension: batch elements past the groups give 0.
//
// The operands are laid out as batches of row-major matrices with the
// ragged dimension outermost in its part, so that every group is one block
// of rows (or of the contracting dimension); each (batch, group) block is
// then one product: f32/f64 through the selected ISA variant's GEMM (one
// fma chain per element, as dot_general), f16/bf16 in f32 and rounded
// once, integers exact and wrapping in 64 bits then converted (i1: or of
// ands, as dot_general).
#include <algorithm>
#include <cstring>

#include "interpreter/data_movement.hpp"
#include "interpreter/element_types.hpp"
#include "interpreter/parallel.hpp"
#include "isa/isa.hpp"

namespace berth::cpu {
namespace {

std::vector<int64_t> Without(const std::vector<int64_t>& v, int64_t x) {
  std::vector<int64_t> out;
  for (int64_t d : v) {
    if (d != x) out.push_back(d);
  }
  return out;
}

// Dims of `rank` in none of `lists`, in order.
std::vector<int64_t> Others(int64_t rank, std::initializer_list<const std::vector<int64_t>*> lists) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d) {
    bool taken = false;
    for (const std::vector<int64_t>* l : lists) taken = taken || std::count(l->begin(), l->end(), d) > 0;
    if (!taken) out.push_back(d);
  }
  return out;
}

int64_t Product(const Tensor& t, const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= t.dims()[static_cast<size_t>(d)];
  return p;
}

// One block product C(m x n) += A(m x k) B(k x n), row-major with row
// strides lda, ldb, ldc.
struct Block {
  int64_t m, n, k;
  int64_t a, lda;  // offsets in elements
  int64_t b, ldb;
  int64_t c, ldc;
};

template <typename T>
Status RunFloat(const std::vector<Block>& blocks, const Tensor& a, const Tensor& b, Tensor& c,
                ThreadPool* pool) {
  for (const Block& block : blocks) {
    if (block.m == 0 || block.n == 0 || block.k == 0) continue;  // C stays 0
    isa::GemmProblem<T> problem;
    problem.m = block.m;
    problem.n = block.n;
    problem.k = block.k;
    problem.a = a.data<T>() + block.a;
    problem.a_row_stride = block.lda;
    problem.a_col_stride = 1;
    problem.b = b.data<T>() + block.b;
    problem.b_row_stride = block.ldb;
    problem.b_col_stride = 1;
    problem.c = c.data<T>() + block.c;
    problem.c_row_stride = block.ldc;
    problem.c_col_stride = 1;
    if constexpr (std::is_same_v<T, float>) {
      BERTH_RETURN_IF_ERROR(isa::Active().gemm_f32(problem, pool));
    } else {
      BERTH_RETURN_IF_ERROR(isa::Active().gemm_f64(problem, pool));
    }
  }
  return OkStatus();
}

void RunInteger(const std::vector<Block>& blocks, const Tensor& a, const Tensor& b, Tensor& c) {
  const int64_t* pa = a.data<int64_t>();
  const int64_t* pb = b.data<int64_t>();
  int64_t* pc = c.data<int64_t>();
  for (const Block& block : blocks) {
    for (int64_t i = 0; i < block.m; ++i) {
      for (int64_t j = 0; j < block.n; ++j) {
        uint64_t sum = 0;  // wraps, as the result type's arithmetic
        for (int64_t p = 0; p < block.k; ++p) {
          sum += static_cast<uint64_t>(pa[block.a + i * block.lda + p]) *
                 static_cast<uint64_t>(pb[block.b + p * block.ldb + j]);
        }
        pc[block.c + i * block.ldc + j] = static_cast<int64_t>(sum);
      }
    }
  }
}

Status RaggedDot(KernelCall& call) {
  const stablehlo::RaggedDotDimensionNumbers* numbers = call.op.ragged_dot_dimension_numbers();
  if (numbers == nullptr || numbers->lhs_ragged_dimensions.size() != 1) {
    return InvalidArgumentError("no ragged_dot_dimension_numbers with one lhs ragged dimension");
  }
  const Tensor& lhs = call.operands[0];
  const Tensor& rhs = call.operands[1];
  const Tensor& sizes_tensor = call.operands[2];
  const ElementType out_type = call.op.result(0)->type().element_type();
  BERTH_RETURN_IF_ERROR(CheckSupported(lhs.type(), "chlo.ragged_dot"));
  BERTH_RETURN_IF_ERROR(CheckSupported(out_type, "chlo.ragged_dot"));
  const stablehlo::DotDimensionNumbers& d = numbers->dot;
  const int64_t lr = numbers->lhs_ragged_dimensions[0];
  const auto& lb = d.lhs_batching_dimensions;
  const auto& lc = d.lhs_contracting_dimensions;
  const auto& rb = d.rhs_batching_dimensions;
  const auto& rc = d.rhs_contracting_dimensions;
  const std::vector<int64_t>& rgs = numbers->rhs_group_dimensions;
  const std::vector<int64_t> lf = Others(lhs.rank(), {&lb, &lc});
  const std::vector<int64_t> rf = Others(rhs.rank(), {&rb, &rc, &rgs});
  auto position = [](const std::vector<int64_t>& v, int64_t x) {
    return static_cast<size_t>(std::find(v.begin(), v.end(), x) - v.begin());
  };
  const size_t in_batch = position(lb, lr), in_contract = position(lc, lr);
  const int mode = in_batch < lb.size() ? 3 : in_contract < lc.size() ? 2 : 1;
  if ((mode == 1) != (rgs.size() == 1)) {
    return InvalidArgumentError("an rhs group dimension goes with a ragged lhs free dimension");
  }
  // Canonical layouts: A [outer batch, rows, k], B [groups?, batch, k, n].
  std::vector<int64_t> lhs_perm, rhs_perm;
  auto append = [](std::vector<int64_t>& to, const std::vector<int64_t>& v) { to.insert(to.end(), v.begin(), v.end()); };
  if (mode == 1) {
    append(lhs_perm, lb);
    lhs_perm.push_back(lr);
    append(lhs_perm, Without(lf, lr));
    append(lhs_perm, lc);
    rhs_perm.push_back(rgs[0]);
    append(rhs_perm, rb);
    append(rhs_perm, rc);
    append(rhs_perm, rf);
  } else if (mode == 2) {
    const int64_t rr = rc[in_contract];
    append(lhs_perm, lb);
    append(lhs_perm, lf);
    lhs_perm.push_back(lr);
    append(lhs_perm, Without(lc, lr));
    append(rhs_perm, rb);
    rhs_perm.push_back(rr);
    append(rhs_perm, Without(rc, rr));
    append(rhs_perm, rf);
  } else {
    const int64_t rr = rb[in_batch];
    lhs_perm.push_back(lr);
    append(lhs_perm, Without(lb, lr));
    append(lhs_perm, lf);
    append(lhs_perm, lc);
    rhs_perm.push_back(rr);
    append(rhs_perm, Without(rb, rr));
    append(rhs_perm, rc);
    append(rhs_perm, rf);
  }
  const int64_t batch = Product(lhs, lb);
  const int64_t ragged = lhs.dims()[static_cast<size_t>(lr)];
  const int64_t k = Product(lhs, lc);
  const int64_t n = Product(rhs, rf);
  const int64_t m = Product(lhs, lf);
  // Group boundaries per (flattened) batch element: [start, end) along the
  // ragged dimension, negative sizes as 0, clipped to its size.
  BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, ReadIndices(sizes_tensor, "group_sizes"));
  const int64_t groups = sizes_tensor.rank() == 0 ? 0 : sizes_tensor.dims().back();
  const bool per_batch = sizes_tensor.rank() > 1;
  if (mode == 1 && groups != rhs.dims()[static_cast<size_t>(rgs[0])]) {
    return InvalidArgumentError("group_sizes " + sizes_tensor.TypeString() + " must have one entry per rhs group");
  }
  auto bounds = [&](int64_t b, int64_t j) {
    int64_t start = 0;
    for (int64_t i = 0; i <= j; ++i) {
      int64_t size = std::max<int64_t>(0, sizes[static_cast<size_t>((per_batch ? b * groups : 0) + i)]);
      int64_t end = std::min(ragged, start + size);
      if (i == j) return std::pair<int64_t, int64_t>{start, end};
      start = end;
    }
    return std::pair<int64_t, int64_t>{start, start};
  };
  if (per_batch && static_cast<int64_t>(sizes.size()) != batch * groups) {
    return InvalidArgumentError("group_sizes " + sizes_tensor.TypeString() + " must be [batch..., g]");
  }
  // The products, each one (batch, group) block.
  std::vector<Block> blocks;
  std::vector<int64_t> c_dims;
  if (mode == 1) {
    const int64_t rest = m / std::max<int64_t>(ragged, 1);  // the other lhs free dims
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t j = 0; j < groups; ++j) {
        auto [s, e] = bounds(b, j);
        blocks.push_back({(e - s) * rest, n, k, (b * m + s * rest) * k, k, (j * batch + b) * k * n, n,
                          (b * m + s * rest) * n, n});
      }
    }
    c_dims = {batch, m, n};
  } else if (mode == 2) {
    const int64_t rest = k / std::max<int64_t>(ragged, 1);  // the other contracting dims
    for (int64_t j = 0; j < groups; ++j) {
      for (int64_t b = 0; b < batch; ++b) {
        auto [s, e] = bounds(b, j);
        blocks.push_back({m, n, (e - s) * rest, b * m * k + s * rest, k, (b * k + s * rest) * n, n,
                          (j * batch + b) * m * n, n});
      }
    }
    c_dims = {groups, batch, m, n};
  } else {
    const int64_t inner = batch / std::max<int64_t>(ragged, 1);  // the other batching dims
    auto [s, e] = bounds(0, groups - 1);
    for (int64_t b = 0; b < e * inner; ++b) {
      blocks.push_back({m, n, k, b * m * k, k, b * k * n, n, b * m * n, n});
    }
    c_dims = {batch, m, n};
  }
  // Compute in f32, f64 or i64, C starting at 0.
  ElementType compute = lhs.type() == ElementType::kF64   ? ElementType::kF64
                        : stablehlo::IsFloat(lhs.type()) ? ElementType::kF32
                                                         : ElementType::kSI64;
  BERTH_ASSIGN_OR_RETURN(Tensor a0, ConvertTensor(lhs, compute, call.ctx.pool()));
  BERTH_ASSIGN_OR_RETURN(Tensor b0, ConvertTensor(rhs, compute, call.ctx.pool()));
  BERTH_ASSIGN_OR_RETURN(Tensor a, PermuteDims(a0, lhs_perm, call.ctx.pool()));
  BERTH_ASSIGN_OR_RETURN(Tensor bm, PermuteDims(b0, rhs_perm, call.ctx.pool()));
  BERTH_ASSIGN_OR_RETURN(Tensor c, Tensor::Allocate(compute, c_dims));
  std::memset(c.bytes(), 0, c.byte_size());
  if (compute == ElementType::kF32) {
    BERTH_RETURN_IF_ERROR(RunFloat<float>(blocks, a, bm, c, call.ctx.pool()));
  } else if (compute == ElementType::kF64) {
    BERTH_RETURN_IF_ERROR(RunFloat<double>(blocks, a, bm, c, call.ctx.pool()));
  } else {
    RunInteger(blocks, a, bm, c);
  }
  // C in the result's dims (its canonical order permuted back) and type.
  std::vector<int64_t> canonical;  // the lhs/rhs dims of C's axes, as the result names them
  std::vector<int64_t> out_dims;
  if (mode == 2) out_dims.push_back(groups);
  for (int64_t x : lb) out_dims.push_back(lhs.dims()[static_cast<size_t>(x)]);
  for (int64_t x : lf) out_dims.push_back(lhs.dims()[static_cast<size_t>(x)]);
  for (int64_t x : rf) out_dims.push_back(rhs.dims()[static_cast<size_t>(x)]);
  // C's axes expanded: the batching, lhs free and rhs free dims in the
  // canonical order used above; the result wants lb, lf, rf in op order.
  std::vector<int64_t> c_axes;  // each a result axis
  const int64_t off = mode == 2 ? 1 : 0;
  auto result_axis_of_lhs = [&](int64_t x) {
    size_t p = position(lb, x);
    if (p < lb.size()) return off + static_cast<int64_t>(p);
    return off + static_cast<int64_t>(lb.size() + position(lf, x));
  };
  if (mode == 2) c_axes.push_back(0);
  const size_t lhs_c_axes = lb.size() + lf.size();
  for (size_t i = 0; i < lhs_perm.size() && c_axes.size() < static_cast<size_t>(off) + lhs_c_axes; ++i) {
    int64_t x = lhs_perm[i];
    if (position(lc, x) < lc.size()) continue;
    c_axes.push_back(result_axis_of_lhs(x));
  }
  for (size_t i = 0; i < rf.size(); ++i) c_axes.push_back(off + static_cast<int64_t>(lhs_c_axes + i));
  std::vector<int64_t> expanded;
  for (int64_t axis : c_axes) expanded.push_back(out_dims[static_cast<size_t>(axis)]);
  Tensor shaped = c.Reshaped(expanded);
  std::vector<int64_t> back(c_axes.size());
  for (size_t i = 0; i < c_axes.size(); ++i) back[static_cast<size_t>(c_axes[i])] = static_cast<int64_t>(i);
  BERTH_ASSIGN_OR_RETURN(Tensor ordered, PermuteDims(shaped, back, call.ctx.pool()));
  BERTH_ASSIGN_OR_RETURN(Tensor result, ConvertTensor(ordered, out_type, call.ctx.pool()));
  BERTH_RETURN_IF_ERROR(CheckResultDims(call, 0, result.dims()));
  call.results.push_back(std::move(result));
  return OkStatus();
}

}  // namespace

void RegisterRaggedDotKernel(KernelRegistry& registry) {
  registry.Register(stablehlo::OpKind::kChloRaggedDot, RaggedDot);
}

}  // namespace berth::cpu
