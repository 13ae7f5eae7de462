// An extension module (a manifest of kind "extension") with its library
// open. Modules load lazily: the first time a client of a plugin they apply
// to is created (or on Host::LoadAll). Today only `ffi` modules have
// anything to attach: typed handlers the library exports through
// BERTH_Ffi_GetModule, and plain C functions its manifest binds through
// libffi ("functions", extensions/ffi/README.md).
#ifndef BERTH_HOST_LOADER_EXTENSION_MODULE_HPP_
#define BERTH_HOST_LOADER_EXTENSION_MODULE_HPP_

#include <memory>
#include <string>
#include <vector>

#include "berth/ext/ffi.h"
#include "ffi/ffi_binding.hpp"
#include "loader/plugin_library.hpp"
#include "manifest/manifest.hpp"

namespace berth::host {

// One handler a module gives every client it attaches to.
struct ModuleFfiTarget {
  std::string target;
  BERTH_Ffi_Handler* handler = nullptr;
  void* handler_data = nullptr;  // owned by the module
};

// Reasons an extension module is skipped (besides the loader's reasons in
// manifest.hpp), printed by `berth plugins --json`.
namespace reason {
inline constexpr std::string_view kUnsupportedExtensionType = "unsupported_extension_type";
inline constexpr std::string_view kInvalidModule = "invalid_module";
}  // namespace reason

class ExtensionModule {
 public:
  struct Outcome {
    std::shared_ptr<ExtensionModule> module;  // NULL on failure
    std::string reason;
    std::string message;
  };

  // Opens the library, reads its typed handlers and binds its functions.
  // Fails (with a reason and a sentence naming the file, field and fix) for
  // a library that cannot be opened, a bad "functions" list, a symbol that
  // is missing, or a module built for another FFI extension version.
  static Outcome Load(const Manifest& manifest, const LoadOptions& options);
  // The type-specific checks Load makes before opening anything (the type is
  // supported, "functions" is well formed); used by `berth validate`.
  static Status CheckManifest(const Manifest& manifest);
  ~ExtensionModule();
  ExtensionModule(const ExtensionModule&) = delete;
  ExtensionModule& operator=(const ExtensionModule&) = delete;

  const std::string& name() const { return name_; }
  const std::vector<ModuleFfiTarget>& ffi_targets() const { return ffi_targets_; }

 private:
  ExtensionModule() = default;

  std::string name_;
  bool no_unload_ = false;
  std::unique_ptr<boost::dll::shared_library> library_;
  // Declared after library_: destroyed first, while their code is mapped.
  std::vector<std::unique_ptr<ext::ffi::BoundFunction>> bound_;
  std::vector<ModuleFfiTarget> ffi_targets_;
};

}  // namespace berth::host

#endif  // BERTH_HOST_LOADER_EXTENSION_MODULE_HPP_
