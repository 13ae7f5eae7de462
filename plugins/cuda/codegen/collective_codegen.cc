// Collective kernels: one collective op as the program instances of a
// process group meet it on one device (interpreter.run_parallel runs its
// instances on one GPU, each with its own values). Each thread computes one
// element of one member's result from the members' operands, as the cpu
// plugin's kernels_collective.cc does: all_reduce folds the members'
// elements in group order with the op's body (collective_reduce: the
// group's first member gets the fold, the others zeros), reduce_scatter
// folds and keeps each member's slice, all_gather concatenates in group
// order, all_to_all sends each member its slice of every operand,
// collective_permute and collective_broadcast copy one member's elements
// (their stored bits) or give zeros.
#include <string>
#include <unordered_map>

#include "codegen/elementwise_codegen.hpp"
#include "codegen/kernel_emitters.hpp"

namespace berth::cuda {

using namespace codegen;  // kernel_emitters.hpp

namespace {

bool Folds(OpKind kind) {
  return kind == OpKind::kAllReduce || kind == OpKind::kReduceScatter ||
         kind == OpKind::kCollectiveReduce;
}

bool HasDynamicRoot(const Operation& op) {
  return op.kind() == OpKind::kCollectiveBroadcast && op.attr("has_dynamic_root") != nullptr;
}

// OK when the op's reduction body takes two rank-0 elements of `type` and
// returns one, computed by elementwise ops.
Status CheckFoldBody(const Operation& op, ElementType type) {
  if (op.num_regions() != 1 || op.region(0).blocks().size() != 1)
    return Unsupported(op, "its computation must be one block");
  const stablehlo::Block& body = op.region(0).entry_block();
  if (body.num_arguments() != 2 || body.terminator() == nullptr ||
      body.terminator()->num_operands() != 1) {
    return Unsupported(op, "its computation must take two elements and return one");
  }
  for (size_t a = 0; a < 2; ++a) {
    const stablehlo::Type arg = body.argument(a)->type();
    if (!IsRankZeroOf(arg) || arg.element_type() != type)
      return Unsupported(op, "its computation must take two elements of its operands' type");
  }
  for (const Operation* inner : body.operations()) {
    if (inner == body.terminator()) continue;
    BERTH_RETURN_IF_ERROR(CheckFusible(*inner).WithContext("in the computation of " + Where(op)));
  }
  return OkStatus();
}

// INVALID_ARGUMENT naming `op` and what does not fit its group.
Status DoesNotFit(const Operation& op, int64_t members, const std::string& what) {
  return InvalidArgumentError(Where(op) + ": " + what + " does not fit its process group of " +
                              std::to_string(members));
}

// A dimension attribute of `op` within `rank`, or why not.
Result<int64_t> DimensionAttribute(const Operation& op, const char* name, int64_t rank) {
  const std::optional<int64_t> dim = op.GetInt(name);
  if (!dim || *dim < 0 || *dim >= rank)
    return Unsupported(op, std::string("its ") + name + " must name a dimension of its operands");
  return *dim;
}

// Whether `a` and `b` have the same dimensions but `except`, where `a` is
// `factor` times `b`.
bool ScaledAlong(stablehlo::Type a, stablehlo::Type b, int64_t except, int64_t factor) {
  if (a.rank() != b.rank()) return false;
  for (int64_t d = 0; d < a.rank(); ++d) {
    if (a.dim(d) != (d == except ? b.dim(d) * factor : b.dim(d))) return false;
  }
  return true;
}

}  // namespace

bool IsCollectiveKind(OpKind kind) {
  switch (kind) {
    case OpKind::kAllReduce:
    case OpKind::kAllGather:
    case OpKind::kReduceScatter:
    case OpKind::kAllToAll:
    case OpKind::kCollectivePermute:
    case OpKind::kCollectiveBroadcast:
    case OpKind::kCollectiveReduce: return true;
    default: return false;
  }
}

size_t CollectiveDataOperands(const Operation& op) {
  return op.num_operands() - (HasDynamicRoot(op) && op.num_operands() > 0 ? 1 : 0);
}

Status CheckCollective(const Operation& op, int64_t members) {
  if (!IsCollectiveKind(op.kind())) return Unsupported(op, "not a collective");
  for (const stablehlo::Value* value : op.operands())
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, value->type()));
  for (const stablehlo::Value* value : op.results())
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, value->type()));
  const size_t data = CollectiveDataOperands(op);
  if (data == 0 || op.num_results() != data)
    return Unsupported(op, "not one result per data operand");
  if (HasDynamicRoot(op)) {
    const stablehlo::Type root = op.operand(data)->type();
    if (!stablehlo::IsInteger(root.element_type()) ||
        (root.NumElements() != 1 && root.NumElements() != static_cast<int64_t>(data))) {
      return InvalidArgumentError(Where(op) + ": its root operand must be integers, one for all " +
                                  "data operands or one each");
    }
  }
  for (size_t k = 0; k < data; ++k) {
    const stablehlo::Type operand = op.operand(k)->type(), result = op.result(k)->type();
    if (operand.element_type() != result.element_type())
      return Unsupported(op, "its results must have its operands' element types");
    const int64_t rank = operand.rank();
    switch (op.kind()) {
      case OpKind::kAllReduce:
      case OpKind::kCollectiveReduce:
        BERTH_RETURN_IF_ERROR(CheckFoldBody(op, operand.element_type()));
        if (!ScaledAlong(result, operand, -1, 1)) return DoesNotFit(op, members, "its result");
        break;
      case OpKind::kReduceScatter: {
        BERTH_RETURN_IF_ERROR(CheckFoldBody(op, operand.element_type()));
        BERTH_ASSIGN_OR_RETURN(const int64_t dim,
                               DimensionAttribute(op, "scatter_dimension", rank));
        if (!ScaledAlong(operand, result, dim, members))
          return DoesNotFit(op, members, "its operand of " + operand.ToString());
        break;
      }
      case OpKind::kAllGather: {
        BERTH_ASSIGN_OR_RETURN(const int64_t dim, DimensionAttribute(op, "all_gather_dim", rank));
        if (!ScaledAlong(result, operand, dim, members))
          return DoesNotFit(op, members, "its result of " + result.ToString());
        break;
      }
      case OpKind::kAllToAll: {
        BERTH_ASSIGN_OR_RETURN(const int64_t split,
                               DimensionAttribute(op, "split_dimension", rank));
        BERTH_ASSIGN_OR_RETURN(const int64_t concat,
                               DimensionAttribute(op, "concat_dimension", rank));
        if (op.GetInt("split_count").value_or(1) != members)
          return DoesNotFit(op, members, "its split_count");
        if (operand.dim(split) % members != 0)
          return DoesNotFit(op, members, "its split dimension");
        std::vector<int64_t> want(operand.shape().begin(), operand.shape().end());
        want[static_cast<size_t>(split)] /= members;
        want[static_cast<size_t>(concat)] *= members;
        if (!std::equal(want.begin(), want.end(), result.shape().begin(), result.shape().end()))
          return DoesNotFit(op, members, "its result of " + result.ToString());
        break;
      }
      default:  // collective_permute, collective_broadcast
        if (!ScaledAlong(result, operand, -1, 1)) return DoesNotFit(op, members, "its result");
        break;
    }
  }
  return OkStatus();
}

Result<std::string> codegen::EmitCollectiveKernel(const FusedKernel& kernel) {
  const Operation& op = *kernel.root;
  if (op.kind() == OpKind::kRecv) {
    // A value sent to a recv: copied as stored.
    if (kernel.inputs.size() != 1 || kernel.outputs.size() != 1)
      return InvalidArgumentError("kernel '" + kernel.name + "' of " + Where(op) +
                                  ": not one value");
    return WrapKernel(kernel.name, KernelParams(kernel), "    out0[i] = in0[i];\n");
  }
  const int64_t g = kernel.members;
  const size_t k = kernel.collective_operand;
  const bool dynamic_root = HasDynamicRoot(op);
  const size_t expected_inputs = static_cast<size_t>(g) * (dynamic_root ? 2 : 1);
  if (g < 1 || kernel.inputs.size() != expected_inputs ||
      kernel.outputs.size() != static_cast<size_t>(g) || k >= CollectiveDataOperands(op)) {
    return InvalidArgumentError("kernel '" + kernel.name + "' of " + Where(op) +
                                ": not one operand and one result per member");
  }
  const stablehlo::Type operand = op.operand(k)->type(), result = op.result(k)->type();
  const ElementType type = result.element_type();
  const std::string storage = StorageType(type), compute = ComputeType(type);
  const std::string elements = std::to_string(std::max<int64_t>(1, result.NumElements()));
  std::string body =
      "    const berth_s64 m = i / " + elements + "LL, e = i % " + elements + "LL;\n";
  std::string ins, outs;
  for (int64_t j = 0; j < g; ++j) {
    ins += (j ? ", in" : "in") + std::to_string(j);
    outs += (j ? ", out" : "out") + std::to_string(j);
  }
  body += "    const " + storage + "* const ins[" + std::to_string(g) + "] = {" + ins + "};\n";
  body += "    " + storage + "* const outs[" + std::to_string(g) + "] = {" + outs + "};\n";
  std::vector<int64_t> all(static_cast<size_t>(result.rank()));
  for (size_t d = 0; d < all.size(); ++d) all[d] = static_cast<int64_t>(d);
  std::vector<std::string> index(all.size());
  EmitDecompose("e", all, result.shape(), "r", "    ", body, index);
  const std::string zero = "    outs[m][e] = " + storage + "{};\n";

  if (Folds(op.kind())) {
    // The element each member contributes: e, or reduce_scatter's slice of m.
    std::string source = "e";
    if (op.kind() == OpKind::kReduceScatter) {
      const int64_t dim = *op.GetInt("scatter_dimension");
      std::vector<std::string> at = index;
      at[static_cast<size_t>(dim)] =
          "(" + at[static_cast<size_t>(dim)] + " + m * " + std::to_string(result.dim(dim)) + "LL)";
      source = LinearIndex(at, operand.shape());
    }
    body += "    const berth_s64 src = " + source + ";\n";
    body += "    " + compute + " acc = " + Load(type, "ins[0][src]") + ";\n";
    const stablehlo::Block& block = op.region(0).entry_block();
    int next = 0;
    for (int64_t j = 1; j < g; ++j) {
      body += "    {\n      const " + compute +
              " x = " + Load(type, "ins[" + std::to_string(j) + "][src]") + ";\n";
      std::unordered_map<const stablehlo::Value*, std::string> names = {{block.argument(0), "acc"},
                                                                        {block.argument(1), "x"}};
      BERTH_RETURN_IF_ERROR(EmitBlockOps(kernel.name, block, "      ", names, next, body));
      body += "      acc = " + names.at(block.terminator()->operand(0)) + ";\n    }\n";
    }
    if (op.kind() == OpKind::kCollectiveReduce)
      body += "    if (m != 0) {\n  " + zero + "    } else\n";
    body += "    outs[m][e] = " + Store(type, "acc") + ";\n";
    return WrapKernel(kernel.name, KernelParams(kernel), body);
  }

  // The member whose operand holds the element (`from`) and where (`src`).
  std::string from, source = "e";
  if (op.kind() == OpKind::kAllGather) {
    const int64_t dim = *op.GetInt("all_gather_dim");
    const std::string extent = std::to_string(operand.dim(dim)) + "LL";
    std::string& at = index[static_cast<size_t>(dim)];
    from = at + " / " + extent;
    at = "(" + at + " % " + extent + ")";
    source = LinearIndex(index, operand.shape());
  } else if (op.kind() == OpKind::kAllToAll) {
    const int64_t split = *op.GetInt("split_dimension"), concat = *op.GetInt("concat_dimension");
    std::vector<int64_t> chunk(operand.shape().begin(), operand.shape().end());
    chunk[static_cast<size_t>(split)] /= g;
    const std::string extent = std::to_string(chunk[static_cast<size_t>(concat)]) + "LL";
    std::string& at = index[static_cast<size_t>(concat)];
    from = at + " / " + extent;
    at = "(" + at + " % " + extent + ")";
    index[static_cast<size_t>(split)] = "(" + index[static_cast<size_t>(split)] + " + m * " +
                                        std::to_string(chunk[static_cast<size_t>(split)]) + "LL)";
    source = LinearIndex(index, operand.shape());
  } else if (dynamic_root) {
    // Each member's root operand names the member it takes from.
    const stablehlo::Type root = op.operand(CollectiveDataOperands(op))->type();
    std::string roots;
    for (int64_t j = 0; j < g; ++j) roots += (j ? ", in" : "in") + std::to_string(g + j);
    body += "    const " + std::string(StorageType(root.element_type())) + "* const roots[" +
            std::to_string(g) + "] = {" + roots + "};\n";
    const std::string at = root.NumElements() == 1 ? "0" : std::to_string(k);
    from = "(berth_s64)(" + Load(root.element_type(), "roots[m][" + at + "]") + ")";
  } else {
    if (kernel.member_sources.size() != static_cast<size_t>(g)) {
      return InvalidArgumentError("kernel '" + kernel.name + "' of " + Where(op) +
                                  ": no source for each member");
    }
    std::string sources;
    for (int64_t j = 0; j < g; ++j)
      sources += (j ? ", " : "") + std::to_string(kernel.member_sources[static_cast<size_t>(j)]);
    body += "    const berth_s64 sources[" + std::to_string(g) + "] = {" + sources + "};\n";
    from = "sources[m]";
  }
  body += "    const berth_s64 from = " + from + ";\n";
  body += "    if (from < 0 || from >= " + std::to_string(g) + "LL) {\n  " + zero +
          "      continue;\n    }\n";
  body += "    outs[m][e] = ins[from][" + source + "];\n";
  return WrapKernel(kernel.name, KernelParams(kernel), body);
}

}  // namespace berth::cuda
