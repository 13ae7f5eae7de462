// OpPartitioner, the class behind PartitionOps (op_rules.hpp): it walks a
// block's ops in order and writes each one's per-device form into a
// DeviceProgram, keeping every value's layouts. Its rules live by op family:
//   op_rules.cc              the walk, sharding constraints, calls, the
//                            fallback (an op whole on every device)
//   rules_compute.cc         elementwise ops, dot_general, reduce, sort,
//                            convolution
//   rules_data_movement.cc   transpose, broadcast_in_dim, slices, dynamic
//                            slices and updates, pad, concatenate, reshape
//   rules_gather_scatter.cc  gather, scatter-add
//   rules_control_flow.cc    while, if, case (regions rehearsed, moves
//                            hoisted out of loops)
//   manual_regions.cc        shard_map regions in their three forms
//   custom_call_rules.cc     custom calls partitioned by registered rules
#ifndef BERTH_SPMD_SRC_OP_PARTITIONER_HPP_
#define BERTH_SPMD_SRC_OP_PARTITIONER_HPP_

#include <array>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "berth/spmd/custom_rules.hpp"
#include "berth/spmd/mesh.hpp"
#include "berth/spmd/shardy.hpp"
#include "berth/stablehlo/attributes.hpp"
#include "berth/stablehlo/ir.hpp"
#include "berth/status.hpp"
#include "src/device_program.hpp"
#include "src/op_rules.hpp"
#include "src/wanted_layouts.hpp"

namespace berth::spmd::internal {

inline bool IsStaticTensor(const stablehlo::Type& type) { return type.IsTensor() && type.HasStaticShape(); }

class OpPartitioner {
 public:
  OpPartitioner(const stablehlo::Module& module, const std::map<std::string, Mesh, std::less<>>& meshes,
                const EntryContext& entry, DeviceProgram& program)
      : module_(module), meshes_(meshes), entry_(entry), program_(program) {}

  // `value` is `device_value`; where the partitioner's rules left it whole
  // and a later use wants it cut (backward propagation), each device also
  // slices its own part at once, and the ops after it see that part first.
  void Define(const stablehlo::Value* value, DeviceValue device_value);

  // Computes what the entry's results and `body`'s constraints want of the
  // values before them (`body` being the entry's).
  void WantLayoutsOf(const stablehlo::Block& body);

  // `value` as `target` lays it out, resharded once per layout asked for.
  DeviceValue Layout(const stablehlo::Value* value, const Sharding& target);
  DeviceValue Current(const stablehlo::Value* value) const { return layouts_.at(value).front(); }

  // Writes `body`'s ops, its arguments being `arguments`; `returned` gets
  // the values its terminator names. False (with needs_whole_program set)
  // when an op depends on the device outside a manual region.
  Result<bool> PartitionBlock(const stablehlo::Block& body, std::vector<DeviceValue> arguments,
                              std::vector<DeviceValue>& returned);
  std::string needs_whole_program;

  // The functions the written ops call, and those they call.
  std::set<std::string, std::less<>> called;

  // The per-shard computations of custom calls partitioned by their rules,
  // and the targets whose rules did.
  std::vector<std::string> custom_functions;
  std::set<std::string, std::less<>> custom_rule_targets;

  // Writes `op` as `rewrite` says, noting the functions it calls.
  std::vector<std::string> Emit(const stablehlo::Operation& op, stablehlo::OpRewrite rewrite);

  // Notes every function `op` names (a func.call's callee, a composite's
  // decomposition, a custom call's called_computations, run_parallel's
  // programs: any symbol reference among its attributes), and those the
  // named functions name in turn.
  void NoteCalls(const stablehlo::Operation& op);
  void NoteFunction(std::string_view name);
  void NoteSymbols(const stablehlo::Attribute* attr);

  // Writes `op`'s per-device form; false when the op depends on the device
  // outside a manual region (the module then runs whole on every device).
  Result<bool> Partition(const stablehlo::Operation& op);

 private:
  static bool IsConstraint(const stablehlo::Operation& op);

  // The layout a constraint asks for, where the partitioner can hold it: a
  // tiled sharding over every partition; else replicated (the value is the
  // same, only where it lives differs).
  Result<Sharding> ConstraintSharding(const stablehlo::Operation& op);

  // The mesh a Shardy sharding names (its own, when inline).
  Result<const Mesh*> MeshOf(const ShardySharding& parsed) const;

  // `sharding` where the partitioner can hold it for a value of `type` (a
  // tiled layout over every partition); else replicated.
  Result<Sharding> Holdable(Sharding sharding, const stablehlo::Type& type) const;
  Status Constrain(const stablehlo::Operation& op);

  // Elementwise ops keep the layout of their first evenly tiled operand (or,
  // when none divides evenly, of their first tiled one); the others follow
  // it. With padding, results whose op does not map zeros to zero get
  // their padding zeroed.
  bool Elementwise(const stablehlo::Operation& op);

  // dot_general: each device multiplies the parts it holds when the
  // operands' batch and contracting cuts agree; where they do not, the
  // cheaper operand is resharded to match the other; split contracting
  // dims end in an all-reduce.
  bool DotGeneral(const stablehlo::Operation& op);

  // `result` from the partial results `partial`, which combine over each of
  // `groups`: a reduce_scatter where a later use wants the result cut so
  // that each group member keeps one piece (1/k of an all_reduce's
  // traffic, and no slice after it), else an all_reduce.
  DeviceValue Combined(const stablehlo::Value* result, DeviceValue partial,
                       const std::vector<std::vector<int64_t>>& groups, std::string_view combiner);

  // The op on the given local operands, its results laid out as `results`
  // says; returns their names.
  std::vector<std::string> EmitLocal(const stablehlo::Operation& op, const std::vector<DeviceValue>& operands,
                                     const std::vector<Sharding>& results);

  // The value of `operand` if it is a static tensor tiled evenly (or, with
  // `padded`, at all).
  std::optional<DeviceValue> TiledOperand(const stablehlo::Value* operand, bool padded = false);

  // transpose: the operand's cuts (and its padding) move with its
  // dimensions.
  bool Transpose(const stablehlo::Operation& op);

  // broadcast_in_dim: the operand's cuts land on the dimensions it maps to;
  // the new dimensions are whole. Where a later use wants the result cut
  // (backward propagation) and the operand's part for that lies inside
  // what each device holds, each device broadcasts straight into its part
  // of the wanted layout (its operand sliced to match, locally).
  bool BroadcastInDim(const stablehlo::Operation& op);

  // `value` with its cuts kept on the dimensions `keep` marks and the
  // others made whole (gathered); nullopt when it is not an evenly tiled or
  // replicated static tensor.
  std::optional<DeviceValue> KeepingCutsOn(const stablehlo::Value* value, const std::vector<bool>& keep);
  using Triple = std::array<int64_t, 3>;

  // For an op of static operand 0 and result and three per-dimension
  // attributes `names`: the dimensions d where they read `whole(d)` (the op
  // leaves them whole); nullopt when the attributes do not fit the rank.
  template <typename WholeTriple>
  std::optional<std::vector<bool>> DimsLeftWhole(const stablehlo::Operation& op,
                                                 const std::array<const char*, 3>& names, WholeTriple whole) const;

  // slice: dimensions taken whole (from 0 to the end, stride 1) keep their
  // cuts, each device slicing its own part; the others are gathered first.
  bool Slice(const stablehlo::Operation& op);

  // reverse: dimensions not reversed keep their cuts, each device reversing
  // its own part; the reversed ones are gathered first.
  bool Reverse(const stablehlo::Operation& op);

  // dynamic_slice: dimensions taken whole (slice size = the dimension; the
  // start is then clamped to 0 whatever it says) keep their cuts, each
  // device taking its own part; the others are gathered first.
  bool DynamicSlice(const stablehlo::Operation& op);

  // dynamic_slice taking one element along dimensions the operand cuts
  // (x[i] of an array cut along its first dimension), every other cut
  // dimension taken whole: each device clamps the start as the slice
  // would, shifts it into its part, slices there, zeroes the result unless
  // it holds that element, and one all_reduce (or reduce_scatter) over the
  // devices holding the parts adds them up. The operand never moves.
  bool DynamicSliceOfCutDims(const stablehlo::Operation& op, std::span<const int64_t> shape,
                             std::span<const int64_t> sizes);

  // gather: the indices' batch dimensions (all but index_vector_dim and
  // the start_indices_batching_dims, whose positions pick operand batches)
  // keep their cuts, landing on the result's batch dimensions; the operand
  // is whole on every device, so each gathers for its own indices with no
  // communication. Other cuts of the indices are gathered first.
  bool Gather(const stablehlo::Operation& op);

  // gather from a table cut only along dimensions the indices pick single
  // rows of (collapsed, slice size 1: an embedding table cut by vocabulary):
  // each device clamps the indices into the table as the gather would,
  // shifts them into its own part, gathers there, zeroes the rows it does
  // not hold, and one all_reduce (sum; a reduce_scatter where the result is
  // wanted cut) over the devices holding the table's parts adds them up.
  // The indices' batch cuts land on the result as in the rule below. Taken
  // when the result's part is smaller than the table.
  bool GatherFromCutTable(const stablehlo::Operation& op, const stablehlo::GatherDimensionNumbers& numbers,
                          const std::vector<int64_t>& batch, const std::vector<bool>& keep);

  // scatter whose update computation only adds (one input): the indices'
  // scatter dimensions (all but index_vector_dim and the
  // scatter_indices_batching_dims) keep their cuts, the updates laid out
  // alike along their scatter dimensions (window dimensions whole). Each
  // device scatters its own updates into zeros, one all_reduce (sum) over
  // the devices holding different parts of the indices adds the partial
  // results, and the input is added to the sum: input + (sum of the
  // updates landing on an element) is what the scatter computes, the
  // additions in another order. The result is whole.
  bool ScatterAdd(const stablehlo::Operation& op);

  // Whether every value a while carries is a static tensor (the while rule
  // lays each out); tokens and dynamic shapes run the loop whole.
  static bool LoopCarriable(const stablehlo::Operation& op);

  // Whether an if's or case's results are static tensors (each branch
  // returns them on a layout); else the op runs whole.
  static bool BranchesCarriable(const stablehlo::Operation& op);

  // while: each carried value keeps the layout it enters with (when evenly
  // tiled; else whole); the condition and the body are partitioned as
  // regions of their own on those layouts, the condition's flag made whole
  // and the body's results resharded to them, so every iteration sees the
  // same layouts. What the regions use from outside is resharded inside
  // them, as their ops ask.
  Status While(const stablehlo::Operation& op);

  // Values from outside a loop that its regions would reshard on every
  // iteration are resharded once before it: `write_regions` runs once as a
  // rehearsal, noting the layouts it asks of outer values, and everything
  // it wrote or changed is then undone.
  template <typename WriteRegions>
  void HoistLoopInvariantReshards(WriteRegions write_regions);

  // Writes `block` as the block of a region of the op being written: its
  // arguments named afresh on the layouts of `arguments`, its ops, and a
  // return of its results, each resharded to results[i] where given (as
  // they come where not); returns what it returned. What is made inside
  // (values, resharded outer values) is not seen after it.
  Result<std::vector<DeviceValue>> WriteRegionBlock(const stablehlo::Block& block,
                                                    const std::vector<DeviceValue>& arguments,
                                                    const std::vector<std::optional<Sharding>>& results);

  // if and case: each branch is partitioned as a region of its own; the
  // results take the layouts the first branch returns them in, and the
  // other branches reshard theirs to match. The predicate or index is
  // whole.
  Status Branches(const stablehlo::Operation& op);

  // dynamic_update_slice: dimensions the update covers whole keep their
  // cuts (the update laid out alike there), each device updating its own
  // part; the others are gathered first.
  bool DynamicUpdateSlice(const stablehlo::Operation& op);

  // pad: dimensions without padding keep their cuts; the others are
  // gathered first.
  bool Pad(const stablehlo::Operation& op);

  // concatenate: every operand takes the layout of the first one tiled
  // (the concatenated dimension whole); the result keeps it.
  bool Concatenate(const stablehlo::Operation& op);

  // reshape: the dimensions split into groups of equal element counts
  // (operand [6, 4] -> result [2, 3, 4]: {6} -> {2, 3}, {4} -> {4}); a
  // group whose only cut is t tiles of its major operand dimension, where
  // t divides its major result dimension, keeps that cut there (each
  // device holds the same run of the group's elements either way); the
  // other groups are gathered first.
  bool Reshape(const stablehlo::Operation& op);

  // reduce of one array: each device reduces what it holds; the kept
  // dimensions keep their cuts; where reduced dimensions are cut, the
  // partial results are combined with an all_reduce of the same op, which
  // needs the init value to be that op's identity.
  bool Reduce(const stablehlo::Operation& op);

  // The layout the same-shaped `values` all take when the dimensions `keep`
  // leaves out must be whole: the first tiled one's with those dimensions
  // gathered; nullopt when none is tiled (or one cannot be held).
  std::optional<Sharding> CommonLayoutKeeping(const std::vector<const stablehlo::Value*>& values,
                                              const std::vector<bool>& keep);

  // Whether `values` are static tensors of one shape.
  static bool SameStaticShapes(const std::vector<const stablehlo::Value*>& values);

  // reduce of any body over one or more arrays (variadic: argmax's values
  // and indices), where the Reduce rule does not apply: the reduced
  // dimensions are gathered, so each device holds them whole and reduces
  // its own part of the kept ones with no communication; the results keep
  // the kept dimensions' cuts.
  bool ReduceOverWholeDims(const stablehlo::Operation& op);

  // sort: the sorted dimension is gathered, the others keep their cuts
  // (every operand on the first tiled one's layout); each device sorts its
  // own rows.
  bool Sort(const stablehlo::Operation& op);

  // convolution, data parallel: an input cut along its batch dimension keeps
  // that cut on the output's batch dimension, the kernel whole; or model
  // parallel: a kernel cut along its output features (with no feature
  // groups) cuts the output's features, the input whole. Each device
  // convolves what it holds with no communication. Other cuts are gathered
  // first; batch groups run whole.
  bool Convolution(const stablehlo::Operation& op);
  bool IsManual(const stablehlo::Value* value) const;

  // Whether `op` uses a manual value, directly or in its regions.
  bool TouchesManual(const stablehlo::Operation& op) const;

  // The ops that open, close or are a shard_map region, in any of the
  // three forms: sdy.manual_computation, GSPMD's @SPMDFullToShardShape /
  // @SPMDShardToFullShape, XLA's round-trip @xla.sdy.GlobalToLocalShape /
  // LocalToGlobalShape.
  static bool IsShardMapStep(const stablehlo::Operation& op);
  static bool IsGspmdShardMap(const stablehlo::Operation& op, std::string_view target);

  // Writes a shard_map step; false when an automatic body needs the whole
  // program.
  Result<bool> ShardMapStep(const stablehlo::Operation& op);

  // `value` as a value of a manual region: each device's own (a value
  // from outside the region whole on every device).
  DeviceValue AsManual(const stablehlo::Value* value);

  // A shard_map operand entering the region: laid out as `layout` (its cuts
  // along the region's manual axes; free axes leave it whole), each
  // device's part becomes its value of the body, of type `shard`. An
  // operand that is already a region's value (a shard_map nested in
  // another) is each device's whole block, cut further in place.
  Result<DeviceValue> EnterManual(const stablehlo::Value* operand, const Sharding& layout, const stablehlo::Type& shard,
                                  const std::string& where);

  // A body's returned `part` leaving the region as each device's part of a
  // value of `type` laid out as `layout`. Leaving a region nested in
  // another, the parts are gathered into each device's whole block of the
  // enclosing region (the groups share its manual coordinates: they are
  // the replicas of `layout`).
  Result<DeviceValue> LeaveManual(const DeviceValue& part, const stablehlo::Type& type, const Sharding& layout,
                                  bool nested, const std::string& where);

  // A manual region's ops, each device's own code: written as they are,
  // but for the shard_maps nested in the region (which cut its values
  // further) and calls of functions holding them (written in place).
  Status ManualBlock(const stablehlo::Block& block, std::vector<DeviceValue> arguments,
                     std::vector<DeviceValue>& returned);

  // The function `op` calls when it holds shard_map regions (a round-trip
  // shard_map's body with another nested in it); else null.
  const stablehlo::Function* CalleeWithRegions(const stablehlo::Operation& op) const;

  // A call inside a manual region, written in place.
  Status ManualCall(const stablehlo::Operation& op, const stablehlo::Function& callee);

  // A GSPMD sharding inside a region: its manual subgroup is the region's
  // devices, each holding its own block; the layout it gives the blocks is
  // the other tiles' (the manual subgroup read as replicas).
  static Result<Sharding> WithinRegion(const Sharding& sharding);
  static bool HasManualSubgroup(const Sharding& sharding);

  // @SPMDFullToShardShape: the operand, cut as its layout says, becomes each
  // device's own value of the region (its shard, as the result's shape). A
  // partially manual region's operand arrives cut along the manual axes
  // only. Nested in another region, the operand's @Sharding (its manual
  // subgroup the enclosing region's) says how each block is cut.
  Status FullToShard(const stablehlo::Operation& op);

  // @SPMDShardToFullShape: each device's value of the region is its part of
  // the global result, laid out as the op's sharding says; a sharding with
  // a manual subgroup leaves a region nested in another.
  Status ShardToFull(const stablehlo::Operation& op);

  // A shard_map's in- or out_shardings (`name`), one per value of `count`.
  static Result<std::vector<ShardySharding>> ShardingsPerValue(std::string_view text, size_t count,
                                                              std::string_view name, const std::string& where);

  // XLA's round-trip form of a Shardy shard_map: @xla.sdy.GlobalToLocalShape
  // (the in_shardings and manual_axes among its frontend attributes) cuts
  // the operands into each device's shards, a call of the body function
  // runs on them as written, and @xla.sdy.LocalToGlobalShape (the
  // out_shardings) makes each device's results its parts of the global
  // ones. Newer exports (@local_xla.sdy.*) keep all three attributes on
  // the call instead.
  static bool IsRoundTripShardMap(const stablehlo::Operation& op, std::string_view step);

  // The frontend attribute `name` (a string) of `op`, or of `call` where
  // `op` lacks it; nullopt when neither has it.
  static Result<std::optional<std::string>> RoundTripAttribute(const stablehlo::Operation& op,
                                                               const stablehlo::Operation* call, std::string_view name);

  // The manual axes and the layouts a round-trip GlobalToLocalShape's
  // operands (its in_shardings) or a LocalToGlobalShape's results (its
  // out_shardings) take, read from the op or its body call.
  Result<std::vector<Sharding>> RoundTripLayouts(const stablehlo::Operation& op, bool global_to_local,
                                                 std::vector<std::string>& manual_axes);

  // The body call a round-trip GlobalToLocalShape's results go to, or the
  // one a LocalToGlobalShape's operands come from; nullptr when none.
  static const stablehlo::Operation* BodyCall(const stablehlo::Operation& op, bool global_to_local);
  Status RoundTripGlobalToLocal(const stablehlo::Operation& op);
  Status RoundTripLocalToGlobal(const stablehlo::Operation& op);

  // Refuses a region's manual axes where an enclosing region made one of
  // them manual already.
  Status CheckAxesNotManual(const std::vector<std::string>& manual_axes, const std::string& where) const;

  // The layout a shard_map's in- or out_sharding gives a value of `type`
  // on its mesh (which must span the program's partitions): with manual
  // axes, its cuts along them only. The free axes of a partially manual
  // computation leave the body's values whole: each device runs the body on
  // its manual block, the devices along free axes alike (slower than
  // partitioning the body along them, never wrong). With no manual axes
  // (the body is ordinary code), the whole sharding.
  Result<Sharding> ManualLayout(const ShardySharding& sharding, const stablehlo::Type& type,
                                const std::vector<std::string>& manual_axes, const std::string& where) const;

  // sdy.manual_computation (Shardy's shard_map). With manual axes (every
  // axis of more than one device): each operand laid out as its in_sharding
  // says becomes each device's shard, the body runs as written on the
  // shards, and each returned shard is that device's part of the result as
  // its out_sharding lays it out. With no manual axes the body is ordinary
  // code: partitioned in place, its operands and results constrained to the
  // shardings given. False when the body needs the whole program.
  Result<bool> ManualComputation(const stablehlo::Operation& op);
  const CustomCallRule* RuleFor(const stablehlo::Operation& op) const;

  // The layout the only user of `value` asks for: a sharding constraint's,
  // or the entry result's it is returned as; nullopt when none asks.
  std::optional<Sharding> UserSharding(const stablehlo::Value* value);

  // A custom call whose target has a partitioning rule (custom_rules.hpp):
  // the rule chooses the results' layouts and writes the per-shard
  // computation, called here as a private function of the per-device module.
  Status CustomCall(const stablehlo::Operation& op, const CustomCallRule& rule);

  // A layout a rule gave for a value of `type`: replicated, or tiled over
  // every partition cutting the value evenly.
  Result<Sharding> Checked(const Sharding& sharding, const stablehlo::Type& type, const std::string& what) const;

  // Whether `value`'s layout cuts it evenly into shards of `shard` type.
  static Status CheckShards(const DeviceValue& value, const stablehlo::Type& shard, const std::string& where);

  // Inside a manual region ops run as written, on each device's own values.
  void AsWritten(const stablehlo::Operation& op);

  // The function a func.call calls, when it can be partitioned in place
  // (it has a body and is not already being partitioned); else null.
  const stablehlo::Function* Inlinable(const stablehlo::Operation& op) const;
  static std::string Where(const stablehlo::Operation& op);

  // No rule: the op runs whole on every device, on whole operands (and
  // whole values its regions use from outside).
  void Whole(const stablehlo::Operation& op);

  // Whole and AsWritten: `op` written as it is, its operands whole (inside
  // a manual region a region's values as each device holds them), its
  // results replicated (or, inside, each device's own).
  void Unpartitioned(const stablehlo::Operation& op, bool in_manual_region);

  // The values `block` uses that it and the blocks inside it do not define,
  // named by their whole layouts.
  void CollectOuter(const stablehlo::Block& block, std::unordered_set<const stablehlo::Value*>& inner,
                    std::unordered_map<const stablehlo::Value*, std::string>& outer);
  const stablehlo::Module& module_;
  const std::map<std::string, Mesh, std::less<>>& meshes_;
  const EntryContext& entry_;
  DeviceProgram& program_;
  Status error_;
  std::unordered_set<const stablehlo::Function*> call_stack_;
  std::unordered_map<const stablehlo::Value*, std::vector<DeviceValue>> layouts_;
  WantedLayouts wanted_;

  // While a loop's regions are rehearsed: the values defined before it,
  // and the layouts asked of them there.
  struct Hoist {
    const std::unordered_map<const stablehlo::Value*, std::vector<DeviceValue>>& outer;
    std::vector<std::pair<const stablehlo::Value*, Sharding>> asked;
  };
  Hoist* hoist_ = nullptr;

  // The manual axes of the sdy.manual_computation regions around the op
  // being written, and of the round-trip shard_maps entered and not yet
  // left, outermost first.
  std::vector<std::vector<std::string>> open_manual_axes_;
};

}  // namespace berth::spmd::internal

#endif  // BERTH_SPMD_SRC_OP_PARTITIONER_HPP_
