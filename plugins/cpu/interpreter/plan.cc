#include "interpreter/plan.hpp"

#include "interpreter/custom_call.hpp"

#include <algorithm>

namespace berth::cpu {

using stablehlo::Block;
using stablehlo::Operation;
using stablehlo::Value;

namespace {

// Longest chain fused into one step: bounds scratch memory per thread and the
// recursion of the tree walk.
constexpr int kMaxFusedOps = 32;

// "FILE:LINE:COL: error: 'stablehlo.fft' is not supported by the cpu plugin".
Status Unsupported(const Operation& op, const std::string& why) {
  return UnimplementedError(op.location().ToString() + ": error: '" + std::string(op.name()) +
                            "' " + why);
}

}  // namespace

class PlanBuilder {
 public:
  PlanBuilder(ProgramPlan& plan, const PlanOptions& options) : plan_(plan), options_(options) {}

  // Values visible while planning one block: its own slots and last uses,
  // chained to the enclosing block's scope.
  struct Scope {
    std::unordered_map<const Value*, uint32_t> slots;
    std::vector<int64_t> last_use;  // per slot; -1 never used
    int64_t current_step = 0;
    Scope* parent = nullptr;
  };

  Status PlanBlock(const Block& block, Scope* parent) {
    auto plan = std::make_unique<BlockPlan>();
    plan->block = &block;
    Scope scope;
    scope.parent = parent;
    for (Value* arg : block.arguments()) AddSlot(scope, arg);
    plan->num_args = static_cast<uint32_t>(block.num_arguments());

    std::span<Operation* const> ops = block.operations();
    const Operation* terminator = block.terminator();
    std::unordered_map<const Operation*, const Operation*> fused_into = FusionParents(block);

    for (const Operation* op : ops) {
      if (op == terminator) break;
      NoteCost(*op);
      if (fused_into.count(op)) continue;  // computed inside its consumer's step
      scope.current_step = static_cast<int64_t>(plan->steps.size());
      Step step;
      step.op = op;
      if (options_.fuse_elementwise && IsFusibleElementwise(*op) && TreeSize(*op, fused_into) > 0) {
        BERTH_RETURN_IF_ERROR(BuildFused(*op, fused_into, scope, step));
      } else {
        step.kernel = FindKernel(op->kind());
        if (step.kernel == nullptr) {
          return Unsupported(*op, "is not supported by the cpu plugin");
        }
        if (op->kind() == stablehlo::OpKind::kCustomCall &&
            !IsBuiltinCustomCall(op->call_target_name())) {
          if (options_.custom_calls == nullptr) return ValidateCustomCall(*op);
          BERTH_ASSIGN_OR_RETURN(plan_.ffi_calls_[op],
                                 FfiCallSite::Resolve(*op, *options_.custom_calls));
        }
        if (const stablehlo::Attribute* groups = op->attr("replica_groups");
            groups != nullptr && groups->isa<stablehlo::OpaqueAttr>()) {
          // Such as #stablehlo.replica_group_mesh_axes<...>: only explicit
          // groups (a rank-2 tensor of ids) are supported.
          return Unsupported(*op, "with replica_groups other than a tensor of ids is not "
                                  "supported by the cpu plugin");
        }
        for (const Value* operand : op->operands()) {
          BERTH_ASSIGN_OR_RETURN(ValueRef ref, Resolve(operand, scope, *op));
          step.operands.push_back(ref);
        }
        for (const stablehlo::Region* region : op->regions()) {
          if (region->empty()) continue;
          BERTH_RETURN_IF_ERROR(PlanBlock(region->entry_block(), &scope));
        }
      }
      step.first_result = static_cast<uint32_t>(scope.last_use.size());
      step.num_results = static_cast<uint32_t>(op->num_results());
      for (const Value* result : op->results()) {
        uint32_t slot = AddSlot(scope, result);
        scope.last_use[slot] = scope.current_step;  // dead at once unless used
      }
      plan->steps.push_back(std::move(step));
    }
    if (terminator != nullptr) {
      scope.current_step = static_cast<int64_t>(plan->steps.size());
      for (const Value* operand : terminator->operands()) {
        BERTH_ASSIGN_OR_RETURN(ValueRef ref, Resolve(operand, scope, *terminator));
        plan->returns.push_back(ref);
      }
    }
    plan->num_slots = static_cast<uint32_t>(scope.last_use.size());
    for (uint32_t slot = plan->num_args; slot < plan->num_slots; ++slot) {
      int64_t last = scope.last_use[slot];
      if (last >= 0 && last < static_cast<int64_t>(plan->steps.size())) {
        plan->steps[static_cast<size_t>(last)].release.push_back(slot);
      }
    }
    plan_.blocks_[&block] = std::move(plan);
    return OkStatus();
  }

 private:
  // Clears the plan's cheap() flag when `op` may take long (see plan.hpp).
  void NoteCost(const Operation& op) {
    if (!plan_.cheap_) return;
    if (++plan_.num_ops_ > ProgramPlan::kCheapMaxOps || !IsCheapKind(op.kind())) {
      plan_.cheap_ = false;
      return;
    }
    auto small = [](const Value* value) {
      stablehlo::Type type = value->type();
      if (!type.IsTensor()) return !type.IsTuple();  // tokens cost nothing
      int64_t n = type.NumElements();
      return n >= 0 && n <= ProgramPlan::kCheapMaxElements;
    };
    for (const Value* value : op.operands()) {
      if (!small(value)) plan_.cheap_ = false;
    }
    for (const Value* value : op.results()) {
      if (!small(value)) plan_.cheap_ = false;
    }
  }

  static bool IsCheapKind(stablehlo::OpKind kind) {
    using stablehlo::OpKind;
    switch (kind) {
      case OpKind::kWhile:
      case OpKind::kFuncCall:
      case OpKind::kComposite:
      case OpKind::kSdyManualComputation:
      case OpKind::kCustomCall:
      case OpKind::kInterpreterRunParallel:
      case OpKind::kConvolution:
      case OpKind::kDynamicConv:
      case OpKind::kAllGather:
      case OpKind::kAllReduce:
      case OpKind::kAllToAll:
      case OpKind::kReduceScatter:
      case OpKind::kCollectiveBroadcast:
      case OpKind::kCollectivePermute:
      case OpKind::kCollectiveReduce:
      case OpKind::kInfeed:
      case OpKind::kOutfeed:
      case OpKind::kSend:
      case OpKind::kRecv:
        return false;
      default:
        return true;
    }
  }

  static uint32_t AddSlot(Scope& scope, const Value* value) {
    uint32_t slot = static_cast<uint32_t>(scope.last_use.size());
    scope.slots[value] = slot;
    scope.last_use.push_back(-1);
    return slot;
  }

  // Finds `value` in this or an enclosing scope and records its use by the
  // step being planned at each level.
  Result<ValueRef> Resolve(const Value* value, Scope& scope, const Operation& user) {
    uint32_t depth = 0;
    for (Scope* s = &scope; s != nullptr; s = s->parent, ++depth) {
      auto it = s->slots.find(value);
      if (it == s->slots.end()) continue;
      int64_t& last = s->last_use[it->second];
      last = std::max(last, s->current_step);
      return ValueRef{depth, it->second};
    }
    return InternalError(user.location().ToString() + ": '" + std::string(user.name()) +
                         "' uses a value defined in no enclosing block");
  }

  // For each elementwise op whose only use is another elementwise op of the
  // same shape in this block: the op it is fused into.
  std::unordered_map<const Operation*, const Operation*> FusionParents(const Block& block) {
    std::unordered_map<const Operation*, const Operation*> parents;
    if (!options_.fuse_elementwise) return parents;
    std::unordered_map<const Operation*, bool> fusible;
    std::unordered_map<const Operation*, int> tree_size;
    auto is_fusible = [&](const Operation* op) {
      auto it = fusible.find(op);
      if (it != fusible.end()) return it->second;
      bool ok = IsFusibleElementwise(*op) && MakeElementwiseNode(*op).ok();
      fusible[op] = ok;
      return ok;
    };
    for (const Operation* op : block.operations()) {
      if (!is_fusible(op)) continue;
      for (const Value* operand : op->operands()) {
        const Operation* producer = operand->defining_op();
        if (producer == nullptr || producer->parent_block() != &block) continue;
        if (operand->num_uses() != 1 || !is_fusible(producer)) continue;
        if (producer->result(0)->type().NumElements() != op->result(0)->type().NumElements()) {
          continue;
        }
        int& size = tree_size[op];
        int producer_size = std::max(1, tree_size[producer]);
        if (std::max(1, size) + producer_size > kMaxFusedOps) continue;
        size = std::max(1, size) + producer_size;
        parents[producer] = op;
      }
    }
    return parents;
  }

  // Ops of the tree rooted at `root`, producers before consumers (root last).
  static std::vector<const Operation*> Tree(
      const Operation& root, const std::unordered_map<const Operation*, const Operation*>& parents) {
    std::vector<const Operation*> members;
    AppendPostOrder(root, parents, members);
    return members;
  }

  static void AppendPostOrder(const Operation& op,
                              const std::unordered_map<const Operation*, const Operation*>& parents,
                              std::vector<const Operation*>& out) {
    for (const Value* operand : op.operands()) {
      const Operation* producer = operand->defining_op();
      auto it = producer ? parents.find(producer) : parents.end();
      if (it != parents.end() && it->second == &op) AppendPostOrder(*producer, parents, out);
    }
    out.push_back(&op);
  }

  static int TreeSize(const Operation& root,
                      const std::unordered_map<const Operation*, const Operation*>& parents) {
    return static_cast<int>(Tree(root, parents).size());
  }

  Status BuildFused(const Operation& root,
                    const std::unordered_map<const Operation*, const Operation*>& parents,
                    Scope& scope, Step& step) {
    std::vector<const Operation*> members = Tree(root, parents);
    std::vector<FusedElementwise::Node> nodes;
    std::unordered_map<const Operation*, int> node_index;
    std::vector<const Value*> inputs;
    for (const Operation* op : members) {
      FusedElementwise::Node node;
      BERTH_ASSIGN_OR_RETURN(node.node, MakeElementwiseNode(*op));
      for (size_t i = 0; i < op->num_operands(); ++i) {
        const Value* operand = op->operand(i);
        const Operation* producer = operand->defining_op();
        auto it = producer ? node_index.find(producer) : node_index.end();
        if (it != node_index.end()) {
          node.args[i] = it->second;
          continue;
        }
        auto found = std::find(inputs.begin(), inputs.end(), operand);
        int input = static_cast<int>(found - inputs.begin());
        if (found == inputs.end()) inputs.push_back(operand);
        node.args[i] = -1 - input;
      }
      node_index[op] = static_cast<int>(nodes.size());
      nodes.push_back(std::move(node));
    }
    for (const Value* input : inputs) {
      BERTH_ASSIGN_OR_RETURN(ValueRef ref, Resolve(input, scope, root));
      step.operands.push_back(ref);
    }
    std::span<const int64_t> shape = root.result(0)->type().shape();
    step.fused = std::make_unique<FusedElementwise>(std::move(nodes), static_cast<int>(inputs.size()),
                                                    std::vector<int64_t>(shape.begin(), shape.end()));
    if (members.size() > 1) {
      ++plan_.fused_steps_;
      plan_.fused_ops_ += static_cast<int>(members.size());
    }
    return OkStatus();
  }

  ProgramPlan& plan_;
  const PlanOptions& options_;
};

Result<std::unique_ptr<ProgramPlan>> ProgramPlan::Build(const stablehlo::Module& module,
                                                        const PlanOptions& options) {
  std::unique_ptr<ProgramPlan> plan(new ProgramPlan(module));
  PlanBuilder builder(*plan, options);
  for (const stablehlo::Function* function : module.functions()) {
    if (function->is_declaration()) continue;
    BERTH_RETURN_IF_ERROR(builder.PlanBlock(function->entry_block(), nullptr));
  }
  return plan;
}

const BlockPlan* ProgramPlan::Find(const stablehlo::Block& block) const {
  auto it = blocks_.find(&block);
  return it == blocks_.end() ? nullptr : it->second.get();
}

}  // namespace berth::cpu
