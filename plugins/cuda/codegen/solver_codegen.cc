// Solver kernels: triangular_solve (one solved vector per thread, by
// substitution) and cholesky (one matrix per thread, factored in double as
// the cpu plugin factors it).
#include <string>

#include "codegen/elementwise_codegen.hpp"
#include "codegen/kernel_emitters.hpp"

namespace berth::cuda {

using namespace codegen;  // kernel_emitters.hpp

Status CheckTriangularSolve(const Operation& op) {
  if (op.kind() != OpKind::kTriangularSolve || op.num_operands() != 2)
    return Unsupported(op, "not a triangular_solve");
  const stablehlo::Type a = op.operand(0)->type(), b = op.operand(1)->type();
  for (stablehlo::Type type : {a, b, op.result(0)->type()}) {
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, type));
  }
  const ElementType type = a.element_type();
  if (type != ElementType::kF32 && type != ElementType::kF64 && type != ElementType::kComplex64 &&
      type != ElementType::kComplex128) {
    // f16/bf16 would need the solution's elements in float until the end.
    return Unsupported(op, "a triangular_solve of " +
                               std::string(stablehlo::ElementTypeName(type)) +
                               " is not generated yet (f32, f64 and complex are)");
  }
  const int64_t rank = a.rank();
  if (rank < 2 || b.rank() != rank || b.element_type() != type ||
      a.dim(rank - 1) != a.dim(rank - 2) ||
      (op.GetBool("left_side") ? b.dim(rank - 2) : b.dim(rank - 1)) != a.dim(rank - 1)) {
    return Unsupported(op, "a must be a batch of square matrices matching b");
  }
  return OkStatus();
}

Status CheckCholesky(const Operation& op) {
  if (op.kind() != OpKind::kCholesky || op.num_operands() != 1)
    return Unsupported(op, "not a cholesky of one operand");
  const stablehlo::Type a = op.operand(0)->type();
  BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, a));
  BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, op.result(0)->type()));
  const ElementType type = a.element_type();
  if (!IsHalf(type) && type != ElementType::kF32 && type != ElementType::kF64 &&
      type != ElementType::kComplex64 && type != ElementType::kComplex128) {
    return Unsupported(op, "a cholesky of " + std::string(stablehlo::ElementTypeName(type)) +
                               " (f16, bf16, f32, f64 and complex are generated)");
  }
  if (a.rank() < 2 || a.dim(a.rank() - 1) != a.dim(a.rank() - 2) || op.result(0)->type() != a) {
    return Unsupported(op, "its operand must be a batch of square matrices, as its result");
  }
  return OkStatus();
}

int64_t CholeskyThreads(const Operation& op, int64_t& scratch_bytes) {
  const stablehlo::Type a = op.operand(0)->type();
  const int64_t n = a.dim(a.rank() - 1);
  const int64_t batch = n == 0 ? 0 : a.NumElements() / (n * n);
  const bool complex = ClassOf(a.element_type()) == Class::kComplex;
  scratch_bytes = batch * n * n * (complex ? 16 : 8);
  return batch;
}

namespace codegen {

// One vector of the solution per thread - a column of x (left_side:
// op(a) x = b) or a row (x op(a) = b) of one batch element - by forward or
// backward substitution with the matrix M that system is M y = c for: op(a)
// for the left side, its transpose for the right. The elements of y are
// written to the output as they are found and read back from it; only the
// triangle `lower` names is read (with unit_diagonal, not the diagonal).
Result<std::string> EmitSolveKernel(const FusedKernel& kernel) {
  const Operation& op = *kernel.root;
  BERTH_RETURN_IF_ERROR(CheckTriangularSolve(op));
  const stablehlo::Type b = op.operand(1)->type();
  const ElementType type = b.element_type();
  const int64_t rank = b.rank();
  const bool left = op.GetBool("left_side"), lower = op.GetBool("lower"),
             unit = op.GetBool("unit_diagonal");
  const stablehlo::Transpose transpose =
      op.transpose_a().value_or(stablehlo::Transpose::kNoTranspose);
  const bool transposed = transpose != stablehlo::Transpose::kNoTranspose;
  // Complex numbers: products and quotients as complex operations, a's
  // elements conjugated for ADJOINT.
  const bool complex = ClassOf(type) == Class::kComplex;
  auto of_a = [&](const std::string& name) {
    return complex && transpose == stablehlo::Transpose::kAdjoint
               ? "berth_complex(" + name + ".re, -" + name + ".im)"
               : name;
  };
  // M[r][k] is a[r][k], or a[k][r] when exactly one of "right side" and
  // "transposed" holds; M is lower triangular when a is, unless swapped.
  const bool swap = left == transposed;
  const bool forward = swap ? !lower : lower;
  const int64_t m = b.dim(left ? rank - 2 : rank - 1);
  const int64_t vectors = b.dim(left ? rank - 1 : rank - 2);
  std::string params = KernelParams(kernel), body;
  // The thread's batch indices and vector.
  std::vector<int64_t> shape(b.shape().begin(), b.shape().end() - 2), dims(shape.size() + 1);
  shape.push_back(vectors);
  for (size_t d = 0; d < dims.size(); ++d) dims[d] = static_cast<int64_t>(d);
  std::vector<std::string> at(dims.size());
  EmitDecompose("i", dims, shape, "s", "    ", body, at);
  const std::string v = at.back();
  at.pop_back();
  auto b_index = [&](const std::string& r) {
    std::vector<std::string> index = at;
    index.push_back(left ? r : v);
    index.push_back(left ? v : r);
    return index;
  };
  auto a_index = [&](const std::string& r, const std::string& k) {
    std::vector<std::string> index = at;
    index.push_back(swap ? k : r);
    index.push_back(swap ? r : k);
    return index;
  };
  auto out_at = [&](const std::string& r) {
    return "out0[" + LinearIndex(b_index(r), b.shape()) + "]";
  };
  const std::string t = ComputeType(type), count = std::to_string(m) + "LL";
  int reads = 0;
  body += "    for (berth_s64 step = 0; step < " + count + "; ++step) {\n";
  body +=
      "      const berth_s64 r = " + std::string(forward ? "step" : count + " - 1 - step") + ";\n";
  body += "      " + t + " acc;\n";
  BERTH_RETURN_IF_ERROR(
      EmitElementLoad(kernel, op.operand(1), b_index("r"), "acc", type, "      ", reads, body));
  body += forward ? "      for (berth_s64 k = 0; k < r; ++k) {\n"
                  : "      for (berth_s64 k = r + 1; k < " + count + "; ++k) {\n";
  body += "        " + t + " mk;\n";
  BERTH_RETURN_IF_ERROR(EmitElementLoad(kernel, op.operand(0), a_index("r", "k"), "mk", type,
                                        "        ", reads, body));
  if (complex) {
    body += "        acc = berth_csub(acc, berth_cmul(" + of_a("mk") + ", " + out_at("k") + "));\n";
  } else {
    body += "        acc = acc - mk * " + out_at("k") + ";\n";
  }
  body += "      }\n";
  if (!unit) {
    body += "      " + t + " diagonal;\n";
    BERTH_RETURN_IF_ERROR(EmitElementLoad(kernel, op.operand(0), a_index("r", "r"), "diagonal",
                                          type, "      ", reads, body));
    body += complex ? "      acc = berth_cdiv(acc, " + of_a("diagonal") + ");\n"
                    : "      acc = acc / diagonal;\n";
  }
  body += "      " + out_at("r") + " = acc;\n";
  body += "    }\n";
  return WrapKernel(kernel.name, params, body);
}

// cholesky, one matrix of the batch per thread, as the cpu plugin factors
// it (kernels_cholesky.cc): the triangle `lower` names (lower: a's lower
// triangle; upper: the conjugate transpose of its upper one) copied to the
// thread's n x n work matrix in the scratch, in double (complex: both parts
// in double), then Cholesky-Banachiewicz row by row, each sum in index
// order (complex products as C's, with Annex G's recovery; quotients by the
// real pivot part by part); each element rounded once to the result (L, or
// U = L^H), the other triangle zero. A pivot that is not > 0 (NaN too)
// makes every element of the matrix's result NaN.
Result<std::string> EmitCholeskyKernel(const FusedKernel& kernel) {
  const Operation& op = *kernel.root;
  BERTH_RETURN_IF_ERROR(CheckCholesky(op));
  const stablehlo::Type a = op.operand(0)->type();
  const ElementType type = a.element_type();
  const bool complex = ClassOf(type) == Class::kComplex, lower = op.GetBool("lower", false);
  const int64_t rank = a.rank(), n = a.dim(rank - 1);
  const std::string w = complex ? "berth_c128" : "double", size = std::to_string(n) + "LL";
  std::string body;
  body += "    " + w + "* const m = (" + w + "*)scratch + i * " + std::to_string(n * n) + "LL;\n";
  // The matrix's batch indices.
  std::vector<int64_t> batch_shape(a.shape().begin(), a.shape().end() - 2),
      dims(batch_shape.size());
  for (size_t d = 0; d < dims.size(); ++d) dims[d] = static_cast<int64_t>(d);
  std::vector<std::string> at(dims.size());
  EmitDecompose("i", dims, batch_shape, "s", "    ", body, at);
  auto a_index = [&](const std::string& r, const std::string& c) {
    std::vector<std::string> index = at;
    index.push_back(r);
    index.push_back(c);
    return index;
  };
  auto conj = [&](const std::string& x) {
    return complex ? "berth_complex(" + x + ".re, -" + x + ".im)" : x;
  };
  const ElementType part = complex ? stablehlo::ComplexComponentType(type) : type;
  auto to_work = [&](const std::string& x) {
    return complex ? "berth_complex((double)" + x + ".re, (double)" + x + ".im)" : "(double)" + x;
  };
  int reads = 0;
  body += "    for (berth_s64 r = 0; r < " + size + "; ++r) {\n";
  body += "      for (berth_s64 c = 0; c <= r; ++c) {\n";
  body += "        " + std::string(ComputeType(type)) + " x;\n";
  BERTH_RETURN_IF_ERROR(EmitElementLoad(kernel, op.operand(0),
                                        lower ? a_index("r", "c") : a_index("c", "r"), "x", type,
                                        "        ", reads, body));
  body +=
      "        m[r * " + size + " + c] = " + (lower ? to_work("x") : conj(to_work("x"))) + ";\n";
  body += "      }\n    }\n";
  body += "    bool positive = true;\n";
  body += "    for (berth_s64 r = 0; r < " + size + " && positive; ++r) {\n";
  body += "      for (berth_s64 c = 0; c <= r; ++c) {\n";
  body += "        " + w + " sum = m[r * " + size + " + c];\n";
  body += "        for (berth_s64 k = 0; k < c; ++k) {\n";
  if (complex) {
    body += "          const berth_c128 q = m[c * " + size + " + k];\n";
    body += "          sum = berth_csub(sum, berth_cmul(m[r * " + size + " + k], " + conj("q") +
            "));\n";
  } else {
    body += "          sum = sum - m[r * " + size + " + k] * m[c * " + size + " + k];\n";
  }
  body += "        }\n";
  const std::string real = complex ? ".re" : "";
  body += "        if (r == c) {\n";
  body += "          const double pivot = sum" + real + ";\n";
  body += "          if (!(pivot > 0)) { positive = false; break; }\n";
  body += "          m[r * " + size + " + r] = " +
          (complex ? std::string("berth_complex(sqrt(pivot), 0.0)") : std::string("sqrt(pivot)")) +
          ";\n";
  body += "        } else {\n";
  body += "          const double d = m[c * " + size + " + c]" + real + ";\n";
  body +=
      "          m[r * " + size + " + c] = " +
      (complex ? std::string("berth_complex(sum.re / d, sum.im / d)") : std::string("sum / d")) +
      ";\n";
  body += "        }\n      }\n    }\n";
  // The result: each element rounded once, or NaN everywhere.
  std::vector<std::string> out_index = at;
  out_index.push_back("r");
  out_index.push_back("c");
  const std::string out = "out0[" + LinearIndex(out_index, a.shape()) + "]";
  const std::string nan = "__longlong_as_double(0x7ff8000000000000LL)";
  auto from_work = [&](const std::string& x) {
    if (!complex) return Store(type, ConvertExpression(ElementType::kF64, type, x));
    const std::string p = ComputeType(part);
    return "berth_complex((" + p + ")(" + x + ").re, (" + p + ")(" + x + ").im)";
  };
  body += "    for (berth_s64 r = 0; r < " + size + "; ++r) {\n";
  body += "      for (berth_s64 c = 0; c < " + size + "; ++c) {\n";
  body += "        const berth_s64 li = " + std::string(lower ? "r" : "c") +
          ", lj = " + std::string(lower ? "c" : "r") + ";\n";
  body += "        " + w + " v = " + (complex ? "berth_complex(0.0, 0.0)" : "0.0") + ";\n";
  body +=
      "        if (!positive) v = " + (complex ? "berth_complex(" + nan + ", " + nan + ")" : nan) +
      ";\n";
  // U = L^H: the taken element conjugated, not the zeros.
  const std::string taken = "m[li * " + size + " + lj]";
  body += "        else if (lj <= li) v = " + (lower ? taken : conj(taken)) + ";\n";
  body += "        " + out + " = " + from_work("v") + ";\n";
  body += "      }\n    }\n";
  return WrapKernel(kernel.name, KernelParams(kernel), body);
}

}  // namespace codegen

}  // namespace berth::cuda
