// Reduction kernels: stablehlo.reduce and reduce_window, one output element
// per thread folding its elements in row-major order with the body's ops
// (long float rows: in blocks, a thread each, then a thread per result).
#include <algorithm>
#include <unordered_map>

#include "codegen/elementwise_codegen.hpp"
#include "codegen/kernel_emitters.hpp"

namespace berth::cuda {

using namespace codegen;  // kernel_emitters.hpp

namespace {

// The end of a reduction loop's iteration - the body's ops on the
// accumulators acc<j> and the loaded elements (`names`), the accumulators
// taking the body's results - and, after the loop, the accumulators
// stored to the outputs.
Status EmitFold(const FusedKernel& kernel, const Operation& op,
                std::unordered_map<const stablehlo::Value*, std::string>& names,
                std::string& body) {
  const size_t n = op.num_results();
  const stablehlo::Block& block = op.region(0).entry_block();
  int next = 0;
  BERTH_RETURN_IF_ERROR(EmitBlockOps(kernel.name, block, "      ", names, next, body));
  // All new values first, then the assignments: a body may swap its accumulators.
  for (size_t j = 0; j < n; ++j) {
    body += "      const " + std::string(ComputeType(op.result(j)->type().element_type())) +
            " next" + std::to_string(j) + " = " + names.at(block.terminator()->operand(j)) + ";\n";
  }
  for (size_t j = 0; j < n; ++j)
    body += "      acc" + std::to_string(j) + " = next" + std::to_string(j) + ";\n";
  body += "    }\n";
  for (size_t j = 0; j < kernel.outputs.size(); ++j) {
    const size_t result = static_cast<size_t>(kernel.outputs[j]->index());
    body += "    out" + std::to_string(j) + "[i] = " +
            Store(kernel.outputs[j]->type().element_type(), "acc" + std::to_string(result)) + ";\n";
  }
  return OkStatus();
}

// The length of the rows a reduce folds in eight lanes as the cpu plugin
// does, or 0 for a fold in plain row-major order. Lanes are used for one
// f32 or f64 operand whose body is one add, multiply, maximum or minimum of
// its two arguments, when the innermost run of dimensions (size-1 ones
// dropped, neighbours of one kind merged) is reduced and holds 16 or more
// elements: that run is the row.
int64_t LaneRowLength(const Operation& op) {
  if (op.kind() != OpKind::kReduce || op.num_results() != 1) return 0;
  const stablehlo::Type operand = op.operand(0)->type();
  if (operand.element_type() != ElementType::kF32 && operand.element_type() != ElementType::kF64)
    return 0;
  const stablehlo::Block& block = op.region(0).entry_block();
  if (block.operations().size() != 2 || block.num_arguments() != 2) return 0;
  const Operation& combine = *block.operations()[0];
  const OpKind kind = combine.kind();
  if (kind != OpKind::kAdd && kind != OpKind::kMultiply && kind != OpKind::kMaximum &&
      kind != OpKind::kMinimum) {
    return 0;
  }
  const bool arguments =
      combine.num_operands() == 2 &&
      ((combine.operand(0) == block.argument(0) && combine.operand(1) == block.argument(1)) ||
       (combine.operand(0) == block.argument(1) && combine.operand(1) == block.argument(0)));
  if (!arguments || block.terminator()->operand(0) != combine.result(0)) return 0;
  const std::span<const int64_t> dims = op.GetI64Array("dimensions");
  int64_t row = 0;
  for (int64_t d = operand.rank() - 1; d >= 0; --d) {
    if (operand.dim(d) == 1) continue;
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) break;  // a kept dimension
    row = (row == 0 ? 1 : row) * operand.dim(d);
  }
  return row >= 16 ? row : 0;
}

}  // namespace

int64_t BlockedReduceThreads(const Operation& op, int64_t& scratch_bytes) {
  scratch_bytes = 0;
  const int64_t row = LaneRowLength(op);
  if (row < 2 * kFoldBlock) return 0;
  const stablehlo::Type operand = op.operand(0)->type();
  const int64_t parts = operand.NumElements() / row * (row / kFoldBlock);
  scratch_bytes = parts * static_cast<int64_t>(stablehlo::StorageBytes(operand.element_type()));
  return std::max(parts, op.result(0)->type().NumElements());
}

Status CheckReduce(const Operation& op) {
  if (op.kind() != OpKind::kReduce && op.kind() != OpKind::kReduceWindow) {
    return Unsupported(op, "not a reduce or reduce_window");
  }
  const size_t n = op.num_results();
  if (n == 0 || op.num_operands() != 2 * n || op.num_regions() != 1 ||
      op.region(0).blocks().size() != 1) {
    return Unsupported(op, "not N operands, N init values, N results and one body block");
  }
  for (const stablehlo::Value* value : op.operands()) {
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, value->type()));
  }
  for (size_t j = n; j < 2 * n; ++j) {
    if (op.operand(j)->type().rank() != 0) return Unsupported(op, "init values must be rank 0");
  }
  const int64_t rank = op.operand(0)->type().rank();
  for (size_t j = 0; j < n; ++j) {
    const std::span<const int64_t> shape = op.operand(j)->type().shape(),
                                   first = op.operand(0)->type().shape();
    if (!std::equal(shape.begin(), shape.end(), first.begin(), first.end())) {
      return Unsupported(op, "its operands must have one shape");
    }
  }
  if (op.kind() == OpKind::kReduce) {
    for (int64_t d : op.GetI64Array("dimensions")) {
      if (d < 0 || d >= rank)
        return Unsupported(op, "dimensions must be dimensions of the operands");
    }
  } else {
    BERTH_RETURN_IF_ERROR(
        CheckWindowAttributes(op, rank, {"window_strides", "base_dilations", "window_dilations"}));
    for (size_t j = 0; j < n; ++j) {
      if (op.result(j)->type().rank() != rank)
        return Unsupported(op, "results must have the operands' rank");
    }
  }
  const stablehlo::Block& body = op.region(0).entry_block();
  if (body.num_arguments() != 2 * n || body.terminator() == nullptr ||
      body.terminator()->num_operands() != n) {
    return Unsupported(op, "its body must take 2N values and return N");
  }
  for (size_t j = 0; j < 2 * n; ++j) {
    if (body.argument(j)->type().element_type() != op.operand(j)->type().element_type()) {
      return Unsupported(op, "its body must take the operands' element types");
    }
  }
  for (const Operation* inner : body.operations()) {
    if (inner == body.terminator()) continue;
    BERTH_RETURN_IF_ERROR(CheckFusible(*inner).WithContext("in the body of " + Where(op)));
  }
  return OkStatus();
}

namespace codegen {

Result<std::string> EmitReduceKernel(const FusedKernel& kernel) {
  const Operation& op = *kernel.root;
  BERTH_RETURN_IF_ERROR(CheckReduce(op));
  const size_t n = op.num_results();
  const stablehlo::Type operand = op.operand(0)->type();
  const std::span<const int64_t> dims = op.GetI64Array("dimensions");
  auto reduced = [&](int64_t d) { return std::find(dims.begin(), dims.end(), d) != dims.end(); };
  std::string params = KernelParams(kernel), body;
  // The output element's index in each kept dimension.
  std::vector<int64_t> kept, reduced_dims;
  for (int64_t d = 0; d < operand.rank(); ++d) (reduced(d) ? reduced_dims : kept).push_back(d);
  int64_t count = 1;
  for (int64_t d : reduced_dims) count *= operand.dim(d);
  const int64_t row = LaneRowLength(op);
  // Rows this long fold in blocks, in the two launches the planner gives
  // the kernel (BlockedReduceThreads); a kernel planned otherwise would fold
  // them in another order than the cpu plugin.
  const bool blocked = row >= 2 * kFoldBlock;
  if (blocked != (kernel.launches.size() == 2)) {
    return InvalidArgumentError("kernel '" + kernel.name +
                                "': " + std::to_string(kernel.launches.size()) +
                                " launches for a reduce whose rows " +
                                (blocked ? "fold in blocks (2 needed)" : "do not fold in blocks"));
  }
  const int64_t blocks = blocked ? row / kFoldBlock : 1, rows = row > 0 ? count / row : 0;
  std::string result_index = "i";
  if (blocked) {
    // Pass 0: thread i folds block i % blocks of row i / blocks % rows of
    // result i / (blocks * rows); pass 1: thread i folds result i.
    result_index = "result";
    body += "    if (pass == 1 && i >= " + std::to_string(op.result(0)->type().NumElements()) +
            "LL) continue;\n";
    body += "    const berth_s64 result = pass == 0 ? i / " + std::to_string(blocks * rows) +
            "LL : i;\n";
  }
  std::vector<std::string> at(static_cast<size_t>(operand.rank()));
  EmitDecompose(result_index, kept, operand.shape(), "o", "    ", body, at);
  for (size_t j = 0; j < n; ++j) {
    const stablehlo::Value* init = op.operand(n + j);
    BERTH_ASSIGN_OR_RETURN(const std::string input, InputParam(kernel, init));
    const ElementType type = init->type().element_type();
    body += "    " + std::string(ComputeType(type)) + " acc" + std::to_string(j) + " = " +
            Load(type, input + "[0]") + ";\n";
  }
  // Code loading the operands' elements x<j> at position r of the reduced
  // elements in row-major order.
  std::string load;
  EmitDecompose("r", reduced_dims, operand.shape(), "q", "      ", load, at);
  load += "      const berth_s64 at = " + LinearIndex(at, operand.shape()) + ";\n";
  const stablehlo::Block& block = op.region(0).entry_block();
  std::unordered_map<const stablehlo::Value*, std::string> names;
  for (size_t j = 0; j < n; ++j) {
    const stablehlo::Value* value = op.operand(j);
    const ElementType type = value->type().element_type();
    const std::string local = "x" + std::to_string(j);
    const ViewRead* view = nullptr;
    for (const ViewRead& candidate : kernel.views) {
      if (candidate.value == value) view = &candidate;
    }
    if (view == nullptr) {
      BERTH_ASSIGN_OR_RETURN(const std::string input, InputParam(kernel, value));
      load += "      const " + std::string(ComputeType(type)) + " " + local + " = " +
              Load(type, input + "[at]") + ";\n";
    } else {
      std::string index, iota;
      load += EmitViewIndex(*view, "at", "w" + std::to_string(j) + "_", index, iota);
      if (!iota.empty()) {
        load += "      const " + std::string(ComputeType(type)) + " " + local + " = " +
                ConvertExpression(ElementType::kSI64, type, iota) + ";\n";
      } else {
        BERTH_ASSIGN_OR_RETURN(const std::string input, InputParam(kernel, view->source));
        load += "      const " + std::string(ComputeType(type)) + " " + local + " = " +
                Load(type, input + "[" + index + "]") + ";\n";
      }
    }
    names[block.argument(j)] = "acc" + std::to_string(j);
    names[block.argument(n + j)] = local;
  }
  if (row > 0) {
    // The cpu plugin's fold of a float row of 16 or more (isa/reduce_loops.cc
    // there): eight lanes start at the row's first eight elements and each
    // takes every eighth one after; they fold left to right, then the tail,
    // then the row into the accumulator. Rows of 2 * kFoldBlock or more fold
    // so block by block (the last block taking the rest), the blocks' parts
    // in order: pass 0 folds each block, pass 1 the parts.
    const ElementType type = op.operand(0)->type().element_type();
    const std::string t = ComputeType(type);
    BERTH_ASSIGN_OR_RETURN(std::string combine, OpExpression(*block.operations()[0], {"a", "b"}));
    body += "    auto combine = [&](" + t + " a, " + t + " b) -> " + t + " { return " + combine +
            "; };\n";
    body += "    auto element = [&](berth_s64 r) -> " + t + " {\n" + load +
            "      return x0;\n    };\n";
    // The lane fold of `length` elements from `first`, as `part`.
    auto lane_fold = [&](const std::string& indent) {
      body += indent + t + " lanes[8];\n";
      body += indent + "for (int j = 0; j < 8; ++j) lanes[j] = element(first + j);\n";
      body += indent + "berth_s64 c = 8;\n";
      body += indent + "for (; c + 8 <= length; c += 8) {\n";
      body +=
          indent +
          "  for (int j = 0; j < 8; ++j) lanes[j] = combine(lanes[j], element(first + c + j));\n";
      body += indent + "}\n";
      body += indent + t + " part = lanes[0];\n";
      body += indent + "for (int j = 1; j < 8; ++j) part = combine(part, lanes[j]);\n";
      body += indent + "for (; c < length; ++c) part = combine(part, element(first + c));\n";
    };
    const std::string row_length = std::to_string(row) + "LL";
    if (blocked) {
      const std::string b = std::to_string(blocks) + "LL",
                        block_length = std::to_string(kFoldBlock) + "LL";
      body += "    " + t + "* const parts = (" + t + "*)scratch;\n";
      body += "    if (pass == 0) {\n";
      body += "      const berth_s64 block = i % " + b + ";\n";
      body += "      const berth_s64 first = i / " + b + " % " + std::to_string(rows) + "LL * " +
              row_length + " + block * " + block_length + ";\n";
      body += "      const berth_s64 length = block == " + b + " - 1 ? " + row_length +
              " - block * " + block_length + " : " + block_length + ";\n";
      lane_fold("      ");
      body += "      parts[i] = part;\n      continue;\n    }\n";
      body += "    for (berth_s64 row = 0; row < " + std::to_string(rows) + "LL; ++row) {\n";
      body += "      const " + t + "* const row_parts = parts + (i * " + std::to_string(rows) +
              "LL + row) * " + b + ";\n";
      body += "      " + t + " part = row_parts[0];\n";
      body +=
          "      for (berth_s64 k = 1; k < " + b + "; ++k) part = combine(part, row_parts[k]);\n";
      body += "      acc0 = combine(acc0, part);\n";
      body += "    }\n";
    } else {
      body += "    for (berth_s64 row = 0; row < " + std::to_string(rows) + "LL; ++row) {\n";
      body += "      const berth_s64 first = row * " + row_length + ";\n";
      body += "      const berth_s64 length = " + row_length + ";\n";
      lane_fold("      ");
      body += "      acc0 = combine(acc0, part);\n";
      body += "    }\n";
    }
    const size_t result = 0;
    for (size_t j = 0; j < kernel.outputs.size(); ++j) {
      body += "    out" + std::to_string(j) + "[i] = " +
              Store(kernel.outputs[j]->type().element_type(), "acc" + std::to_string(result)) +
              ";\n";
    }
    return WrapKernel(kernel.name, params, body);
  }
  body += "    for (berth_s64 r = 0; r < " + std::to_string(count) + "LL; ++r) {\n" + load;
  BERTH_RETURN_IF_ERROR(EmitFold(kernel, op, names, body));
  return WrapKernel(kernel.name, params, body);
}

// reduce_window: each thread one output element, folding its window of the
// padded, base-dilated operands in row-major order; a window element on
// padding or a hole of base dilation folds in the init value (as the cpu
// plugin and the spec do).
Result<std::string> EmitReduceWindowKernel(const FusedKernel& kernel) {
  const Operation& op = *kernel.root;
  BERTH_RETURN_IF_ERROR(CheckReduce(op));
  const size_t n = op.num_results();
  const stablehlo::Type operand = op.operand(0)->type();
  const size_t rank = static_cast<size_t>(operand.rank());
  auto attribute = [&](const char* name) {
    std::span<const int64_t> values = op.GetI64Array(name);
    return values.empty() ? std::vector<int64_t>(rank, 1)
                          : std::vector<int64_t>(values.begin(), values.end());
  };
  const std::vector<int64_t> window = attribute("window_dimensions"),
                             strides = attribute("window_strides"),
                             base = attribute("base_dilations"),
                             dilation = attribute("window_dilations");
  std::vector<std::pair<int64_t, int64_t>> padding = op.GetPairs("padding");
  if (padding.empty()) padding.assign(rank, {0, 0});
  std::string params = KernelParams(kernel), body;
  const std::vector<std::string> o = EmitResultIndex(op.result(0)->type().shape(), "o", body);
  for (size_t j = 0; j < n; ++j) {
    const stablehlo::Value* init = op.operand(n + j);
    BERTH_ASSIGN_OR_RETURN(const std::string input, InputParam(kernel, init));
    const ElementType type = init->type().element_type();
    const std::string t = ComputeType(type);
    body +=
        "    const " + t + " init" + std::to_string(j) + " = " + Load(type, input + "[0]") + ";\n";
    body += "    " + t + " acc" + std::to_string(j) + " = init" + std::to_string(j) + ";\n";
  }
  int64_t count = 1;
  for (int64_t w : window) count *= w;
  body += "    for (berth_s64 r = 0; r < " + std::to_string(count) + "LL; ++r) {\n";
  std::vector<int64_t> all(rank);
  for (size_t d = 0; d < rank; ++d) all[d] = static_cast<int64_t>(d);
  std::vector<std::string> w(rank), index(rank);
  EmitDecompose("r", all, window, "w", "      ", body, w);
  body += "      bool valid = true;\n";
  for (size_t d = 0; d < rank; ++d) {
    const std::string p = "p" + std::to_string(d);
    const int64_t dilated = operand.dim(static_cast<int64_t>(d)) == 0
                                ? 0
                                : (operand.dim(static_cast<int64_t>(d)) - 1) * base[d] + 1;
    body += "      const berth_s64 " + p + " = " + o[d] + " * " + std::to_string(strides[d]) +
            "LL + " + w[d] + " * " + std::to_string(dilation[d]) + "LL - (" +
            std::to_string(padding[d].first) + "LL);\n";
    body += "      valid = valid && " + p + " >= 0 && " + p + " < " + std::to_string(dilated) +
            "LL && " + p + " % " + std::to_string(base[d]) + "LL == 0;\n";
    index[d] = p + " / " + std::to_string(base[d]) + "LL";
  }
  const stablehlo::Block& block = op.region(0).entry_block();
  std::unordered_map<const stablehlo::Value*, std::string> names;
  int reads = 0;
  for (size_t j = 0; j < n; ++j) {
    const ElementType type = op.operand(j)->type().element_type();
    const std::string x = "x" + std::to_string(j);
    body +=
        "      " + std::string(ComputeType(type)) + " " + x + " = init" + std::to_string(j) + ";\n";
    body += "      if (valid) {\n";
    BERTH_RETURN_IF_ERROR(
        EmitElementLoad(kernel, op.operand(j), index, x, type, "        ", reads, body));
    body += "      }\n";
    names[block.argument(j)] = "acc" + std::to_string(j);
    names[block.argument(n + j)] = x;
  }
  BERTH_RETURN_IF_ERROR(EmitFold(kernel, op, names, body));
  return WrapKernel(kernel.name, params, body);
}

// chlo.scan: each thread one element of the slices (every position but
// along `dimension`), its carries starting at the inits' element, then the
// body's ops on that element of each input's slice and the carries, one
// position after the other (from the end when is_reverse): the outputs'
// elements at each position, the carries' at the end.
Result<std::string> EmitScanKernel(const FusedKernel& kernel) {
  const Operation& op = *kernel.root;
  BERTH_RETURN_IF_ERROR(CheckScan(op));
  const std::span<const int64_t> segments = op.GetI64Array("operandSegmentSizes");
  const size_t inputs = static_cast<size_t>(segments[0]), inits = static_cast<size_t>(segments[1]);
  const size_t outputs = op.num_results() - inits;
  const int64_t dim = *op.GetInt("dimension");
  const bool reverse = op.GetBool("is_reverse", false);
  // The full shape (an input's or output's) and the slices' (the carries').
  const stablehlo::Type full = inputs > 0 ? op.operand(0)->type() : op.result(0)->type();
  const int64_t length = full.dim(dim);
  std::vector<int64_t> slice_dims;
  for (int64_t d = 0; d < full.rank(); ++d) {
    if (d != dim) slice_dims.push_back(d);
  }
  std::string body;
  std::vector<std::string> index(static_cast<size_t>(full.rank()));
  EmitDecompose("i", slice_dims, full.shape(), "s", "    ", body, index);
  index[static_cast<size_t>(dim)] = "0";
  body += "    const berth_s64 base = " + LinearIndex(index, full.shape()) + ";\n";
  const std::string stride =
      std::to_string(RowMajorStrides(full.shape())[static_cast<size_t>(dim)]);
  const stablehlo::Block& block = op.region(0).entry_block();
  std::unordered_map<const stablehlo::Value*, std::string> names;
  for (size_t j = 0; j < inits; ++j) {
    const stablehlo::Value* init = op.operand(inputs + j);
    BERTH_ASSIGN_OR_RETURN(const std::string param, InputParam(kernel, init));
    const ElementType type = init->type().element_type();
    body += "    " + std::string(ComputeType(type)) + " carry" + std::to_string(j) + " = " +
            Load(type, param + "[i]") + ";\n";
    names[block.argument(inputs + j)] = "carry" + std::to_string(j);
  }
  body += "    for (berth_s64 step = 0; step < " + std::to_string(length) + "LL; ++step) {\n";
  body += "      const berth_s64 at = base + (" +
          (reverse ? std::to_string(length - 1) + "LL - step" : std::string("step")) + ") * " +
          stride + "LL;\n";
  for (size_t j = 0; j < inputs; ++j) {
    BERTH_ASSIGN_OR_RETURN(const std::string param, InputParam(kernel, op.operand(j)));
    const ElementType type = op.operand(j)->type().element_type();
    body += "      const " + std::string(ComputeType(type)) + " x" + std::to_string(j) + " = " +
            Load(type, param + "[at]") + ";\n";
    names[block.argument(j)] = "x" + std::to_string(j);
  }
  int next = 0;
  BERTH_RETURN_IF_ERROR(EmitBlockOps(kernel.name, block, "      ", names, next, body));
  const Operation& terminator = *block.terminator();
  for (size_t j = 0; j < outputs; ++j) {
    body += "      out" + std::to_string(j) + "[at] = " +
            Store(op.result(j)->type().element_type(), names.at(terminator.operand(j))) + ";\n";
  }
  // All new carries first: a body may swap them.
  for (size_t j = 0; j < inits; ++j) {
    body += "      const " +
            std::string(ComputeType(op.result(outputs + j)->type().element_type())) + " next" +
            std::to_string(j) + " = " + names.at(terminator.operand(outputs + j)) + ";\n";
  }
  for (size_t j = 0; j < inits; ++j)
    body += "      carry" + std::to_string(j) + " = next" + std::to_string(j) + ";\n";
  body += "    }\n";
  for (size_t j = 0; j < inits; ++j) {
    body += "    out" + std::to_string(outputs + j) + "[i] = " +
            Store(op.result(outputs + j)->type().element_type(), "carry" + std::to_string(j)) +
            ";\n";
  }
  return WrapKernel(kernel.name, KernelParams(kernel), body);
}

}  // namespace codegen

Status CheckScan(const Operation& op) {
  const std::span<const int64_t> segments = op.GetI64Array("operandSegmentSizes");
  const std::optional<int64_t> dim = op.GetInt("dimension");
  if (op.kind() != OpKind::kChloScan || segments.size() != 2 || !dim || op.num_regions() != 1 ||
      op.region(0).blocks().size() != 1) {
    return Unsupported(op, "not inputs, inits, a dimension and a body");
  }
  const size_t inputs = static_cast<size_t>(segments[0]), inits = static_cast<size_t>(segments[1]);
  if (inputs + inits != op.num_operands() || op.num_results() < inits ||
      op.num_results() - inits + inputs == 0) {
    return Unsupported(op, "its operands and results do not fit operandSegmentSizes");
  }
  const size_t outputs = op.num_results() - inits;
  const stablehlo::Type full = inputs > 0 ? op.operand(0)->type() : op.result(0)->type();
  if (*dim < 0 || *dim >= full.rank())
    return Unsupported(op, "dimension is not one of its inputs'");
  for (const stablehlo::Value* value : op.operands())
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, value->type()));
  for (const stablehlo::Value* value : op.results())
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, value->type()));
  // Every input and output of the full shape; every carry, and every value
  // of the body, of the slices' elements: the body is then elementwise on
  // them, each slice element scanning alone.
  std::vector<int64_t> slice;
  for (int64_t d = 0; d < full.rank(); ++d) {
    if (d != *dim) slice.push_back(full.dim(d));
  }
  auto is_slice = [&](stablehlo::Type type) {
    return std::equal(type.shape().begin(), type.shape().end(), slice.begin(), slice.end());
  };
  auto is_full = [&](stablehlo::Type type) {
    return std::ranges::equal(type.shape(), full.shape());
  };
  for (size_t j = 0; j < inputs; ++j) {
    if (!is_full(op.operand(j)->type())) return Unsupported(op, "its inputs differ in shape");
  }
  for (size_t j = 0; j < outputs; ++j) {
    if (!is_full(op.result(j)->type()))
      return Unsupported(op, "its outputs are not of its inputs' shape");
  }
  for (size_t j = 0; j < inits; ++j) {
    if (!is_slice(op.operand(inputs + j)->type()) || !is_slice(op.result(outputs + j)->type()))
      return Unsupported(op, "its carries are not of the slices' shape");
  }
  const stablehlo::Block& block = op.region(0).entry_block();
  if (block.num_arguments() != inputs + inits || block.terminator() == nullptr ||
      block.terminator()->num_operands() != op.num_results()) {
    return Unsupported(op, "its body must take a slice of each input and the carries");
  }
  for (const stablehlo::Value* argument : block.arguments()) {
    if (!is_slice(argument->type())) return Unsupported(op, "its body takes other than slices");
  }
  for (const Operation* inner : block.operations()) {
    if (inner == block.terminator()) continue;
    BERTH_RETURN_IF_ERROR(CheckFusible(*inner).WithContext("in the body of " + Where(op)));
    if (!is_slice(inner->result(0)->type()))
      return Unsupported(op, "its body computes other than slices (only elementwise bodies)");
  }
  return OkStatus();
}

}  // namespace berth::cuda
