// OpPartitioner on custom calls whose targets have registered partitioning
// rules (berth/spmd/custom_rules.hpp).
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

const CustomCallRule* OpPartitioner::RuleFor(const shlo::Operation& op) const {
  if (op.kind() != OpKind::kCustomCall) return nullptr;
  auto found = entry_.rules.find(op.call_target_name());
  return found == entry_.rules.end() ? nullptr : found->second.get();
}

std::optional<Sharding> OpPartitioner::UserSharding(const shlo::Value* value) {
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

Status OpPartitioner::CustomCall(const shlo::Operation& op, const CustomCallRule& rule) {
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
  std::string name =
      "berth.custom." + std::string(op.call_target_name()) + "." + std::to_string(custom_functions.size());
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

Result<Sharding> OpPartitioner::Checked(const Sharding& sharding, const shlo::Type& type,
                                        const std::string& what) const {
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

}  // namespace berth::spmd::internal
