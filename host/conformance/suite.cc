
#include "berth/ext/live_objects.h"
#include "berth/extension_chain.hpp"
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

// objects.none_leaked: once every handle of the suite is destroyed, the
// plugin's live_objects extension (berth/ext/live_objects.h) must count none.
CheckResult NoObjectsLeaked(const core::PluginLibrary& library) {
  const std::string name = "objects.none_leaked";
  const auto* extension = library.Extension<BERTH_LiveObjects_Extension>(
      BERTH_Extension_Type_LiveObjects, BERTH_LiveObjects_Extension_STRUCT_SIZE);
  if (extension == nullptr) {
    if (FindExtension(library.api().extension_start, BERTH_Extension_Type_LiveObjects)) {
      return Fail(name, "its live_objects extension struct is smaller than " +
                            std::to_string(BERTH_LiveObjects_Extension_STRUCT_SIZE) + " bytes");
    }
    return Skip(name, "the plugin offers no live_objects extension (SDK plugins do since ABI 1.1)");
  }
  BERTH_LiveObjects_Count_Args args{};
  args.struct_size = BERTH_LiveObjects_Count_Args_STRUCT_SIZE;
  Status status = library.CallExtension(extension->count, "BERTH_LiveObjects_Count", &args);
  if (!status.ok()) return Fail(name, status.ToString());
  std::string alive;
  auto add = [&](int64_t count, const char* what) {
    if (count == 0) return;
    alive += (alive.empty() ? "" : ", ") + std::to_string(count) + " " + what;
  };
  add(args.clients, "clients");
  add(args.buffers, "buffers");
  add(args.executables, "executables");
  add(args.events, "events");
  if (alive.empty()) return Pass(name);
  return Fail(name, "still alive after every handle was destroyed: " + alive);
}

}  // namespace

Result<Report> Run(const std::filesystem::path& manifest_path,
                   const std::function<void(const CheckResult&)>& on_result) {
  core::ManifestParseResult parsed = core::LoadManifestFile(manifest_path);
  if (!parsed.manifest) {
    return InvalidArgumentError(parsed.error.message);  // names the manifest
  }
  if (parsed.manifest->kind != core::ManifestKind::kPlugin) {
    return InvalidArgumentError(manifest_path.string() +
                                " describes an extension module; the suite runs on plugins");
  }
  const core::Manifest& manifest = *parsed.manifest;
  Report report;
  report.plugin = manifest.name;
  report.manifest = manifest_path.string();
  auto emit = [&](CheckResult result) {
    if (on_result) on_result(result);
    report.results.push_back(std::move(result));
  };

  // A host that sees this manifest only.
  HostOptions host_options;
  host_options.only_manifests = {manifest_path};
  Result<Host> host = Host::Create(host_options);
  BERTH_RETURN_IF_ERROR(host.status());

  Result<PluginInfo> info = host->Load(manifest.name);
  if (!info.ok()) {
    emit(Fail("load", info.status().ToString()));
    return report;
  }
  report.negotiated_version = info->negotiated_version;
  emit(Pass("load"));

  std::shared_ptr<const core::PluginLibrary> library;
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
    library = context.client->state()->library;
    context.library = library.get();
    context.api = &context.library->api();

    AbiChecks(context, emit);
    ObjectChecks(context, emit);
    ExecuteChecks(context, emit);
  }

  // Every object of the suite is gone: a plugin that counts its objects
  // must be back to zero. The host keeps the library loaded.
  emit(NoObjectsLeaked(*library));
  return report;
}

}  // namespace berth::conformance
