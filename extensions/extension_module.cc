#include "extension_module.hpp"

#include "berth/log.hpp"
#include "custom_partitioner/custom_partitioner_module.hpp"
#include "ffi/ffi_module.hpp"

namespace berth::ext {
namespace {

std::string UnsupportedType(const core::Manifest& manifest) {
  return "extension module '" + manifest.name + "' (" + manifest.path.string() +
         "): extension modules of type '" + manifest.extension_type +
         "' are not supported by this host (only 'ffi' and 'custom_partitioner' modules are); not loaded";
}

}  // namespace

ModuleOutcome ModuleFailure(std::string_view reason, std::string message) {
  Log(LogLevel::kWarning, "extensions", message);
  return ModuleOutcome{nullptr, std::string(reason), std::move(message)};
}

ModuleOutcome LoadExtensionModule(const core::Manifest& manifest,
                                  const core::LoadOptions& options) {
  switch (manifest.extension_type_id) {
    case BERTH_Extension_Type_Ffi: return ffi::FfiModule::Load(manifest, options);
    case BERTH_Extension_Type_CustomPartitioner:
      return custom_partitioner::CustomPartitionerModule::Load(manifest, options);
    default: return ModuleFailure(reason::kUnsupportedExtensionType, UnsupportedType(manifest));
  }
}

Status CheckExtensionModule(const core::Manifest& manifest) {
  switch (manifest.extension_type_id) {
    case BERTH_Extension_Type_Ffi: return ffi::FfiModule::CheckManifest(manifest);
    case BERTH_Extension_Type_CustomPartitioner: return OkStatus();  // nothing beyond the common fields
    default: return UnimplementedError(UnsupportedType(manifest));
  }
}

}  // namespace berth::ext
