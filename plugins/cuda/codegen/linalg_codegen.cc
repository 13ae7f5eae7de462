// Linear algebra kernels: dot_general and convolution (one output element
// per thread) and triangular_solve (one solved vector per thread).
#include <algorithm>
#include <unordered_map>

#include "codegen/elementwise_codegen.hpp"
#include "codegen/kernel_emitters.hpp"

namespace berth::cuda {

using namespace codegen;  // kernel_emitters.hpp

namespace {

// dot_general's dimension numbers; the legacy stablehlo.dot's (ranks 1 or
// 2): lhs's last dimension against rhs's first, as the cpu plugin reads it.
stablehlo::DotDimensionNumbers DotNumbersOf(const Operation& op) {
  if (op.kind() == OpKind::kDot) return {{}, {}, {op.operand(0)->type().rank() - 1}, {0}};
  return *op.dot_dimension_numbers();
}

}  // namespace

Status CheckDot(const Operation& op) {
  if ((op.kind() != OpKind::kDotGeneral && op.kind() != OpKind::kDot) || op.num_operands() != 2)
    return Unsupported(op, "not a dot_general");
  for (stablehlo::Type type :
       {op.operand(0)->type(), op.operand(1)->type(), op.result(0)->type()}) {
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, type));
  }
  if (op.kind() == OpKind::kDot) {
    const int64_t lhs = op.operand(0)->type().rank(), rhs = op.operand(1)->type().rank();
    if (lhs < 1 || lhs > 2 || rhs < 1 || rhs > 2)
      return InvalidArgumentError(Where(op) + ": dot operands must have rank 1 or 2");
  } else if (op.dot_dimension_numbers() == nullptr) {
    return Unsupported(op, "no dot_dimension_numbers");
  }
  // precision_config and a dot algorithm are accepted and ignored, as the
  // cpu plugin ignores them: the kernel computes in the cpu plugin's
  // arithmetic (never TF32 or fewer bits).
  return OkStatus();
}

Status CheckConvolution(const Operation& op) {
  const bool dynamic = op.kind() == OpKind::kDynamicConv;
  if ((op.kind() != OpKind::kConvolution || op.num_operands() != 2) &&
      (!dynamic || op.num_operands() != 3))
    return Unsupported(op, "not a convolution");
  for (stablehlo::Type type :
       {op.operand(0)->type(), op.operand(1)->type(), op.result(0)->type()}) {
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, type));
  }
  if (dynamic) {
    // Its padding: a constant [spatial dims, 2], as convolution's attribute.
    const stablehlo::Type padding = op.operand(2)->type();
    if (!codegen::ConstantIntegers(op.operand(2)))
      return Unsupported(op, "its padding is not a constant (dynamic shapes are not generated)");
    if (padding.rank() != 2 || padding.dim(1) != 2 ||
        padding.dim(0) != op.operand(0)->type().rank() - 2) {
      return Unsupported(op, "its padding must hold a (low, high) pair per spatial dimension");
    }
  }
  const stablehlo::ConvDimensionNumbers* numbers = op.conv_dimension_numbers();
  if (numbers == nullptr) return Unsupported(op, "no dimension_numbers");
  // The verifier has checked the attributes against the shapes; the
  // generator also needs each layout to name every dimension once.
  const size_t rank = numbers->input_spatial_dimensions.size() + 2;
  auto names_each_once = [rank](int64_t a, int64_t b, const std::vector<int64_t>& spatial) {
    std::vector<bool> seen(rank, false);
    std::vector<int64_t> dims = spatial;
    dims.push_back(a);
    dims.push_back(b);
    for (int64_t d : dims) {
      if (d < 0 || static_cast<size_t>(d) >= rank || seen[static_cast<size_t>(d)]) return false;
      seen[static_cast<size_t>(d)] = true;
    }
    return dims.size() == rank;
  };
  if (!names_each_once(numbers->input_batch_dimension, numbers->input_feature_dimension,
                       numbers->input_spatial_dimensions) ||
      !names_each_once(numbers->kernel_input_feature_dimension,
                       numbers->kernel_output_feature_dimension,
                       numbers->kernel_spatial_dimensions) ||
      !names_each_once(numbers->output_batch_dimension, numbers->output_feature_dimension,
                       numbers->output_spatial_dimensions)) {
    return Unsupported(op, "dimension_numbers that do not name each dimension once");
  }
  return OkStatus();
}

Status CheckRaggedDot(const Operation& op) {
  const stablehlo::RaggedDotDimensionNumbers* numbers = op.ragged_dot_dimension_numbers();
  if (op.kind() != OpKind::kChloRaggedDot || op.num_operands() != 3 || numbers == nullptr ||
      numbers->lhs_ragged_dimensions.size() != 1) {
    return Unsupported(op, "not an lhs, an rhs and group sizes with one lhs ragged dimension");
  }
  for (const stablehlo::Value* value : op.operands())
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, value->type()));
  BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, op.result(0)->type()));
  for (const stablehlo::Value* value : {op.operand(0), op.operand(1), op.result(0)}) {
    if (ClassOf(value->type().element_type()) == Class::kComplex)
      return Unsupported(op,
                         "complex ragged products are not generated (nor run by the cpu plugin)");
  }
  if (!stablehlo::IsInteger(op.operand(2)->type().element_type()))
    return Unsupported(op, "its group sizes must be integers");
  const stablehlo::Type lhs = op.operand(0)->type(), rhs = op.operand(1)->type();
  const stablehlo::DotDimensionNumbers& d = numbers->dot;
  const int64_t lr = numbers->lhs_ragged_dimensions[0];
  const bool contracting =
      std::count(d.lhs_contracting_dimensions.begin(), d.lhs_contracting_dimensions.end(), lr) > 0;
  const bool batching =
      std::count(d.lhs_batching_dimensions.begin(), d.lhs_batching_dimensions.end(), lr) > 0;
  if (lr < 0 || lr >= lhs.rank() ||
      d.lhs_batching_dimensions.size() != d.rhs_batching_dimensions.size() ||
      d.lhs_contracting_dimensions.size() != d.rhs_contracting_dimensions.size() ||
      (numbers->rhs_group_dimensions.size() == 1) == (contracting || batching) ||
      numbers->rhs_group_dimensions.size() > 1) {
    return Unsupported(op, "its ragged dimension numbers do not fit its operands");
  }
  for (int64_t g : numbers->rhs_group_dimensions) {
    if (g < 0 || g >= rhs.rank())
      return Unsupported(op, "its rhs group dimension is not one of rhs's");
    const stablehlo::Type sizes = op.operand(2)->type();
    if (sizes.rank() == 0 || sizes.dim(sizes.rank() - 1) != rhs.dim(g))
      return InvalidArgumentError(Where(op) + ": group_sizes " + sizes.ToString() +
                                  " must have one entry per rhs group");
  }
  return OkStatus();
}

namespace codegen {

namespace {

// The type a dot_general or convolution computes in, as the cpu plugin
// chooses it (ProductComputeType): complex (complex<f64> when an operand or
// the result is complex<f64> or f64) if one is complex, else f64 or f32 if
// one is a float, else i1 for i1 x i1 -> i1, i64 for another i1 result, the
// result's type (8 bits for a narrow one) for integers.
ElementType ProductComputeType(const Operation& op) {
  const ElementType types[] = {op.operand(0)->type().element_type(),
                               op.operand(1)->type().element_type(),
                               op.result(0)->type().element_type()};
  const ElementType result = types[2];
  auto any = [&](auto predicate) {
    return std::any_of(std::begin(types), std::end(types), predicate);
  };
  const bool wide =
      any([](ElementType t) { return t == ElementType::kComplex128 || t == ElementType::kF64; });
  if (any([](ElementType t) { return ClassOf(t) == Class::kComplex; }))
    return wide ? ElementType::kComplex128 : ElementType::kComplex64;
  if (any([](ElementType t) { return ClassOf(t) == Class::kFloat; }))
    return wide ? ElementType::kF64 : ElementType::kF32;
  if (result == ElementType::kI1) {
    return types[0] == ElementType::kI1 && types[1] == ElementType::kI1 ? ElementType::kI1
                                                                        : ElementType::kSI64;
  }
  if (IsNarrowInteger(result))
    return ClassOf(result) == Class::kSigned ? ElementType::kSI8 : ElementType::kUI8;
  return result;
}

// Declares `a` and `b` (in their compute types) and loads into them the
// elements of the root's operands 0 and 1 at `lhs_index` and `rhs_index`.
Status EmitOperandPair(const FusedKernel& kernel, const std::vector<std::string>& lhs_index,
                       const std::vector<std::string>& rhs_index, const std::string& indent,
                       std::string& body) {
  const Operation& op = *kernel.root;
  int reads = 0;
  const ElementType lhs_type = op.operand(0)->type().element_type(),
                    rhs_type = op.operand(1)->type().element_type();
  body += indent + std::string(ComputeType(lhs_type)) + " a;\n";
  body += indent + std::string(ComputeType(rhs_type)) + " b;\n";
  BERTH_RETURN_IF_ERROR(
      EmitElementLoad(kernel, op.operand(0), lhs_index, "a", lhs_type, indent, reads, body));
  return EmitElementLoad(kernel, op.operand(1), rhs_index, "b", rhs_type, indent, reads, body);
}

// The zero of a compute type, as CUDA C.
std::string ZeroOf(ElementType compute) {
  const Class c = ClassOf(compute);
  if (c == Class::kBool) return "false";
  if (c == Class::kComplex) {
    const std::string part = ComputeType(stablehlo::ComplexComponentType(compute));
    return "berth_complex((" + part + ")0, (" + part + ")0)";
  }
  return "(" + std::string(ComputeType(compute)) + ")0";
}

}  // namespace

// One output element per thread: the sum over the contracting elements of
// lhs x rhs, each converted to the result's type first.
Result<std::string> EmitDotKernel(const FusedKernel& kernel) {
  const Operation& op = *kernel.root;
  BERTH_RETURN_IF_ERROR(CheckDot(op));
  const stablehlo::DotDimensionNumbers numbers = DotNumbersOf(op);
  const stablehlo::Type lhs = op.operand(0)->type(), rhs = op.operand(1)->type(),
                        result = op.result(0)->type();
  const ElementType type = result.element_type();
  std::string params = KernelParams(kernel), body;
  const std::vector<std::string> r = EmitResultIndex(result.shape(), "r", body);
  // Where each operand dimension's index comes from: the result's batch and
  // free dimensions, in order, or the contracting loop.
  auto is_in = [](const std::vector<int64_t>& list, int64_t d) {
    return std::find(list.begin(), list.end(), d) != list.end();
  };
  std::vector<std::string> lhs_index(static_cast<size_t>(lhs.rank())),
      rhs_index(static_cast<size_t>(rhs.rank()));
  size_t next = 0;
  for (size_t b = 0; b < numbers.lhs_batching_dimensions.size(); ++b, ++next) {
    lhs_index[static_cast<size_t>(numbers.lhs_batching_dimensions[b])] = r[next];
    rhs_index[static_cast<size_t>(numbers.rhs_batching_dimensions[b])] = r[next];
  }
  for (int64_t d = 0; d < lhs.rank(); ++d) {
    if (!is_in(numbers.lhs_batching_dimensions, d) &&
        !is_in(numbers.lhs_contracting_dimensions, d)) {
      lhs_index[static_cast<size_t>(d)] = r[next++];
    }
  }
  for (int64_t d = 0; d < rhs.rank(); ++d) {
    if (!is_in(numbers.rhs_batching_dimensions, d) &&
        !is_in(numbers.rhs_contracting_dimensions, d)) {
      rhs_index[static_cast<size_t>(d)] = r[next++];
    }
  }
  int64_t count = 1;
  for (int64_t d : numbers.lhs_contracting_dimensions) count *= lhs.dim(d);
  const ElementType compute = ProductComputeType(op);
  const Class c = ClassOf(compute);
  const std::string t = ComputeType(compute);
  body += "    " + t + " acc = " + ZeroOf(compute) + ";\n";
  body += "    for (berth_s64 k = 0; k < " + std::to_string(count) + "LL; ++k) {\n";
  std::vector<std::string> contracted(static_cast<size_t>(lhs.rank()));
  EmitDecompose("k", numbers.lhs_contracting_dimensions, lhs.shape(), "c", "      ", body,
                contracted);
  for (size_t k = 0; k < numbers.lhs_contracting_dimensions.size(); ++k) {
    const std::string& name =
        contracted[static_cast<size_t>(numbers.lhs_contracting_dimensions[k])];
    lhs_index[static_cast<size_t>(numbers.lhs_contracting_dimensions[k])] = name;
    rhs_index[static_cast<size_t>(numbers.rhs_contracting_dimensions[k])] = name;
  }
  const ElementType lhs_type = lhs.element_type(), rhs_type = rhs.element_type();
  BERTH_RETURN_IF_ERROR(EmitOperandPair(kernel, lhs_index, rhs_index, "      ", body));
  // Each operand in the compute type, then the cpu plugin's step: floats one
  // fma, complex numbers (ar br - ai bi) + i (ar bi + ai br) each product and
  // sum rounded, integers wrapping, i1 or over and.
  const std::string x = ConvertExpression(lhs_type, compute, "a"),
                    y = ConvertExpression(rhs_type, compute, "b");
  if (c == Class::kBool) {
    body += "      acc = acc || (" + x + " && " + y + ");\n";
  } else if (c == Class::kFloat) {
    body += "      acc = fma(" + x + ", " + y + ", acc);\n";
  } else if (c == Class::kComplex) {
    body += "      const " + t + " p = " + x + ", q = " + y + ";\n";
    body += "      acc.re = acc.re + (p.re * q.re - p.im * q.im);\n";
    body += "      acc.im = acc.im + (p.re * q.im + p.im * q.re);\n";
  } else {
    body +=
        "      acc = berth_iadd<" + t + ">(acc, berth_imul<" + t + ">(" + x + ", " + y + "));\n";
  }
  body += "    }\n";
  body += "    out0[i] = " + Store(type, ConvertExpression(compute, type, "acc")) + ";\n";
  return WrapKernel(kernel.name, params, body);
}

// chlo.ragged_dot, one output element per thread in the cpu plugin's
// arithmetic (kernels_ragged_dot.cc): both operands converted to f64 (an
// f64 lhs), f32 (another float lhs) or i64, one fma chain (integers
// wrapping) over the contracting elements in order - mode 2 (a ragged
// contracting dimension) only over its group's part, the ragged dimension
// outermost - then converted to the result type. The group of a row (mode
// 1) or of the result (mode 2, its first dimension) is found from the
// group sizes read per thread: consecutive parts of the ragged dimension,
// negative sizes as 0, clipped to it (per batch element when group_sizes
// is [batch..., g]); rows past the groups, and batch elements past them
// (mode 3), are 0.
Result<std::string> EmitRaggedDotKernel(const FusedKernel& kernel) {
  const Operation& op = *kernel.root;
  BERTH_RETURN_IF_ERROR(CheckRaggedDot(op));
  const stablehlo::RaggedDotDimensionNumbers& numbers = *op.ragged_dot_dimension_numbers();
  const stablehlo::DotDimensionNumbers& d = numbers.dot;
  const stablehlo::Type lhs = op.operand(0)->type(), rhs = op.operand(1)->type(),
                        sizes = op.operand(2)->type(), result = op.result(0)->type();
  const int64_t lr = numbers.lhs_ragged_dimensions[0];
  auto is_in = [](const std::vector<int64_t>& list, int64_t x) {
    return std::find(list.begin(), list.end(), x) != list.end();
  };
  const int mode = is_in(d.lhs_batching_dimensions, lr)      ? 3
                   : is_in(d.lhs_contracting_dimensions, lr) ? 2
                                                             : 1;
  std::string body;
  const std::vector<std::string> r = EmitResultIndex(result.shape(), "r", body);
  std::vector<std::string> lhs_index(static_cast<size_t>(lhs.rank())),
      rhs_index(static_cast<size_t>(rhs.rank()));
  size_t next = mode == 2 ? 1 : 0;
  for (size_t b = 0; b < d.lhs_batching_dimensions.size(); ++b, ++next) {
    lhs_index[static_cast<size_t>(d.lhs_batching_dimensions[b])] = r[next];
    rhs_index[static_cast<size_t>(d.rhs_batching_dimensions[b])] = r[next];
  }
  for (int64_t x = 0; x < lhs.rank(); ++x) {
    if (!is_in(d.lhs_batching_dimensions, x) && !is_in(d.lhs_contracting_dimensions, x))
      lhs_index[static_cast<size_t>(x)] = r[next++];
  }
  for (int64_t x = 0; x < rhs.rank(); ++x) {
    if (!is_in(d.rhs_batching_dimensions, x) && !is_in(d.rhs_contracting_dimensions, x) &&
        !is_in(numbers.rhs_group_dimensions, x))
      rhs_index[static_cast<size_t>(x)] = r[next++];
  }
  // The flattened batch element (row-major over the lhs batching dims) and
  // the group sizes' row of it.
  std::string batch = "0LL";
  for (int64_t x : d.lhs_batching_dimensions)
    batch = "(" + batch + ") * " + std::to_string(lhs.dim(x)) + "LL + " +
            lhs_index[static_cast<size_t>(x)];
  const int64_t groups = sizes.rank() == 0 ? 0 : sizes.dim(sizes.rank() - 1);
  const std::string row =
      sizes.rank() > 1 && mode != 3 ? "(" + batch + ") * " + std::to_string(groups) + "LL" : "0LL";
  const int64_t ragged = lhs.dim(lr);
  BERTH_ASSIGN_OR_RETURN(const std::string group_sizes, InputParam(kernel, op.operand(2)));
  const ElementType size_type = sizes.element_type();
  // start/end of group g: the walk over the groups before it.
  body += "    berth_s64 start = 0, end = 0, group = -1;\n";
  body += "    for (berth_s64 g = 0; g < " + std::to_string(groups) + "LL; ++g) {\n";
  body += "      berth_s64 size = (berth_s64)(" +
          Load(size_type, group_sizes + "[" + row + " + g]") + ");\n";
  body += "      if (size < 0) size = 0;\n";
  body += "      start = end;\n";
  body += "      end = start + size < " + std::to_string(ragged) +
          "LL ? start + size : " + std::to_string(ragged) + "LL;\n";
  if (mode == 1) {
    body += "      if (" + lhs_index[static_cast<size_t>(lr)] + " >= start && " +
            lhs_index[static_cast<size_t>(lr)] + " < end) { group = g; break; }\n";
  } else if (mode == 2) {
    body += "      if (g == " + r[0] + ") { group = g; break; }\n";
  }
  body += "    }\n";
  const ElementType lhs_type = lhs.element_type(), rhs_type = rhs.element_type();
  const ElementType compute = lhs_type == ElementType::kF64        ? ElementType::kF64
                              : ClassOf(lhs_type) == Class::kFloat ? ElementType::kF32
                                                                   : ElementType::kSI64;
  const std::string t = ComputeType(compute);
  body += "    " + t + " acc = (" + t + ")0;\n";
  if (mode == 3) {
    body += "    if (" + lhs_index[static_cast<size_t>(lr)] + " < end) {\n";
  } else {
    body += "    if (group >= 0) {\n";
  }
  if (mode == 1) rhs_index[static_cast<size_t>(numbers.rhs_group_dimensions[0])] = "group";
  // The contracting elements, in the cpu plugin's order.
  std::vector<int64_t> lc = d.lhs_contracting_dimensions, rc = d.rhs_contracting_dimensions;
  std::string from = "0LL", count;
  int64_t rest = 1;
  if (mode == 2) {
    const size_t at = static_cast<size_t>(std::find(lc.begin(), lc.end(), lr) - lc.begin());
    const int64_t rr = rc[at];
    lc.erase(lc.begin() + static_cast<std::ptrdiff_t>(at));
    rc.erase(rc.begin() + static_cast<std::ptrdiff_t>(at));
    lc.insert(lc.begin(), lr);
    rc.insert(rc.begin(), rr);
    for (size_t k = 1; k < lc.size(); ++k) rest *= lhs.dim(lc[k]);
    from = "start * " + std::to_string(rest) + "LL";
    count = "end * " + std::to_string(rest) + "LL";
  } else {
    for (int64_t x : lc) rest *= lhs.dim(x);
    count = std::to_string(rest) + "LL";
  }
  body += "      for (berth_s64 k = " + from + "; k < " + count + "; ++k) {\n";
  std::vector<std::string> contracted(static_cast<size_t>(lhs.rank()));
  EmitDecompose("k", lc, lhs.shape(), "c", "        ", body, contracted);
  for (size_t k = 0; k < lc.size(); ++k) {
    lhs_index[static_cast<size_t>(lc[k])] = contracted[static_cast<size_t>(lc[k])];
    rhs_index[static_cast<size_t>(rc[k])] = contracted[static_cast<size_t>(lc[k])];
  }
  BERTH_RETURN_IF_ERROR(EmitOperandPair(kernel, lhs_index, rhs_index, "        ", body));
  const std::string x = ConvertExpression(lhs_type, compute, "a"),
                    y = ConvertExpression(rhs_type, compute, "b");
  if (compute == ElementType::kSI64) {
    body += "        acc = (berth_s64)((berth_u64)acc + (berth_u64)(" + x + ") * (berth_u64)(" + y +
            "));\n";
  } else {
    body += "        acc = fma(" + x + ", " + y + ", acc);\n";
  }
  body += "      }\n    }\n";
  const ElementType type = result.element_type();
  body += "    out0[i] = " + Store(type, ConvertExpression(compute, type, "acc")) + ";\n";
  return WrapKernel(kernel.name, KernelParams(kernel), body);
}

// One output element per thread, in the cpu plugin's arithmetic
// (kernels_convolution.cc): the sum over window positions, in row-major
// order of the kernel's spatial dimensions (in the dimension numbers'
// order), then over the group's input features, of lhs x kernel in the
// product's compute type, from zero. A window position on padding or a
// dilation hole multiplies a zero (0 x inf is NaN, as the spec's dot
// product gives); window reversal reads the lhs backwards against the
// kernel. Floats: one fma chain; complex numbers: four real chains (re x
// re, im x im, re x im, im x re) combined at the end; integers wrapping;
// i1 or over and.
Result<std::string> EmitConvolutionKernel(const FusedKernel& kernel) {
  const Operation& op = *kernel.root;
  BERTH_RETURN_IF_ERROR(CheckConvolution(op));
  const stablehlo::ConvDimensionNumbers& numbers = *op.conv_dimension_numbers();
  const stablehlo::Type lhs = op.operand(0)->type(), rhs = op.operand(1)->type(),
                        result = op.result(0)->type();
  const size_t spatial = numbers.input_spatial_dimensions.size();
  auto window_array = [&](const char* name) {
    std::vector<int64_t> values(spatial, 1);
    if (op.has_attr(name)) {
      std::span<const int64_t> given = op.GetI64Array(name);
      values.assign(given.begin(), given.end());
    }
    return values;
  };
  const std::vector<int64_t> strides = window_array("window_strides"),
                             lhs_dilation = window_array("lhs_dilation"),
                             rhs_dilation = window_array("rhs_dilation");
  std::vector<int64_t> reversal(spatial, 0);
  if (op.has_attr("window_reversal")) {
    std::span<const int64_t> given = op.GetI64Array("window_reversal");
    reversal.assign(given.begin(), given.end());
  }
  std::vector<std::pair<int64_t, int64_t>> padding(spatial, {0, 0});
  if (op.has_attr("padding") || op.kind() == OpKind::kDynamicConv) padding = StaticPadding(op);
  if (strides.size() != spatial || lhs_dilation.size() != spatial ||
      rhs_dilation.size() != spatial || reversal.size() != spatial || padding.size() != spatial) {
    return Unsupported(op, "window attributes without one entry per spatial dimension");
  }
  const int64_t feature_groups = op.GetInt("feature_group_count").value_or(1);
  const int64_t batch_groups = op.GetInt("batch_group_count").value_or(1);
  const int64_t kernel_in = rhs.dim(numbers.kernel_input_feature_dimension);
  const int64_t kernel_out = rhs.dim(numbers.kernel_output_feature_dimension);
  const int64_t out_batch = result.dim(numbers.output_batch_dimension);
  if (feature_groups <= 0 || batch_groups <= 0 ||
      kernel_out % (feature_groups * batch_groups) != 0) {
    return Unsupported(op, "group counts that do not divide the kernel's output features");
  }
  const int64_t group_out = kernel_out / (feature_groups * batch_groups);

  std::string params = KernelParams(kernel), body;
  const std::vector<std::string> r = EmitResultIndex(result.shape(), "r", body);
  const std::string& of = r[static_cast<size_t>(numbers.output_feature_dimension)];
  const std::string& ob = r[static_cast<size_t>(numbers.output_batch_dimension)];
  // The feature group or batch group of the output feature.
  body += "    const berth_s64 g = " +
          (group_out > 0 ? of + " / " + std::to_string(group_out) + "LL" : "0") + ";\n";
  body += "    const berth_s64 lhs_batch = " +
          (batch_groups > 1 ? "g * " + std::to_string(out_batch) + "LL + " + ob : ob) + ";\n";
  body += "    const berth_s64 lhs_feature0 = " +
          (feature_groups > 1 ? "g * " + std::to_string(kernel_in) + "LL" : std::string("0")) +
          ";\n";

  const ElementType compute = ProductComputeType(op);
  const Class c = ClassOf(compute);
  const std::string t = ComputeType(compute);
  if (c == Class::kComplex) {
    const std::string part = ComputeType(stablehlo::ComplexComponentType(compute));
    body += "    " + part + " ac = 0, bd = 0, ad = 0, bc = 0;\n";
  } else {
    body += "    " + t + " acc = " + ZeroOf(compute) + ";\n";
  }
  std::vector<int64_t> window(spatial), window_dims(spatial);
  int64_t positions = 1;
  for (size_t s = 0; s < spatial; ++s) {
    window[s] = rhs.dim(numbers.kernel_spatial_dimensions[s]);
    window_dims[s] = static_cast<int64_t>(s);
    positions *= window[s];
  }
  body += "    for (berth_s64 t = 0; t < " + std::to_string(positions) + "LL; ++t) {\n";
  std::vector<std::string> k(spatial);
  EmitDecompose("t", window_dims, window, "k", "      ", body, k);
  std::vector<std::string> lhs_index(static_cast<size_t>(lhs.rank())),
      rhs_index(static_cast<size_t>(rhs.rank()));
  body += "      bool valid = true;\n";
  for (size_t s = 0; s < spatial; ++s) {
    const std::string n = std::to_string(s);
    const int64_t in = lhs.dim(numbers.input_spatial_dimensions[s]);
    const int64_t dilated = in == 0 ? 0 : (in - 1) * lhs_dilation[s] + 1;
    const std::string tap =
        reversal[s] != 0 ? "(" + std::to_string(window[s] - 1) + "LL - " + k[s] + ")" : k[s];
    body += "      const berth_s64 q" + n + " = " +
            r[static_cast<size_t>(numbers.output_spatial_dimensions[s])] + " * " +
            std::to_string(strides[s]) + "LL + " + tap + " * " + std::to_string(rhs_dilation[s]) +
            "LL - (" + std::to_string(padding[s].first) + "LL);\n";
    body += "      valid = valid && q" + n + " >= 0 && q" + n + " < " + std::to_string(dilated) +
            "LL && q" + n + " % " + std::to_string(lhs_dilation[s]) + "LL == 0;\n";
    lhs_index[static_cast<size_t>(numbers.input_spatial_dimensions[s])] =
        "(q" + n + " / " + std::to_string(lhs_dilation[s]) + "LL)";
    rhs_index[static_cast<size_t>(numbers.kernel_spatial_dimensions[s])] = k[s];
  }
  lhs_index[static_cast<size_t>(numbers.input_batch_dimension)] = "lhs_batch";
  lhs_index[static_cast<size_t>(numbers.input_feature_dimension)] = "(lhs_feature0 + c)";
  rhs_index[static_cast<size_t>(numbers.kernel_input_feature_dimension)] = "c";
  rhs_index[static_cast<size_t>(numbers.kernel_output_feature_dimension)] = of;
  body += "      for (berth_s64 c = 0; c < " + std::to_string(kernel_in) + "LL; ++c) {\n";
  // Padding and holes are zeros of the compute type (an f8E8M0FNU lhs has
  // no zero of its own).
  const ElementType lhs_type = lhs.element_type(), rhs_type = rhs.element_type();
  int reads = 0;
  body += "        " + t + " x = " + ZeroOf(compute) + ";\n";
  body += "        if (valid) {\n";
  body += "          " + std::string(ComputeType(lhs_type)) + " a;\n";
  BERTH_RETURN_IF_ERROR(
      EmitElementLoad(kernel, op.operand(0), lhs_index, "a", lhs_type, "          ", reads, body));
  body += "          x = " + ConvertExpression(lhs_type, compute, "a") + ";\n";
  body += "        }\n";
  body += "        " + std::string(ComputeType(rhs_type)) + " b;\n";
  BERTH_RETURN_IF_ERROR(
      EmitElementLoad(kernel, op.operand(1), rhs_index, "b", rhs_type, "        ", reads, body));
  body += "        const " + t + " y = " + ConvertExpression(rhs_type, compute, "b") + ";\n";
  if (c == Class::kBool) {
    body += "        acc = acc || (x && y);\n";
  } else if (c == Class::kFloat) {
    body += "        acc = fma(x, y, acc);\n";
  } else if (c == Class::kComplex) {
    body += "        ac = fma(x.re, y.re, ac);\n";
    body += "        bd = fma(x.im, y.im, bd);\n";
    body += "        ad = fma(x.re, y.im, ad);\n";
    body += "        bc = fma(x.im, y.re, bc);\n";
  } else {
    body += "        acc = berth_iadd<" + t + ">(acc, berth_imul<" + t + ">(x, y));\n";
  }
  body += "      }\n";
  body += "    }\n";
  if (c == Class::kComplex) body += "    const " + t + " acc = berth_complex(ac - bd, ad + bc);\n";
  body += "    out0[i] = " +
          Store(result.element_type(), ConvertExpression(compute, result.element_type(), "acc")) +
          ";\n";
  return WrapKernel(kernel.name, params, body);
}

}  // namespace codegen

}  // namespace berth::cuda
