#include "cuda_plan.hpp"

#include "berth/stablehlo/interpreter_output.hpp"
#include "parallel_schedule.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <span>
#include <unordered_map>
#include <unordered_set>

namespace berth::cuda {
namespace {

using stablehlo::Operation;
using stablehlo::OpKind;

Result<const stablehlo::Function*> FindEntry(const stablehlo::Module& module,
                                             std::string_view entry_name) {
  const stablehlo::Function* entry =
      entry_name.empty() ? module.entry_function() : module.function(entry_name);
  if (entry == nullptr || entry->is_declaration()) {
    return InvalidArgumentError(
        entry_name.empty()
            ? std::string("the program has no entry function (@main, or its only public one)")
            : "the program has no function '" + std::string(entry_name) + "' with a body");
  }
  return entry;
}

// OK when check op `op` compares values the kernels hold, and its literal
// (the _const forms) is one of them.
Status CheckCheck(const Operation& op) {
  for (const stablehlo::Value* operand : op.operands()) {
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, operand->type()));
  }
  const stablehlo::Type checked = op.operand(0)->type();
  const std::string where = std::string(op.name()) + " at " + op.location().ToString();
  if (op.num_operands() == 2 && op.operand(1)->type() != checked) {
    return InvalidArgumentError(where + " compares " + checked.ToString() + " with " +
                                op.operand(1)->type().ToString());
  }
  if (op.num_operands() == 1) {
    const stablehlo::DenseElementsAttr* value = op.GetDense("value");
    if (value == nullptr || value->type().element_type() != checked.element_type() ||
        value->type().NumElements() != checked.NumElements()) {
      return InvalidArgumentError(where + ": its 'value' must be a dense literal of " +
                                  checked.ToString());
    }
  }
  return OkStatus();
}

// OK when control flow op `op` (while, if, case, func.call) has the shape the
// executable runs: one block per region, values the kernels hold, a rank-0
// i1 predicate (if, while's condition) or integer index (case), each
// region returning what the op gives (while's body: the carried values).
Status CheckControlFlow(const Operation& op) {
  const std::string where = std::string(op.name()) + " at " + op.location().ToString();
  for (const stablehlo::Value* value : op.operands())
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, value->type()));
  for (const stablehlo::Value* value : op.results())
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, value->type()));
  auto bad = [&](const std::string& why) {
    return UnimplementedError("the cuda plugin cannot run " + where + ": " + why);
  };
  for (const stablehlo::Region* region : op.regions()) {
    if (region->blocks().size() != 1 || region->entry_block().terminator() == nullptr) {
      return bad("each region must be one block");
    }
  }
  auto returns = [&](size_t r, size_t count) {
    return op.region(r).entry_block().terminator()->num_operands() == count;
  };
  auto is_scalar = [](const stablehlo::Value* value, bool predicate) {
    const stablehlo::Type type = value->type();
    return type.IsTensor() && type.rank() == 0 &&
           (predicate ? type.element_type() == stablehlo::ElementType::kI1
                      : stablehlo::IsInteger(type.element_type()));
  };
  // func.call and composite: the callee is checked where it is found.
  if (op.kind() == OpKind::kFuncCall || op.kind() == OpKind::kComposite) return OkStatus();
  if (op.kind() == OpKind::kWhile) {
    if (op.num_regions() != 2 || op.num_operands() != op.num_results())
      return bad("not a condition and a body");
    for (size_t r = 0; r < 2; ++r) {
      if (op.region(r).entry_block().num_arguments() != op.num_operands()) {
        return bad("its regions must take the carried values");
      }
    }
    const stablehlo::Operation& condition = *op.region(0).entry_block().terminator();
    if (condition.num_operands() != 1 || !is_scalar(condition.operand(0), true)) {
      return bad("the condition must return a tensor<i1>");
    }
    if (!returns(1, op.num_results())) return bad("the body must return the carried values");
    return OkStatus();
  }
  if (op.num_operands() != 1 || !is_scalar(op.operand(0), op.kind() == OpKind::kIf) ||
      op.num_regions() < (op.kind() == OpKind::kIf ? 2u : 1u)) {
    return bad(op.kind() == OpKind::kIf ? "not a tensor<i1> predicate and two branches"
                                        : "not an integer index and branches");
  }
  for (size_t r = 0; r < op.num_regions(); ++r) {
    if (op.region(r).entry_block().num_arguments() != 0 || !returns(r, op.num_results())) {
      return bad("each branch must take nothing and return the op's results");
    }
  }
  return OkStatus();
}

// Plans one block: its steps go to `steps`; views and written-out values of
// the enclosing blocks (`parent`) are visible in it.
class Planner {
 public:
  // `function`: the function whose body the block is (NULL for an op's
  // region). `instance`: where in interpreter.run_parallel's grid the block
  // runs when it is an instance's body (NULL: inherited from `parent`, or a
  // program running alone).
  Planner(const stablehlo::Module& module, CudaPlan& plan, std::vector<PlanStep>& steps,
          const Planner* parent, const stablehlo::Function* function,
          const stablehlo::GridPosition* instance = nullptr)
      : module_(module),
        plan_(plan),
        steps_(steps),
        parent_(parent),
        function_(function),
        position_(instance != nullptr ? instance
                  : parent != nullptr ? parent->position_
                                      : nullptr),
        instance_body_(instance != nullptr) {}

  // Plans every op of `block` but its terminator, then Finish.
  Status PlanBlock(const stablehlo::Block& block) {
    for (const Operation* op : block.operations()) {
      if (op == block.terminator()) break;
      BERTH_RETURN_IF_ERROR(Add(*op));
    }
    if (block.terminator() != nullptr) Finish(*block.terminator());
    return OkStatus();
  }

  Status Add(const Operation& op) {
    if (IsViewKind(op.kind())) {
      BERTH_RETURN_IF_ERROR(CheckView(op));
      ViewRead view;
      view.value = op.result(0);
      view.chain.push_back(&op);
      if (op.kind() != OpKind::kIota && op.kind() != OpKind::kDynamicIota) {
        const stablehlo::Value* operand = op.operand(0);
        if (const ViewRead* seen = FindView(operand)) {
          view.source = seen->source;
          view.chain.insert(view.chain.end(), seen->chain.begin(), seen->chain.end());
        } else {
          view.source = operand;
        }
      }
      views_[view.value] = std::move(view);
      return OkStatus();
    }
    if (op.kind() == OpKind::kOptimizationBarrier) {
      // Its values pass through unchanged: each result reads as its operand
      // does (a view without steps of its own; written out, it is copied).
      if (op.num_operands() != op.num_results())
        return UnimplementedError("the cuda plugin cannot run " + std::string(op.name()) + " at " +
                                  op.location().ToString() + ": not one result per operand");
      for (size_t j = 0; j < op.num_operands(); ++j) {
        BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, op.operand(j)->type()));
        ViewRead view;
        view.value = op.result(j);
        if (const ViewRead* seen = FindView(op.operand(j))) {
          view.source = seen->source;
          view.chain = seen->chain;
        } else {
          view.source = op.operand(j);
        }
        views_[view.value] = std::move(view);
      }
      return OkStatus();
    }
    if (op.kind() == OpKind::kGetDimensionSize) {
      // A static dimension: a constant of the plan.
      const std::optional<int64_t> dimension = op.GetInt("dimension");
      const stablehlo::Type operand = op.operand(0)->type();
      if (!dimension || *dimension < 0 || *dimension >= operand.rank() ||
          !operand.HasStaticShape() ||
          op.result(0)->type().element_type() != stablehlo::ElementType::kSI32) {
        return UnimplementedError("the cuda plugin cannot run " + std::string(op.name()) + " at " +
                                  op.location().ToString() +
                                  ": a static dimension of its operand, as tensor<i32>");
      }
      const int32_t size = static_cast<int32_t>(operand.dim(*dimension));
      AddLiteral(op, &size, sizeof(size));
      return OkStatus();
    }
    if (op.kind() == OpKind::kAfterAll || op.kind() == OpKind::kCreateToken) {
      return OkStatus();  // tokens hold nothing
    }
    if (op.kind() == OpKind::kTuple) {
      tuples_[op.result(0)] =
          std::vector<const stablehlo::Value*>(op.operands().begin(), op.operands().end());
      return OkStatus();
    }
    if (op.kind() == OpKind::kGetTupleElement) return AddTupleElement(op);
    if (op.kind() == OpKind::kBitcastConvert && !CheckFusible(op).ok()) {
      // Not a same-width reinterpretation of values: the stored bytes move.
      BERTH_RETURN_IF_ERROR(CheckBitcast(op));
      Flush();
      WriteOutViews(op.operands());
      EmitOpKernel(op, FusedKernel::Family::kBitcast, BitcastThreads(op));
      return OkStatus();
    }
    if (position_ != nullptr &&
        (op.kind() == OpKind::kReplicaId || op.kind() == OpKind::kPartitionId)) {
      // An instance's own id: a constant of its plan.
      const uint32_t id = static_cast<uint32_t>(
          op.kind() == OpKind::kReplicaId ? position_->replica : position_->partition);
      AddLiteral(op, &id, sizeof(id));
      return OkStatus();
    }
    if (IsGeneratedElementwiseKind(op.kind())) {
      BERTH_RETURN_IF_ERROR(CheckFusible(op));
      const int64_t elements = op.result(0)->type().NumElements();
      bool reads_group_through_view = false;
      for (const stablehlo::Value* operand : op.operands()) {
        const ViewRead* seen = FindView(operand);
        if (seen != nullptr && seen->source != nullptr && seen->source->defining_op() != nullptr &&
            inside_.contains(seen->source->defining_op())) {
          reads_group_through_view = true;  // its source must be in memory first
        }
      }
      if (!chain_.empty() && (elements != chain_elements_ || reads_group_through_view)) Flush();
      chain_elements_ = elements;
      chain_.push_back(&op);
      inside_.insert(&op);
      return OkStatus();
    }
    Flush();
    using Family = FusedKernel::Family;
    if (op.kind() == OpKind::kReduce || op.kind() == OpKind::kReduceWindow) {
      BERTH_RETURN_IF_ERROR(CheckReduce(op));
      // The init values are read from memory (data movement written out).
      WriteOutViews(op.operands().subspan(op.num_results()));
      int64_t scratch_bytes = 0;
      if (const int64_t threads = BlockedReduceThreads(op, scratch_bytes)) {
        EmitOpKernel(op, Family::kReduce, threads);
        steps_.back().fused.launches = {0, 1};
        steps_.back().fused.scratch_bytes = scratch_bytes;
      } else {
        EmitOpKernel(op, Family::kReduce, op.result(0)->type().NumElements());
      }
      return OkStatus();
    }
    if (op.kind() == OpKind::kScatter) {
      BERTH_RETURN_IF_ERROR(CheckScatter(op));
      EmitOpKernel(op, Family::kScatter, ScatterThreads(op));
      return OkStatus();
    }
    if (op.kind() == OpKind::kSelectAndScatter) {
      BERTH_RETURN_IF_ERROR(CheckSelectAndScatter(op));
      EmitOpKernel(op, Family::kSelectAndScatter, op.result(0)->type().NumElements());
      return OkStatus();
    }
    if (op.kind() == OpKind::kRngBitGenerator) {
      BERTH_RETURN_IF_ERROR(CheckRandomBits(op));
      EmitOpKernel(op, Family::kRandomBits, RandomBitsThreads(op));
      return OkStatus();
    }
    if (op.kind() == OpKind::kSort) {
      BERTH_RETURN_IF_ERROR(CheckSort(op));
      // Its operands are moved as stored bits: views are written out first.
      WriteOutViews(op.operands());
      const stablehlo::Type type = op.operand(0)->type();
      if (type.dim(*op.GetInt("dimension")) <= kInsertionSortMaxLength) {
        EmitOpKernel(op, Family::kSort, SortThreads(op));
      } else {
        // A merge sort: one thread per element, a launch per pass.
        EmitOpKernel(op, Family::kSort, type.NumElements());
        FusedKernel& kernel = steps_.back().fused;
        kernel.launches = SortLaunches(op, kernel.scratch_bytes);
      }
      return OkStatus();
    }
    if (op.kind() == OpKind::kChloTopK) {
      BERTH_RETURN_IF_ERROR(CheckTopK(op));
      WriteOutViews(op.operands());  // values are moved as stored bits
      EmitOpKernel(op, Family::kTopK, TopKThreads(op));
      return OkStatus();
    }
    if (op.kind() == OpKind::kDotGeneral || op.kind() == OpKind::kDot) {
      BERTH_RETURN_IF_ERROR(CheckDot(op));
      EmitOpKernel(op, Family::kDot, op.result(0)->type().NumElements());
      return OkStatus();
    }
    if (op.kind() == OpKind::kChloScan) {
      BERTH_RETURN_IF_ERROR(CheckScan(op));
      WriteOutViews(op.operands());  // read along the scanned dimension
      const int64_t inputs = op.GetI64Array("operandSegmentSizes")[0];
      const stablehlo::Type full = inputs > 0 ? op.operand(0)->type() : op.result(0)->type();
      int64_t slices = 1;
      for (int64_t d = 0; d < full.rank(); ++d) {
        if (d != *op.GetInt("dimension")) slices *= full.dim(d);
      }
      EmitOpKernel(op, Family::kScan, slices);
      return OkStatus();
    }
    if (op.kind() == OpKind::kFft) {
      BERTH_RETURN_IF_ERROR(CheckFft(op));
      WriteOutViews(op.operands());  // its lines are read from memory
      int64_t scratch_bytes = 0;
      EmitOpKernel(op, Family::kFft, FftThreads(op, scratch_bytes));
      FusedKernel& kernel = steps_.back().fused;
      kernel.scratch_bytes = scratch_bytes;
      for (size_t pass = 0; pass < op.GetI64Array("fft_length").size(); ++pass)
        kernel.launches.push_back(static_cast<int64_t>(pass));
      return OkStatus();
    }
    if (IsChloBroadcastKind(op.kind())) {
      BERTH_RETURN_IF_ERROR(CheckChloBroadcast(op));
      EmitOpKernel(op, Family::kChloBroadcast, op.result(0)->type().NumElements());
      return OkStatus();
    }
    if (op.kind() == OpKind::kChloRaggedDot) {
      BERTH_RETURN_IF_ERROR(CheckRaggedDot(op));
      EmitOpKernel(op, Family::kRaggedDot, op.result(0)->type().NumElements());
      return OkStatus();
    }
    if (op.kind() == OpKind::kConvolution || op.kind() == OpKind::kDynamicConv) {
      BERTH_RETURN_IF_ERROR(CheckConvolution(op));
      EmitOpKernel(op, Family::kConvolution, op.result(0)->type().NumElements());
      return OkStatus();
    }
    if (op.kind() == OpKind::kBatchNormInference || op.kind() == OpKind::kBatchNormTraining ||
        op.kind() == OpKind::kBatchNormGrad) {
      BERTH_RETURN_IF_ERROR(CheckBatchNorm(op));
      WriteOutViews(op.operands());  // read per feature and per element
      std::vector<int64_t> launches;
      int64_t scratch_bytes = 0;
      EmitOpKernel(op, Family::kBatchNorm, BatchNormThreads(op, launches, scratch_bytes));
      steps_.back().fused.launches = std::move(launches);
      steps_.back().fused.scratch_bytes = scratch_bytes;
      return OkStatus();
    }
    if (op.kind() == OpKind::kCholesky) {
      BERTH_RETURN_IF_ERROR(CheckCholesky(op));
      int64_t scratch_bytes = 0;
      EmitOpKernel(op, Family::kCholesky, CholeskyThreads(op, scratch_bytes));
      steps_.back().fused.launches = {0};
      steps_.back().fused.scratch_bytes = scratch_bytes;
      return OkStatus();
    }
    if (op.kind() == OpKind::kTriangularSolve) {
      BERTH_RETURN_IF_ERROR(CheckTriangularSolve(op));
      // One thread per solved vector: the elements of the other dimension.
      const stablehlo::Type b = op.operand(1)->type();
      const int64_t m = b.dim(op.GetBool("left_side") ? b.rank() - 2 : b.rank() - 1);
      const int64_t elements = b.NumElements();
      EmitOpKernel(op, Family::kSolve, m > 0 ? elements / m : elements);
      return OkStatus();
    }
    if (op.kind() == OpKind::kConcatenate || op.kind() == OpKind::kPad ||
        op.kind() == OpKind::kDynamicSlice || op.kind() == OpKind::kDynamicUpdateSlice ||
        op.kind() == OpKind::kGather || op.kind() == OpKind::kDynamicGather ||
        op.kind() == OpKind::kTorchIndexSelect || op.kind() == OpKind::kDynamicPad) {
      BERTH_RETURN_IF_ERROR(CheckMove(op));
      EmitOpKernel(op, Family::kMove, op.result(0)->type().NumElements());
      return OkStatus();
    }
    if (op.kind() == OpKind::kInterpreterPrint) {
      if (op.num_operands() != 1)
        return InvalidArgumentError(std::string(op.name()) + " at " + op.location().ToString() +
                                    ": not one operand");
      BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, op.operand(0)->type()));
      WriteOutViews(op.operands());
      PlanStep step;
      step.kind = PlanStep::Kind::kPrint;
      step.op = &op;
      steps_.push_back(std::move(step));
      return OkStatus();
    }
    if (op.kind() == OpKind::kInterpreterProbe || op.kind() == OpKind::kCheckExpectSerializedEq) {
      return AddProbeOrItsCheck(op);
    }
    if (stablehlo::IsComparingCheck(op)) {
      BERTH_RETURN_IF_ERROR(CheckCheck(op));
      WriteOutViews(op.operands());
      PlanStep step;
      step.kind = PlanStep::Kind::kCheck;
      step.op = &op;
      step.check = stablehlo::CheckSpecOf(op);
      if (const stablehlo::DenseElementsAttr* value = op.GetDense("value")) {
        step.expected = std::make_shared<const std::vector<uint8_t>>(value->ExpandedData());
      }
      steps_.push_back(std::move(step));
      return OkStatus();
    }
    if (op.kind() == OpKind::kWhile || op.kind() == OpKind::kIf || op.kind() == OpKind::kCase) {
      BERTH_RETURN_IF_ERROR(CheckControlFlow(op));
      std::vector<std::pair<const stablehlo::Block*, const stablehlo::Function*>> blocks;
      for (const stablehlo::Region* region : op.regions())
        blocks.emplace_back(&region->entry_block(), nullptr);
      return PlanRegions(op, blocks);
    }
    if (op.kind() == OpKind::kFuncCall || op.kind() == OpKind::kComposite) {
      // The callee's body (a composite's decomposition) planned for this
      // call site, as a region taking the call's operands.
      BERTH_RETURN_IF_ERROR(CheckControlFlow(op));
      const stablehlo::Function* callee = module_.function(op.callee());
      const std::string where = std::string(op.name()) + " at " + op.location().ToString();
      if (callee == nullptr || callee->is_declaration() ||
          callee->entry_block().num_arguments() != op.num_operands() ||
          callee->entry_block().terminator() == nullptr ||
          callee->entry_block().terminator()->num_operands() != op.num_results()) {
        return InvalidArgumentError(where + " calls no function with a body taking its operands");
      }
      for (const Planner* planner = this; planner != nullptr; planner = planner->parent_) {
        if (planner->function_ == callee) {
          return UnimplementedError("the cuda plugin cannot run " + where + ": @" +
                                    std::string(callee->name()) + " calls itself");
        }
      }
      return PlanRegions(op, {{&callee->entry_block(), callee}});
    }
    if (IsCollectiveKind(op.kind())) return AddCollective(op);
    if (op.kind() == OpKind::kSend || op.kind() == OpKind::kRecv) return AddTransfer(op);
    if (op.kind() == OpKind::kInterpreterRunParallel) return PlanParallel(op);
    if (op.kind() == OpKind::kChloConstantLike) return AddConstantLike(op);
    if (op.kind() == OpKind::kConstant || op.kind() == OpKind::kChloConstant) {
      PlanStep step;
      step.kind = PlanStep::Kind::kConstant;
      step.op = &op;
      steps_.push_back(std::move(step));
      return OkStatus();
    }
    return UnimplementedError("the cuda plugin has no kernel for " + std::string(op.name()) +
                              " (at " + op.location().ToString() + ") yet");
  }

  // Ends the block: views its terminator returns are written out.
  void Finish(const Operation& terminator) {
    Flush();
    WriteOutViews(terminator.operands());
  }

 private:
  // chlo.constant_like: its value (a splat of the result type, a number or
  // a boolean, converted as the cpu plugin converts it for the types whose
  // bits the plan can make) in every element of the result.
  Status AddConstantLike(const Operation& op) {
    const stablehlo::Type type = op.result(0)->type();
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, type));
    const stablehlo::ElementType element = type.element_type();
    const size_t size = stablehlo::StorageBytes(element);
    std::vector<uint8_t> one(size);
    const stablehlo::Attribute* value = op.attr("value");
    const auto* dense = value ? value->dyn_cast<stablehlo::DenseElementsAttr>() : nullptr;
    const auto* number = value ? value->dyn_cast<stablehlo::FloatAttr>() : nullptr;
    const auto* integer = value ? value->dyn_cast<stablehlo::IntegerAttr>() : nullptr;
    const auto* boolean = value ? value->dyn_cast<stablehlo::BoolAttr>() : nullptr;
    const bool is_float = stablehlo::IsFloat(element);
    uint64_t bits = 0;
    if (dense != nullptr && dense->is_splat() && dense->element_type() == element &&
        dense->CopyTo(one.data(), size)) {
      // copied
    } else if (number != nullptr && is_float) {
      bits = stablehlo::EncodeFloat(element, number->value());
    } else if (integer != nullptr && is_float) {
      bits = stablehlo::EncodeFloat(element, stablehlo::IsUnsignedInteger(integer->type())
                                                 ? static_cast<double>(integer->unsigned_value())
                                                 : static_cast<double>(integer->value()));
    } else if (integer != nullptr && stablehlo::IsInteger(element)) {
      bits = integer->unsigned_value();  // wraps to the width, as a convert of integers
    } else if (boolean != nullptr && element == stablehlo::ElementType::kI1) {
      bits = boolean->value() ? 1 : 0;
    } else {
      return UnimplementedError("the cuda plugin cannot run " + std::string(op.name()) + " at " +
                                op.location().ToString() + ": its value as " +
                                std::string(stablehlo::ElementTypeName(element)));
    }
    if (dense == nullptr) std::memcpy(one.data(), &bits, size);
    std::vector<uint8_t> all;
    for (int64_t e = 0; e < type.NumElements(); ++e) all.insert(all.end(), one.begin(), one.end());
    AddLiteral(op, all.data(), all.size());
    return OkStatus();
  }

  // A constant step: `op`'s result holds the `size` bytes at `data`.
  void AddLiteral(const Operation& op, const void* data, size_t size) {
    std::vector<uint8_t> bytes(size);
    std::memcpy(bytes.data(), data, size);
    PlanStep step;
    step.kind = PlanStep::Kind::kConstant;
    step.op = &op;
    step.literal = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
    steps_.push_back(std::move(step));
  }

  // The elements of tuple `value` (made by stablehlo.tuple in this block or
  // an enclosing one), or NULL.
  const std::vector<const stablehlo::Value*>* FindTuple(const stablehlo::Value* value) const {
    for (const Planner* planner = this; planner != nullptr; planner = planner->parent_) {
      if (auto it = planner->tuples_.find(value); it != planner->tuples_.end()) return &it->second;
    }
    return nullptr;
  }

  // get_tuple_element: its result reads as the element does (a tuple, a
  // token, or a value in memory or through its view); tuples are never
  // held in memory.
  Status AddTupleElement(const Operation& op) {
    const std::vector<const stablehlo::Value*>* elements = FindTuple(op.operand(0));
    const std::optional<int64_t> index = op.GetInt("index");
    if (elements == nullptr || !index || *index < 0 ||
        *index >= static_cast<int64_t>(elements->size())) {
      return UnimplementedError("the cuda plugin cannot run " + std::string(op.name()) + " at " +
                                op.location().ToString() +
                                ": tuples are held only where stablehlo.tuple makes them");
    }
    const stablehlo::Value* element = (*elements)[static_cast<size_t>(*index)];
    if (const std::vector<const stablehlo::Value*>* inner = FindTuple(element)) {
      tuples_[op.result(0)] = *inner;
    } else if (!element->type().IsToken()) {
      ViewRead view;
      view.value = op.result(0);
      if (const ViewRead* seen = FindView(element)) {
        view.source = seen->source;
        view.chain = seen->chain;
      } else {
        view.source = element;
      }
      views_[view.value] = std::move(view);
    }
    return OkStatus();
  }

  // send and recv between run_parallel's instances: steps whose transfers
  // the schedule pairs (ScheduleInstances), in an instance's body itself.
  Status AddTransfer(const Operation& op) {
    const std::string where = std::string(op.name()) + " at " + op.location().ToString();
    if (!instance_body_) {
      return UnimplementedError("the cuda plugin cannot run " + where +
                                ": send and recv run only between the instances of "
                                "interpreter.run_parallel, in their functions' bodies");
    }
    const bool send = op.kind() == OpKind::kSend;
    const auto values = send ? op.operands() : op.results();
    if (values.empty() || !values.back()->type().IsToken())
      return InvalidArgumentError(where + ": its last " + (send ? "operand" : "result") +
                                  " must be a token");
    for (size_t j = 0; j + 1 < values.size(); ++j)
      BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, values[j]->type()));
    if (!op.channel_handle()) return InvalidArgumentError(where + " has no channel_handle");
    WriteOutViews(op.operands());
    AddCollectiveStep(op);
    return OkStatus();
  }

  // A step its meeting (or, a send, the recv taking its values) stands for.
  void AddCollectiveStep(const Operation& op) {
    PlanStep step;
    step.kind = PlanStep::Kind::kCollective;
    step.op = &op;
    steps_.push_back(std::move(step));
  }

  // interpreter.probe: a step copying its operand to the host, its result
  // a view of the operand; check.expect_serialized_eq: a check step
  // comparing its operand with a probed value.
  Status AddProbeOrItsCheck(const Operation& op) {
    const std::string where = std::string(op.name()) + " at " + op.location().ToString();
    if (op.num_operands() != 1 || op.num_results() != (op.kind() == OpKind::kInterpreterProbe))
      return InvalidArgumentError(where + ": not one operand");
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, op.operand(0)->type()));
    WriteOutViews(op.operands());
    PlanStep step;
    step.op = &op;
    step.probe_id = std::string(op.GetString("probe_id"));
    if (position_ != nullptr) {
      step.probe_scope = "(" + std::to_string(position_->replica) + ", " +
                         std::to_string(position_->partition) + ")";
    }
    if (op.kind() == OpKind::kInterpreterProbe) {
      step.kind = PlanStep::Kind::kProbe;
      steps_.push_back(std::move(step));
      ViewRead view;
      view.value = op.result(0);
      view.source = op.operand(0);
      views_[view.value] = std::move(view);
      return OkStatus();
    }
    step.kind = PlanStep::Kind::kCheck;
    step.check.kind = stablehlo::CheckSpec::kEqual;
    step.check.name = "check.expect_serialized_eq '" + step.probe_id + "'";
    step.probe_iteration = op.GetInt("iter").value_or(0);
    steps_.push_back(std::move(step));
    return OkStatus();
  }

  std::string NextKernelName() { return "berth_fused_" + std::to_string(plan_.num_kernels++); }

  // A collective: a kernel of its own when its process group is this
  // instance alone (every collective of a program running alone, a 1 x 1
  // grid); otherwise a step its group's meeting stands for (see
  // ScheduleInstances), which only an instance's body itself may hold.
  Status AddCollective(const Operation& op) {
    const stablehlo::GridPosition alone;
    BERTH_ASSIGN_OR_RETURN(Membership membership,
                           MembershipOf(op, position_ != nullptr ? *position_ : alone));
    WriteOutViews(op.operands());
    if (membership.members.size() == 1) {
      for (PlanStep& step :
           MeetingSteps({&op}, {membership.source}, [this] { return NextKernelName(); })) {
        steps_.push_back(std::move(step));
      }
      return OkStatus();
    }
    if (!instance_body_) {
      return UnimplementedError("the cuda plugin cannot run " + std::string(op.name()) + " at " +
                                op.location().ToString() + ": a collective over " +
                                std::to_string(membership.members.size()) +
                                " instances inside control flow or a call");
    }
    AddCollectiveStep(op);
    return OkStatus();
  }

  // interpreter.run_parallel: each instance of the `programs` grid planned
  // for its place in it, the operands handed out in grid order to their
  // parameters, then the order they run in on the device.
  Status PlanParallel(const Operation& op) {
    const std::string where = std::string(op.name()) + " at " + op.location().ToString();
    if (op.attr("infeed") != nullptr) {
      return UnimplementedError("the cuda plugin cannot run " + where +
                                ": infeed (the cuda plugin has no host transfers)");
    }
    const auto* programs = op.attr_as<stablehlo::ArrayAttr>("programs");
    if (programs == nullptr || programs->size() == 0)
      return InvalidArgumentError(where + " has no 'programs' grid");
    std::vector<const stablehlo::Function*> functions;
    std::vector<stablehlo::GridPosition> positions;
    const int64_t replicas = static_cast<int64_t>(programs->size());
    int64_t partitions = -1;
    for (const stablehlo::Attribute* row : programs->elements()) {
      const auto* cells = row->dyn_cast<stablehlo::ArrayAttr>();
      if (cells == nullptr || cells->size() == 0 ||
          (partitions >= 0 && static_cast<int64_t>(cells->size()) != partitions)) {
        return InvalidArgumentError(where + ": 'programs' must be rows of one length");
      }
      partitions = static_cast<int64_t>(cells->size());
      for (const stablehlo::Attribute* cell : cells->elements()) {
        const auto* symbol = cell->dyn_cast<stablehlo::SymbolRefAttr>();
        const stablehlo::Function* function =
            symbol != nullptr ? module_.function(symbol->name()) : nullptr;
        if (function == nullptr || function->is_declaration() ||
            function->entry_block().terminator() == nullptr) {
          return InvalidArgumentError(where + ": 'programs' names no function with a body");
        }
        functions.push_back(function);
      }
    }
    for (size_t i = 0; i < functions.size(); ++i) {
      const int64_t at = static_cast<int64_t>(i);
      positions.push_back({at / partitions, at % partitions, replicas, partitions});
    }
    // Operands and results, handed out in grid order.
    size_t operands = 0, results = 0;
    for (const stablehlo::Function* function : functions) {
      const stablehlo::Block& body = function->entry_block();
      for (size_t a = 0; a < body.num_arguments(); ++a, ++operands) {
        if (operands >= op.num_operands() ||
            op.operand(operands)->type() != body.argument(a)->type()) {
          return InvalidArgumentError(where + ": its operands do not match the parameters of " +
                                      "the grid's functions");
        }
      }
      for (const stablehlo::Value* value : body.terminator()->operands()) {
        if (results >= op.num_results() || op.result(results)->type() != value->type()) {
          return InvalidArgumentError(where + ": its results do not match what the grid's " +
                                      "functions return");
        }
        ++results;
      }
    }
    if (operands != op.num_operands() || results != op.num_results()) {
      return InvalidArgumentError(where + ": its operands and results do not match the grid's " +
                                  "functions");
    }
    WriteOutViews(op.operands());
    PlanStep step;
    step.kind = PlanStep::Kind::kParallel;
    step.op = &op;
    for (size_t i = 0; i < functions.size(); ++i) {
      BlockPlan block;
      block.block = &functions[i]->entry_block();
      Planner inner(module_, plan_, block.steps, nullptr, functions[i], &positions[i]);
      BERTH_RETURN_IF_ERROR(inner.PlanBlock(*block.block));
      step.regions.push_back(std::move(block));
    }
    BERTH_RETURN_IF_ERROR(ScheduleInstances(step, positions, [this] { return NextKernelName(); }));
    steps_.push_back(std::move(step));
    return OkStatus();
  }

  // A control flow step for `op` holding the plans of `blocks` (each with
  // the function whose body it is, or NULL); what it reads (a loop's initial
  // values, a predicate, an index, a call's operands) is read from memory.
  Status PlanRegions(
      const Operation& op,
      const std::vector<std::pair<const stablehlo::Block*, const stablehlo::Function*>>& blocks) {
    WriteOutViews(op.operands());
    PlanStep step;
    step.kind = PlanStep::Kind::kControlFlow;
    step.op = &op;
    for (const auto& [body, function] : blocks) {
      BlockPlan block;
      block.block = body;
      Planner inner(module_, plan_, block.steps, this, function);
      BERTH_RETURN_IF_ERROR(inner.PlanBlock(*body));
      step.regions.push_back(std::move(block));
    }
    steps_.push_back(std::move(step));
    return OkStatus();
  }

  // The view `value` is, seen from this block; NULL when it is in memory (a
  // kernel's output, an argument, a constant, a view written out here or
  // in an enclosing block).
  const ViewRead* FindView(const stablehlo::Value* value) const {
    for (const Planner* planner = this; planner != nullptr; planner = planner->parent_) {
      if (planner->written_.contains(value)) return nullptr;
      if (auto it = planner->views_.find(value); it != planner->views_.end()) return &it->second;
    }
    return nullptr;
  }

  // Writes those of `values` that are views to memory, one kernel per
  // element count; later readers in this block (and blocks inside it) read
  // them as any computed value.
  void WriteOutViews(std::span<const stablehlo::Value* const> values) {
    std::vector<const stablehlo::Value*> unique;
    for (const stablehlo::Value* value : values) {
      if (FindView(value) != nullptr &&
          std::find(unique.begin(), unique.end(), value) == unique.end())
        unique.push_back(value);
    }
    while (!unique.empty()) {
      const int64_t elements = unique.front()->type().NumElements();
      std::vector<const stablehlo::Value*> same;
      std::erase_if(unique, [&](const stablehlo::Value* value) {
        if (value->type().NumElements() != elements) return false;
        same.push_back(value);
        return true;
      });
      FusedKernel kernel;
      kernel.num_elements = elements;
      for (const stablehlo::Value* value : same) {
        AddView(kernel, *FindView(value));
        kernel.outputs.push_back(value);
      }
      Emit(std::move(kernel));
      written_.insert(same.begin(), same.end());
    }
  }

  // The kernel of one op of `family` over `num_elements` threads: its
  // operands read directly or through their views, its results written.
  void EmitOpKernel(const Operation& op, FusedKernel::Family family, int64_t num_elements) {
    FusedKernel kernel;
    kernel.family = family;
    kernel.root = &op;
    kernel.num_elements = num_elements;
    for (const stablehlo::Value* operand : op.operands()) {
      if (const ViewRead* seen = FindView(operand)) {
        AddView(kernel, *seen);
      } else {
        AddInput(kernel, operand);
      }
    }
    for (const stablehlo::Value* result : op.results()) kernel.outputs.push_back(result);
    Emit(std::move(kernel));
  }

  static void AddInput(FusedKernel& kernel, const stablehlo::Value* value) {
    if (value != nullptr &&
        std::find(kernel.inputs.begin(), kernel.inputs.end(), value) == kernel.inputs.end()) {
      kernel.inputs.push_back(value);
    }
  }

  static void AddView(FusedKernel& kernel, const ViewRead& view) {
    for (const ViewRead& known : kernel.views) {
      if (known.value == view.value) return;
    }
    AddInput(kernel, view.source);
    kernel.views.push_back(view);
  }

  // Closes the kernel of the chain: what it reads from memory (directly or
  // through views), what is used after it. A kernel whose results are all
  // unused is dropped.
  void Flush() {
    if (chain_.empty()) return;
    FusedKernel kernel;
    kernel.num_elements = chain_elements_;
    kernel.ops = chain_;
    for (const Operation* op : chain_) {
      for (const stablehlo::Value* operand : op->operands()) {
        const Operation* producer = operand->defining_op();
        if (producer != nullptr && inside_.contains(producer)) continue;
        if (const ViewRead* seen = FindView(operand)) {
          AddView(kernel, *seen);
        } else {
          AddInput(kernel, operand);
        }
      }
      const stablehlo::Value* result = op->result(0);
      for (const stablehlo::OpOperand& use : result->uses()) {
        if (!inside_.contains(use.owner)) {
          kernel.outputs.push_back(result);
          break;
        }
      }
    }
    const int ops = static_cast<int>(chain_.size());
    chain_.clear();
    inside_.clear();
    if (kernel.outputs.empty()) return;
    plan_.fused_ops += ops;
    Emit(std::move(kernel));
  }

  void Emit(FusedKernel kernel) {
    PlanStep step;
    step.kind = PlanStep::Kind::kFused;
    kernel.name = NextKernelName();
    step.fused = std::move(kernel);
    steps_.push_back(std::move(step));
  }

  const stablehlo::Module& module_;
  CudaPlan& plan_;
  std::vector<PlanStep>& steps_;
  const Planner* parent_;
  std::unordered_map<const stablehlo::Value*, ViewRead> views_;
  std::unordered_map<const stablehlo::Value*, std::vector<const stablehlo::Value*>> tuples_;
  std::unordered_set<const stablehlo::Value*> written_;
  const stablehlo::Function* function_;
  const stablehlo::GridPosition* position_;
  bool instance_body_;
  std::vector<const Operation*> chain_;
  std::unordered_set<const Operation*> inside_;
  int64_t chain_elements_ = 0;
};

// Generates the source of every kernel of `steps` and of their regions.
Status EmitKernels(std::vector<PlanStep>& steps) {
  for (PlanStep& step : steps) {
    for (BlockPlan& region : step.regions) BERTH_RETURN_IF_ERROR(EmitKernels(region.steps));
    BERTH_RETURN_IF_ERROR(EmitKernels(step.meetings));
    if (step.kind != PlanStep::Kind::kFused) continue;
    BERTH_ASSIGN_OR_RETURN(step.source, EmitFusedKernel(step.fused));
  }
  return OkStatus();
}

}  // namespace

int64_t ScalarIndex(stablehlo::ElementType type, const void* data) {
  const int bits = stablehlo::BitWidth(type);
  uint64_t raw = 0;
  std::memcpy(&raw, data, static_cast<size_t>(bits <= 8 ? 1 : bits / 8));
  if (type == stablehlo::ElementType::kI1) return (raw & 0xff) != 0;
  // A narrow integer (i2, i4...) is the value of the low bits of its byte.
  const int unused = 64 - bits;
  if (stablehlo::IsSignedInteger(type)) return static_cast<int64_t>(raw << unused) >> unused;
  raw = (raw << unused) >> unused;
  return raw > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(raw);
}

std::string PrintText(const stablehlo::Operation& print, const void* data) {
  const stablehlo::Value* value = print.operand(0);
  const std::string_view name = value->name();
  const stablehlo::Type type = value->type();
  std::string text = "%" + std::string(name.empty() ? std::string_view("value") : name) + " = ";
  text += stablehlo::FormatInterpreterValue(type.ToString(), type.shape(), [&](int64_t i) {
    return stablehlo::InterpreterElementText(type.element_type(), data, i);
  });
  return text + "\n";
}

size_t BranchOf(const stablehlo::Operation& op, int64_t selector) {
  if (op.kind() == OpKind::kIf) return selector != 0 ? 0 : 1;
  const int64_t branches = static_cast<int64_t>(op.num_regions());
  return static_cast<size_t>(selector < 0 || selector >= branches ? branches - 1 : selector);
}

Result<CudaPlan> PlanCudaProgram(const stablehlo::Module& module, std::string_view entry_name) {
  CudaPlan plan;
  BERTH_ASSIGN_OR_RETURN(plan.entry, FindEntry(module, entry_name));
  Planner planner(module, plan, plan.steps, nullptr, plan.entry);
  BERTH_RETURN_IF_ERROR(planner.PlanBlock(plan.entry->entry_block()));
  BERTH_RETURN_IF_ERROR(EmitKernels(plan.steps));
  return plan;
}

}  // namespace berth::cuda
