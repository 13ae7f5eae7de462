// OpPartitioner on shard_map regions: sdy.manual_computation, GSPMD's
// @SPMDFullToShardShape / @SPMDShardToFullShape, XLA's round-trip
// @xla.sdy.GlobalToLocalShape / LocalToGlobalShape; partially manual and
// nested ones.
#include "src/op_partitioner.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <numeric>

#include "berth/spmd/entry_shardings.hpp"
#include "berth/spmd/gspmd.hpp"
#include "berth/stablehlo/parser.hpp"
#include "src/dot_plan.hpp"
#include "src/layout_math.hpp"
#include "src/op_traits.hpp"
#include "src/reshard_plan.hpp"

namespace berth::spmd::internal {

namespace shlo = berth::stablehlo;
using shlo::OpKind;

bool OpPartitioner::IsManual(const shlo::Value* value) const {
  auto found = layouts_.find(value);
  return found != layouts_.end() && found->second.front().sharding.IsManual();
}

bool OpPartitioner::TouchesManual(const shlo::Operation& op) const {
  if (std::any_of(op.operands().begin(), op.operands().end(), [&](const shlo::Value* v) { return IsManual(v); })) {
    return true;
  }
  for (const shlo::Region* region : op.regions()) {
    for (const shlo::Block* block : region->blocks()) {
      for (const shlo::Operation* inner : block->operations()) {
        if (TouchesManual(*inner)) return true;
      }
    }
  }
  return false;
}

bool OpPartitioner::IsShardMapStep(const shlo::Operation& op) {
  return op.kind() == OpKind::kSdyManualComputation || IsGspmdShardMap(op, "SPMDFullToShardShape") ||
         IsGspmdShardMap(op, "SPMDShardToFullShape") || IsRoundTripShardMap(op, "GlobalToLocalShape") ||
         IsRoundTripShardMap(op, "LocalToGlobalShape");
}

bool OpPartitioner::IsGspmdShardMap(const shlo::Operation& op, std::string_view target) {
  return op.kind() == OpKind::kCustomCall && op.call_target_name() == target;
}

Result<bool> OpPartitioner::ShardMapStep(const shlo::Operation& op) {
  if (op.kind() == OpKind::kSdyManualComputation) return ManualComputation(op);
  if (IsGspmdShardMap(op, "SPMDFullToShardShape")) {
    BERTH_RETURN_IF_ERROR(FullToShard(op));
  } else if (IsGspmdShardMap(op, "SPMDShardToFullShape")) {
    BERTH_RETURN_IF_ERROR(ShardToFull(op));
  } else if (IsRoundTripShardMap(op, "GlobalToLocalShape")) {
    BERTH_RETURN_IF_ERROR(RoundTripGlobalToLocal(op));
  } else {
    BERTH_RETURN_IF_ERROR(RoundTripLocalToGlobal(op));
  }
  return true;
}

DeviceValue OpPartitioner::AsManual(const shlo::Value* value) {
  if (IsManual(value)) return Current(value);
  return {Layout(value, Sharding::Replicated()).name, value->type(), Sharding::Manual()};
}

Result<DeviceValue> OpPartitioner::EnterManual(const shlo::Value* operand, const Sharding& layout,
                                               const shlo::Type& shard, const std::string& where) {
  const DeviceValue cut =
      IsManual(operand) ? program_.Reshard({Current(operand).name, operand->type(), Sharding::Replicated()}, layout)
                        : Layout(operand, layout);
  BERTH_RETURN_IF_ERROR(CheckShards(cut, shard, where));
  return DeviceValue{cut.name, shard, Sharding::Manual()};
}

Result<DeviceValue> OpPartitioner::LeaveManual(const DeviceValue& part, const shlo::Type& type, const Sharding& layout,
                                               bool nested, const std::string& where) {
  DeviceValue out{part.name, type, layout};
  BERTH_RETURN_IF_ERROR(CheckShards(out, part.global_type, where));
  if (!nested) return out;
  return DeviceValue{program_.Reshard(out, Sharding::Replicated()).name, type, Sharding::Manual()};
}

Status OpPartitioner::ManualBlock(const shlo::Block& block, std::vector<DeviceValue> arguments,
                                  std::vector<DeviceValue>& returned) {
  for (size_t i = 0; i < arguments.size(); ++i) Define(block.argument(i), std::move(arguments[i]));
  for (const shlo::Operation* op : block.operations()) {
    if (shlo::IsTerminator(op->kind())) {
      for (const shlo::Value* value : op->operands()) returned.push_back(AsManual(value));
      break;
    }
    if (IsUnused(*op)) continue;
    if (IsShardMapStep(*op)) {
      BERTH_RETURN_IF_ERROR(ShardMapStep(*op).status());
    } else if (IsConstraint(*op)) {
      Define(op->result(0), AsManual(op->operand(0)));  // a region's values are where they are
    } else if (const shlo::Function* callee = CalleeWithRegions(*op)) {
      BERTH_RETURN_IF_ERROR(ManualCall(*op, *callee));
    } else {
      AsWritten(*op);
    }
    if (!error_.ok()) return Status(error_.code(), op->location().ToString() + ": " + error_.message());
  }
  return OkStatus();
}

const shlo::Function* OpPartitioner::CalleeWithRegions(const shlo::Operation& op) const {
  const shlo::Function* callee = Inlinable(op);
  return callee != nullptr && HasManualRegions(callee->entry_block()) ? callee : nullptr;
}

Status OpPartitioner::ManualCall(const shlo::Operation& op, const shlo::Function& callee) {
  std::vector<DeviceValue> arguments, returned;
  for (const shlo::Value* operand : op.operands()) arguments.push_back(AsManual(operand));
  call_stack_.insert(&callee);
  Status status = ManualBlock(callee.entry_block(), std::move(arguments), returned);
  call_stack_.erase(&callee);
  BERTH_RETURN_IF_ERROR(status);
  for (size_t i = 0; i < op.num_results(); ++i) Define(op.result(i), returned.at(i));
  return OkStatus();
}

Result<Sharding> OpPartitioner::WithinRegion(const Sharding& sharding) {
  const Sharding canonical = sharding.Canonical();
  if (canonical.IsManual()) return Sharding::Replicated();
  if (!canonical.IsTiled()) return canonical;
  std::vector<SubgroupKind> subgroups = canonical.subgroups();
  std::replace(subgroups.begin(), subgroups.end(), SubgroupKind::kManual, SubgroupKind::kReplicated);
  BERTH_ASSIGN_OR_RETURN(Sharding within, Sharding::Tiled(canonical.tile_dims(), canonical.devices(), subgroups));
  return within.Canonical();
}

bool OpPartitioner::HasManualSubgroup(const Sharding& sharding) {
  const Sharding canonical = sharding.Canonical();
  return canonical.IsTiled() && std::find(canonical.subgroups().begin(), canonical.subgroups().end(),
                                          SubgroupKind::kManual) != canonical.subgroups().end();
}

Status OpPartitioner::FullToShard(const shlo::Operation& op) {
  if (op.num_operands() != 1 || op.num_results() != 1) return InvalidArgumentError(Where(op) + "takes one operand");
  const auto* text = op.attr_as<shlo::StringAttr>("mhlo.sharding");
  if (text == nullptr) return InvalidArgumentError(Where(op) + "has no mhlo.sharding");
  BERTH_ASSIGN_OR_RETURN(Sharding manual, ParseGspmdSharding(text->value()));
  if (!manual.Canonical().IsManual() && !HasManualSubgroup(manual)) {
    return InvalidArgumentError(Where(op) + "its sharding " + std::string(text->value()) + " is not manual");
  }
  Sharding layout = Current(op.operand(0)).sharding;
  if (IsManual(op.operand(0))) {
    const shlo::Operation* producer = op.operand(0)->defining_op();
    const auto* cut = producer != nullptr && IsConstraint(*producer)
                          ? producer->attr_as<shlo::StringAttr>("mhlo.sharding") : nullptr;
    if (cut == nullptr) {
      return InvalidArgumentError(Where(op) + "nested in another region, its operand has no @Sharding saying how "
                                              "each device's block is cut");
    }
    BERTH_ASSIGN_OR_RETURN(Sharding parsed, ParseGspmdSharding(cut->value()));
    BERTH_ASSIGN_OR_RETURN(layout, WithinRegion(parsed));
  }
  BERTH_ASSIGN_OR_RETURN(DeviceValue shard,
                         EnterManual(op.operand(0), layout, op.result(0)->type(), Where(op) + "operand"));
  Define(op.result(0), std::move(shard));
  return OkStatus();
}

Status OpPartitioner::ShardToFull(const shlo::Operation& op) {
  if (op.num_operands() != 1 || op.num_results() != 1) return InvalidArgumentError(Where(op) + "takes one operand");
  if (!IsManual(op.operand(0))) {
    return InvalidArgumentError(Where(op) + "its operand is not a shard_map region's value");
  }
  const auto* text = op.attr_as<shlo::StringAttr>("mhlo.sharding");
  Sharding target;
  bool nested = false;
  if (text != nullptr) {
    BERTH_ASSIGN_OR_RETURN(Sharding parsed, ParseGspmdSharding(text->value()));
    nested = HasManualSubgroup(parsed);
    if (nested) {
      BERTH_ASSIGN_OR_RETURN(target, WithinRegion(parsed));
    }
  }
  if (!nested) {
    BERTH_ASSIGN_OR_RETURN(target, ConstraintSharding(op));
  }
  BERTH_ASSIGN_OR_RETURN(DeviceValue out, LeaveManual(Current(op.operand(0)), op.result(0)->type(), target, nested,
                                                      Where(op) + "result"));
  Define(op.result(0), std::move(out));
  return OkStatus();
}

Result<std::vector<ShardySharding>> OpPartitioner::ShardingsPerValue(std::string_view text, size_t count,
                                                                    std::string_view name, const std::string& where) {
  Result<std::vector<ShardySharding>> parsed = ParseShardyShardingPerValue(text);
  if (!parsed.ok()) return Status(parsed.status().code(), where + std::string(name) + ": " + parsed.status().message());
  if (parsed->size() != count) {
    return InvalidArgumentError(where + std::string(name) + " lists " + std::to_string(parsed->size()) +
                                " sharding(s) for " + std::to_string(count) + " value(s)");
  }
  return parsed;
}

bool OpPartitioner::IsRoundTripShardMap(const shlo::Operation& op, std::string_view step) {
  if (op.kind() != OpKind::kCustomCall) return false;
  std::string_view target = op.call_target_name();
  if (target.starts_with("local_")) target.remove_prefix(6);
  return target.starts_with("xla.sdy.") && target.substr(8) == step;
}

Result<std::optional<std::string>> OpPartitioner::RoundTripAttribute(const shlo::Operation& op,
                                                                     const shlo::Operation* call,
                                                                     std::string_view name) {
  for (const shlo::Operation* holder : {&op, call}) {
    if (holder == nullptr) continue;
    Result<std::optional<std::string>> text = RoundTripText(holder->attr("mhlo.frontend_attributes"), name);
    if (!text.ok()) return Status(text.status().code(), Where(op) + text.status().message());
    if (*text) return text;
  }
  return std::optional<std::string>();
}

Result<std::vector<Sharding>> OpPartitioner::RoundTripLayouts(const shlo::Operation& op, bool global_to_local,
                                                              std::vector<std::string>& manual_axes) {
  const std::string where = Where(op);
  if (op.num_operands() != op.num_results()) {
    return InvalidArgumentError(where + "has " + std::to_string(op.num_operands()) + " operand(s) but " +
                                std::to_string(op.num_results()) + " result(s)");
  }
  const shlo::Operation* call = BodyCall(op, global_to_local);
  const std::string_view shardings = global_to_local ? "xla.sdy.in_shardings" : "xla.sdy.out_shardings";
  BERTH_ASSIGN_OR_RETURN(std::optional<std::string> axes, RoundTripAttribute(op, call, "xla.sdy.manual_axes"));
  if (!axes) return InvalidArgumentError(where + "has no xla.sdy.manual_axes frontend attribute");
  Result<std::vector<std::string>> parsed_axes = ParseManualAxes(*axes);
  if (!parsed_axes.ok()) {
    return Status(parsed_axes.status().code(), where + "xla.sdy.manual_axes: " + parsed_axes.status().message());
  }
  manual_axes = std::move(*parsed_axes);
  BERTH_ASSIGN_OR_RETURN(std::optional<std::string> text, RoundTripAttribute(op, call, shardings));
  if (!text) return InvalidArgumentError(where + "has no " + std::string(shardings) + " frontend attribute");
  BERTH_ASSIGN_OR_RETURN(std::vector<ShardySharding> parsed,
                         ShardingsPerValue(*text, op.num_operands(), shardings, where));
  std::vector<Sharding> layouts;
  for (size_t i = 0; i < op.num_operands(); ++i) {
    const shlo::Type type = (global_to_local ? op.operand(i) : op.result(i))->type();
    BERTH_ASSIGN_OR_RETURN(Sharding layout, ManualLayout(parsed[i], type, manual_axes, where));
    layouts.push_back(std::move(layout));
  }
  return layouts;
}

const shlo::Operation* OpPartitioner::BodyCall(const shlo::Operation& op, bool global_to_local) {
  if (global_to_local) {
    for (size_t i = 0; i < op.num_results(); ++i) {
      for (const auto& use : op.result(i)->uses()) {
        if (use.owner->kind() == OpKind::kFuncCall) return use.owner;
      }
    }
    return nullptr;
  }
  for (const shlo::Value* operand : op.operands()) {
    const shlo::Operation* producer = operand->defining_op();
    if (producer != nullptr && producer->kind() == OpKind::kFuncCall) return producer;
  }
  return nullptr;
}

Status OpPartitioner::RoundTripGlobalToLocal(const shlo::Operation& op) {
  std::vector<std::string> manual_axes;
  BERTH_ASSIGN_OR_RETURN(std::vector<Sharding> layouts, RoundTripLayouts(op, /*global_to_local=*/true, manual_axes));
  BERTH_RETURN_IF_ERROR(CheckAxesNotManual(manual_axes, Where(op)));
  for (size_t i = 0; i < op.num_operands(); ++i) {
    if (manual_axes.empty()) {  // no manual axes: the body is ordinary code on global values
      Define(op.result(i), Layout(op.operand(i), layouts[i]));
      continue;
    }
    BERTH_ASSIGN_OR_RETURN(DeviceValue shard, EnterManual(op.operand(i), layouts[i], op.result(i)->type(),
                                                          Where(op) + "operand " + std::to_string(i)));
    Define(op.result(i), std::move(shard));
  }
  if (!manual_axes.empty()) open_manual_axes_.push_back(std::move(manual_axes));
  return OkStatus();
}

Status OpPartitioner::RoundTripLocalToGlobal(const shlo::Operation& op) {
  std::vector<std::string> manual_axes;
  BERTH_ASSIGN_OR_RETURN(std::vector<Sharding> layouts, RoundTripLayouts(op, /*global_to_local=*/false, manual_axes));
  const bool nested = !manual_axes.empty() && open_manual_axes_.size() > 1;
  if (!manual_axes.empty() && !open_manual_axes_.empty()) open_manual_axes_.pop_back();
  for (size_t i = 0; i < op.num_operands(); ++i) {
    if (manual_axes.empty()) {
      Define(op.result(i), Layout(op.operand(i), layouts[i]));
      continue;
    }
    if (!IsManual(op.operand(i))) {
      return InvalidArgumentError(Where(op) + "operand " + std::to_string(i) +
                                  " is not a value of the shard_map's body");
    }
    BERTH_ASSIGN_OR_RETURN(DeviceValue result, LeaveManual(Current(op.operand(i)), op.result(i)->type(), layouts[i],
                                                           nested, Where(op) + "result " + std::to_string(i)));
    Define(op.result(i), std::move(result));
  }
  return OkStatus();
}

Status OpPartitioner::CheckAxesNotManual(const std::vector<std::string>& manual_axes, const std::string& where) const {
  for (const std::vector<std::string>& open : open_manual_axes_) {
    for (const std::string& axis : manual_axes) {
      if (std::find(open.begin(), open.end(), axis) != open.end()) {
        return InvalidArgumentError(where + "axis \"" + axis + "\" is already manual in an enclosing region");
      }
    }
  }
  return OkStatus();
}

Result<Sharding> OpPartitioner::ManualLayout(const ShardySharding& sharding, const shlo::Type& type,
                                             const std::vector<std::string>& manual_axes,
                                             const std::string& where) const {
  auto fail = [&](const Status& status) { return Status(status.code(), where + status.message()); };
  Result<const Mesh*> mesh = MeshOf(sharding);
  if (!mesh.ok()) return fail(mesh.status());
  ShardySharding manual = sharding;
  if (!manual_axes.empty()) {
    auto is_manual = [&](const AxisRef& axis) {
      return std::find(manual_axes.begin(), manual_axes.end(), axis.name) != manual_axes.end();
    };
    for (size_t d = 0; d < manual.dims.size(); ++d) {
      std::vector<AxisRef>& axes = manual.dims[d].axes;
      const auto first_free = std::find_if_not(axes.begin(), axes.end(), is_manual);
      const auto late_manual = std::find_if(first_free, axes.end(), is_manual);
      if (late_manual != axes.end()) {
        return InvalidArgumentError(where + PrintShardySharding(sharding) + " cuts dimension " + std::to_string(d) +
                                    " along free axis \"" + first_free->name + "\" before manual axis \"" +
                                    late_manual->name + "\"; manual axes come first");
      }
      axes.erase(first_free, axes.end());
    }
    std::erase_if(manual.replicated, [&](const AxisRef& axis) { return !is_manual(axis); });
    std::erase_if(manual.unreduced, [&](const AxisRef& axis) { return !is_manual(axis); });
  }
  if ((*mesh)->num_devices() != program_.num_partitions()) {
    return UnimplementedError(where + "its mesh has " + std::to_string((*mesh)->num_devices()) +
                              " devices, the program " + std::to_string(program_.num_partitions()) +
                              " partitions; manual computations over a subset are not partitioned yet");
  }
  Result<Sharding> layout = ToSharding(manual, **mesh);
  if (!layout.ok()) return fail(layout.status());
  if (!IsStaticTensor(type)) return UnimplementedError(where + "a value of type " + type.ToString());
  BERTH_RETURN_IF_ERROR(layout->CheckRank(type.rank()));
  return Holdable(*layout, type);
}

Result<bool> OpPartitioner::ManualComputation(const shlo::Operation& op) {
  const std::string where = op.location().ToString() + ": sdy.manual_computation: ";
  auto fail = [&](const Status& status) { return Status(status.code(), where + status.message()); };
  auto per_value = [&](std::string_view name, size_t count) -> Result<std::vector<ShardySharding>> {
    const auto* text = op.attr_as<shlo::OpaqueAttr>(name);
    if (text == nullptr) return InvalidArgumentError(where + "has no " + std::string(name));
    return ShardingsPerValue(text->text(), count, name, where);
  };
  BERTH_ASSIGN_OR_RETURN(std::vector<ShardySharding> ins, per_value("in_shardings", op.num_operands()));
  BERTH_ASSIGN_OR_RETURN(std::vector<ShardySharding> outs, per_value("out_shardings", op.num_results()));
  const auto* axes_text = op.attr_as<shlo::OpaqueAttr>("manual_axes");
  if (axes_text == nullptr) return InvalidArgumentError(where + "has no manual_axes");
  Result<std::vector<std::string>> manual_axes = ParseManualAxes(axes_text->text());
  if (!manual_axes.ok()) return fail(manual_axes.status());

  const bool automatic = manual_axes->empty();
  const bool nested = !open_manual_axes_.empty();
  BERTH_RETURN_IF_ERROR(CheckAxesNotManual(*manual_axes, where));
  const shlo::Block& body = op.region(0).entry_block();
  std::vector<DeviceValue> arguments, returned;
  if (automatic && nested) {  // ordinary code inside a region: each device's own, as written
    for (const shlo::Value* operand : op.operands()) arguments.push_back(AsManual(operand));
    BERTH_RETURN_IF_ERROR(ManualBlock(body, std::move(arguments), returned));
    for (size_t i = 0; i < op.num_results(); ++i) Define(op.result(i), returned.at(i));
    return true;
  }
  auto layout_of = [&](const ShardySharding& sharding, const shlo::Type& type) {
    return ManualLayout(sharding, type, *manual_axes, where);
  };
  for (size_t i = 0; i < op.num_operands(); ++i) {
    BERTH_ASSIGN_OR_RETURN(Sharding layout, layout_of(ins[i], op.operand(i)->type()));
    if (automatic) {
      arguments.push_back(Layout(op.operand(i), layout));
      continue;
    }
    BERTH_ASSIGN_OR_RETURN(DeviceValue shard, EnterManual(op.operand(i), layout, body.argument(i)->type(),
                                                          where + "operand " + std::to_string(i)));
    arguments.push_back(std::move(shard));
  }
  if (automatic) {
    BERTH_ASSIGN_OR_RETURN(bool partitioned, PartitionBlock(body, std::move(arguments), returned));
    if (!partitioned) return false;
  } else {
    open_manual_axes_.push_back(*manual_axes);
    Status written = ManualBlock(body, std::move(arguments), returned);
    open_manual_axes_.pop_back();
    BERTH_RETURN_IF_ERROR(written);
  }
  for (size_t i = 0; i < op.num_results(); ++i) {
    BERTH_ASSIGN_OR_RETURN(Sharding layout, layout_of(outs[i], op.result(i)->type()));
    if (automatic) {
      Define(op.result(i), program_.Reshard(returned.at(i), layout));
      continue;
    }
    BERTH_ASSIGN_OR_RETURN(DeviceValue result, LeaveManual(returned.at(i), op.result(i)->type(), layout, nested,
                                                           where + "result " + std::to_string(i)));
    Define(op.result(i), std::move(result));
  }
  return true;
}

Status OpPartitioner::CheckShards(const DeviceValue& value, const shlo::Type& shard, const std::string& where) {
  const std::vector<int64_t> local = value.LocalShape();
  if (!DividesEvenly(value.sharding, value.GlobalShape())) {
    return UnimplementedError(where + ": " + value.global_type.ToString() + " laid out as " +
                              PrintGspmdSharding(value.sharding) +
                              " has uneven shards; uneven manual computations are not partitioned yet");
  }
  if (!IsStaticTensor(shard) || !std::equal(local.begin(), local.end(), shard.shape().begin(), shard.shape().end())) {
    return InvalidArgumentError(where + ": " + value.global_type.ToString() + " laid out as " +
                                PrintGspmdSharding(value.sharding) + " gives " + value.LocalType() +
                                " per device, not the body's " + shard.ToString());
  }
  return OkStatus();
}

void OpPartitioner::AsWritten(const shlo::Operation& op) { Unpartitioned(op, /*in_manual_region=*/true); }

}  // namespace berth::spmd::internal
