// The host side of the phase_compile extension (berth/ext/phase_compile.h):
// a plugin's phases, running a range of them with the chain checked first,
// and intermediates as files (intermediate_file.hpp). berth::Client's
// CompilePhases, RunCompilePhases, WriteIntermediate and ReadIntermediate
// forward here.
#ifndef BERTH_EXTENSIONS_PHASE_COMPILE_PHASE_COMPILE_CLIENT_HPP_
#define BERTH_EXTENSIONS_PHASE_COMPILE_PHASE_COMPILE_CLIENT_HPP_

#include <string>
#include <string_view>
#include <vector>

#include "berth/executable.hpp"
#include "berth/ext/phase_compile.h"
#include "berth/status.hpp"
#include "loader/plugin_library.hpp"

namespace berth::ext::phase_compile {

// A plugin client with its phase_compile struct (NULL when the plugin lacks
// it: every call is UNIMPLEMENTED naming the plugin).
struct PhaseCompileClient {
  const core::PluginLibrary& library;
  BERTH_Client* client = nullptr;
  const BERTH_PhaseCompile_Extension* extension = nullptr;
  std::string_view platform_name;
  std::string_view platform_version;
};

Result<std::vector<CompilePhase>> ListPhases(const PhaseCompileClient& client);

// Checks the chain from `input` to `until` (Client::RunCompilePhases), then
// runs it; `options` go to every phase.
Result<std::vector<CompileIntermediate>> RunPhases(const PhaseCompileClient& client, const CompileIntermediate& input,
                                                   std::string_view until, const BERTH_CompileOptions* options);

std::string WriteIntermediate(const PhaseCompileClient& client, const CompileIntermediate& intermediate);
Result<CompileIntermediate> ReadIntermediate(const PhaseCompileClient& client, std::string_view bytes,
                                             std::string_view source_name);

}  // namespace berth::ext::phase_compile

#endif  // BERTH_EXTENSIONS_PHASE_COMPILE_PHASE_COMPILE_CLIENT_HPP_
