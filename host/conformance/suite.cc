#include <dlfcn.h>
#include <stdlib.h>

#include "conformance/suite_context.hpp"
#include "manifest/manifest.hpp"

namespace berth::conformance {

std::string_view OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPass: return "pass";
    case Outcome::kFail: return "fail";
    case Outcome::kSkip: return "skip";
  }
  return "fail";
}

bool Report::passed() const {
  for (const CheckResult& result : results) {
    if (result.outcome == Outcome::kFail) return false;
  }
  return !results.empty();
}

namespace {

// The plugin's optional count of live objects (BERTH_Debug_LiveObjects, an
// exported `int64_t (void)`); nullopt when it exports none.
std::optional<int64_t> LiveObjects(const std::filesystem::path& library) {
  void* handle = ::dlopen(library.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return std::nullopt;
  auto* fn = reinterpret_cast<int64_t (*)()>(::dlsym(handle, "BERTH_Debug_LiveObjects"));
  std::optional<int64_t> count;
  if (fn != nullptr) count = fn();
  ::dlclose(handle);
  return count;
}

}  // namespace

Result<Report> Run(const std::filesystem::path& manifest_path,
                   const std::function<void(const CheckResult&)>& on_result) {
  host::ManifestParseResult parsed = host::LoadManifestFile(manifest_path);
  if (!parsed.manifest) {
    return InvalidArgumentError("manifest " + manifest_path.string() + ": " + parsed.error.message);
  }
  if (parsed.manifest->kind != host::ManifestKind::kPlugin) {
    return InvalidArgumentError(manifest_path.string() +
                                " describes an extension module; the suite runs on plugins");
  }
  const host::Manifest& manifest = *parsed.manifest;
  Report report;
  report.plugin = manifest.name;
  report.manifest = manifest_path.string();
  auto emit = [&](CheckResult result) {
    if (on_result) on_result(result);
    report.results.push_back(std::move(result));
  };

  // A host that sees this manifest only.
  std::optional<std::string> old_path;
  if (const char* value = ::getenv("BERTH_PLUGIN_PATH")) old_path = value;
  ::setenv("BERTH_PLUGIN_PATH", manifest_path.c_str(), 1);
  Result<Host> host = Host::Create();
  if (old_path) ::setenv("BERTH_PLUGIN_PATH", old_path->c_str(), 1);
  else ::unsetenv("BERTH_PLUGIN_PATH");
  BERTH_RETURN_IF_ERROR(host.status());

  Result<PluginInfo> info = host->Load(manifest.name);
  if (!info.ok()) {
    emit(Fail("load", info.status().ToString()));
    return report;
  }
  report.negotiated_version = info->negotiated_version;
  emit(Pass("load"));

  {
    Context context;
    context.host = &*host;
    context.plugin = manifest.name;
    context.attributes = info->attributes;
    auto stablehlo = context.attributes.find("stablehlo_support");
    context.stablehlo = stablehlo != context.attributes.end() &&
                        std::holds_alternative<bool>(stablehlo->second) &&
                        std::get<bool>(stablehlo->second);
    Result<Client> client = context.NewClient();
    emit(FromStatus("client.create", client.status()));
    if (!client.ok()) return report;
    context.client.emplace(std::move(client).value());
    context.library = context.client->state()->library.get();
    context.api = &context.library->api();

    AbiChecks(context, emit);
    ObjectChecks(context, emit);
    ExecuteChecks(context, emit);
  }

  // Every object of the suite is gone: a plugin that counts its objects
  // must be back to zero.
  const std::string leak = "objects.none_leaked";
  if (std::optional<int64_t> live = LiveObjects(manifest.library)) {
    emit(*live == 0 ? Pass(leak)
                    : Fail(leak, std::to_string(*live) +
                                     " objects are still alive after every handle was destroyed"));
  } else {
    emit(Skip(leak, "the plugin exports no BERTH_Debug_LiveObjects count"));
  }
  return report;
}

}  // namespace berth::conformance
