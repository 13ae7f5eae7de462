// stablehlo.triangular_solve: solves op(a) x = b (left_side) or
// x op(a) = b for each batch element, op being identity, transpose or
// adjoint (the conjugate transpose; the transpose for real types), reading
// only the triangle of a that `lower` names and, with unit_diagonal, not its
// diagonal either. f32, f64, complex<f32> and complex<f64> use Eigen's
// triangular solver; f16 and bf16 solve in f32 and round once. A singular a
// gives infinities and NaNs, as IEEE division does.
#include <Eigen/Core>
#include <algorithm>
#include <cstring>

#include "interpreter/parallel.hpp"
#include "interpreter/reduction.hpp"

namespace berth::cpu {
namespace {

using stablehlo::OpKind;
using stablehlo::Transpose;

template <typename T>
using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

template <int Mode, typename A, typename X>
void SolveWith(const A& a, X& x, bool left) {
  if (left) {
    a.template triangularView<Mode>().solveInPlace(x);
  } else {
    a.template triangularView<Mode>().template solveInPlace<Eigen::OnTheRight>(x);
  }
}

// Solves in place: `x` holds b on entry (rows x cols), `a` is m x m.
template <typename T>
void SolveOne(const T* a, T* x, int64_t m, int64_t rows, int64_t cols, bool left, bool lower,
              bool unit, Transpose transpose) {
  Eigen::Map<const RowMajor<T>> am(a, m, m);
  Eigen::Map<RowMajor<T>> xm(x, rows, cols);
  // The lower triangle of a is the upper one of its transpose.
  bool op_lower = transpose != Transpose::kNoTranspose ? !lower : lower;
  auto solve = [&](const auto& op_a) {
    if (op_lower && unit) SolveWith<Eigen::UnitLower>(op_a, xm, left);
    if (op_lower && !unit) SolveWith<Eigen::Lower>(op_a, xm, left);
    if (!op_lower && unit) SolveWith<Eigen::UnitUpper>(op_a, xm, left);
    if (!op_lower && !unit) SolveWith<Eigen::Upper>(op_a, xm, left);
  };
  if (transpose == Transpose::kAdjoint) {
    solve(am.adjoint());
  } else if (transpose == Transpose::kTranspose) {
    solve(am.transpose());
  } else {
    solve(am);
  }
}

Status TriangularSolve(KernelCall& call) {
  if (call.operands.size() != 2) return InvalidArgumentError("triangular_solve takes a and b");
  const Tensor& a_in = call.operands[0];
  const Tensor& b_in = call.operands[1];
  const ElementType type = a_in.type();
  if (!IsSupportedElementType(type)) return UnsupportedElementType(type, "triangular_solve");
  if (!stablehlo::IsFloat(type) && !stablehlo::IsComplex(type)) {
    return InvalidArgumentError(
        "triangular_solve is defined on floating-point and complex types, not " +
        std::string(stablehlo::ElementTypeName(type)));
  }
  if (b_in.type() != type) return InvalidArgumentError("a and b must have one element type");
  const int64_t rank = a_in.rank();
  if (rank < 2 || b_in.rank() != rank || a_in.dims()[rank - 1] != a_in.dims()[rank - 2]) {
    return InvalidArgumentError("a must be a batch of square matrices and b of the same rank");
  }
  const bool left = call.op.GetBool("left_side");
  const bool lower = call.op.GetBool("lower");
  const bool unit = call.op.GetBool("unit_diagonal");
  const Transpose transpose = call.op.transpose_a().value_or(Transpose::kNoTranspose);
  const int64_t m = a_in.dims()[rank - 1];
  const int64_t rows = b_in.dims()[rank - 2];
  const int64_t cols = b_in.dims()[rank - 1];
  if ((left ? rows : cols) != m) {
    return InvalidArgumentError("b's " + std::string(left ? "rows" : "columns") + " (" +
                                std::to_string(left ? rows : cols) + ") do not match a (" +
                                std::to_string(m) + ")");
  }
  int64_t batch = 1;
  for (int64_t d = 0; d + 2 < rank; ++d) {
    if (a_in.dims()[d] != b_in.dims()[d]) return InvalidArgumentError("batch dimensions of a and b differ");
    batch *= a_in.dims()[d];
  }
  ThreadPool* pool = call.ctx.pool();
  const ElementType compute =
      stablehlo::IsComplex(type) || type == ElementType::kF64 ? type : ElementType::kF32;
  BERTH_ASSIGN_OR_RETURN(Tensor a, ConvertTensor(a_in, compute, pool));
  BERTH_ASSIGN_OR_RETURN(Tensor b, ConvertTensor(b_in, compute, pool));
  // x starts as a private copy of b.
  BERTH_ASSIGN_OR_RETURN(Tensor x, Tensor::Allocate(compute, b_in.dims()));
  if (x.byte_size() > 0) std::memcpy(x.bytes(), b.bytes(), x.byte_size());
  if (x.num_elements() > 0 && m > 0) {
    DispatchElementTypeOrComplex(compute, "triangular_solve", [&]<typename T>() -> Status {
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || kIsComplex<T>) {
        const T* ap = a.data<T>();
        T* xp = x.data<T>();
        int64_t work = std::max<int64_t>(1, m * m * (left ? cols : rows));
        ParallelFor(pool, batch, std::max<int64_t>(1, (1 << 16) / work), [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) {
            SolveOne<T>(ap + i * m * m, xp + i * rows * cols, m, rows, cols, left, lower, unit,
                        transpose);
          }
        });
      }
      return OkStatus();
    }).IgnoreError();
  }
  BERTH_ASSIGN_OR_RETURN(Tensor result, ConvertTensor(x, type, pool));
  call.results.push_back(std::move(result));
  return OkStatus();
}

}  // namespace

void RegisterTriangularSolveKernels(KernelRegistry& registry) {
  registry.Register(OpKind::kTriangularSolve, TriangularSolve);
}

}  // namespace berth::cpu
