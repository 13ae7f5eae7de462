// An FFI extension module (a manifest of kind "extension", type "ffi") with
// its library open: typed handlers the library exports through
// BERTH_Ffi_GetModule, and plain C functions its manifest binds through
// libffi ("functions", README.md). Attached to a client, every target is
// registered with it.
#ifndef BERTH_EXTENSIONS_FFI_FFI_MODULE_HPP_
#define BERTH_EXTENSIONS_FFI_FFI_MODULE_HPP_

#include <memory>
#include <string>
#include <vector>

#include "berth/ext/ffi.h"
#include "extension_module.hpp"
#include "ffi/ffi_binding.hpp"

namespace berth::ext::ffi {

// One handler a module gives every client it attaches to.
struct ModuleTarget {
  std::string target;
  BERTH_Ffi_Handler* handler = nullptr;
  void* handler_data = nullptr;  // owned by the module
};

class FfiModule final : public ExtensionModule {
 public:
  // Opens the library, reads its typed handlers and binds its functions.
  // Fails (with a reason and a sentence naming the file, field and fix) for
  // a library that cannot be opened, a bad "functions" list, a symbol that
  // is missing, or a module built for another FFI extension version.
  static ModuleOutcome Load(const core::Manifest& manifest, const core::LoadOptions& options);
  // The checks Load makes before opening anything ("functions" is well formed).
  static Status CheckManifest(const core::Manifest& manifest);
  ~FfiModule() override;

  const std::vector<ModuleTarget>& targets() const { return targets_; }
  // "ffi_targets": the targets, comma-separated.
  NamedValueMap Attributes() const override;
  // Registers every target with the client (BERTH_Ffi_RegisterHandler); the
  // handlers' data stays the module's. A target the client refuses (its name
  // taken) does not stop the others; the error lists every refusal.
  Status AttachTo(const core::PluginLibrary& library, BERTH_Client* client,
                  const BERTH_Extension_Base* extension) const override;

 private:
  using ExtensionModule::ExtensionModule;

  std::vector<std::unique_ptr<BoundFunction>> bound_;
  std::vector<ModuleTarget> targets_;
};

}  // namespace berth::ext::ffi

#endif  // BERTH_EXTENSIONS_FFI_FFI_MODULE_HPP_
