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
#include "src/op_traits.hpp"
#include "src/reshard_plan.hpp"
#include "src/wanted_layouts.hpp"

namespace berth::spmd::internal {
namespace {

namespace shlo = berth::stablehlo;
using shlo::OpKind;

bool IsStaticTensor(const shlo::Type& type) { return type.IsTensor() && type.HasStaticShape(); }

class OpPartitioner {
 public:
  OpPartitioner(const shlo::Module& module, const std::map<std::string, Mesh, std::less<>>& meshes,
                const EntryContext& entry, DeviceProgram& program)
      : module_(module), meshes_(meshes), entry_(entry), program_(program) {}

  // `value` is `device_value`; where the partitioner's rules left it whole
  // and a later use wants it cut (backward propagation), each device also
  // slices its own part at once, and the ops after it see that part first.
  void Define(const shlo::Value* value, DeviceValue device_value) {
    std::vector<DeviceValue>& known = layouts_[value];
    known = {std::move(device_value)};
    auto wanted = wanted_.find(value);
    if (wanted != wanted_.end() && known.front().sharding.IsReplicated()) {
      known.insert(known.begin(), program_.Reshard(known.front(), wanted->second));
    }
  }

  // Computes what the entry's results and `body`'s constraints want of the
  // values before them (`body` being the entry's).
  void WantLayoutsOf(const shlo::Block& body) {
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

  // `value` as `target` lays it out, resharded once per layout asked for.
  DeviceValue Layout(const shlo::Value* value, const Sharding& target) {
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
  DeviceValue Current(const shlo::Value* value) const { return layouts_.at(value).front(); }

  // Writes `body`'s ops, its arguments being `arguments`; `returned` gets
  // the values its terminator names. False (with needs_whole_program set)
  // when an op depends on the device outside a manual region.
  Result<bool> PartitionBlock(const shlo::Block& body, std::vector<DeviceValue> arguments,
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

  std::string needs_whole_program;
  // The functions the written ops call, and those they call.
  std::set<std::string, std::less<>> called;
  // The per-shard computations of custom calls partitioned by their rules,
  // and the targets whose rules did.
  std::vector<std::string> custom_functions;
  std::set<std::string, std::less<>> custom_rule_targets;

  // Writes `op` as `rewrite` says, noting the functions it calls.
  std::vector<std::string> Emit(const shlo::Operation& op, shlo::OpRewrite rewrite) {
    NoteCalls(op);
    return program_.EmitRewritten(op, std::move(rewrite));
  }

  // Notes every function `op` names (a func.call's callee, a composite's
  // decomposition, a custom call's called_computations, run_parallel's
  // programs: any symbol reference among its attributes), and those the
  // named functions name in turn.
  void NoteCalls(const shlo::Operation& op) {
    if (op.kind() == OpKind::kFuncCall) NoteFunction(op.callee());
    for (const shlo::NamedAttribute& attr : op.attributes()) NoteSymbols(attr.value);
    for (const shlo::Region* region : op.regions()) {
      for (const shlo::Block* block : region->blocks()) {
        for (const shlo::Operation* inner : block->operations()) NoteCalls(*inner);
      }
    }
  }

  void NoteFunction(std::string_view name) {
    if (!called.insert(std::string(name)).second) return;
    const shlo::Function* function = module_.function(name);
    if (function != nullptr && !function->is_declaration()) {
      for (const shlo::Operation* inner : function->entry_block().operations()) NoteCalls(*inner);
    }
  }

  void NoteSymbols(const shlo::Attribute* attr) {
    if (attr == nullptr) return;
    if (const auto* symbol = attr->dyn_cast<shlo::SymbolRefAttr>()) {
      if (module_.function(symbol->name()) != nullptr) NoteFunction(symbol->name());
    } else if (const auto* array = attr->dyn_cast<shlo::ArrayAttr>()) {
      for (const shlo::Attribute* element : array->elements()) NoteSymbols(element);
    } else if (const auto* dictionary = attr->dyn_cast<shlo::DictionaryAttr>()) {
      for (const shlo::NamedAttribute& entry : dictionary->entries()) NoteSymbols(entry.value);
    }
  }

  // Writes `op`'s per-device form; false when the op depends on the device
  // outside a manual region (the module then runs whole on every device).
  Result<bool> Partition(const shlo::Operation& op) {
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

 private:
  static bool IsConstraint(const shlo::Operation& op) {
    if (op.num_operands() != 1 || op.num_results() != 1) return false;
    if (op.kind() == OpKind::kCustomCall) return op.call_target_name() == "Sharding" || IsFuncResultSharding(op);
    return op.kind() == OpKind::kSdyShardingConstraint || op.kind() == OpKind::kSdyReshard;
  }

  // The layout a constraint asks for, where the partitioner can hold it: a
  // tiled sharding over every partition; else replicated (the value is the
  // same, only where it lives differs).
  Result<Sharding> ConstraintSharding(const shlo::Operation& op) {
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

  // The mesh a Shardy sharding names (its own, when inline).
  Result<const Mesh*> MeshOf(const ShardySharding& parsed) const {
    if (parsed.inline_mesh) return &*parsed.inline_mesh;
    auto found = meshes_.find(parsed.mesh_name);
    if (found == meshes_.end()) {
      return InvalidArgumentError("names mesh @" + parsed.mesh_name + ", which the module lacks");
    }
    return &found->second;
  }

  // `sharding` where the partitioner can hold it for a value of `type` (a
  // tiled layout over every partition); else replicated.
  Result<Sharding> Holdable(Sharding sharding, const shlo::Type& type) const {
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

  Status Constrain(const shlo::Operation& op) {
    Result<Sharding> target = ConstraintSharding(op);
    if (!target.ok()) {
      return Status(target.status().code(), op.location().ToString() + ": " + std::string(op.name()) + ": " +
                                                target.status().message());
    }
    Define(op.result(0), Layout(op.operand(0), *target));
    return OkStatus();
  }

  // Elementwise ops keep the layout of their first evenly tiled operand (or,
  // when none divides evenly, of their first tiled one); the others follow
  // it. With padding, results whose op does not map zeros to zero get
  // their padding zeroed.
  bool Elementwise(const shlo::Operation& op) {
    const shlo::Type& result_type = op.result(0)->type();
    if (!IsStaticTensor(result_type) || result_type.rank() == 0) return false;
    for (const shlo::Value* result : op.results()) {
      if (result->type().shape().size() != result_type.shape().size() ||
          !std::equal(result->type().shape().begin(), result->type().shape().end(), result_type.shape().begin())) {
        return false;
      }
    }
    std::optional<Sharding> target;
    for (const shlo::Value* operand : op.operands()) {
      const shlo::Type& type = operand->type();
      if (!IsStaticTensor(type)) return false;
      if (type.rank() == 0) continue;
      if (!std::equal(type.shape().begin(), type.shape().end(), result_type.shape().begin(),
                      result_type.shape().end())) {
        return false;
      }
      Sharding sharding = Current(operand).sharding;
      if (!sharding.IsTiled()) continue;
      if (DividesEvenly(sharding, type.shape())) {
        if (!target || !DividesEvenly(*target, type.shape())) target = sharding;
      } else if (!target) {
        target = sharding;
      }
    }
    if (!target) return false;
    shlo::OpRewrite rewrite;
    for (const shlo::Value* operand : op.operands()) {
      DeviceValue local = Layout(operand, operand->type().rank() == 0 ? Sharding::Replicated() : *target);
      rewrite.operand_names.push_back(local.name);
      rewrite.operand_types.push_back(local.LocalType());
    }
    for (const shlo::Value* result : op.results()) {
      rewrite.result_types.push_back(DeviceValue{"", result->type(), *target}.LocalType());
    }
    std::vector<std::string> names = Emit(op, std::move(rewrite));
    for (size_t i = 0; i < op.num_results(); ++i) {
      DeviceValue result{names[i], op.result(i)->type(), *target};
      if (!KeepsZeroPadding(op)) result.name = program_.FillPadding(result);
      Define(op.result(i), std::move(result));
    }
    return true;
  }

  // dot_general: each device multiplies the parts it holds when the
  // operands' batch and contracting cuts agree; where they do not, the
  // cheaper operand is resharded to match the other; split contracting
  // dims end in an all-reduce.
  bool DotGeneral(const shlo::Operation& op) {
    const shlo::DotDimensionNumbers* numbers = op.dot_dimension_numbers();
    const shlo::Value* lhs = op.operand(0);
    const shlo::Value* rhs = op.operand(1);
    const shlo::Type& result_type = op.result(0)->type();
    if (numbers == nullptr || !IsStaticTensor(lhs->type()) || !IsStaticTensor(rhs->type()) ||
        !IsStaticTensor(result_type)) {
      return false;
    }
    const std::span<const int64_t> ls = lhs->type().shape(), rs = rhs->type().shape();
    const DotDims dims = DotDimsOf(*numbers, lhs->type().rank(), rhs->type().rank());
    const int64_t n = program_.num_partitions();
    const Sharding lcur = Current(lhs).sharding;
    const Sharding rcur = Current(rhs).sharding;

    std::vector<DotPlan> candidates;
    auto consider = [&](const std::optional<Sharding>& l, const std::optional<Sharding>& r) {
      if (!l || !r) return;
      if (std::optional<DotPlan> plan = PlanDot(*l, *r, dims, ls, rs, n)) candidates.push_back(std::move(*plan));
    };
    consider(lcur, rcur);
    // Each side matched to the other, its free dims whole or kept as cut.
    for (const Sharding* own : {static_cast<const Sharding*>(nullptr), &rcur}) {
      consider(lcur, MatchingOperand(lcur, ls.size(), dims.lhs_batch, dims.lhs_contracting, own, rs.size(),
                                     dims.rhs_batch, dims.rhs_contracting, dims.rhs_free, n));
    }
    for (const Sharding* own : {static_cast<const Sharding*>(nullptr), &lcur}) {
      consider(MatchingOperand(rcur, rs.size(), dims.rhs_batch, dims.rhs_contracting, own, ls.size(),
                               dims.lhs_batch, dims.lhs_contracting, dims.lhs_free, n),
               rcur);
    }
    if (candidates.empty()) return false;
    auto cost = [&](const DotPlan& plan) {
      return ReshardCost(lcur, plan.lhs, ls, n) + ReshardCost(rcur, plan.rhs, rs, n);
    };
    const DotPlan& plan = *std::min_element(candidates.begin(), candidates.end(),
                                            [&](const DotPlan& a, const DotPlan& b) { return cost(a) < cost(b); });
    const DeviceValue l = Layout(lhs, plan.lhs);
    const DeviceValue r = Layout(rhs, plan.rhs);
    DeviceValue product{"", result_type, plan.result};
    // The product before the sum has the result's tiles; its local shape is
    // the same.
    shlo::OpRewrite rewrite;
    rewrite.operand_names = {l.name, r.name};
    rewrite.operand_types = {l.LocalType(), r.LocalType()};
    rewrite.result_types = {product.LocalType()};
    product.name = Emit(op, std::move(rewrite))[0];
    if (!plan.sum_groups.empty()) {
      product = Combined(op.result(0), std::move(product), plan.sum_groups,
                         shlo::IsBool(result_type.element_type()) ? "stablehlo.or" : "stablehlo.add");
    }
    // Rows of zero padding times the other side need not be zero (inf, NaN,
    // -0.0): padding of the result is zeroed.
    product.name = program_.FillPadding(product);
    Define(op.result(0), std::move(product));
    return true;
  }

  // `result` from the partial results `partial`, which combine over each of
  // `groups`: a reduce_scatter where a later use wants the result cut so
  // that each group member keeps one piece (1/k of an all_reduce's
  // traffic, and no slice after it), else an all_reduce.
  DeviceValue Combined(const shlo::Value* result, DeviceValue partial, const std::vector<std::vector<int64_t>>& groups,
                       std::string_view combiner) {
    const shlo::ElementType type = result->type().element_type();
    if (auto wanted = wanted_.find(result); wanted != wanted_.end()) {
      if (std::optional<size_t> dim = ScatterDimension(partial.sharding, wanted->second, groups,
                                                       result->type().shape(), program_.num_partitions())) {
        return {program_.ReduceScatter(partial.name, partial.LocalShape(), type, groups, combiner, *dim),
                result->type(), wanted->second};
      }
    }
    partial.name = program_.AllReduce(partial.name, partial.LocalShape(), type, groups, combiner);
    return partial;
  }

  // The op on the given local operands, its results laid out as `results`
  // says; returns their names.
  std::vector<std::string> EmitLocal(const shlo::Operation& op, const std::vector<DeviceValue>& operands,
                                     const std::vector<Sharding>& results) {
    shlo::OpRewrite rewrite;
    for (const DeviceValue& operand : operands) {
      rewrite.operand_names.push_back(operand.name);
      rewrite.operand_types.push_back(operand.LocalType());
    }
    for (size_t i = 0; i < op.num_results(); ++i) {
      rewrite.result_types.push_back(DeviceValue{"", op.result(i)->type(), results[i]}.LocalType());
    }
    return Emit(op, std::move(rewrite));
  }

  // The value of `operand` if it is a static tensor tiled evenly (or, with
  // `padded`, at all).
  std::optional<DeviceValue> TiledOperand(const shlo::Value* operand, bool padded = false) {
    if (!IsStaticTensor(operand->type())) return std::nullopt;
    DeviceValue value = Current(operand);
    if (!value.sharding.IsTiled() || (!padded && !DividesEvenly(value.sharding, operand->type().shape()))) {
      return std::nullopt;
    }
    return value;
  }

  // transpose: the operand's cuts (and its padding) move with its
  // dimensions.
  bool Transpose(const shlo::Operation& op) {
    std::optional<DeviceValue> operand = TiledOperand(op.operand(0), /*padded=*/true);
    if (!operand || !IsStaticTensor(op.result(0)->type())) return false;
    std::span<const int64_t> permutation = op.GetI64Array("permutation");
    std::vector<int64_t> source(permutation.begin(), permutation.end());
    std::optional<Sharding> result = CarriedOver(operand->sharding, source.size(), source, program_.num_partitions());
    if (!result) return false;
    Define(op.result(0), {EmitLocal(op, {*operand}, {*result})[0], op.result(0)->type(), *result});
    return true;
  }

  // broadcast_in_dim: the operand's cuts land on the dimensions it maps to;
  // the new dimensions are whole. Where a later use wants the result cut
  // (backward propagation) and the operand's part for that lies inside
  // what each device holds, each device broadcasts straight into its part
  // of the wanted layout (its operand sliced to match, locally).
  bool BroadcastInDim(const shlo::Operation& op) {
    const shlo::Type& type = op.result(0)->type();
    if (!IsStaticTensor(type) || !IsStaticTensor(op.operand(0)->type())) return false;
    std::span<const int64_t> dims = op.GetI64Array("broadcast_dimensions");
    // Result dimension dims[i] is operand dimension i, unless stretched
    // from size 1 (a stretched dimension is never cut: even tiling).
    std::vector<int64_t> source(static_cast<size_t>(type.rank()), -1), back(dims.size(), -1);
    for (size_t i = 0; i < dims.size(); ++i) {
      if (op.operand(0)->type().dim(static_cast<int64_t>(i)) != type.dim(dims[i])) continue;
      source[static_cast<size_t>(dims[i])] = static_cast<int64_t>(i);
      back[i] = dims[i];
    }
    const int64_t n = program_.num_partitions();
    if (auto wanted = wanted_.find(op.result(0)); wanted != wanted_.end()) {
      std::optional<Sharding> part = CarriedOver(wanted->second, source.size(), back, n);
      const Sharding current = Current(op.operand(0)).sharding;
      if (part && (current == *part || SlicesLocally(current, *part, op.operand(0)->type().shape(), n))) {
        const DeviceValue local = Layout(op.operand(0), part->Canonical());
        Define(op.result(0), {EmitLocal(op, {local}, {wanted->second})[0], type, wanted->second});
        return true;
      }
    }
    // Padding (zeros) broadcasts to padding; a cut stretched dimension (of
    // size 1, so padded) would be lost: gathered first.
    std::optional<DeviceValue> operand = TiledOperand(op.operand(0), /*padded=*/true);
    if (!operand) return false;
    const std::vector<int64_t> tiles = TilesOf(operand->sharding, dims.size());
    for (size_t i = 0; i < dims.size(); ++i) {
      if (back[i] < 0 && tiles[i] > 1) return false;
    }
    std::optional<Sharding> result = CarriedOver(operand->sharding, dims.size(), source, n);
    if (!result) return false;
    Define(op.result(0), {EmitLocal(op, {*operand}, {*result})[0], type, *result});
    return true;
  }

  // `value` with its cuts kept on the dimensions `keep` marks and the
  // others made whole (gathered); nullopt when it is not an evenly tiled or
  // replicated static tensor.
  std::optional<DeviceValue> KeepingCutsOn(const shlo::Value* value, const std::vector<bool>& keep) {
    if (!IsStaticTensor(value->type())) return std::nullopt;
    const DeviceValue current = Current(value);
    if (current.sharding.IsReplicated()) return current;
    std::optional<DeviceValue> tiled = TiledOperand(value);
    if (!tiled) return std::nullopt;
    const size_t rank = keep.size();
    std::vector<int64_t> tiles = TilesOf(tiled->sharding, rank);
    std::vector<Coords> coords = DeviceCoords(tiled->sharding, rank, program_.num_partitions());
    for (size_t d = 0; d < rank; ++d) {
      if (keep[d]) continue;
      tiles[d] = 1;
      for (Coords& c : coords) c[d] = 0;
    }
    std::optional<Sharding> target = FromDeviceCoords(tiles, coords);
    if (!target) return std::nullopt;
    return Layout(value, target->Canonical());
  }

  using Triple = std::array<int64_t, 3>;
  // For an op of static operand 0 and result and three per-dimension
  // attributes `names`: the dimensions d where they read `whole(d)` (the op
  // leaves them whole); nullopt when the attributes do not fit the rank.
  template <typename Whole>
  std::optional<std::vector<bool>> DimsLeftWhole(const shlo::Operation& op, const std::array<const char*, 3>& names,
                                                 Whole whole) const {
    const shlo::Type& type = op.operand(0)->type();
    if (!IsStaticTensor(type) || !IsStaticTensor(op.result(0)->type())) return std::nullopt;
    const size_t rank = type.shape().size();
    std::array<std::span<const int64_t>, 3> values;
    for (size_t k = 0; k < 3; ++k) {
      values[k] = op.GetI64Array(names[k]);
      if (values[k].size() != rank) return std::nullopt;
    }
    std::vector<bool> keep(rank);
    for (size_t d = 0; d < rank; ++d) {
      const Triple want = whole(d);
      keep[d] = values[0][d] == want[0] && values[1][d] == want[1] && values[2][d] == want[2];
    }
    return keep;
  }

  // slice: dimensions taken whole (from 0 to the end, stride 1) keep their
  // cuts, each device slicing its own part; the others are gathered first.
  bool Slice(const shlo::Operation& op) {
    const std::span<const int64_t> shape = op.operand(0)->type().shape();
    std::optional<std::vector<bool>> keep = DimsLeftWhole(op, {"start_indices", "limit_indices", "strides"},
                                                          [&](size_t d) { return Triple{0, shape[d], 1}; });
    if (!keep) return false;
    std::optional<DeviceValue> operand = KeepingCutsOn(op.operand(0), *keep);
    if (!operand) return false;
    std::span<const int64_t> start = op.GetI64Array("start_indices");
    std::span<const int64_t> limit = op.GetI64Array("limit_indices");
    std::span<const int64_t> strides = op.GetI64Array("strides");
    const size_t rank = shape.size();
    const std::vector<int64_t> local = operand->LocalShape();
    auto list = [](const std::vector<int64_t>& v) {
      std::string out = "array<i64";
      for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : ": ") + std::to_string(v[i]);
      return out + ">";
    };
    std::vector<int64_t> local_limit(limit.begin(), limit.end());
    for (size_t d = 0; d < rank; ++d) {
      if ((*keep)[d]) local_limit[d] = local[d];
    }
    DeviceValue out{"", op.result(0)->type(), operand->sharding};
    out.name = program_.Emit("\"stablehlo.slice\"(" + operand->name + ") {limit_indices = " + list(local_limit) +
                             ", start_indices = " + list({start.begin(), start.end()}) +
                             ", strides = " + list({strides.begin(), strides.end()}) + "} : (" +
                             operand->LocalType() + ") -> " + out.LocalType());
    Define(op.result(0), std::move(out));
    return true;
  }

  // reverse: dimensions not reversed keep their cuts, each device reversing
  // its own part; the reversed ones are gathered first.
  bool Reverse(const shlo::Operation& op) {
    const shlo::Type& type = op.operand(0)->type();
    if (!IsStaticTensor(type) || !IsStaticTensor(op.result(0)->type())) return false;
    std::vector<bool> keep(type.shape().size(), true);
    for (int64_t d : op.GetI64Array("dimensions")) {
      if (d < 0 || d >= type.rank()) return false;
      keep[static_cast<size_t>(d)] = false;
    }
    std::optional<DeviceValue> operand = KeepingCutsOn(op.operand(0), keep);
    if (!operand || operand->sharding.IsReplicated()) return false;
    Define(op.result(0), {EmitLocal(op, {*operand}, {operand->sharding})[0], op.result(0)->type(), operand->sharding});
    return true;
  }

  // dynamic_slice: dimensions taken whole (slice size = the dimension; the
  // start is then clamped to 0 whatever it says) keep their cuts, each
  // device taking its own part; the others are gathered first.
  bool DynamicSlice(const shlo::Operation& op) {
    const shlo::Type& type = op.operand(0)->type();
    if (!IsStaticTensor(type) || !IsStaticTensor(op.result(0)->type())) return false;
    const std::span<const int64_t> shape = type.shape();
    const std::span<const int64_t> sizes = op.GetI64Array("slice_sizes");
    if (sizes.size() != shape.size() || op.num_operands() != shape.size() + 1) return false;
    if (DynamicSliceOfCutDims(op, shape, sizes)) return true;
    std::vector<bool> keep(shape.size());
    for (size_t d = 0; d < shape.size(); ++d) keep[d] = sizes[d] == shape[d];
    std::optional<DeviceValue> operand = KeepingCutsOn(op.operand(0), keep);
    if (!operand || operand->sharding.IsReplicated()) return false;
    const std::vector<int64_t> local = operand->LocalShape();
    std::string operands = operand->name, types = operand->LocalType(), local_sizes;
    for (size_t d = 0; d < shape.size(); ++d) {
      const DeviceValue start = Layout(op.operand(d + 1), Sharding::Replicated());
      operands += ", " + start.name;
      types += ", " + start.LocalType();
      local_sizes += (d ? ", " : ": ") + std::to_string(keep[d] ? local[d] : sizes[d]);
    }
    DeviceValue out{"", op.result(0)->type(), operand->sharding};
    out.name = program_.Emit("\"stablehlo.dynamic_slice\"(" + operands + ") {slice_sizes = array<i64" + local_sizes +
                             ">} : (" + types + ") -> " + out.LocalType());
    Define(op.result(0), std::move(out));
    return true;
  }

  // dynamic_slice taking one element along dimensions the operand cuts
  // (x[i] of an array cut along its first dimension), every other cut
  // dimension taken whole: each device clamps the start as the slice
  // would, shifts it into its part, slices there, zeroes the result unless
  // it holds that element, and one all_reduce (or reduce_scatter) over the
  // devices holding the parts adds them up. The operand never moves.
  bool DynamicSliceOfCutDims(const shlo::Operation& op, std::span<const int64_t> shape,
                             std::span<const int64_t> sizes) {
    std::optional<DeviceValue> operand = TiledOperand(op.operand(0));
    const shlo::Type& type = op.result(0)->type();
    if (!operand || shlo::IsComplex(type.element_type())) return false;
    const size_t rank = shape.size();
    const int64_t n = program_.num_partitions();
    const std::vector<int64_t> tiles = TilesOf(operand->sharding, rank);
    std::vector<size_t> picked;
    for (size_t d = 0; d < rank; ++d) {
      if (tiles[d] == 1 || sizes[d] == shape[d]) continue;
      if (sizes[d] != 1) return false;
      picked.push_back(d);
    }
    if (picked.empty()) return false;
    const std::vector<Coords> coords = DeviceCoords(operand->sharding, rank, n);
    std::vector<int64_t> result_tiles(rank, 1), part(static_cast<size_t>(n), 0);
    std::vector<Coords> result_coords(static_cast<size_t>(n), Coords(rank, 0));
    int64_t splits = 1;
    for (size_t d = 0; d < rank; ++d) {
      const bool is_picked = std::find(picked.begin(), picked.end(), d) != picked.end();
      if (is_picked) splits *= tiles[d];
      if (!is_picked) result_tiles[d] = tiles[d];
      for (size_t p = 0; p < static_cast<size_t>(n); ++p) {
        if (is_picked) {
          part[p] = part[p] * tiles[d] + coords[p][d];
        } else {
          result_coords[p][d] = coords[p][d];
        }
      }
    }
    std::optional<std::vector<std::vector<int64_t>>> groups = SumGroups(result_coords, part, splits);
    std::optional<Sharding> result = FromDeviceCoords(result_tiles, result_coords);
    if (!groups || groups->empty() || !result) return false;
    const std::vector<int64_t> local = operand->LocalShape();
    std::string operands = operand->name, types = operand->LocalType(), local_sizes, inside;
    for (size_t d = 0; d < rank; ++d) {
      DeviceValue start = Layout(op.operand(d + 1), Sharding::Replicated());
      const shlo::ElementType index_type = start.global_type.element_type();
      if (std::find(picked.begin(), picked.end(), d) != picked.end()) {
        std::vector<int64_t> offsets;
        for (int64_t p = 0; p < n; ++p) offsets.push_back(operand->sharding.RegionOf(p, shape)->offsets[d]);
        DeviceProgram::LocalIndices shifted =
            program_.LocalizeIndices(start.name, {}, index_type, 0, std::vector<int64_t>{shape[d] - 1}, {offsets},
                                     std::vector<int64_t>{local[d]});
        start.name = shifted.indices;
        inside = inside.empty() ? shifted.inside
                                : program_.Emit("\"stablehlo.and\"(" + inside + ", " + shifted.inside +
                                                ") : (tensor<i1>, tensor<i1>) -> tensor<i1>");
      }
      operands += ", " + start.name;
      types += ", " + start.LocalType();
      local_sizes += (d ? ", " : ": ") + std::to_string(sizes[d] == shape[d] ? local[d] : sizes[d]);
    }
    DeviceValue out{"", type, *result};
    out.name = program_.Emit("\"stablehlo.dynamic_slice\"(" + operands + ") {slice_sizes = array<i64" + local_sizes +
                             ">} : (" + types + ") -> " + out.LocalType());
    out.name = program_.ZeroWhereNot(inside, {}, out.name, out.LocalShape(), type.element_type(), {});
    Define(op.result(0), Combined(op.result(0), std::move(out), *groups,
                                  shlo::IsBool(type.element_type()) ? "stablehlo.or" : "stablehlo.add"));
    return true;
  }

  // gather: the indices' batch dimensions (all but index_vector_dim and
  // the start_indices_batching_dims, whose positions pick operand batches)
  // keep their cuts, landing on the result's batch dimensions; the operand
  // is whole on every device, so each gathers for its own indices with no
  // communication. Other cuts of the indices are gathered first.
  bool Gather(const shlo::Operation& op) {
    const shlo::GatherDimensionNumbers* numbers = op.gather_dimension_numbers();
    const shlo::Type& indices_type = op.operand(1)->type();
    const shlo::Type& type = op.result(0)->type();
    if (numbers == nullptr || op.num_operands() != 2 || !IsStaticTensor(op.operand(0)->type()) ||
        !IsStaticTensor(indices_type) || !IsStaticTensor(type)) {
      return false;
    }
    const std::vector<int64_t> batch = GatherBatchDims(*numbers, indices_type.rank());
    std::vector<bool> keep(static_cast<size_t>(indices_type.rank()), false);
    for (int64_t d : batch) {
      const std::vector<int64_t>& batching = numbers->start_indices_batching_dims;
      keep[static_cast<size_t>(d)] = std::find(batching.begin(), batching.end(), d) == batching.end();
    }
    if (GatherFromCutTable(op, *numbers, batch, keep)) return true;
    std::optional<DeviceValue> indices = KeepingCutsOn(op.operand(1), keep);
    if (!indices || indices->sharding.IsReplicated()) return false;
    std::optional<Sharding> result =
        CarriedOver(indices->sharding, keep.size(), GatherResultSource(*numbers, type.rank(), batch),
                    program_.num_partitions());
    if (!result) return false;
    const DeviceValue operand = Layout(op.operand(0), Sharding::Replicated());
    Define(op.result(0), {EmitLocal(op, {operand, *indices}, {*result})[0], type, *result});
    return true;
  }

  // gather from a table cut only along dimensions the indices pick single
  // rows of (collapsed, slice size 1: an embedding table cut by vocabulary):
  // each device clamps the indices into the table as the gather would,
  // shifts them into its own part, gathers there, zeroes the rows it does
  // not hold, and one all_reduce (sum; a reduce_scatter where the result is
  // wanted cut) over the devices holding the table's parts adds them up.
  // The indices' batch cuts land on the result as in the rule below. Taken
  // when the result's part is smaller than the table.
  bool GatherFromCutTable(const shlo::Operation& op, const shlo::GatherDimensionNumbers& numbers,
                          const std::vector<int64_t>& batch, const std::vector<bool>& keep) {
    std::optional<DeviceValue> table = TiledOperand(op.operand(0));
    if (!table || !numbers.operand_batching_dims.empty()) return false;
    const shlo::Type& type = op.result(0)->type();
    const std::vector<int64_t> global = table->GlobalShape();
    const std::span<const int64_t> slice_sizes = op.GetI64Array("slice_sizes");
    const std::vector<int64_t>& map = numbers.start_index_map;
    const size_t rank = global.size();
    const int64_t n = program_.num_partitions();
    const std::vector<int64_t> table_tiles = TilesOf(table->sharding, rank);
    std::vector<size_t> cut;
    for (size_t d = 0; d < rank; ++d) {
      if (table_tiles[d] == 1) continue;
      const auto& collapsed = numbers.collapsed_slice_dims;
      if (std::find(collapsed.begin(), collapsed.end(), static_cast<int64_t>(d)) == collapsed.end() ||
          std::find(map.begin(), map.end(), static_cast<int64_t>(d)) == map.end() || slice_sizes.size() != rank ||
          slice_sizes[d] != 1) {
        return false;
      }
      cut.push_back(d);
    }
    if (cut.empty() || shlo::IsComplex(type.element_type())) return false;
    std::optional<DeviceValue> indices = KeepingCutsOn(op.operand(1), keep);
    if (!indices) return false;
    const size_t indices_rank = keep.size();
    // Result tiles from the indices' cuts; the table's parts are summed.
    const std::vector<int64_t> source = GatherResultSource(numbers, type.rank(), batch);
    const std::vector<int64_t> index_tiles = TilesOf(indices->sharding, indices_rank);
    const std::vector<Coords> index_coords = DeviceCoords(indices->sharding, indices_rank, n);
    const std::vector<Coords> table_coords = DeviceCoords(table->sharding, rank, n);
    std::vector<int64_t> result_tiles;
    for (int64_t s : source) result_tiles.push_back(s >= 0 ? index_tiles[static_cast<size_t>(s)] : 1);
    std::vector<Coords> result_coords(static_cast<size_t>(n));
    std::vector<int64_t> part(static_cast<size_t>(n), 0);
    int64_t splits = 1;
    for (size_t d : cut) splits *= table_tiles[d];
    for (size_t p = 0; p < static_cast<size_t>(n); ++p) {
      for (int64_t s : source) result_coords[p].push_back(s >= 0 ? index_coords[p][static_cast<size_t>(s)] : 0);
      for (size_t d : cut) part[p] = part[p] * table_tiles[d] + table_coords[p][d];
    }
    std::optional<std::vector<std::vector<int64_t>>> groups = SumGroups(result_coords, part, splits);
    std::optional<Sharding> result = FromDeviceCoords(result_tiles, result_coords);
    if (!groups || groups->empty() || !result) return false;
    DeviceValue gathered{"", type, *result};
    const std::vector<int64_t> local_result = gathered.LocalShape();
    if (std::accumulate(local_result.begin(), local_result.end(), int64_t{1}, std::multiplies<>()) >=
        std::accumulate(global.begin(), global.end(), int64_t{1}, std::multiplies<>())) {
      return false;  // gathering the table moves less
    }
    // Per index component: the clamp bound, and this device's offset of its
    // part and that part's size where the component picks a cut dimension.
    std::vector<int64_t> upper, sizes;
    std::vector<std::vector<int64_t>> offsets;
    for (int64_t d : map) {
      const size_t dim = static_cast<size_t>(d);
      upper.push_back(global[dim] - slice_sizes[dim]);
      sizes.push_back(global[dim] / table_tiles[dim]);
      std::vector<int64_t> table_offsets;
      if (table_tiles[dim] > 1) {
        for (int64_t p = 0; p < n; ++p) table_offsets.push_back(table->sharding.RegionOf(p, global)->offsets[dim]);
      }
      offsets.push_back(std::move(table_offsets));
    }
    const shlo::ElementType index_type = indices->global_type.element_type();
    const std::vector<int64_t> index_shape = indices->LocalShape();
    DeviceProgram::LocalIndices local = program_.LocalizeIndices(indices->name, index_shape, index_type,
                                                                 numbers.index_vector_dim, upper, offsets, sizes);
    gathered.name = EmitLocal(op, {*table, {local.indices, indices->global_type, indices->sharding}}, {*result})[0];
    // The mask's dimensions are the indices' but the vector's, each landing
    // where the result takes that indices dimension.
    std::vector<int64_t> rows, dims;
    for (size_t i = 0; i < indices_rank; ++i) {
      if (static_cast<int64_t>(i) == numbers.index_vector_dim) continue;
      rows.push_back(index_shape[i]);
      dims.push_back(std::find(source.begin(), source.end(), static_cast<int64_t>(i)) - source.begin());
    }
    gathered.name = program_.ZeroWhereNot(local.inside, rows, gathered.name, local_result, type.element_type(), dims);
    Define(op.result(0), Combined(op.result(0), std::move(gathered), *groups,
                                  shlo::IsBool(type.element_type()) ? "stablehlo.or" : "stablehlo.add"));
    return true;
  }

  // scatter whose update computation only adds (one input): the indices'
  // scatter dimensions (all but index_vector_dim and the
  // scatter_indices_batching_dims) keep their cuts, the updates laid out
  // alike along their scatter dimensions (window dimensions whole). Each
  // device scatters its own updates into zeros, one all_reduce (sum) over
  // the devices holding different parts of the indices adds the partial
  // results, and the input is added to the sum: input + (sum of the
  // updates landing on an element) is what the scatter computes, the
  // additions in another order. The result is whole.
  bool ScatterAdd(const shlo::Operation& op) {
    const shlo::ScatterDimensionNumbers* numbers = op.scatter_dimension_numbers();
    if (numbers == nullptr || op.num_operands() != 3 || op.num_results() != 1) return false;
    const shlo::Value* input = op.operand(0);
    const shlo::Value* indices = op.operand(1);
    const shlo::Value* updates = op.operand(2);
    const shlo::Type& type = op.result(0)->type();
    if (!IsStaticTensor(input->type()) || !IsStaticTensor(indices->type()) || !IsStaticTensor(updates->type()) ||
        !IsStaticTensor(type) || shlo::IsBool(type.element_type()) || ReducerOf(op) != "stablehlo.add") {
      return false;
    }
    const int64_t indices_rank = indices->type().rank();
    std::vector<int64_t> batch;
    std::vector<bool> keep(static_cast<size_t>(indices_rank), false);
    const std::vector<int64_t>& batching = numbers->scatter_indices_batching_dims;
    for (int64_t d = 0; d < indices_rank; ++d) {
      if (d == numbers->index_vector_dim) continue;
      batch.push_back(d);
      keep[static_cast<size_t>(d)] = std::find(batching.begin(), batching.end(), d) == batching.end();
    }
    std::optional<DeviceValue> index_parts = KeepingCutsOn(indices, keep);
    if (!index_parts || index_parts->sharding.IsReplicated()) return false;
    // Update dimension j that is not a window dimension runs along the
    // indices' next batch dimension.
    const std::vector<int64_t>& window = numbers->update_window_dims;
    std::vector<int64_t> source(static_cast<size_t>(updates->type().rank()), -1);
    size_t next = 0;
    for (size_t j = 0; j < source.size() && next < batch.size(); ++j) {
      if (std::find(window.begin(), window.end(), static_cast<int64_t>(j)) == window.end()) source[j] = batch[next++];
    }
    const int64_t n = program_.num_partitions();
    std::optional<Sharding> update_layout = CarriedOver(index_parts->sharding, keep.size(), source, n);
    if (!update_layout) return false;
    // The devices whose partial sums add up: one of each part of the indices.
    const std::vector<int64_t> tiles = TilesOf(index_parts->sharding, keep.size());
    const std::vector<Coords> coords = DeviceCoords(index_parts->sharding, keep.size(), n);
    std::vector<int64_t> part(coords.size(), 0);
    int64_t splits = 1;
    for (size_t d = 0; d < keep.size(); ++d) {
      splits *= tiles[d];
      for (size_t p = 0; p < coords.size(); ++p) part[p] = part[p] * tiles[d] + coords[p][d];
    }
    std::optional<std::vector<std::vector<int64_t>>> groups =
        SumGroups(std::vector<Coords>(coords.size()), part, splits);
    if (!groups) return false;
    const DeviceValue update_parts = Layout(updates, *update_layout);
    const std::string whole_type = type.ToString();
    const DeviceValue zeros{
        program_.Emit("\"stablehlo.constant\"() {value = dense<" +
                      std::string(shlo::IsFloat(type.element_type()) ? "0.0" : "0") + "> : " + whole_type +
                      "} : () -> " + whole_type),
        input->type(), Sharding::Replicated()};
    std::string partial = EmitLocal(op, {zeros, *index_parts, update_parts}, {Sharding::Replicated()})[0];
    if (!groups->empty()) {
      partial = program_.AllReduce(partial, type.shape(), type.element_type(), *groups, "stablehlo.add");
    }
    const DeviceValue whole = Layout(input, Sharding::Replicated());
    Define(op.result(0), {program_.Emit("\"stablehlo.add\"(" + whole.name + ", " + partial + ") : (" + whole_type +
                                        ", " + whole_type + ") -> " + whole_type),
                          type, Sharding::Replicated()});
    return true;
  }

  // Whether every value a while carries is a static tensor (the while rule
  // lays each out); tokens and dynamic shapes run the loop whole.
  static bool LoopCarriable(const shlo::Operation& op) {
    return op.num_regions() == 2 && std::all_of(op.operands().begin(), op.operands().end(), [](const shlo::Value* v) {
             return IsStaticTensor(v->type());
           });
  }

  // Whether an if's or case's results are static tensors (each branch
  // returns them on a layout); else the op runs whole.
  static bool BranchesCarriable(const shlo::Operation& op) {
    return op.num_regions() >= 1 && op.num_operands() == 1 &&
           std::all_of(op.results().begin(), op.results().end(),
                       [](const shlo::Value* v) { return IsStaticTensor(v->type()); });
  }

  // while: each carried value keeps the layout it enters with (when evenly
  // tiled; else whole); the condition and the body are partitioned as
  // regions of their own on those layouts, the condition's flag made whole
  // and the body's results resharded to them, so every iteration sees the
  // same layouts. What the regions use from outside is resharded inside
  // them, as their ops ask.
  Status While(const shlo::Operation& op) {
    std::vector<DeviceValue> carried;
    std::string operands, types;
    for (const shlo::Value* operand : op.operands()) {
      const DeviceValue current = Current(operand);
      const bool keep = current.sharding.IsTiled() && DividesEvenly(current.sharding, operand->type().shape());
      carried.push_back(Layout(operand, keep ? current.sharding : Sharding::Replicated()));
      operands += (operands.empty() ? "" : ", ") + carried.back().name;
      types += (types.empty() ? "" : ", ") + carried.back().LocalType();
    }
    std::vector<std::optional<Sharding>> layouts;
    for (const DeviceValue& value : carried) layouts.push_back(value.sharding);
    auto write_regions = [&]() -> Status {
      BERTH_RETURN_IF_ERROR(WriteRegionBlock(op.region(0).entry_block(), carried, {Sharding::Replicated()}).status());
      program_.EmitLine("}, {");
      return WriteRegionBlock(op.region(1).entry_block(), carried, layouts).status();
    };
    HoistLoopInvariantReshards(write_regions);
    const std::string name = program_.NewName();
    const size_t count = op.num_results();
    program_.EmitLine(name + (count == 1 ? "" : ":" + std::to_string(count)) + " = \"stablehlo.while\"(" + operands +
                      ") ({");
    BERTH_RETURN_IF_ERROR(write_regions());
    program_.EmitLine("}) : (" + types + ") -> (" + types + ")");
    for (size_t i = 0; i < count; ++i) {
      Define(op.result(i), {count == 1 ? name : name + "#" + std::to_string(i), op.result(i)->type(),
                            carried[i].sharding});
    }
    return OkStatus();
  }

  // Values from outside a loop that its regions would reshard on every
  // iteration are resharded once before it: `write_regions` runs once as a
  // rehearsal, noting the layouts it asks of outer values, and everything
  // it wrote or changed is then undone.
  template <typename WriteRegions>
  void HoistLoopInvariantReshards(WriteRegions write_regions) {
    const DeviceProgram program = program_;
    auto layouts = layouts_;
    const Status error = error_;
    const std::string whole = needs_whole_program;
    const auto calls = called;
    const auto functions = custom_functions;
    const auto targets = custom_rule_targets;
    Hoist hoist{layouts, {}};
    Hoist* enclosing = hoist_;
    hoist_ = &hoist;
    (void)write_regions();  // errors surface when the regions are written for real
    hoist_ = enclosing;
    program_ = program;
    layouts_ = std::move(layouts);
    error_ = error;
    needs_whole_program = whole;
    called = calls;
    custom_functions = functions;
    custom_rule_targets = targets;
    for (const auto& [value, target] : hoist.asked) Layout(value, target);
  }

  // Writes `block` as the block of a region of the op being written: its
  // arguments named afresh on the layouts of `arguments`, its ops, and a
  // return of its results, each resharded to results[i] where given (as
  // they come where not); returns what it returned. What is made inside
  // (values, resharded outer values) is not seen after it.
  Result<std::vector<DeviceValue>> WriteRegionBlock(const shlo::Block& block, const std::vector<DeviceValue>& arguments,
                                                    const std::vector<std::optional<Sharding>>& results) {
    auto outer_layouts = layouts_;
    const DeviceProgram::RegionScope scope = program_.EnterRegion();
    std::vector<DeviceValue> inner = arguments;
    std::string header;
    for (DeviceValue& argument : inner) {
      argument.name = program_.NewName();
      header += (header.empty() ? "" : ", ") + argument.name + ": " + argument.LocalType();
    }
    if (!inner.empty()) program_.EmitLine("^bb0(" + header + "):");
    std::vector<DeviceValue> returned;
    BERTH_ASSIGN_OR_RETURN(bool partitioned, PartitionBlock(block, std::move(inner), returned));
    if (!partitioned) {
      // The caller checked that nothing in the region depends on the device.
      return InternalError("a region's op needs the whole program: " + needs_whole_program);
    }
    if (returned.size() != results.size()) {
      return InternalError("a region returns " + std::to_string(returned.size()) + " value(s), its op takes " +
                           std::to_string(results.size()));
    }
    std::string names, types;
    for (size_t i = 0; i < returned.size(); ++i) {
      if (results[i]) returned[i] = program_.Reshard(returned[i], *results[i]);
      names += (i ? ", " : "") + returned[i].name;
      types += (i ? ", " : "") + returned[i].LocalType();
    }
    program_.EmitLine("\"stablehlo.return\"(" + names + ") : (" + types + ") -> ()");
    program_.LeaveRegion(scope);
    layouts_ = std::move(outer_layouts);
    return returned;
  }

  // if and case: each branch is partitioned as a region of its own; the
  // results take the layouts the first branch returns them in, and the
  // other branches reshard theirs to match. The predicate or index is
  // whole.
  Status Branches(const shlo::Operation& op) {
    const DeviceValue selector = Layout(op.operand(0), Sharding::Replicated());
    const std::string name = program_.NewName();
    const size_t count = op.num_results();
    const std::string results =
        count == 0 ? "" : name + (count == 1 ? "" : ":" + std::to_string(count)) + " = ";
    program_.EmitLine(results + "\"" + std::string(op.name()) + "\"(" + selector.name + ") ({");
    std::vector<std::optional<Sharding>> layouts(count);
    std::vector<DeviceValue> first;
    for (size_t r = 0; r < op.num_regions(); ++r) {
      if (r > 0) program_.EmitLine("}, {");
      BERTH_ASSIGN_OR_RETURN(std::vector<DeviceValue> returned,
                             WriteRegionBlock(op.region(r).entry_block(), {}, layouts));
      if (r == 0) {
        first = std::move(returned);
        for (size_t i = 0; i < count; ++i) layouts[i] = first[i].sharding;
      }
    }
    std::string types;
    for (size_t i = 0; i < count; ++i) types += (i ? ", " : "") + first[i].LocalType();
    program_.EmitLine("}) : (" + selector.LocalType() + ") -> (" + types + ")");
    for (size_t i = 0; i < count; ++i) {
      Define(op.result(i), {count == 1 ? name : name + "#" + std::to_string(i), op.result(i)->type(),
                            first[i].sharding});
    }
    return OkStatus();
  }

  // dynamic_update_slice: dimensions the update covers whole keep their
  // cuts (the update laid out alike there), each device updating its own
  // part; the others are gathered first.
  bool DynamicUpdateSlice(const shlo::Operation& op) {
    const shlo::Type& type = op.operand(0)->type();
    const shlo::Type& update_type = op.operand(1)->type();
    if (!IsStaticTensor(type) || !IsStaticTensor(update_type) || !IsStaticTensor(op.result(0)->type())) return false;
    const std::span<const int64_t> shape = type.shape();
    const std::span<const int64_t> update = update_type.shape();
    if (update.size() != shape.size() || op.num_operands() != shape.size() + 2) return false;
    std::vector<bool> keep(shape.size());
    for (size_t d = 0; d < shape.size(); ++d) keep[d] = update[d] == shape[d];
    std::optional<Sharding> target = CommonLayoutKeeping({op.operand(0), op.operand(1)}, keep);
    if (!target) return false;
    std::vector<DeviceValue> operands = {Layout(op.operand(0), *target), Layout(op.operand(1), *target)};
    for (size_t d = 0; d < shape.size(); ++d) operands.push_back(Layout(op.operand(d + 2), Sharding::Replicated()));
    Define(op.result(0), {EmitLocal(op, operands, {*target})[0], op.result(0)->type(), *target});
    return true;
  }

  // pad: dimensions without padding keep their cuts; the others are
  // gathered first.
  bool Pad(const shlo::Operation& op) {
    std::optional<std::vector<bool>> keep = DimsLeftWhole(
        op, {"edge_padding_low", "edge_padding_high", "interior_padding"}, [](size_t) { return Triple{0, 0, 0}; });
    if (!keep) return false;
    std::optional<DeviceValue> operand = KeepingCutsOn(op.operand(0), *keep);
    if (!operand) return false;
    DeviceValue value = Layout(op.operand(1), Sharding::Replicated());
    Define(op.result(0), {EmitLocal(op, {*operand, value}, {operand->sharding})[0], op.result(0)->type(),
                          operand->sharding});
    return true;
  }

  // concatenate: every operand takes the layout of the first one tiled
  // (the concatenated dimension whole); the result keeps it.
  bool Concatenate(const shlo::Operation& op) {
    const shlo::Type& type = op.result(0)->type();
    std::optional<int64_t> dimension = op.GetInt("dimension");
    if (!IsStaticTensor(type) || !dimension || *dimension < 0 || *dimension >= type.rank()) return false;
    std::vector<bool> keep(static_cast<size_t>(type.rank()), true);
    keep[static_cast<size_t>(*dimension)] = false;
    std::optional<Sharding> target;
    for (const shlo::Value* operand : op.operands()) {
      if (!IsStaticTensor(operand->type()) || Current(operand).sharding.IsReplicated()) continue;
      std::optional<DeviceValue> kept = KeepingCutsOn(operand, keep);
      if (!kept) return false;
      target = kept->sharding;
      break;
    }
    if (!target) return false;  // all whole: nothing to keep
    std::vector<DeviceValue> operands;
    for (const shlo::Value* operand : op.operands()) {
      if (!IsStaticTensor(operand->type())) return false;
      operands.push_back(Layout(operand, *target));
    }
    Define(op.result(0), {EmitLocal(op, operands, {*target})[0], type, *target});
    return true;
  }

  // reshape: the dimensions split into groups of equal element counts
  // (operand [6, 4] -> result [2, 3, 4]: {6} -> {2, 3}, {4} -> {4}); a
  // group whose only cut is t tiles of its major operand dimension, where
  // t divides its major result dimension, keeps that cut there (each
  // device holds the same run of the group's elements either way); the
  // other groups are gathered first.
  bool Reshape(const shlo::Operation& op) {
    const shlo::Type& from = op.operand(0)->type();
    const shlo::Type& to = op.result(0)->type();
    if (!IsStaticTensor(from) || !IsStaticTensor(to)) return false;
    std::optional<DeviceValue> current = TiledOperand(op.operand(0));
    if (!current) return false;
    const std::span<const int64_t> a = from.shape(), b = to.shape();
    const std::vector<int64_t> tiles = TilesOf(current->sharding, a.size());
    std::vector<bool> keep(a.size(), false);
    std::vector<int64_t> source(b.size(), -1);
    size_t i = 0, j = 0;
    while (i < a.size() || j < b.size()) {
      const size_t first_a = i, first_b = j;
      int64_t pa = 1, pb = 1;
      if (i < a.size()) pa *= a[i++];
      if (j < b.size()) pb *= b[j++];
      while (pa != pb && (i < a.size() || j < b.size())) {
        if ((pa < pb && i < a.size()) || j >= b.size()) {
          pa *= a[i++];
        } else {
          pb *= b[j++];
        }
      }
      if (pa != pb) return false;  // sizes disagree: not a valid reshape
      // The major dimensions: the first of more than one element (leading
      // 1s do not change where elements lie).
      size_t major_a = first_a, major_b = first_b;
      while (major_a + 1 < i && a[major_a] == 1) ++major_a;
      while (major_b + 1 < j && b[major_b] == 1) ++major_b;
      bool others_whole = true;
      for (size_t d = first_a; d < i; ++d) others_whole = others_whole && (d == major_a || tiles[d] == 1);
      if (major_a < i && major_b < j && others_whole && b[major_b] % tiles[major_a] == 0) {
        keep[major_a] = true;
        if (tiles[major_a] > 1) source[major_b] = static_cast<int64_t>(major_a);
      }
    }
    std::optional<DeviceValue> operand = KeepingCutsOn(op.operand(0), keep);
    if (!operand) return false;
    std::optional<Sharding> result = CarriedOver(operand->sharding, a.size(), source, program_.num_partitions());
    if (!result) return false;
    Define(op.result(0), {EmitLocal(op, {*operand}, {*result})[0], to, *result});
    return true;
  }

  // reduce of one array: each device reduces what it holds; the kept
  // dimensions keep their cuts; where reduced dimensions are cut, the
  // partial results are combined with an all_reduce of the same op, which
  // needs the init value to be that op's identity.
  bool Reduce(const shlo::Operation& op) {
    if (op.num_operands() != 2 || op.num_results() != 1) return false;
    std::optional<DeviceValue> input = TiledOperand(op.operand(0), /*padded=*/true);
    const shlo::Type& type = op.result(0)->type();
    if (!input || !IsStaticTensor(type)) return false;
    const size_t rank = op.operand(0)->type().shape().size();
    std::span<const int64_t> reduced = op.GetI64Array("dimensions");
    std::vector<int64_t> kept;
    for (int64_t d = 0; d < static_cast<int64_t>(rank); ++d) {
      if (std::find(reduced.begin(), reduced.end(), d) == reduced.end()) kept.push_back(d);
    }
    const int64_t n = program_.num_partitions();
    std::optional<Sharding> result = CarriedOver(input->sharding, rank, kept, n);
    if (!result) return false;
    const std::vector<int64_t> tiles = TilesOf(input->sharding, rank);
    const std::vector<Coords> coords = DeviceCoords(input->sharding, rank, n);
    std::vector<Coords> result_coords(coords.size());
    std::vector<int64_t> part(coords.size(), 0);
    int64_t splits = 1;
    for (int64_t d : reduced) splits *= tiles[static_cast<size_t>(d)];
    for (size_t p = 0; p < coords.size(); ++p) {
      for (int64_t d : kept) result_coords[p].push_back(coords[p][static_cast<size_t>(d)]);
      for (int64_t d : reduced) part[p] = part[p] * tiles[static_cast<size_t>(d)] + coords[p][static_cast<size_t>(d)];
    }
    std::optional<std::vector<std::vector<int64_t>>> groups = SumGroups(result_coords, part, splits);
    const std::string_view reducer = ReducerOf(op);
    if (!groups || (!groups->empty() && (reducer.empty() || !IsIdentity(op.operand(1), reducer)))) return false;
    DeviceValue init = Layout(op.operand(1), Sharding::Replicated());
    // Padding along reduced dimensions reduces as the identity; padding
    // along kept ones reduces to it, and is zeroed after.
    std::vector<size_t> reduced_dims(reduced.begin(), reduced.end());
    input->name = program_.FillPadding(*input, init.name, reduced_dims);
    DeviceValue out{EmitLocal(op, {*input, init}, {*result})[0], type, *result};
    if (!groups->empty()) out = Combined(op.result(0), std::move(out), *groups, reducer);
    out.name = program_.FillPadding(out);
    Define(op.result(0), std::move(out));
    return true;
  }

  // The layout the same-shaped `values` all take when the dimensions `keep`
  // leaves out must be whole: the first tiled one's with those dimensions
  // gathered; nullopt when none is tiled (or one cannot be held).
  std::optional<Sharding> CommonLayoutKeeping(const std::vector<const shlo::Value*>& values,
                                              const std::vector<bool>& keep) {
    for (const shlo::Value* value : values) {
      if (Current(value).sharding.IsReplicated()) continue;
      std::optional<DeviceValue> kept = KeepingCutsOn(value, keep);
      if (!kept) return std::nullopt;
      return kept->sharding.IsReplicated() ? std::nullopt : std::optional<Sharding>(kept->sharding);
    }
    return std::nullopt;
  }

  // Whether `values` are static tensors of one shape.
  static bool SameStaticShapes(const std::vector<const shlo::Value*>& values) {
    if (values.empty() || !IsStaticTensor(values[0]->type())) return false;
    const std::span<const int64_t> shape = values[0]->type().shape();
    return std::all_of(values.begin(), values.end(), [&](const shlo::Value* v) {
      return IsStaticTensor(v->type()) && std::equal(shape.begin(), shape.end(), v->type().shape().begin(),
                                                     v->type().shape().end());
    });
  }

  // reduce of any body over one or more arrays (variadic: argmax's values
  // and indices), where the Reduce rule does not apply: the reduced
  // dimensions are gathered, so each device holds them whole and reduces
  // its own part of the kept ones with no communication; the results keep
  // the kept dimensions' cuts.
  bool ReduceOverWholeDims(const shlo::Operation& op) {
    const size_t n = op.num_operands() / 2;
    if (n == 0 || op.num_operands() != 2 * n || op.num_results() != n) return false;
    std::vector<const shlo::Value*> inputs;
    for (size_t i = 0; i < n; ++i) inputs.push_back(op.operand(i));
    if (!SameStaticShapes(inputs)) return false;
    for (const shlo::Value* result : op.results()) {
      if (!IsStaticTensor(result->type())) return false;
    }
    const size_t rank = inputs[0]->type().shape().size();
    std::span<const int64_t> reduced = op.GetI64Array("dimensions");
    std::vector<bool> keep(rank, true);
    for (int64_t d : reduced) {
      if (d < 0 || d >= static_cast<int64_t>(rank)) return false;
      keep[static_cast<size_t>(d)] = false;
    }
    std::vector<int64_t> kept;
    for (size_t d = 0; d < rank; ++d) {
      if (keep[d]) kept.push_back(static_cast<int64_t>(d));
    }
    std::optional<Sharding> target = CommonLayoutKeeping(inputs, keep);
    if (!target) return false;
    std::optional<Sharding> result = CarriedOver(*target, rank, kept, program_.num_partitions());
    if (!result) return false;
    std::vector<DeviceValue> operands;
    for (const shlo::Value* input : inputs) operands.push_back(Layout(input, *target));
    for (size_t i = n; i < 2 * n; ++i) operands.push_back(Layout(op.operand(i), Sharding::Replicated()));
    std::vector<std::string> names = EmitLocal(op, operands, std::vector<Sharding>(n, *result));
    for (size_t i = 0; i < n; ++i) Define(op.result(i), {names[i], op.result(i)->type(), *result});
    return true;
  }

  // sort: the sorted dimension is gathered, the others keep their cuts
  // (every operand on the first tiled one's layout); each device sorts its
  // own rows.
  bool Sort(const shlo::Operation& op) {
    std::vector<const shlo::Value*> operands(op.operands().begin(), op.operands().end());
    std::optional<int64_t> dimension = op.GetInt("dimension");
    if (!SameStaticShapes(operands) || !dimension) return false;
    const int64_t rank = operands[0]->type().rank();
    if (*dimension < 0 || *dimension >= rank) return false;
    std::vector<bool> keep(static_cast<size_t>(rank), true);
    keep[static_cast<size_t>(*dimension)] = false;
    std::optional<Sharding> target = CommonLayoutKeeping(operands, keep);
    if (!target) return false;
    std::vector<DeviceValue> local;
    for (const shlo::Value* operand : operands) local.push_back(Layout(operand, *target));
    std::vector<std::string> names = EmitLocal(op, local, std::vector<Sharding>(op.num_results(), *target));
    for (size_t i = 0; i < op.num_results(); ++i) Define(op.result(i), {names[i], op.result(i)->type(), *target});
    return true;
  }

  // convolution, data parallel: an input cut along its batch dimension keeps
  // that cut on the output's batch dimension, the kernel whole; or model
  // parallel: a kernel cut along its output features (with no feature
  // groups) cuts the output's features, the input whole. Each device
  // convolves what it holds with no communication. Other cuts are gathered
  // first; batch groups run whole.
  bool Convolution(const shlo::Operation& op) {
    const shlo::ConvDimensionNumbers* dims = op.conv_dimension_numbers();
    if (dims == nullptr || op.num_operands() != 2 || op.num_results() != 1) return false;
    if (op.GetInt("batch_group_count").value_or(1) != 1) return false;
    const shlo::Value* input = op.operand(0);
    const shlo::Value* kernel = op.operand(1);
    const shlo::Type& type = op.result(0)->type();
    if (!IsStaticTensor(input->type()) || !IsStaticTensor(kernel->type()) || !IsStaticTensor(type)) return false;
    const size_t rank = static_cast<size_t>(type.rank());
    if (input->type().shape().size() != rank || kernel->type().shape().size() != rank) return false;
    auto keep_only = [&](int64_t dim) {
      std::vector<bool> keep(rank, false);
      keep[static_cast<size_t>(dim)] = true;
      return keep;
    };
    // The side that is cut along its parallel dimension, and the dimension
    // of the output it lands on.
    const bool features_alone = op.GetInt("feature_group_count").value_or(1) == 1;
    struct Side {
      const shlo::Value* cut;
      const shlo::Value* whole;
      int64_t from, to;
    };
    std::vector<Side> sides = {{input, kernel, dims->input_batch_dimension, dims->output_batch_dimension}};
    if (features_alone) {
      sides.push_back({kernel, input, dims->kernel_output_feature_dimension, dims->output_feature_dimension});
    }
    for (const Side& side : sides) {
      if (Current(side.cut).sharding.IsReplicated()) continue;
      std::optional<DeviceValue> cut = KeepingCutsOn(side.cut, keep_only(side.from));
      if (!cut || cut->sharding.IsReplicated()) continue;
      std::vector<int64_t> source(rank, -1);
      source[static_cast<size_t>(side.to)] = side.from;
      std::optional<Sharding> result = CarriedOver(cut->sharding, rank, source, program_.num_partitions());
      if (!result) return false;
      const DeviceValue whole = Layout(side.whole, Sharding::Replicated());
      std::vector<DeviceValue> operands = side.cut == input ? std::vector<DeviceValue>{*cut, whole}
                                                            : std::vector<DeviceValue>{whole, *cut};
      Define(op.result(0), {EmitLocal(op, operands, {*result})[0], type, *result});
      return true;
    }
    return false;
  }

  bool IsManual(const shlo::Value* value) const {
    auto found = layouts_.find(value);
    return found != layouts_.end() && found->second.front().sharding.IsManual();
  }

  // Whether `op` uses a manual value, directly or in its regions.
  bool TouchesManual(const shlo::Operation& op) const {
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

  // The ops that open, close or are a shard_map region, in any of the
  // three forms: sdy.manual_computation, GSPMD's @SPMDFullToShardShape /
  // @SPMDShardToFullShape, XLA's round-trip @xla.sdy.GlobalToLocalShape /
  // LocalToGlobalShape.
  static bool IsShardMapStep(const shlo::Operation& op) {
    return op.kind() == OpKind::kSdyManualComputation || IsGspmdShardMap(op, "SPMDFullToShardShape") ||
           IsGspmdShardMap(op, "SPMDShardToFullShape") || IsRoundTripShardMap(op, "GlobalToLocalShape") ||
           IsRoundTripShardMap(op, "LocalToGlobalShape");
  }
  static bool IsGspmdShardMap(const shlo::Operation& op, std::string_view target) {
    return op.kind() == OpKind::kCustomCall && op.call_target_name() == target;
  }

  // Writes a shard_map step; false when an automatic body needs the whole
  // program.
  Result<bool> ShardMapStep(const shlo::Operation& op) {
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

  // `value` as a value of a manual region: each device's own (a value
  // from outside the region whole on every device).
  DeviceValue AsManual(const shlo::Value* value) {
    if (IsManual(value)) return Current(value);
    return {Layout(value, Sharding::Replicated()).name, value->type(), Sharding::Manual()};
  }

  // A shard_map operand entering the region: laid out as `layout` (its cuts
  // along the region's manual axes; free axes leave it whole), each
  // device's part becomes its value of the body, of type `shard`. An
  // operand that is already a region's value (a shard_map nested in
  // another) is each device's whole block, cut further in place.
  Result<DeviceValue> EnterManual(const shlo::Value* operand, const Sharding& layout, const shlo::Type& shard,
                                  const std::string& where) {
    const DeviceValue cut =
        IsManual(operand) ? program_.Reshard({Current(operand).name, operand->type(), Sharding::Replicated()}, layout)
                          : Layout(operand, layout);
    BERTH_RETURN_IF_ERROR(CheckShards(cut, shard, where));
    return DeviceValue{cut.name, shard, Sharding::Manual()};
  }

  // A body's returned `part` leaving the region as each device's part of a
  // value of `type` laid out as `layout`. Leaving a region nested in
  // another, the parts are gathered into each device's whole block of the
  // enclosing region (the groups share its manual coordinates: they are
  // the replicas of `layout`).
  Result<DeviceValue> LeaveManual(const DeviceValue& part, const shlo::Type& type, const Sharding& layout,
                                  bool nested, const std::string& where) {
    DeviceValue out{part.name, type, layout};
    BERTH_RETURN_IF_ERROR(CheckShards(out, part.global_type, where));
    if (!nested) return out;
    return DeviceValue{program_.Reshard(out, Sharding::Replicated()).name, type, Sharding::Manual()};
  }

  // A manual region's ops, each device's own code: written as they are,
  // but for the shard_maps nested in the region (which cut its values
  // further) and calls of functions holding them (written in place).
  Status ManualBlock(const shlo::Block& block, std::vector<DeviceValue> arguments,
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

  // The function `op` calls when it holds shard_map regions (a round-trip
  // shard_map's body with another nested in it); else null.
  const shlo::Function* CalleeWithRegions(const shlo::Operation& op) const {
    const shlo::Function* callee = Inlinable(op);
    return callee != nullptr && HasManualRegions(callee->entry_block()) ? callee : nullptr;
  }

  // A call inside a manual region, written in place.
  Status ManualCall(const shlo::Operation& op, const shlo::Function& callee) {
    std::vector<DeviceValue> arguments, returned;
    for (const shlo::Value* operand : op.operands()) arguments.push_back(AsManual(operand));
    call_stack_.insert(&callee);
    Status status = ManualBlock(callee.entry_block(), std::move(arguments), returned);
    call_stack_.erase(&callee);
    BERTH_RETURN_IF_ERROR(status);
    for (size_t i = 0; i < op.num_results(); ++i) Define(op.result(i), returned.at(i));
    return OkStatus();
  }

  // A GSPMD sharding inside a region: its manual subgroup is the region's
  // devices, each holding its own block; the layout it gives the blocks is
  // the other tiles' (the manual subgroup read as replicas).
  static Result<Sharding> WithinRegion(const Sharding& sharding) {
    const Sharding canonical = sharding.Canonical();
    if (canonical.IsManual()) return Sharding::Replicated();
    if (!canonical.IsTiled()) return canonical;
    std::vector<SubgroupKind> subgroups = canonical.subgroups();
    std::replace(subgroups.begin(), subgroups.end(), SubgroupKind::kManual, SubgroupKind::kReplicated);
    BERTH_ASSIGN_OR_RETURN(Sharding within, Sharding::Tiled(canonical.tile_dims(), canonical.devices(), subgroups));
    return within.Canonical();
  }
  static bool HasManualSubgroup(const Sharding& sharding) {
    const Sharding canonical = sharding.Canonical();
    return canonical.IsTiled() && std::find(canonical.subgroups().begin(), canonical.subgroups().end(),
                                            SubgroupKind::kManual) != canonical.subgroups().end();
  }

  // @SPMDFullToShardShape: the operand, cut as its layout says, becomes each
  // device's own value of the region (its shard, as the result's shape). A
  // partially manual region's operand arrives cut along the manual axes
  // only. Nested in another region, the operand's @Sharding (its manual
  // subgroup the enclosing region's) says how each block is cut.
  Status FullToShard(const shlo::Operation& op) {
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
    BERTH_ASSIGN_OR_RETURN(DeviceValue shard, EnterManual(op.operand(0), layout, op.result(0)->type(), Where(op) + "operand"));
    Define(op.result(0), std::move(shard));
    return OkStatus();
  }

  // @SPMDShardToFullShape: each device's value of the region is its part of
  // the global result, laid out as the op's sharding says; a sharding with
  // a manual subgroup leaves a region nested in another.
  Status ShardToFull(const shlo::Operation& op) {
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

  // A shard_map's in- or out_shardings (`name`), one per value of `count`.
  static Result<std::vector<ShardySharding>> ShardingsPerValue(std::string_view text, size_t count,
                                                              std::string_view name, const std::string& where) {
    Result<std::vector<ShardySharding>> parsed = ParseShardyShardingPerValue(text);
    if (!parsed.ok()) return Status(parsed.status().code(), where + std::string(name) + ": " + parsed.status().message());
    if (parsed->size() != count) {
      return InvalidArgumentError(where + std::string(name) + " lists " + std::to_string(parsed->size()) +
                                  " sharding(s) for " + std::to_string(count) + " value(s)");
    }
    return parsed;
  }

  // XLA's round-trip form of a Shardy shard_map: @xla.sdy.GlobalToLocalShape
  // (the in_shardings and manual_axes among its frontend attributes) cuts
  // the operands into each device's shards, a call of the body function
  // runs on them as written, and @xla.sdy.LocalToGlobalShape (the
  // out_shardings) makes each device's results its parts of the global
  // ones. Newer exports (@local_xla.sdy.*) keep all three attributes on
  // the call instead.
  static bool IsRoundTripShardMap(const shlo::Operation& op, std::string_view step) {
    if (op.kind() != OpKind::kCustomCall) return false;
    std::string_view target = op.call_target_name();
    if (target.starts_with("local_")) target.remove_prefix(6);
    return target.starts_with("xla.sdy.") && target.substr(8) == step;
  }

  // The frontend attribute `name` (a string) of `op`, or of `call` where
  // `op` lacks it; nullopt when neither has it.
  static Result<std::optional<std::string>> RoundTripAttribute(const shlo::Operation& op, const shlo::Operation* call,
                                                              std::string_view name) {
    for (const shlo::Operation* holder : {&op, call}) {
      if (holder == nullptr) continue;
      Result<std::optional<std::string>> text = RoundTripText(holder->attr("mhlo.frontend_attributes"), name);
      if (!text.ok()) return Status(text.status().code(), Where(op) + text.status().message());
      if (*text) return text;
    }
    return std::optional<std::string>();
  }

  // The manual axes and the layouts a round-trip GlobalToLocalShape's
  // operands (its in_shardings) or a LocalToGlobalShape's results (its
  // out_shardings) take, read from the op or its body call.
  Result<std::vector<Sharding>> RoundTripLayouts(const shlo::Operation& op, bool global_to_local,
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

  // The body call a round-trip GlobalToLocalShape's results go to, or the
  // one a LocalToGlobalShape's operands come from; nullptr when none.
  static const shlo::Operation* BodyCall(const shlo::Operation& op, bool global_to_local) {
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

  Status RoundTripGlobalToLocal(const shlo::Operation& op) {
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

  Status RoundTripLocalToGlobal(const shlo::Operation& op) {
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

  // Refuses a region's manual axes where an enclosing region made one of
  // them manual already.
  Status CheckAxesNotManual(const std::vector<std::string>& manual_axes, const std::string& where) const {
    for (const std::vector<std::string>& open : open_manual_axes_) {
      for (const std::string& axis : manual_axes) {
        if (std::find(open.begin(), open.end(), axis) != open.end()) {
          return InvalidArgumentError(where + "axis \"" + axis + "\" is already manual in an enclosing region");
        }
      }
    }
    return OkStatus();
  }

  // The layout a shard_map's in- or out_sharding gives a value of `type`
  // on its mesh (which must span the program's partitions): with manual
  // axes, its cuts along them only. The free axes of a partially manual
  // computation leave the body's values whole: each device runs the body on
  // its manual block, the devices along free axes alike (slower than
  // partitioning the body along them, never wrong). With no manual axes
  // (the body is ordinary code), the whole sharding.
  Result<Sharding> ManualLayout(const ShardySharding& sharding, const shlo::Type& type,
                                const std::vector<std::string>& manual_axes, const std::string& where) const {
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

  // sdy.manual_computation (Shardy's shard_map). With manual axes (every
  // axis of more than one device): each operand laid out as its in_sharding
  // says becomes each device's shard, the body runs as written on the
  // shards, and each returned shard is that device's part of the result as
  // its out_sharding lays it out. With no manual axes the body is ordinary
  // code: partitioned in place, its operands and results constrained to the
  // shardings given. False when the body needs the whole program.
  Result<bool> ManualComputation(const shlo::Operation& op) {
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

  const CustomCallRule* RuleFor(const shlo::Operation& op) const {
    if (op.kind() != OpKind::kCustomCall) return nullptr;
    auto found = entry_.rules.find(op.call_target_name());
    return found == entry_.rules.end() ? nullptr : found->second.get();
  }

  // The layout the only user of `value` asks for: a sharding constraint's,
  // or the entry result's it is returned as; nullopt when none asks.
  std::optional<Sharding> UserSharding(const shlo::Value* value) {
    if (value->num_uses() != 1) return std::nullopt;
    const shlo::Operation* user = value->uses().begin()->owner;
    if (IsConstraint(*user)) {
      Result<Sharding> sharding = ConstraintSharding(*user);
      if (sharding.ok()) return *sharding;
    } else if (shlo::IsTerminator(user->kind()) && user->parent_block() == entry_.body) {
      const size_t index = value->uses().begin()->index;
      if (index < entry_.results.size() && entry_.results[index]) return Holdable(*entry_.results[index], value->type()).value_or(Sharding());
    }
    return std::nullopt;
  }

  // A custom call whose target has a partitioning rule (custom_rules.hpp):
  // the rule chooses the results' layouts and writes the per-shard
  // computation, called here as a private function of the per-device module.
  Status CustomCall(const shlo::Operation& op, const CustomCallRule& rule) {
    const std::string where = Where(op) + "custom partitioning rule: ";
    auto fail = [&](const Status& status) { return Status(status.code(), where + status.message()); };
    CustomCallSite site;
    site.op = &op;
    site.num_partitions = program_.num_partitions();
    for (const shlo::Value* operand : op.operands()) {
      if (!IsStaticTensor(operand->type())) return UnimplementedError(where + "an operand of type " + operand->type().ToString());
      site.operand_types.push_back(operand->type().ToString());
      site.operand_shardings.push_back(Current(operand).sharding);
    }
    for (const shlo::Value* result : op.results()) {
      if (!IsStaticTensor(result->type())) return UnimplementedError(where + "a result of type " + result->type().ToString());
      site.result_types.push_back(result->type().ToString());
    }
    // Forwards from the operands, then backwards from the users.
    Result<std::vector<std::optional<Sharding>>> inferred = rule.InferResultShardings(site);
    if (!inferred.ok()) return fail(inferred.status());
    std::vector<std::optional<Sharding>> chosen(op.num_results());
    for (size_t i = 0; i < chosen.size() && i < inferred->size(); ++i) chosen[i] = (*inferred)[i];
    if (rule.FollowsUsers()) {
      std::vector<std::optional<Sharding>> users;
      for (const shlo::Value* result : op.results()) users.push_back(UserSharding(result));
      if (std::any_of(users.begin(), users.end(), [](const auto& s) { return s.has_value(); })) {
        site.result_shardings = users;
        Result<std::vector<std::optional<Sharding>>> followed = rule.PropagateUserSharding(site);
        if (!followed.ok()) return fail(followed.status());
        for (size_t i = 0; i < chosen.size(); ++i) {
          if (i < followed->size() && (*followed)[i]) {
            chosen[i] = (*followed)[i];
          } else if (users[i]) {
            chosen[i] = users[i];
          }
        }
      }
    }
    for (size_t i = 0; i < chosen.size(); ++i) {
      BERTH_ASSIGN_OR_RETURN(Sharding layout, Checked(chosen[i].value_or(Sharding()), op.result(i)->type(),
                                                      where + "result " + std::to_string(i)));
      chosen[i] = layout;
    }
    site.result_shardings = chosen;
    Result<CustomPartitioning> partitioning = rule.Partition(site);
    if (!partitioning.ok()) return fail(partitioning.status());

    // The operands as the rule wants them, the results as its shards make up.
    std::string operands, operand_types, result_types;
    std::vector<std::string> shard_operand_types, shard_result_types;
    for (size_t i = 0; i < op.num_operands(); ++i) {
      const std::optional<Sharding>& wanted =
          i < partitioning->operand_shardings.size() ? partitioning->operand_shardings[i] : std::nullopt;
      BERTH_ASSIGN_OR_RETURN(Sharding layout, Checked(wanted.value_or(site.operand_shardings[i]), op.operand(i)->type(),
                                                      where + "operand " + std::to_string(i)));
      const DeviceValue local = Layout(op.operand(i), layout);
      operands += (i ? ", " : "") + local.name;
      shard_operand_types.push_back(local.LocalType());
      operand_types += (i ? ", " : "") + local.LocalType();
    }
    std::vector<DeviceValue> results;
    for (size_t i = 0; i < op.num_results(); ++i) {
      const std::optional<Sharding>& made =
          i < partitioning->result_shardings.size() ? partitioning->result_shardings[i] : std::nullopt;
      BERTH_ASSIGN_OR_RETURN(Sharding layout, Checked(made.value_or(*chosen[i]), op.result(i)->type(),
                                                      where + "result " + std::to_string(i)));
      results.push_back({"", op.result(i)->type(), layout});
      shard_result_types.push_back(results.back().LocalType());
      result_types += (i ? ", " : "") + results.back().LocalType();
    }

    // The computation: one function, @main, shards in and shards out.
    stablehlo::ParseOptions parse;
    parse.verify = true;
    Result<shlo::Module> computation =
        shlo::ParseModule(partitioning->computation, "the per-shard computation of @" + std::string(op.call_target_name()), parse);
    if (!computation.ok()) return fail(computation.status());
    const shlo::Function* main = computation->function("main");
    if (main == nullptr || main->is_declaration() || computation->functions().size() != 1) {
      return InvalidArgumentError(where + "partition's computation must be one function, @main, with a body");
    }
    auto types_of = [](std::span<const shlo::Type> types) {
      std::vector<std::string> out;
      for (const shlo::Type& type : types) out.push_back(type.ToString());
      return out;
    };
    auto list = [](const std::vector<std::string>& types) {
      std::string out;
      for (const std::string& type : types) out += (out.empty() ? "" : ", ") + type;
      return "(" + out + ")";
    };
    const std::vector<std::string> main_arguments = types_of(main->argument_types());
    const std::vector<std::string> main_results = types_of(main->result_types());
    if (main_arguments != shard_operand_types || main_results != shard_result_types) {
      return InvalidArgumentError(where + "partition's @main is " + list(main_arguments) + " -> " + list(main_results) +
                                  "; the shards are " + list(shard_operand_types) + " -> " + list(shard_result_types));
    }
    std::string name = "berth.custom." + std::string(op.call_target_name()) + "." + std::to_string(custom_functions.size());
    for (char& c : name) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '$' && c != '-') c = '_';
    }
    while (module_.function(name) != nullptr) name += "_";
    custom_functions.push_back(shlo::Print(*main, name, shlo::Visibility::kPrivate));
    custom_rule_targets.emplace(op.call_target_name());
    const std::string call = "call @" + name + "(" + operands + ") : (" + operand_types + ") -> (" + result_types + ")";
    if (op.num_results() == 0) {
      program_.EmitLine(call);
      return OkStatus();
    }
    std::vector<std::string> names = program_.Emit(call, op.num_results());
    for (size_t i = 0; i < op.num_results(); ++i) {
      results[i].name = names[i];
      Define(op.result(i), std::move(results[i]));
    }
    return OkStatus();
  }

  // A layout a rule gave for a value of `type`: replicated, or tiled over
  // every partition cutting the value evenly.
  Result<Sharding> Checked(const Sharding& sharding, const shlo::Type& type, const std::string& what) const {
    const Sharding canonical = sharding.Canonical();
    if (canonical.IsReplicated()) return canonical;
    const std::vector<int64_t>& devices = canonical.devices();
    if (!canonical.IsTiled() || canonical.CheckRank(type.rank()).ok() == false ||
        static_cast<int64_t>(devices.size()) != program_.num_partitions() ||
        *std::max_element(devices.begin(), devices.end()) >= program_.num_partitions()) {
      return InvalidArgumentError(what + ": the layout " + PrintGspmdSharding(sharding) + " of " + type.ToString() +
                                  " is not replicated or tiled over the program's " +
                                  std::to_string(program_.num_partitions()) + " partitions");
    }
    if (!DividesEvenly(canonical, type.shape())) {
      return UnimplementedError(what + ": " + type.ToString() + " laid out as " + PrintGspmdSharding(sharding) +
                                " has uneven shards; custom partitioning takes even ones only");
    }
    return canonical;
  }

  // Whether `value`'s layout cuts it evenly into shards of `shard` type.
  static Status CheckShards(const DeviceValue& value, const shlo::Type& shard, const std::string& where) {
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

  // Inside a manual region ops run as written, on each device's own values.
  void AsWritten(const shlo::Operation& op) {
    shlo::OpRewrite rewrite;
    for (const shlo::Value* operand : op.operands()) {
      rewrite.operand_names.push_back(IsManual(operand) ? Current(operand).name
                                                        : Layout(operand, Sharding::Replicated()).name);
    }
    std::unordered_set<const shlo::Value*> inner;
    for (const shlo::Region* region : op.regions()) {
      for (const shlo::Block* block : region->blocks()) CollectOuter(*block, inner, rewrite.outer_names);
    }
    std::vector<std::string> names = Emit(op, std::move(rewrite));
    for (size_t i = 0; i < op.num_results(); ++i) {
      Define(op.result(i), {names[i], op.result(i)->type(), Sharding::Manual()});
    }
  }

  // The function a func.call calls, when it can be partitioned in place
  // (it has a body and is not already being partitioned); else null.
  const shlo::Function* Inlinable(const shlo::Operation& op) const {
    if (op.kind() != OpKind::kFuncCall) return nullptr;
    const shlo::Function* callee = module_.function(op.callee());
    if (callee == nullptr || callee->is_declaration() || call_stack_.contains(callee)) return nullptr;
    return callee;
  }

  static std::string Where(const shlo::Operation& op) {
    return op.location().ToString() + ": @" + std::string(op.call_target_name()) + ": ";
  }

  // No rule: the op runs whole on every device, on whole operands (and
  // whole values its regions use from outside).
  void Whole(const shlo::Operation& op) {
    shlo::OpRewrite rewrite;
    for (const shlo::Value* operand : op.operands()) {
      rewrite.operand_names.push_back(Layout(operand, Sharding::Replicated()).name);
    }
    std::unordered_set<const shlo::Value*> inner;
    for (const shlo::Region* region : op.regions()) {
      for (const shlo::Block* block : region->blocks()) CollectOuter(*block, inner, rewrite.outer_names);
    }
    std::vector<std::string> names = Emit(op, std::move(rewrite));
    for (size_t i = 0; i < op.num_results(); ++i) {
      Define(op.result(i), {names[i], op.result(i)->type(), Sharding::Replicated()});
    }
  }

  // The values `block` uses that it and the blocks inside it do not define,
  // named by their whole layouts.
  void CollectOuter(const shlo::Block& block, std::unordered_set<const shlo::Value*>& inner,
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

  const shlo::Module& module_;
  const std::map<std::string, Mesh, std::less<>>& meshes_;
  const EntryContext& entry_;
  DeviceProgram& program_;
  Status error_;
  std::unordered_set<const shlo::Function*> call_stack_;
  std::unordered_map<const shlo::Value*, std::vector<DeviceValue>> layouts_;
  WantedLayouts wanted_;
  // While a loop's regions are rehearsed: the values defined before it,
  // and the layouts asked of them there.
  struct Hoist {
    const std::unordered_map<const shlo::Value*, std::vector<DeviceValue>>& outer;
    std::vector<std::pair<const shlo::Value*, Sharding>> asked;
  };
  Hoist* hoist_ = nullptr;
  // The manual axes of the sdy.manual_computation regions around the op
  // being written, and of the round-trip shard_maps entered and not yet
  // left, outermost first.
  std::vector<std::vector<std::string>> open_manual_axes_;
};

}  // namespace

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
