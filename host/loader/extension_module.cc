#include "loader/extension_module.hpp"

#include <boost/dll/shared_library.hpp>
#include <set>

#include "berth/extension_chain.hpp"
#include "berth/log.hpp"
#include "loader/library_file.hpp"

namespace berth::host {
namespace {

constexpr const char* kCategory = "extensions";

ExtensionModule::Outcome Fail(std::string_view reason, std::string message) {
  Log(LogLevel::kWarning, kCategory, message);
  return ExtensionModule::Outcome{nullptr, std::string(reason), std::move(message)};
}

std::string UnsupportedType(const Manifest& manifest) {
  return "extension module '" + manifest.name + "' (" + manifest.path.string() +
         "): extension modules of type '" + manifest.extension_type +
         "' are not supported by this host (only 'ffi' modules are); not loaded";
}

// An FFI module's "functions" (none when absent).
Result<std::vector<ext::ffi::FunctionSpec>> ParseFunctions(const Manifest& manifest) {
  auto functions = manifest.raw.find("functions");
  if (functions == manifest.raw.end()) return std::vector<ext::ffi::FunctionSpec>{};
  return ext::ffi::ParseFfiFunctions(*functions, manifest.path.string());
}

}  // namespace

Status ExtensionModule::CheckManifest(const Manifest& manifest) {
  if (manifest.extension_type_id != BERTH_Extension_Type_Ffi) return UnimplementedError(UnsupportedType(manifest));
  return ParseFunctions(manifest).status();
}

ExtensionModule::Outcome ExtensionModule::Load(const Manifest& manifest,
                                               const LoadOptions& options) {
  const std::string where =
      "extension module '" + manifest.name + "' (" + manifest.path.string() + ")";
  if (manifest.extension_type_id != BERTH_Extension_Type_Ffi) {
    return Fail(reason::kUnsupportedExtensionType, UnsupportedType(manifest));
  }
  // Parse the bindings before opening anything.
  Result<std::vector<ext::ffi::FunctionSpec>> parsed = ParseFunctions(manifest);
  if (!parsed.ok()) return Fail(reason::kInvalidModule, std::string(parsed.status().message()));
  std::vector<ext::ffi::FunctionSpec> specs = std::move(parsed).value();

  std::shared_ptr<ExtensionModule> module(new ExtensionModule());
  module->name_ = manifest.name;
  module->no_unload_ = options.no_unload;
  LibraryFileOutcome file = OpenLibraryFile(manifest, where);
  if (!file.library) return Fail(file.reason, std::move(file.message));
  module->library_ = std::move(file.library);
  boost::dll::shared_library& library = *module->library_;

  std::set<std::string> targets;
  auto add_target = [&](ModuleFfiTarget target) -> bool {
    if (!targets.insert(target.target).second) return false;
    module->ffi_targets_.push_back(std::move(target));
    return true;
  };
  if (library.has(BERTH_FFI_GET_MODULE_SYMBOL)) {
    auto* get_module = library.get<BERTH_Ffi_GetModule_Fn>(BERTH_FFI_GET_MODULE_SYMBOL);
    const BERTH_Ffi_Module* table = nullptr;
    try {
      table = get_module();
    } catch (...) {
      return Fail(reason::kInvalidModule,
                  where + ": " + BERTH_FFI_GET_MODULE_SYMBOL + " threw an exception");
    }
    if (table == nullptr || table->struct_size < BERTH_Ffi_Module_STRUCT_SIZE) {
      return Fail(reason::kInvalidModule,
                  where + ": " + BERTH_FFI_GET_MODULE_SYMBOL +
                      " returned NULL or a table smaller than BERTH_Ffi_Module");
    }
    if (table->version < 1 || table->version > BERTH_FFI_EXTENSION_VERSION) {
      return Fail(reason::kInvalidModule,
                  where + ": built for FFI extension version " + std::to_string(table->version) +
                      "; this host reads versions 1 to " +
                      std::to_string(BERTH_FFI_EXTENSION_VERSION));
    }
    if (table->num_handlers > 0 && table->handlers == nullptr) {
      return Fail(reason::kInvalidModule, where + ": its handler table is NULL");
    }
    for (size_t i = 0; i < table->num_handlers; ++i) {
      const BERTH_Ffi_ModuleHandler& entry = table->handlers[i];
      const std::string index = "handler " + std::to_string(i);
      if (entry.target == nullptr || entry.target[0] == '\0' || entry.handler == nullptr) {
        return Fail(reason::kInvalidModule, where + ": " + index + " has no target or function");
      }
      if (!add_target({entry.target, entry.handler, entry.handler_data})) {
        return Fail(reason::kInvalidModule,
                    where + ": target '" + std::string(entry.target) + "' is given twice");
      }
    }
  }
  for (ext::ffi::FunctionSpec& spec : specs) {
    const std::string target = spec.target;
    const std::string symbol = spec.symbol;
    if (!library.has(symbol)) {
      return Fail(reason::kInvalidModule,
                  where + ": function '" + target + "' binds symbol '" + symbol + "', which " +
                      manifest.library.string() +
                      " does not export; fix \"symbol\" or rebuild the library");
    }
    void* address = reinterpret_cast<void*>(library.get<void()>(symbol));
    Result<std::unique_ptr<ext::ffi::BoundFunction>> bound =
        ext::ffi::BoundFunction::Create(std::move(spec), address);
    if (!bound.ok()) {
      return Fail(reason::kInvalidModule, where + ": " + std::string(bound.status().message()));
    }
    if (!add_target({target, BERTH_FfiBinding_Handler, bound->get()})) {
      return Fail(reason::kInvalidModule,
                  where + ": target '" + target +
                      "' is both exported by BERTH_Ffi_GetModule and bound in \"functions\"");
    }
    module->bound_.push_back(std::move(bound).value());
  }
  if (module->ffi_targets_.empty()) {
    return Fail(reason::kInvalidModule,
                where + ": gives no handler: export " + BERTH_FFI_GET_MODULE_SYMBOL +
                    " or bind C functions in \"functions\"");
  }
  Log(LogLevel::kInfo, kCategory,
      where + ": loaded " + manifest.library.string() + " with " +
          std::to_string(module->ffi_targets_.size()) + " FFI target(s)");
  return Outcome{std::move(module), "", ""};
}

ExtensionModule::~ExtensionModule() {
  bound_.clear();
  if (no_unload_ && library_ != nullptr) KeepLoaded(std::move(library_));
}

}  // namespace berth::host
