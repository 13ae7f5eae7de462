// libFuzzer target: ParseManifest must accept any bytes without crashing,
// hanging, throwing or leaking, and every rejection must carry a reason. An
// FFI module's "functions" go through the binding parser as well.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "berth/log.hpp"
#include "ffi/ffi_binding.hpp"
#include "manifest/manifest.hpp"

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  // Exercise the debug-log paths too, but keep the output quiet.
  berth::ConfigureLogging("debug");
  berth::SetLogSink([](berth::LogLevel, std::string_view, std::string_view) {});
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  berth::core::ManifestParseResult result =
      berth::core::ParseManifest("/fuzz/plugins.d/input.json", text);
  if (result.manifest) {
    // A valid manifest always has what the loader relies on.
    const berth::core::Manifest& m = *result.manifest;
    if (m.name.empty() || m.library_path.empty() || m.library.empty()) std::abort();
    if (m.sha256 && m.sha256->size() != 64) std::abort();
    if (auto functions = m.raw.find("functions"); functions != m.raw.end()) {
      auto specs = berth::ext::ffi::ParseFfiFunctions(*functions, m.path.string());
      if (!specs.ok() && specs.status().message().empty()) std::abort();
      if (specs.ok()) {
        for (const auto& spec : *specs) {
          if (spec.target.empty() || spec.symbol.empty() || spec.params.size() > 64) std::abort();
        }
      }
    }
  } else if (result.error.reason.empty() || result.error.message.empty()) {
    std::abort();
  }
  return 0;
}
