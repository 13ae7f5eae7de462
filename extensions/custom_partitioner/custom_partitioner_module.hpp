// A custom_partitioner extension module (a manifest of kind "extension",
// type "custom_partitioner") with its library open: the rules it exports
// through BERTH_CustomPartitioner_GetModule. Attached to a client, every
// rule is registered with it. A rule's identity is the SHA-256 of its target
// and the library file's own SHA-256: the content that serves it.
#ifndef BERTH_EXTENSIONS_CUSTOM_PARTITIONER_CUSTOM_PARTITIONER_MODULE_HPP_
#define BERTH_EXTENSIONS_CUSTOM_PARTITIONER_CUSTOM_PARTITIONER_MODULE_HPP_

#include <string>
#include <vector>

#include "berth/ext/custom_partitioner.h"
#include "extension_module.hpp"

namespace berth::ext::custom_partitioner {

struct ModuleRule {
  BERTH_CustomPartitioner_Rule rule;  // the module's; static
  std::string identity;
};

class CustomPartitionerModule final : public ExtensionModule {
 public:
  // Opens the library and reads its rules. Fails (with a reason and a
  // sentence naming the file and the fix) for a library that cannot be
  // opened, one without BERTH_CustomPartitioner_GetModule, a table of
  // another extension version, a rule without target or partition
  // callback, or a target given twice.
  static ModuleOutcome Load(const core::Manifest& manifest, const core::LoadOptions& options);

  const std::vector<ModuleRule>& rules() const { return rules_; }
  // "custom_partitioner_targets": the targets, comma-separated.
  NamedValueMap Attributes() const override;
  // Registers every rule with the client; a target the client refuses (it
  // has a rule) does not stop the others; the error lists every refusal.
  Status AttachTo(const core::PluginLibrary& library, BERTH_Client* client,
                  const BERTH_Extension_Base* extension) const override;

 private:
  using ExtensionModule::ExtensionModule;

  std::vector<ModuleRule> rules_;
};

}  // namespace berth::ext::custom_partitioner

#endif  // BERTH_EXTENSIONS_CUSTOM_PARTITIONER_CUSTOM_PARTITIONER_MODULE_HPP_
