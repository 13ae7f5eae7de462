#include "custom_partitioner/custom_partitioner_module.hpp"

#include <set>

#include "berth/log.hpp"
#include "common/sha256.hpp"
#include "custom_partitioner/custom_partitioner_client.hpp"

namespace berth::ext::custom_partitioner {

ModuleOutcome CustomPartitionerModule::Load(const core::Manifest& manifest, const core::LoadOptions& options) {
  const std::string where = "extension module '" + manifest.name + "' (" + manifest.path.string() + ")";
  core::LibraryFileOutcome file = core::OpenLibraryFile(manifest, where);
  if (!file.library) return ModuleFailure(file.reason, std::move(file.message));
  boost::dll::fs::error_code located;
  const boost::dll::fs::path location = file.library->location(located);
  Result<std::string> digest = located ? Result<std::string>(InternalError(located.message()))
                                       : common::Sha256File(location.string());
  if (!digest.ok()) {
    return ModuleFailure(reason::kInvalidModule,
                         where + ": cannot read its library to name its rules: " + std::string(digest.status().message()));
  }
  std::shared_ptr<CustomPartitionerModule> module(
      new CustomPartitionerModule(manifest, options, std::move(file.library)));
  boost::dll::shared_library& library = module->library();
  if (!library.has(BERTH_CUSTOM_PARTITIONER_GET_MODULE_SYMBOL)) {
    return ModuleFailure(reason::kInvalidModule, where + ": its library does not export " +
                                                     BERTH_CUSTOM_PARTITIONER_GET_MODULE_SYMBOL);
  }
  Result<const BERTH_CustomPartitioner_Module*> read = ReadModuleTable<BERTH_CustomPartitioner_Module>(
      library, BERTH_CUSTOM_PARTITIONER_GET_MODULE_SYMBOL, BERTH_CustomPartitioner_Module_STRUCT_SIZE,
      "BERTH_CustomPartitioner_Module", "custom_partitioner", BERTH_CUSTOM_PARTITIONER_EXTENSION_VERSION, where);
  if (!read.ok()) return ModuleFailure(reason::kInvalidModule, std::string(read.status().message()));
  const BERTH_CustomPartitioner_Module* table = *read;
  if (table->num_rules == 0 || table->rules == nullptr) {
    return ModuleFailure(reason::kInvalidModule, where + ": its rule table is empty");
  }
  std::set<std::string> targets;
  for (size_t i = 0; i < table->num_rules; ++i) {
    const BERTH_CustomPartitioner_Rule& rule = table->rules[i];
    const std::string index = "rule " + std::to_string(i);
    if (rule.struct_size < BERTH_CustomPartitioner_Rule_STRUCT_SIZE || rule.target == nullptr ||
        rule.target_size == 0 || rule.partition == nullptr) {
      return ModuleFailure(reason::kInvalidModule,
                           where + ": " + index + " is smaller than BERTH_CustomPartitioner_Rule or has no "
                                              "target or partition callback");
    }
    const std::string target(rule.target, rule.target_size);
    if (!targets.insert(target).second) {
      return ModuleFailure(reason::kInvalidModule, where + ": target '" + target + "' is given twice");
    }
    module->rules_.push_back({rule, RuleIdentity(target, "library sha256 " + *digest)});
  }
  Log(LogLevel::kInfo, "extensions",
      where + ": loaded " + manifest.library.string() + " with " + std::to_string(module->rules_.size()) +
          " custom partitioning rule(s)");
  return ModuleOutcome{std::move(module), "", ""};
}

NamedValueMap CustomPartitionerModule::Attributes() const {
  return TargetNames("custom_partitioner_targets", rules_, [](const ModuleRule& rule) {
    return std::string_view(rule.rule.target, rule.rule.target_size);
  });
}

Status CustomPartitionerModule::AttachTo(const core::PluginLibrary& library, BERTH_Client* client,
                                         const BERTH_Extension_Base* extension) const {
  const auto* typed = reinterpret_cast<const BERTH_CustomPartitioner_Extension*>(extension);
  AttachRefusals refusals;
  for (const ModuleRule& rule : rules_) {
    refusals.Add(std::string_view(rule.rule.target, rule.rule.target_size),
                 RegisterCRule(library, client, typed, rule.rule, rule.identity).status());
  }
  return refusals.ToStatus();
}

}  // namespace berth::ext::custom_partitioner
