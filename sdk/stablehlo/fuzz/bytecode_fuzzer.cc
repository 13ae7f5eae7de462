// libFuzzer target for the bytecode reader: any input must give a Module or a
// Status, never a crash, hang or sanitizer report. Modules read are written
// again and must read back to the same IR. Seed it with bytecode of real
// programs (`berth compile P.mlir --until plan` writes cpu-plan files that
// hold it; sdk/stablehlo/README.md).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "berth/stablehlo/stablehlo.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace berth;
  using namespace berth::stablehlo;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // Unverified, so the structural checks alone stand between the bytes and
  // the IR's invariants; the verifier then must not crash on what they let
  // through.
  Result<Module> module = ReadBytecode(bytes, "fuzz.bc", BytecodeReadOptions{.verify = false});
  if (!module.ok()) return 0;
  (void)Verify(*module);
  std::string again = WriteBytecode(*module);
  Result<Module> reread = ReadBytecode(again, "again.bc", BytecodeReadOptions{.verify = false});
  std::string difference;
  if (!reread.ok() || !StructurallyEqual(*module, *reread, &difference)) {
    std::fprintf(stderr, "bytecode round trip fails: %s %s\n",
                 reread.ok() ? "" : reread.status().ToString().c_str(), difference.c_str());
    __builtin_trap();
  }
  return 0;
}
