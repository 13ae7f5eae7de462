// The host side of the ffi extension's client calls (berth/ext/ffi.h):
// registering a handler with a plugin client, and the C handler that runs a
// C++ berth::FfiHandler. berth::Client::RegisterFfiHandler forwards here; the
// callback extension registers host callbacks through the same adapter.
#ifndef BERTH_EXTENSIONS_FFI_FFI_CLIENT_HPP_
#define BERTH_EXTENSIONS_FFI_FFI_CLIENT_HPP_

#include <string_view>

#include "berth/ext/ffi.h"
#include "berth/ffi.hpp"
#include "berth/status.hpp"
#include "loader/plugin_library.hpp"

namespace berth::ext::ffi {

// A C handler with its data: what the C ABI carries for a C++ FfiHandler.
struct CHandler {
  BERTH_Ffi_Handler* handler = nullptr;
  void* data = nullptr;  // owns a heap FfiHandler
  BERTH_Ffi_ReleaseData* release = nullptr;
};

// Wraps `handler` (which must not be empty): the C handler calls it, turns
// its Status into the frame's error and an escaping exception into INTERNAL.
CHandler Adapt(FfiHandler handler);

// BERTH_Ffi_RegisterHandler on `client`. `ffi` is the plugin's extension
// struct, NULL when it lacks one (UNIMPLEMENTED naming the plugin). `release`
// (when not NULL) frees `data` on every path: at once on failure, else when
// the plugin drops the handler.
Status RegisterHandler(const core::PluginLibrary& library, BERTH_Client* client,
                       const BERTH_Ffi_Extension* ffi, std::string_view target,
                       BERTH_Ffi_Handler* handler, void* data, BERTH_Ffi_ReleaseData* release);

}  // namespace berth::ext::ffi

#endif  // BERTH_EXTENSIONS_FFI_FFI_CLIENT_HPP_
