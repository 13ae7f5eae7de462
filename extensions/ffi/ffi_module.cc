#include "ffi/ffi_module.hpp"

#include <set>

#include "berth/log.hpp"
#include "ffi/ffi_client.hpp"

namespace berth::ext::ffi {
namespace {

// An FFI module's "functions" (none when absent).
Result<std::vector<FunctionSpec>> ParseFunctions(const core::Manifest& manifest) {
  auto functions = manifest.raw.find("functions");
  if (functions == manifest.raw.end()) return std::vector<FunctionSpec>{};
  return ParseFfiFunctions(*functions, manifest.path.string());
}

}  // namespace

Status FfiModule::CheckManifest(const core::Manifest& manifest) {
  return ParseFunctions(manifest).status();
}

ModuleOutcome FfiModule::Load(const core::Manifest& manifest, const core::LoadOptions& options) {
  const std::string where =
      "extension module '" + manifest.name + "' (" + manifest.path.string() + ")";
  // Parse the bindings before opening anything.
  Result<std::vector<FunctionSpec>> parsed = ParseFunctions(manifest);
  if (!parsed.ok()) {
    return ModuleFailure(reason::kInvalidModule, std::string(parsed.status().message()));
  }
  std::vector<FunctionSpec> specs = std::move(parsed).value();

  core::LibraryFileOutcome file = core::OpenLibraryFile(manifest, where);
  if (!file.library) return ModuleFailure(file.reason, std::move(file.message));
  std::shared_ptr<FfiModule> module(new FfiModule(manifest, options, std::move(file.library)));
  boost::dll::shared_library& library = module->library();

  std::set<std::string> targets;
  auto add_target = [&](ModuleTarget target) -> bool {
    if (!targets.insert(target.target).second) return false;
    module->targets_.push_back(std::move(target));
    return true;
  };
  if (library.has(BERTH_FFI_GET_MODULE_SYMBOL)) {
    Result<const BERTH_Ffi_Module*> read = ReadModuleTable<BERTH_Ffi_Module>(
        library, BERTH_FFI_GET_MODULE_SYMBOL, BERTH_Ffi_Module_STRUCT_SIZE, "BERTH_Ffi_Module", "FFI",
        BERTH_FFI_EXTENSION_VERSION, where);
    if (!read.ok()) return ModuleFailure(reason::kInvalidModule, std::string(read.status().message()));
    const BERTH_Ffi_Module* table = *read;
    if (table->num_handlers > 0 && table->handlers == nullptr) {
      return ModuleFailure(reason::kInvalidModule, where + ": its handler table is NULL");
    }
    for (size_t i = 0; i < table->num_handlers; ++i) {
      const BERTH_Ffi_ModuleHandler& entry = table->handlers[i];
      const std::string index = "handler " + std::to_string(i);
      if (entry.target == nullptr || entry.target[0] == '\0' || entry.handler == nullptr) {
        return ModuleFailure(reason::kInvalidModule,
                             where + ": " + index + " has no target or function");
      }
      if (!add_target({entry.target, entry.handler, entry.handler_data})) {
        return ModuleFailure(reason::kInvalidModule,
                             where + ": target '" + std::string(entry.target) + "' is given twice");
      }
    }
  }
  for (FunctionSpec& spec : specs) {
    const std::string target = spec.target;
    const std::string symbol = spec.symbol;
    if (!library.has(symbol)) {
      return ModuleFailure(reason::kInvalidModule,
                           where + ": function '" + target + "' binds symbol '" + symbol +
                               "', which " + manifest.library.string() +
                               " does not export; fix \"symbol\" or rebuild the library");
    }
    void* address = reinterpret_cast<void*>(library.get<void()>(symbol));
    Result<std::unique_ptr<BoundFunction>> bound = BoundFunction::Create(std::move(spec), address);
    if (!bound.ok()) {
      return ModuleFailure(reason::kInvalidModule,
                           where + ": " + std::string(bound.status().message()));
    }
    if (!add_target({target, BERTH_FfiBinding_Handler, bound->get()})) {
      return ModuleFailure(reason::kInvalidModule,
                           where + ": target '" + target +
                               "' is both exported by BERTH_Ffi_GetModule and bound in " +
                               "\"functions\"");
    }
    module->bound_.push_back(std::move(bound).value());
  }
  if (module->targets_.empty()) {
    return ModuleFailure(reason::kInvalidModule,
                         where + ": gives no handler: export " + BERTH_FFI_GET_MODULE_SYMBOL +
                             " or bind C functions in \"functions\"");
  }
  Log(LogLevel::kInfo, "extensions",
      where + ": loaded " + manifest.library.string() + " with " +
          std::to_string(module->targets_.size()) + " FFI target(s)");
  return ModuleOutcome{std::move(module), "", ""};
}

FfiModule::~FfiModule() {
  // The bound functions' closures point into the library: gone first.
  bound_.clear();
}

NamedValueMap FfiModule::Attributes() const {
  return TargetNames("ffi_targets", targets_, [](const ModuleTarget& target) -> const std::string& {
    return target.target;
  });
}

Status FfiModule::AttachTo(const core::PluginLibrary& library, BERTH_Client* client,
                           const BERTH_Extension_Base* extension) const {
  const auto* ffi = reinterpret_cast<const BERTH_Ffi_Extension*>(extension);
  AttachRefusals refusals;
  for (const ModuleTarget& target : targets_) {
    refusals.Add(target.target, RegisterHandler(library, client, ffi, target.target, target.handler,
                                                target.handler_data, nullptr));
  }
  return refusals.ToStatus();
}

}  // namespace berth::ext::ffi
