#include "cli/load_check.hpp"

#include <nlohmann/json.hpp>

#include "berth/log.hpp"
#include "common/child_process.hpp"
#include "extension_module.hpp"
#include "client/client_state.hpp"
#include "loader/plugin_library.hpp"

namespace berth::cli {
namespace {

using common::ChildOutcome;
using common::SendLine;
using core::LoadOptions;
using core::Manifest;
using core::ManifestKind;
namespace reason = core::reason;

// In the child: the loader's verdict as one JSON line.
void LoadInChild(const Manifest& manifest, const SendLine& send) {
  SetLogSink([](LogLevel, std::string_view, std::string_view) {});
  nlohmann::json verdict;
  if (manifest.kind == ManifestKind::kExtension) {
    ext::ModuleOutcome outcome = ext::LoadExtensionModule(manifest, LoadOptions{});
    verdict = {{"loaded", outcome.module != nullptr},
               {"reason", outcome.reason},
               {"message", outcome.message}};
  } else {
    core::LoadOutcome outcome = core::PluginLibrary::Load(manifest, LoadOptions{});
    verdict = {{"loaded", outcome.library != nullptr},
               {"reason", outcome.reason},
               {"message", outcome.message}};
    if (outcome.library) {
      verdict["negotiated_version"] = outcome.library->NegotiatedVersion();
      // A client with the manifest's options says which platform the
      // library is; one that cannot be made here says nothing.
      Result<std::shared_ptr<core::ClientState>> client =
          core::ClientState::Create(outcome.library, manifest.create_options, nullptr);
      if (client.ok() && (*client)->platform_name != manifest.platform) {
        verdict = {{"loaded", false},
                   {"reason", std::string(reason::kPlatformMismatch)},
                   {"message", core::PlatformMismatchMessage(manifest, (*client)->platform_name)}};
      }
    }
  }
  send(verdict.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace

LoadCheck CheckLoadInChild(const Manifest& manifest, std::chrono::seconds timeout) {
  const std::string what = std::string(manifest.kind == ManifestKind::kExtension
                                           ? "extension module '"
                                           : "plugin '") +
                           manifest.name + "' (" + manifest.path.string() + ")";
  LoadCheck check;
  Result<ChildOutcome> child = common::RunInChild(
      [&](const SendLine& send) { LoadInChild(manifest, send); }, timeout);
  if (!child.ok()) {
    check.reason = std::string(reason::kLoadCrashed);
    check.message = what + ": cannot start a process to open the library: " +
                    std::string(child.status().message());
    return check;
  }
  nlohmann::json verdict;
  if (!child->lines.empty()) verdict = nlohmann::json::parse(child->lines.back(), nullptr, false);
  if (!verdict.is_object()) {
    check.reason = std::string(child->timed_out ? reason::kLoadTimeout : reason::kLoadCrashed);
    check.message = what + ": while opening and initializing " + manifest.library.string() +
                    " the checking process " +
                    (child->exited_cleanly ? std::string("exited without an answer") : child->end) +
                    (child->timed_out ? "; a host loading it would stall there"
                                      : "; a host loading it would go down with it") +
                    ". Skipped.";
    return check;
  }
  check.loaded = verdict.value("loaded", false);
  check.reason = verdict.value("reason", "");
  check.message = verdict.value("message", "");
  check.negotiated_version = verdict.value("negotiated_version", "");
  return check;
}

}  // namespace berth::cli
