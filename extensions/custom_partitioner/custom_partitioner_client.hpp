// The host side of the custom_partitioner extension
// (berth/ext/custom_partitioner.h): registering an application's C++ rules
// (berth/custom_partitioner.hpp) with a plugin client, and unregistering
// them. berth::Client::RegisterCustomPartitioner and
// UnregisterCustomPartitioner forward here.
#ifndef BERTH_EXTENSIONS_CUSTOM_PARTITIONER_CUSTOM_PARTITIONER_CLIENT_HPP_
#define BERTH_EXTENSIONS_CUSTOM_PARTITIONER_CUSTOM_PARTITIONER_CLIENT_HPP_

#include <string>
#include <string_view>

#include "berth/custom_partitioner.hpp"
#include "berth/ext/custom_partitioner.h"
#include "berth/status.hpp"
#include "loader/plugin_library.hpp"

namespace berth::ext::custom_partitioner {

// The identity of a rule: SHA-256 hex of its target and the text standing
// for its content, so equal rules registered anywhere name themselves alike.
std::string RuleIdentity(std::string_view target, std::string_view content);

// `extension` is the plugin's struct, NULL when it lacks one (UNIMPLEMENTED
// naming the plugin). INVALID_ARGUMENT for an empty target, no partition
// function or no identity; the plugin's ALREADY_EXISTS for a taken target.
Result<CustomPartitionerHandle> RegisterRule(const core::PluginLibrary& library, BERTH_Client* client,
                                             const BERTH_CustomPartitioner_Extension* extension,
                                             std::string_view target, CustomPartitionerRule rule);

// Registers a C rule (an extension module's) under `identity`; its data is
// not released. Returns the handle.
Result<uint64_t> RegisterCRule(const core::PluginLibrary& library, BERTH_Client* client,
                               const BERTH_CustomPartitioner_Extension* extension,
                               const BERTH_CustomPartitioner_Rule& rule, const std::string& identity);

Status UnregisterRule(const core::PluginLibrary& library, BERTH_Client* client,
                      const BERTH_CustomPartitioner_Extension* extension, const CustomPartitionerHandle& handle);

}  // namespace berth::ext::custom_partitioner

#endif  // BERTH_EXTENSIONS_CUSTOM_PARTITIONER_CUSTOM_PARTITIONER_CLIENT_HPP_
