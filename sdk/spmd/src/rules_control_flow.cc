// OpPartitioner's rules for while, if and case: regions written once on
// the layouts their values keep, moves of outside values hoisted out of
// loops.
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

bool OpPartitioner::LoopCarriable(const shlo::Operation& op) {
  return op.num_regions() == 2 && std::all_of(op.operands().begin(), op.operands().end(), [](const shlo::Value* v) {
           return IsStaticTensor(v->type());
         });
}

bool OpPartitioner::BranchesCarriable(const shlo::Operation& op) {
  return op.num_regions() >= 1 && op.num_operands() == 1 &&
         std::all_of(op.results().begin(), op.results().end(),
                     [](const shlo::Value* v) { return IsStaticTensor(v->type()); });
}

Status OpPartitioner::While(const shlo::Operation& op) {
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

template <typename WriteRegions>
void OpPartitioner::HoistLoopInvariantReshards(WriteRegions write_regions) {
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

Result<std::vector<DeviceValue>> OpPartitioner::WriteRegionBlock(const shlo::Block& block,
                                                                 const std::vector<DeviceValue>& arguments,
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

Status OpPartitioner::Branches(const shlo::Operation& op) {
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

}  // namespace berth::spmd::internal
