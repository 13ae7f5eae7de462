// What the loader would say of one manifest's library, found out without
// risking the caller: `berth validate` opens, checks and initializes the
// library exactly as `berth plugins --load` does (PluginLibrary::Load, or
// ext::LoadExtensionModule for a module), but in a child process.
#ifndef BERTH_HOST_CLI_LOAD_CHECK_HPP_
#define BERTH_HOST_CLI_LOAD_CHECK_HPP_

#include <chrono>
#include <string>

#include "manifest/manifest.hpp"

namespace berth::cli {

struct LoadCheck {
  bool loaded = false;
  std::string reason;              // the loader's reason code when not loaded
  std::string message;             // and its sentence
  std::string negotiated_version;  // "1.2" when a plugin loaded
};

// Runs the loader on `manifest` in a child process that has `timeout` to
// answer. The child's log lines are not printed (the reason and message say
// what the loader would have logged). A child that dies or stalls gives
// core::reason::kLoadCrashed or kLoadTimeout.
LoadCheck CheckLoadInChild(const core::Manifest& manifest, std::chrono::seconds timeout);

}  // namespace berth::cli

#endif  // BERTH_HOST_CLI_LOAD_CHECK_HPP_
