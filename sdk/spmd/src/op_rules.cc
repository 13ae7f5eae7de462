// OpPartitioner's walk over a block (op_partitioner.hpp): the dispatch by op,
// sharding constraints, calls, and the fallback; and PartitionOps.
#include "src/op_rules.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "berth/spmd/entry_shardings.hpp"
#include "berth/spmd/gspmd.hpp"
#include "berth/spmd/shardy.hpp"
#include "berth/stablehlo/attributes.hpp"
#include "berth/stablehlo/parser.hpp"
#include "src/dot_plan.hpp"
#include "src/layout_math.hpp"
#include "src/op_partitioner.hpp"
#include "src/op_traits.hpp"
#include "src/reshard_plan.hpp"
#include "src/wanted_layouts.hpp"

namespace berth::spmd::internal {

namespace shlo = berth::stablehlo;
using shlo::OpKind;

void OpPartitioner::Define(const shlo::Value* value, DeviceValue device_value) {
  std::vector<DeviceValue>& known = layouts_[value];
  known = {std::move(device_value)};
  auto wanted = wanted_.find(value);
  if (wanted != wanted_.end() && known.front().sharding.IsReplicated()) {
    known.insert(known.begin(), program_.Reshard(known.front(), wanted->second));
  }
}

void OpPartitioner::WantLayoutsOf(const shlo::Block& body) {
  std::vector<std::optional<Sharding>> results;
  if (!entry_.replicated_results) results = entry_.results;
  wanted_ = WantLayouts(
      body, results,
      [this](const shlo::Operation& op) -> std::optional<Sharding> {
        if (!IsConstraint(op) || IsManual(op.operand(0))) return std::nullopt;
        Result<Sharding> asked = ConstraintSharding(op);
        if (!asked.ok()) return std::nullopt;  // the forward pass reports it
        return *asked;
      },
      program_.num_partitions());
}

DeviceValue OpPartitioner::Layout(const shlo::Value* value, const Sharding& target) {
  std::vector<DeviceValue>& known = layouts_.at(value);
  if (known.front().sharding.IsManual()) {
    if (!target.IsManual() && error_.ok()) {
      error_ = UnimplementedError("a shard_map region's (manual) value used outside the region other than "
                                  "through @SPMDShardToFullShape");
    }
    return known.front();
  }
  for (const DeviceValue& v : known) {
    if (v.sharding == target) return v;
  }
  if (hoist_ != nullptr && hoist_->outer.contains(value)) hoist_->asked.emplace_back(value, target);
  known.push_back(program_.Reshard(known.front(), target));
  return known.back();
}

Result<bool> OpPartitioner::PartitionBlock(const shlo::Block& body, std::vector<DeviceValue> arguments,
                                           std::vector<DeviceValue>& returned) {
  for (size_t i = 0; i < arguments.size(); ++i) Define(body.argument(i), std::move(arguments[i]));
  for (const shlo::Operation* op : body.operations()) {
    if (shlo::IsTerminator(op->kind())) {
      for (const shlo::Value* value : op->operands()) returned.push_back(Current(value));
      return true;
    }
    if (IsUnused(*op)) continue;
    BERTH_ASSIGN_OR_RETURN(bool partitioned, Partition(*op));
    if (!partitioned) {
      if (needs_whole_program.empty()) {
        needs_whole_program = op->location().ToString() + ": " + std::string(op->name());
      }
      return false;
    }
  }
  return true;
}

std::vector<std::string> OpPartitioner::Emit(const shlo::Operation& op, shlo::OpRewrite rewrite) {
  NoteCalls(op);
  return program_.EmitRewritten(op, std::move(rewrite));
}

void OpPartitioner::NoteCalls(const shlo::Operation& op) {
  if (op.kind() == OpKind::kFuncCall) NoteFunction(op.callee());
  for (const shlo::NamedAttribute& attr : op.attributes()) NoteSymbols(attr.value);
  for (const shlo::Region* region : op.regions()) {
    for (const shlo::Block* block : region->blocks()) {
      for (const shlo::Operation* inner : block->operations()) NoteCalls(*inner);
    }
  }
}

void OpPartitioner::NoteFunction(std::string_view name) {
  if (!called.insert(std::string(name)).second) return;
  const shlo::Function* function = module_.function(name);
  if (function != nullptr && !function->is_declaration()) {
    for (const shlo::Operation* inner : function->entry_block().operations()) NoteCalls(*inner);
  }
}

void OpPartitioner::NoteSymbols(const shlo::Attribute* attr) {
  if (attr == nullptr) return;
  if (const auto* symbol = attr->dyn_cast<shlo::SymbolRefAttr>()) {
    if (module_.function(symbol->name()) != nullptr) NoteFunction(symbol->name());
  } else if (const auto* array = attr->dyn_cast<shlo::ArrayAttr>()) {
    for (const shlo::Attribute* element : array->elements()) NoteSymbols(element);
  } else if (const auto* dictionary = attr->dyn_cast<shlo::DictionaryAttr>()) {
    for (const shlo::NamedAttribute& entry : dictionary->entries()) NoteSymbols(entry.value);
  }
}

Result<bool> OpPartitioner::Partition(const shlo::Operation& op) {
  if (IsShardMapStep(op)) {
    BERTH_ASSIGN_OR_RETURN(bool partitioned, ShardMapStep(op));
    if (!partitioned) return false;
  } else if (op.kind() == OpKind::kCustomCall &&
             (op.call_target_name().starts_with("xla.sdy.") || op.call_target_name().starts_with("local_xla.sdy.")) &&
             !IsFuncResultSharding(op)) {
    return UnimplementedError(op.location().ToString() + ": @" + std::string(op.call_target_name()) +
                              ": this custom call of XLA's Shardy round-trip form is not read");
  } else if (IsConstraint(op) && IsManual(op.operand(0))) {
    Define(op.result(0), Current(op.operand(0)));  // {manual} on a region's value: nothing to do
  } else if (const shlo::Function* callee = TouchesManual(op) ? CalleeWithRegions(op) : nullptr) {
    BERTH_RETURN_IF_ERROR(ManualCall(op, *callee));
  } else if (TouchesManual(op)) {
    AsWritten(op);
  } else if (const shlo::Function* callee = Inlinable(op)) {
    // A call is partitioned in place: the callee's ops, on the operands'
    // layouts (JAX wraps jitted functions in private ones).
    std::vector<DeviceValue> arguments, returned;
    for (const shlo::Value* operand : op.operands()) arguments.push_back(Current(operand));
    call_stack_.insert(callee);
    Result<bool> inlined = PartitionBlock(callee->entry_block(), std::move(arguments), returned);
    call_stack_.erase(callee);
    if (!inlined.ok() || !*inlined) return inlined;
    for (size_t i = 0; i < op.num_results(); ++i) Define(op.result(i), returned.at(i));
  } else if (const CustomCallRule* rule = RuleFor(op)) {
    BERTH_RETURN_IF_ERROR(CustomCall(op, *rule));
  } else {
    std::unordered_set<const shlo::Function*> visited;
    if (SeesTheDeviceDeep(op, module_, visited)) return false;
    if (IsConstraint(op)) {
      BERTH_RETURN_IF_ERROR(Constrain(op));
    } else if (op.kind() == OpKind::kWhile && LoopCarriable(op)) {
      BERTH_RETURN_IF_ERROR(While(op));
    } else if ((op.kind() == OpKind::kIf || op.kind() == OpKind::kCase) && BranchesCarriable(op)) {
      BERTH_RETURN_IF_ERROR(Branches(op));
    } else if (!(IsElementwise(op.kind()) && Elementwise(op)) && !(op.kind() == OpKind::kDotGeneral && DotGeneral(op)) &&
               !(op.kind() == OpKind::kTranspose && Transpose(op)) &&
               !(op.kind() == OpKind::kBroadcastInDim && BroadcastInDim(op)) &&
               !(op.kind() == OpKind::kReduce && (Reduce(op) || ReduceOverWholeDims(op))) &&
               !(op.kind() == OpKind::kSort && Sort(op)) && !(op.kind() == OpKind::kReshape && Reshape(op)) &&
               !(op.kind() == OpKind::kConvolution && Convolution(op)) &&
               !(op.kind() == OpKind::kDynamicSlice && DynamicSlice(op)) &&
               !(op.kind() == OpKind::kGather && Gather(op)) &&
               !(op.kind() == OpKind::kScatter && ScatterAdd(op)) &&
               !(op.kind() == OpKind::kReverse && Reverse(op)) &&
               !(op.kind() == OpKind::kDynamicUpdateSlice && DynamicUpdateSlice(op)) &&
               !(op.kind() == OpKind::kSlice && Slice(op)) && !(op.kind() == OpKind::kPad && Pad(op)) &&
               !(op.kind() == OpKind::kConcatenate && Concatenate(op))) {
      Whole(op);
    }
  }
  if (!error_.ok()) {
    return Status(error_.code(), op.location().ToString() + ": " + std::string(op.name()) + ": " + error_.message());
  }
  return true;
}

bool OpPartitioner::IsConstraint(const shlo::Operation& op) {
  if (op.num_operands() != 1 || op.num_results() != 1) return false;
  if (op.kind() == OpKind::kCustomCall) return op.call_target_name() == "Sharding" || IsFuncResultSharding(op);
  return op.kind() == OpKind::kSdyShardingConstraint || op.kind() == OpKind::kSdyReshard;
}

Result<Sharding> OpPartitioner::ConstraintSharding(const shlo::Operation& op) {
  const shlo::Type& type = op.result(0)->type();
  Sharding sharding;
  if (const auto* gspmd = op.attr_as<shlo::StringAttr>("mhlo.sharding")) {
    BERTH_ASSIGN_OR_RETURN(sharding, ParseGspmdSharding(gspmd->value()));
  } else if (const auto* shardy = op.attr_as<shlo::OpaqueAttr>("sharding")) {
    BERTH_ASSIGN_OR_RETURN(ShardySharding parsed, ParseShardySharding(shardy->text()));
    BERTH_ASSIGN_OR_RETURN(const Mesh* mesh, MeshOf(parsed));
    BERTH_ASSIGN_OR_RETURN(sharding, ToSharding(parsed, *mesh));
  } else {
    BERTH_ASSIGN_OR_RETURN(std::optional<Sharding> round_trip,
                           RoundTripSharding(op.attr("mhlo.frontend_attributes"), type, meshes_));
    if (round_trip) sharding = std::move(*round_trip);
  }
  return Holdable(sharding, type);
}

Result<const Mesh*> OpPartitioner::MeshOf(const ShardySharding& parsed) const {
  if (parsed.inline_mesh) return &*parsed.inline_mesh;
  auto found = meshes_.find(parsed.mesh_name);
  if (found == meshes_.end()) {
    return InvalidArgumentError("names mesh @" + parsed.mesh_name + ", which the module lacks");
  }
  return &found->second;
}

Result<Sharding> OpPartitioner::Holdable(Sharding sharding, const shlo::Type& type) const {
  sharding = sharding.Canonical();
  if (!sharding.IsTiled()) return Sharding::Replicated();
  if (!IsStaticTensor(type)) return Sharding::Replicated();
  BERTH_RETURN_IF_ERROR(sharding.CheckRank(type.rank()));
  const std::vector<int64_t>& devices = sharding.devices();
  if (static_cast<int64_t>(devices.size()) != program_.num_partitions() ||
      *std::max_element(devices.begin(), devices.end()) >= program_.num_partitions()) {
    return Sharding::Replicated();
  }
  return sharding;
}

Status OpPartitioner::Constrain(const shlo::Operation& op) {
  Result<Sharding> target = ConstraintSharding(op);
  if (!target.ok()) {
    return Status(target.status().code(), op.location().ToString() + ": " + std::string(op.name()) + ": " +
                                              target.status().message());
  }
  Define(op.result(0), Layout(op.operand(0), *target));
  return OkStatus();
}

const shlo::Function* OpPartitioner::Inlinable(const shlo::Operation& op) const {
  if (op.kind() != OpKind::kFuncCall) return nullptr;
  const shlo::Function* callee = module_.function(op.callee());
  if (callee == nullptr || callee->is_declaration() || call_stack_.contains(callee)) return nullptr;
  return callee;
}

std::string OpPartitioner::Where(const shlo::Operation& op) {
  return op.location().ToString() + ": @" + std::string(op.call_target_name()) + ": ";
}

void OpPartitioner::Whole(const shlo::Operation& op) { Unpartitioned(op, /*in_manual_region=*/false); }

void OpPartitioner::Unpartitioned(const shlo::Operation& op, bool in_manual_region) {
  shlo::OpRewrite rewrite;
  for (const shlo::Value* operand : op.operands()) {
    rewrite.operand_names.push_back(in_manual_region && IsManual(operand)
                                        ? Current(operand).name
                                        : Layout(operand, Sharding::Replicated()).name);
  }
  std::unordered_set<const shlo::Value*> inner;
  for (const shlo::Region* region : op.regions()) {
    for (const shlo::Block* block : region->blocks()) CollectOuter(*block, inner, rewrite.outer_names);
  }
  std::vector<std::string> names = Emit(op, std::move(rewrite));
  const Sharding results = in_manual_region ? Sharding::Manual() : Sharding::Replicated();
  for (size_t i = 0; i < op.num_results(); ++i) Define(op.result(i), {names[i], op.result(i)->type(), results});
}

void OpPartitioner::CollectOuter(const shlo::Block& block, std::unordered_set<const shlo::Value*>& inner,
                                 std::unordered_map<const shlo::Value*, std::string>& outer) {
  for (const shlo::Value* arg : block.arguments()) inner.insert(arg);
  for (const shlo::Operation* op : block.operations()) {
    for (const shlo::Value* operand : op->operands()) {
      if (!inner.contains(operand) && !outer.contains(operand) && layouts_.contains(operand)) {
        outer[operand] = IsManual(operand) ? Current(operand).name : Layout(operand, Sharding::Replicated()).name;
      }
    }
    for (const shlo::Region* region : op->regions()) {
      for (const shlo::Block* nested : region->blocks()) CollectOuter(*nested, inner, outer);
    }
    for (const shlo::Value* result : op->results()) inner.insert(result);
  }
}

Result<PartitionedOps> PartitionOps(const shlo::Module& module, const shlo::Block& body,
                                    std::vector<DeviceValue> arguments,
                                    const std::map<std::string, Mesh, std::less<>>& meshes, const EntryContext& entry,
                                    DeviceProgram& program) {
  OpPartitioner partitioner(module, meshes, entry, program);
  partitioner.WantLayoutsOf(body);
  PartitionedOps out;
  BERTH_ASSIGN_OR_RETURN(bool partitioned, partitioner.PartitionBlock(body, std::move(arguments), out.returned));
  if (!partitioned) out.needs_whole_program = partitioner.needs_whole_program;
  out.called = std::move(partitioner.called);
  out.custom_functions = std::move(partitioner.custom_functions);
  out.custom_rule_targets = std::move(partitioner.custom_rule_targets);
  return out;
}

}  // namespace berth::spmd::internal
