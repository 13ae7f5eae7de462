// The host side of the abi_version extension (berth/ext/abi_version.h): the
// runtime's ABI versions, and serialized executables in the berth-executable
// container (executable_file.hpp, docs/berth-executable.md).
// berth::Client::abi_versions and Deserialize and berth::Executable::Serialize
// forward here.
#ifndef BERTH_EXTENSIONS_ABI_VERSION_ABI_VERSION_CLIENT_HPP_
#define BERTH_EXTENSIONS_ABI_VERSION_ABI_VERSION_CLIENT_HPP_

#include <string>
#include <string_view>

#include "berth/ext/abi_version.h"
#include "berth/ffi.hpp"
#include "berth/status.hpp"
#include "loader/plugin_library.hpp"

namespace berth::ext::abi_version {

// A plugin client with its abi_version extension struct (NULL when the
// plugin lacks one: every call is UNIMPLEMENTED naming the plugin).
struct AbiVersionClient {
  const core::PluginLibrary& library;
  BERTH_Client* client = nullptr;
  const BERTH_AbiVersion_Extension* extension = nullptr;
  std::string_view platform_name;  // the client's
};

Result<AbiVersions> RuntimeVersions(const AbiVersionClient& client);

// A berth-executable file holding the plugin's payload for `executable`,
// stamped with the runtime's and the executable's ABI versions.
Result<std::string> Serialize(const AbiVersionClient& client, BERTH_LoadedExecutable* executable,
                              std::string_view name);

// Checks a berth-executable file (this plugin and platform, this host's C API
// major, then the plugin's IsCompatible) and loads its payload. Errors name
// `source_name`. The caller owns the executable returned.
Result<BERTH_LoadedExecutable*> DeserializeAndLoad(const AbiVersionClient& client,
                                                   std::string_view bytes,
                                                   std::string_view source_name);

}  // namespace berth::ext::abi_version

#endif  // BERTH_EXTENSIONS_ABI_VERSION_ABI_VERSION_CLIENT_HPP_
