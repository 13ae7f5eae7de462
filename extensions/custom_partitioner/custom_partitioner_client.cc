#include "custom_partitioner/custom_partitioner_client.hpp"

#include <exception>
#include <memory>
#include <utility>

#include "common/sha256.hpp"

namespace berth::ext::custom_partitioner {
namespace {

// The C callbacks' data: the application's rule.
struct RuleData {
  CustomPartitionerRule rule;
};

void DeleteRuleData(void* data) { delete static_cast<RuleData*>(data); }

Result<CustomPartitionerSite> SiteOf(const BERTH_CustomPartitioner_Call& call) {
  CustomPartitionerSite site;
  site.target.assign(call.target ? call.target : "", call.target ? call.target_size : 0);
  BERTH_ASSIGN_OR_RETURN(site.attributes,
                         NamedValuesFromC(call.attributes, call.num_attributes, "custom call attribute"));
  auto values = [](const BERTH_CustomPartitioner_Value* values, size_t count) {
    std::vector<CustomCallValue> out;
    for (size_t i = 0; values != nullptr && i < count; ++i) {
      out.push_back({std::string(values[i].type ? values[i].type : "", values[i].type ? values[i].type_size : 0),
                     std::string(values[i].sharding ? values[i].sharding : "",
                                 values[i].sharding ? values[i].sharding_size : 0)});
    }
    return out;
  };
  site.operands = values(call.operands, call.num_operands);
  site.results = values(call.results, call.num_results);
  site.num_partitions = call.num_partitions;
  return site;
}

BERTH_Error_Code Fail(BERTH_CustomPartitioner_Call* call, const Status& status) {
  if (status.ok()) return BERTH_Error_Code_OK;
  const std::string message(status.message());
  call->report_error(call->error_context, message.data(), message.size());
  return static_cast<BERTH_Error_Code>(status.code());
}

// Runs `step` on the call's site; its exceptions become INTERNAL (nothing
// may cross back into the plugin).
template <typename Step>
BERTH_Error_Code Run(BERTH_CustomPartitioner_Call* call, Step&& step) {
  try {
    Result<CustomPartitionerSite> site = SiteOf(*call);
    if (!site.ok()) return Fail(call, site.status());
    return Fail(call, step(*site));
  } catch (const std::exception& e) {
    return Fail(call, InternalError(std::string("the rule threw: ") + e.what()));
  } catch (...) {
    return Fail(call, InternalError("the rule threw"));
  }
}

void SetAll(BERTH_CustomPartitioner_Call* call, BERTH_CustomPartitioner_Slot slot, const std::vector<std::string>& texts) {
  for (size_t i = 0; i < texts.size(); ++i) {
    if (!texts[i].empty()) call->set_answer(call->answer_context, slot, i, texts[i].data(), texts[i].size());
  }
}

template <CustomShardingsFn CustomPartitionerRule::*kFn>
BERTH_Error_Code Shardings(BERTH_CustomPartitioner_Call* call) {
  return Run(call, [&](const CustomPartitionerSite& site) -> Status {
    BERTH_ASSIGN_OR_RETURN(std::vector<std::string> shardings,
                           (static_cast<RuleData*>(call->rule_data)->rule.*kFn)(site));
    SetAll(call, BERTH_CustomPartitioner_Slot_ResultSharding, shardings);
    return OkStatus();
  });
}

BERTH_Error_Code Partition(BERTH_CustomPartitioner_Call* call) {
  return Run(call, [&](const CustomPartitionerSite& site) -> Status {
    BERTH_ASSIGN_OR_RETURN(CustomPartitioning answer, static_cast<RuleData*>(call->rule_data)->rule.partition(site));
    call->set_answer(call->answer_context, BERTH_CustomPartitioner_Slot_Computation, 0, answer.computation.data(),
                     answer.computation.size());
    SetAll(call, BERTH_CustomPartitioner_Slot_OperandSharding, answer.operand_shardings);
    SetAll(call, BERTH_CustomPartitioner_Slot_ResultSharding, answer.result_shardings);
    return OkStatus();
  });
}

}  // namespace

std::string RuleIdentity(std::string_view target, std::string_view content) {
  std::string bytes(target);
  bytes.push_back('\0');
  bytes.append(content);
  return common::Sha256Hex(bytes);
}

Result<uint64_t> RegisterCRule(const core::PluginLibrary& library, BERTH_Client* client,
                               const BERTH_CustomPartitioner_Extension* extension,
                               const BERTH_CustomPartitioner_Rule& rule, const std::string& identity) {
  if (extension == nullptr) return library.MissingExtension(BERTH_Extension_Type_CustomPartitioner);
  BERTH_CustomPartitioner_Register_Args args{};
  args.struct_size = BERTH_CustomPartitioner_Register_Args_STRUCT_SIZE;
  args.client = client;
  args.rule = &rule;
  args.identity = identity.data();
  args.identity_size = identity.size();
  BERTH_RETURN_IF_ERROR(
      library.CallExtension(extension->register_rule, "BERTH_CustomPartitioner_Register", &args));
  return args.handle;
}

Result<CustomPartitionerHandle> RegisterRule(const core::PluginLibrary& library, BERTH_Client* client,
                                             const BERTH_CustomPartitioner_Extension* extension,
                                             std::string_view target, CustomPartitionerRule rule) {
  const std::string where = "RegisterCustomPartitioner('" + std::string(target) + "'): ";
  if (target.empty()) return InvalidArgumentError("RegisterCustomPartitioner: the target is empty");
  if (!rule.partition) return InvalidArgumentError(where + "the rule has no partition function");
  if (rule.identity.empty()) {
    return InvalidArgumentError(where + "the rule has no identity (text that changes when the rule does, "
                                        "e.g. its version)");
  }
  if (extension == nullptr) return library.MissingExtension(BERTH_Extension_Type_CustomPartitioner);
  if (extension->register_rule == nullptr) {
    return UnimplementedError("plugin '" + library.name() + "' does not implement BERTH_CustomPartitioner_Register");
  }
  CustomPartitionerHandle handle;
  handle.target = std::string(target);
  handle.identity = RuleIdentity(target, rule.identity);
  BERTH_CustomPartitioner_Rule c_rule{};
  c_rule.struct_size = BERTH_CustomPartitioner_Rule_STRUCT_SIZE;
  c_rule.target = handle.target.data();
  c_rule.target_size = handle.target.size();
  if (rule.infer_result_shardings) c_rule.infer_result_shardings = Shardings<&CustomPartitionerRule::infer_result_shardings>;
  if (rule.propagate_user_sharding) {
    c_rule.propagate_user_sharding = Shardings<&CustomPartitionerRule::propagate_user_sharding>;
  }
  c_rule.partition = Partition;
  c_rule.rule_data = new RuleData{std::move(rule)};
  BERTH_CustomPartitioner_Register_Args args{};
  args.struct_size = BERTH_CustomPartitioner_Register_Args_STRUCT_SIZE;
  args.client = client;
  args.rule = &c_rule;
  args.identity = handle.identity.data();
  args.identity_size = handle.identity.size();
  args.release_data = DeleteRuleData;  // the plugin releases it, also when it refuses
  BERTH_RETURN_IF_ERROR(
      library.CallExtension(extension->register_rule, "BERTH_CustomPartitioner_Register", &args));
  handle.id = args.handle;
  return handle;
}

Status UnregisterRule(const core::PluginLibrary& library, BERTH_Client* client,
                      const BERTH_CustomPartitioner_Extension* extension, const CustomPartitionerHandle& handle) {
  if (extension == nullptr) return library.MissingExtension(BERTH_Extension_Type_CustomPartitioner);
  BERTH_CustomPartitioner_Unregister_Args args{};
  args.struct_size = BERTH_CustomPartitioner_Unregister_Args_STRUCT_SIZE;
  args.client = client;
  args.handle = handle.id;
  return library.CallExtension(extension->unregister_rule, "BERTH_CustomPartitioner_Unregister", &args);
}

}  // namespace berth::ext::custom_partitioner
