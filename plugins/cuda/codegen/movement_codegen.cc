// Data movement kernels: concatenate, pad, dynamic_slice,
// dynamic_update_slice and gather (one output element per thread), scatter
// (one slice of the results per thread, the updates in order) and
// select_and_scatter (one result element per thread).
#include <algorithm>
#include <optional>
#include <unordered_map>

#include "codegen/elementwise_codegen.hpp"
#include "codegen/kernel_emitters.hpp"

namespace berth::cuda {

using namespace codegen;  // kernel_emitters.hpp

namespace {

// Whether `list` holds distinct dimensions in [0, rank).
bool DistinctDims(std::span<const int64_t> list, int64_t rank) {
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(rank, 0)));
  for (int64_t d : list) {
    if (d < 0 || d >= rank || seen[static_cast<size_t>(d)]) return false;
    seen[static_cast<size_t>(d)] = true;
  }
  return true;
}

// dynamic_slice, dynamic_update_slice: one rank-0 integer start index per
// dimension after the moved operands; slice sizes within the operand.
Status CheckDynamicSlice(const Operation& op) {
  const stablehlo::Type operand = op.operand(0)->type();
  const size_t first_index = op.kind() == OpKind::kDynamicSlice ? 1 : 2;
  if (op.num_operands() != first_index + static_cast<size_t>(operand.rank())) {
    return Unsupported(op, "it needs one start index per dimension of the operand");
  }
  for (size_t j = first_index; j < op.num_operands(); ++j) {
    const stablehlo::Type index = op.operand(j)->type();
    if (index.rank() != 0 || !stablehlo::IsInteger(index.element_type())) {
      return Unsupported(op, "start indices must be rank-0 integers, not " + index.ToString());
    }
  }
  std::span<const int64_t> sizes = op.kind() == OpKind::kDynamicSlice
                                       ? op.GetI64Array("slice_sizes")
                                       : op.operand(1)->type().shape();
  if (static_cast<int64_t>(sizes.size()) != operand.rank()) {
    return Unsupported(op, "the slice must have the operand's rank");
  }
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (sizes[static_cast<size_t>(d)] < 0 || sizes[static_cast<size_t>(d)] > operand.dim(d)) {
      return Unsupported(op, "the slice must fit in the operand");
    }
  }
  return OkStatus();
}

// A gather's dimension numbers and slice sizes: its own (dynamic_gather's
// sizes a constant operand), or those of the gather torch_index_select is
// (Operation::torch_index_select_as_gather, as the cpu plugin forms them).
struct GatherShape {
  stablehlo::GatherDimensionNumbers numbers;
  std::vector<int64_t> sizes;
};

std::optional<GatherShape> GatherShapeOf(const Operation& op) {
  GatherShape shape;
  if (op.kind() == OpKind::kTorchIndexSelect) {
    if (!op.torch_index_select_as_gather(shape.numbers, shape.sizes)) return std::nullopt;
    return shape;
  }
  const stablehlo::GatherDimensionNumbers* numbers = op.gather_dimension_numbers();
  std::optional<std::vector<int64_t>> sizes = StaticArray(op, "slice_sizes");
  if (numbers == nullptr || !sizes) return std::nullopt;
  shape.numbers = *numbers;
  shape.sizes = std::move(*sizes);
  return shape;
}

Status CheckGather(const Operation& op) {
  const size_t operands = op.kind() == OpKind::kDynamicGather ? 3 : 2;
  if (op.num_operands() != operands ||
      (op.kind() != OpKind::kTorchIndexSelect && op.gather_dimension_numbers() == nullptr)) {
    return Unsupported(op, "it needs an operand, start indices and dimension numbers");
  }
  const stablehlo::Type operand = op.operand(0)->type(), indices = op.operand(1)->type(),
                        result = op.result(0)->type();
  if (!stablehlo::IsInteger(indices.element_type()))
    return Unsupported(op, "start indices must be integers");
  const std::optional<GatherShape> gather = GatherShapeOf(op);
  if (!gather)
    return Unsupported(op, "its slice sizes are not a constant (dynamic shapes are not generated)");
  const std::vector<int64_t>& sizes = gather->sizes;
  const stablehlo::GatherDimensionNumbers* numbers = &gather->numbers;
  const int64_t r = operand.rank(), s = indices.rank(), ivd = numbers->index_vector_dim;
  if (static_cast<int64_t>(sizes.size()) != r || ivd < 0 || ivd > s) {
    return Unsupported(op, "slice_sizes or index_vector_dim do not fit the operands");
  }
  for (int64_t d = 0; d < r; ++d) {
    if (sizes[static_cast<size_t>(d)] < 0 || sizes[static_cast<size_t>(d)] > operand.dim(d)) {
      return Unsupported(op, "slice_sizes exceed the operand");
    }
  }
  std::vector<int64_t> not_window = numbers->collapsed_slice_dims;
  not_window.insert(not_window.end(), numbers->operand_batching_dims.begin(),
                    numbers->operand_batching_dims.end());
  std::vector<int64_t> batching = numbers->start_indices_batching_dims;
  batching.push_back(ivd);  // distinct from the batching dimensions
  const int64_t index_count = ivd < s ? indices.dim(ivd) : 1;
  const int64_t window = r - static_cast<int64_t>(not_window.size());
  if (!DistinctDims(not_window, r) || !DistinctDims(numbers->start_index_map, r) ||
      !DistinctDims(batching, s + 1) ||
      numbers->operand_batching_dims.size() != numbers->start_indices_batching_dims.size() ||
      static_cast<int64_t>(numbers->start_index_map.size()) != index_count ||
      static_cast<int64_t>(numbers->offset_dims.size()) != window ||
      !DistinctDims(numbers->offset_dims, result.rank()) ||
      result.rank() != window + s - (ivd < s ? 1 : 0)) {
    return Unsupported(op, "its dimension numbers do not fit its operands and result");
  }
  return OkStatus();
}

}  // namespace

Status CheckMove(const Operation& op) {
  const OpKind kind = op.kind();
  if (kind != OpKind::kConcatenate && kind != OpKind::kPad && kind != OpKind::kDynamicSlice &&
      kind != OpKind::kDynamicUpdateSlice && kind != OpKind::kGather &&
      kind != OpKind::kDynamicGather && kind != OpKind::kDynamicPad &&
      kind != OpKind::kTorchIndexSelect) {
    return Unsupported(op, "not data movement the code generator writes as a kernel");
  }
  std::vector<stablehlo::Type> types = {op.result(0)->type()};
  for (const stablehlo::Value* operand : op.operands()) types.push_back(operand->type());
  for (stablehlo::Type type : types) BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, type));
  if (op.num_operands() == 0) return Unsupported(op, "it has no operands");
  if (kind == OpKind::kDynamicSlice || kind == OpKind::kDynamicUpdateSlice)
    return CheckDynamicSlice(op);
  if (kind == OpKind::kGather || kind == OpKind::kDynamicGather ||
      kind == OpKind::kTorchIndexSelect)
    return CheckGather(op);
  const int64_t rank = op.result(0)->type().rank();
  if (op.kind() == OpKind::kConcatenate) {
    std::optional<int64_t> dimension = op.GetInt("dimension");
    if (!dimension || *dimension < 0 || *dimension >= rank || op.num_operands() == 0) {
      return Unsupported(op, "no dimension of the result to concatenate along");
    }
    return OkStatus();
  }
  if (op.num_operands() != (kind == OpKind::kDynamicPad ? 5u : 2u) ||
      op.operand(1)->type().rank() != 0) {
    return Unsupported(op, "the padding value must be rank 0");
  }
  // The amounts (dynamic_pad: constant operands) fit the result.
  const stablehlo::Type operand = op.operand(0)->type();
  std::vector<std::vector<int64_t>> amounts;
  for (const char* name : {"edge_padding_low", "edge_padding_high", "interior_padding"}) {
    std::optional<std::vector<int64_t>> values = StaticArray(op, name);
    if (!values)
      return Unsupported(op, std::string(name) +
                                 " is not a constant (dynamic shapes are not generated)");
    if (static_cast<int64_t>(values->size()) != rank) {
      return Unsupported(op, std::string(name) + " must hold one value per dimension");
    }
    amounts.push_back(std::move(*values));
  }
  for (int64_t d = 0; d < rank; ++d) {
    const size_t k = static_cast<size_t>(d);
    const int64_t n = operand.dim(d);
    if (amounts[2][k] < 0 ||
        amounts[0][k] + amounts[1][k] + n + std::max<int64_t>(n - 1, 0) * amounts[2][k] !=
            op.result(0)->type().dim(d)) {
      return InvalidArgumentError(
          Where(op) + ": its padding does not give its result's dimension " + std::to_string(d));
    }
  }
  return OkStatus();
}

Status CheckScatter(const Operation& op) {
  const stablehlo::ScatterDimensionNumbers* numbers = op.scatter_dimension_numbers();
  const size_t n = op.num_results();
  if (op.kind() != OpKind::kScatter || numbers == nullptr || n == 0 ||
      op.num_operands() != 2 * n + 1 || op.num_regions() != 1 ||
      op.region(0).blocks().size() != 1) {
    return Unsupported(op, "not N inputs, scatter indices, N updates and an update computation");
  }
  for (const stablehlo::Value* value : op.operands())
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, value->type()));
  const stablehlo::Type input = op.operand(0)->type(), indices = op.operand(n)->type(),
                        updates = op.operand(n + 1)->type();
  if (!stablehlo::IsInteger(indices.element_type()))
    return Unsupported(op, "scatter indices must be integers");
  const int64_t r = input.rank(), s = indices.rank(), ivd = numbers->index_vector_dim;
  for (size_t j = 0; j < n; ++j) {
    const std::span<const int64_t> a = op.operand(j)->type().shape(),
                                   b = op.operand(n + 1 + j)->type().shape();
    if (!std::equal(a.begin(), a.end(), input.shape().begin(), input.shape().end()) ||
        !std::equal(b.begin(), b.end(), updates.shape().begin(), updates.shape().end())) {
      return Unsupported(op, "its inputs, and its updates, must each have one shape");
    }
  }
  std::vector<int64_t> not_window = numbers->inserted_window_dims;
  not_window.insert(not_window.end(), numbers->input_batching_dims.begin(),
                    numbers->input_batching_dims.end());
  std::vector<int64_t> batching = numbers->scatter_indices_batching_dims;
  batching.push_back(ivd);
  const int64_t index_count = ivd < s ? indices.dim(ivd) : 1;
  const int64_t scatter_rank = s - (ivd < s ? 1 : 0);
  if (ivd < 0 || ivd > s || !DistinctDims(not_window, r) ||
      !DistinctDims(numbers->scatter_dims_to_operand_dims, r) || !DistinctDims(batching, s + 1) ||
      numbers->input_batching_dims.size() != numbers->scatter_indices_batching_dims.size() ||
      static_cast<int64_t>(numbers->scatter_dims_to_operand_dims.size()) != index_count ||
      !DistinctDims(numbers->update_window_dims, updates.rank()) ||
      static_cast<int64_t>(numbers->update_window_dims.size()) !=
          r - static_cast<int64_t>(not_window.size()) ||
      updates.rank() != scatter_rank + static_cast<int64_t>(numbers->update_window_dims.size())) {
    return Unsupported(op, "its dimension numbers do not fit its operands");
  }
  const stablehlo::Block& body = op.region(0).entry_block();
  if (body.num_arguments() != 2 * n || body.terminator() == nullptr ||
      body.terminator()->num_operands() != n) {
    return Unsupported(op, "its update computation must take 2N values and return N");
  }
  for (size_t j = 0; j < n; ++j) {
    if (body.argument(j)->type().element_type() != op.operand(j)->type().element_type() ||
        body.argument(n + j)->type().element_type() !=
            op.operand(n + 1 + j)->type().element_type()) {
      return Unsupported(op,
                         "its update computation must take the inputs' and updates' element types");
    }
  }
  for (const Operation* inner : body.operations()) {
    if (inner == body.terminator()) continue;
    BERTH_RETURN_IF_ERROR(
        CheckFusible(*inner).WithContext("in the update computation of " + Where(op)));
  }
  return OkStatus();
}

Status CheckSelectAndScatter(const Operation& op) {
  if (op.kind() != OpKind::kSelectAndScatter || op.num_operands() != 3 || op.num_results() != 1 ||
      op.num_regions() != 2) {
    return Unsupported(op,
                       "not an operand, a source, an init value, a select and a scatter region");
  }
  for (const stablehlo::Value* value : op.operands())
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, value->type()));
  BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, op.result(0)->type()));
  const stablehlo::Type operand = op.operand(0)->type(), source = op.operand(1)->type();
  const ElementType type = operand.element_type();
  const int64_t rank = operand.rank();
  if (source.element_type() != type || op.operand(2)->type().element_type() != type ||
      op.operand(2)->type().rank() != 0 || op.result(0)->type().element_type() != type ||
      source.rank() != rank) {
    return Unsupported(op,
                       "its operand, source, init value and result must share one element type");
  }
  BERTH_RETURN_IF_ERROR(CheckWindowAttributes(op, rank, {"window_strides"}));
  for (size_t r = 0; r < 2; ++r) {
    const stablehlo::Region& region = op.region(r);
    if (region.blocks().size() != 1) return Unsupported(op, "its regions must be one block each");
    const stablehlo::Block& body = region.entry_block();
    if (body.num_arguments() != 2 || body.terminator() == nullptr ||
        body.terminator()->num_operands() != 1 || body.argument(0)->type().element_type() != type ||
        body.argument(1)->type().element_type() != type) {
      return Unsupported(
          op, "its select and scatter regions must take two elements and return one value");
    }
    for (const Operation* inner : body.operations()) {
      if (inner == body.terminator()) continue;
      BERTH_RETURN_IF_ERROR(CheckFusible(*inner).WithContext("in a region of " + Where(op)));
    }
  }
  if (op.region(0).entry_block().terminator()->operand(0)->type().element_type() !=
      ElementType::kI1) {
    return Unsupported(op, "its select region must return an i1");
  }
  return OkStatus();
}

Status CheckBitcast(const Operation& op) {
  if (op.kind() != OpKind::kBitcastConvert || op.num_operands() != 1 || op.num_results() != 1)
    return Unsupported(op, "not a bitcast_convert of one operand");
  const stablehlo::Type in = op.operand(0)->type(), out = op.result(0)->type();
  BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, in));
  BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, out));
  const ElementType from = in.element_type(), to = out.element_type();
  const int in_bits = stablehlo::BitWidth(from), out_bits = stablehlo::BitWidth(to);
  const bool narrow =
      IsNarrowInteger(from) || IsNarrowFloat(from) || IsNarrowInteger(to) || IsNarrowFloat(to);
  if (narrow && in_bits != out_bits) {
    return Unsupported(op, "a bitcast between narrow types of different widths (" +
                               std::string(stablehlo::ElementTypeName(from)) + ", " +
                               std::string(stablehlo::ElementTypeName(to)) +
                               ") is not generated, as the cpu plugin does not run it");
  }
  if (in.NumElements() * in_bits != out.NumElements() * out_bits) {
    return InvalidArgumentError(Where(op) + ": " + in.ToString() + " and " + out.ToString() +
                                " do not hold the same number of bits");
  }
  return OkStatus();
}

int64_t BitcastThreads(const Operation& op) {
  const stablehlo::Type out = op.result(0)->type();
  const ElementType to = out.element_type();
  // One per result element of i1 or of a narrow integer; else one per byte.
  if (to == ElementType::kI1 || IsNarrowInteger(to)) return out.NumElements();
  return out.NumElements() * static_cast<int64_t>(stablehlo::StorageBytes(to));
}

namespace {

// The operand dimensions a scatter's threads split among themselves (see
// EmitScatterKernel): those that are window dimensions and get no start
// index, along which the destination index is the window offset itself.
// nullopt when an operand dimension that gets a start index has a window
// wider than 1: windows of different positions may then overlap at other
// offsets, and the kernel runs in one thread.
std::optional<std::vector<int64_t>> ScatterSliceDims(const Operation& op) {
  const stablehlo::ScatterDimensionNumbers& numbers = *op.scatter_dimension_numbers();
  const size_t n = op.num_results();
  const stablehlo::Type input = op.operand(0)->type(), updates = op.operand(n + 1)->type();
  auto contains = [](const std::vector<int64_t>& list, int64_t d) {
    return std::find(list.begin(), list.end(), d) != list.end();
  };
  std::vector<int64_t> slices;
  size_t next_window = 0;
  for (int64_t d = 0; d < input.rank(); ++d) {
    if (contains(numbers.inserted_window_dims, d) || contains(numbers.input_batching_dims, d))
      continue;
    const int64_t extent = updates.dim(numbers.update_window_dims[next_window++]);
    if (!contains(numbers.scatter_dims_to_operand_dims, d)) {
      slices.push_back(d);
    } else if (extent != 1) {
      return std::nullopt;
    }
  }
  return slices;
}

}  // namespace

int64_t ScatterThreads(const Operation& op) {
  std::optional<std::vector<int64_t>> slices = ScatterSliceDims(op);
  if (!slices) return 1;
  int64_t threads = 1;
  for (int64_t d : *slices) threads *= op.operand(0)->type().dim(d);
  return threads;
}

namespace codegen {

// The operand's stored bytes (written out to memory by the planner) as the
// result's: copied byte for byte; i1 elements (one byte each here, one bit
// in the bitcast) packed or unpacked least significant bit first; a narrow
// integer result's bytes re-extended from its low bits. The cpu plugin's
// rules.
Result<std::string> EmitBitcastKernel(const FusedKernel& kernel) {
  const Operation& op = *kernel.root;
  BERTH_RETURN_IF_ERROR(CheckBitcast(op));
  BERTH_ASSIGN_OR_RETURN(const std::string input, InputParam(kernel, op.operand(0)));
  const ElementType from = op.operand(0)->type().element_type(),
                    to = op.result(0)->type().element_type();
  const bool from_bits = from == ElementType::kI1, to_bits = to == ElementType::kI1;
  std::string body = "    const berth_u8* in = (const berth_u8*)" + input + ";\n" +
                     "    berth_u8* out = (berth_u8*)out0;\n";
  if (to_bits && !from_bits) {
    body += "    out[i] = (berth_u8)((in[i / 8] >> (i % 8)) & 1);\n";
  } else if (from_bits && !to_bits) {
    body += "    berth_u8 packed = 0;\n"
            "    for (int bit = 0; bit < 8; ++bit) packed |= (berth_u8)((in[i * 8 + bit] & 1) << "
            "bit);\n"
            "    out[i] = packed;\n";
  } else if (IsNarrowInteger(to)) {
    body += "    out[i] = " + Store(to, "in[i]") + ";\n";
  } else {
    body += "    out[i] = in[i];\n";
  }
  return WrapKernel(kernel.name, KernelParams(kernel), body);
}

// One output element per thread: the element of the operand it comes from,
// or (pad) the padding value.
Result<std::string> EmitMoveKernel(const FusedKernel& kernel) {
  const Operation& op = *kernel.root;
  BERTH_RETURN_IF_ERROR(CheckMove(op));
  const stablehlo::Type result = op.result(0)->type();
  const ElementType type = result.element_type();
  std::string params = KernelParams(kernel), body;
  const std::vector<std::string> m = EmitResultIndex(result.shape(), "m", body);
  body += "    " + std::string(ComputeType(type)) + " y;\n";
  int reads = 0;
  auto load = [&](size_t j, const std::vector<std::string>& index, const std::string& indent) {
    return EmitElementLoad(kernel, op.operand(j), index, "y", type, indent, reads, body);
  };
  // `target` (declared berth_s64) = the index `value` holds at `index`,
  // as the cpu plugin reads indices (unsigned ones above the largest i64
  // saturate), clamped to [0, limit].
  auto index_load = [&](const stablehlo::Value* value, const std::vector<std::string>& index,
                        const std::string& target, int64_t limit) -> Status {
    const ElementType index_type = value->type().element_type();
    body += "    {\n      " + std::string(ComputeType(index_type)) + " q;\n";
    BERTH_RETURN_IF_ERROR(
        EmitElementLoad(kernel, value, index, "q", index_type, "      ", reads, body));
    body += "      " + target + " = berth_clamp_index(berth_to_index(q), " + std::to_string(limit) +
            "LL);\n    }\n";
    return OkStatus();
  };
  if (op.kind() == OpKind::kDynamicSlice || op.kind() == OpKind::kDynamicUpdateSlice) {
    const stablehlo::Type operand = op.operand(0)->type();
    const bool update = op.kind() == OpKind::kDynamicUpdateSlice;
    const std::span<const int64_t> sizes =
        update ? op.operand(1)->type().shape() : op.GetI64Array("slice_sizes");
    const size_t first_index = update ? 2 : 1;
    std::vector<std::string> moved(m.size());
    std::string inside = "true";
    for (size_t d = 0; d < m.size(); ++d) {
      const std::string start = "start" + std::to_string(d);
      body += "    berth_s64 " + start + ";\n";
      BERTH_RETURN_IF_ERROR(index_load(op.operand(first_index + d), {}, start,
                                       operand.dim(static_cast<int64_t>(d)) - sizes[d]));
      moved[d] = update ? m[d] + " - " + start : m[d] + " + " + start;
      inside +=
          " && " + moved[d] + " >= 0 && " + moved[d] + " < " + std::to_string(sizes[d]) + "LL";
    }
    if (!update) {
      BERTH_RETURN_IF_ERROR(load(0, moved, "    "));
    } else {
      body += "    if (" + inside + ") {\n";
      BERTH_RETURN_IF_ERROR(load(1, moved, "      "));
      body += "    } else {\n";
      BERTH_RETURN_IF_ERROR(load(0, m, "      "));
      body += "    }\n";
    }
  } else if (op.kind() == OpKind::kGather || op.kind() == OpKind::kDynamicGather ||
             op.kind() == OpKind::kTorchIndexSelect) {
    // The result's batch dimensions index start_indices (all of its
    // dimensions but index_vector_dim, in order), its offset dimensions the
    // operand's window dimensions (neither collapsed nor batching).
    const GatherShape gather = GatherShapeOf(op).value();
    const stablehlo::GatherDimensionNumbers& numbers = gather.numbers;
    const stablehlo::Type operand = op.operand(0)->type(), indices = op.operand(1)->type();
    const std::vector<int64_t>& sizes = gather.sizes;
    const int64_t s = indices.rank(), ivd = numbers.index_vector_dim;
    auto contains = [](const std::vector<int64_t>& list, int64_t d) {
      return std::find(list.begin(), list.end(), d) != list.end();
    };
    std::vector<std::string> batch;
    for (size_t d = 0; d < m.size(); ++d) {
      if (!contains(numbers.offset_dims, static_cast<int64_t>(d))) batch.push_back(m[d]);
    }
    std::vector<std::string> position(static_cast<size_t>(operand.rank()), "0LL");
    for (size_t k = 0; k < numbers.start_index_map.size(); ++k) {
      std::vector<std::string> at = batch;
      if (ivd < s) at.insert(at.begin() + ivd, std::to_string(k) + "LL");
      const int64_t d = numbers.start_index_map[k];
      const std::string start = "start" + std::to_string(k);
      body += "    berth_s64 " + start + ";\n";
      BERTH_RETURN_IF_ERROR(
          index_load(op.operand(1), at, start, operand.dim(d) - sizes[static_cast<size_t>(d)]));
      position[static_cast<size_t>(d)] += " + " + start;
    }
    for (size_t i = 0; i < numbers.operand_batching_dims.size(); ++i) {
      const int64_t from = numbers.start_indices_batching_dims[i];
      position[static_cast<size_t>(numbers.operand_batching_dims[i])] +=
          " + " + batch[static_cast<size_t>(from < ivd ? from : from - 1)];
    }
    size_t next_offset = 0;
    for (int64_t d = 0; d < operand.rank(); ++d) {
      if (contains(numbers.collapsed_slice_dims, d) || contains(numbers.operand_batching_dims, d))
        continue;
      position[static_cast<size_t>(d)] +=
          " + " + m[static_cast<size_t>(numbers.offset_dims[next_offset++])];
    }
    BERTH_RETURN_IF_ERROR(load(0, position, "    "));
  } else if (op.kind() == OpKind::kConcatenate) {
    const size_t dimension = static_cast<size_t>(*op.GetInt("dimension"));
    int64_t offset = 0;
    for (size_t j = 0; j < op.num_operands(); ++j) {
      const int64_t size = op.operand(j)->type().dim(static_cast<int64_t>(dimension));
      std::vector<std::string> index = m;
      index[dimension] = m[dimension] + " - " + std::to_string(offset) + "LL";
      const bool last = j + 1 == op.num_operands();
      body += std::string(j == 0 ? "    " : " else ") +
              (last ? "{\n"
                    : "if (" + m[dimension] + " < " + std::to_string(offset + size) + "LL) {\n");
      BERTH_RETURN_IF_ERROR(load(j, index, "      "));
      body += "    }";
      offset += size;
    }
    body += "\n";
  } else {
    const std::vector<int64_t> low = StaticArray(op, "edge_padding_low").value();
    const std::vector<int64_t> interior = StaticArray(op, "interior_padding").value();
    const stablehlo::Type operand = op.operand(0)->type();
    std::vector<std::string> index(m.size());
    body += "    bool inside = true;\n";
    for (size_t d = 0; d < m.size(); ++d) {
      const std::string t = "t" + std::to_string(d);
      const int64_t step = interior[d] + 1;
      body +=
          "    const berth_s64 " + t + " = " + m[d] + " - (" + std::to_string(low[d]) + "LL);\n";
      body += "    inside = inside && " + t + " >= 0 && " + t + " % " + std::to_string(step) +
              "LL == 0 && " + t + " / " + std::to_string(step) + "LL < " +
              std::to_string(operand.dim(static_cast<int64_t>(d))) + "LL;\n";
      index[d] = t + " / " + std::to_string(step) + "LL";
    }
    body += "    if (inside) {\n";
    BERTH_RETURN_IF_ERROR(load(0, index, "      "));
    body += "    } else {\n";
    BERTH_RETURN_IF_ERROR(load(1, {}, "      "));
    body += "    }\n";
  }
  body += "    out0[i] = " + Store(type, "y") + ";\n";
  return WrapKernel(kernel.name, params, body);
}

// scatter, in the cpu plugin's order: the results start as the inputs;
// then for each scatter position of the updates (row-major over their
// scatter dimensions) and each element of its window (row-major), the
// result element it names - start index (not clamped) + batching position +
// window offset - takes update_computation(result, update), or is skipped
// when out of bounds. Later updates of an element see earlier ones, so any
// indices and any computation give the cpu plugin's results.
//
// Each thread owns one slice of the results: one index along each of
// ScatterSliceDims (window dimensions without start indices, where the
// destination index is the window offset), every index along the others.
// It copies its slice of the inputs, then applies, position after position,
// the window elements that land in it. Slices are disjoint, and within one
// the updates keep the cpu plugin's order. When an indexed dimension has a
// window wider than 1 there are no slice dimensions to split: one thread
// does it all (kernel.num_elements is ScatterThreads).
Result<std::string> EmitScatterKernel(const FusedKernel& kernel) {
  const Operation& op = *kernel.root;
  BERTH_RETURN_IF_ERROR(CheckScatter(op));
  const stablehlo::ScatterDimensionNumbers& numbers = *op.scatter_dimension_numbers();
  const size_t n = op.num_results();
  const stablehlo::Type input = op.operand(0)->type(), indices = op.operand(n)->type(),
                        updates = op.operand(n + 1)->type();
  const int64_t r = input.rank(), s = indices.rank(), ivd = numbers.index_vector_dim;
  std::string params = KernelParams(kernel), body;
  int reads = 0;
  auto contains = [](const std::vector<int64_t>& list, int64_t d) {
    return std::find(list.begin(), list.end(), d) != list.end();
  };
  const std::optional<std::vector<int64_t>> slice_dims = ScatterSliceDims(op);
  const bool sliced = slice_dims.has_value();
  // The thread's slice: its index along each slice dimension.
  std::vector<std::string> at(static_cast<size_t>(r));
  std::vector<int64_t> rest;  // the dimensions the thread walks
  if (sliced) {
    EmitDecompose("i", *slice_dims, input.shape(), "s", "    ", body, at);
    for (int64_t d = 0; d < r; ++d) {
      if (!contains(*slice_dims, d)) rest.push_back(d);
    }
  } else {
    for (int64_t d = 0; d < r; ++d) rest.push_back(d);
  }
  // The results start as the inputs (the thread's slice of them).
  int64_t walked = 1;
  for (int64_t d : rest) walked *= input.dim(d);
  body += "    for (berth_s64 e = 0; e < " + std::to_string(walked) + "LL; ++e) {\n";
  EmitDecompose("e", rest, input.shape(), "c", "      ", body, at);
  body += "      const berth_s64 from = " + LinearIndex(at, input.shape()) + ";\n";
  for (size_t j = 0; j < n; ++j) {
    const ElementType type = op.operand(j)->type().element_type();
    const std::string y = "y" + std::to_string(j);
    body += "      " + std::string(ComputeType(type)) + " " + y + ";\n";
    BERTH_RETURN_IF_ERROR(
        EmitElementLoad(kernel, op.operand(j), at, y, type, "      ", reads, body));
    body += "      out" + std::to_string(j) + "[from] = " + Store(type, y) + ";\n";
  }
  body += "    }\n";
  // The scatter positions, then each window element (of the slice).
  std::vector<int64_t> scatter_dims, window_dims;
  for (int64_t d = 0; d < updates.rank(); ++d) {
    (contains(numbers.update_window_dims, d) ? window_dims : scatter_dims).push_back(d);
  }
  int64_t positions = 1, window = 1;
  for (int64_t d : scatter_dims) positions *= updates.dim(d);
  for (int64_t d : window_dims) window *= updates.dim(d);
  // The operand dimension of each window dimension, in order.
  std::vector<int64_t> window_operand_dims;
  for (int64_t d = 0; d < r; ++d) {
    if (!contains(numbers.inserted_window_dims, d) && !contains(numbers.input_batching_dims, d))
      window_operand_dims.push_back(d);
  }
  std::vector<std::string> u(static_cast<size_t>(updates.rank()));
  std::string in_window = "true";
  if (sliced) {
    // A slice past the window's extent gets no updates; the window offset
    // is the slice's index along slice dimensions, 0 along the others.
    for (size_t k = 0; k < window_dims.size(); ++k) {
      const int64_t d = window_operand_dims[k];
      const int64_t update_dim = numbers.update_window_dims[k];
      if (contains(*slice_dims, d)) {
        u[static_cast<size_t>(update_dim)] = at[static_cast<size_t>(d)];
        in_window += " && " + at[static_cast<size_t>(d)] + " < " +
                     std::to_string(updates.dim(update_dim)) + "LL";
      } else {
        u[static_cast<size_t>(update_dim)] = "0LL";
      }
    }
  }
  body += "    if (" + in_window + ") {\n";
  body += "    for (berth_s64 q = 0; q < " + std::to_string(positions) + "LL; ++q) {\n";
  EmitDecompose("q", scatter_dims, updates.shape(), "b", "      ", body, u);
  std::vector<std::string> batch;
  for (int64_t d : scatter_dims) batch.push_back(u[static_cast<size_t>(d)]);
  std::vector<std::string> start(static_cast<size_t>(r), "0LL");
  for (size_t k = 0; k < numbers.scatter_dims_to_operand_dims.size(); ++k) {
    std::vector<std::string> index = batch;
    if (ivd < s) index.insert(index.begin() + ivd, std::to_string(k) + "LL");
    const ElementType index_type = indices.element_type();
    const std::string name = "start" + std::to_string(k);
    body += "      berth_s64 " + name + ";\n      {\n        " +
            std::string(ComputeType(index_type)) + " v;\n";
    BERTH_RETURN_IF_ERROR(
        EmitElementLoad(kernel, op.operand(n), index, "v", index_type, "        ", reads, body));
    // Bounded so that adding window offsets cannot overflow.
    body += "        " + name + " = berth_to_index(v);\n";
    body += "        " + name + " = " + name + " < -(1LL << 48) ? -(1LL << 48) : " + name +
            " > (1LL << 48) ? (1LL << 48) : " + name + ";\n      }\n";
    start[static_cast<size_t>(numbers.scatter_dims_to_operand_dims[k])] = name;
  }
  for (size_t k = 0; k < numbers.input_batching_dims.size(); ++k) {
    const int64_t from = numbers.scatter_indices_batching_dims[k];
    start[static_cast<size_t>(numbers.input_batching_dims[k])] =
        batch[static_cast<size_t>(from < ivd ? from : from - 1)];
  }
  if (sliced) {
    body += "      {\n";  // the one window element of the slice
  } else {
    body += "      for (berth_s64 w = 0; w < " + std::to_string(window) + "LL; ++w) {\n";
    EmitDecompose("w", window_dims, updates.shape(), "v", "        ", body, u);
  }
  std::vector<std::string> result_index(static_cast<size_t>(r));
  size_t next_window = 0;
  std::string inside = "true";
  for (int64_t d = 0; d < r; ++d) {
    std::string index = start[static_cast<size_t>(d)];
    if (!contains(numbers.inserted_window_dims, d) && !contains(numbers.input_batching_dims, d)) {
      index += " + " + u[static_cast<size_t>(window_dims[next_window++])];
    }
    const std::string name = "t" + std::to_string(d);
    body += "        const berth_s64 " + name + " = " + index + ";\n";
    inside += " && " + name + " >= 0 && " + name + " < " + std::to_string(input.dim(d)) + "LL";
    result_index[static_cast<size_t>(d)] = name;
  }
  body += "        if (" + inside + ") {\n";
  body += "          const berth_s64 to = " + LinearIndex(result_index, input.shape()) + ";\n";
  const stablehlo::Block& block = op.region(0).entry_block();
  std::unordered_map<const stablehlo::Value*, std::string> names;
  for (size_t j = 0; j < n; ++j) {
    const ElementType type = op.operand(j)->type().element_type(),
                      update_type = op.operand(n + 1 + j)->type().element_type();
    const std::string old_value = "old" + std::to_string(j), x = "x" + std::to_string(j);
    body += "          const " + std::string(ComputeType(type)) + " " + old_value + " = " +
            Load(type, "out" + std::to_string(j) + "[to]") + ";\n";
    body += "          " + std::string(ComputeType(update_type)) + " " + x + ";\n";
    BERTH_RETURN_IF_ERROR(EmitElementLoad(kernel, op.operand(n + 1 + j), u, x, update_type,
                                          "          ", reads, body));
    names[block.argument(j)] = old_value;
    names[block.argument(n + j)] = x;
  }
  int next = 0;
  BERTH_RETURN_IF_ERROR(EmitBlockOps(kernel.name, block, "          ", names, next, body));
  for (size_t j = 0; j < n; ++j) {
    const std::string value = names.at(block.terminator()->operand(j));
    body += "          const " + std::string(ComputeType(op.result(j)->type().element_type())) +
            " new" + std::to_string(j) + " = " + value + ";\n";
  }
  for (size_t j = 0; j < n; ++j) {
    body += "          out" + std::to_string(j) +
            "[to] = " + Store(op.result(j)->type().element_type(), "new" + std::to_string(j)) +
            ";\n";
  }
  body += "        }\n      }\n    }\n    }\n";
  return WrapKernel(kernel.name, params, body);
}

// select_and_scatter, one thread per result element, in the cpu plugin's
// order and rules: there the result starts as the init value and each
// source element (row-major) is scattered with the scatter region into the
// position its window selects - the in-bounds operand elements of the
// window scanned in row-major order, the first selected and each later one
// taking its place unless select(selected, candidate) holds; a window all
// on padding scatters nothing. Here each thread starts from the init value
// and visits, in row-major order, the source elements whose windows hold
// its element, selects in each window the same way, and scatters those that
// select its element: the updates of one result element in the cpu plugin's
// order, no element written by two threads, overlapping windows included.
Result<std::string> EmitSelectAndScatterKernel(const FusedKernel& kernel) {
  const Operation& op = *kernel.root;
  BERTH_RETURN_IF_ERROR(CheckSelectAndScatter(op));
  const stablehlo::Type operand = op.operand(0)->type(), source = op.operand(1)->type();
  const ElementType type = operand.element_type();
  const std::string t = ComputeType(type);
  const size_t rank = static_cast<size_t>(operand.rank());
  const std::span<const int64_t> window = op.GetI64Array("window_dimensions");
  std::vector<int64_t> strides(rank, 1);
  if (!op.GetI64Array("window_strides").empty()) {
    strides.assign(op.GetI64Array("window_strides").begin(),
                   op.GetI64Array("window_strides").end());
  }
  std::vector<std::pair<int64_t, int64_t>> padding = op.GetPairs("padding");
  if (padding.empty()) padding.assign(rank, {0, 0});
  std::string params = KernelParams(kernel), body;
  int reads = 0, next = 0;
  std::vector<int64_t> all(rank);
  for (size_t d = 0; d < rank; ++d) all[d] = static_cast<int64_t>(d);
  // This thread's element, and the sources whose windows hold it: along
  // each dimension those with s * stride <= o + low < s * stride + window.
  std::vector<std::string> o(rank), at(rank), w(rank), p(rank);
  EmitDecompose("i", all, operand.shape(), "o", "    ", body, o);
  body += "    " + t + " acc;\n";
  BERTH_RETURN_IF_ERROR(
      EmitElementLoad(kernel, op.operand(2), {}, "acc", type, "    ", reads, body));
  std::string indent = "    ";
  for (size_t d = 0; d < rank; ++d) {
    const std::string id = std::to_string(d), stride = std::to_string(strides[d]) + "LL";
    const std::string padded = "(" + o[d] + " + (" + std::to_string(padding[d].first) + "LL))";
    // floor((padded - window + 1) / stride) rounded up, and floor(padded / stride).
    body += indent + "const berth_s64 first" + id + " = berth_floor_div(" + padded + " - " +
            std::to_string(window[d] - 1) + "LL + " + stride + " - 1, " + stride + ");\n";
    body += indent + "const berth_s64 last" + id + " = berth_floor_div(" + padded + ", " + stride +
            ");\n";
    at[d] = "c" + id;
    body += indent + "for (berth_s64 " + at[d] + " = first" + id + " < 0 ? 0 : first" + id + "; " +
            at[d] + " <= last" + id + " && " + at[d] + " < " +
            std::to_string(source.dim(static_cast<int64_t>(d))) + "LL; ++" + at[d] + ") {\n";
    indent += "  ";
  }
  // The window of source element `at`: which element it selects.
  body += indent + "bool have = false;\n" + indent + "berth_s64 chosen = 0;\n" + indent + t +
          " selected = acc;\n";
  int64_t count = 1;
  for (int64_t size : window) count *= size;
  body += indent + "for (berth_s64 r = 0; r < " + std::to_string(count) + "LL; ++r) {\n";
  const std::string inner = indent + "  ";
  EmitDecompose("r", all, window, "w", inner, body, w);
  std::string valid = "true";
  for (size_t d = 0; d < rank; ++d) {
    p[d] = "p" + std::to_string(d);
    body += inner + "const berth_s64 " + p[d] + " = " + at[d] + " * " + std::to_string(strides[d]) +
            "LL + " + w[d] + " - (" + std::to_string(padding[d].first) + "LL);\n";
    valid += " && " + p[d] + " >= 0 && " + p[d] + " < " +
             std::to_string(operand.dim(static_cast<int64_t>(d))) + "LL";
  }
  body += inner + "if (" + valid + ") {\n" + inner + "  " + t + " candidate;\n";
  BERTH_RETURN_IF_ERROR(
      EmitElementLoad(kernel, op.operand(0), p, "candidate", type, inner + "  ", reads, body));
  body += inner + "  const berth_s64 where = " + LinearIndex(p, operand.shape()) + ";\n";
  body += inner + "  if (!have) {\n" + inner + "    have = true;\n" + inner +
          "    selected = candidate;\n" + inner + "    chosen = where;\n" + inner + "  } else {\n";
  const stablehlo::Block& select = op.region(0).entry_block();
  std::unordered_map<const stablehlo::Value*, std::string> names = {
      {select.argument(0), "selected"}, {select.argument(1), "candidate"}};
  BERTH_RETURN_IF_ERROR(EmitBlockOps(kernel.name, select, inner + "    ", names, next, body));
  body += inner + "    if (!(" + names.at(select.terminator()->operand(0)) + ")) {\n" + inner +
          "      selected = candidate;\n" + inner + "      chosen = where;\n" + inner + "    }\n";
  body += inner + "  }\n" + inner + "}\n" + indent + "}\n";
  // Scattered here: the result element as stored after each update, as the
  // cpu plugin stores it.
  body += indent + "if (have && chosen == i) {\n" + indent + "  " + t + " update;\n";
  BERTH_RETURN_IF_ERROR(
      EmitElementLoad(kernel, op.operand(1), at, "update", type, indent + "  ", reads, body));
  const stablehlo::Block& scatter = op.region(1).entry_block();
  names = {{scatter.argument(0), "acc"}, {scatter.argument(1), "update"}};
  BERTH_RETURN_IF_ERROR(EmitBlockOps(kernel.name, scatter, indent + "  ", names, next, body));
  body += indent + "  const " + std::string(StorageType(type)) +
          " stored = " + Store(type, names.at(scatter.terminator()->operand(0))) + ";\n";
  body += indent + "  acc = " + Load(type, "stored") + ";\n" + indent + "}\n";
  for (size_t d = rank; d-- > 0;) {
    indent.resize(indent.size() - 2);
    body += indent + "}\n";
  }
  body += "    out0[i] = " + Store(type, "acc") + ";\n";
  return WrapKernel(kernel.name, params, body);
}

}  // namespace codegen

}  // namespace berth::cuda
