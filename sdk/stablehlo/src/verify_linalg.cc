// Checks for linear-algebra style ops: dot, dot_general, convolution, fft,
// cholesky, triangular_solve, batch_norm_*, einsum, rng.
#include <algorithm>

#include "src/verifier_impl.hpp"

namespace berth::stablehlo::detail {
namespace {

Status PrecisionConfig(const Operation& op) {
  const Attribute* a = op.attr("precision_config");
  if (!a) return OkStatus();
  auto* arr = a->dyn_cast<ArrayAttr>();
  if (!arr) return OpError(op, "precision_config must be an array of precisions");
  if (arr->size() != 0 && arr->size() != 2) {
    return OpError(op, "precision_config must have 0 or 2 entries, has " +
                           std::to_string(arr->size()));
  }
  for (const Attribute* e : arr->elements()) {
    auto* en = e->dyn_cast<EnumAttr>();
    if (!en || en->enum_kind() != EnumKind::kPrecision) {
      return OpError(op, "precision_config entries must be #stablehlo<precision ...>");
    }
  }
  return OkStatus();
}

Status Dot(const Operation& op) {
  BERTH_RETURN_IF_ERROR(ExpectTensorOperands(op, 2));
  Type lhs = OperandType(op, 0);
  Type rhs = OperandType(op, 1);
  if (lhs.rank() < 1 || lhs.rank() > 2 || rhs.rank() < 1 || rhs.rank() > 2) {
    return OpError(op, "operands must have rank 1 or 2, have " + Str(lhs) + " and " + Str(rhs));
  }
  if (!DimsCompatible(lhs.dim(lhs.rank() - 1), rhs.dim(0))) {
    return OpError(op, "contracting dimensions differ: " + Str(lhs) + " and " + Str(rhs));
  }
  std::vector<int64_t> expected;
  if (lhs.rank() == 2) expected.push_back(lhs.dim(0));
  if (rhs.rank() == 2) expected.push_back(rhs.dim(1));
  BERTH_RETURN_IF_ERROR(PrecisionConfig(op));
  return ExpectResultShape(op, 0, expected);
}

Status DotGeneral(const Operation& op) {
  BERTH_RETURN_IF_ERROR(ExpectTensorOperands(op, 2));
  const DotDimensionNumbers* dims = op.dot_dimension_numbers();
  if (!dims) return OpError(op, "requires a dot_dimension_numbers attribute");
  Type lhs = OperandType(op, 0);
  Type rhs = OperandType(op, 1);
  if (dims->lhs_batching_dimensions.size() != dims->rhs_batching_dimensions.size()) {
    return OpError(op, "lhs and rhs must have the same number of batching dimensions");
  }
  if (dims->lhs_contracting_dimensions.size() != dims->rhs_contracting_dimensions.size()) {
    return OpError(op, "lhs and rhs must have the same number of contracting dimensions");
  }
  auto check_side = [&](Type t, const std::vector<int64_t>& batch,
                        const std::vector<int64_t>& contract, const char* side) -> Status {
    std::vector<int64_t> all = batch;
    all.insert(all.end(), contract.begin(), contract.end());
    return ExpectDimsInRange(op, all, t.rank(),
                             std::string(side) + " batching and contracting dimensions");
  };
  BERTH_RETURN_IF_ERROR(check_side(lhs, dims->lhs_batching_dimensions,
                                   dims->lhs_contracting_dimensions, "lhs"));
  BERTH_RETURN_IF_ERROR(check_side(rhs, dims->rhs_batching_dimensions,
                                   dims->rhs_contracting_dimensions, "rhs"));
  for (size_t i = 0; i < dims->lhs_batching_dimensions.size(); ++i) {
    if (!DimsCompatible(lhs.dim(dims->lhs_batching_dimensions[i]),
                        rhs.dim(dims->rhs_batching_dimensions[i]))) {
      return OpError(op, "batching dimension sizes differ between " + Str(lhs) + " and " +
                             Str(rhs));
    }
  }
  for (size_t i = 0; i < dims->lhs_contracting_dimensions.size(); ++i) {
    if (!DimsCompatible(lhs.dim(dims->lhs_contracting_dimensions[i]),
                        rhs.dim(dims->rhs_contracting_dimensions[i]))) {
      return OpError(op, "contracting dimension sizes differ between " + Str(lhs) + " and " +
                             Str(rhs));
    }
  }
  std::vector<int64_t> expected;
  for (int64_t d : dims->lhs_batching_dimensions) expected.push_back(lhs.dim(d));
  auto free_dims = [&](Type t, const std::vector<int64_t>& batch,
                       const std::vector<int64_t>& contract) {
    std::vector<bool> b = DimMask(batch, t.rank());
    std::vector<bool> c = DimMask(contract, t.rank());
    for (int64_t d = 0; d < t.rank(); ++d) {
      if (!b[d] && !c[d]) expected.push_back(t.dim(d));
    }
  };
  free_dims(lhs, dims->lhs_batching_dimensions, dims->lhs_contracting_dimensions);
  free_dims(rhs, dims->rhs_batching_dimensions, dims->rhs_contracting_dimensions);
  BERTH_RETURN_IF_ERROR(PrecisionConfig(op));
  return ExpectResultShape(op, 0, expected);
}

// chlo.ragged_dot: dot_general's checks, one lhs ragged dimension and at
// most one rhs group dimension, and the mode the ragged dimension's kind
// gives: an lhs free dimension (mode 1: the rhs has a group dimension, the
// result dot_general's), a contracting dimension (mode 2: the result gets a
// leading group dimension) or a batching dimension (mode 3). group_sizes is
// [g], or [batch..., g] in modes 1 and 2.
Status RaggedDot(const Operation& op) {
  BERTH_RETURN_IF_ERROR(ExpectTensorOperands(op, 3));
  BERTH_RETURN_IF_ERROR(ExpectTensorResult(op, 0));
  const RaggedDotDimensionNumbers* numbers = op.ragged_dot_dimension_numbers();
  if (!numbers) return OpError(op, "requires a #chlo.ragged_dot<...> ragged_dot_dimension_numbers attribute");
  const DotDimensionNumbers& dims = numbers->dot;
  Type lhs = OperandType(op, 0);
  Type rhs = OperandType(op, 1);
  Type sizes = OperandType(op, 2);
  if (lhs.element_type() != rhs.element_type()) {
    return OpError(op, "lhs and rhs must have the same element type, have " + Str(lhs) + " and " + Str(rhs));
  }
  if (!IsInteger(sizes.element_type())) return OpError(op, "group_sizes must be integers, is " + Str(sizes));
  if (dims.lhs_batching_dimensions.size() != dims.rhs_batching_dimensions.size() ||
      dims.lhs_contracting_dimensions.size() != dims.rhs_contracting_dimensions.size()) {
    return OpError(op, "lhs and rhs must have as many batching and as many contracting dimensions");
  }
  if (numbers->lhs_ragged_dimensions.size() != 1) {
    return OpError(op, "needs exactly one lhs_ragged_dimensions entry, has " +
                           std::to_string(numbers->lhs_ragged_dimensions.size()));
  }
  if (numbers->rhs_group_dimensions.size() > 1) {
    return OpError(op, "takes at most one rhs_group_dimensions entry");
  }
  std::vector<int64_t> lhs_all = dims.lhs_batching_dimensions;
  lhs_all.insert(lhs_all.end(), dims.lhs_contracting_dimensions.begin(), dims.lhs_contracting_dimensions.end());
  BERTH_RETURN_IF_ERROR(ExpectDimsInRange(op, lhs_all, lhs.rank(), "lhs batching and contracting dimensions"));
  std::vector<int64_t> rhs_all = dims.rhs_batching_dimensions;
  rhs_all.insert(rhs_all.end(), dims.rhs_contracting_dimensions.begin(), dims.rhs_contracting_dimensions.end());
  rhs_all.insert(rhs_all.end(), numbers->rhs_group_dimensions.begin(), numbers->rhs_group_dimensions.end());
  BERTH_RETURN_IF_ERROR(ExpectDimsInRange(op, rhs_all, rhs.rank(), "rhs batching, contracting and group dimensions"));
  BERTH_RETURN_IF_ERROR(ExpectDimsInRange(op, numbers->lhs_ragged_dimensions, lhs.rank(), "lhs_ragged_dimensions"));
  for (size_t i = 0; i < dims.lhs_batching_dimensions.size(); ++i) {
    if (!DimsCompatible(lhs.dim(dims.lhs_batching_dimensions[i]), rhs.dim(dims.rhs_batching_dimensions[i]))) {
      return OpError(op, "batching dimension sizes differ between " + Str(lhs) + " and " + Str(rhs));
    }
  }
  for (size_t i = 0; i < dims.lhs_contracting_dimensions.size(); ++i) {
    if (!DimsCompatible(lhs.dim(dims.lhs_contracting_dimensions[i]), rhs.dim(dims.rhs_contracting_dimensions[i]))) {
      return OpError(op, "contracting dimension sizes differ between " + Str(lhs) + " and " + Str(rhs));
    }
  }
  const int64_t ragged = numbers->lhs_ragged_dimensions[0];
  auto contains = [](const std::vector<int64_t>& v, int64_t d) { return std::find(v.begin(), v.end(), d) != v.end(); };
  const bool in_batch = contains(dims.lhs_batching_dimensions, ragged);
  const bool in_contract = contains(dims.lhs_contracting_dimensions, ragged);
  const int mode = in_batch ? 3 : in_contract ? 2 : 1;
  if (mode == 1 && numbers->rhs_group_dimensions.empty()) {
    return OpError(op, "with a ragged lhs free dimension (mode 1) needs an rhs group dimension");
  }
  if (mode != 1 && !numbers->rhs_group_dimensions.empty()) {
    return OpError(op, "with a ragged " + std::string(in_batch ? "batching" : "contracting") +
                           " dimension takes no rhs group dimension");
  }
  int64_t groups = mode == 1 ? rhs.dim(numbers->rhs_group_dimensions[0]) : sizes.rank() > 0 ? sizes.dim(sizes.rank() - 1) : 0;
  const int64_t batch_rank = static_cast<int64_t>(dims.lhs_batching_dimensions.size());
  if (sizes.rank() != 1 && (mode == 3 || sizes.rank() != 1 + batch_rank)) {
    return OpError(op, "group_sizes must be [g]" + std::string(mode == 3 ? "" : " or [batch..., g]") +
                           ", is " + Str(sizes));
  }
  if (!DimsCompatible(sizes.dim(sizes.rank() - 1), groups)) {
    return OpError(op, "group_sizes " + Str(sizes) + " must have one entry per group (" + std::to_string(groups) + ")");
  }
  for (int64_t i = 0; i + 1 < sizes.rank(); ++i) {
    if (!DimsCompatible(sizes.dim(i), lhs.dim(dims.lhs_batching_dimensions[static_cast<size_t>(i)]))) {
      return OpError(op, "group_sizes " + Str(sizes) + " must lead with the batching dimensions");
    }
  }
  std::vector<int64_t> expected;
  if (mode == 2) expected.push_back(groups);
  for (int64_t d : dims.lhs_batching_dimensions) expected.push_back(lhs.dim(d));
  std::vector<bool> lb = DimMask(dims.lhs_batching_dimensions, lhs.rank());
  std::vector<bool> lc = DimMask(dims.lhs_contracting_dimensions, lhs.rank());
  for (int64_t d = 0; d < lhs.rank(); ++d) {
    if (!lb[d] && !lc[d]) expected.push_back(lhs.dim(d));
  }
  std::vector<bool> rx = DimMask(rhs_all, rhs.rank());
  for (int64_t d = 0; d < rhs.rank(); ++d) {
    if (!rx[d]) expected.push_back(rhs.dim(d));
  }
  BERTH_RETURN_IF_ERROR(PrecisionConfig(op));
  return ExpectResultShape(op, 0, expected);
}

Status Convolution(const Operation& op) {
  bool dynamic = op.kind() == OpKind::kDynamicConv;
  BERTH_RETURN_IF_ERROR(OneTensorInOut(op, dynamic ? 3 : 2));
  const ConvDimensionNumbers* dn = op.conv_dimension_numbers();
  if (!dn) return OpError(op, "requires a dimension_numbers attribute");
  Type lhs = OperandType(op, 0);
  Type rhs = OperandType(op, 1);
  Type out = ResultType(op, 0);
  size_t n = dn->input_spatial_dimensions.size();
  int64_t rank = static_cast<int64_t>(n) + 2;
  if (lhs.rank() != rank || rhs.rank() != rank || out.rank() != rank ||
      dn->kernel_spatial_dimensions.size() != n || dn->output_spatial_dimensions.size() != n) {
    return OpError(op, "lhs, rhs and result must have rank " + std::to_string(rank) +
                           " (spatial dimensions + 2)");
  }
  std::vector<int64_t> in_dims = {dn->input_batch_dimension, dn->input_feature_dimension};
  in_dims.insert(in_dims.end(), dn->input_spatial_dimensions.begin(),
                 dn->input_spatial_dimensions.end());
  std::vector<int64_t> k_dims = {dn->kernel_input_feature_dimension,
                                 dn->kernel_output_feature_dimension};
  k_dims.insert(k_dims.end(), dn->kernel_spatial_dimensions.begin(),
                dn->kernel_spatial_dimensions.end());
  std::vector<int64_t> o_dims = {dn->output_batch_dimension, dn->output_feature_dimension};
  o_dims.insert(o_dims.end(), dn->output_spatial_dimensions.begin(),
                dn->output_spatial_dimensions.end());
  BERTH_RETURN_IF_ERROR(ExpectDimsInRange(op, in_dims, rank, "input dimension numbers"));
  BERTH_RETURN_IF_ERROR(ExpectDimsInRange(op, k_dims, rank, "kernel dimension numbers"));
  BERTH_RETURN_IF_ERROR(ExpectDimsInRange(op, o_dims, rank, "output dimension numbers"));
  std::vector<int64_t> strides, lhs_dil, rhs_dil, reversal;
  bool has;
  BERTH_RETURN_IF_ERROR(GetI64ArrayAttr(op, "window_strides", false, &strides, &has));
  if (!has) strides.assign(n, 1);
  BERTH_RETURN_IF_ERROR(GetI64ArrayAttr(op, "lhs_dilation", false, &lhs_dil, &has));
  if (!has) lhs_dil.assign(n, 1);
  BERTH_RETURN_IF_ERROR(GetI64ArrayAttr(op, "rhs_dilation", false, &rhs_dil, &has));
  if (!has) rhs_dil.assign(n, 1);
  BERTH_RETURN_IF_ERROR(GetI64ArrayAttr(op, "window_reversal", false, &reversal, &has));
  if (strides.size() != n || lhs_dil.size() != n || rhs_dil.size() != n ||
      (has && reversal.size() != n)) {
    return OpError(op, "window attributes need one entry per spatial dimension (" +
                           std::to_string(n) + ")");
  }
  for (size_t i = 0; i < n; ++i) {
    if (strides[i] <= 0 || lhs_dil[i] <= 0 || rhs_dil[i] <= 0) {
      return OpError(op, "window strides and dilations must be positive");
    }
  }
  std::vector<std::pair<int64_t, int64_t>> padding(n, {0, 0});
  if (!dynamic && op.has_attr("padding")) {
    const DenseElementsAttr* p = op.GetDense("padding");
    if (!p || p->type().rank() != 2 || p->type().dim(1) != 2 ||
        p->type().dim(0) != static_cast<int64_t>(n)) {
      return OpError(op, "padding must be a tensor<" + std::to_string(n) + "x2xi64>");
    }
    padding = op.GetPairs("padding");
  }
  int64_t feature_groups = 1, batch_groups = 1;
  BERTH_RETURN_IF_ERROR(GetIntAttr(op, "feature_group_count", false, &feature_groups));
  BERTH_RETURN_IF_ERROR(GetIntAttr(op, "batch_group_count", false, &batch_groups));
  if (feature_groups <= 0 || batch_groups <= 0) {
    return OpError(op, "feature_group_count and batch_group_count must be positive");
  }
  if (feature_groups > 1 && batch_groups > 1) {
    return OpError(op, "feature_group_count and batch_group_count cannot both exceed 1");
  }
  int64_t in_batch = lhs.dim(dn->input_batch_dimension);
  int64_t in_feature = lhs.dim(dn->input_feature_dimension);
  int64_t k_in = rhs.dim(dn->kernel_input_feature_dimension);
  int64_t k_out = rhs.dim(dn->kernel_output_feature_dimension);
  if (in_feature != kDynamic && in_feature % feature_groups != 0) {
    return OpError(op, "input feature size " + std::to_string(in_feature) +
                           " is not divisible by feature_group_count");
  }
  if (in_batch != kDynamic && in_batch % batch_groups != 0) {
    return OpError(op, "input batch size " + std::to_string(in_batch) +
                           " is not divisible by batch_group_count");
  }
  if (in_feature != kDynamic && k_in != kDynamic && in_feature / feature_groups != k_in) {
    return OpError(op, "kernel input feature size " + std::to_string(k_in) + " must be " +
                           std::to_string(in_feature / feature_groups));
  }
  if (k_out != kDynamic && (k_out % batch_groups != 0 || k_out % feature_groups != 0)) {
    return OpError(op, "kernel output feature size " + std::to_string(k_out) +
                           " must be divisible by the group counts");
  }
  BERTH_RETURN_IF_ERROR(PrecisionConfig(op));
  if (dynamic) return OkStatus();
  std::vector<int64_t> expected(static_cast<size_t>(rank), kDynamic);
  expected[dn->output_batch_dimension] = in_batch == kDynamic ? kDynamic : in_batch / batch_groups;
  expected[dn->output_feature_dimension] = k_out;
  for (size_t i = 0; i < n; ++i) {
    int64_t in = lhs.dim(dn->input_spatial_dimensions[i]);
    int64_t k = rhs.dim(dn->kernel_spatial_dimensions[i]);
    if (in == kDynamic || k == kDynamic) continue;
    Wide dilated_in = in == 0 ? 0 : Wide(in - 1) * lhs_dil[i] + 1;
    Wide padded = dilated_in + padding[i].first + padding[i].second;
    Wide dilated_k = k == 0 ? 0 : Wide(k - 1) * rhs_dil[i] + 1;
    // No windows over an empty padded input, even an empty window (C25).
    Wide size = padded <= 0 || padded < dilated_k ? 0 : (padded - dilated_k) / strides[i] + 1;
    expected[dn->output_spatial_dimensions[i]] = Narrow(size);
  }
  return ExpectResultShape(op, 0, expected);
}

Status Fft(const Operation& op) {
  BERTH_RETURN_IF_ERROR(OneTensorInOut(op, 1));
  std::optional<FftType> type = op.fft_type();
  if (!type) return OpError(op, "requires an fft_type attribute");
  std::vector<int64_t> length;
  BERTH_RETURN_IF_ERROR(GetI64ArrayAttr(op, "fft_length", true, &length));
  Type in = OperandType(op, 0);
  Type out = ResultType(op, 0);
  if (length.empty() || length.size() > 3 || static_cast<int64_t>(length.size()) > in.rank()) {
    return OpError(op, "fft_length must have 1 to 3 entries, at most the operand rank");
  }
  ElementType ie = in.element_type();
  ElementType oe = out.element_type();
  bool real_in = *type == FftType::kRfft;
  bool real_out = *type == FftType::kIrfft;
  if (real_in ? !IsFloat(ie) : !IsComplex(ie)) {
    return OpError(op, "operand element type does not fit the fft_type");
  }
  if (real_out ? !IsFloat(oe) : !IsComplex(oe)) {
    return OpError(op, "result element type does not fit the fft_type");
  }
  std::vector<int64_t> expected(in.shape().begin(), in.shape().end());
  if (*type == FftType::kRfft && !expected.empty()) expected.back() = length.back() / 2 + 1;
  if (*type == FftType::kIrfft && !expected.empty()) expected.back() = length.back();
  return ExpectResultShape(op, 0, expected);
}

Status Cholesky(const Operation& op) {
  BERTH_RETURN_IF_ERROR(ExpectOperands(op, 1));
  BERTH_RETURN_IF_ERROR(ExpectResults(op, 1));
  BERTH_RETURN_IF_ERROR(ExpectTensorOperand(op, 0));
  Type a = OperandType(op, 0);
  if (a.rank() < 2 || !DimsCompatible(a.dim(a.rank() - 1), a.dim(a.rank() - 2))) {
    return OpError(op, "operand must be a batch of square matrices, is " + Str(a));
  }
  if (!IsFloat(a.element_type()) && !IsComplex(a.element_type())) {
    return OpError(op, "operand must be floating-point or complex, is " + Str(a));
  }
  if (!TypesCompatible(a, ResultType(op, 0))) return OpError(op, "result type must match operand");
  return OkStatus();
}

Status TriangularSolve(const Operation& op) {
  BERTH_RETURN_IF_ERROR(ExpectTensorOperands(op, 2));
  Type a = OperandType(op, 0);
  Type b = OperandType(op, 1);
  if (a.rank() < 2 || !DimsCompatible(a.dim(a.rank() - 1), a.dim(a.rank() - 2))) {
    return OpError(op, "a must be a batch of square matrices, is " + Str(a));
  }
  if (b.rank() != a.rank() || b.element_type() != a.element_type()) {
    return OpError(op, "b must have the rank and element type of a, is " + Str(b));
  }
  for (int64_t i = 0; i + 2 < a.rank(); ++i) {
    if (!DimsCompatible(a.dim(i), b.dim(i))) return OpError(op, "batch dimensions of a and b differ");
  }
  bool left = op.GetBool("left_side");
  int64_t bdim = left ? b.dim(b.rank() - 2) : b.dim(b.rank() - 1);
  if (!DimsCompatible(a.dim(a.rank() - 1), bdim)) {
    return OpError(op, "the size of a does not match b on the " +
                           std::string(left ? "left" : "right") + " side");
  }
  if (op.has_attr("transpose_a") && !op.transpose_a()) {
    return OpError(op, "transpose_a must be a #stablehlo<transpose ...>");
  }
  if (!TypesCompatible(b, ResultType(op, 0))) return OpError(op, "result type must match b");
  return OkStatus();
}

Status BatchNorm(const Operation& op) {
  size_t operands = op.kind() == OpKind::kBatchNormTraining ? 3 : 5;
  size_t results = op.kind() == OpKind::kBatchNormInference ? 1 : 3;
  BERTH_RETURN_IF_ERROR(ExpectOperands(op, operands));
  BERTH_RETURN_IF_ERROR(ExpectResults(op, results));
  for (size_t i = 0; i < operands; ++i) BERTH_RETURN_IF_ERROR(ExpectTensorOperand(op, i));
  Type x = OperandType(op, 0);
  BERTH_ASSIGN_OR_RETURN(int64_t feature, DimensionAttr(op, "feature_index", x.rank()));
  if (!op.GetFloat("epsilon")) return OpError(op, "requires a float 'epsilon' attribute");
  if (!IsFloat(x.element_type())) return OpError(op, "operand must be floating-point");
  std::vector<int64_t> vec = {x.dim(feature)};
  auto check_vec = [&](Type t, const std::string& what) -> Status {
    if (!t.IsTensor() || !ShapesCompatible(t.shape(), vec) || t.element_type() != x.element_type()) {
      return OpError(op, what + " must be a 1-D tensor of " + std::to_string(x.dim(feature)) +
                             " elements of the operand's type, is " + Str(t));
    }
    return OkStatus();
  };
  // Operands after the first: grad has (scale, mean, variance, grad_output),
  // inference (scale, offset, mean, variance), training (scale, offset).
  for (size_t i = 1; i < operands; ++i) {
    if (op.kind() == OpKind::kBatchNormGrad && i == 4) {
      if (!TypesCompatible(OperandType(op, 4), x)) {
        return OpError(op, "grad_output must have the operand's type");
      }
      continue;
    }
    BERTH_RETURN_IF_ERROR(check_vec(OperandType(op, i), "operand #" + std::to_string(i)));
  }
  if (!TypesCompatible(ResultType(op, 0), x)) return OpError(op, "result #0 must have the operand's type");
  for (size_t i = 1; i < results; ++i) {
    BERTH_RETURN_IF_ERROR(check_vec(ResultType(op, i), "result #" + std::to_string(i)));
  }
  return OkStatus();
}

Status Rng(const Operation& op) {
  BERTH_RETURN_IF_ERROR(ExpectTensorOperands(op, 3));
  BERTH_RETURN_IF_ERROR(ExpectTensorResult(op, 0));
  Type a = OperandType(op, 0);
  Type b = OperandType(op, 1);
  Type shape = OperandType(op, 2);
  std::optional<RngDistribution> dist = op.rng_distribution();
  if (!dist) return OpError(op, "requires an rng_distribution attribute");
  if (a.rank() != 0 || b.rank() != 0 || a.element_type() != b.element_type()) {
    return OpError(op, "a and b must be rank-0 tensors of one element type");
  }
  if (shape.rank() != 1 || !IsInteger(shape.element_type())) {
    return OpError(op, "shape must be a 1-D integer tensor, is " + Str(shape));
  }
  Type out = ResultType(op, 0);
  if (out.element_type() != a.element_type()) {
    return OpError(op, "result element type must match a and b");
  }
  if (*dist == RngDistribution::kNormal && !IsFloat(a.element_type())) {
    return OpError(op, "NORMAL needs floating-point a and b");
  }
  if (!DimsCompatible(shape.dim(0), out.rank())) {
    return OpError(op, "shape has " + std::to_string(shape.dim(0)) + " elements but the result " +
                           Str(out) + " has rank " + std::to_string(out.rank()));
  }
  return OkStatus();
}

Status RngBitGenerator(const Operation& op) {
  BERTH_RETURN_IF_ERROR(ExpectOperands(op, 1));
  BERTH_RETURN_IF_ERROR(ExpectResults(op, 2));
  BERTH_RETURN_IF_ERROR(ExpectTensorOperand(op, 0));
  if (!op.rng_algorithm()) return OpError(op, "requires an rng_algorithm attribute");
  Type state = OperandType(op, 0);
  if (state.rank() != 1) return OpError(op, "initial_state must be 1-D, is " + Str(state));
  if (!TypesCompatible(state, ResultType(op, 0))) {
    return OpError(op, "output_state must have the type of initial_state");
  }
  BERTH_RETURN_IF_ERROR(ExpectTensorResult(op, 1));
  ElementType e = ResultType(op, 1).element_type();
  if (!IsInteger(e) && !IsFloat(e)) return OpError(op, "output must be integer or floating-point");
  return OkStatus();
}

}  // namespace

Status VerifyLinalgOp(const Operation& op) {
  switch (op.kind()) {
    case OpKind::kDot: return Dot(op);
    case OpKind::kDotGeneral: return DotGeneral(op);
    case OpKind::kConvolution:
    case OpKind::kDynamicConv: return Convolution(op);
    case OpKind::kFft: return Fft(op);
    case OpKind::kCholesky: return Cholesky(op);
    case OpKind::kChloRaggedDot: return RaggedDot(op);
    case OpKind::kTriangularSolve: return TriangularSolve(op);
    case OpKind::kBatchNormGrad:
    case OpKind::kBatchNormInference:
    case OpKind::kBatchNormTraining: return BatchNorm(op);
    case OpKind::kRng: return Rng(op);
    case OpKind::kRngBitGenerator: return RngBitGenerator(op);
    case OpKind::kEinsum:
    case OpKind::kUnaryEinsum: {
      BERTH_RETURN_IF_ERROR(ExpectOperands(op, op.kind() == OpKind::kEinsum ? 2 : 1));
      BERTH_RETURN_IF_ERROR(ExpectResults(op, 1));
      if (!op.attr_as<StringAttr>("einsum_config")) {
        return OpError(op, "requires a string 'einsum_config' attribute");
      }
      return OkStatus();
    }
    default: return OkStatus();
  }
}

}  // namespace berth::stablehlo::detail
