// libFuzzer target for the StableHLO parser: any input must give a Module or
// a Status, never a crash, hang or sanitizer report. Parsed modules are
// verified (those with quantized types lowered first, LowerQuantizedTypes),
// printed and parsed again; a printed module that does not parse back to
// the same IR is a bug (reported as a crash).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "berth/stablehlo/stablehlo.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace berth;
  using namespace berth::stablehlo;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  Result<Module> module = ParseModule(text, "fuzz.mlir");
  if (!module.ok()) return 0;
  Status verified = Verify(*module);
  (void)verified;
  if (HasQuantizedTypes(*module)) {
    Result<Module> lowered = LowerQuantizedTypes(*module);
    if (lowered.ok() && HasQuantizedTypes(*lowered)) {
      std::fprintf(stderr, "a lowered module still has quantized types\n");
      __builtin_trap();
    }
  }
  std::string printed = Print(*module);
  Result<Module> again = ParseModule(printed, "printed.mlir");
  if (!again.ok()) {
    std::fprintf(stderr, "printed module does not parse: %s\n%s\n",
                 again.status().ToString().c_str(), printed.c_str());
    __builtin_trap();
  }
  std::string difference;
  if (!StructurallyEqual(*module, *again, &difference)) {
    std::fprintf(stderr, "round trip differs: %s\n%s\n", difference.c_str(), printed.c_str());
    __builtin_trap();
  }
  return 0;
}
